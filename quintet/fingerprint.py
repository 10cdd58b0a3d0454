"""The rules fingerprint: one line naming everything in a rule set that changes a solution.

The store of solved deals keys its entries by it and game records carry it, so a solution
or a record of one game is never used under other rules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from enum import IntEnum
from typing import Any

from .rules import Rules

__all__ = ["rules_fingerprint"]

_CORE_RULE_FIELDS = {  # always written, in this order, under these short names
    "name": "",
    "deck": "deck",
    "weights": "w",
    "tie_points": "tie",
    "ace_low_straight": "acelow",
    "flush_over_full_house": "flush>fh",
    "tiebreak": "tb",
    "category_order": "cat",
    "hand_size": "hand",
}
_CORE_DECK_FIELDS = ("name", "ranks", "field")


def _fp_value(value: object) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, IntEnum):
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, tuple | list):
        return ",".join(_fp_value(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _fp_dataclass(value, _CORE_DECK_FIELDS)
    return str(value)


def _fp_extras(obj: Any, core: Iterable[str]) -> list[str]:
    """``name=value`` for every field of ``obj`` outside ``core`` that differs from its
    default, so adding an option with a backward-compatible default keeps old fingerprints."""
    out = []
    for f in sorted(dataclasses.fields(obj), key=lambda f: f.name):
        if f.name in core:
            continue
        value = getattr(obj, f.name)
        if f.default is not dataclasses.MISSING and value == f.default:
            continue
        if f.default_factory is not dataclasses.MISSING and value == f.default_factory():
            continue
        out.append(f"{f.name}={_fp_value(value)}")
    return out


def _fp_dataclass(obj: Any, core: tuple[str, ...]) -> str:
    return "/".join([_fp_value(getattr(obj, name)) for name in core] + _fp_extras(obj, core))


def rules_fingerprint(rules: Rules) -> str:
    """A stable, readable one-line string naming everything in ``rules`` that changes a solution.

    Two rule sets with equal fingerprints are the same game; any change of name, slot
    weights, tie points, straight/flush options, tiebreak, deck, category table or hand size
    changes it.  Options added to ``Rules`` (or ``Deck``) later appear as ``name=value`` only
    when they differ from their default, so existing stores stay valid.  Classic::

        quintet/1;classic;deck=32/789TJQKA/8;w=3,4,5,6,7;tie=0.0;acelow=0;flush>fh=0;
        tb=kickers;cat=0,1,2,3,4,5,6,7,8;hand=5        (one line)
    """
    parts = ["quintet/1"]
    for name, short in _CORE_RULE_FIELDS.items():
        value = _fp_value(getattr(rules, name))
        parts.append(f"{short}={value}" if short else value)
    parts.extend(_fp_extras(rules, _CORE_RULE_FIELDS))
    return ";".join(parts)
