"""One solve request: parsed and checked once, then solved and answered.

``SolveRequest.parse`` is the one door of ``quintet-solve``, the HTTP API's ``POST
/api/solve`` and the Python API's ``solve_request``: it reads the raw values (text, numbers),
checks every one against ``solver.advisor.limits`` and against the others, and holds them
typed — the opponent as an ``OpponentSpec``, the engine as ``EngineOptions``, the fixed
packets as masks, the arrangement to grade as an ``Arrangement``.  An option the answer would
not use is refused in one line, never dropped.

    >>> from solver.advisor.request import SolveRequest, solve_request
    >>> request = SolveRequest.parse("8h 7h 9d Ts 7s Qc Jc", opponent="uniform")
    >>> answer = solve_request(request)
    >>> round(answer.to_dict()["expected_margin"], 4)
    24.8669
    >>> SolveRequest.parse("8h 7h 9d Ts 7s Qc Jc", opponent="uniform", epsilon=0.1)
    Traceback (most recent call last):
      ...
    solver.advisor.request.RequestError: epsilon applies to the equilibrium; the opponent 'uniform' needs none

The answer is a best response (``Solution``), a grade (``Grade``, with ``grade``), a
completion (``Solution``, with ``fix``), the certified equilibrium (``EquilibriumResult``,
for the opponent ``equilibrium``), a safe exploitation (``SafeResponse``, with
``max_exploitability``) or the least exploitable mix of at most K arrangements found
(``SparseEquilibrium``, with ``max_support``); ``to_model`` is its response model
(``solver.advisor.schema``) and ``to_dict`` that model's JSON, what ``quintet-solve --json`` prints.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quintet.cards import CardError
from quintet.faults import InputError
from quintet.game import Arrangement, ArrangementError, Deal
from quintet.jsonable import Jsonable
from quintet.rules import CLASSIC, Rules
from quintet.text import quote

from ..engines.base import MAX_THREADS, EngineOptions, engine_names
from ..games.double_oracle import IterationRecord
from ..games.sparse_mix import SparseRecord
from ..problem.best_response import OBJECTIVES
from ..problem.opponent_spec import OpponentSpec, check_usable, opponent_help
from ..problem.opponents import ArrangementMix, OpponentModel, population_from_json
from ..problem.style import StyleModel, style_from_records
from ..storage.store import SolutionStore
from .advice import Grade, Solution, complete, fixed_packets, grade
from .equilibrium import EquilibriumResult, solve_equilibrium
from .limits import (
    MAX_POPULATION,
    MAX_STYLE_RECORDS,
    MAX_SUPPORT_MAX,
    RANGES,
    SEED_MAX,
    SOLVE_EPSILON,
    SOLVE_TIME_LIMIT,
    TOP_MAX,
    parse_slot,
)
from .safe import SafeResponse, safe_response
from .sparse import SparseEquilibrium, sparse_equilibrium
from .verify import Verification, verify_equilibrium, verify_mix, verify_solution

if TYPE_CHECKING:
    from .schema import SolveAnswerOut

__all__ = ["RequestError", "RequestField", "FIELDS", "SolveRequest", "SolveAnswer", "solve_request",
           "parse_fix_options"]


class RequestError(InputError):
    """A request whose values cannot be used, or cannot go together (one line)."""


def parse_fix_options(texts: Iterable[str]) -> dict[str, str]:
    """``SLOT=PACKET`` texts (``quintet-solve --fix``) → slot text → packet text; the slots are
    checked by ``SolveRequest.parse`` like every other front-end's."""
    fix: dict[str, str] = {}
    for text in texts:
        slot, sep, packet = text.partition("=")
        if not sep:
            raise RequestError(f"fix expects SLOT=PACKET, e.g. \"5=Ah Kh Qh Jh Th\", got {quote(text)}")
        if slot in fix:
            raise RequestError(f"fix gives slot {quote(slot)} twice")
        fix[slot] = packet
    return fix


