"""The one request model: an opponent, a fix, a seed and every number parsed and checked in one
place (``SolveRequest.parse``, ``OpponentSpec``, ``solver.advisor.limits``, ``quintet.seeds``),
the same in every front-end — and a server that never opens a path a client sent."""

from __future__ import annotations

import builtins
import io
import json
import os
import pathlib

import pytest
from deals import EXAMPLE
from hypothesis import given, settings
from hypothesis import strategies as st
from programs import Ran, run_main

from quintet.game import Deal
from quintet.seeds import SEED_MAX, SeedError, check_seed, seed_series
from quintet.text import MESSAGE_LIMIT, quote
from solver.advisor.limits import LimitError, parse_slot
from solver.advisor.request import RequestError, SolveRequest, parse_fix_options, solve_request
from solver.apps.batch.deals import canonical_key, random_deals
from solver.apps.play_cli import main as play_main
from solver.apps.solve_cli import main as solve_main
from solver.apps.tournament import main as tournament_main
from solver.problem.opponent_spec import OpponentSpec, OpponentTerm, opponent_kinds
from solver.problem.opponents import OpponentError, Uniform

ARR = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"


PROGRAMS = {"solver.apps.solve_cli": solve_main, "solver.apps.play_cli": play_main,
            "solver.apps.tournament": tournament_main}


def run(module: str, *argv: str, stdin: str = "") -> Ran:
    """The program ``python -m module`` runs, in this process."""
    return run_main(PROGRAMS[module], argv, stdin)


# ---------------------------------------------------------------------------- the opponent specification

_weights = st.one_of(st.none(), st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False))
_sources = st.one_of(st.none(), st.from_regex(r"[A-Za-z_./][A-Za-z0-9_./-]{0,20}", fullmatch=True))


@st.composite
def _terms(draw: st.DrawFn) -> OpponentTerm:
    name = draw(st.sampled_from([k.name for k in opponent_kinds()]))
    source = draw(_sources) if name in ("population", "style") else None
    return OpponentTerm(name, source, draw(_weights))


@settings(max_examples=300, deadline=None)
@given(st.lists(_terms(), min_size=1, max_size=6))
def test_format_then_parse_is_the_identity(terms):
    spec = OpponentSpec(tuple(terms))
    text = spec.format()
    assert OpponentSpec.parse(text) == spec
    assert OpponentSpec.parse(text).format() == text  # the canonical spelling is a fixed point


@pytest.mark.parametrize("text, canonical", [
    ("uniform", "uniform"), (" uniform:0.3 , greedy:0.7 ", "uniform:0.3,greedy:0.7"),
    ("uniform:3,greedy:7", "uniform:3,greedy:7"), ("population:0.5,uniform", "population:0.5,uniform"),
    ("population:pop.json", "population:pop.json"), ("style:me.jsonl:0.25,equilibrium:0.75",
                                                      "style:me.jsonl:0.25,equilibrium:0.75"),
    ("population:./2.5", "population:./2.5"), ("uniform:1e-3", "uniform:0.001"),
])
def test_spellings_and_their_canonical_form(text, canonical):
    assert OpponentSpec.parse(text).format() == canonical


