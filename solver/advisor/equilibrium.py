"""Equilibrium strategies of a Quintet deal, with a certified exploitability.

``equilibrium(deal)`` runs the double oracle (``solver.games.double_oracle``) over the deal as
a game (``solver.games.quintet_game.QuintetGame``), from the best response to the uniform
opponent (and, warm-started, from a stored mix); ``solve_equilibrium`` goes through the store
of solved deals (``EquilibriumStore``), keyed by the deal's suit-canonical form.

The game is symmetric and zero-sum, so the value is 0 and a mix is judged by its
*exploitability*: the most any arrangement gains against it (points), certified as described
in ``double_oracle`` — the one name of that number in the code, the JSON and the docs (the
store's generic ``quality`` column holds it for equilibrium entries).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from quintet.cards import format_cards
from quintet.fingerprint import rules_fingerprint
from quintet.game import Arrangement, Deal
from quintet.jsonable import Jsonable
from quintet.rules import Rules
from quintet.symmetry import canonical_exposed, from_canonical_arrangement, symmetry_group
from solver.engines.base import DEFAULT_ENGINE, EngineOptions, solve
from solver.games.double_oracle import DoubleOracleResult, IterationRecord, double_oracle
from solver.games.quintet_game import QuintetGame, Strategy
from solver.problem.best_response import VALUE_TOLERANCE, BestResponseProblem, slot_values
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import ArrangementMix, Uniform
from solver.storage.store import SolutionStore, StoreError

from .advice import evaluate_arrangement
from .limits import PLAY_EPSILON, PLAY_TIME_LIMIT, SOLVE_EPSILON, SOLVE_TIME_LIMIT, check_epsilon, check_time_limit
from .mix import HandShare, Mix, answer_fields
from .plans import plans

if TYPE_CHECKING:
    from .schema import EquilibriumOut

__all__ = [
    "EquilibriumResult", "equilibrium", "solve_equilibrium", "EquilibriumStore", "StoreLookup",
    "STORE_KIND", "STALE_STORE_KINDS", "CERTIFICATE_VERSION", "stored_exploitability", "certified_within", "sample_mix",
    "PLAYED_KIND", "played_equilibrium", "kept_for_play",
]

CERTIFICATE_VERSION = 2
"""The version of the procedure that certifies exploitabilities, bumped whenever stored
exploitabilities certified by an earlier version can no longer be trusted.

