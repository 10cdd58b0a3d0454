"""The page's modules type-check: TypeScript's ``tsc`` reads their JSDoc types (``// @ts-check``,
``tsconfig.json``) and finds no error — a wrong property, a call with the wrong arguments, an unused
name.  Skipped, with the reason, where TypeScript is not installed (``.ci/run`` installs its pinned
version into ``node_modules/``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "solver" / "apps" / "serve" / "static"
TSC = ROOT / "node_modules" / ".bin" / "tsc"


def test_every_module_asks_for_the_check():
    """``// @ts-check`` heads every script (an editor checks it then, with or without the config)."""
    modules = sorted(STATIC.glob("*.js"))
    assert len(modules) >= 10
    for module in modules:
        assert module.read_text(encoding="utf-8").startswith("// @ts-check\n"), module.name


@pytest.mark.subprocess
def test_the_page_s_modules_type_check():
    if shutil.which("node") is None or not TSC.exists():
        pytest.skip("no TypeScript: npm install --no-save typescript (.ci/run installs the pinned version)")
    run = subprocess.run([str(TSC), "-p", str(ROOT / "tsconfig.json")], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
