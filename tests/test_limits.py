"""One module for defaults and ranges (``solver.advisor.limits``): each constant defined once,
no literal default beside it, and every command line refusing and accepting the same edge
values with the same one line, exit 2."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest
from deals import EXAMPLE

from solver.advisor import limits
from solver.advisor.limits import DEFAULTS, RANGES, LimitError, Range
from solver.apps import play_cli, solve_cli, tournament
from solver.apps.batch import cli as batch_cli

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for folder in ("solver", "quintet") for p in (ROOT / folder).rglob("*.py"))
LIMITS = ROOT / "solver" / "advisor" / "limits.py"
CONSTANTS = [name for name in limits.__all__ if name.isupper()]
DEFAULT_NAMES = ("EPSILON", "TIME_LIMIT")  # a module-level name with these in it is a default of a solve
PARAMETERS = {"epsilon", "time_limit", "verify", "max_exploitability", "max_support"}


def _module_assignments(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_every_constant_is_defined_once():
    defined: dict[str, list[str]] = {}
    for path in SOURCES:
        for name in _module_assignments(path):
            defined.setdefault(name, []).append(str(path.relative_to(ROOT)))
    for name in CONSTANTS:
        homes = defined.get(name, [])
        assert len(homes) == 1, f"{name} is defined in {homes}"
        assert homes[0] in ("solver/advisor/limits.py", "quintet/seeds.py", "solver/engines/base.py"), homes
    # a default of a solve named anywhere else is a second definition under another name
    others = sorted((name, home) for name, homes in defined.items() for home in homes
                    if any(word in name for word in DEFAULT_NAMES) and home != "solver/advisor/limits.py")
    assert others == []


def _literal_defaults(path: Path) -> list[str]:
    """``epsilon=0.05``-style literal defaults of the solve parameters: in signatures and in
    dataclass fields."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = args.posonlyargs + args.args
            pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
            found += [f"{node.name}({a.arg}={ast.unparse(d)})" for a, d in pairs
                      if a.arg in PARAMETERS and isinstance(d, ast.Constant) and isinstance(d.value, (int, float))]
        elif isinstance(node, ast.ClassDef):
            found += [f"{node.name}.{item.target.id} = {ast.unparse(item.value)}" for item in node.body
                      if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                      and item.target.id in PARAMETERS and isinstance(item.value, ast.Constant)
                      and isinstance(item.value.value, (int, float)) and not isinstance(item.value.value, bool)]
    return found


def test_no_literal_default_of_a_solve_parameter():
    # the engines' own defaults (no time limit) are their contract's, tested with the engines
    engines = ROOT / "solver" / "engines"
    found = {str(p.relative_to(ROOT)): _literal_defaults(p) for p in SOURCES
             if p != LIMITS and engines not in p.parents}
    assert {path: hits for path, hits in found.items() if hits} == {}


def test_the_scan_sees_a_literal_default(tmp_path):
    # the control of the test above
    path = tmp_path / "m.py"
    path.write_text("EQUILIBRIUM_TIME_LIMIT = 120.0\n"
                    "def f(deal, *, epsilon: float = 0.05, time_limit=None): ...\n"
                    "class C:\n    time_limit: float = 60.0\n", encoding="utf-8")
    assert _literal_defaults(path) == ["f(epsilon=0.05)", "C.time_limit = 60.0"]
    assert "EQUILIBRIUM_TIME_LIMIT" in _module_assignments(path)


def test_every_default_is_in_its_range():
    for name, default in DEFAULTS.items():
        assert getattr(limits, name) == default.value
        assert RANGES[default.field].check(default.value) == default.value, name
        assert default.unit == RANGES[default.field].unit


@pytest.mark.parametrize("range_, inside, outside", [
    (RANGES["epsilon"], [0, 0.0, 25, 1e-12], [-1e-12, 25.000001, float("inf"), float("nan"), "1", True, None]),
    (RANGES["time_limit"], [1e-9, 604800], [0, -1, 604800.5, float("inf")]),
    (RANGES["max_support"], [1, 1000], [0, 1001, 1.0, 2.5, "3", True]),
    (RANGES["games"], [1, 100], [0, 101, -1]),
])
def test_a_range_takes_its_edges_and_nothing_beyond(range_: Range, inside, outside):
    for value in inside:
        assert range_.check(value) == value
    for value in outside:
        with pytest.raises(LimitError, match=f"^{range_.name} must be "):
            range_.check(value)


