"""Every default and every range of the numbers a front-end takes, defined once.

The command lines (``quintet-solve``, ``quintet-play``, ``quintet-tournament``,
``quintet-batch``), the HTTP API's schema, ``SolveRequest.parse`` and the Python API check a
value through the same functions (``check_epsilon``, ``check_time_limit`` …), so a value one
front-end refuses, every front-end refuses, with the same one line:

    >>> check_epsilon(0)
    0.0
    >>> check_epsilon(30)
    Traceback (most recent call last):
      ...
    solver.advisor.limits.LimitError: epsilon must be from 0 to 25 points, got 30
    >>> check_time_limit(0)
    Traceback (most recent call last):
      ...
    solver.advisor.limits.LimitError: time limit must be more than 0 and at most 604800 seconds, got 0
    >>> parse_slot(" 5 ", 5, "fix")
    Traceback (most recent call last):
      ...
    solver.advisor.limits.LimitError: fix: ' 5 ' is not a slot (1 to 5)

The ranges (``RANGES``, each a ``Range``): ``epsilon`` 0 to ``EPSILON_MAX`` points; a time limit
more than 0 and at most ``TIME_LIMIT_MAX`` seconds; CP-SAT's threads 1 to ``MAX_THREADS``; a
safe solve's max exploitability 0 to ``MAX_EXPLOITABILITY_MAX`` points; a K-mix's K 1 to
``MAX_SUPPORT_MAX``; the plans of a ``top`` answer 1 to ``TOP_MAX``; a match 1 to ``MAX_GAMES``
games; the records of one statistics request 0 to ``MAX_RECORDS``, a trend's window 1 to
``MAX_WINDOW``; a seed 0 to ``SEED_MAX``, checked by ``quintet.seeds.check_seed`` (the game's,
which every front-end shares).  ``to_model()`` is all of them as JSON (``GET /api/limits``: the
page reads its ranges and defaults there).

The defaults differ where the programs' purposes do, each under its own name
(``DEFAULTS``): the solver answers to ε ``SOLVE_EPSILON`` = 0.01 points within
``SOLVE_TIME_LIMIT`` = 600 s; a game against the computer (``quintet-play``, the page's
tables) wants a quicker ``PLAY_EPSILON`` = 0.05 within ``PLAY_TIME_LIMIT`` = 120 s; the
tournament and the batch have theirs (``TOURNAMENT_*``, ``BATCH_*``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from quintet.faults import InputError
from quintet.rules import RULE_SETS
from quintet.seeds import SEED_MAX
from quintet.text import quote

from ..engines.base import MAX_THREADS

if TYPE_CHECKING:
    from .schema import LimitsOut

__all__ = [
    # ranges
    "SEED_MAX", "MAX_THREADS", "EPSILON_MAX", "TIME_LIMIT_MAX", "MAX_EXPLOITABILITY_MAX", "MAX_SUPPORT_MAX", "TOP_MAX",
    "MAX_POPULATION", "MAX_STYLE_RECORDS", "MAX_GAMES", "MAX_RECORDS", "MAX_WINDOW", "RATING_MIN", "RATING_MAX",
    # defaults
    "SOLVE_EPSILON", "SOLVE_TIME_LIMIT", "VERIFY_TIME_LIMIT", "PLAY_EPSILON", "PLAY_TIME_LIMIT",
    "TABLE_SEARCH_TIME_LIMIT", "TOURNAMENT_EPSILON", "TOURNAMENT_TIME_LIMIT", "BATCH_EPSILON", "BATCH_TIME_LIMIT",
    "SERVE_QUICK_TIME_LIMIT", "SERVE_MAX_TIME_LIMIT", "START_RATING",
    # the checks
    "LimitError", "Range", "Default", "RANGES", "DEFAULTS", "check_epsilon", "check_time_limit",
    "check_max_exploitability", "check_max_support", "check_games", "check_window", "parse_slot", "to_model",
]

# ---------------------------------------------------------------------------------- ranges

EPSILON_MAX = float(max(sum(rules.weights) for rules in RULE_SETS.values()))
"""Points: the largest target exploitability — the most points any rule set offers
(``quintet.rules.RULE_SETS``: 25 = 3 + 4 + 5 + 6 + 7 in all of them).  No arrangement gains more
than all of its rule set's slot points against any mix, so a larger ε asks nothing: the bound holds
for every rule set, each below its own total.  Read once, when this module is imported (a rule set
is registered before: docs/contributing.md)."""
TIME_LIMIT_MAX = 7 * 24 * 3600.0
"""Seconds: the longest time limit of any solve or recheck (a week)."""
MAX_EXPLOITABILITY_MAX = 50.0
"""Points: the largest limit of a safe solve (any mix is within 50 of every arrangement)."""
MAX_SUPPORT_MAX = 1_000
"""Arrangements in a K-mix (equilibria mix tens to a few hundred: a larger K is the equilibrium)."""
TOP_MAX = 10
"""Plans in a ``top`` answer: the best arrangement of each of the N best plans (one exact search each)."""
MAX_POPULATION = 10_000
"""Arrangements in a request's population."""
MAX_STYLE_RECORDS = 10_000
"""Game records in a request's style."""
MAX_GAMES = 100
"""Games in one match (``quintet-play --games``, a table of the page)."""
MAX_RECORDS = 500
"""Game records in one statistics request (``POST /api/stats``: about 0.6 MB of JSON)."""
MAX_WINDOW = 1_000
"""Games (or hands) per block of a statistics' trend."""

