"""The registries' contract: a toy opponent model registered in one place (``register_opponent``)
is seen by every front-end — ``quintet-solve --help`` and its solve, the HTTP schema,
``GET /api/opponents`` (the page's menus), ``quintet-play --opponent`` and the computer,
puzzles and the tournament; a toy engine registered by ``register_engine`` by the command
line, the HTTP schema and the solves (docs/contributing.md, "A new opponent model", "A new engine")."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

import numpy as np
import pytest
from browser_helpers import DESKTOP, new_page
from fastapi.testclient import TestClient
from serve_helpers import one_worker_server
from test_review import store_with

from quintet.game import Deal
from solver.advisor.advice import best_response
from solver.apps import play_cli, solve_cli
from solver.apps.serve.app import create_app
from solver.apps.serve.routers.server import opponents
from solver.apps.serve.state import ServeConfig
from solver.apps.tournament import check_strategies, default_strategies, evaluate_deal, strategy_label
from solver.engines import base
from solver.engines.base import EngineOptions, engine_names, get_engine, register_engine
from solver.play.computer import Computer, ComputerSpec, computer_model
from solver.play.puzzle import pick_puzzle, puzzle_opponents
from solver.problem import opponent_spec
from solver.problem.best_response import BestResponseProblem, EngineResult
from solver.problem.deal_tables import DealTables
from solver.problem.opponent_spec import OpponentKind, OpponentSpec, register_opponent
from solver.problem.opponents import OpponentError, Uniform, random_arrangement
from solver.storage.store import SolutionStore

EXAMPLE = "8h 7h 9d Ts 7s Qc Jc"


@dataclass(frozen=True)
class Toy:
    """A toy model: the uniform model's marginals under another name."""

    name: str = "toy"

    def marginals(self, tables: DealTables) -> np.ndarray:
        return Uniform().marginals(tables)


TOY = OpponentKind("toy", "toy model", "a toy of the contract test", model=Toy, plays="a toy's random arrangement",
                   draw=random_arrangement, tournament=("toy", "br:toy"))


@pytest.fixture
def toy(monkeypatch):
    """The toy model registered for one test (the registry as it was, after)."""
    monkeypatch.setattr(opponent_spec, "_KINDS", dict(opponent_spec._KINDS))
    register_opponent(TOY)
    return TOY


class ToyEngine:
    """A toy engine: the search's answer under another name."""

    name = "toy"

    def solve(self, problem: BestResponseProblem, options: EngineOptions, hint: tuple[int, ...] | None = None,
              stop: threading.Event | None = None) -> EngineResult:
        return replace(get_engine("search").solve(problem, options, hint, stop), engine=self.name)


@pytest.fixture
def toy_engine(monkeypatch):
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    register_engine(ToyEngine())
    return "toy"


@pytest.fixture
def schema() -> dict:
    """The HTTP API's description, written now (a new application: no cached schema)."""
    return create_app(ServeConfig(workers=1)).openapi()


def _words(text: str) -> str:
    return " ".join(text.split())


def _request(schema: dict, name: str) -> dict:
    return schema["components"]["schemas"][name]["properties"]


def _query(schema: dict, path: str, name: str) -> dict:
    return next(p for p in schema["paths"][path]["get"]["parameters"] if p["name"] == name)["schema"]


def test_a_toy_model_is_unknown_before_it_is_registered():
    assert "toy" not in [k.name for k in opponent_spec.opponent_kinds()]
    with pytest.raises(OpponentError, match="unknown opponent 'toy'"):
        OpponentSpec.parse("toy")


def test_a_toy_model_reaches_quintet_solve(toy, capsys):
    assert "toy (a toy of the contract test)" in _words(solve_cli.build_parser().format_help())
    assert solve_cli.main([EXAMPLE, "--opponent", "toy:0.5,greedy:0.5", "--json"]) == 0
    assert '"toy:0.5,greedy:0.5"' in capsys.readouterr().out.replace(" ", "")