@dataclass(frozen=True)
class RequestField:
    """One field of a solve request.  ``kind`` is how its value is written: ``cards``, ``rules``,
    ``text``, ``choice`` (one of ``choices``), ``number`` or ``integer`` (in ``RANGES[range]``,
    seconds, points or a count), ``fix`` (slot → packet), ``arrangement``, ``population`` or
    ``style`` (JSON data: the HTTP and Python APIs', a file names them on the command line);
    ``default`` is what a value left out means (None: its own default, said in ``help``)."""

    name: str
    kind: str
    help: str | Callable[[], str]  # a callable: words read from a registry when asked
    metavar: str = ""
    choices: tuple[str, ...] | Callable[[], Sequence[str]] = ()  # a callable: a registry's names
    range: str = ""
    default: str | None = None

    def check(self, value: object) -> Any:
        """A choice or a number given (not None), checked: ``RequestError``/``LimitError`` in one line."""
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.names():
                raise RequestError(f"unknown {self.name} {quote(value)} (use {', '.join(self.names())})")
            return value
        return RANGES[self.range].check(value, self.name.replace("_", " "))

    def names(self) -> tuple[str, ...]:
        """A choice's names, as registered now."""
        return tuple(self.choices() if callable(self.choices) else self.choices)

    def words(self) -> str:
        """The help text, as the registries read now."""
        return self.help() if callable(self.help) else self.help


FIELDS: tuple[RequestField, ...] = (
    RequestField("exposed", "cards", "the exposed cards (Ah, Td, 10d, 7♠ …): 7 in Quintet; with a draw rule set the "
                 "deck less the 25 live cards (11 of draw36)", "EXPOSED"),
    RequestField("opponent", "text",
                 lambda: f"the opponent model (default equilibrium): {opponent_help()}; over HTTP no file: population "
                 "and style take the fields of those names",
                 "MODEL", default="equilibrium"),
    RequestField("objective", "choice", "a best response, completion or grade: margin, my points − theirs (default), "
                 "or points, my points", choices=OBJECTIVES),
    RequestField("engine", "choice", "the exact engine: auto (default: search, the faster proven engine) or another "
                 "registered one", choices=engine_names),
    RequestField("epsilon", "number", "equilibrium: stop once the certified exploitability is at most this (points; "
                 f"default {SOLVE_EPSILON:g}; 0: an exact equilibrium, proven to float tolerance 1e-9)", "POINTS",
                 range="epsilon"),
    RequestField("time_limit", "number", "seconds: stop and return the best found with its bound (default: none for a "
                 f"best response, {SOLVE_TIME_LIMIT:g} for an equilibrium, a safe mix or a K-mix)", "SECONDS",
                 range="time_limit"),
    RequestField("threads", "integer", f"CP-SAT's threads, 1 to {MAX_THREADS} (default 1; with the engine cpsat)", "N",
                 range="threads"),
    RequestField("seed", "integer", f"random seed, 0 to {SEED_MAX} (default 0): the arrangement drawn from an "
                 "equilibrium, a safe mix or a K-mix (the die that picks one), and CP-SAT's seed", "N", range="seed"),
    RequestField("fix", "fix", "fix a packet to a slot (1 to 5) and complete the rest: {\"5\": \"Ah Kh Qh Jh Th\"}, "
                 "on the command line --fix \"5=Ah Kh Qh Jh Th\" (repeatable)", "SLOT=PACKET"),
    RequestField("grade", "arrangement", "grade this arrangement (packets separated by '|' or '/'): value, optimum, "
                 "regret, best two-card swap", "ARRANGEMENT"),
    RequestField("population", "population", "observed arrangements (optionally weighted): the opponent 'population'"),
    RequestField("style", "style", "game records (objects with 'exposed' and 'player', as quintet-play --record "
                 "writes them): the opponent 'style'"),
    RequestField("rules", "rules", "the rule set (default classic)"),
    RequestField("max_exploitability", "number", "safe exploitation: the mix that does best against the opponent "
                 "model among those no arrangement beats by more than this (points; 0: the best equilibrium against "
                 "the model)", "POINTS", range="max_exploitability"),
    RequestField("max_support", "integer", f"K, 1 to {MAX_SUPPORT_MAX}: the least exploitable mix of at most K "
                 "arrangements found (1: the most robust single arrangement), its exploitability certified, beside "
                 "the full equilibrium's (the opponent equilibrium alone)", "K", range="max_support"),
    RequestField("top", "integer", f"N, 1 to {TOP_MAX} (default 1): the best arrangements of the N best plans (a plan: "
                 "the hand category of each slot), each the proven best among the arrangements whose plan is none of "
                 "those listed before it, with its value (a best response, a completion or a grade; the search engine)",
                 "N", range="top"),
    RequestField("verify", "number", "seconds for an independent recheck of the answer by the other exact engine: "
                 "a proven optimum, or the equilibrium's exploitability (CP-SAT's best response to the mix); "
                 "quintet-solve --verify (its seconds: --verify-time-limit) exits with status 1 if refuted", "SECONDS",
                 range="time_limit"),
)
"""Every field of a solve request, declared once: ``quintet-solve``'s options, the HTTP model
``SolveIn`` (``solver.apps.serve.models``) and ``SolveRequest.parse``'s keywords are built from it."""


