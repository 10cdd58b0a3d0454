"""The shipped puzzle set and the players' rating: what ``quintet-play puzzle`` and the page's
puzzles draw first (``solver.play.puzzle``), so a fresh install has puzzles.

A puzzle of the set is a classic deal (in its canonical suits), its equilibrium mix (solved to
``PLAY_EPSILON``, the target of play, and shipped with it: the opponent), and the proven best
arrangement against that mix.
It is kept only if it teaches (``analyse``): the optimum beats greedy's arrangement by at least
``GREEDY_MARGIN`` points of expected margin and every other *natural* arrangement that misses
(``NATURAL``: greedy's hands in their best order, the best hands weakest first) by at least
``MISTAKE_MARGIN``; the most tempting of them is the puzzle's ``mistake``.  Its ``themes``
(``THEMES``, shown with the answer only) are read off the answer against greedy's and the
mistake — the hands it builds, the slot it sacrifices — and its ``rating`` — a difficulty on the players' scale — is
the Elo of its rank among the set by ``difficulty`` (how far the answer is from greedy's and how
many near-best arrangements surround it).  ``python -m solver.play.make_puzzles`` writes the set
(``data/puzzles.json``, one ``PuzzleSetOut``).

The player's rating moves with each rated puzzle's first answer by ``rate`` (Elo, its step
shrinking with the games played): the one formula the terminal and ``POST /api/puzzles/grade``
(so the page) use.

    >>> rate(1500.0, 0, 1500, 1.0).after
    1532.0
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import combinations, permutations
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from quintet.cards import cards_of
from quintet.faults import InputError
from quintet.game import Arrangement, Deal
from quintet.rules import CLASSIC, Category, Rules
from solver.advisor.limits import RATING_MAX, RATING_MIN, START_RATING
from solver.advisor.plans import plan_of
from solver.problem.best_response import VALUE_TOLERANCE, BestResponseProblem
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import ArrangementMix, greedy_arrangement

if TYPE_CHECKING:
    from solver.advisor.schema import PuzzleEntryOut, PuzzleProgressOut, PuzzleSetOut, RatingChangeOut

__all__ = ["GREEDY_MARGIN", "MISTAKE_MARGIN", "NEAR_BAND", "NATURAL", "START_RATING", "Analysis",
           "analyse", "Theme", "THEMES", "THEMES_BY_NAME", "themes",
           "difficulty", "elo_ratings", "entry_mix", "puzzle_set", "SET_FILE", "score_of",
           "expected_score", "k_factor", "rate", "Rating", "Progress", "ProgressError"]

GREEDY_MARGIN = 1.0
"""A puzzle's optimum beats greedy's arrangement by at least this (points of expected margin)."""
MISTAKE_MARGIN = 0.5
"""… and every other natural arrangement that misses by at least this (points)."""
NEAR_BAND = 0.1
"""An arrangement within this of the optimum (points) is near-best (``CLOSE``: two stars)."""
NATURAL = ("greedy", "greedy_hands", "best_hands_in_order")
"""The natural arrangements a puzzle must beat: greedy's; greedy's hands in their best slot
order; the best hands laid weakest first (as greedy lays them)."""
SET_FILE = "puzzles.json"
SCALE = 400.0  # Elo: a 400-point gap is 10:1 odds


# ----------------------------------------------------------------------------- analysis (the generator's)


@dataclass(frozen=True)
class Analysis:
    """Why a deal teaches, against a mix: the optimum and the natural arrangements' values."""

    best: Arrangement
    optimum: float
    greedy: float
    mistake: tuple[str, Arrangement, float]  # (NATURAL kind, arrangement, value): the most tempting miss
    near: int
    themes: tuple[str, ...]
    difficulty: float

    @property
    def teaches(self) -> bool:
        """Beats greedy by ``GREEDY_MARGIN`` and the tempting miss by ``MISTAKE_MARGIN``."""
        return (self.optimum - self.greedy >= GREEDY_MARGIN - VALUE_TOLERANCE
                and self.optimum - self.mistake[2] >= MISTAKE_MARGIN - VALUE_TOLERANCE)


