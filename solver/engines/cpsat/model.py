"""Step 1 of ``solve_cpsat``: build the CP-SAT model — the hint, pruning, symmetry breaking, the
variables and constraints (``solver.engines.cpsat`` has every rule and why it is sound)."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field

import numpy as np
from ortools.sat.python import cp_model

from solver.engines.base import check_hint
from solver.engines.local_search import local_optimum
from solver.problem.best_response import FLOAT_NOISE, BestResponseProblem

from .hints import Lookup, canonical_cards, canonical_classes, free_mask, free_slots, greedy_hint
from .options import DEFAULT_OPTIONS, FLOAT_SLACK, SCALE, CpsatOptions
from .pruning import PruneState, best_chains, edge, exchange_keys, prune, relations

__all__ = ["CpsatModel", "BuildStopped", "build_model"]

BUILD_CHUNK = 20_000  # variables (and hints) added between two checks of the stop event


@dataclass
class CpsatModel:
    """The built model and what extraction needs (see the module doc)."""

    model: cp_model.CpModel
    free_slots: list[int]
    pair_packet: np.ndarray  # packet index of each variable
    pair_slot: np.ndarray  # slot of each variable
    coef: np.ndarray  # int64 objective coefficient of each variable
    x: list[cp_model.IntVar]
    hint: tuple[int, ...]  # the canonical hint given to CP-SAT
    hint_value: float  # T
    prune_T: float  # max T of the pruning phases: OPT ≤ max(prune_T + ε, model bound)
    fixed_value: float
    err_max: float  # E⁺
    bound0: float  # pruning bound (real units)
    chains: list[list[int]]  # slot chains with c(p_a) ≤ c(p_b) along each
    stats: dict[str, object] = field(default_factory=dict)


def _maximize(model: cp_model.CpModel, x: list[cp_model.IntVar], coef: np.ndarray) -> None:
    """``model.maximize(Σ coef·x)``, written into the proto at once: the same objective
    (CP-SAT minimizes ``scaling_factor · Σ c'·x`` with ``c' = −coef``, ``scaling_factor = −1``,
    as ``CpModel.maximize`` writes it) without its loop of one call per variable, which takes
    over a second on a big deal."""
    model.clear_objective()
    objective = model.proto.objective
    objective.vars.extend([v.index for v in x])
    objective.coeffs.extend((-np.asarray(coef, dtype=np.int64)).tolist())
    objective.scaling_factor = -1.0
    objective.offset = 0


class BuildStopped(Exception):
    """``build_model`` was stopped after pruning: the (canonical, improved) ``hint`` — a legal
    arrangement —, the pruning bound ``bound0`` (P6: sound on its own) and the model's
    ``stats`` so far (no variables)."""

    def __init__(self, hint: tuple[int, ...], bound0: float, stats: dict[str, object]) -> None:
        super().__init__("stopped before the model was built")
        self.hint = hint
        self.bound0 = bound0
        self.stats = stats


def build_model(problem: BestResponseProblem, hint: tuple[int, ...] | None = None, *,
                options: CpsatOptions = DEFAULT_OPTIONS, deadline: float = np.inf,
                stop_event: threading.Event | None = None) -> CpsatModel:
    """Build the CP-SAT model (step 1 of ``solve_cpsat``; the module doc has every rule, P1–P6).

    Needs at least two free slots.  ``options`` switches the strengthenings;
    ``deadline`` (``time.perf_counter()`` value) or a set ``stop_event`` stops pruning early;
    a ``stop_event`` set by the end of pruning raises ``BuildStopped`` (the model's variables
    and constraints take seconds to add on a big deal: a stopped solve does not wait for them).
    """
    st = _start_build(problem, hint, options, deadline, stop_event)
    if options.prune:  # phase A: P1, P2, P4 without chains (P3 too when no phase B)
        _prune_phase(st, np.zeros((st.nf, st.nf), dtype=np.int64), options.pair_level and not options.symmetry)
    _chain_slots(st)
    if options.prune and options.symmetry:  # phase B: P1–P4 with the chain windows (P3 runs here)
        _prune_phase(st, relations(st.nf, st.chains), options.pair_level)
    st.checkpoint()
    swaps = _card_swaps(st)
    pc, pj = np.nonzero(st.alive)  # candidate position, free-slot position (slot order)
    card_rules = _card_rules(st, swaps, pc)

    pair_packet, pair_slot, coef, err_max = _pair_coefficients(st, pc, pj)
    model = cp_model.CpModel()
    pairs = list(zip(pair_packet.tolist(), pair_slot.tolist(), strict=True))
    x = _add_variables(model, st, pairs)
    slot_terms = _add_exactly_ones(model, st, x, pc, pj)
    st.checkpoint()
    n_exchange, n_chain = _add_orderings(model, st, x, pc, slot_terms)
    n_card = _add_card_constraints(model, st, x, pj, card_rules)
    _add_objective(model, st, x, coef, err_max)
    _add_full_hint(model, st, x, pairs)

    n_pairs = int(st.cand.size * st.nf)
    stats: dict[str, object] = {
        "variables": int(pc.size),
        "candidate_pairs": n_pairs,
        "pruned_pairs": int(n_pairs - pc.size),
        "pruning_rounds": st.rounds,
        "exchange_constraints": n_exchange,
        "chain_constraints": n_chain,
        "card_constraints": n_card,
        "hint_value": float(st.T),
    }
    return CpsatModel(
        model=model, free_slots=st.free, pair_packet=pair_packet, pair_slot=pair_slot, coef=coef, x=x,
        hint=st.hint, hint_value=st.T, prune_T=st.prune_T, fixed_value=st.fixed_value, err_max=err_max,
        bound0=float(st.bound0), chains=[[st.free[j] for j in c] for c in st.chains], stats=stats,
    )


@dataclass
class _BuildState:
    """What the steps of ``build_model`` share: the free slots and candidates (set once), the
    hint, the alive pairs and the pruning results (updated step by step).  Values in real units."""

    problem: BestResponseProblem
    options: CpsatOptions
    deadline: float  # ``time.perf_counter()`` value that stops pruning
    stop_event: threading.Event | None
    free: list[int]  # the free slots
    free_mask: int  # their cards
    lookup: Lookup
    cand: np.ndarray  # candidate packets (indices, ascending): those inside the free cards
    cmasks: np.ndarray  # their card masks
    ccls: np.ndarray  # their classes
    Vc: np.ndarray  # Vc[i, j]: value of candidate i in free slot j
    fixed_value: float  # the fixed slots' value
    hint: tuple[int, ...]  # the canonical hint so far
    T: float  # its value
    prune_T: float  # the largest T any pruning phase used (the bound needs it)
    rank: np.ndarray | None  # exact ranks d_ab (``exchange_keys``; None with exchange off)
    keys: np.ndarray  # exchange keys for ``_prune`` (zeros with exchange off)
    alive: np.ndarray  # bool (candidate, free slot): the pairs not pruned
    bound0: float  # pruning bound (P6)
    rounds: int = 0  # pruning rounds so far
    chains: list[list[int]] = field(default_factory=list)  # slot chains (free-slot positions)

    @property
    def nf(self) -> int:
        return len(self.free)

    def hint_pos(self) -> np.ndarray:
        """The hint's candidate positions, in free-slot order."""
        return np.searchsorted(self.cand, np.array([self.hint[s] for s in self.free], dtype=np.int64))

    def keep_hint(self, hint: tuple[int, ...]) -> None:
        """Make ``hint`` the hint and keep its pairs alive (P5)."""
        self.hint = hint
        self.alive[self.hint_pos(), np.arange(self.nf)] = True

    def checkpoint(self) -> None:
        """Raise ``BuildStopped`` if the stop event is set (the hint stays legal)."""
        if self.stop_event is not None and self.stop_event.is_set():
            n_pairs = int(self.cand.size * self.nf)
            raise BuildStopped(self.hint, float(self.bound0), {
                "variables": 0, "candidate_pairs": n_pairs, "pruned_pairs": int(n_pairs - self.alive.sum()),
                "pruning_rounds": self.rounds, "hint_value": float(self.T)})


