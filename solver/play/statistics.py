"""Session statistics of Quintet games: the one place ``quintet-play`` (its ``stats`` command,
``quintet-play stats``), ``POST /api/stats`` and the page's Review tab compute them, from game
records (``solver.storage.records``) — the records are what is kept between sessions.

    >>> from solver.play.session import GameSession
    >>> from solver.play.computer import Computer
    >>> from quintet.game import Deal
    >>> deal = Deal.random(7)
    >>> game = GameSession(deal, Computer.choose(deal, "greedy", seed=7), seed=7)
    >>> _ = game.play_out("Js Jh 8s 8d 8c | Qs Qh 9h 9d 9c | Ac Kc Qc Jc Tc | Ah Kh Ts 7d 7c | Ad Kd Qd Jd Td")
    >>> s = statistics([game.record()])
    >>> s.games, s.won, s.points_player, s.points_computer, s.regret.mean
    (1, 1, 12.0, 6.0, 0.0)
    >>> [(x.slot, x.won, x.lost, x.tied, x.regret) for x in s.slots]
    [(1, 1, 0, 0, 0.0), (2, 1, 0, 0, 0.0), (3, 1, 0, 0, 0.0), (4, 0, 1, 0, 0.0), (5, 0, 0, 1, 0.0)]
    >>> [(o.opponent, o.games, o.regret.mean) for o in s.opponents]
    [('greedy', 1, 0.0)]

Games count in the order of their ``time`` (the order of the file for equal times).  The mean
regret and its trend (``quintet.trend.Trend``: the last ``window`` games against those before,
the means of blocks of ``window`` games) take the games that have a regret (not those against
a person); the margin's trend takes every game.  **Per opponent** (``OpponentStats``): the
games, their results and the regret's trend against that opponent alone — a regret against one
computer says nothing of the play against another, so the trend worth reading is each one's.
Per slot: how often it was won, lost and tied, the points won and lost there, and the mean
**regret made there** (the records' ``slot_regret``: the best response's expected margin in that
slot minus yours; records without it are left out of it) — where the regret goes, not the luck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quintet.jsonable import Jsonable
from quintet.trend import Trend
from solver.storage.records import GameRecord

if TYPE_CHECKING:
    from solver.advisor.schema import StatsOut

__all__ = ["WINDOW", "SlotStats", "OpponentStats", "SessionStats", "statistics"]

WINDOW = 10
"""Games per block of the trend, and in its "recent" mean."""


@dataclass(frozen=True)
class SlotStats:
    """One slot over the games: won, lost and tied, and the points won and lost in it."""

    slot: int  # 1-based
    points: int  # at stake
    won: int
    lost: int
    tied: int
    points_won: float
    points_lost: float
    regret: float | None  # the mean regret made in this slot per game (None: no record says)


@dataclass(frozen=True)
class OpponentStats:
    """The games against one opponent (the records' ``opponent``): results and the regret's trend."""

    opponent: str
    games: int
    won: int
    lost: int
    drawn: int
    regret: Trend  # per game with a regret, against this opponent only


@dataclass(frozen=True)
class SessionStats(Jsonable):
    """The statistics of a list of records (see the module doc)."""

    games: int
    won: int
    lost: int
    drawn: int
    points_player: float
    points_computer: float
    margin: Trend  # the player's points minus the other side's, per game
    regret: Trend  # per game with a regret
    slots: tuple[SlotStats, ...]
    opponents: tuple[OpponentStats, ...]  # the other sides played, most games first
    first: str | None  # the first game's time (ISO 8601 UTC)
    last: str | None

    def to_model(self) -> StatsOut:
        from solver.advisor.schema import StatsOut, model_of
        return model_of(StatsOut, self, opponents={o.opponent: o.games for o in self.opponents},
                        per_opponent=self.opponents)

    @property
    def worst_slot(self) -> SlotStats | None:
        """The slot where the most regret was made (None before any)."""
        made = [s for s in self.slots if s.regret is not None and s.regret > 0.005]
        return max(made, key=lambda s: (s.regret, s.slot)) if made else None


def statistics(records: Sequence[GameRecord], window: int = WINDOW) -> SessionStats:
    """The statistics of ``records`` (any order: they are taken by time)."""
    games = sorted(records, key=lambda r: r.time)  # stable: equal times keep the file's order
    margins = [r.showdown.margin for r in games]
    graded = [r.slot_regret for r in games if r.slot_regret is not None]
    n_slots = max((len(r.showdown.slots) for r in games), default=0)
    slots = []
    for s in range(n_slots):
        results = [r.showdown.slots[s] for r in games if len(r.showdown.slots) > s]
        slots.append(SlotStats(
            slot=s + 1, points=results[0].weight,
            won=sum(x.winner == "A" for x in results), lost=sum(x.winner == "B" for x in results),
            tied=sum(x.winner is None for x in results),
            points_won=sum(x.points_a for x in results), points_lost=sum(x.points_b for x in results),
            regret=sum(g[s] for g in graded if len(g) > s) / len(graded) if graded else None))
    counts = Counter(r.opponent for r in games)
    opponents = []
    for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        theirs = [r.showdown.margin for r in games if r.opponent == name]
        opponents.append(OpponentStats(
            name, n, won=sum(m > 0 for m in theirs), lost=sum(m < 0 for m in theirs), drawn=sum(m == 0 for m in theirs),
            regret=Trend.of([r.regret for r in games if r.opponent == name and r.regret is not None], window)))
    return SessionStats(
        games=len(games), won=sum(m > 0 for m in margins), lost=sum(m < 0 for m in margins),
        drawn=sum(m == 0 for m in margins),
        points_player=sum(r.showdown.points_a for r in games), points_computer=sum(r.showdown.points_b for r in games),
        margin=Trend.of(margins, window), regret=Trend.of([r.regret for r in games if r.regret is not None], window),
        slots=tuple(slots), opponents=tuple(opponents),
        first=games[0].time if games else None, last=games[-1].time if games else None)
