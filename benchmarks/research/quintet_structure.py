"""The structure of a Quintet deal's equilibrium set: are its slot marginals unique, how few
arrangements can play them, and how weak are the hands it lays.

A payoff depends on a mix only through its per-slot marginals (``quintet_game``), so "the"
equilibrium that matters is its marginals m₀ (one distribution over rank classes per slot).

**Uniqueness, from maxima alone.**  Let x₀ be an equilibrium with slot marginals m₀ and x any
exact equilibrium (marginals m).  Both are equilibria of a symmetric game, so u(x, x₀) = 0, and
since the payoff adds over slots,

    u(x, x₀) = Σ_s w_s Σ_r Δg_s(r) (F_s(r) − F₀_s(r)),    Δg_s(r) = m₀_s(r − 1) + m₀_s(r) ≥ 0,

with F_s(r) = P_m(class ≥ r) the upper tail (Abel summation of E_m[g_s] − E_m₀[g_s], g_s(c) the
margin of class c against m₀_s).  If no equilibrium has a larger upper tail than m₀ at the
thresholds r_i + 1 (r_i the classes m₀_s plays; F₀ is constant between them), every tail
difference is ≤ 0 where Δg_s > 0, their weighted sum is 0, so each is 0: m = m₀.  So the
marginals are unique iff ``max_{x ∈ X*} F_s(r_i + 1) ≤ F₀_s(r_i + 1)`` for every slot and every
class m₀ plays — maxima only, and the objective [class ≥ t] keeps every slot's values
nondecreasing in the class, which the exact engines need (``best_response``): the pricing of
``equilibrium_set`` is an exact best response with a bonus of 1 on the classes ≥ t of slot s.

Numerically the maxima are bounded to a tolerance τ; the same identity turns the bounds into a
certified radius: every exact equilibrium's tails lie within ``tail_radius`` of m₀'s, its
slot marginals within ``tv_radius`` (total variation) — see ``MarginalStructure``.  The radius
uses only the upper bounds and Σ w Δg (F − F₀) = u(x, x₀) ≥ 0 (x exact), so it holds whatever
m₀'s own exploitability: "unique" means *unique to that radius*.

**What a witness proves (``verdict_of``).**  For weights y ≥ 0 on the rows P, the pricing gives
for *every* mix x  c·x ≤ U + Σ_P y_P u(P, x).  An exact equilibrium has u(P, x) ≤ 0, so c·x ≤ U
(the proven bound); a witness — a mix the exact oracle certifies at exploitability δ ≤ 10⁻⁷ —
only c·x ≤ U + ‖y‖₁ δ, and ‖y‖₁ (the program's dual weights, each up to the elastic penalty
10⁶) is not bounded.  So a witness above U contradicts nothing, and it proves nothing about the
exact equilibria either: a δ-equilibrium may lie as far from every exact one as the (unknown)
Hoffman constant of the equilibrium polytope allows.  What
the two certificates say together, per threshold: some δ-equilibrium reaches the tail v, every
exact one stays at most U — the excess over m₀ that both support is ``min(v, U) − F₀``
(*admitted*).  The verdict counts a witness only through that: "not unique" needs an admitted
excess above ``exceed`` (the witness's certified precision, δ ≤ 10⁻⁷, with the exact bound
leaving room for it); a witness whose tail exceeds the proven bound beyond that leaves the
deal *undecided*.  A proof that the *exact* equilibria's marginals differ needs an exact
equilibrium (rational weights, an exact best response in rational arithmetic); this module
builds none, so "not unique" is a statement at the certificate's precision.  The admitted
excess is a tail difference, so it bounds the witness's total variation from below.

**The fewest arrangements.**  When the marginals are unique, a mix is an equilibrium iff its
marginals are m₀, so the smallest support is the fewest arrangements (class vectors) whose mix
has marginals m₀: a small MILP over the candidate arrangements found (an upper bound; the
candidates are not every arrangement), and every slot needs at least as many arrangements as
m₀ has classes in it (a lower bound).

**Concessions.**  ``concession`` measures hands against a fixed reference — the deal's 53,130
packets (a uniformly random arrangement's slot marginal) — not against the mix itself: a
packet's *percentile* is P(a random packet is weaker) + ½ P(equal).  Against the mix's own
marginal the same transform is about Uniform(0, 1) for any mix, so it measures the transform.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import permutations

import numpy as np

from research.equilibrium_set import PRIMAL_TOLERANCE, EquilibriumSet, ObjectiveRange
from solver.engines.base import solve
from solver.games.double_oracle import Response
from solver.games.lp import solve_lp, solve_milp
from solver.games.quintet_game import QuintetGame, Strategy
from solver.problem.best_response import BestResponseProblem, slot_values

__all__ = ["TailBound", "MarginalStructure", "verdict_of", "tier_of", "radii", "slot_tail_pricer",
           "best_responses_in_orbits", "marginal_structure",
           "fewest_arrangements", "coupling_lower_bound", "percentiles", "concession", "weakest_slot"]


def best_responses_in_orbits(game: QuintetGame, support: Sequence[Strategy], probabilities: np.ndarray,
                             tolerance: float = PRIMAL_TOLERANCE) -> list[Strategy]:
    """Every slot order of the mix's partitions that is a best response to the mix (value ≥ −tolerance)."""
    partitions = list(dict.fromkeys(tuple(sorted(s)) for s in support))
    orders = [tuple(o) for part in partitions for o in permutations(part)]
    gains = game.payoffs_against(orders, support, probabilities)
    return [o for o, g in zip(orders, gains.tolist(), strict=True) if g >= -tolerance]