def _value(problem: BestResponseProblem, packets: tuple[int, ...]) -> float:
    tables = problem.tables
    return problem.value_of([tables.index_of(p) for p in packets])


def _key(tables: DealTables, packet: int) -> int:
    return int(tables.packets.keys[tables.index_of(packet)])


def _best_order(problem: BestResponseProblem, packets: tuple[int, ...]) -> tuple[tuple[int, ...], float]:
    orders = [(p, _value(problem, p)) for p in permutations(packets)]
    return max(orders, key=lambda o: o[1])


def _weakest_first(tables: DealTables, packets: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(packets, key=lambda p: _key(tables, p)))


def _near(problem: BestResponseProblem, best: tuple[int, ...], optimum: float) -> int:
    """Arrangements other than ``best`` within ``NEAR_BAND`` of the optimum among its slot
    orders and its two-card swaps."""
    seen = {best}
    near = 0
    candidates: list[tuple[int, ...]] = list(permutations(best))
    for s, t in combinations(range(len(best)), 2):
        for a in cards_of(best[s]):
            for b in cards_of(best[t]):
                swapped = list(best)
                swapped[s] = best[s] & ~(1 << a) | (1 << b)
                swapped[t] = best[t] & ~(1 << b) | (1 << a)
                candidates.append(tuple(swapped))
    for c in candidates:
        if c not in seen:
            seen.add(c)
            near += _value(problem, c) >= optimum - NEAR_BAND
    return near


@dataclass(frozen=True)
class Theme:
    """A puzzle's teaching point: its name (what players see) and what it means."""

    name: str
    about: str


_SLOTS = CLASSIC.n_slots
THEMES: tuple[Theme, ...] = (
    # what hands the answer builds (against greedy's)
    Theme("reorder greedy's hands", "the answer keeps greedy's five hands and lays them in another order"),
    Theme("no throwaway hand", "every hand a full house or better, where greedy leaves a weak hand to lose"),
    Theme("a stronger weakest hand", "the weakest hand is a better category than greedy's weakest"),
    Theme("a cheaper sacrifice", "the weakest hand is worse than greedy's weakest, to make the others stronger"),
    Theme("break the straight flush", "a straight flush greedy makes is split to make other hands"),
    Theme("break the four of a kind", "a four of a kind greedy makes is split to make other hands"),
    Theme("break the full house", "a full house greedy makes is split to make other hands"),
    Theme("rebuild the weak hands", "greedy's strong hands kept, its weak ones made of other cards"),
    # how the answer orders them (slot k scores k + 2 points)
    *(Theme(f"sacrifice slot {k}", f"the weakest hand goes in slot {k}, not slot 1: it concedes a slot the "
            "opponent is likely to win anyway, and the stronger hands go where they can win")
      for k in range(2, _SLOTS + 1)),
    Theme("strongest hand early", f"the strongest hand goes before slot {_SLOTS}: against what the opponent lays, "
          "it wins more there than in the last slot"),
    Theme("order the middle", f"the weakest hand in slot 1 and the strongest in slot {_SLOTS}, but the hands "
          "between them out of strength order"),
)
"""Every theme a puzzle can have, declared once (the terminal, the page and the API show these)."""
THEMES_BY_NAME = {t.name: t for t in THEMES}


def themes(tables: DealTables, best: tuple[int, ...], greedy: tuple[int, ...], mistake: str) -> tuple[str, ...]:
    """What the answer ``best`` teaches, as ``THEMES`` names, read off it against greedy's
    arrangement and the tempting ``mistake`` (a ``NATURAL`` kind): a theme of the hands it
    builds and one of its slot order; the first is the one the mistake misses (the order
    when the mistake is the answer's own hands laid weakest first, else the hands)."""
    rules = tables.rules
    category = dict(zip(best + greedy, plan_of(Arrangement(best + greedy), rules), strict=True))
    strength = rules.categories  # weakest first

    def weakest(packets: tuple[int, ...]) -> int:
        return min(strength.index(category[p]) for p in packets)

    full_house = strength.index(Category.FULL_HOUSE)
    broken = [p for p in greedy if p not in best]
    if not broken:
        hands = "reorder greedy's hands"
    elif weakest(greedy) < full_house <= weakest(best):
        hands = "no throwaway hand"
    elif weakest(best) != weakest(greedy):
        hands = "a stronger weakest hand" if weakest(best) > weakest(greedy) else "a cheaper sacrifice"
    else:
        top = category[max(broken, key=lambda p: _key(tables, p))]
        hands = (f"break the {rules.category_label(top)}" if strength.index(top) >= full_house
                 else "rebuild the weak hands")
    keys = [_key(tables, p) for p in best]
    low, high = int(np.argmin(keys)), int(np.argmax(keys))
    order = (f"sacrifice slot {low + 1}" if low != 0 else "strongest hand early" if high != len(best) - 1
             else "order the middle" if keys != sorted(keys) else None)
    out = (order, hands) if mistake == "best_hands_in_order" and order else (hands, order)
    return tuple(t for t in out if t is not None)