# -------------------------------------------------------------------------------- defaults

SOLVE_EPSILON = 0.01
"""Points: the equilibrium's target exploitability when none is given — ``quintet-solve``,
``POST /api/solve`` and the Python API (``equilibrium``, ``solve_equilibrium``, K-mixes)."""
SOLVE_TIME_LIMIT = 600.0
"""Seconds: an equilibrium's, a safe mix's or a K-mix's time limit when none is given (the same
front-ends; a best response has none)."""
VERIFY_TIME_LIMIT = 600.0
"""Seconds: an independent recheck's time (``quintet-solve --verify``)."""
PLAY_EPSILON = 0.05
"""Points: the one target of play — the deal's mix for play when it is first solved
(``played_equilibrium``: ``quintet-play``, the page's tables, ``quintet-play review`` and ``POST
/api/review``; later games keep that mix) — a quicker target than the solver's, the game waits
for it."""
PLAY_TIME_LIMIT = 120.0
"""Seconds: ``quintet-play``'s limit on every solve (the computer's, a hint, a grade) and the
tables' equilibrium."""
TABLE_SEARCH_TIME_LIMIT = 30.0
"""Seconds: each best response, hint, grade or regret search of a table on the page."""
TOURNAMENT_EPSILON = 0.05
"""Points: ``quintet-tournament``'s equilibrium target."""
TOURNAMENT_TIME_LIMIT = 120.0
"""Seconds: ``quintet-tournament``'s limit per deal on the equilibrium and each best response."""
BATCH_EPSILON = 0.05
"""Points: ``quintet-batch``'s target per deal (the book is solved to it)."""
BATCH_TIME_LIMIT = 600.0
"""Seconds: ``quintet-batch``'s limit per deal."""
START_RATING = 1500.0
"""Elo: a new player's puzzle rating (``quintet-play puzzle``, the page; ``solver.play.puzzle_set``)."""
RATING_MIN = 100.0
"""Elo: the lowest a player's puzzle rating goes."""
RATING_MAX = 3000.0
"""Elo: the highest a player's puzzle rating goes."""
SERVE_QUICK_TIME_LIMIT = 20.0
"""Seconds: ``quintet-serve``'s limit on an answer its request waits for (a best response, a
completion, a grade) when the request gives none (``--quick-time-limit``)."""
SERVE_MAX_TIME_LIMIT = 600.0
"""Seconds: ``quintet-serve``'s cap on any one solve and recheck (``--max-time-limit``): a request
asking for more is refused, an equilibrium, safe mix or K-mix asking none gets it."""


