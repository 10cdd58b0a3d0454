"""CP-SAT's model options and the constants its soundness argument names (``solver.engines.cpsat``)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CpsatOptions", "DEFAULT_OPTIONS", "SCALE", "IMPROVE_EPS", "PRUNE_TOL", "FLOAT_SLACK"]

SCALE = float(2**36)  # K: values are scaled by a power of two, so K·V is exact
IMPROVE_EPS = 1e-10  # the model need only hold arrangements beating the hint by more than this
PRUNE_TOL = 2e-11  # float guard: pairs serving arrangements worth ≥ T + ε − this stay
FLOAT_SLACK = 1e-11  # covers float error of the few sums that convert bounds to real units


@dataclass(frozen=True)
class CpsatOptions:
    """The model's strengthenings (module doc), all on by default; the tests compare them off.

    ``prune``: P1–P4 (off: every pair of a free slot becomes a variable);
    ``pair_level``: P3; ``exchange``: exchange-stability constraints and filters;
    ``symmetry``: slot chains and card exchanges; ``card_symmetry``: card exchanges only;
    ``objective_cut``: the cut ``Σ coef·x ≥ L``; ``local_search``: improve the hint first
    (off in tests that make CP-SAT find the optimum itself); ``linearization_level``:
    CP-SAT's parameter (its default when None).
    """

    prune: bool = True
    pair_level: bool = True
    exchange: bool = True
    symmetry: bool = True
    card_symmetry: bool = True
    objective_cut: bool = True
    local_search: bool = True
    linearization_level: int | None = None


DEFAULT_OPTIONS = CpsatOptions()
"""Every strengthening on: the model ``solve_cpsat`` builds unless told otherwise."""
