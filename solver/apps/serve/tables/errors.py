"""What a table refuses, by kind: the service raises these, each kind with its HTTP status
(``status``, required of every subclass when it is defined), which the HTTP layer answers
(``solver.apps.serve.errors``).  A move the game itself refuses is a ``PlayError`` (bad
input), as in ``quintet-play``.

Every message is one line and names no card of the other side."""

from __future__ import annotations

__all__ = ["TableError", "NoSuchTable", "NOT_FOUND", "AdviceOff", "NotYours", "NotNow", "TablesFull", "Stopping"]

NOT_FOUND = "no such table, or this token is not one of its seats"


class TableError(Exception):
    """A request a table refuses; every subclass states its HTTP ``status`` (4xx or 5xx) — one
    without is refused when it is defined.  ``retry_after``: seconds for a Retry-After (None: none)."""

    status: int
    retry_after: int | None = None

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        status = getattr(cls, "status", None)
        if not (isinstance(status, int) and 400 <= status <= 599):
            raise TypeError(f"{cls.__name__}: a TableError states its HTTP status (400 to 599) as 'status'")


class NoSuchTable(TableError):
    """No such table, or the token is not one of its seats (the same message for both: which
    tables exist is not told)."""

    status = 404

    def __init__(self) -> None:
        super().__init__(NOT_FOUND)


class AdviceOff(TableError):
    """Hints, grades and odds are off at this table."""

    status = 403


class NotYours(TableError):
    """A call for the other seat: the invitation is seat 1's."""

    status = 403


class NotNow(TableError):
    """Not in the game's state now: confirmed already, not shown down yet, still being
    prepared, the match over (or not over, for a rematch), an invitation already used."""

    status = 409


class TablesFull(TableError):
    """The server has its maximum of open tables; ``retry_after``: the seconds until the oldest
    idle one expires."""

    status = 503

    def __init__(self, limit: int, retry_after: int) -> None:
        super().__init__(f"the server has its maximum of {limit:,} open tables; try again later")
        self.retry_after = retry_after


class Stopping(TableError):
    """The server is stopping."""

    status = 503

    def __init__(self) -> None:
        super().__init__("the server is stopping")