def slot_tail_pricer(game: QuintetGame, slot: int, threshold: int, time_limit: float | None = None
                     ) -> Callable[[Sequence[Strategy], np.ndarray], Response[Strategy]]:
    """``price`` of ``EquilibriumSet.maximize`` for the objective [class of slot ``slot`` ≥
    ``threshold``]: the exact best response to the weighted rows with 1 added to those classes."""
    weights_of_slots = game.tables.rules.weights

    def price(strategies: Sequence[Strategy], weights: np.ndarray) -> Response[Strategy]:
        total = float(np.sum(weights))
        if strategies and total > 0:
            values = total * slot_values(game.marginals(strategies, np.asarray(weights) / total), weights_of_slots,
                                         "margin")
        else:
            values = np.zeros((game.tables.n_classes, len(weights_of_slots)))
        values[threshold:, slot] += 1.0  # still nondecreasing in the class: the engines' requirement
        result = solve(BestResponseProblem(game.tables, values), game.engine.with_time_limit(time_limit))
        return Response(result.packets, result.value, result.bound, result.optimal)

    return price


def slot_tail(game: QuintetGame, slot: int, threshold: int) -> Callable[[Sequence[Strategy]], np.ndarray]:
    """The objective [class of slot ``slot`` ≥ ``threshold``] of each strategy."""
    def objective(strategies: Sequence[Strategy]) -> np.ndarray:
        if not strategies:
            return np.zeros(0)
        return (game.classes(strategies)[:, slot] >= threshold).astype(np.float64)
    return objective


@dataclass(frozen=True)
class TailBound:
    """One threshold: ``found`` = m₀'s tail P(class ≥ threshold); over the exact equilibria the
    tail is at most ``bound`` (proven) and some certified equilibrium reaches ``value``."""

    slot: int
    threshold: int
    found: float
    value: float
    bound: float
    settled: bool
    rounds: int
    responses: int


SMALL_TV, MATERIAL_TV = 1e-3, 1e-2
"""Total variation: a 'not unique' deal is *small* when its witness differs from m₀ by at most
SMALL_TV, *material* when the admitted excess (a lower bound on the TV) is at least MATERIAL_TV."""


def verdict_of(tails: Sequence[tuple[float, float, float]], *, tolerance: float = 1e-7, exceed: float = 1e-4
               ) -> tuple[str, float]:
    """The verdict from the thresholds' (found F₀, witness value v, proven bound U), module doc:
    ``unique`` when every U ≤ F₀ + tolerance; else ``not unique`` when some witness's admitted
    excess min(v, U) − F₀ exceeds ``exceed``; else ``undecided``.  Returns (verdict, the largest
    admitted excess; 0 when unique)."""
    if all(bound <= found + tolerance for found, _, bound in tails):
        return "unique", 0.0  # a proof about the exact equilibria: it outranks any approximate witness
    admitted = max((min(value, bound) - found for found, value, bound in tails if value > found + exceed),
                   default=0.0)
    return ("not unique" if admitted > exceed else "undecided"), max(admitted, 0.0)


