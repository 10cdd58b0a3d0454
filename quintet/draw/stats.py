"""Session statistics of ``quintet poker``: the one place they are computed, from the hands'
history lines (``Table.history_line``, one JSON line per hand: the ``--history`` file, by
default ``poker-hands.jsonl`` in the user data directory) — the history is what is kept
between sessions.

    >>> line = {"hand": 1, "showdown": True, "winners": [0], "actions": [],
    ...         "seats": [{"seat": 0, "player": "person", "folded": False, "stack_before": 100, "stack_after": 112},
    ...                   {"seat": 1, "player": "advisor", "folded": False, "stack_before": 100, "stack_after": 88}]}
    >>> s = poker_stats([line])
    >>> s.hands, s.net, s.outcomes
    (1, 12, (Outcome(what='won at the show-down', hands=1, chips=12),))

Only the person's seat counts (``player`` ``person``).  ``chips`` is the trend of the chips won
or lost per hand (``quintet.trend.Trend``: the last ``window`` hands against those before);
``outcomes`` say how the hands ended for the person — won at the show-down, won unseen
(everyone else folded), split, lost at the show-down, folded before or after the exchange or
when asked to pay to see — with the chips each way won or lost: where the chips go.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..faults import InputError
from ..jsonlines import read_json_lines
from ..trend import Trend

__all__ = ["WINDOW", "Outcome", "PokerStats", "poker_stats", "read_history", "HistoryError"]

WINDOW = 20
"""Hands per block of the trend, and in its "recent" mean."""
_ORDER = ("won at the show-down", "won unseen", "split the pot", "lost at the show-down", "folded before the exchange",
          "folded at the exchange", "folded after the exchange", "folded instead of paying to see", "folded")


class HistoryError(InputError):
    """A history file that cannot be read (missing, not JSON lines)."""


@dataclass(frozen=True)
class Outcome:
    """How some hands ended for the person, and the chips won (+) or lost (−) in them."""

    what: str
    hands: int
    chips: int


@dataclass(frozen=True)
class PokerStats:
    """The person's hands (see the module doc)."""

    hands: int
    won: int  # took the whole pot
    split: int
    net: int  # chips won minus chips lost
    chips: Trend  # per hand
    outcomes: tuple[Outcome, ...]


def _outcome(line: dict[str, Any], seat: dict[str, Any]) -> str:
    number = seat["seat"]
    winners = line.get("winners", [])
    if number in winners:
        if len(winners) > 1:
            return "split the pot"
        return "won at the show-down" if line.get("showdown") else "won unseen"
    if not seat.get("folded"):
        return "lost at the show-down"
    phase = next((a.get("phase") for a in reversed(line.get("actions", []))
                  if a.get("seat") == number and a.get("action") == "fold"), None)
    return {"betting before the exchange": "folded before the exchange", "exchange": "folded at the exchange",
            "betting after the exchange": "folded after the exchange",
            "paying to see": "folded instead of paying to see"}.get(str(phase), "folded")


def poker_stats(lines: Iterable[dict[str, Any]], window: int = WINDOW, player: str = "person") -> PokerStats:
    """The statistics of the ``player``'s seat over history ``lines`` (in the order played)."""
    nets: list[float] = []
    won = split = 0
    counts: dict[str, list[int]] = {}
    for line in lines:
        for seat in line.get("seats", []):
            if seat.get("player") != player:
                continue
            net = int(seat["stack_after"]) - int(seat["stack_before"])
            nets.append(net)
            what = _outcome(line, seat)
            won += what in ("won at the show-down", "won unseen")
            split += what == "split the pot"
            entry = counts.setdefault(what, [0, 0])
            entry[0] += 1
            entry[1] += net
    outcomes = tuple(Outcome(what, *counts[what]) for what in _ORDER if what in counts)
    return PokerStats(len(nets), won, split, int(sum(nets)), Trend.of(nets, window), outcomes)


def read_history(path: str | Path) -> list[dict[str, Any]]:
    """The history lines of a file (blank lines skipped); ``HistoryError`` naming the file and
    the line for one that is not a JSON object with ``seats``."""
    lines = []
    for number, line in read_json_lines(path, HistoryError, "history file"):
        if not isinstance(line, dict) or not isinstance(line.get("seats"), list) or not all(
                isinstance(s, dict) and {"seat", "stack_before", "stack_after"} <= set(s) for s in line["seats"]):
            raise HistoryError(f"{path}: line {number}: not a hand's history (no 'seats' with stacks)")
        lines.append(line)
    return lines
