"""A cheaper restricted solve (issue 40, direction 4), on the LPs one solve really meets: the
double oracle is run once per form on one deal and every restricted-game LP is captured, then
the LPs are solved again in other ways (CPU seconds, ``time.process_time``, this one process):

* the compact slot-order LP (``DoubleOracleOptions(orbit_lp=True)``; ``solve_slot_order_lp``):
  as the solve met it (cold, working set only: today's code); over the union of the partitions
  seen so far (what the loop converges to) cold, warm-started from the previous LP's basis
  (OR-Tools MathOpt, GLOP ``initial_basis``: the new rows' slacks basic, the new variables at
  a bound), and warm in two stages (the new partitions' cuts first with their orders fixed at
  0 — the dual simplex from a dual-feasible basis — then the orders freed, primal simplex);
  PDLP at three tolerances on the largest union LP;
* the columns LP of today (``solve_symmetric_lp``, GLOP dual simplex): all of them with GLOP,
  and the ``--largest`` of them with GLOP and with PDLP at three tolerances
  (``eps_optimal_relative`` = ``eps_optimal_absolute``), with the largest *restricted*
  exploitability of PDLP's mixes (max of ``A x``: what a loose LP concedes inside the
  restricted game).

    python benchmarks/bench_restricted_lp.py                      # "Ac Kh Js Tc 8h 7s 7d"
    python benchmarks/bench_restricted_lp.py --deal "As Ks Qc Js Th 8d 7s"
"""

from __future__ import annotations

import bisect
import functools
import time
from typing import Any

import numpy as np
from ortools.math_opt.python import mathopt
from ortools.pdlp import solvers_pb2
from ortools.pdlp.python import pdlp

import solver.advisor.equilibrium as eq_module
import solver.games.double_oracle as do_module
import solver.games.quintet_game as qg_module
from quintet.cliutil import OneLineParser, positive_int
from quintet.game import Deal
from solver.games.lp import INF, RESTRICTED_GAME_GLOP, _request, solve_slot_order_lp

N = 5  # packets (slots) of an arrangement
TOLERANCES = (1e-3, 1e-4, 1e-6)


def capture(deal: Deal, orbit_lp: bool) -> list[Any]:
    """The restricted-game LPs of one solve (ε 0.01): class arrays (P × 5) for the compact
    form, payoff matrices for the columns."""
    found: list[Any] = []
    if orbit_lp:
        original = qg_module.solve_slot_order_lp

        def keep(classes: np.ndarray, weights: np.ndarray, params: str = "") -> np.ndarray:
            found.append(np.array(classes))
            return original(classes, weights, params)
        qg_module.solve_slot_order_lp = keep  # type: ignore[assignment]
    else:
        original_sym = do_module.solve_symmetric_lp

        def keep_sym(A: np.ndarray) -> tuple[np.ndarray, float]:
            found.append(np.array(A))
            return original_sym(A)
        do_module.solve_symmetric_lp = keep_sym  # type: ignore[assignment]
    options = do_module.DoubleOracleOptions(orbit_lp=orbit_lp, first_response_limit=60.0)
    original_do = eq_module.double_oracle
    eq_module.double_oracle = functools.partial(original_do, options=options)  # type: ignore[assignment]
    try:
        eq_module.equilibrium(deal, epsilon=0.01, time_limit=3000.0)
    finally:
        eq_module.double_oracle = original_do
        if orbit_lp:
            qg_module.solve_slot_order_lp = original  # type: ignore[assignment]
        else:
            do_module.solve_symmetric_lp = original_sym  # type: ignore[assignment]
    return found