@pytest.mark.parametrize("text, words", [
    ("uniform:-1,greedy:1", "the weight of 'uniform' must be a positive number, got -1"),
    ("uniform:0,greedy:1", "must be a positive number"),
    ("uniform:abc", "the weight of 'uniform' must be a positive number, got 'abc'"),
    ("greedy:inf", "must be a positive number"),
    ("smart", "unknown opponent 'smart'"),
    ("", "empty opponent specification"),
    ("uniform,,greedy", "empty term"),
    ("population:", "needs a file name"),
    (",".join(["uniform"] * 40), "at most 16 terms"),
])
def test_bad_specifications_are_one_line_naming_the_problem(text, words):
    with pytest.raises(OpponentError) as err:
        OpponentSpec.parse(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_long_specification_is_not_echoed():
    for text in ("u" * 200_000, "uniform:" + "1" * 5000, "x" * 900):
        with pytest.raises(OpponentError) as err:
            OpponentSpec.parse(text)
        assert len(str(err.value)) < 200, str(err.value)[:300]


PATH_FORMS = ["style:/etc/passwd", "population:/etc/passwd", "uniform:0.5,style:/etc/passwd:0.5",
              "style:/nonexistent", "population:./x.json:1", "greedy,population:/proc/self/environ",
              "style:C:\\Windows\\win.ini"]


@pytest.mark.parametrize("form", PATH_FORMS)
def test_a_server_refuses_every_file_form_without_touching_the_disk(form, monkeypatch, tmp_path):
    real = tmp_path / "records.jsonl"  # a usable file on the server's disk …
    real.write_text(json.dumps({"exposed": EXAMPLE, "player": ARR}) + "\n", encoding="utf-8")
    forms = [form, form.replace("/etc/passwd", str(real)).replace("/nonexistent", str(real))]
    opened: list[object] = []

    def refuse(*args: object, **kwargs: object) -> object:
        opened.append(args[:1])
        raise AssertionError(f"a file was touched: {args[:1]}")

    for owner, name in [(builtins, "open"), (io, "open"), (os, "open"), (os, "stat"), (pathlib.Path, "open"),
                        (pathlib.Path, "read_text"), (pathlib.Path, "read_bytes"), (pathlib.Path, "is_file"),
                        (pathlib.Path, "exists"), (pathlib.Path, "stat")]:
        monkeypatch.setattr(owner, name, refuse)
    messages = set()
    for text in forms:  # … and one that is not there: the words are the same
        with pytest.raises(OpponentError) as err:
            SolveRequest.parse(EXAMPLE, opponent=text, files=False)
        messages.add(str(err.value))
        with pytest.raises(OpponentError):  # resolve refuses again: defence in depth
            OpponentSpec.parse(text).resolve(Deal.from_exposed(EXAMPLE), files=False, extra={"equilibrium": Uniform()})
    assert opened == [] and len(messages) == 1
    (message,) = messages
    assert "a server reads no files" in message and "/" not in message.split("names a file")[1]


def test_body_data_takes_the_place_of_files():
    deal = Deal.from_exposed(EXAMPLE)
    games = [{"exposed": EXAMPLE, "player": "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | "
                                             "Kh Qh Jh Th 9h"}]
    request = SolveRequest.parse(EXAMPLE, opponent="uniform:0.5,style:0.5", style=games, files=False)
    assert request.opponent_model(None).name.startswith("uniform:0.5,style")
    request = SolveRequest.parse(EXAMPLE, opponent="population", population=[games[0]["player"]], files=False)
    assert solve_request(request).result.optimal  # type: ignore[union-attr]
    with pytest.raises(OpponentError, match="needs the records in the field 'style'"):
        SolveRequest.parse(EXAMPLE, opponent="style", files=False)
    with pytest.raises(RequestError, match="population data was given"):
        SolveRequest.parse(EXAMPLE, opponent="uniform", population=[games[0]["player"]], files=False)
    assert deal.rules.n_slots == 5


# ---------------------------------------------------------------------------- slots, seeds, numbers

@pytest.mark.parametrize("key", ["²", " 5 ", "05", "١", "5" * 5000, "+5", "5.0", "", "6", "0", "-1"])
def test_a_fix_slot_is_exactly_one_to_five(key):
    with pytest.raises(LimitError) as err:
        SolveRequest.parse(EXAMPLE, opponent="uniform", fix={key: "Ah Kh Qh Jh Th"})
    assert "is not a slot (1 to 5)" in str(err.value) and len(str(err.value)) < 150


def test_the_five_slots_parse():
    assert [parse_slot(str(s), 5, "fix") for s in range(1, 6)] == [1, 2, 3, 4, 5]
    assert parse_fix_options(["5=Ah Kh Qh Jh Th"]) == {"5": "Ah Kh Qh Jh Th"}
    with pytest.raises(RequestError, match="twice"):
        parse_fix_options(["5=Ah Kh Qh Jh Th", "5=As Ks Qs Js Ts"])


@pytest.mark.parametrize("seed", [-1, SEED_MAX + 1, 2**64, 1.5, True, "١", "7x", "9" * 5000])
def test_a_seed_outside_the_range_is_refused(seed):
    with pytest.raises(SeedError) as err:
        check_seed(seed)
    assert f"from 0 to {SEED_MAX}" in str(err.value) and len(str(err.value)) < 150


def test_seed_series_stays_in_range():
    assert list(seed_series(SEED_MAX - 1, 2)) == [SEED_MAX - 1, SEED_MAX]
    with pytest.raises(SeedError, match="runs past"):
        seed_series(SEED_MAX, 2)


@pytest.mark.parametrize("options, words", [
    ({"opponent": "uniform", "epsilon": 0.1}, "epsilon applies to the equilibrium"),
    ({"opponent": "uniform", "seed": 3}, "seed applies to CP-SAT"),
    ({"opponent": "uniform", "threads": 2}, "only the CP-SAT engine uses threads"),
    ({"objective": "points"}, "solved for the margin"),
    ({"opponent": "greedy", "max_exploitability": 1, "objective": "points"}, "solved for the margin"),
    ({"opponent": "uniform", "engine": "cpsat", "seed": 2**31}, "seed must be an integer from 0 to"),
    ({"epsilon": -1}, "epsilon must be from 0 to"),
    ({"epsilon": float("nan")}, "finite"),
    ({"opponent": "uniform", "time_limit": 0}, "time limit must be more than 0"),
    ({"opponent": "uniform", "time_limit": 1e12}, "at most"),
    ({"opponent": "uniform", "threads": 99, "engine": "cpsat"}, "threads must be an integer from 1 to 8"),
    ({"opponent": "greedy", "max_exploitability": -1}, "max exploitability must be from 0 to"),
    ({"opponent": "uniform", "engine": "magic"}, "unknown engine 'magic'"),
])
def test_an_option_the_answer_would_not_use_or_out_of_range_is_refused(options, words):
    with pytest.raises(ValueError) as err:
        SolveRequest.parse(EXAMPLE, **options)
    assert words in str(err.value), str(err.value)


def test_options_the_answer_uses_are_honoured():
    cpsat = SolveRequest.parse(EXAMPLE, opponent="uniform", engine="cpsat", threads=2, seed=SEED_MAX, time_limit=30)
    assert (cpsat.engine.resolved, cpsat.engine.threads, cpsat.engine.seed) == ("cpsat", 2, SEED_MAX)
    eq = SolveRequest.parse(EXAMPLE, seed=5, epsilon=0, objective="margin")
    assert eq.is_equilibrium and eq.engine.seed == 5 and eq.epsilon == 0


def test_quote_cuts_and_says_the_length():
    assert quote("x" * 10) == repr("x" * 10)
    cut = quote("y" * 100_000)
    assert len(cut) < 120 and "100,000 characters" in cut


# ---------------------------------------------------------------------------- the command lines

@pytest.mark.parametrize("args, words", [
    (["--opponent", "uniform", "--engine", "cpsat", "--seed", "2147483648"], "seed must be an integer"),
    (["--opponent", "u" * 100_000], "too long"),
    (["--opponent", "uniform", "--seed", "١"], "not an integer"),
    (["--opponent", "uniform", "--fix", "²=Ah Kh Qh Jh Th"], "is not a slot"),
    (["--opponent", "uniform:-1,greedy:1"], "must be a positive number"),
    (["--opponent", "uniform", "--threads", "2"], "only the CP-SAT engine uses threads"),
    (["--epsilon", "1e999"], "not a finite number"),
])
def test_quintet_solve_bad_input_is_one_short_line_exit_2(args, words):
    proc = run("solver.apps.solve_cli", EXAMPLE, "--no-store", *args)
    assert proc.returncode == 2, proc.stderr[:500]
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert words in proc.stderr and len(proc.stderr) <= MESSAGE_LIMIT + 40, proc.stderr[:500]


def test_quintet_play_checks_its_options_before_the_banner():
    for args, words in [(["--seed", "-5"], "--seed must be an integer from 0"),
                        (["--seed", str(SEED_MAX), "--games", "2"], "runs past"),
                        (["--opponent", "uniform:-1"], "positive number"),
                        (["--opponent", "style:/nonexistent/me.jsonl"], "not found")]:
        proc = run("solver.apps.play_cli", "--plain", *args, stdin="quit\n")
        assert proc.returncode == 2 and proc.stdout == "", (args, proc.stdout[:300])
        assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.server  # the HTTP API with its worker
def test_one_seed_deals_the_same_cards_in_every_front_end(tmp_path):
    seed = 7
    deal = Deal.random(seed)
    exposed = deal.format()
    # quintet-play: the board of game 1
    play = run("solver.apps.play_cli", "--plain", "--seed", str(seed), "--opponent", "greedy", stdin="quit\n")
    assert f"Exposed (out of play): {exposed}" in play.stdout, play.stdout[:800]
    # quintet-tournament: its first random deal
    tour = run("solver.apps.tournament", "--seed", str(seed), "--deals", "1", "--strategies", "uniform,greedy",
               "--no-store", "--json", "--quiet")
    assert tour.returncode == 0, tour.stderr
    assert json.loads(tour.stdout)["deals"][0]["exposed"] == exposed.split()
    # quintet-batch: its first random deal's class
    assert random_deals(1, seed)[0] == canonical_key(deal.exposed, deal.rules)
    # the HTTP API
    from fastapi.testclient import TestClient

    from solver.apps.serve.app import ServeConfig, create_app

    app = create_app(ServeConfig(workers=1, store=tmp_path / "s.sqlite", warm_up=False))
    with TestClient(app, base_url="http://localhost") as client:
        answer = client.get(f"/api/deal?seed={seed}").json()
        assert answer["exposed"] == deal.format().split() and answer["seed"] == seed
        assert client.get("/api/deal?seed=-1").status_code == 422
        assert client.get(f"/api/deal?seed={SEED_MAX + 1}").status_code == 422


# ---------------------------------------------------------------------------- one grammar, three front-ends

def test_the_command_line_the_http_model_and_parse_take_the_fields_of_the_one_declaration():
    """``quintet-solve``'s options, ``SolveIn``'s fields and ``SolveRequest.parse``'s keywords are
    the names of ``FIELDS`` (population and style: data, which a file gives on the command line),
    each with the one help text; nothing else is taken."""
    from solver.advisor.request import FIELDS
    from solver.apps.serve.models import SolveIn
    from solver.apps.solve_cli import build_parser

    names = {f.name for f in FIELDS}
    assert set(SolveIn.model_fields) == names
    properties = SolveIn.model_json_schema()["properties"]
    assert all(properties[f.name]["description"] == f.words() for f in FIELDS)
    parser = build_parser()
    own = {"store", "no_store", "quiet", "json", "daemon", "stop_daemon", "unicode", "verify_time_limit",
           "tie_points", "ace_low_straight", "flush_over_full_house", "tiebreak"}  # rules: its options
    assert set(vars(parser.parse_args([EXAMPLE]))) - own == names - {"population", "style"}
    helps = {action.dest: action.help for action in parser._actions}
    assert all(helps[f.name] == f.words() for f in FIELDS if f.name in helps and f.kind != "rules")
    request = SolveRequest.parse(**{name: None for name in names - {"rules"}} | {"exposed": EXAMPLE})
    assert request == SolveRequest.parse(EXAMPLE)  # every field taken, None: its default
    with pytest.raises(TypeError, match="'nonsense'"):
        SolveRequest.parse(EXAMPLE, nonsense=1)
