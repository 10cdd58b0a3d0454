"""The ranges of every number a request may carry, in one place: the command lines' checks,
the HTTP API's schema and ``SolveRequest.parse`` all read them from here.

    >>> parse_slot("5", 5, "fix")
    5
    >>> parse_slot(" 5 ", 5, "fix")
    Traceback (most recent call last):
      ...
    solver.advisor.limits.LimitError: fix: ' 5 ' is not a slot (1 to 5)
"""

from __future__ import annotations

import math

from quintet.seeds import SEED_MAX
from quintet.text import quote

from ..engines.base import MAX_THREADS

__all__ = [
    "SEED_MAX", "MAX_THREADS", "DEFAULT_EPSILON", "EPSILON_MAX", "TIME_LIMIT_MAX", "EQUILIBRIUM_TIME_LIMIT",
    "MAX_EXPLOITABILITY_MAX", "MAX_POPULATION", "MAX_STYLE_RECORDS", "MAX_SUPPORT_MAX", "LimitError",
    "check_epsilon", "check_time_limit", "check_threads", "check_max_exploitability", "check_max_support",
    "parse_slot",
]

DEFAULT_EPSILON = 0.01  # points: the equilibrium's default target exploitability
EPSILON_MAX = 25.0  # points: more than any arrangement can gain (the weights sum to 25)
TIME_LIMIT_MAX = 7 * 24 * 3600.0  # seconds: a week
EQUILIBRIUM_TIME_LIMIT = 600.0  # seconds: an equilibrium's or safe solve's time limit when none is given
MAX_EXPLOITABILITY_MAX = 50.0  # points: a safe solve's limit (any mix is within 50 of every arrangement)
MAX_SUPPORT_MAX = 1_000  # arrangements in a K-mix (equilibria mix tens to a few hundred: a larger K is the equilibrium)
MAX_POPULATION = 10_000  # arrangements in a request's population
MAX_STYLE_RECORDS = 10_000  # game records in a request's style


class LimitError(ValueError):
    """A number outside its range, or a slot that is not one (one line naming the field)."""


def _finite(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LimitError(f"{what} must be a number, got {quote(value)}")
    number = float(value)
    if not math.isfinite(number):
        raise LimitError(f"{what} must be a finite number, got {value}")
    return number


def check_epsilon(value: object) -> float:
    """The equilibrium's target: 0 (an exact equilibrium) to ``EPSILON_MAX`` points."""
    number = _finite(value, "epsilon")
    if not 0 <= number <= EPSILON_MAX:
        raise LimitError(f"epsilon must be from 0 to {EPSILON_MAX:g} points, got {number:g}")
    return number


def check_time_limit(value: object, what: str = "time limit") -> float:
    """Seconds: more than 0, at most ``TIME_LIMIT_MAX``."""
    number = _finite(value, what)
    if not 0 < number <= TIME_LIMIT_MAX:
        raise LimitError(f"{what} must be more than 0 and at most {TIME_LIMIT_MAX:g} seconds, got {number:g}")
    return number


def check_threads(value: object) -> int:
    """CP-SAT threads: 1 to ``MAX_THREADS``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_THREADS:
        raise LimitError(f"threads must be an integer from 1 to {MAX_THREADS}, got {quote(value)}")
    return value


def check_max_exploitability(value: object) -> float:
    """A safe solve's limit: 0 to ``MAX_EXPLOITABILITY_MAX`` points."""
    number = _finite(value, "max exploitability")
    if not 0 <= number <= MAX_EXPLOITABILITY_MAX:
        raise LimitError(f"max exploitability must be from 0 to {MAX_EXPLOITABILITY_MAX:g} points, got {number:g}")
    return number


def check_max_support(value: object) -> int:
    """A K-mix's size: an integer from 1 to ``MAX_SUPPORT_MAX`` arrangements."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SUPPORT_MAX:
        raise LimitError(f"max support must be an integer from 1 to {MAX_SUPPORT_MAX}, got {quote(value)}")
    return value


def parse_slot(text: object, n_slots: int, what: str) -> int:
    """A slot given as text: exactly ``"1"`` … ``str(n_slots)`` (no spaces, signs, leading zeros
    or other digits)."""
    if isinstance(text, int) and not isinstance(text, bool) and 1 <= text <= n_slots:
        return text
    names = {str(s): s for s in range(1, n_slots + 1)}
    if not isinstance(text, str) or text not in names:
        raise LimitError(f"{what}: {quote(text)} is not a slot (1 to {n_slots})")
    return names[text]