@dataclass(frozen=True)
class SolveRequest:
    """What to solve, checked (build it with ``parse``):

    * ``opponent`` — the model (``OpponentSpec``; ``equilibrium`` alone: the certified
      equilibrium itself is the answer);
    * ``objective`` — ``margin`` or ``points`` (a best response, completion or grade);
    * ``engine`` — the exact engine and its options (``EngineOptions``: threads, the time limit
      in seconds — None: none for a best response, ``SOLVE_TIME_LIMIT`` for an
      equilibrium —, the seed of CP-SAT and of the arrangement drawn from a mix);
    * ``epsilon`` — the equilibrium's target certified exploitability (points);
    * ``fixed`` — slot (1-based) → packet mask: complete a partial arrangement; ``grade`` — an
      arrangement to grade; at most one of the two;
    * ``population``, ``style`` — the models of the terms ``population`` and ``style`` that
      name no file; ``files`` — may terms name files (the command line) or not (a server);
    * ``verify`` — seconds for an independent recheck by the other exact engine, None for none;
    * ``max_exploitability`` — safe exploitation (``solver.advisor.safe``), points;
    * ``max_support`` — K: the least exploitable mix of at most K arrangements found
      (``solver.advisor.sparse``), for the opponent ``equilibrium`` alone;
    * ``top`` — N: the best arrangements of the N best plans (``solver.advisor.advice.other_plans``),
      for a best response, a completion or a grade.
    """

    deal: Deal
    opponent: OpponentSpec = field(default_factory=lambda: OpponentSpec.parse("equilibrium"))
    objective: str = "margin"
    engine: EngineOptions = EngineOptions()
    epsilon: float = SOLVE_EPSILON
    fixed: Mapping[int, int] = field(default_factory=dict)
    grade: Arrangement | None = None
    population: ArrangementMix | None = None
    style: StyleModel | None = None
    files: bool = True
    verify: float | None = None
    max_exploitability: float | None = None
    max_support: int | None = None
    top: int = 1

    @classmethod
    def parse(cls, exposed: str | Iterable[str], rules: Rules = CLASSIC, *, files: bool = True,
              **given: Any) -> SolveRequest:
        """A checked request from the raw values of ``FIELDS`` (None or left out: the default
        applies); ``files``: may the opponent name files (the command line) or not (a server).

        ``fix`` maps slot texts (exactly ``"1"`` … ``"5"``) to packet texts; ``population`` is
        JSON data of arrangements (``solver.problem.opponents.population_from_json``);
        ``style`` a list of game records (objects with ``exposed`` and ``player``).  Raises
        ``InputError`` subclasses with one line naming the problem.
        """
        unknown = sorted(given.keys() - {f.name for f in FIELDS})
        if unknown:
            raise TypeError(f"SolveRequest.parse() got an unexpected keyword argument {unknown[0]!r}")
        deal = Deal.from_exposed(exposed, rules)
        opponent, fix, grade, population, style = (given.get(k) for k in ("opponent", "fix", "grade", "population",
                                                                           "style"))
        spec = OpponentSpec.parse("equilibrium" if opponent is None else opponent, files=files)
        c = {f.name: None if given.get(f.name) is None else f.check(given[f.name])
             for f in FIELDS if f.kind in ("choice", "number", "integer")}
        request = cls(
            deal,
            opponent=spec,
            objective=c["objective"] or "margin",
            engine=EngineOptions(engine=c["engine"] or "auto", threads=c["threads"] or 1, time_limit=c["time_limit"],
                                 seed=c["seed"] or 0),
            epsilon=SOLVE_EPSILON if c["epsilon"] is None else c["epsilon"],
            fixed=fixed_packets(deal, {parse_slot(key, rules.n_slots, "fix"): packet
                                       for key, packet in (fix or {}).items()}),
            grade=None if grade is None else _arrangement(grade, deal),
            population=None if population is None else population_from_json(population, deal,
                                                                              limit=MAX_POPULATION),
            style=None if style is None else style_from_records(style, rules, limit=MAX_STYLE_RECORDS),
            files=files, verify=c["verify"], max_exploitability=c["max_exploitability"], max_support=c["max_support"],
            top=c["top"] or 1,
        )
        request._check_combination(objective=given.get("objective"), epsilon=given.get("epsilon"),
                                   seed=given.get("seed"))
        return request

    # ------------------------------------------------------------------ what the answer is

    @property
    def wants_equilibrium(self) -> bool:
        """Whether the answer needs the deal's equilibrium (alone or in a mixture)."""
        return self.opponent.needs_equilibrium

    @property
    def is_equilibrium(self) -> bool:
        """Whether the answer is the equilibrium itself (its mix and certificate)."""
        return (self.opponent.is_equilibrium and self.grade is None and not self.fixed
                and self.max_exploitability is None and self.max_support is None)

    @property
    def samples_a_mix(self) -> bool:
        """Whether the answer draws an arrangement from a mix (the equilibrium, a safe mix, a K-mix)."""
        return self.is_equilibrium or self.max_exploitability is not None or self.max_support is not None

    @property
    def time_limit(self) -> float | None:
        return self.engine.time_limit

    @property
    def long_time_limit(self) -> float:
        """The time limit of an equilibrium, a safe solve or a K-mix (``SOLVE_TIME_LIMIT`` when none)."""
        return SOLVE_TIME_LIMIT if self.engine.time_limit is None else self.engine.time_limit

    def opponent_model(self, equilibrium: OpponentModel | None) -> OpponentModel:
        """The opponent model, given the equilibrium's (None when it is not needed)."""
        return self.opponent.resolve(self.deal, equilibrium=equilibrium, population=self.population,
                                     style=self.style, files=self.files)

    def _check_combination(self, *, objective: str | None, epsilon: float | None, seed: int | None) -> None:
        """Refuse options that cannot go together or that the answer would not use."""
        if self.grade is not None and self.fixed:
            raise RequestError("grade and fix cannot be combined")
        if self.max_exploitability is not None:
            if self.grade is not None or self.fixed:
                raise RequestError("max exploitability cannot be combined with grade or fix")
            if self.opponent.is_equilibrium:
                raise RequestError("max exploitability needs an opponent model to exploit, not the equilibrium")
        if self.max_support is not None:
            if self.grade is not None or self.fixed:
                raise RequestError("max support cannot be combined with grade or fix")
            if self.max_exploitability is not None:
                raise RequestError("max support and max exploitability cannot be combined: a K-mix is the least "
                                   "exploitable mix of K arrangements, a safe mix the best against a model")
            if not self.opponent.is_equilibrium:
                raise RequestError(f"max support applies to the equilibrium; the opponent "
                                   f"{quote(self.opponent.format())} is a model (use the opponent equilibrium)")
        if self.top > 1:
            if self.samples_a_mix:
                raise RequestError("top applies to a best response, a completion or a grade; an equilibrium or a "
                                   "mix has no single best arrangement (grade an arrangement against it instead)")
            if self.engine.resolved != "search":
                raise RequestError(f"top above 1 needs the search engine (it excludes plans), not "
                                   f"{self.engine.resolved}")
        if self.samples_a_mix and objective not in (None, "margin"):
            raise RequestError(f"objective {quote(objective)} applies to a best response, a completion or a "
                               "grade; an equilibrium or a safe mix is solved for the margin")
        if epsilon is not None and not self.wants_equilibrium:
            raise RequestError(f"epsilon applies to the equilibrium; the opponent {quote(self.opponent.format())} "
                               "needs none")
        if self.engine.threads > 1 and self.engine.resolved != "cpsat":
            raise RequestError("threads: only the CP-SAT engine uses threads (engine cpsat)")
        if seed is not None and not self.samples_a_mix and self.engine.resolved != "cpsat":
            raise RequestError("seed applies to CP-SAT and to the arrangement drawn from a mix; "
                               "this answer is the search's best response, which draws nothing")
        for name in ("population", "style"):
            given = getattr(self, name) is not None
            if given and not self.opponent.needs_data(name):
                raise RequestError(f"{name} data was given but the opponent {quote(self.opponent.format())} "
                                   f"has no term '{name}' without a file")
        check_usable(self.opponent, self.deal, population=self.population, style=self.style, files=self.files)