class LimitError(InputError):
    """A number outside its range, or a slot that is not one (one line naming the field)."""


@dataclass(frozen=True)
class Range:
    """The range of one number: ``low`` to ``high`` in ``unit`` (``low`` itself excluded when
    ``low_open``); ``integer``: whole numbers only.  ``name`` is how errors call it.

        >>> RANGES["max_support"]
        Range(name='max support', low=1, high=1000, unit='', integer=True, low_open=False)
        >>> RANGES["max_support"].describe()
        'an integer from 1 to 1000'
    """

    name: str
    low: float
    high: float
    unit: str = ""
    integer: bool = False
    low_open: bool = False

    def describe(self) -> str:
        """The range in words, as the errors say it."""
        unit = f" {self.unit}" if self.unit else ""
        low, high = _number(self.low), _number(self.high)
        if self.integer:
            return f"an integer from {low} to {high}{unit}"
        if self.low_open:
            return f"more than {low} and at most {high}{unit}"
        return f"from {low} to {high}{unit}"

    def contains(self, number: float) -> bool:
        above = number > self.low if self.low_open else number >= self.low
        return above and number <= self.high

    def check(self, value: object, what: str | None = None) -> float:
        """``value`` if it is a number in the range (an ``int`` stays one), else ``LimitError``
        naming ``what`` (default ``name``)."""
        what = what or self.name
        if self.integer:
            if isinstance(value, bool) or not isinstance(value, int) or not self.contains(value):
                raise LimitError(f"{what} must be {self.describe()}, got {quote(value)}")
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise LimitError(f"{what} must be a number, got {quote(value)}")
        number = float(value)
        if not math.isfinite(number):
            raise LimitError(f"{what} must be a finite number, got {value}")
        if not self.contains(number):
            raise LimitError(f"{what} must be {self.describe()}, got {number:g}")
        return number

    def bounds(self) -> dict[str, float]:
        """The range as JSON Schema's keywords, named as pydantic's ``Field`` takes them
        (``ge``/``gt``, ``le``): the HTTP schema's ranges are these."""
        return {"gt" if self.low_open else "ge": self.low, "le": self.high}


RANGES: dict[str, Range] = {
    "epsilon": Range("epsilon", 0, EPSILON_MAX, "points"),
    "time_limit": Range("time limit", 0, TIME_LIMIT_MAX, "seconds", low_open=True),
    "threads": Range("threads", 1, MAX_THREADS, integer=True),
    "max_exploitability": Range("max exploitability", 0, MAX_EXPLOITABILITY_MAX, "points"),
    "max_support": Range("max support", 1, MAX_SUPPORT_MAX, integer=True),
    "top": Range("top", 1, TOP_MAX, integer=True),
    "games": Range("games", 1, MAX_GAMES, integer=True),
    "seed": Range("seed", 0, SEED_MAX, integer=True),
    "records": Range("records", 0, MAX_RECORDS, integer=True),
    "window": Range("window", 1, MAX_WINDOW, integer=True),
    "rating": Range("rating", RATING_MIN, RATING_MAX, "Elo"),
}
"""Every range by its field name (the JSON's and the Python API's); a seed is checked by the
game's ``quintet.seeds.check_seed`` (the same range and words)."""


