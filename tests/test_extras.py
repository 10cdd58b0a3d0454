"""The package alone runs ``quintet-solve``; each other program names its extra when it is missing.

Each check runs in a fresh interpreter whose import hook refuses every module of the extras
(pyproject.toml's ``serve``, ``play``, ``batch`` and ``bench``) and reports the imports it refused,
so an import that a ``try`` would swallow is seen too.  (A virtualenv with the package alone,
``pip install .``, is the same check made by hand: docs/contributing.md.)
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from deals import EXAMPLE as README_EXAMPLE
from packaging.requirements import Requirement

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = ("serve", "play", "batch", "bench")


def _extra_modules() -> set[str]:
    """The top-level modules of the extras' distributions (``dask[distributed]``: dask and distributed)."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    modules = set()
    for extra in EXTRAS:
        for requirement in map(Requirement, extras[extra]):
            modules |= {name.lower().replace("-", "_") for name in (requirement.name, *requirement.extras)}
    return modules


HOOK = """
import atexit, importlib.abc, sys
REFUSED = set({modules!r})
tried = []
class NoExtras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in REFUSED:
            tried.append(name)
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, NoExtras())
atexit.register(lambda: print("refused:", sorted(set(tried)), file=sys.stderr))
"""


def without_extras(code: str, cwd: Path = ROOT) -> tuple[int, str, str, list[str]]:
    """Run ``code`` with the extras refused: (status, stdout, stderr but the report, the refused imports)."""
    script = HOOK.format(modules=sorted(_extra_modules())) + textwrap.dedent(code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=600)  # a hang cap: the README's example takes about 5 s alone
    *lines, report = done.stderr.rstrip("\n").split("\n")
    assert report.startswith("refused: "), done.stderr
    return done.returncode, done.stdout, "\n".join(lines), ast.literal_eval(report.removeprefix("refused: "))


def test_the_hook_refuses_what_the_extras_bring():
    assert {"fastapi", "starlette", "uvicorn", "h11", "rich", "prompt_toolkit", "tqdm", "dask"} <= _extra_modules()
    status, _, err, tried = without_extras("import rich")
    assert status == 1 and "No module named 'rich'" in err and tried == ["rich"]  # the control


def test_quintet_solve_runs_without_any_extra():
    status, out, err, tried = without_extras(f"""
        from solver.apps.solve_client import main
        try:
            main(["--help"])
        except SystemExit as exc:
            assert exc.code == 0
        raise SystemExit(main({README_EXAMPLE.split()!r} + ["--quiet"]))
    """)
    assert (status, tried) == (0, []), err
    assert "usage: quintet-solve" in out and "Exploitability: 0" in out


def test_the_game_tools_run_without_any_extra():
    a = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
    status, out, err, tried = without_extras(f"""
        from quintet.cli import main
        try:
            main(["--help"])
        except SystemExit as exc:
            assert exc.code == 0
        assert main(["hand", "As Ah Ad Ac Jk", "--rules", "draw54"]) == 0
        raise SystemExit(main(["showdown", "--exposed", "{README_EXAMPLE}", "--unicode", "--a", "{a}", "--b", "{a}"]))
    """)
    assert status == 0, err
    assert set(tried) <= {"rich", "prompt_toolkit"}  # quintet poker's parser looks for them
    assert "poker" in out and "five of a kind, aces" in out and "A 0 : B 0 — tie" in out


@pytest.mark.parametrize("program, extra, code", [
    ("quintet-serve", "serve", "from solver.apps import quintet_serve; quintet_serve(['--port', '0'])"),
    ("quintet-play", "play", "from solver.apps import quintet_play; quintet_play(['--no-store'])"),
    ("quintet-batch", "batch", "from solver.apps import quintet_batch; quintet_batch(['--random', '1', '--no-store'])"),
    ("quintet poker", "play", "from quintet.cli import main; main(['poker', '--players', '3'])"),
    ("quintet-tournament --plot", "bench",
     "from solver.apps.tournament import main; main(['--exposed', '8h 7h 9d Ts 7s Qc Jc', '--plot', 'x.png'])"),
])
def test_a_program_without_its_extra_names_the_install_command(program, extra, code, tmp_path):
    status, out, err, tried = without_extras(code, cwd=tmp_path)
    assert (status, out) == (2, "")
    assert err == f"{program} needs the {extra} extra: pip install 'quintet-solver[{extra}]'"
    assert tried
