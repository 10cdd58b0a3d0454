"""The one ``to_dict`` of every result: the JSON of its response model (``to_model``, a
pydantic model of ``quintet.schema`` or ``solver.advisor.schema``, loaded only then)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Jsonable"]


class Jsonable:
    """A result with a response model: ``to_dict(...)`` is ``to_model(...)``'s JSON object."""

    to_model: Callable[..., Any]

    def to_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The JSON object the command lines print with ``--json`` and the HTTP API sends."""
        from .schema import dump
        return dump(self.to_model(*args, **kwargs))