def _arrangement(text: str | list[str], deal: Deal) -> Arrangement:
    try:
        arrangement = Arrangement.parse(text, deal.rules)
        arrangement.validate(deal)
    except (ArrangementError, CardError) as exc:
        raise type(exc)(f"grade: {exc}") from None
    return arrangement


@dataclass(frozen=True)
class SolveAnswer(Jsonable):
    """A solved request: ``result`` is a ``Solution``, a ``Grade``, an ``EquilibriumResult``, a
    ``SafeResponse`` or a ``SparseEquilibrium``; ``verification`` the independent recheck when the
    request asked for one."""

    request: SolveRequest
    result: Solution | Grade | EquilibriumResult | SafeResponse | SparseEquilibrium
    verification: Verification | None = None

    def to_model(self) -> SolveAnswerOut:
        """The answer's response model (``solver.advisor.schema``): the equilibrium and a safe
        mix with the arrangement drawn by the request's seed, the recheck when one was asked."""
        model: SolveAnswerOut
        if isinstance(self.result, (EquilibriumResult, SafeResponse, SparseEquilibrium)):
            model = self.result.to_model(seed=self.request.engine.seed)
        else:
            model = self.result.to_model()
        if self.verification is not None:
            model = model.model_copy(update={"verification": self.verification.to_model()})
        return model


