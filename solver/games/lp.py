"""The linear programs of the game algorithms, built in one place (OR-Tools GLOP).

``solve_lp`` solves ``maximize c·x`` subject to ``lower ≤ A x ≤ upper`` and variable bounds,
and returns the solution with the row duals.  The double oracle's restricted game
(``solve_symmetric_lp``) and the restricted Nash response's program (``solve_rnr_program``)
are both written in that form.
"""

from __future__ import annotations

import numpy as np

__all__ = ["solve_lp", "solve_symmetric_lp", "solve_rnr_program"]

INF = float("inf")


def solve_lp(c: np.ndarray, A: np.ndarray, lower: np.ndarray, upper: np.ndarray, *, var_lower: np.ndarray,
             var_upper: np.ndarray, maximize: bool, what: str) -> tuple[np.ndarray, float, np.ndarray]:
    """Optimize ``c·x`` s.t. ``lower ≤ A x ≤ upper``, ``var_lower ≤ x ≤ var_upper`` (GLOP);
    returns (x, the optimal value, the row duals).  ``RuntimeError`` naming ``what`` if it fails."""
    from ortools.linear_solver import linear_solver_pb2, pywraplp  # here: a best response needs no LP (start-up)

    request = linear_solver_pb2.MPModelRequest()
    request.solver_type = linear_solver_pb2.MPModelRequest.GLOP_LINEAR_PROGRAMMING
    model = request.model
    model.maximize = maximize
    n = len(c)
    for coefficient, lo, hi in zip(np.asarray(c, dtype=np.float64).tolist(), var_lower.tolist(),
                                   var_upper.tolist(), strict=True):
        v = model.variable.add()
        v.lower_bound, v.upper_bound, v.objective_coefficient = lo, hi, coefficient
    for row, lo, hi in zip(np.asarray(A, dtype=np.float64).reshape(-1, n), lower.tolist(), upper.tolist(),
                           strict=True):
        constraint = model.constraint.add()
        constraint.lower_bound, constraint.upper_bound = lo, hi
        constraint.var_index.extend(range(n))
        constraint.coefficient.extend(row.tolist())
    response = linear_solver_pb2.MPSolutionResponse()
    pywraplp.Solver.SolveWithProto(request, response)
    if response.status != linear_solver_pb2.MPSOLVER_OPTIMAL:
        raise RuntimeError(f"{what} failed: status {response.status} {response.status_str}")
    return np.array(response.variable_value), float(response.objective_value), np.array(response.dual_value)


def _mix(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, None)
    return x / x.sum()


def solve_symmetric_lp(A: np.ndarray) -> tuple[np.ndarray, float]:
    """Equilibrium mix of the symmetric zero-sum matrix game ``A``: ``min t`` s.t. ``A x ≤ t``,
    ``Σx = 1``, ``x ≥ 0``; returns (x, t).  For an antisymmetric ``A`` the optimum t is 0 up to
    solver tolerance."""
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    c = np.zeros(n + 1)
    c[n] = 1.0  # minimize t
    rows = np.vstack([np.hstack([A, -np.ones((n, 1))]), np.append(np.ones(n), 0.0)])
    lower = np.append(np.full(n, -INF), 1.0)
    upper = np.append(np.zeros(n), 1.0)
    x, value, _ = solve_lp(c, rows, lower, upper, var_lower=np.append(np.zeros(n), -INF),
                           var_upper=np.append(np.ones(n), INF), maximize=False, what="restricted-game LP")
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
