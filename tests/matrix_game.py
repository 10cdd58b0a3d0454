"""A small game behind the double oracle's interface, for the game solvers' tests."""

from __future__ import annotations

import numpy as np

from solver.games.double_oracle import Response


class MatrixGame:
    """A symmetric zero-sum matrix game (antisymmetric ``A``), strategies 0..n-1, with brute-force oracles;
    ``orbits`` groups strategies (default: each its own); ``responses`` counts the best responses asked."""

    def __init__(self, A: np.ndarray, orbits: list[list[int]] | None = None) -> None:
        self.A = np.asarray(A, dtype=float)
        assert np.allclose(self.A, -self.A.T)
        self.orbits = orbits
        self.responses = 0

    def payoffs(self, rows, cols):  # type: ignore[no-untyped-def]
        return self.A[np.ix_(list(rows), list(cols))]

    def payoffs_against(self, rows, support, probabilities):  # type: ignore[no-untyped-def]
        return self.payoffs(rows, support) @ np.asarray(probabilities)

    def best_response(self, support, probabilities, *, time_limit, hint, stop_event):  # type: ignore[no-untyped-def]
        self.responses += 1
        values = self.A[:, list(support)] @ np.asarray(probabilities)
        i = int(np.argmax(values))
        return Response(i, float(values[i]), float(values[i]), True)

    def orbit(self, strategy):  # type: ignore[no-untyped-def]
        if self.orbits is None:
            return [strategy]
        return next(o for o in self.orbits if strategy in o)

    def exploitability(self, support, probabilities) -> float:  # type: ignore[no-untyped-def]
        return float((self.A[:, list(support)] @ np.asarray(probabilities)).max())

    def pricer(self, c: np.ndarray):  # type: ignore[no-untyped-def]
        def price(strategies, weights):  # type: ignore[no-untyped-def]
            values = c + (self.A[:, list(strategies)] @ np.asarray(weights) if len(strategies) else 0.0)
            i = int(np.argmax(values))
            return Response(i, float(values[i]), float(values[i]), True)
        return price
