"""Best response as an OR-Tools CP-SAT model — the second, independent exact engine.

The problem (``problem.BestResponseProblem``): choose one packet per slot, the packets an
exact cover of the live cards, maximizing ``Σ_s V[c(p_s), s]`` where ``c`` is the packet's
rank class and every column ``V[:, s]`` is nondecreasing in the class.  Some slots may be
fixed to given packets.  ``value(A)`` below is the *exact* sum of the float64 table entries.

The package, a module per step: ``options`` (``CpsatOptions`` and the constants below),
``hints`` (the hint and its canonical forms), ``kernels`` (the numba pruning kernels),
``pruning`` (exact ranks, slot chains, P1–P4 to a fixed point), ``model`` (step 1) and
``solve`` (steps 2 and 3).  ``solve_cpsat`` works in the three steps of the OR-Tools samples:

1. **build** (``build_model``) — a complete hint ``H`` (given, or ``greedy_hint``; improved
   by the shared local search with three-slot re-splits, ``solver.engines.local_search``, then
   put in canonical form), sound pruning of (packet, slot) pairs, then the model:

   * a boolean ``x[p, s]`` for each surviving pair of a *free* slot ``s`` and a packet ``p``
     inside the free cards (live cards minus the fixed packets' cards).  Fixed slots get no
     variables: their packets are given, their cards are not in the model, and their value
     is a constant added back in real units;
   * ``AddExactlyOne`` over each free slot's variables (one packet per slot);
   * ``AddExactlyOne`` over each free card's variables (every card exactly once);
   * exchange-optimality constraints ``Σ d_ab(c(p))·x[p, a] ≤ Σ d_ab(c(p))·x[p, b]``;
   * symmetry breaking: ``Σ c(p)·x[p, a] ≤ Σ c(p)·x[p, b]`` along slot chains, and
     ``AddAtMostOne`` card-exchange constraints;
   * the objective cut ``Σ coef·x ≥ L`` (the hint's scaled value, less rounding slack);
   * objective ``maximize Σ coef[p, s]·x[p, s]``, ``coef = round(K·V)``;
   * ``AddHint`` on every variable: 1 on the hint's pairs, 0 elsewhere.

2. **solve** — ``CpSolver`` with ``max_time_in_seconds``, ``num_workers``, ``random_seed``
   set explicitly (and ``CPSAT_PARAMS``: presolve off — on these pruned models its probing
   costs seconds and buys nothing); a watcher thread calls ``StopSearch`` when
   ``stop_event`` is set.  The first solve gets ``RESTART_SLICE`` seconds: if it improves on
   the hint, the model is rebuilt around the better arrangement (a higher ``T`` prunes far
   more: on the example deal 6,184 pairs with a hint 0.4 below the optimum, 33 with the
   optimal one) and solved again; otherwise the same model gets the rest of the time.

3. **extract** — the packets of the best arrangement seen (hints included), their float64
   value ``problem.value_of``, and the smallest of the rounds' bounds (each is sound).

What the model must contain
---------------------------
Let ``T = value(H)`` for the canonical hint and ``ε = IMPROVE_EPS = 1e-10``.  The model is
only asked to hold *one* optimal arrangement, and only when the optimum ``OPT`` exceeds
``T + ε`` (otherwise the hint is optimal within ε and the bound says so).  Call ``A⁺`` the
canonical form of an optimal arrangement (below): it is optimal, exchange-stable,
chain-ordered and card-canonical.  Every pruning rule (P1–P6 below) removes only pairs that no optimal,
exchange-stable, chain-ordered arrangement worth ``≥ T + ε − PRUNE_TOL`` uses — so, when
``OPT > T + ε``, every pair of ``A⁺`` survives and ``A⁺`` satisfies every constraint.

Integer scaling, the bound and "optimal"
----------------------------------------
``K = 2**36``.  ``K·V`` is exact in float64 (a power-of-two scale, ``|K·V| < 2**53``), so
``coef = round(K·V)`` carries a rounding error ``e = V − coef/K``, ``|e| ≤ 0.5/K``, itself
computed exactly (Sterbenz).  For any arrangement ``A`` of the model with integer objective
``I(A)``: ``value(A) = fixed + I(A)/K + Σ_s e_s(A) ≤ fixed + I(A)/K + E⁺``,
``E⁺ = Σ_s max_p e[p, s]`` over the model's pairs.

* *Bound.*  CP-SAT's ``best_objective_bound`` ``B`` (used only when the status is OPTIMAL
  or FEASIBLE — with UNKNOWN CP-SAT reports 0) bounds ``I`` over the model.  If
  ``OPT > T + ε`` then ``A⁺`` is in the model and ``OPT ≤ fixed + B/K + E⁺``; so
  ``OPT ≤ max(T + ε, fixed + B/K + E⁺) (+ FLOAT_SLACK)``.  The pruning bound ``bound0``
  (P6) is an independent sound bound; the reported bound is
  ``max(value, min(bound0, cp_bound))`` — never below the value returned.
* *Optimal.*  CP-SAT's OPTIMAL proves the *integer* optimum; arrangements whose real values
  differ by less than about ``n_slots/K`` (< 1e-10) may be ordered differently by the
  integers, and the model only seeks improvements over ``T + ε``.  So ``optimal=True`` is
  reported only when CP-SAT says OPTIMAL **and** bound − value ``≤ VALUE_TOLERANCE``
  (``solver.problem.best_response``, 1e-9): nothing is better by more than that (the values themselves are
  float64 sums, exact to ~1e-15).  With ``K = 2**36`` the conversion gap is ``ε + 5/K + FLOAT_SLACK ≈ 2e-10``, so an
  integer OPTIMAL always passes.  With at most one free slot the arrangement is forced
  (CP-SAT is not run) and is reported optimal with ``bound = value``.

Exchange stability and exact ranks
----------------------------------
For free slots ``a < b`` let ``D_ab(r) = V[r, b] − V[r, a]``.  Exchanging the packets of
slots ``a`` and ``b`` changes the value by ``D_ab(c(p_a)) − D_ab(c(p_b))``; so in an optimal
arrangement ``D_ab(c(p_a)) ≤ D_ab(c(p_b))`` for every pair (*exchange-stable*; the search
(``solver.engines.search``) relies on the same property).  ``d_ab`` is the dense rank of ``D_ab`` over the classes,
computed **exactly**: ``D`` is kept as the unevaluated pair ``(hi, lo)`` of TwoSum
(``hi = fl(x − y)``, ``lo`` the exact error); rounding is monotone and ``hi`` of equal
values is equal, so ordering by ``(hi, lo)`` orders the exact differences.  The model
states ``d_ab(c(p_a)) ≤ d_ab(c(p_b))`` (linear, coefficients the ranks), and pruning uses it
as a filter (P4).

Symmetry breaking (``symmetry=True``)
-------------------------------------
*Slot chains.*  Call ``a → b`` an edge when ``D_ab`` is (exactly) nondecreasing in the
class over ``S``, the classes alive (after phase A) in ``a`` or ``b`` plus the hint's classes.
The engine picks vertex-disjoint chains ``s1 → s2 → … → sk`` of edges (most edges;
exhaustive over ≤ 6 free slots) and adds ``c(p_{s_i}) ≤ c(p_{s_{i+1}})``.  Soundness: in an
optimal arrangement, exchange two adjacent chain slots whenever the earlier holds the
strictly stronger class: the change ``D(c1) − D(c2)`` with ``c1 > c2`` is ``≥ 0`` by the edge
(both classes are in ``S`` because the arrangement, being optimal and stable, kept its pairs
through phase A), and ``≤ 0`` by optimality — so the result is again optimal (hence stable
and alive).  Bubble sort terminates: chain-ordered and optimal.  Against the uniform
opponent every column is ``w_s`` times one function, so all slots form one chain.

*Card exchanges.*  For two free cards ``a < b`` of the same rank (``a`` of the lower suit),
call a packet ``P ∋ a, ∌ b`` *exchangeable* if ``P − a + b`` has the same class (checked on
the class table, so flushes and every rule option are respected), and symmetrically for
``Q ∋ b``.  If ``a`` sits in slot ``s`` and ``b`` in an earlier slot ``t``, both packets
exchangeable, exchanging the two cards keeps every slot's class, hence the value, stability,
chain order and all pruning tests.  The model forbids that configuration (``AddAtMostOne``
over ``a``'s exchangeable pairs in slot ``s`` and ``b``'s in slots ``< s``).  Sound for all
card pairs at once: each such exchange raises ``Φ = Σ_cards suit·slot`` by
``(suit(b) − suit(a))(s − t) > 0``, so repeating them terminates in an arrangement that
violates none.  Skipped: suit permutations (a symmetry only when the exposed cards are
suit-symmetric, rare).

*Canonical hint.*  The hint is improved by strictly improving exchanges, chain-sorted and
card-exchanged (``(value, −inversions)`` rises at each step, so this ends) so that it
satisfies every constraint; its pairs are always kept.

Pruning rules P1–P6 (``prune=True``) and why each is sound
----------------------------------------------------------
(Named P1–P6 here: not the search's rules 1–7 of ``solver.engines.search``.)

P1. *Disjoint-maximum bound.*  If ``A`` holds ``p`` in free slot ``s``, every other free slot
   ``s'`` holds a packet inside the free cards, disjoint from ``p``, worth at most
   ``best(p, s') = max_{q ∩ p = ∅} V[c(q), s']``; so
   ``value(A) ≤ lhs(p, s) = fixed + V[c(p), s] + Σ_{s'≠s free} best(p, s')``, and a pair with
   ``lhs < T + ε − PRUNE_TOL`` serves no arrangement worth that much.  ``best``: candidates
   sorted by class, strongest first; the first one disjoint from ``p`` has the highest class
   among the disjoint ones, hence — every column being nondecreasing — the highest value in
   *every* slot at once (numba kernels ``first_disjoint``, ``level1_lhs``).
P2. *Iterated per slot.*  The same with ``q`` restricted to pairs ``(q, s')`` still alive (by
   induction ``A⁺``'s pairs are alive).  No alive partner in some slot: ``lhs = −∞``.
P3. *Pair level.*  For ``(p, s)`` and any other slot ``s2``: ``value(A) ≤ fixed + V[c(p), s] +
   max_{q alive in s2, q ∩ p = ∅} (V[c(q), s2] + Σ_{k ∉ {s, s2}} best(p ∪ q, k))``; if that is
   below the threshold for some ``s2`` the pair goes (kernel ``pair_prune``; the scan over
   the sorted ``q`` stops once even ``V[c(q), s2] + Σ_k best(p, k)`` falls short).
P4. *Windows.*  ``A⁺`` is exchange-stable and chain-ordered, so in P1–P3 the packet ``q``
   of slot ``k`` must satisfy ``d(q) ≥ d(p)`` in the orientation of ``(s, k)`` (a filter) and,
   on a chain, ``c(q) ≤ c(p)`` before ``s`` or ``c(q) ≥ c(p)`` after it (a window on the
   sorted list); likewise relative to ``q`` in P3.  Maximizing over fewer packets is
   still an upper bound for ``A⁺``.
P5. The canonical hint's pairs are always kept (so the hint is a solution of the model).
P6. ``bound0``: if ``OPT > T + ε``, ``A⁺``'s slot-``s`` pair is alive and bounds ``OPT`` by its
   ``lhs``; so ``OPT ≤ max(T + ε, min_s max_{(p,s) alive} lhs(p, s))``.

The float error of an ``lhs`` (a sum of ≤ 6 values of magnitude ≤ 7) is ~1e-14, far inside
``PRUNE_TOL = 2e-11``, so the comparisons lean the sound way.  Pruning stops early (soundly:
it only ever removes pairs) when the time limit is near.

*Objective cut.*  ``I(A) ≥ L``, ``L = floor(K·(T − fixed − E⁺ − FLOAT_SLACK)) − 1``: an
arrangement with ``I(A) < L`` is worth less than ``T``; the hint satisfies it.
"""

from .hints import greedy_hint
from .kernels import PairLists, first_disjoint, level1_lhs, pair_prune
from .model import BuildStopped, CpsatModel, build_model
from .options import IMPROVE_EPS, PRUNE_TOL, SCALE, CpsatOptions
from .pruning import exact_difference_rank
from .solve import solve_cpsat

__all__ = [
    "CpsatOptions",
    "solve_cpsat",
    "build_model",
    "BuildStopped",
    "greedy_hint",
    "exact_difference_rank",
    "first_disjoint",
    "PairLists",
    "level1_lhs",
    "pair_prune",
    "CpsatModel",
    "SCALE",
    "IMPROVE_EPS",
    "PRUNE_TOL",
]
