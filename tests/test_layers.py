"""Layers: the classic Quintet path never loads the draw-poker code; quintet/ never imports solver/.

Each check runs in a fresh interpreter, so that what other tests imported cannot hide an import.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CLASSIC_GAME = """
    import quintet.evaluator as ev
    from quintet.game import Arrangement, Deal, showdown
    from quintet.rules import get_rules

    deal = Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc")
    assert ev.rank_packets(deal.live).n_classes == 749
    for rules in (get_rules("classic"), get_rules("classic", tiebreak="group-only", ace_low_straight=True)):
        value = ev.evaluate("As Ah Ad 8c 8d", rules)
        assert value.description == "full house, aces over eights"
        assert ev.category_of_key(value.key, rules) == value.category
        ev.hand_keys(ev.rank_packets(deal.live, rules).masks, rules)
    a = Arrangement.parse("9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h")
    showdown(a, a, deal)
"""

CLASSIC_SOLVER = """
    from quintet.game import Deal
    from quintet import symmetry as canonical
    from solver.advisor.advice import best_response
    from solver.advisor.equilibrium import equilibrium
    from solver.problem.deal_tables import DealTables

    deal = Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc")
    assert DealTables.build(deal).n_classes == 749
    canonical.canonical_exposed(deal.exposed, group=canonical.symmetry_group(deal.rules))
    assert best_response(deal, "uniform").optimal
    equilibrium(Deal.from_exposed("As Ks Qs Js Ts Ah Kh"), epsilon=1.0, time_limit=60)
"""

DRAW_HAND = """
    from quintet.rules import get_rules
    assert ev.evaluate("As Ah Ad Ac Jk", get_rules("draw54")).description == "five of a kind, aces"
"""

REPORT = """
    import json, sys
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("quintet", "solver"))))
"""


def modules_after(*steps: str) -> list[str]:
    """The quintet/solver modules loaded by a fresh interpreter that runs ``steps``."""
    code = "".join(textwrap.dedent(s) for s in (*steps, REPORT))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def draw_modules(modules: list[str]) -> list[str]:
    return [m for m in modules if m == "quintet.draw" or m.startswith("quintet.draw.")]


@pytest.mark.subprocess
def test_classic_game_path_loads_no_draw_module():
    modules = modules_after(CLASSIC_GAME)
    assert "quintet.evaluator" in modules and "quintet.kernels" in modules
    assert draw_modules(modules) == []


@pytest.mark.subprocess
def test_classic_solver_path_loads_no_draw_module():
    modules = modules_after(CLASSIC_SOLVER)
    assert {"solver.problem.deal_tables", "quintet.symmetry", "solver.advisor.equilibrium"} <= set(modules)
    assert draw_modules(modules) == []


@pytest.mark.subprocess
def test_a_draw_rule_set_loads_the_draw_package_on_first_use():
    # the control of the two tests above: the same check sees quintet.draw once a draw hand is ranked
    modules = modules_after(CLASSIC_GAME, DRAW_HAND)
    assert {"quintet.draw", "quintet.draw.tables", "quintet.draw.kernels"} <= set(draw_modules(modules))


@pytest.mark.subprocess
def test_quintet_never_imports_solver():
    modules = modules_after("import quintet.cli, quintet.draw.cli\n", CLASSIC_GAME, DRAW_HAND)
    assert "quintet.draw.cli" in modules
    assert [m for m in modules if m.split(".")[0] == "solver"] == []


SERVER = """
    from quintet.game import Deal
    from solver.apps.serve.app import create_app
    from solver.apps.serve.models import HandIn, ShowdownIn
    from solver.apps.serve.routers import game
    from solver.apps.serve.tables.tasks import Odds, SeatGame
    from solver.apps.serve.tables.views import warm_up
    from solver.apps.serve.worker import run_task
    from solver.problem.opponents import random_arrangement

    create_app()
    a = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
    game.showdown(ShowdownIn(exposed="8h 7h 9d Ts 7s Qc Jc", a=a, b=a))
    game.hand(HandIn(hand="As Ah Ad Ac Kh"))
    warm_up()  # a table's show-down and record, replayed in the server
    deal = Deal.random(3)
    task = Odds(SeatGame(deal, "uniform", computer=random_arrangement(deal, 1).format()))
    run_task(task, lambda: None, None, lambda record: None)  # a worker's
    from quintet.draw.game import Terms
    from quintet.rules import get_rules
    from solver.apps.serve.worker import StrategyTask
    run_task(StrategyTask(get_rules("draw36-joker-11"), Terms(), "8s 8c Ks Qh 9d", ("call",), "second"),
             lambda: None, None, lambda record: None)  # the heads-up strategy's advice
"""

TERMINAL = """
    import sys
    print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & {"prompt_toolkit", "rich"})))