class GrowingSlotOrderLP:
    """``solve_slot_order_lp``'s program over a growing set of partitions (by class vector), as
    one MathOpt model that only grows: a new rank class is spliced into the cumulative chain
    F (the rows that named its predecessor are rewritten)."""

    def __init__(self, weights: np.ndarray, fix_new: bool) -> None:
        self.w = np.asarray(weights, dtype=np.float64)
        self.fix_new = fix_new  # a new partition's orders start fixed at 0 (``release`` frees them)
        self.m = mathopt.Model()
        self.t = self.m.add_variable(lb=-INF, ub=INF)
        self.m.minimize(self.t)
        self.sum_z = self.m.add_linear_constraint(lb=1.0, ub=1.0)
        self.keys: set[tuple[int, ...]] = set()
        self.classes: list[int] = []
        self.F: dict[tuple[int, int], Any] = {}
        self.chain: dict[tuple[int, int], Any] = {}
        self.users: dict[tuple[int, int], list[Any]] = {}  # dual rows naming F at class k's predecessor
        self.pending: list[Any] = []
        self.basis: tuple[Any, Any] | None = None

    def _add_class(self, k: int) -> None:
        i = bisect.bisect_left(self.classes, k)
        pred = self.classes[i - 1] if i > 0 else None
        succ = self.classes[i] if i < len(self.classes) else None
        self.classes.insert(i, k)
        for s in range(N):
            f = self.F[s, k] = self.m.add_variable(lb=0.0, ub=1.0)
            row = self.chain[s, k] = self.m.add_linear_constraint(lb=0.0, ub=0.0)
            row.set_coefficient(f, 1.0)
            if pred is not None:
                row.set_coefficient(self.F[s, pred], -1.0)
            self.users[s, k] = []
            if succ is not None:
                for r, coefficient in [(self.chain[s, succ], -1.0)] + [(d, -self.w[s]) for d in self.users[s, succ]]:
                    if pred is not None:
                        r.set_coefficient(self.F[s, pred], 0.0)
                    r.set_coefficient(f, coefficient)

    def add(self, classes: np.ndarray) -> None:
        key = tuple(int(k) for k in classes)
        if key in self.keys:
            return
        self.keys.add(key)
        for k in key:
            if (0, k) not in self.F:
                self._add_class(k)
        m, w = self.m, self.w
        ub = 0.0 if self.fix_new and self.basis is not None else 1.0
        x = [[m.add_variable(lb=0.0, ub=ub) for _ in range(N)] for _ in range(N)]
        z = m.add_variable(lb=0.0, ub=ub)
        self.pending += [z] + [v for row in x for v in row]
        self.sum_z.set_coefficient(z, 1.0)
        for i in range(N):
            for line in (x[i], [x[j][i] for j in range(N)]):
                r = m.add_linear_constraint(lb=0.0, ub=0.0)
                for v in line:
                    r.set_coefficient(v, 1.0)
                r.set_coefficient(z, -1.0)
            for s in range(N):
                self.chain[s, key[i]].set_coefficient(x[i][s], -1.0)
        a = [m.add_variable(lb=-INF, ub=INF) for _ in range(N)]
        b = [m.add_variable(lb=-INF, ub=INF) for _ in range(N)]
        for j, k in enumerate(key):
            idx = self.classes.index(k)
            pred = self.classes[idx - 1] if idx > 0 else None
            for s in range(N):
                r = m.add_linear_constraint(lb=-w[s], ub=INF)
                r.set_coefficient(a[j], 1.0)
                r.set_coefficient(b[s], 1.0)
                r.set_coefficient(self.F[s, k], -w[s])
                if pred is not None:
                    r.set_coefficient(self.F[s, pred], -w[s])
                self.users[s, k].append(r)
        r = m.add_linear_constraint(lb=-INF, ub=0.0)
        for v in a + b:
            r.set_coefficient(v, 1.0)
        r.set_coefficient(self.t, -1.0)

    def release(self) -> None:
        for v in self.pending:
            v.upper_bound = 1.0
        self.pending = []

    def solve(self, warm: bool, dual: bool = True) -> tuple[float, int]:
        """(CPU seconds, simplex iterations) of one GLOP solve, from the last basis if ``warm``."""
        params = mathopt.SolveParameters()
        params.glop.use_dual_simplex = dual
        params.glop.use_preprocessing = False
        model_params = None
        if warm and self.basis is not None:
            variables, constraints = dict(self.basis[0]), dict(self.basis[1])
            for v in self.m.variables():
                variables.setdefault(v, mathopt.BasisStatus.FREE if v.lower_bound == -INF
                                     else mathopt.BasisStatus.AT_LOWER_BOUND)
            for c in self.m.linear_constraints():
                constraints.setdefault(c, mathopt.BasisStatus.BASIC)
            model_params = mathopt.ModelSolveParameters(
                initial_basis=mathopt.Basis(variable_status=variables, constraint_status=constraints))
        t0 = time.process_time()
        result = mathopt.solve(self.m, mathopt.SolverType.GLOP, params=params, model_params=model_params)
        seconds = time.process_time() - t0
        if result.termination.reason != mathopt.TerminationReason.OPTIMAL:
            raise RuntimeError(f"GLOP: {result.termination}")
        if result.has_basis():
            self.basis = (result.variable_status(), result.constraint_status())
        return seconds, result.solve_stats.simplex_iterations


def pdlp_params(eps: float) -> solvers_pb2.PrimalDualHybridGradientParams:
    p = solvers_pb2.PrimalDualHybridGradientParams()
    p.termination_criteria.simple_optimality_criteria.eps_optimal_relative = eps
    p.termination_criteria.simple_optimality_criteria.eps_optimal_absolute = eps
    p.num_threads = 1
    return p