Version 1 (before December 2026): the search's rule 6 pruned optimal arrangements, so stored
exploitabilities could be under-reported (docs/CHANGELOG.md)."""
STORE_KIND = f"equilibrium-v{CERTIFICATE_VERSION}"
STALE_STORE_KINDS = ("equilibrium",)  # kinds written by earlier certificate versions
PLAYED_KIND = "played-mix"
"""The store's kind of the mixes games drew from: per canonical deal, the first mix a game of it
drew from, with its content hash (``played_equilibrium``); never replaced."""
STALE_NOTE = ("the stored equilibrium of this deal came from an earlier solver whose exploitability could be "
              "under-reported: not served, solved again")

def sample_mix(mix: Sequence[tuple[float, Arrangement]], seed: int = 0) -> Arrangement:
    """An arrangement drawn from a mix of (probability, arrangement); the same seed draws the same
    (``Mix.sample``)."""
    return Mix(tuple(mix)).sample(seed)


def certified_within(exploitability: float, epsilon: float) -> bool:
    """Does a certified exploitability meet the target ε?  Equal to float tolerance
    (``VALUE_TOLERANCE``), so ε = 0 asks for an exact equilibrium and is met by one."""
    return exploitability <= epsilon + VALUE_TOLERANCE


@dataclass(frozen=True)
class EquilibriumResult(Jsonable):
    deal: Deal
    mix: tuple[tuple[float, Arrangement], ...]  # most likely first
    exploitability: float  # certified: no arrangement gains more than this against the mix
    proven: bool  # the exploitability is an exact best-response value (not only a bound)
    converged: bool  # exploitability ≤ epsilon
    epsilon: float
    iterations: int
    seconds: float
    interrupted: bool = False
    pool_size: int = 0
    history: tuple[IterationRecord, ...] = field(default_factory=tuple)
    from_store: bool = False
    notes: tuple[str, ...] = ()  # one-line remarks for the user (e.g. a stale stored answer re-solved)
    mix_hash: str | None = None  # the content hash of a mix kept for play (``played_equilibrium``); None: not kept

    def opponent(self) -> ArrangementMix:
        """The mix as an opponent model."""
        return ArrangementMix(tuple(a for _, a in self.mix), tuple(p for p, _ in self.mix), name="equilibrium")

    def sample(self, seed: int = 0) -> Arrangement:
        """An arrangement to play, drawn from the mix (same seed, same arrangement)."""
        return sample_mix(self.mix, seed)

    def slot_marginals(self) -> list[list[HandShare]]:
        """Per slot: each hand (by description) with its probability, most likely first."""
        return Mix(self.mix, self.deal.rules).slot_marginals()

    def to_model(self, seed: int = 0) -> EquilibriumOut:
        """The equilibrium's JSON with the fields of every ``quintet-solve`` answer: the
        arrangement drawn from the mix (``seed``) to play, its hands and expected result against
        the mix; ``optimal`` is whether the mix is certified within ε, ``bound`` its certified
        exploitability."""
        from .schema import EquilibriumOut, model_of
        mix = Mix(self.mix, self.deal.rules)
        play = mix.sample(seed)
        tables = DealTables.build(self.deal)
        per_slot, margin, points = evaluate_arrangement(tables, mix.as_opponent().marginals(tables), play)
        return model_of(EquilibriumOut, self, **answer_fields(self.deal, play), opponent="equilibrium",
                        objective="margin", expected_margin=margin, expected_points=points, per_slot=per_slot,
                        optimal=self.converged, bound=self.exploitability, mix=mix.to_model(),
                        slot_marginals=mix.slot_marginals_model(), exploitability_proven=self.proven,
                        plans=[plan.to_model() for plan in plans(self.mix, self.deal.rules)])

    def to_record(self) -> dict[str, object]:
        """The store's JSON document (cards in this result's own suits)."""
        rules = self.deal.rules
        return {
            "version": 1,
            "mix": [[p, [format_cards(m, rules.deck) for m in a.packets]] for p, a in self.mix],
            "exploitability": self.exploitability, "proven": self.proven, "converged": self.converged,
            "epsilon": self.epsilon, "iterations": self.iterations, "seconds": self.seconds,
            "pool_size": self.pool_size,
        }

    @classmethod
    def from_record(cls, deal: Deal, record: dict[str, Any]) -> EquilibriumResult:
        """Rebuild a stored result for ``deal`` (the deal it was stored for); validates it."""
        try:
            mix = []
            for p, packets in record["mix"]:
                arrangement = Arrangement.parse(list(packets), deal.rules)
                arrangement.validate(deal)
                mix.append((float(p), arrangement))
            return cls(
                deal=deal, mix=tuple(mix), exploitability=float(record["exploitability"]),
                proven=bool(record["proven"]), converged=bool(record["converged"]),
                epsilon=float(record["epsilon"]), iterations=int(record["iterations"]),
                seconds=float(record["seconds"]), pool_size=int(record.get("pool_size", 0)),
                from_store=True, mix_hash=record.get("hash"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"stored equilibrium for {deal.format()} is unreadable: {exc}") from None

    def relabel(self, deal: Deal, perm: tuple[int, ...]) -> EquilibriumResult:
        """This result (for a canonical deal) in the suits of ``deal``; ``perm``: deal → canonical."""
        deck = deal.rules.deck
        mix = tuple((p, from_canonical_arrangement(a, perm, deck)) for p, a in self.mix)
        return replace(self, deal=deal, mix=mix)


def equilibrium(
    deal: Deal,
    *,
    epsilon: float = SOLVE_EPSILON,
    time_limit: float | None = SOLVE_TIME_LIMIT,
    stop_event: threading.Event | None = None,
    progress: Callable[[IterationRecord], None] | None = None,
    tables: DealTables | None = None,
    initial: Sequence[Arrangement] = (),
    engine: EngineOptions = DEFAULT_ENGINE,
) -> EquilibriumResult:
    """An ε-equilibrium mix of the deal, certified; see the module doc.

    Stops when the certified exploitability is ≤ ``epsilon`` (points, 0 to ``EPSILON_MAX``;
    default ``SOLVE_EPSILON``), after ``time_limit`` seconds (more than 0; None: no limit;
    default ``SOLVE_TIME_LIMIT``, ``solver.advisor.limits``) or when ``stop_event`` is set,
    returning the best certified mix found; a value out of range is a ``LimitError``.
    ``initial`` arrangements (e.g. a stored mix) warm-start the double oracle; ``engine`` is the
    exact best response that certifies (its own time limit is ignored: ``time_limit`` rules).
    """
    check_epsilon(epsilon)
    if time_limit is not None:
        check_time_limit(time_limit)
    tables = tables or DealTables.build(deal)
    game = QuintetGame(tables, engine)
    uniform = BestResponseProblem(
        tables, slot_values(Uniform().marginals(tables), deal.rules.weights, "margin"))
    first = solve(uniform, engine.with_time_limit(time_limit), None, stop_event)
    warm = [tuple(tables.index_of(m) for m in a.packets) for a in initial]
    result: DoubleOracleResult[Strategy] = double_oracle(
        game, [first.packets], epsilon=epsilon, time_limit=time_limit, stop_event=stop_event,
        trivial_bound=float(sum(deal.rules.weights)), progress=progress, warm_start=warm,
    )
    order = np.argsort(-result.probabilities, kind="stable")
    mix = tuple((float(result.probabilities[i]), tables.arrangement_of(result.support[i])) for i in order)
    return EquilibriumResult(
        deal=deal, mix=mix, exploitability=result.exploitability, proven=result.proven,
        converged=result.converged, epsilon=epsilon, iterations=result.iterations, seconds=result.seconds,
        interrupted=result.interrupted, pool_size=result.pool_size, history=tuple(result.history),
    )


def _store_key(deal: Deal) -> tuple[str, int, tuple[int, ...]]:
    """(rules fingerprint, canonical exposed mask, suit permutation deal → canonical)."""
    rules = deal.rules
    canonical, perm = canonical_exposed(deal.exposed, rules.deck, group=symmetry_group(rules))
    return rules_fingerprint(rules), canonical, perm


def stored_exploitability(deal: Deal, store: SolutionStore) -> float | None:
    """The certified exploitability of the equilibrium stored for ``deal`` (or for any suit
    relabelling of it), None when the store has none: ``solve_equilibrium`` answers at once
    when this is at most its ``epsilon``."""
    fingerprint, canonical, _ = _store_key(deal)
    return store.quality(fingerprint, STORE_KIND, canonical)


@dataclass(frozen=True)
class StoreLookup:
    """What the store holds for one canonical deal, as a solve to ``epsilon`` sees it."""

    answer: EquilibriumResult | None = None  # a current entry certified ≤ ε: serve it, solve nothing
    previous: EquilibriumResult | None = None  # a current entry above ε: kept if the new solve is no better
    warm_start: tuple[Arrangement, ...] = ()  # the stored mix (current or stale) to start the double oracle from
    stale: bool = False  # the only entry came from an earlier certificate version: not served, warm start only

    @property
    def notes(self) -> tuple[str, ...]:
        """One-line remarks for the user (``EquilibriumResult.notes``)."""
        return (STALE_NOTE,) if self.stale else ()


class EquilibriumStore:
    """The equilibrium entries of one rule set in a ``SolutionStore``: the one look-up and
    warm-start path of ``solve_equilibrium`` and ``quintet-batch``.

    Entries are keyed by the deal's suit-canonical exposed mask under ``STORE_KIND``; the
    store's generic ``quality`` column holds the entry's certified exploitability.  Entries
    of ``STALE_STORE_KINDS`` (earlier certificate versions) are never served: they only
    warm-start a new solve, with a note.
    """

    def __init__(self, store: SolutionStore, rules: Rules) -> None:
        self.store = store
        self.rules = rules
        self.fingerprint = rules_fingerprint(rules)

    def exploitability(self, canonical: int) -> float | None:
        """The stored certified exploitability of a canonical deal, or None (no record is parsed)."""
        return self.store.quality(self.fingerprint, STORE_KIND, canonical)

    def stored(self, canonical_deal: Deal) -> EquilibriumResult | None:
        """The current entry of ``canonical_deal`` (its exposed mask must be canonical), parsed;
        None when there is none (an entry of an earlier certificate version is not one)."""
        record = self.store.get(self.fingerprint, STORE_KIND, canonical_deal.exposed)
        return None if record is None else EquilibriumResult.from_record(canonical_deal, record)

    def deals(self) -> list[int]:
        """The canonical exposed masks with a current entry, in increasing order."""
        return [canonical for _, _, canonical in self.store.keys(STORE_KIND, self.fingerprint)]

    def look_up(self, canonical_deal: Deal, epsilon: float) -> StoreLookup:
        """The entry of ``canonical_deal`` (its exposed mask must be canonical), parsed."""
        record = self.store.get(self.fingerprint, STORE_KIND, canonical_deal.exposed)
        if record is not None:
            stored = EquilibriumResult.from_record(canonical_deal, record)
            if certified_within(stored.exploitability, epsilon):
                return StoreLookup(answer=stored)
            return StoreLookup(previous=stored, warm_start=tuple(a for _, a in stored.mix))
        for kind in STALE_STORE_KINDS:
            record = self.store.get(self.fingerprint, kind, canonical_deal.exposed)
            if record is not None:
                stale = EquilibriumResult.from_record(canonical_deal, record)
                return StoreLookup(warm_start=tuple(a for _, a in stale.mix), stale=True)
        return StoreLookup()

    def put(self, canonical: int, record: dict[str, Any], exploitability: float) -> bool:
        """Store a result's record (``EquilibriumResult.to_record``) unless an entry at least as
        good is there; True if stored."""
        return self.store.put(self.fingerprint, STORE_KIND, canonical, record, exploitability)


def solve_equilibrium(
    deal: Deal,
    *,
    epsilon: float = SOLVE_EPSILON,
    time_limit: float | None = SOLVE_TIME_LIMIT,
    store: SolutionStore | None = None,
    stop_event: threading.Event | None = None,
    progress: Callable[[IterationRecord], None] | None = None,
    engine: EngineOptions = DEFAULT_ENGINE,
) -> EquilibriumResult:
    """``equilibrium`` through the store of solved deals (``EquilibriumStore``).

    The deal is solved in its suit-canonical form, so every suit relabelling of a deal shares
    one entry; answers are mapped back to the suits asked about.  A stored answer certified
    to ``epsilon`` or better is returned at once; a weaker one, or one of an earlier
    certificate version (noted in ``notes``), warm-starts the solve.  The store keeps
    whichever answer has the lower certified exploitability; when that is the stored one, it
    is returned with this solve's ``interrupted``.
    """
    rules = deal.rules
    _, canonical, perm = _store_key(deal)
    canonical_deal = Deal(canonical, rules)
    entries = EquilibriumStore(store, rules) if store is not None else None
    found = entries.look_up(canonical_deal, epsilon) if entries is not None else StoreLookup()
    if found.answer is not None:
        return found.answer.relabel(deal, perm)
    result = equilibrium(
        canonical_deal, epsilon=epsilon, time_limit=time_limit, stop_event=stop_event, progress=progress,
        initial=found.warm_start, engine=engine,
    )
    if found.previous is not None and found.previous.exploitability <= result.exploitability:
        result = replace(found.previous, interrupted=result.interrupted)  # the stored mix, this solve's stop
    elif entries is not None:
        entries.put(canonical, result.to_record(), result.exploitability)
    return replace(result.relabel(deal, perm), notes=found.notes)


def _mix_hash(record: dict[str, object]) -> str:
    """The content hash of a stored mix (``to_record``'s ``mix``, canonical suits): 16 hex digits
    of the SHA-256 of its compact JSON."""
    text = json.dumps(record["mix"], separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def kept_for_play(deal: Deal, store: SolutionStore) -> bool:
    """Does the store keep a mix for play of ``deal`` (``played_equilibrium`` answers at once)?"""
    fingerprint, canonical, _ = _store_key(deal)
    return store.has(fingerprint, PLAYED_KIND, canonical)


def played_equilibrium(
    deal: Deal,
    *,
    epsilon: float = PLAY_EPSILON,
    time_limit: float | None = PLAY_TIME_LIMIT,
    store: SolutionStore | None = None,
    stop_event: threading.Event | None = None,
    progress: Callable[[IterationRecord], None] | None = None,
) -> EquilibriumResult:
    """The mix a game of ``deal`` draws the computer's arrangement from, and is graded against.

    The rule that makes a game replay: the first mix a game of a deal draws from is kept in the
    store (``PLAYED_KIND``, keyed by the deal's suit-canonical form, with its content hash
    ``mix_hash``, which the game's record names) and never replaced; every later game of that
    deal — any seed, the terminal, the page's tables, a review — uses that mix, so a seed draws
    the same arrangement (``EquilibriumResult.sample``) before and after the deal's equilibrium
    is refined (``quintet-solve``, ``quintet-batch``: they write ``STORE_KIND``, not this).  The
    first mix is ``solve_equilibrium``'s to ``epsilon`` (default ``PLAY_EPSILON``); a stopped
    solve's best mix is kept too (a game drew from it).  Two processes keeping a mix at once:
    the first write wins, and the other returns it.  Without a store nothing is kept (each call
    solves; the hash still names the mix)."""
    rules = deal.rules
    fingerprint, canonical, perm = _store_key(deal)
    canonical_deal = Deal(canonical, rules)
    if store is not None:
        kept = store.get(fingerprint, PLAYED_KIND, canonical)
        if kept is not None:
            return EquilibriumResult.from_record(canonical_deal, kept).relabel(deal, perm)
    solved = solve_equilibrium(canonical_deal, epsilon=epsilon, time_limit=time_limit, store=store,
                               stop_event=stop_event, progress=progress)
    record = solved.to_record()
    record["hash"] = _mix_hash(record)
    if store is not None and not store.put(fingerprint, PLAYED_KIND, canonical, record, 0.0):
        return played_equilibrium(deal, store=store)  # another process kept its mix first: that one
    return replace(solved, mix_hash=str(record["hash"])).relabel(deal, perm)