def tier_of(verdict: str, admitted: float, witness_tv: float) -> str:
    """The report's tier: ``unique``, ``not unique: material`` (admitted excess ≥ MATERIAL_TV),
    ``not unique: small`` (the witness's TV ≤ SMALL_TV), ``not unique: between`` or ``undecided``."""
    if verdict != "not unique":
        return verdict
    if admitted >= MATERIAL_TV:
        return "not unique: material"
    return "not unique: small" if witness_tv <= SMALL_TV else "not unique: between"


@dataclass
class MarginalStructure:
    """Are the slot marginals unique?  ``verdict`` and ``admitted``: ``verdict_of`` (``witness``:
    the certified δ-equilibrium whose marginals differ most from m₀, ``witness_tv`` that difference).
    ``tail_radius`` and ``tv_radius``: per slot, how far any exact equilibrium's tails / marginal
    (total variation) can be from m₀'s (1 where the bounds do not confine them)."""

    marginals: np.ndarray  # m₀, n_slots × R
    tails: list[TailBound]
    verdict: str
    tail_radius: list[float]
    tv_radius: list[float]
    class_radius: list[dict[int, float]]  # per slot: class → bound on |m(r) − m₀(r)|
    witness: tuple[tuple[Strategy, ...], np.ndarray] | None = None
    witness_tv: float = 0.0  # largest slot TV between the witness and m₀
    admitted: float = 0.0  # the largest witness excess the proven bound admits (verdict_of)
    responses: int = 0
    columns: list[Strategy] = field(default_factory=list)
    rows: int = 0