def compact(lps: list[np.ndarray], weights: np.ndarray) -> list[str]:
    lines = []
    t0 = time.process_time()
    for classes in lps:
        solve_slot_order_lp(classes, weights, RESTRICTED_GAME_GLOP)
    lines.append(f"| compact, as the solve met them (cold GLOP, working set) | {len(lps)} | "
                 f"{time.process_time() - t0:.2f} | – |")
    for name, warm, two in (("cold", False, False), ("warm basis", True, False), ("warm, two stages", True, True)):
        lp = GrowingSlotOrderLP(weights, fix_new=two)
        seconds, pivots, solves = 0.0, 0, 0
        for classes in lps:
            first = lp.basis is None
            for row in classes:
                lp.add(row)
            if two and not first:
                s, p = lp.solve(warm)
                seconds, pivots, solves = seconds + s, pivots + p, solves + 1
            lp.release()
            s, p = lp.solve(warm, dual=not two or first)
            seconds, pivots, solves = seconds + s, pivots + p, solves + 1
        lines.append(f"| compact over the union, {name} | {solves} | {seconds:.2f} | {pivots} |")
    largest = GrowingSlotOrderLP(weights, fix_new=False)
    for classes in lps:
        for row in classes:
            largest.add(row)
    s, p = largest.solve(False)
    lines.append(f"| the largest union LP ({len(largest.keys)} partitions), cold GLOP | 1 | {s:.2f} | {p} |")
    for eps in TOLERANCES:
        params = mathopt.SolveParameters()
        params.pdlp = pdlp_params(eps)
        t0 = time.process_time()
        result = mathopt.solve(largest.m, mathopt.SolverType.PDLP, params=params)
        lines.append(f"| the largest union LP, PDLP ε {eps:g} (t = {result.objective_value():.4g}) | 1 | "
                     f"{time.process_time() - t0:.2f} | – |")
    return lines


def columns(lps: list[np.ndarray], largest: int) -> list[str]:
    from solver.games.lp import solve_symmetric_lp
    lines = []
    t0 = time.process_time()
    for A in lps:
        solve_symmetric_lp(A)
    lines.append(f"| columns, GLOP (today), every LP | {len(lps)} | {time.process_time() - t0:.2f} | 0 |")
    lps = sorted(lps, key=len)[-largest:]
    t0 = time.process_time()
    for A in lps:
        solve_symmetric_lp(A)
    lines.append(f"| columns, GLOP (today), the {largest} largest | {len(lps)} | {time.process_time() - t0:.2f} | 0 |")
    for eps in TOLERANCES:
        seconds, worst = 0.0, 0.0
        for A in lps:
            n = len(A)
            c = np.zeros(n + 1)
            c[n] = 1.0
            rows = np.vstack([np.hstack([A, -np.ones((n, 1))]), np.append(np.ones(n), 0.0)])
            request = _request(c, rows, np.append(np.full(n, -INF), 1.0), np.append(np.zeros(n), 1.0),
                               np.append(np.zeros(n), -INF), np.append(np.ones(n), INF), False, None)
            qp = pdlp.qp_from_mpmodel_proto(request.model, relax_integer_variables=False)
            t0 = time.process_time()
            result = pdlp.primal_dual_hybrid_gradient(qp, pdlp_params(eps))
            seconds += time.process_time() - t0
            x = np.clip(np.asarray(result.primal_solution)[:n], 0.0, None)
            worst = max(worst, float((A @ (x / x.sum())).max()))
        lines.append(f"| columns, PDLP ε {eps:g}, the {largest} largest | {len(lps)} | {seconds:.2f} | {worst:.4f} |")
    return lines


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deal", default="Ac Kh Js Tc 8h 7s 7d")
    ap.add_argument("--largest", type=positive_int, default=10,
                    help="PDLP on this many of the largest columns LPs (default 10)")
    args = ap.parse_args()
    deal = Deal.from_exposed(args.deal)
    eq_module.equilibrium(Deal.from_exposed("As Ks Qs Js Ts Ah Kh"), epsilon=1.0)  # compile the kernels
    weights = np.asarray(deal.rules.weights, dtype=np.float64)
    print(f"deal {deal.format()}\n")
    print("| LPs | solves | CPU s | simplex pivots |\n|---|---|---|---|")
    print("\n".join(compact(capture(deal, True), weights)))
    print("\n| LPs | solves | CPU s | largest restricted exploitability of the mixes |\n|---|---|---|---|")
    print("\n".join(columns(capture(deal, False), args.largest)))


if __name__ == "__main__":
    main()
