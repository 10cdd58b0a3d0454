"""Training: "find the best arrangement" puzzles, graded exactly — the one place ``quintet-play
puzzle``, ``/api/puzzles`` and the page's Review tab take them from.

A puzzle comes from one of two ``SOURCES``: the **shipped set** (``set``, the default:
``solver.play.puzzle_set`` — rated, with themes, drawn near the player's rating, so a fresh
install has puzzles) or the **store** (``store``: a deal whose equilibrium the store holds —
``EquilibriumStore``: the deals ``quintet-batch``, ``quintet-solve`` and the games have solved —
unrated), each in its canonical suits, with an opponent model: the deal's certified equilibrium
mix (the default; the set ships its mixes), or any registered model that needs no data
(``puzzle_opponents()``: ``greedy``, ``uniform`` …; a set's deal against one is unrated).
The answer is an arrangement; its grade (``solver.advisor.advice.grade``) is exact: the
optimum is proven by an exact engine (or, past the time limit, bounded — the regret is then an
upper bound), so a puzzle is **solved** only by an arrangement no arrangement beats
(regret ≤ ``VALUE_TOLERANCE``).  ``stars`` grade the rest: 3 solved, 2 within ``CLOSE``
points of expected margin, 1 within ``NEAR``, 0 beyond.

    pz = draw_puzzle(store, CLASSIC, seed=7, rating=1620.0)   # the set's, near 1620
    pz = pick_puzzle(store, CLASSIC, seed=7)       # the store's; PuzzleError when it holds no deal
    result = pz.grade("9s 9c 8s 8c 7c | …", player=(1620.0, 12))   # result.solved, .stars, .rating …
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING

from quintet.cards import format_cards
from quintet.faults import InputError
from quintet.game import Arrangement, Deal
from quintet.rules import Rules
from quintet.seeds import check_seed, seed_rng
from quintet.symmetry import canonical_exposed, symmetry_group
from quintet.text import quote
from solver.advisor.advice import Grade, Solution, best_response, grade
from solver.advisor.equilibrium import EquilibriumStore
from solver.play.computer import played_model
from solver.play.puzzle_set import START_RATING, THEMES_BY_NAME, Rating, Theme, entry_mix, puzzle_set, rate, score_of
from solver.problem.best_response import VALUE_TOLERANCE
from solver.problem.opponent_spec import EQUILIBRIUM, opponent_kinds
from solver.problem.opponents import OpponentModel
from solver.storage.store import SolutionStore

if TYPE_CHECKING:
    from solver.advisor.schema import PuzzleOut, PuzzleResultOut

__all__ = ["puzzle_opponents", "CLOSE", "NEAR", "SOURCES", "NEAREST", "PuzzleError", "Puzzle", "PuzzleResult",
           "pick_puzzle", "pick_set_puzzle", "draw_puzzle", "load_puzzle"]

CLOSE = 0.1
NEAR = 0.5
SOURCES = ("set", "store")
NEAREST = 20
"""A set's puzzle is drawn among the ``NEAREST`` puzzles rated nearest the player."""
PUZZLE_STREAM = 3
"""The stream of the seed that picks a puzzle's deal (apart from the deals' and the computer's)."""


class PuzzleError(InputError):
    """No puzzle: the store holds no solved deal, a deal given is not in it, an unknown opponent."""


def puzzle_opponents() -> tuple[str, ...]:
    """A puzzle's opponents: the equilibrium and every registered model that needs no data."""
    return tuple(k.name for k in opponent_kinds() if k.standalone)


