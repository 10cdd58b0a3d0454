"""One ``quintet-solve`` request, checked, solved and answered: shared by the command line
(``solver.apps.solve_cli``) and the HTTP API (``solver.apps.serve``), so both give the same answer and the
same one-line errors.

    >>> from solver.advisor.request import SolveRequest, solve_request
    >>> request = SolveRequest.build("8h 7h 9d Ts 7s Qc Jc", opponent="uniform")
    >>> answer = solve_request(request)
    >>> round(answer.to_dict()["expected_margin"], 4)
    24.8669

The answer is a best response (``Solution``), a grade (``Grade``, with ``grade``), a
completion (``Solution``, with ``fix``) or, for ``opponent="equilibrium"``, the certified
equilibrium (``EquilibriumResult``); ``to_dict`` is what ``quintet-solve --json`` prints.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from quintet.game import Arrangement, Deal
from quintet.rules import CLASSIC, Rules
from solver.advisor.advice import Grade, Solution, complete, evaluate_arrangement, fixed_packets, grade
from solver.advisor.equilibrium import EquilibriumResult, solve_equilibrium
from solver.advisor.safe import SafeResponse, safe_response
from solver.advisor.verify import Verification, verify_equilibrium, verify_mix, verify_solution
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import OpponentModel, Uniform, parse_opponent
from solver.storage.store import SolutionStore

__all__ = ["EQUILIBRIUM_TIME_LIMIT", "RequestError", "SolveRequest", "SolveAnswer", "solve_request"]

EQUILIBRIUM_TIME_LIMIT = 600.0  # seconds: the equilibrium's time limit when none is given


class RequestError(ValueError):
    """Options of a request that cannot go together."""


@dataclass(frozen=True)
class SolveRequest:
    """What to solve.

    * ``opponent`` — ``equilibrium`` (the certified equilibrium mix), ``uniform``,
      ``greedy``, ``population`` (the arrangements in ``population``), ``population:FILE``
      (when ``files``), or a mixture such as ``uniform:0.3,greedy:0.7`` (relative weights);
    * ``objective`` — ``margin`` or ``points``; ``engine`` — ``auto``, ``search`` or ``cpsat``;
    * ``time_limit`` — seconds (None: none for a best response, ``EQUILIBRIUM_TIME_LIMIT``
      for the equilibrium); ``epsilon`` — the equilibrium's target exploitability (points);
    * ``workers`` — CP-SAT workers; ``seed`` — CP-SAT's seed and the arrangement sampled
      from an equilibrium mix;
    * ``fix`` — slot (1-based) → packet text: complete a partial arrangement; ``grade`` —
      an arrangement (text) to grade; at most one of the two;
    * ``verify`` — seconds for an independent recheck of the answer by the other exact
      engine (``solver.advisor.verify``), None for none;
    * ``max_exploitability`` — safe exploitation (``solver.advisor.safe``): the mix that does best
      against the opponent model among those no arrangement beats by more than this (points).
    """

    deal: Deal
    opponent: str = "equilibrium"
    objective: str = "margin"
    engine: str = "auto"
    time_limit: float | None = None
    epsilon: float = 0.01
    workers: int = 1
    seed: int = 0
    fix: Mapping[int, str] = field(default_factory=dict)
    grade: str | None = None
    population: OpponentModel | None = None
    files: bool = True  # may the opponent name a population file?
    verify: float | None = None
    max_exploitability: float | None = None

    @classmethod
    def build(cls, exposed: str | Iterable[str], rules: Rules = CLASSIC, **options: object) -> SolveRequest:
        """A checked request for the deal with these exposed cards (``check``)."""
        request = cls(Deal.from_exposed(exposed, rules), **options)  # type: ignore[arg-type]
        request.check()
        return request

    @property
    def opponent_names(self) -> list[str]:
        """The model names in ``opponent`` (``uniform:0.3,equilibrium:0.7`` → uniform, equilibrium)."""
        return [part.split(":")[0].strip() for part in self.opponent.split(",")]

    @property
    def wants_equilibrium(self) -> bool:
        """Whether the answer needs the deal's equilibrium (alone or in a mixture)."""
        return "equilibrium" in self.opponent_names

    @property
    def is_equilibrium(self) -> bool:
        """Whether the answer is the equilibrium itself (its mix and certificate)."""
        return (self.opponent.strip() == "equilibrium" and self.grade is None and not self.fix
                and self.max_exploitability is None)

    def opponent_model(self, equilibrium: OpponentModel | None) -> OpponentModel:
        """The opponent model, given the equilibrium's (None when it is not needed)."""
        extra: dict[str, OpponentModel] = {}
        if equilibrium is not None:
            extra["equilibrium"] = equilibrium
        if self.population is not None:
            extra["population"] = self.population
        return parse_opponent(self.opponent, self.deal, extra, files=self.files)

    def check(self) -> None:
        """Raise the error the solve would raise for a bad fixed packet, arrangement to grade
        or opponent — before any solving (an equilibrium can take minutes)."""
        if self.grade is not None and self.fix:
            raise RequestError("grade and fix cannot be combined")
        if self.max_exploitability is not None:
            if not self.max_exploitability >= 0:
                raise RequestError(f"max exploitability must be at least 0, got {self.max_exploitability}")
            if self.grade is not None or self.fix:
                raise RequestError("max exploitability cannot be combined with grade or fix")
            if self.opponent.strip() == "equilibrium":
                raise RequestError("max exploitability needs an opponent model to exploit, not the equilibrium")
        fixed_packets(self.deal, self.fix)
        if self.grade is not None:
            Arrangement.parse(self.grade, self.deal.rules).validate(self.deal)
        self.opponent_model(Uniform() if self.wants_equilibrium else None)  # Uniform: a stand-in