def _start_build(problem: BestResponseProblem, hint: tuple[int, ...] | None, options: CpsatOptions,
                 deadline: float, stop_event: threading.Event | None) -> _BuildState:
    """The free slots, the hint (``_first_hint``), the candidate packets (inside the free cards)
    with their values per free slot, every pair alive and the trivial bound."""
    tables, V = problem.tables, problem.values
    free = free_slots(problem)
    nf = len(free)
    if nf < 2:
        raise ValueError("build_model needs at least two free slots")
    lookup = Lookup(tables.masks)
    hint, rank, keys = _first_hint(problem, hint, free, options, stop_event)
    fixed_value = float(sum(V[tables.classes[p], s] for s, p in enumerate(problem.fixed) if p >= 0))
    cards = free_mask(problem)
    cand = np.flatnonzero((tables.masks & ~np.uint64(cards)) == 0)  # uint64: card 63 (draw54) is a card
    ccls = tables.classes[cand]
    Vc = np.ascontiguousarray(V[ccls][:, free])
    T = problem.value_of(hint)
    return _BuildState(
        problem=problem, options=options, deadline=deadline, stop_event=stop_event, free=free,
        free_mask=cards, lookup=lookup, cand=cand, cmasks=tables.masks[cand], ccls=ccls, Vc=Vc,
        fixed_value=fixed_value, hint=hint, T=T, prune_T=T, rank=rank,
        keys=keys if keys is not None else np.zeros((nf, nf, V.shape[0]), dtype=np.int64),
        alive=np.ones((cand.size, nf), dtype=bool), bound0=fixed_value + float(Vc.max(axis=0).sum()))