def test_a_toy_model_reaches_the_http_schema_and_the_page(toy, schema):
    assert "toy (a toy of the contract test)" in _request(schema, "SolveIn")["opponent"]["description"]
    assert "toy (a toy's random arrangement)" in _request(schema, "TableIn")["opponent"]["description"]
    assert "toy" in _query(schema, "/api/puzzles", "opponent")["enum"]
    assert "toy" in _request(schema, "PuzzleGradeIn")["opponent"]["enum"]
    client = TestClient(create_app(ServeConfig(workers=1)), base_url="http://localhost")  # no lifespan: no workers
    models = client.get("/api/opponents").json()["models"]
    assert {"name": "toy", "label": "toy model", "help": "a toy of the contract test", "data": None,
            "plays": "a toy's random arrangement", "puzzle": True, "tournament": ["toy", "br:toy"]} in models


@pytest.mark.browser
@pytest.mark.server
def test_a_toy_model_fills_the_page_s_three_menus(toy, browser, tmp_path):
    """The page's menus and help are GET /api/opponents' (answered here as this process's registry,
    the toy in it, says: the live server's own registry has no toy)."""
    answer = opponents().model_dump()
    with one_worker_server(tmp_path / "solutions.sqlite") as url:
        context, pg, errors = new_page(browser, DESKTOP, bypass_csp=True)
        pg.route("**/api/opponents", lambda route: route.fulfill(json=answer))
        pg.goto(url + "/")
        pg.wait_for_selector("body[data-ready=true]")
        for menu in ("#opponent", "#play-opponent", "#puzzle-opponent"):
            assert "toy" in pg.eval_on_selector_all(f"{menu} option", "options => options.map(o => o.value)")
        pg.select_option("#opponent", "toy")
        assert pg.inner_text("#opponent-help") == "Toy model: a toy of the contract test."
        pg.click("#tab-play")
        pg.select_option("#play-opponent", "toy")
        assert pg.inner_text("#play-opponent-help") == "The computer plays toy: a toy's random arrangement."
        context.close()
    assert errors == []


def test_a_toy_model_is_played_by_the_computer(toy):
    assert "toy (a toy's random arrangement)" in _words(play_cli.build_parser().format_help())
    deal = Deal.from_exposed(EXAMPLE)
    assert ComputerSpec.parse("toy").plays == "toy" and ComputerSpec.parse("br:toy").target is not None
    computer = Computer.choose(deal, "toy", seed=3)
    assert computer.arrangement == random_arrangement(deal, 3) and computer.model == Toy()
    assert computer.description == "toy: a toy's random arrangement"
    assert computer_model("toy", computer.arrangement, None) == Toy()
    answer = Computer.choose(deal, "br:toy")
    assert answer.arrangement == best_response(deal, Uniform()).arrangement


def test_a_toy_model_is_a_puzzles_opponent(toy, tmp_path):
    assert "toy" in puzzle_opponents()
    path = tmp_path / "solutions.sqlite"
    store_with(path, [3])
    with SolutionStore(path) as store:
        puzzle = pick_puzzle(store, Deal.random(3).rules, 1, "toy")
    assert puzzle.opponent == "toy" and puzzle.model == Toy()


def test_a_toy_model_plays_in_the_tournament(toy):
    assert {"toy", "br:toy"} <= set(default_strategies())
    assert strategy_label("br:toy") == "best response to toy" and strategy_label("toy") == "toy model"
    entry = evaluate_deal(Deal.from_exposed(EXAMPLE), check_strategies(["toy", "br:toy", "uniform"]))
    toy_, br, uniform = range(3)
    assert entry.matrix[toy_, uniform] == pytest.approx(0, abs=1e-12)  # the same marginals
    assert entry.matrix[br, toy_] == pytest.approx(entry.best_responses["br:toy"].value, abs=1e-9)


def test_a_toy_engine_reaches_the_command_line_the_schema_and_the_solves(toy_engine, schema, capsys):
    assert engine_names() == ("auto", "search", "cpsat", "toy")
    assert "toy" in solve_cli.build_parser().format_help()
    engine = _request(schema, "SolveIn")["engine"]
    assert ["auto", "search", "cpsat", "toy"] in [s.get("enum") for s in engine["anyOf"]]
    sol = best_response(Deal.from_exposed(EXAMPLE), Uniform(), engine="toy")
    assert sol.engine == "toy" and sol.optimal
    assert solve_cli.main([EXAMPLE, "--opponent", "uniform", "--engine", "toy", "--json"]) == 0
    assert '"engine":"toy"' in capsys.readouterr().out.replace(" ", "")
