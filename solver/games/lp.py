"""The linear programs of the game algorithms, built in one place (OR-Tools GLOP).

``solve_lp`` solves ``maximize c·x`` subject to ``lower ≤ A x ≤ upper`` and variable bounds,
and returns the solution with the row duals.  The double oracle's restricted game
(``solve_symmetric_lp``), the restricted Nash response's program (``solve_rnr_program``) and a
fixed support's weights (``solve_minmax_lp``) are written in that form; ``solve_milp`` is the
same builder with integer variables (SCIP), for the sparse mix over a candidate set
(``solve_sparse_milp``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ortools.linear_solver import linear_solver_pb2

__all__ = ["solve_lp", "solve_milp", "MilpSolution", "solve_symmetric_lp", "solve_slot_order_lp", "solve_rnr_program",
           "solve_minmax_lp", "solve_sparse_milp"]

INF = float("inf")


Coo = tuple[np.ndarray, np.ndarray, np.ndarray]  # a sparse matrix's (rows, columns, values)


def _request(c: np.ndarray, A: np.ndarray | Coo, lower: np.ndarray, upper: np.ndarray, var_lower: np.ndarray,
             var_upper: np.ndarray, maximize: bool, integer: np.ndarray | None) -> linear_solver_pb2.MPModelRequest:
    """The model: every row's coefficients as given for a dense linear program (its zeros too:
    GLOP then sees what it always saw), only the nonzeros for a mixed-integer one (big and
    sparse) or an ``A`` given as ``Coo``."""
    from ortools.linear_solver import linear_solver_pb2  # here and below: a best response needs no LP
    request = linear_solver_pb2.MPModelRequest()
    model = request.model
    model.maximize = maximize
    n = len(c)
    flags = np.zeros(n, dtype=bool) if integer is None else np.asarray(integer, dtype=bool)
    for coefficient, lo, hi, is_integer in zip(np.asarray(c, dtype=np.float64).tolist(), var_lower.tolist(),
                                               var_upper.tolist(), flags.tolist(), strict=True):
        v = model.variable.add()
        v.lower_bound, v.upper_bound, v.objective_coefficient = lo, hi, coefficient
        v.is_integer = is_integer
    if isinstance(A, tuple):
        r, col, val = A
        order = np.argsort(r, kind="stable")
        starts = np.searchsorted(r[order], np.arange(len(lower) + 1))
        cols, vals = col[order].tolist(), val[order].astype(np.float64).tolist()
        for i, (lo, hi) in enumerate(zip(lower.tolist(), upper.tolist(), strict=True)):
            constraint = model.constraint.add()
            constraint.lower_bound, constraint.upper_bound = lo, hi
            constraint.var_index.extend(cols[starts[i]:starts[i + 1]])
            constraint.coefficient.extend(vals[starts[i]:starts[i + 1]])
        return request
    for row, lo, hi in zip(np.asarray(A, dtype=np.float64).reshape(-1, n), lower.tolist(), upper.tolist(),
                           strict=True):
        constraint = model.constraint.add()
        constraint.lower_bound, constraint.upper_bound = lo, hi
        if integer is None:
            constraint.var_index.extend(range(n))
            constraint.coefficient.extend(row.tolist())
        else:
            nonzero = np.flatnonzero(row)
            constraint.var_index.extend(nonzero.tolist())
            constraint.coefficient.extend(row[nonzero].tolist())
    return request


def solve_lp(c: np.ndarray, A: np.ndarray | Coo, lower: np.ndarray, upper: np.ndarray, *, var_lower: np.ndarray,
             var_upper: np.ndarray, maximize: bool, what: str, glop_parameters: str = ""
             ) -> tuple[np.ndarray, float, np.ndarray]:
    """Optimize ``c·x`` s.t. ``lower ≤ A x ≤ upper``, ``var_lower ≤ x ≤ var_upper`` (GLOP, tuned by
    ``glop_parameters``: GlopParameters in protobuf text); returns (x, the optimal value, the row
    duals).  ``RuntimeError`` naming ``what`` if it fails."""
    from ortools.linear_solver import linear_solver_pb2

    # imported by name: its stubs would make mypy read ortools.linear_solver as a typed package
    model_builder_helper = importlib.import_module("ortools.linear_solver.python.model_builder_helper")
    request = _request(c, A, lower, upper, var_lower, var_upper, maximize, None)
    request.solver_type = linear_solver_pb2.MPModelRequest.GLOP_LINEAR_PROGRAMMING
    request.solver_specific_parameters = glop_parameters
    # the solve releases the GIL (pywraplp.Solver.SolveWithProto holds it): a search in another
    # thread runs meanwhile (solver.games.double_oracle overlaps the two)
    answer = model_builder_helper.ModelSolverHelper("").solve_serialized_request(request.SerializeToString())
    response = linear_solver_pb2.MPSolutionResponse.FromString(answer)
    if response.status != linear_solver_pb2.MPSOLVER_OPTIMAL:
        raise RuntimeError(f"{what} failed: status {response.status} {response.status_str}")
    return np.array(response.variable_value), float(response.objective_value), np.array(response.dual_value)


@dataclass(frozen=True)
class MilpSolution:
    """A mixed-integer program's answer: the best solution found, its value, the solver's proven
    bound on the optimum (≤ value when minimizing) and whether the two meet (``optimal``)."""

    x: np.ndarray
    value: float
    bound: float
    optimal: bool


def solve_milp(c: np.ndarray, A: np.ndarray, lower: np.ndarray, upper: np.ndarray, *, var_lower: np.ndarray,
               var_upper: np.ndarray, integer: np.ndarray, maximize: bool, time_limit: float | None,
               what: str) -> MilpSolution | None:
    """``solve_lp`` with the variables flagged in ``integer`` integral (SCIP, one thread), stopped
    after ``time_limit`` seconds with the best solution and bound so far; None when the time ran
    out before any solution.  ``RuntimeError`` naming ``what`` when the program is infeasible or
    invalid."""
    from ortools.linear_solver import linear_solver_pb2, pywraplp

    request = _request(c, A, lower, upper, var_lower, var_upper, maximize, integer)
    request.solver_type = linear_solver_pb2.MPModelRequest.SCIP_MIXED_INTEGER_PROGRAMMING
    if time_limit is not None:
        request.solver_time_limit_seconds = max(float(time_limit), 0.01)
    response = linear_solver_pb2.MPSolutionResponse()
    pywraplp.Solver.SolveWithProto(request, response)
    if response.status == linear_solver_pb2.MPSOLVER_NOT_SOLVED:
        return None
    if response.status not in (linear_solver_pb2.MPSOLVER_OPTIMAL, linear_solver_pb2.MPSOLVER_FEASIBLE):
        raise RuntimeError(f"{what} failed: status {response.status} {response.status_str}")
    optimal = response.status == linear_solver_pb2.MPSOLVER_OPTIMAL
    value = float(response.objective_value)
    bound = float(response.best_objective_bound)
    if optimal:  # SCIP's gap tolerance: the bound it proves may sit a hair off the value
        bound = min(bound, value) if not maximize else max(bound, value)
    return MilpSolution(np.array(response.variable_value), value, bound, optimal)


def _mix(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, None)
    return x / x.sum()


# The restricted games' matrices are dense (every entry a payoff): GLOP's dual simplex without
# its presolve solves them faster than its defaults (measured on the LPs that the double oracle
# solved on the example deal and on one of the slowest classes; RESULTS "Equilibrium profile"
# shows the LP's share of the time).
RESTRICTED_GAME_GLOP = "use_dual_simplex: true use_preprocessing: false"


def solve_symmetric_lp(A: np.ndarray) -> tuple[np.ndarray, float]:
    """Equilibrium mix of the symmetric zero-sum matrix game ``A``: ``min t`` s.t. ``A x ≤ t``,
    ``Σx = 1``, ``x ≥ 0``; returns (x, t).  For an antisymmetric ``A`` the optimum t is 0 up to
    solver tolerance (GLOP as ``RESTRICTED_GAME_GLOP``)."""
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    c = np.zeros(n + 1)
    c[n] = 1.0  # minimize t
    rows = np.vstack([np.hstack([A, -np.ones((n, 1))]), np.append(np.ones(n), 0.0)])
    lower = np.append(np.full(n, -INF), 1.0)
    upper = np.append(np.zeros(n), 1.0)
    x, value, _ = solve_lp(c, rows, lower, upper, var_lower=np.append(np.zeros(n), -INF),
                           var_upper=np.append(np.ones(n), INF), maximize=False, what="restricted-game LP",
                           glop_parameters=RESTRICTED_GAME_GLOP)
    return _mix(x[:n]), value


def solve_rnr_program(gains: np.ndarray, rows: np.ndarray, bound: float) -> tuple[np.ndarray, float, np.ndarray,
                                                                                   float]:
    """max gains·x s.t. rows @ x ≤ bound, Σx = 1, x ≥ 0: the restricted Nash response's program.

    Returns (x, value, duals y ≥ 0 of the rows, dual μ of Σx = 1), with the reduced cost of a
    column (g, a) equal to g − y·a − μ.
    """
    gains = np.asarray(gains, dtype=np.float64)
    n = gains.shape[0]
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, n)
    A = np.vstack([rows, np.ones((1, n))])
    lower = np.append(np.full(rows.shape[0], -INF), 1.0)
    upper = np.append(np.full(rows.shape[0], float(bound)), 1.0)
    x, value, duals = solve_lp(gains, A, lower, upper, var_lower=np.zeros(n), var_upper=np.full(n, INF),
                               maximize=True, what="safe-response program")  # x ≤ 1 is implied
    return _mix(x[:n]), value, np.clip(duals[:-1], 0.0, None), float(duals[-1])


def solve_minmax_lp(A: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """The best weights of a fixed support against a set of opponents: ``min t`` s.t.
    ``A x ≤ t`` (row i: opponent i's payoff against each support strategy), ``Σx = 1``, ``x ≥ 0``.

    Returns (x, t, y) with y ≥ 0, Σy = 1 the row duals: a mix of the rows against which no
    support strategy does better than t (``t = max_i (A x)_i = min_j (yA)_j`` at the optimum).
    """
    A = np.asarray(A, dtype=np.float64)
    m, n = A.shape
    c = np.zeros(n + 1)
    c[n] = 1.0  # minimize t
    rows = np.vstack([np.hstack([A, -np.ones((m, 1))]), np.append(np.ones(n), 0.0)])
    lower = np.append(np.full(m, -INF), 1.0)
    upper = np.append(np.zeros(m), 1.0)
    x, value, duals = solve_lp(c, rows, lower, upper, var_lower=np.append(np.zeros(n), -INF),
                               var_upper=np.append(np.ones(n), INF), maximize=False, what="support-weights LP")
    y = np.clip(-duals[:m], 0.0, None)
    y = y / y.sum() if y.sum() > 0 else np.full(m, 1.0 / m)
    return _mix(x[:n]), value, y


def solve_sparse_milp(A: np.ndarray, max_support: int, *, time_limit: float | None) -> MilpSolution | None:
    """The best mix of at most ``max_support`` columns against the rows: ``min t`` s.t.
    ``A x ≤ t``, ``Σx = 1``, ``x_j ≤ z_j``, ``Σz ≤ max_support``, z binary (SCIP).

    ``x`` of the answer is the column weights only; ``bound`` is a proven lower bound on the
    optimum (the optimum itself when ``optimal``); None when the time ran out before a solution."""
    A = np.asarray(A, dtype=np.float64)
    m, n = A.shape
    c = np.zeros(2 * n + 1)
    c[2 * n] = 1.0  # variables: x (n), z (n), t
    payoff_rows = np.hstack([A, np.zeros((m, n)), -np.ones((m, 1))])
    link = np.hstack([np.eye(n), -np.eye(n), np.zeros((n, 1))])
    total = np.concatenate([np.ones(n), np.zeros(n), [0.0]])
    count = np.concatenate([np.zeros(n), np.ones(n), [0.0]])
    rows = np.vstack([payoff_rows, link, total, count])
    lower = np.concatenate([np.full(m + n, -INF), [1.0, -INF]])
    upper = np.concatenate([np.zeros(m + n), [1.0, float(max_support)]])
    integer = np.concatenate([np.zeros(n, dtype=bool), np.ones(n, dtype=bool), [False]])
    solution = solve_milp(c, rows, lower, upper, var_lower=np.concatenate([np.zeros(2 * n), [-INF]]),
                          var_upper=np.concatenate([np.ones(2 * n), [INF]]), integer=integer, maximize=False,
                          time_limit=time_limit, what="sparse-mix MILP")
    if solution is None:
        return None
    return MilpSolution(_mix(solution.x[:n]), solution.value, solution.bound, solution.optimal)


def solve_slot_order_lp(classes: np.ndarray, weights: np.ndarray, glop_parameters: str = "") -> np.ndarray:
    """The equilibrium of the symmetric game over every slot order of P partitions, with the
    payoff ``Σ_s w_s · sign(c(P_s) − c(Q_s))``, without listing its n!·P columns.

    ``classes[p, i]`` is the rank class of packet i of partition p (P × n), ``weights`` the n
    slot weights.  A mix over the orders of partition p is a nonnegative n × n matrix ``D[p]``
    (``D[p, i, s]``: weight of packet i in slot s) whose rows and columns all sum to its weight
    z_p (Birkhoff–von Neumann); slot s's cumulative class distribution F[s, k] is linear in the
    ``D``s.  The best order of partition q against the mix is an assignment problem with values
    ``c_q[j, s] = w_s (F[s, k_j − 1] + F[s, k_j] − 1)``, and its LP dual (α_q, β_q) bounds it:

        min t  s.t.  Σ_j α_q[j] + Σ_s β_q[s] ≤ t,  α_q[j] + β_q[s] ≥ c_q[j, s]   (every q),
                     D doubly stochastic with sums z, Σ z = 1, D ≥ 0.

    About 36·P + n·K variables (K distinct classes) and a few nonzeros a row.  Returns ``D``
    (P × n × n, summing to 1; t is 0 up to GLOP's tolerance: the game is symmetric)."""
    classes = np.asarray(classes, dtype=np.int64)
    P, n = classes.shape
    w = np.asarray(weights, dtype=np.float64)
    keys, pos = np.unique(classes, return_inverse=True)
    pos = pos.reshape(P, n)
    K = len(keys)
    # variables: x[p, i, s] | z[p] | F[s, k] | alpha[q, j] | beta[q, s] | t
    nx = P * n * n
    z0, f0 = nx, nx + P
    a0 = f0 + n * K
    b0 = a0 + P * n
    t_var = b0 + P * n
    nvar = t_var + 1
    p_, i_, s_ = (a.ravel() for a in np.meshgrid(np.arange(P), np.arange(n), np.arange(n), indexing="ij"))
    xv = (p_ * n + i_) * n + s_
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    lo: list[np.ndarray] = []
    hi: list[np.ndarray] = []

    def block(r: np.ndarray, c: np.ndarray, v: np.ndarray | float) -> None:
        rows.append(r)
        cols.append(c)
        vals.append(np.broadcast_to(np.asarray(v, dtype=np.float64), r.shape))

    base = 0
    # rows of D[p]: Σ_s x[p, i, s] − z_p = 0;  columns: Σ_i x[p, i, s] − z_p = 0
    for r_of in (p_ * n + i_, p_ * n + s_):
        block(base + r_of, xv, 1.0)
        block(base + np.arange(P * n), z0 + np.repeat(np.arange(P), n), -1.0)
        lo.append(np.zeros(P * n))
        hi.append(np.zeros(P * n))
        base += P * n
    block(np.full(P, base), z0 + np.arange(P), 1.0)  # Σ z = 1
    lo.append(np.ones(1))
    hi.append(np.ones(1))
    base += 1
    # F[s, k] − F[s, k − 1] − Σ_{(p, i): class k} x[p, i, s] = 0
    fk = (s_ * K + pos[p_, i_]).astype(np.int64)
    block(base + fk, xv, -1.0)
    block(base + np.arange(n * K), f0 + np.arange(n * K), 1.0)
    k_, s2 = np.arange(n * K) % K, np.arange(n * K) // K
    later = k_ > 0
    block(base + np.arange(n * K)[later], f0 + s2[later] * K + k_[later] - 1, -1.0)
    lo.append(np.zeros(n * K))
    hi.append(np.zeros(n * K))
    base += n * K
    # α_q[j] + β_q[s] − w_s (F[s, k_j − 1] + F[s, k_j]) ≥ −w_s   (q, j, s as p_, i_, s_)
    r = base + np.arange(P * n * n)
    block(r, a0 + p_ * n + i_, 1.0)
    block(r, b0 + p_ * n + s_, 1.0)
    kj = pos[p_, i_]
    block(r, f0 + s_ * K + kj, -w[s_])
    has_lower = kj > 0
    block(r[has_lower], f0 + s_[has_lower] * K + kj[has_lower] - 1, -w[s_[has_lower]])
    lo.append(-w[s_])
    hi.append(np.full(P * n * n, INF))
    base += P * n * n
    # Σ_j α_q[j] + Σ_s β_q[s] − t ≤ 0
    q_ = np.repeat(np.arange(P), n)
    block(base + q_, a0 + np.arange(P * n), 1.0)
    block(base + q_, b0 + np.arange(P * n), 1.0)
    block(base + np.arange(P), np.full(P, t_var), -1.0)
    lo.append(np.full(P, -INF))
    hi.append(np.zeros(P))
    c = np.zeros(nvar)
    c[t_var] = 1.0
    var_lower = np.concatenate([np.zeros(nx + P + n * K), np.full(2 * P * n + 1, -INF)])
    var_upper = np.concatenate([np.ones(nx + P + n * K), np.full(2 * P * n + 1, INF)])
    A = (np.concatenate(rows), np.concatenate(cols), np.concatenate(vals))
    x, _, _ = solve_lp(c, A, np.concatenate(lo), np.concatenate(hi), var_lower=var_lower, var_upper=var_upper,
                       maximize=False, what="slot-order LP", glop_parameters=glop_parameters)
    D = np.clip(x[:nx], 0.0, None).reshape(P, n, n)
    return D / D.sum()