def difficulty(changed: int, inversions: int, near: int, gap: float) -> float:
    """A puzzle's raw difficulty: the best hands not greedy's (``changed``, 0..5), the slot
    pairs laid against strength order (``inversions``, 0..10), the near-best arrangements
    around the answer (``near``), less the log of how much the tempting miss loses (``gap``,
    points ≥ ``MISTAKE_MARGIN``).  Only its order matters (``elo_ratings``)."""
    return changed + inversions / 2 + math.log2(1 + near) - math.log2(gap / MISTAKE_MARGIN)


def analyse(deal: Deal, mix: ArrangementMix, best: Arrangement) -> Analysis:
    """``best`` (an optimum against ``mix``, proven by the caller) against the natural arrangements."""
    tables = DealTables.build(deal)
    from solver.advisor.advice import best_response_problem
    problem = best_response_problem(deal, mix, tables=tables)
    packets = best.packets
    optimum = _value(problem, packets)
    greedy = greedy_arrangement(tables).packets
    hands_order, hands_value = _best_order(problem, greedy)
    in_order = _weakest_first(tables, packets)
    natural = [(kind, arr, value) for kind, (arr, value) in zip(NATURAL, [
        (greedy, _value(problem, greedy)), (hands_order, hands_value), (in_order, _value(problem, in_order))],
        strict=True)]
    misses = [n for n in natural if optimum - n[2] > VALUE_TOLERANCE]
    kind, arr, value = max(misses, key=lambda n: n[2]) if misses else natural[0]
    near = _near(problem, packets, optimum)
    keys = [_key(tables, p) for p in packets]
    inversions = sum(keys[i] > keys[j] for i, j in combinations(range(len(keys)), 2))
    changed = sum(p not in greedy for p in packets)
    gap = max(optimum - value, MISTAKE_MARGIN)
    return Analysis(best, optimum, natural[0][2], (kind, Arrangement(arr), value), near,
                    themes(tables, packets, greedy, kind), difficulty(changed, inversions, near, gap))


def elo_ratings(difficulties: list[float]) -> list[int]:
    """Each puzzle's rating: the Elo of its rank by difficulty among the set — a puzzle harder
    than a fraction q of the set is rated 1500 + 400·log10(q / (1 − q)) (q kept in 2%..98%),
    rounded to 10; equal difficulties share a rating."""
    order = sorted(difficulties)
    n = len(order)
    out = []
    for d in difficulties:
        q = (bisect_left(order, d) + 0.5 * order.count(d)) / n
        q = min(max(q, 0.02), 0.98)
        out.append(int(round((START_RATING + SCALE * math.log10(q / (1 - q))) / 10) * 10))
    return out


# ----------------------------------------------------------------------------- the shipped set


def entry_mix(entry: PuzzleEntryOut, rules: Rules = CLASSIC) -> ArrangementMix:
    """A shipped puzzle's opponent: its equilibrium mix."""
    return ArrangementMix(tuple(Arrangement.parse(a, rules) for a in entry.mix), tuple(entry.weights),
                          name="equilibrium")


@cache
def puzzle_set() -> PuzzleSetOut:
    """The shipped set (read once)."""
    from solver.advisor.schema import PuzzleSetOut
    text = resources.files(__package__).joinpath("data", SET_FILE).read_text(encoding="utf-8")
    return PuzzleSetOut.model_validate_json(text)