@dataclass(frozen=True)
class Puzzle:
    """A deal and the opponent to find the best arrangement against (see the module doc);
    ``number`` is its place (1-based) among its ``source``'s ``count`` puzzles; ``rating`` and
    ``themes`` a rated puzzle's (the set's, against its mix), else None and ()."""

    deal: Deal
    opponent: str
    model: OpponentModel
    exploitability: float | None  # the stored equilibrium's certified exploitability
    number: int
    count: int
    seed: int | None = None  # the seed that picked it, if one did
    source: str = "store"
    rating: int | None = None
    themes: tuple[str, ...] = ()

    def grade(self, arrangement: Arrangement | str, *, time_limit: float | None = None,
              stop_event: threading.Event | None = None, player: tuple[float, int] | None = None) -> PuzzleResult:
        """The answer ``arrangement`` graded exactly (``ArrangementError`` for an illegal one);
        ``player`` (rating, rated puzzles before): a rated puzzle moves it (``PuzzleResult.rating``)."""
        if isinstance(arrangement, str):
            arrangement = Arrangement.parse(arrangement, self.deal.rules)
        arrangement.validate(self.deal)
        return PuzzleResult(self, grade(self.deal, arrangement, self.model, time_limit=time_limit,
                                        stop_event=stop_event)).rated(player)

    def solve(self, *, time_limit: float | None = None, stop_event: threading.Event | None = None) -> Solution:
        """The puzzle's answer: the best arrangement against its opponent."""
        return best_response(self.deal, self.model, time_limit=time_limit, stop_event=stop_event)

    def give_up(self, *, time_limit: float | None = None, stop_event: threading.Event | None = None,
                player: tuple[float, int] | None = None) -> PuzzleResult:
        """The puzzle given up: its answer, graded (no stars; a rated puzzle scores 0)."""
        best = self.solve(time_limit=time_limit, stop_event=stop_event)
        return PuzzleResult(self, grade(self.deal, best.arrangement, self.model, time_limit=time_limit,
                                        stop_event=stop_event), given_up=True).rated(player)

    def to_model(self) -> PuzzleOut:
        from solver.advisor.schema import PuzzleOut
        rules = self.deal.rules
        return PuzzleOut(exposed=format_cards(self.deal.exposed, rules.deck).split(),
                         live=format_cards(self.deal.live, rules.deck).split(), rules=rules.name,
                         rules_description=rules.describe(), opponent=self.opponent, model=self.model.name,
                         exploitability=self.exploitability, number=self.number, count=self.count, seed=self.seed,
                         source=self.source, rating=self.rating)

    def to_dict(self) -> dict[str, object]:
        from solver.advisor.schema import dump
        return dump(self.to_model())


@dataclass(frozen=True)
class PuzzleResult:
    """A puzzle's answer graded: ``grade`` (value, optimum, regret, best arrangement, best swap);
    ``given_up``: no answer, the grade is the best arrangement's (no stars); ``rating``: the
    player's rating moved by it (a rated puzzle answered with the player's rating)."""

    puzzle: Puzzle
    grade: Grade
    given_up: bool = False
    rating: Rating | None = None

    def rated(self, player: tuple[float, int] | None) -> PuzzleResult:
        """This result with the player's rating (``player``: rating, rated puzzles before) moved
        by it, when the puzzle is rated."""
        if player is None or self.puzzle.rating is None:
            return self
        return replace(self, rating=rate(player[0], player[1], self.puzzle.rating, score_of(self.stars,
                                                                                              self.given_up)))

    @property
    def solved(self) -> bool:
        return not self.given_up and self.grade.regret <= VALUE_TOLERANCE

    @property
    def stars(self) -> int:
        regret = self.grade.regret
        return 0 if self.given_up else 3 if self.solved else 2 if regret <= CLOSE else 1 if regret <= NEAR else 0

    @property
    def themes(self) -> tuple[Theme, ...]:
        """What the answer teaches (a rated puzzle's): given with the answer, never with the puzzle."""
        return tuple(THEMES_BY_NAME[t] for t in self.puzzle.themes)

    def to_model(self) -> PuzzleResultOut:
        from solver.advisor.schema import PuzzleResultOut, ThemeOut, model_of
        return PuzzleResultOut(puzzle=self.puzzle.to_model(), given_up=self.given_up, solved=self.solved,
                               stars=self.stars, regret=self.grade.regret, grade=self.grade.to_model(),
                               themes=[model_of(ThemeOut, t) for t in self.themes],
                               rating=None if self.rating is None else self.rating.to_model())

    def to_dict(self) -> dict[str, object]:
        from solver.advisor.schema import dump
        return dump(self.to_model())


def _check_opponent(opponent: str) -> str:
    if opponent not in puzzle_opponents():
        raise PuzzleError(f"a puzzle's opponent is {', '.join(puzzle_opponents())}, got {quote(opponent)}")
    return opponent


def _puzzle(entries: EquilibriumStore, deals: list[int], index: int, opponent: str, seed: int | None) -> Puzzle:
    deal = Deal(deals[index], entries.rules)
    eq = entries.stored(deal)
    if eq is None:  # pragma: no cover - removed from the store in between
        raise PuzzleError(f"the deal {deal.format()} is no longer in the store")
    return Puzzle(deal, opponent, played_model(opponent, eq), eq.exploitability, index + 1, len(deals), seed)