@dataclass(frozen=True)
class SolveAnswer:
    """A solved request: ``result`` is a ``Solution``, a ``Grade``, an ``EquilibriumResult`` or
    a ``SafeResponse``; ``verification`` the independent recheck when the request asked for one."""

    request: SolveRequest
    result: Solution | Grade | EquilibriumResult | SafeResponse
    verification: Verification | None = None

    def to_dict(self) -> dict[str, object]:
        """The JSON object ``quintet-solve --json`` prints."""
        if isinstance(self.result, EquilibriumResult):
            out = _equilibrium_json(self.result, self.request.seed)
        elif isinstance(self.result, SafeResponse):
            out = self.result.to_dict(seed=self.request.seed)
        else:
            out = self.result.to_dict()
        if self.verification is not None:
            out["verification"] = self.verification.to_dict()
        return out


def _equilibrium_json(eq: EquilibriumResult, seed: int) -> dict[str, object]:
    """The equilibrium's JSON plus the fields every quintet-solve answer has: the sampled
    arrangement to play, its hands and its expected result against the mix; ``optimal`` is
    whether the mix is certified within ε, ``bound`` its certified exploitability."""
    tables = DealTables.build(eq.deal)
    play = eq.sample(seed)
    per_slot, margin, points = evaluate_arrangement(tables, eq.opponent().marginals(tables), play)
    return eq.to_dict(seed=seed) | {
        "objective": "margin",
        "arrangement": play.card_lists(eq.deal.rules),
        "hands": [s.hand for s in per_slot],
        "expected_margin": margin,
        "expected_points": points,
        "per_slot": [s.to_dict() for s in per_slot],
        "optimal": eq.converged,
        "bound": eq.exploitability,
    }


def solve_request(
    request: SolveRequest,
    *,
    store: SolutionStore | None = None,
    stop_event: threading.Event | None = None,
    progress: Callable[[dict[str, float]], None] | None = None,
) -> SolveAnswer:
    """Solve ``request``: the equilibrium first when the opponent involves it (through
    ``store`` when given; ``progress`` receives the double oracle's per-iteration records),
    then the best response, completion or grade.  Setting ``stop_event`` stops the work and
    returns the best found so far (``interrupted`` in the answer)."""
    deal = request.deal
    equilibrium = None
    if request.wants_equilibrium:
        time_limit = EQUILIBRIUM_TIME_LIMIT if request.time_limit is None else request.time_limit
        eq = solve_equilibrium(deal, epsilon=request.epsilon, time_limit=time_limit, store=store,
                               stop_event=stop_event, progress=progress)
        if request.is_equilibrium:
            check = (None if request.verify is None
                     else verify_equilibrium(eq, time_limit=request.verify, stop_event=stop_event))
            return SolveAnswer(request, eq, check)
        equilibrium = eq.opponent()
    opponent = request.opponent_model(equilibrium)
    if request.max_exploitability is not None:
        time_limit = EQUILIBRIUM_TIME_LIMIT if request.time_limit is None else request.time_limit
        safe = safe_response(deal, opponent, request.max_exploitability, time_limit=time_limit, store=store,
                             stop_event=stop_event)
        check = (None if request.verify is None else verify_mix(
            deal, safe.mix, safe.exploitability, time_limit=request.verify, stop_event=stop_event))
        return SolveAnswer(request, safe, check)
    result: Solution | Grade
    if request.grade is not None:
        result = grade(
            deal, request.grade, opponent, objective=request.objective, engine=request.engine,
            time_limit=request.time_limit, workers=request.workers, seed=request.seed, stop_event=stop_event)
    else:
        result = complete(
            deal, request.fix, opponent, objective=request.objective, engine=request.engine,
            time_limit=request.time_limit, workers=request.workers, seed=request.seed, stop_event=stop_event)
    check = None
    if request.verify is not None:
        best = result.best if isinstance(result, Grade) else result
        check = verify_solution(best, opponent, fixed=request.fix, time_limit=request.verify, stop_event=stop_event)
    return SolveAnswer(request, result, check)