def marginal_structure(game: QuintetGame, support: Sequence[Strategy], probabilities: np.ndarray, *,
                       tolerance: float = 1e-7, exceed: float = 1e-4, max_rounds: int = 40,
                       time_limit: float | None = None) -> MarginalStructure:
    """Bound the upper tails of the equilibria's slot marginals at every threshold m₀ decides
    (module doc), with ``EquilibriumSet`` (the exact engine as the row and the column oracle)."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    m0 = game.marginals(support, probabilities)
    n_slots, n_classes = m0.shape
    columns = best_responses_in_orbits(game, support, probabilities)
    eqset = EquilibriumSet(game, columns=list(support) + columns, rows=list(support) + columns,
                           mixed_rows=[(support, probabilities)], tolerance=tolerance, time_limit=time_limit)
    tails: list[TailBound] = []
    witness: tuple[tuple[Strategy, ...], np.ndarray] | None = None
    witness_tv = 0.0
    responses = 0
    for s in range(n_slots):
        played = np.flatnonzero(m0[s] > 0)
        for r in played.tolist():
            t = r + 1
            if t >= n_classes:
                continue
            found = float(m0[s, t:].sum())
            result: ObjectiveRange[Strategy] = eqset.maximize(slot_tail(game, s, t), slot_tail_pricer(
                game, s, t, time_limit), target=found, exceed=exceed, max_rounds=max_rounds)
            responses += result.responses
            tails.append(TailBound(s, t, found, result.value, result.bound, result.settled, result.rounds,
                                   result.responses))
            if result.value > found + exceed and result.support:
                m = game.marginals(list(result.support), result.probabilities)
                tv = float(0.5 * np.abs(m - m0).sum(axis=1).max())
                if tv > witness_tv:
                    witness, witness_tv = (result.support, result.probabilities), tv
    verdict, admitted = verdict_of([(tb.found, tb.value, tb.bound) for tb in tails], tolerance=tolerance,
                                   exceed=exceed)
    tail_radius, tv_radius, class_radius = radii(m0, tails, np.asarray(game.tables.rules.weights, dtype=float))
    return MarginalStructure(marginals=m0, tails=tails, verdict=verdict, tail_radius=tail_radius,
                             tv_radius=tv_radius, class_radius=class_radius, witness=witness, witness_tv=witness_tv,
                             admitted=admitted, responses=responses, columns=list(eqset.columns), rows=len(eqset.rows))


def radii(m0: np.ndarray, tails: list[TailBound], w: np.ndarray
           ) -> tuple[list[float], list[float], list[dict[int, float]]]:
    """Certified distances of any exact equilibrium's marginals from m₀ (module doc): with
    e_s(r) = F_s(r) − F₀_s(r), the bounds give e ≤ ub where Δg > 0, and Σ w Δg e ≥ 0 gives
    e_s(r) ≥ −P / (w_s Δg_s(r)) with P = Σ w Δg max(ub, 0)."""
    n_slots, n_classes = m0.shape
    ub: list[dict[int, float]] = []  # per slot: threshold → upper bound on e at the jumps of g
    for s in range(n_slots):
        checked = {tb.threshold: tb.bound - tb.found for tb in tails if tb.slot == s}
        played = np.flatnonzero(m0[s] > 0).tolist()
        bounds: dict[int, float] = {}
        for i, r in enumerate(played):
            # at r_i the tail is at most that of r_{i-1} + 1 (F₀ equal there); at r_1 it is ≤ 1 = F₀
            bounds[r] = min(bounds.get(r, np.inf), 0.0 if i == 0 else checked.get(played[i - 1] + 1, np.inf))
            if r + 1 < n_classes:
                bounds[r + 1] = min(bounds.get(r + 1, np.inf), checked.get(r + 1, np.inf))
        ub.append(bounds)
    dg = [{r: float((m0[s, r - 1] if r > 0 else 0.0) + (m0[s, r] if r < n_classes else 0.0)) for r in ub[s]}
          for s in range(n_slots)]
    total = sum(w[s] * dg[s][r] * max(e, 0.0) for s in range(n_slots) for r, e in ub[s].items())
    tail_radius, tv_radius, class_radius = [], [], []
    for s in range(n_slots):
        e = {r: max(max(u, 0.0), total / (w[s] * dg[s][r]) if dg[s][r] > 0 else np.inf) for r, u in ub[s].items()}
        tail_radius.append(float(max(e.values(), default=0.0)))
        tv_radius.append(float(min(1.0, sum(e.values()))))
        class_radius.append({r: float(e.get(r, 0.0) + e.get(r + 1, 0.0)) for r in np.flatnonzero(m0[s] > 0).tolist()})
    return tail_radius, tv_radius, class_radius


def _marginal_rows(game: QuintetGame, marginals: np.ndarray, cands: Sequence[Strategy]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The equality system "the mix of ``cands`` has these slot marginals": (B, m) with B x = m."""
    cls = game.classes(cands)
    rows, target = [], []
    for s in range(marginals.shape[0]):
        for r in np.flatnonzero(marginals[s] > 0).tolist():
            rows.append((cls[:, s] == r).astype(float))
            target.append(marginals[s, r])
    return np.array(rows), np.array(target)