"""


@pytest.mark.subprocess
def test_the_server_and_its_workers_load_no_terminal_layer():
    # prompt_toolkit and rich are the terminal programs': the game's state machine, the server's
    # endpoints and a worker's table task run without them
    code = "import json\n" + "".join(textwrap.dedent(s) for s in (SERVER, TERMINAL))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
    # the control: the terminal game does load them
    control = "import json\nimport solver.apps.play_cli\n" + textwrap.dedent(TERMINAL)
    proc = subprocess.run([sys.executable, "-c", control], capture_output=True, text=True, timeout=300)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == ["prompt_toolkit", "rich"]


# ---------------------------------------------------------------------------- the house's layers

LAYERS = ("storage", "problem", "engines", "games", "advisor", "play", "apps")
"""solver/'s folders, lowest first: a module imports only from its own folder or lower ones
(and from quintet/, below them all)."""


def _imports(path: Path, package: str | None = None) -> set[str]:
    """Every module a file imports (top level and inside functions), as absolute names;
    relative imports resolved in ``package`` (default: the file's own)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                found.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module:
                found.add(node.module)
    return found


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] == "quintet":
        return -1
    if parts[0] == "solver" and len(parts) > 1 and parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    return None


def test_solver_imports_point_down_the_layers():
    files = sorted((ROOT / "solver").rglob("*.py"))
    assert len(files) > 40
    upward = []
    for path in files:
        parts = path.relative_to(ROOT).parts
        if len(parts) < 3:
            continue  # solver/__init__.py
        own = LAYERS.index(parts[1])
        for module in _imports(path):
            layer = _layer(module)
            if layer is not None and layer > own:
                upward.append(f"{path.relative_to(ROOT)} imports {module}")
    assert upward == []


def test_every_solver_module_is_in_a_layer():
    loose = [p.name for p in (ROOT / "solver").glob("*.py") if p.name != "__init__.py"]
    assert loose == [] and sorted(p.name for p in (ROOT / "solver").iterdir() if p.is_dir()
                                  and p.name != "__pycache__") == sorted(LAYERS)


def test_the_layer_check_sees_an_upward_import(tmp_path):
    # the control: an engine importing the advisor, relatively or not, is an upward import
    probe = tmp_path / "probe.py"
    probe.write_text("from solver.advisor.advice import best_response\n\ndef f():\n    from ..advisor import verify\n",
                     encoding="utf-8")
    assert _imports(probe, "solver.engines") == {"solver.advisor.advice", "solver.advisor"}
    assert {_layer(m) for m in _imports(probe, "solver.engines")} == {LAYERS.index("advisor")}
    assert LAYERS.index("advisor") > LAYERS.index("engines")
    assert _layer("solver.games.lp") == LAYERS.index("games") and _layer("quintet.cards") == -1


GAME_ALGORITHMS = ("double_oracle", "restricted_nash", "sparse_mix", "lp")
"""solver/games/'s generic algorithms: they see a game through its protocol, never Quintet."""
QUINTET_GAMES = ("quintet_game",)
"""solver/games/'s modules about Quintet itself: Quintet as such a game."""


def test_the_game_algorithms_know_nothing_of_quintet():
    known = {p.stem for p in (ROOT / "solver" / "games").glob("*.py")} - {"__init__"}
    assert set(GAME_ALGORITHMS) | set(QUINTET_GAMES) == known
    quintet_aware = []
    for name in GAME_ALGORITHMS:
        for module in _imports(ROOT / "solver" / "games" / f"{name}.py"):
            if module.split(".")[0] in ("quintet", "solver") and not (
                    module.startswith("solver.games.") and module.removeprefix("solver.games.") not in QUINTET_GAMES):
                quintet_aware.append(f"{name} imports {module}")
    assert quintet_aware == []


def _package_files() -> list[Path]:
    return sorted([*(ROOT / "quintet").rglob("*.py"), *(ROOT / "solver").rglob("*.py")])


def test_the_package_never_imports_the_research_modules(tmp_path):
    # benchmarks/research/ is analysis, not product: imported as ``research`` by benchmarks and tests only
    research = {p.stem for p in (ROOT / "benchmarks" / "research").glob("*.py")} - {"__init__"}
    assert {"psro", "pure_security"} <= research

    def found(paths: list[Path], package: str | None = None) -> list[str]:
        return [f"{path.name} imports {module}" for path in paths for module in _imports(path, package)
                if module.split(".")[0] in ("research", "benchmarks") or module.rsplit(".", 1)[-1] in research]

    assert found(_package_files()) == []
    probe = tmp_path / "probe.py"  # the control: a lazy import of a research module is seen
    probe.write_text("def f():\n    from research.psro import psro\n", encoding="utf-8")
    assert found([probe], "solver.games") == ["probe.py imports research.psro"]


def test_the_wheel_holds_no_research_or_benchmark_package():
    import tomllib

    from setuptools import find_packages

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    find = setuptools["packages"]["find"]
    packages = find_packages(str(ROOT), include=find["include"], exclude=find.get("exclude", ()))
    assert {"quintet.draw.cfr", "solver.games"} <= set(packages)  # the control: the product's are found
    assert [p for p in packages if p.split(".")[0] not in ("quintet", "solver")] == []


# ---------------------------------------------------------------------------- no import circles