def _number(x: float) -> str:
    """``25``, ``604800``, ``0.5``: a bound as the errors and the help print it."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


@dataclass(frozen=True)
class Default:
    """A default: ``value`` in ``unit``, for the front-ends ``used_by``, of the field ``field``
    (checked by ``RANGES[field]``)."""

    field: str
    value: float
    unit: str
    used_by: str


DEFAULTS: dict[str, Default] = {
    "SOLVE_EPSILON": Default("epsilon", SOLVE_EPSILON, "points", "quintet-solve, POST /api/solve, the Python API"),
    "SOLVE_TIME_LIMIT": Default("time_limit", SOLVE_TIME_LIMIT, "seconds",
                                "an equilibrium, safe mix or K-mix of quintet-solve, POST /api/solve, the Python API"),
    "VERIFY_TIME_LIMIT": Default("time_limit", VERIFY_TIME_LIMIT, "seconds", "quintet-solve --verify, verify"),
    "PLAY_EPSILON": Default("epsilon", PLAY_EPSILON, "points",
                            "quintet-play, the page's tables, the review: a deal's mix for play, first solved"),
    "PLAY_TIME_LIMIT": Default("time_limit", PLAY_TIME_LIMIT, "seconds",
                               "quintet-play's solves, the tables' equilibrium"),
    "TABLE_SEARCH_TIME_LIMIT": Default("time_limit", TABLE_SEARCH_TIME_LIMIT, "seconds",
                                       "the tables' hints, grades and regrets"),
    "TOURNAMENT_EPSILON": Default("epsilon", TOURNAMENT_EPSILON, "points", "quintet-tournament"),
    "TOURNAMENT_TIME_LIMIT": Default("time_limit", TOURNAMENT_TIME_LIMIT, "seconds", "quintet-tournament, per deal"),
    "BATCH_EPSILON": Default("epsilon", BATCH_EPSILON, "points", "quintet-batch, the book estimate"),
    "BATCH_TIME_LIMIT": Default("time_limit", BATCH_TIME_LIMIT, "seconds", "quintet-batch, per deal"),
    "START_RATING": Default("rating", START_RATING, "Elo", "a new player's puzzle rating: quintet-play puzzle, "
                            "the page's puzzles"),
    "SERVE_QUICK_TIME_LIMIT": Default("time_limit", SERVE_QUICK_TIME_LIMIT, "seconds",
                                      "quintet-serve: a best response, completion or grade given none"),
    "SERVE_MAX_TIME_LIMIT": Default("time_limit", SERVE_MAX_TIME_LIMIT, "seconds",
                                    "quintet-serve: the cap on any one solve and recheck"),
}
"""Every default by its constant's name; each is in its field's range (a test checks it)."""


def check_epsilon(value: object) -> float:
    """The equilibrium's target: 0 (an exact equilibrium) to ``EPSILON_MAX`` points."""
    return RANGES["epsilon"].check(value)


def check_time_limit(value: object, what: str = "time limit") -> float:
    """Seconds: more than 0, at most ``TIME_LIMIT_MAX``."""
    return RANGES["time_limit"].check(value, what)


def check_max_exploitability(value: object) -> float:
    """A safe solve's limit: 0 to ``MAX_EXPLOITABILITY_MAX`` points."""
    return RANGES["max_exploitability"].check(value)


def check_max_support(value: object) -> int:
    """A K-mix's size: an integer from 1 to ``MAX_SUPPORT_MAX`` arrangements."""
    return int(RANGES["max_support"].check(value))


def check_window(value: object) -> int:
    """A statistics trend's window: games (or hands) per block."""
    return int(RANGES["window"].check(value))


def check_games(value: object) -> int:
    """A match's games: an integer from 1 to ``MAX_GAMES``."""
    return int(RANGES["games"].check(value))


def to_model() -> LimitsOut:
    """Every range and default as JSON (``GET /api/limits``)."""
    from .schema import DefaultOut, LimitsOut, RangeOut
    return LimitsOut(
        ranges={name: RangeOut(**asdict(r), text=r.describe()) for name, r in RANGES.items()},
        defaults={name: DefaultOut(**asdict(d)) for name, d in DEFAULTS.items()})


def parse_slot(text: object, n_slots: int, what: str) -> int:
    """A slot given as text: exactly ``"1"`` … ``str(n_slots)`` (no spaces, signs, leading zeros
    or other digits)."""
    if isinstance(text, int) and not isinstance(text, bool) and 1 <= text <= n_slots:
        return text
    names = {str(s): s for s in range(1, n_slots + 1)}
    if not isinstance(text, str) or text not in names:
        raise LimitError(f"{what}: {quote(text)} is not a slot (1 to {n_slots})")
    return names[text]