def fewest_arrangements(game: QuintetGame, marginals: np.ndarray, candidates: Sequence[Strategy], *,
                        time_limit: float | None = None, tolerance: float = 1e-9, reweight: int = 6
                        ) -> tuple[list[Strategy], np.ndarray, float, bool] | None:
    """Few candidates whose mix has exactly these slot marginals: re-weighted ℓ1 (Candès, Wakin &
    Boyd 2008), then a MILP (SCIP, ``time_limit`` seconds) for the fewest.  Returns (support,
    probabilities, the MILP's proven lower bound on the count over these candidates, whether the
    MILP proved its answer the fewest), or None when no mix of the candidates has the marginals."""
    marginals = np.asarray(marginals, dtype=np.float64)
    allowed = [set(np.flatnonzero(marginals[s] > 0).tolist()) for s in range(marginals.shape[0])]
    cands = [c for c in dict.fromkeys(candidates)
             if all(int(k) in allowed[s] for s, k in enumerate(game.classes([c])[0]))]
    if not cands:
        return None
    B, m = _marginal_rows(game, marginals, cands)
    n = len(cands)
    best: tuple[np.ndarray, float, bool] | None = None
    w = np.ones(n)
    for _ in range(reweight):
        try:
            x, _, _ = solve_lp(w, B, m - tolerance, m + tolerance, var_lower=np.zeros(n), var_upper=np.ones(n),
                               maximize=False, what="fewest-arrangements re-weighted LP",
                               glop_parameters="use_dual_simplex: true")
        except RuntimeError:
            break  # no mix of these candidates has the marginals (or GLOP gave up): the MILP decides
        x = np.clip(x, 0.0, None)
        if best is None or (x > 1e-12).sum() < (best[0] > 1e-12).sum():
            best = (x, 0.0, False)
        w = 1.0 / (x + 1e-6)
    A = np.vstack([np.hstack([B, np.zeros_like(B)]), np.hstack([np.eye(n), -np.eye(n)])])
    lo = np.concatenate([m - tolerance, np.full(n, -np.inf)])
    hi = np.concatenate([m + tolerance, np.zeros(n)])
    sol = solve_milp(np.concatenate([np.zeros(n), np.ones(n)]), A, lo, hi, var_lower=np.zeros(2 * n),
                     var_upper=np.ones(2 * n),
                     integer=np.concatenate([np.zeros(n, dtype=bool), np.ones(n, dtype=bool)]),
                     maximize=False, time_limit=time_limit, what="fewest-arrangements MILP")
    bound = 1.0
    if sol is not None:
        bound = float(sol.bound)
        x = np.clip(sol.x[:n], 0.0, None)
        if best is None or (x > 1e-12).sum() <= (best[0] > 1e-12).sum():
            best = (x, bound, sol.optimal)
    if best is None:
        return None
    x = best[0]
    keep = np.flatnonzero(x > 1e-12)
    try:  # polish the weights on the support found (SCIP's feasibility tolerance is coarser than GLOP's)
        sub = B[:, keep]
        y, _, _ = solve_lp(np.zeros(len(keep)), sub, m - 1e-12, m + 1e-12, var_lower=np.zeros(len(keep)),
                           var_upper=np.ones(len(keep)), maximize=False, what="fewest-arrangements polish",
                           glop_parameters="use_dual_simplex: true")
        y = np.clip(y, 0.0, None)
        if np.abs(sub @ y - m).max() < np.abs(sub @ x[keep] - m).max():
            x = np.zeros(n)
            x[keep] = y
    except RuntimeError:
        pass  # GLOP found the tighter system infeasible: keep the MILP's weights
    keep_mask = x > 1e-12
    return [s for s, k in zip(cands, keep_mask, strict=True) if k], x[keep_mask] / x[keep_mask].sum(), bound, best[2]


def coupling_lower_bound(marginals: np.ndarray, class_radius: Sequence[dict[int, float]], *,
                         time_limit: float | None = None) -> tuple[int, bool]:
    """A lower bound on the support of any mix whose slot marginals m are within ``class_radius``
    of these (|m_s(r) − m₀_s(r)| ≤ ρ_s(r) on the classes m₀ plays: ``radii``), whatever its
    arrangements.  A mix of n arrangements couples any two slots' marginals with at most n atoms;
    merging a class m₀ does not play into a played one never adds atoms, so it suffices to count
    the atoms of a coupling whose row and column sums are at least the *robust atoms*
    max(0, m₀ − ρ) (classes whose robust atom is 0 dropped) and whose mass is 1 — a MILP per pair
    of slots, whose proven bound (SCIP's dual bound, valid when stopped at ``time_limit``) counts.
    Also at least the robust atoms' count in a slot.  Returns (bound, every pair solved to
    optimality)."""
    marginals = np.asarray(marginals, dtype=np.float64)
    robust = [np.array([marginals[s, r] - class_radius[s].get(r, np.inf) for r in np.flatnonzero(marginals[s] > 0)])
              for s in range(marginals.shape[0])]
    robust = [a[a > 0] for a in robust]
    best, proven = max(len(a) for a in robust), True
    for a in range(len(robust)):
        for b in range(a + 1, len(robust)):
            p, q = robust[a], robust[b]
            k, kk = len(p), len(q)
            if k + kk - 1 <= best:
                continue  # a coupling needs at most k + kk − 1 atoms: this pair cannot raise the bound
            n = k * kk
            rows = [np.concatenate([np.kron(np.eye(k)[i], np.ones(kk)), np.zeros(n)]) for i in range(k)]
            rows += [np.concatenate([np.kron(np.ones(k), np.eye(kk)[j]), np.zeros(n)]) for j in range(kk)]
            rows.append(np.concatenate([np.ones(n), np.zeros(n)]))
            # an atom is at most what the other rows' (columns') robust atoms leave of the mass 1
            cap = np.minimum.outer(1.0 - p.sum() + p, 1.0 - q.sum() + q).ravel()
            A = np.vstack([np.array(rows), np.hstack([np.eye(n), -np.diag(cap)])])
            sol = solve_milp(np.concatenate([np.zeros(n), np.ones(n)]), A,
                             np.concatenate([p, q, [1.0], np.full(n, -np.inf)]),
                             np.concatenate([np.full(k + kk, np.inf), [1.0], np.zeros(n)]),
                             var_lower=np.zeros(2 * n), var_upper=np.concatenate([cap, np.ones(n)]),
                             integer=np.concatenate([np.zeros(n, dtype=bool), np.ones(n, dtype=bool)]),
                             maximize=False, time_limit=time_limit, what="coupling MILP")
            if sol is None:
                proven = False
                continue
            proven = proven and sol.optimal
            best = max(best, int(np.ceil(sol.bound - 1e-6)))
    return best, proven