def solve_request(
    request: SolveRequest,
    *,
    store: SolutionStore | None = None,
    stop_event: threading.Event | None = None,
    progress: Callable[[IterationRecord], None] | None = None,
    sparse_progress: Callable[[SparseRecord], None] | None = None,
) -> SolveAnswer:
    """Solve ``request``: the equilibrium first when the opponent involves it (through
    ``store`` when given; ``progress`` receives the double oracle's per-iteration records),
    then the best response, completion, grade, safe mix or K-mix (``sparse_progress`` receives
    the K-mix search's certifications).  Setting ``stop_event`` stops the work and
    returns the best found so far (``interrupted`` in the answer)."""
    deal = request.deal
    equilibrium = None
    if request.max_support is not None:
        engine = request.engine.with_time_limit(None)
        eq = solve_equilibrium(deal, epsilon=request.epsilon, time_limit=request.long_time_limit, store=store,
                               stop_event=stop_event, progress=progress, engine=engine)
        sparse = sparse_equilibrium(deal, request.max_support, equilibrium=eq, time_limit=request.long_time_limit,
                                    stop_event=stop_event, engine=engine, progress=sparse_progress)
        check = (None if request.verify is None else verify_mix(
            deal, sparse.mix, sparse.exploitability, time_limit=request.verify, stop_event=stop_event,
            certified_by=request.engine.resolved))
        return SolveAnswer(request, sparse, check)
    if request.wants_equilibrium:
        eq = solve_equilibrium(deal, epsilon=request.epsilon, time_limit=request.long_time_limit, store=store,
                               stop_event=stop_event, progress=progress,
                               engine=request.engine.with_time_limit(None))
        if request.is_equilibrium:
            check = (None if request.verify is None else verify_equilibrium(
                eq, time_limit=request.verify, stop_event=stop_event, certified_by=request.engine.resolved))
            return SolveAnswer(request, eq, check)
        equilibrium = eq.opponent()
    opponent = request.opponent_model(equilibrium)
    if request.max_exploitability is not None:
        safe = safe_response(deal, opponent, request.max_exploitability, time_limit=request.long_time_limit,
                             store=store, stop_event=stop_event, engine=request.engine.with_time_limit(None))
        check = (None if request.verify is None else verify_mix(
            deal, safe.mix, safe.exploitability, time_limit=request.verify, stop_event=stop_event,
            certified_by=request.engine.resolved))
        return SolveAnswer(request, safe, check)
    result: Solution | Grade
    if request.grade is not None:
        result = grade(deal, request.grade, opponent, objective=request.objective, options=request.engine,
                       stop_event=stop_event, top=request.top)
    else:
        result = complete(deal, dict(request.fixed), opponent, objective=request.objective, options=request.engine,
                          stop_event=stop_event, top=request.top)
    check = None
    if request.verify is not None:
        best = result.best if isinstance(result, Grade) else result
        check = verify_solution(best, opponent, fixed=dict(request.fixed), time_limit=request.verify,
                                stop_event=stop_event)
    return SolveAnswer(request, result, check)
