"""The engine interface: every exact best-response engine behind one call.

    >>> from quintet.game import Deal
    >>> from solver.advisor.advice import best_response_problem
    >>> problem = best_response_problem(Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc"), "uniform")
    >>> result = get_engine("search").solve(problem, EngineOptions())
    >>> result.optimal, round(result.value, 4)
    (True, 24.8669)

An engine takes a ``BestResponseProblem`` (values per rank class and slot, fixed slots),
``EngineOptions``, an optional ``hint`` (a legal arrangement as packet indices in slot
order, to start from) and an optional ``stop`` event (set: return the best found so far with
its proven bound) and returns an ``EngineResult``: packets, exact value, proven bound ≥ value,
``optimal``.  The double oracle, safe exploitation, the advisor and ``--verify`` take an
engine through ``get_engine``; a new engine is a class with ``name`` and ``solve`` given to
``register_engine``; ``engine_names()`` (the command lines' and the HTTP schema's choices) and
``other_engine`` follow from the registry (docs/contributing.md).  This module imports no engine:
the built-in ones are registered by ``solver.engines`` (the package), which every import of it
runs first.

The contract every engine keeps (``tests/test_engines.py`` checks each registered one):

* **defaults** — ``EngineOptions()``: no time limit (``time_limit=None``), one thread, seed 0;
  an engine's own entry point (``solve_search``, ``solve_cpsat``) has the same defaults;
* **hint** — ``None``, or a legal arrangement respecting the fixed slots; the answer is worth
  at least the hint.  A hint is made by the program (the double oracle's pool, an arrangement
  the advisor already checked), never by a client, so a bad one is a bug of the caller:
  ``check_hint`` raises ``HintError`` — a ``RuntimeError``, not a ``ValueError``: a server
  answers it as its own fault (5xx), never as the client's mistake (4xx), and it is never
  silently ignored;
* **stop** — once set, the engine returns its best arrangement so far (legal, never worse
  than the hint) with a proven bound, ``optimal`` only if that bound meets the value;
* **result** — ``value`` is ``problem.value_of(packets)`` exactly, ``bound ≥ value`` is
  proven, ``optimal`` says ``bound − value ≤ VALUE_TOLERANCE``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Protocol

from quintet.faults import Fault, InputError
from quintet.seeds import check_seed
from quintet.text import quote

from ..problem.best_response import BestResponseProblem, EngineResult

__all__ = ["MAX_THREADS", "EngineOptions", "DEFAULT_ENGINE", "Engine", "register_engine", "engine_names", "get_engine",
           "EngineOptionError", "HintError", "check_hint", "arrangement_fault", "solve", "other_engine"]


MAX_THREADS = 8  # CP-SAT threads a request may ask for


class EngineOptionError(InputError):
    """Engine options that do not go together (one line naming the option)."""


class HintError(Fault, RuntimeError):
    """A hint that is not a legal arrangement of its problem: a fault of the program that made it
    (the module doc's contract), so a server answers it with 5xx, never with a client's 4xx."""


def arrangement_fault(problem: BestResponseProblem, packets: tuple[int, ...]) -> str | None:
    """Why ``packets`` is not a legal arrangement of ``problem`` — an exact cover of the live cards
    by packet indices in slot order, the fixed slots kept — in one line; None when it is one."""
    tables = problem.tables
    if len(packets) != problem.n_slots:
        return f"{len(packets)} packets instead of {problem.n_slots}"
    used = 0
    n_packets = len(tables.masks)
    for s, p in enumerate(packets):
        if not 0 <= int(p) < n_packets:
            return f"slot {s + 1}: {p} is not a packet index"
        if problem.fixed[s] >= 0 and int(p) != problem.fixed[s]:
            return f"slot {s + 1} is fixed to packet {problem.fixed[s]}, got {p}"
        m = int(tables.masks[p])
        if m & used:
            return "packets overlap"
        used |= m
    if used != int(tables.deal.live):
        return "packets do not cover the live cards"
    return None


def check_hint(problem: BestResponseProblem, hint: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """``hint`` as a tuple of ints, or None; ``HintError`` if it is not a legal arrangement."""
    if hint is None:
        return None
    packets = tuple(int(p) for p in hint)
    fault = arrangement_fault(problem, packets)
    if fault is not None:
        raise HintError(f"engine hint: {fault}")
    return packets


@dataclass(frozen=True)
class EngineOptions:
    """How an engine runs: ``engine`` (``engine_names()``); ``threads`` — CP-SAT's worker threads
    (1..``MAX_THREADS``; the search is single-threaded); ``time_limit`` — seconds for one solve
    (None: none); ``seed`` — CP-SAT's random seed (0..``quintet.seeds.SEED_MAX``)."""

    engine: str = "auto"
    threads: int = 1
    time_limit: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.engine not in engine_names():
            raise EngineOptionError(f"unknown engine {quote(self.engine)} (use {', '.join(engine_names())})")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or \
                not 1 <= self.threads <= MAX_THREADS:
            raise EngineOptionError(f"threads must be an integer from 1 to {MAX_THREADS}, got {quote(self.threads)}")
        if self.time_limit is not None and not (self.time_limit > 0 and self.time_limit < float("inf")):
            raise EngineOptionError(f"time limit must be a positive number of seconds, got {quote(self.time_limit)}")
        check_seed(self.seed)

    @property
    def resolved(self) -> str:
        """The engine that runs (``auto`` → ``search``)."""
        return "search" if self.engine == "auto" else self.engine

    def with_time_limit(self, time_limit: float | None) -> EngineOptions:
        """These options with another time limit (seconds; one already spent becomes 1 ms)."""
        return replace(self, time_limit=None if time_limit is None else max(float(time_limit), 1e-3))


class Engine(Protocol):
    name: str

    def solve(self, problem: BestResponseProblem, options: EngineOptions, hint: tuple[int, ...] | None = None,
              stop: threading.Event | None = None) -> EngineResult:
        """The best response to ``problem``, proven (``optimal``) or the best found with its bound."""
        ...


_REGISTRY: dict[str, Engine] = {}


def register_engine(engine: Engine) -> None:
    """Add an exact engine (a class with ``name`` and ``solve`` keeping the module doc's contract):
    ``get_engine``, ``engine_names()`` and so the command lines and the HTTP schema take it.
    ``ValueError`` for a name taken (or ``auto``)."""
    if engine.name in _REGISTRY or engine.name == "auto":
        raise ValueError(f"cannot register the engine {quote(engine.name)}: the name is taken")
    _REGISTRY[engine.name] = engine


def engine_names() -> tuple[str, ...]:
    """``auto`` (``search``, the faster proven engine: ``benchmarks/RESULTS.md``), then every
    registered engine."""
    return ("auto", *_REGISTRY)


DEFAULT_ENGINE = EngineOptions()
"""The search, one thread, no time limit, seed 0."""


def other_engine(name: str) -> str:
    """The exact engine that rechecks an answer of engine ``name``: another registered one."""
    resolved = "search" if name == "auto" else name
    return next(other for other in _REGISTRY if other != resolved)


def solve(problem: BestResponseProblem, options: EngineOptions = DEFAULT_ENGINE, hint: tuple[int, ...] | None = None,
          stop: threading.Event | None = None) -> EngineResult:
    """The best response to ``problem`` by the engine ``options`` names."""
    return get_engine(options).solve(problem, options, hint, stop)


def get_engine(name: str | EngineOptions = "auto") -> Engine:
    """The engine called ``name`` (or the one ``EngineOptions`` name)."""
    key = name.resolved if isinstance(name, EngineOptions) else ("search" if name == "auto" else name)
    try:
        return _REGISTRY[key]
    except KeyError:
        raise EngineOptionError(f"unknown engine {quote(key)} (use {', '.join(engine_names())})") from None