def percentiles(game: QuintetGame) -> np.ndarray:
    """Per rank class: P(a packet of the deal drawn uniformly is weaker) + ½ P(equal) — the
    class's percentile against the deal's 53,130 packets (a uniformly random arrangement's slot
    marginal)."""
    counts = np.bincount(game.tables.classes, minlength=game.tables.n_classes).astype(np.float64)
    share = counts / counts.sum()
    return np.cumsum(share) - share / 2


def concession(game: QuintetGame, marginals: np.ndarray, fifth: float = 0.2) -> dict[str, list[float]]:
    """How weak the hands a mix lays are, per slot, against fixed references (marginals only, so
    the same for every equilibrium when the marginals are unique):

    * ``mean_percentile`` — the hand's mean percentile among the deal's packets (``percentiles``);
      a uniformly random arrangement's is ``uniform_mean_percentile`` (½ up to ties);
    * ``weakest_fifth`` — P(the hand is among the mix's own weakest fifth of hands): below the
      ``fifth`` point of the mid-distribution transform of the *pooled* hands (all five slots
      together).  Its baseline ``weakest_fifth_baseline`` is the pooled transform's own value (the
      mean of the five slots' values): a mix that laid its hands in a random slot order would show
      it in every slot, so a slot above it is where the mix puts its weakest hands on purpose;
    * ``self_referential`` — the old statistic: P(share below 10% against the slot's own marginal);
      ``self_referential_baseline`` — the same transform's value for the pooled hands (what any
      mix shows: the statistic measures the transform, not the game).
    """
    pct = percentiles(game)
    counts = np.bincount(game.tables.classes, minlength=game.tables.n_classes).astype(np.float64)
    uniform = counts / counts.sum()
    m = np.asarray(marginals, dtype=np.float64)
    pooled = m.mean(axis=0)
    pooled_mid = np.cumsum(pooled) - pooled / 2
    weak = pooled_mid < fifth
    own = np.cumsum(m, axis=1) - m / 2  # each slot's mid-distribution transform against itself
    n = m.shape[0]
    return {
        "mean_percentile": [float(m[s] @ pct) for s in range(n)],
        "uniform_mean_percentile": [float(uniform @ pct)] * n,
        "weakest_fifth": [float(m[s] @ weak) for s in range(n)],
        "weakest_fifth_baseline": [float(pooled @ weak)] * n,
        "self_referential": [float(m[s] @ (own[s] < 0.1)) for s in range(n)],
        "self_referential_baseline": [float(pooled @ (pooled_mid < 0.1))] * n,
    }


def weakest_slot(game: QuintetGame, support: Sequence[Strategy], probabilities: np.ndarray) -> list[float]:
    """Per slot: the mix's probability that the slot holds its arrangement's weakest hand (ties
    shared); 1/5 in every slot for a mix that lays its hands in a random slot order.  This
    depends on the whole mix, not only on its marginals: it describes one equilibrium."""
    cls = game.classes(support).astype(np.int64)
    low = cls == cls.min(axis=1, keepdims=True)
    share = low / low.sum(axis=1, keepdims=True)
    return (np.asarray(probabilities, dtype=np.float64) @ share).tolist()