def _first_hint(problem: BestResponseProblem, hint: tuple[int, ...] | None, free: list[int],
                options: CpsatOptions, stop_event: threading.Event | None
                ) -> tuple[tuple[int, ...], np.ndarray | None, np.ndarray | None]:
    """The hint: ``hint`` (checked: ``HintError``) or ``greedy_hint``, improved by the local search
    with three-slot re-splits (``options.local_search``, not once stopped), then sorted by strictly improving exchanges
    (``options.exchange``).  Returns (hint, rank, keys), ``exchange_keys`` or None, None."""
    improve = options.local_search

    def stopped() -> bool:
        return stop_event is not None and stop_event.is_set()

    given = check_hint(problem, hint)
    if given is None:
        hint = greedy_hint(problem, improve=improve and not stopped(), stop_event=stop_event)
    elif improve and not stopped():
        hint = local_optimum(problem, given, triples=True, stop_event=stop_event)
    else:
        hint = given
    hint_in = problem.value_of(hint)
    rank = keys = None
    if options.exchange:
        rank, keys = exchange_keys(problem.values, free)
        hint = tuple(canonical_classes(list(hint), free, rank, [], problem.tables.classes))
    if problem.value_of(hint) < hint_in - FLOAT_NOISE:  # strictly improving exchanges only: fail loudly
        raise AssertionError("exchange canonicalization lost value on the hint")
    return hint, rank, keys


def _prune_phase(st: _BuildState, rel: np.ndarray, pair_level: bool) -> None:
    """One pruning phase (``prune`` to a fixed point at the current hint value ``T``) with the
    slot relations ``rel`` (``relations``; zeros: no chains) and P3 when ``pair_level``."""
    st.prune_T = max(st.prune_T, st.T)
    state = PruneState(masks=st.cmasks, classes=st.ccls, values=st.Vc, alive=st.alive, hint_pos=st.hint_pos(),
                       target=st.T, fixed_value=st.fixed_value, rel=rel, keys=st.keys)
    st.alive, bound, rounds = prune(state, pair_level=pair_level, deadline=st.deadline, stop_event=st.stop_event)
    st.bound0 = min(st.bound0, bound)
    st.rounds += rounds