def test_the_http_schema_has_the_same_ranges():
    from solver.apps.serve.models import SolveIn

    properties = SolveIn.model_json_schema()["properties"]
    keywords = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum"}
    for field in ("epsilon", "time_limit", "threads", "max_exploitability", "max_support"):
        (number,) = [form for form in properties[field]["anyOf"] if form.get("type") in ("number", "integer")]
        assert {keywords[k]: v for k, v in RANGES[field].bounds().items()} == {
            k: number[k] for k in ("minimum", "exclusiveMinimum", "maximum") if k in number}, field
    assert f"default {limits.SOLVE_EPSILON:g}" in properties["epsilon"]["description"]


# ------------------------------------------------------------------- the command lines, edge by edge

# each program, with arguments that make it stop, after its range checks, on another one-line
# error (the "sentinel"): a value is accepted when that error is what the program says
PROGRAMS = {
    "quintet-solve": (solve_cli.main, [EXAMPLE, "--opponent", "uniform", "--seed", "3"], "applies to"),
    "quintet-play": (play_cli.main, ["--store", "x.sqlite", "--no-store"], "cannot be combined"),
    "quintet-tournament": (tournament.main, ["--store", "x.sqlite", "--no-store"], "cannot be combined"),
    "quintet-batch": (batch_cli.main, [EXAMPLE, "--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs"),
}

EDGES = [  # option, value, accepted
    ("--epsilon", "0", True),
    ("--epsilon", "25", True),
    ("--epsilon", "-0.001", False),
    ("--epsilon", "25.5", False),
    ("--epsilon", "1e400", False),  # not finite: the number type's error
    ("--time-limit", "0", False),
    ("--time-limit", "-5", False),
    ("--time-limit", "0.001", True),
    ("--time-limit", "604800", True),
    ("--time-limit", "604801", False),
]


def _run(program: str, argv: list[str], capsys) -> tuple[int, str]:
    main = PROGRAMS[program][0]
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return status, lines[0]


def _expected_refusal(option: str, value: str) -> str:
    """The one line a refused value gets: the check's own message (or the number type's)."""
    if not math.isfinite(float(value)):
        return f"argument {option}: not a finite number: '{value}'"
    check = limits.check_epsilon if option == "--epsilon" else limits.check_time_limit
    with pytest.raises(LimitError) as refused:
        check(float(value))
    return str(refused.value)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
@pytest.mark.parametrize("option, value, accepted", EDGES)
def test_every_command_line_takes_the_same_edges(program, option, value, accepted, capsys):
    _, base, sentinel = PROGRAMS[program]
    status, line = _run(program, [*base, option, value], capsys)
    assert status == 2
    assert line.startswith(f"{program}: error: ")
    if accepted:
        assert sentinel in line, line
    else:
        assert line == f"{program}: error: {_expected_refusal(option, value)}"


@pytest.mark.parametrize("value, accepted", [("1", True), ("100", True), ("0", False), ("101", False)])
def test_quintet_play_takes_the_match_range(value, accepted, capsys):
    status, line = _run("quintet-play", ["--games", value, "--store", "x.sqlite", "--no-store"], capsys)
    assert status == 2
    if accepted:
        assert "cannot be combined" in line
    else:
        assert line == f"quintet-play: error: games must be an integer from 1 to 100, got {value}"


def test_quintet_solve_checks_the_verify_time_and_k_the_same_way(capsys):
    status, line = _run("quintet-solve", [EXAMPLE, "--verify", "--verify-time-limit", "0"], capsys)
    assert (status, line) == (2, "quintet-solve: error: verify must be more than 0 and at most 604800 seconds, got 0")
    status, line = _run("quintet-solve", [EXAMPLE, "--max-support", "1001"], capsys)
    assert (status, line) == (2, "quintet-solve: error: max support must be an integer from 1 to 1000, got 1001")


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_every_help_states_the_programs_own_defaults(program, capsys):
    main = PROGRAMS[program][0]
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    epsilon, time_limit = {
        "quintet-solve": (limits.SOLVE_EPSILON, limits.SOLVE_TIME_LIMIT),
        "quintet-play": (limits.PLAY_EPSILON, limits.PLAY_TIME_LIMIT),
        "quintet-tournament": (limits.TOURNAMENT_EPSILON, limits.TOURNAMENT_TIME_LIMIT),
        "quintet-batch": (limits.BATCH_EPSILON, limits.BATCH_TIME_LIMIT),
    }[program]
    assert f"default {epsilon:g}" in text and f"{time_limit:g}" in text