def _module_graph(root: Path, tops: tuple[str, ...] = ("quintet", "solver")) -> dict[str, set[str]]:
    """Module → the package's modules it imports, top level and inside functions (``from p import m``
    names the submodule ``p.m`` when there is one)."""
    import ast

    files = {}
    for top in tops:
        for path in (root / top).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = (name if path.name == "__init__.py" else name.rpartition(".")[0]).split(".")
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package[: len(package) - node.level + 1] + [node.module or ""]).strip(".") \
                    if node.level else node.module or ""
                targets.update(f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names)
        graph[name] = {t for t in targets if t in files and t != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = stack[stack.index(node):]
                del stack[stack.index(node):]
                if len(component) > 1:
                    found.add(frozenset(component))
    return found


def test_no_import_circles_in_the_package():
    graph = _module_graph(ROOT)
    assert len(graph) > 100 and "quintet.draw.advisor_bot" in graph["quintet.draw.cfr.bot"]
    assert sorted(sorted(c) for c in _circles(graph)) == []


def test_the_circle_check_sees_a_lazy_import_circle(tmp_path):
    # the control: a -> b at the top, b -> c inside a function, c -> a through ``from p import a``
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "p" / "a.py").write_text("from .b import f\n", encoding="utf-8")
    (tmp_path / "p" / "b.py").write_text("def f():\n    import p.c\n", encoding="utf-8")
    (tmp_path / "p" / "c.py").write_text("from p import a\n", encoding="utf-8")
    (tmp_path / "p" / "d.py").write_text("from . import a\n", encoding="utf-8")
    graph = _module_graph(tmp_path, ("p",))
    assert graph["p.d"] == {"p.a"}
    assert _circles(graph) == {frozenset({"p.a", "p.b", "p.c"})}


CFR_ALGORITHMS = ("tree", "kernels", "solve", "toys")  # quintet.draw.cfr: the solvers and their test games


def test_the_cfr_algorithms_know_nothing_of_cards():
    # CFR and the best response take a game through quintet.draw.cfr.tree; they import no card, rule or poker
    cfr = ROOT / "quintet" / "draw" / "cfr"
    allowed = {"quintet.draw.cfr", *(f"quintet.draw.cfr.{name}" for name in CFR_ALGORITHMS)}

    def aware(name: str) -> list[str]:
        return [f"{name} imports {module}" for module in sorted(_imports(cfr / f"{name}.py"))
                if module.split(".")[0] in ("quintet", "solver") and module not in allowed]

    assert [line for name in CFR_ALGORITHMS for line in aware(name)] == []
    assert "betting imports quintet.draw.game" in aware("betting")  # the control: the game's side does


# ---------------------------------------------------------------------------- declared dependencies


def _declared() -> tuple[set[str], dict[str, list[str]]]:
    """The distributions pyproject.toml's ``dependencies`` name (lower case), and its extras."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name = re.compile(r"[A-Za-z0-9_.-]+")
    return ({name.match(d).group(0).lower().replace("_", "-") for d in project["dependencies"]},  # type: ignore[union-attr]
            project["optional-dependencies"])


def test_every_third_party_import_of_the_package_is_a_declared_dependency():
    import importlib.metadata as md

    from packaging.requirements import Requirement

    declared, extras = _declared()
    # the programs' extras: imported where used, each behind quintet.cliutil.needs_extra (tests/test_extras.py)
    optional = {Requirement(r).name.lower().replace("_", "-")
                for extra in ("serve", "play", "batch", "bench") for r in extras[extra]}
    declared_or_part = declared | optional | {"pydantic-core"}  # pydantic's core: pydantic's own errors
    distributions = md.packages_distributions()
    undeclared = []
    for path in sorted([*(ROOT / "quintet").rglob("*.py"), *(ROOT / "solver").rglob("*.py")]):
        for module in _imports(path):
            top = module.split(".")[0]
            if top in ("quintet", "solver") or top in sys.stdlib_module_names or top not in distributions:
                continue
            if not {d.lower().replace("_", "-") for d in distributions[top]} & declared_or_part:
                undeclared.append(f"{path.relative_to(ROOT)} imports {module}")
    assert {"pydantic", "numba", "numpy"} <= declared
    assert undeclared == []


def test_the_declared_versions_are_true_and_the_linters_pinned_once():
    import importlib.metadata as md
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for text in project["dependencies"]:
        requirement = Requirement(text)
        assert requirement.specifier.contains(md.version(requirement.name), prereleases=True), text
    numba = Requirement(next(d for d in project["dependencies"] if d.startswith("numba")))
    assert not numba.specifier.contains("0.59.1")  # NumPy 2 needs numba 0.60 or later
    pins = {Requirement(r).name: r for r in project["optional-dependencies"]["lint"]}
    assert set(pins) == {"ruff", "mypy"} and all("==" in r for r in pins.values())
    assert any("lint" in r for r in project["optional-dependencies"]["dev"])
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "'.[lint]'" in ci and "ruff==" not in ci and "mypy==" not in ci  # CI installs the one pin