def _chain_slots(st: _BuildState) -> None:
    """Slot chains (``options.symmetry``) on the alive pairs and the hint's classes; the hint is
    then chain-sorted (it never loses value)."""
    if not st.options.symmetry:
        return
    nf = st.nf
    rank = st.rank if st.rank is not None else exchange_keys(st.problem.values, st.free)[0]
    hint_cls = st.ccls[st.hint_pos()]
    cls_sets = [np.union1d(st.ccls[st.alive[:, j]], hint_cls) for j in range(nf)]
    edges = np.zeros((nf, nf), dtype=bool)
    for a in range(nf):
        for b_ in range(nf):
            if a != b_:
                edges[a, b_] = edge(rank, np.union1d(cls_sets[a], cls_sets[b_]), a, b_)
    st.chains = best_chains(nf, edges)
    if st.chains:
        hint = tuple(canonical_classes(list(st.hint), st.free, st.rank, st.chains, st.problem.tables.classes))
        T_new = st.problem.value_of(hint)
        if T_new < st.T - FLOAT_NOISE:  # exact Monge: sorting never loses value
            raise AssertionError("chain sorting lost value on the hint")
        st.T = T_new
        st.keep_hint(hint)


def _card_swaps(st: _BuildState) -> list[tuple[int, int]]:
    """The card exchanges (``options.symmetry`` and ``card_symmetry``): pairs ``a < b`` of free
    cards of one rank.  The hint is put in card-canonical form first (its classes unchanged)."""
    if not (st.options.symmetry and st.options.card_symmetry):
        return []
    tables = st.problem.tables
    deck = tables.rules.deck
    free_cards = [c for c in range(deck.size) if st.free_mask >> c & 1]
    swaps = [(a, b_) for a, b_ in itertools.combinations(free_cards, 2) if deck.rank_of(a) == deck.rank_of(b_)]
    if swaps:
        before = [int(tables.classes[p]) for p in st.hint]
        hint = tuple(canonical_cards(list(st.hint), st.free, swaps, st.lookup, tables.classes, tables.masks))
        if [int(tables.classes[p]) for p in hint] != before:  # class-preserving by construction
            raise AssertionError("card exchange changed a class of the hint")
        st.keep_hint(hint)
    return swaps


def _card_rules(st: _BuildState, swaps: list[tuple[int, int]], pc: np.ndarray
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per card exchange ``(a, b)``: the variables (indices into ``pc``) whose packet holds ``a``
    but not ``b`` and keeps its class when ``b`` replaces ``a``; then the same with ``b`` and ``a``."""
    if not swaps:
        return []
    classes = st.problem.tables.classes
    pmask = st.cmasks[pc].astype(np.int64)
    pcls = st.ccls[pc]
    card_rules = []
    for a, b_ in swaps:
        sides = []
        for c_in, c_out in ((a, b_), (b_, a)):
            rows = np.flatnonzero(((pmask >> c_in) & 1 == 1) & ((pmask >> c_out) & 1 == 0))
            other = (pmask[rows] & ~np.int64(1 << c_in)) | np.int64(1 << c_out)
            sides.append(rows[classes[st.lookup(other)] == pcls[rows]])
        card_rules.append((sides[0], sides[1]))
    return card_rules


def _pair_coefficients(st: _BuildState, pc: np.ndarray, pj: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Per variable (pair ``pc[k]``, ``pj[k]``): its packet, its slot and its objective coefficient
    ``round(K·V)`` (int64, scaled units); and ``E⁺`` (real units, module doc)."""
    pair_packet = st.cand[pc]
    pair_slot = np.array(st.free, dtype=np.int64)[pj]
    v_pair = st.Vc[pc, pj]
    coef = np.rint(v_pair * SCALE).astype(np.int64)
    err = v_pair - coef / SCALE  # exact (see the module doc)
    err_max = float(sum(err[pj == j].max() for j in range(st.nf)))
    return pair_packet, pair_slot, coef, err_max


def _add_variables(model: cp_model.CpModel, st: _BuildState, pairs: list[tuple[int, int]]
                   ) -> list[cp_model.IntVar]:
    """A boolean ``x_p_s`` per (packet, slot) pair, ``BUILD_CHUNK`` between two stop checks."""
    x: list[cp_model.IntVar] = []
    for lo in range(0, len(pairs), BUILD_CHUNK):
        st.checkpoint()
        x.extend(model.new_bool_var(f"x_{p}_{s}") for p, s in pairs[lo:lo + BUILD_CHUNK])
    return x


def _add_exactly_ones(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar], pc: np.ndarray,
                      pj: np.ndarray) -> list[np.ndarray]:
    """``AddExactlyOne`` per free slot (one packet) and per free card (covered once).  Returns
    each free slot's variables (indices into ``x``)."""
    slot_terms = [np.flatnonzero(pj == j) for j in range(st.nf)]
    for j in range(st.nf):  # one packet per free slot
        model.add_exactly_one([x[k] for k in slot_terms[j].tolist()])
    pmask = st.cmasks[pc].astype(np.int64)
    for bit in range(64):  # every free card exactly once
        if st.free_mask >> bit & 1:
            model.add_exactly_one([x[k] for k in np.flatnonzero(pmask >> bit & 1).tolist()])
    return slot_terms


