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

__all__ = ["solve_lp", "solve_milp", "MilpSolution", "solve_symmetric_lp", "solve_rnr_program", "solve_minmax_lp",
           "solve_sparse_milp"]

INF = float("inf")


def _request(c: np.ndarray, A: np.ndarray, lower: np.ndarray, upper: np.ndarray, var_lower: np.ndarray,
             var_upper: np.ndarray, maximize: bool, integer: np.ndarray | None) -> linear_solver_pb2.MPModelRequest:
    """The model: every row's coefficients as given for a linear program (its zeros too: GLOP
    then sees what it always saw), only the nonzeros for a mixed-integer one (big and sparse)."""
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


def solve_lp(c: np.ndarray, A: np.ndarray, lower: np.ndarray, upper: np.ndarray, *, var_lower: np.ndarray,
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
