"""What a table refuses, by kind: the service raises these, each kind with its HTTP status
(stated when the kind is defined), which the HTTP layer answers (``solver.apps.serve.errors``).
A move the game itself refuses is a ``PlayError`` (bad input), as in ``quintet-play``.

Every message is one line and names no card of the other side."""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["TableError", "NoSuchTable", "NOT_FOUND", "AdviceOff", "NotYours", "NotNow", "TablesFull", "Stopping"]

NOT_FOUND = "no such table, or this token is not one of its seats"


class TableError(Exception):
    """A request a table refuses; every subclass states its HTTP status when it is defined
    (``class NotNow(TableError, status=409)``: without one, a ``TypeError``).  ``retry_after``:
    seconds for a Retry-After (None: none)."""

    status: ClassVar[int]
    retry_after: int | None = None

    def __init_subclass__(cls, *, status: int, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not 400 <= status <= 599:
            raise TypeError(f"{cls.__name__}: an HTTP error status is 400 to 599, got {status}")
        cls.status = status


class NoSuchTable(TableError, status=404):
    """No such table, or the token is not one of its seats (the same message for both: which
    tables exist is not told)."""

    def __init__(self) -> None:
        super().__init__(NOT_FOUND)


class AdviceOff(TableError, status=403):
    """Hints, grades and odds are off at this table."""


class NotYours(TableError, status=403):
    """A call for the other seat: the invitation is seat 1's."""


class NotNow(TableError, status=409):
    """Not in the game's state now: confirmed already, not shown down yet, still being
    prepared, the match over (or not over, for a rematch), an invitation already used."""


class TablesFull(TableError, status=503):
    """The server has its maximum of open tables; ``retry_after``: the seconds until the oldest
    idle one expires."""

    def __init__(self, limit: int, retry_after: int) -> None:
        super().__init__(f"the server has its maximum of {limit:,} open tables; try again later")
        self.retry_after = retry_after


class Stopping(TableError, status=503):
    """The server is stopping."""

    def __init__(self) -> None:
        super().__init__("the server is stopping")