def _slot_expr(x: list[cp_model.IntVar], terms: np.ndarray, weights: np.ndarray) -> cp_model.LinearExpr:
    """``Σ weights[k]·x[k]`` over one slot's variables ``terms``."""
    return cp_model.LinearExpr.weighted_sum([x[k] for k in terms.tolist()], weights[terms].tolist())


def _add_orderings(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar], pc: np.ndarray,
                   slot_terms: list[np.ndarray]) -> tuple[int, int]:
    """Exchange stability ``d_ab(c(p_a)) ≤ d_ab(c(p_b))`` for free slots ``a < b`` (with exchange
    on), then ``c(p_a) ≤ c(p_b)`` along the slot chains.  Returns the two constraint counts."""
    n_exchange = 0
    if st.rank is not None:
        for a in range(st.nf):
            for b_ in range(a + 1, st.nf):
                d = st.rank[a, b_, st.ccls[pc]]
                model.add(_slot_expr(x, slot_terms[a], d) <= _slot_expr(x, slot_terms[b_], d))
                n_exchange += 1
    n_chain = 0
    pcls_all = st.ccls[pc].astype(np.int64)
    for chain in st.chains:
        for ja, jb in itertools.pairwise(chain):
            model.add(_slot_expr(x, slot_terms[ja], pcls_all) <= _slot_expr(x, slot_terms[jb], pcls_all))
            n_chain += 1
    return n_exchange, n_chain


def _add_card_constraints(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar], pj: np.ndarray,
                          card_rules: list[tuple[np.ndarray, np.ndarray]]) -> int:
    """Card exchanges: ``AddAtMostOne`` over card ``a``'s exchangeable pairs in slot ``j`` and
    ``b``'s in the slots before ``j`` (``a`` never later than ``b``).  Returns the count."""
    n_card = 0
    for ka, kb in card_rules:
        for j in range(1, st.nf):
            terms = [x[k] for k in ka[pj[ka] == j].tolist()] + [x[k] for k in kb[pj[kb] < j].tolist()]
            if len(terms) >= 2:
                model.add_at_most_one(terms)
                n_card += 1
        st.checkpoint()
    return n_card


def _add_objective(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar], coef: np.ndarray,
                   err_max: float) -> None:
    """The objective cut ``Σ coef·x ≥ L`` (``options.objective_cut``; ``L`` in scaled units, from
    the hint value ``T``, module doc), then ``maximize Σ coef·x``."""
    objective = cp_model.LinearExpr.weighted_sum(x, coef.tolist())
    st.checkpoint()
    if st.options.objective_cut:
        model.add(objective >= int(np.floor(SCALE * (st.T - st.fixed_value - err_max - FLOAT_SLACK))) - 1)
    st.checkpoint()
    _maximize(model, x, coef)


def _add_full_hint(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar],
                   pairs: list[tuple[int, int]]) -> None:
    """``AddHint`` on every variable: 1 on the hint's pairs, 0 elsewhere."""
    hint_set = {(int(st.hint[s]), s) for s in st.free}
    for k, (p, s) in enumerate(pairs):
        if k % BUILD_CHUNK == 0:
            st.checkpoint()
        model.add_hint(x[k], 1 if (p, s) in hint_set else 0)