def pick_puzzle(store: SolutionStore, rules: Rules, seed: int, opponent: str = EQUILIBRIUM) -> Puzzle:
    """The puzzle of ``seed`` (0 to ``SEED_MAX``): one of the store's solved deals of ``rules``,
    drawn with the seed (the same store and seed, the same puzzle)."""
    _check_opponent(opponent)
    entries = EquilibriumStore(store, rules)
    deals = entries.deals()
    if not deals:
        raise PuzzleError(f"the store {str(store.path)!r} holds no solved deal of the rules {rules.name!r}: solve "
                          "some first (quintet-batch --random N, or play a few games)")
    index = int(seed_rng(check_seed(seed), PUZZLE_STREAM).integers(len(deals)))
    return _puzzle(entries, deals, index, opponent, seed)


def _set_puzzle(index: int, opponent: str, seed: int | None) -> Puzzle:
    """The set's puzzle ``index`` (0-based) against ``opponent`` (rated against its mix only)."""
    entries = puzzle_set().puzzles
    entry = entries[index]
    deal = Deal.from_exposed(entry.exposed)
    if opponent == EQUILIBRIUM:
        return Puzzle(deal, opponent, entry_mix(entry), entry.optimum, entry.number, len(entries), seed, "set",
                      entry.rating, tuple(entry.themes))
    return Puzzle(deal, opponent, played_model(opponent, None), None, entry.number, len(entries), seed, "set")


def pick_set_puzzle(rules: Rules, seed: int, opponent: str = EQUILIBRIUM, *, rating: float = START_RATING,
                    exclude: frozenset[int] = frozenset()) -> Puzzle:
    """The shipped set's puzzle of ``seed``: one of the ``NEAREST`` rated nearest ``rating``
    (the player's), leaving out the numbers in ``exclude`` (puzzles solved) while others remain."""
    _check_opponent(opponent)
    entries = puzzle_set()
    if rules.name != entries.rules:
        raise PuzzleError(f"the shipped puzzles are of the rules {entries.rules!r}, not {rules.name!r}: take the "
                          "store's solved deals (the source 'store')")
    left = [e for e in entries.puzzles if e.number not in exclude] or list(entries.puzzles)
    near = sorted(left, key=lambda e: (abs(e.rating - rating), e.number))[:NEAREST]
    chosen = near[int(seed_rng(check_seed(seed), PUZZLE_STREAM).integers(len(near)))]
    return _set_puzzle(chosen.number - 1, opponent, seed)


def draw_puzzle(store: SolutionStore | None, rules: Rules, seed: int, opponent: str = EQUILIBRIUM, *,
                source: str = "set", rating: float = START_RATING, exclude: frozenset[int] = frozenset()) -> Puzzle:
    """The puzzle of ``seed`` from ``source`` (``SOURCES``): the set's near ``rating``
    (``pick_set_puzzle``) or the store's (``pick_puzzle``; ``store`` None: the source is the set)."""
    if source not in SOURCES:
        raise PuzzleError(f"a puzzle's source is {' or '.join(SOURCES)}, got {quote(source)}")
    if source == "set":
        return pick_set_puzzle(rules, seed, opponent, rating=rating, exclude=exclude)
    assert store is not None, "the store's puzzles need the store"
    return pick_puzzle(store, rules, seed, opponent)


def _set_index(deal: Deal) -> int | None:
    """The set's puzzle of ``deal`` (as the set shows it), 0-based; None: not one of the set's."""
    if deal.rules.name != puzzle_set().rules:
        return None
    return _set_indices().get(deal.exposed)


@cache
def _set_indices() -> dict[int, int]:
    return {Deal.from_exposed(e.exposed).exposed: i for i, e in enumerate(puzzle_set().puzzles)}


def load_puzzle(store: SolutionStore, deal: Deal, opponent: str = EQUILIBRIUM, source: str = "set") -> Puzzle:
    """The puzzle of ``deal`` as a puzzle shows it (its exposed cards in canonical suits): one
    of the shipped set's (``source`` set), else one of the store's solved deals."""
    _check_opponent(opponent)
    index = _set_index(deal) if source == "set" else None
    if index is not None:
        return _set_puzzle(index, opponent, None)
    rules = deal.rules
    canonical, _ = canonical_exposed(deal.exposed, rules.deck, group=symmetry_group(rules))
    entries = EquilibriumStore(store, rules)
    deals = entries.deals()
    if canonical != deal.exposed or canonical not in deals:
        raise PuzzleError(f"the deal {deal.format()} is not a puzzle: not one of the store's solved deals "
                          f"({len(deals):,}) as a puzzle shows it")
    return _puzzle(entries, deals, deals.index(canonical), opponent, None)