# ----------------------------------------------------------------------------- the player's rating


def score_of(stars: int, given_up: bool) -> float:
    """A rated answer's score: 1 solved (3 stars), 0.5 within ``CLOSE`` (2 stars), else 0."""
    return 0.0 if given_up else {3: 1.0, 2: 0.5}.get(stars, 0.0)


def expected_score(player: float, puzzle: float) -> float:
    """Elo: the score a player of rating ``player`` is expected to make on a puzzle of ``puzzle``."""
    return 1.0 / (1.0 + 10.0 ** ((puzzle - player) / SCALE))


def k_factor(games: int) -> float:
    """The step: 64 for a new player, shrinking towards 16 (``16 + 48 / (1 + games / 8)``)."""
    return 16.0 + 48.0 / (1.0 + max(games, 0) / 8.0)


@dataclass(frozen=True)
class Rating:
    """A rating moved by one answer (``rate``)."""

    before: float
    after: float
    games: int
    puzzle: int
    score: float
    expected: float

    @property
    def change(self) -> float:
        """after − before, in whole points."""
        return float(round(self.after - self.before))

    def to_model(self) -> RatingChangeOut:
        from solver.advisor.schema import RatingChangeOut, model_of
        return model_of(RatingChangeOut, self)


def rate(player: float, games: int, puzzle: int, score: float) -> Rating:
    """The player's rating after scoring ``score`` (0..1) on a puzzle rated ``puzzle``, having
    answered ``games`` rated puzzles before: ``player + K(games)·(score − expected)``, rounded to
    whole points (as every front-end shows it) and kept in 100..3000."""
    expected = expected_score(player, puzzle)
    after = player + k_factor(games) * (score - expected)
    after = float(min(max(round(after), RATING_MIN), RATING_MAX))
    return Rating(player, after, games + 1, puzzle, score, expected)


# ----------------------------------------------------------------------------- the player's progress


class ProgressError(InputError):
    """A progress file that cannot be read (not one ``Progress.save`` wrote)."""


@dataclass(frozen=True)
class Progress:
    """A player's puzzle progress: the rating, the rated puzzles answered, the set's puzzles
    solved and missed at the first answer (numbers) — the terminal keeps it in a file
    (``PuzzleProgressOut``), the page the same fields in its browser."""

    rating: float = START_RATING
    games: int = 0
    solved: tuple[int, ...] = ()
    missed: tuple[int, ...] = ()

    @property
    def player(self) -> tuple[float, int]:
        """What ``rate`` takes: (rating, rated puzzles before)."""
        return self.rating, self.games

    def after(self, number: int, rating: Rating) -> Progress:
        """The progress after the first answer to the set's puzzle ``number``, rated ``rating``."""
        won = rating.score >= 1
        return Progress(rating.after, rating.games,
                        tuple(sorted({*self.solved, number} if won else set(self.solved) - {number})),
                        tuple(sorted(set(self.missed) - {number} if won else {*self.missed, number})))

    def to_model(self) -> PuzzleProgressOut:
        from solver.advisor.schema import PuzzleProgressOut, model_of
        return model_of(PuzzleProgressOut, self, solved=list(self.solved), missed=list(self.missed))

    @classmethod
    def load(cls, path: Path) -> Progress:
        """The progress kept in ``path`` (a new player's when there is no such file)."""
        from pydantic import ValidationError

        from solver.advisor.schema import PuzzleProgressOut
        if not path.is_file():
            return cls()
        try:
            kept = PuzzleProgressOut.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValidationError) as exc:
            reason = str(exc).splitlines()[0] if not isinstance(exc, ValidationError) else \
                f"{exc.error_count()} bad field(s), e.g. {exc.errors()[0]['loc']}"
            raise ProgressError(f"{path}: not a puzzle progress file ({reason}); move it away to start afresh") \
                from None
        return cls(kept.rating, kept.games, tuple(kept.solved), tuple(kept.missed))

    def save(self, path: Path) -> None:
        """Write the progress to ``path`` (atomically: a file beside it, renamed)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        part.write_text(self.to_model().model_dump_json() + "\n", encoding="utf-8")
        part.replace(path)
