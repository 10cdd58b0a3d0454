"""solver.engines.precompile: on a cold numba cache the kernels a command calls are compiled ahead
(partly in a worker process) with the very signatures the command uses — so the command itself
compiles nothing — and on a warm cache nothing is missing."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

COMMAND_AFTER_PRECOMPILE = """
    import io, contextlib, sys
    import numba.core.event as ev
    from solver.engines.precompile import GROUPS, precompile, _specimens, is_cached

    missing = precompile(list(GROUPS), parallel=True)
    assert missing > 0, "the cache was meant to be cold"
    assert all(is_cached(kernel, args) for _, _, kernel, args in _specimens(GROUPS))
    compiled = []

    class Compiles(ev.Listener):
        def on_start(self, event):
            f = event.data["dispatcher"].py_func
            if f.__module__.split(".")[0] in ("quintet", "solver"):
                compiled.append(f.__module__ + "." + f.__qualname__)

        def on_end(self, event):
            pass

    ev.register("numba:compile", Compiles())
    from solver.apps.solve_cli import main
    with contextlib.redirect_stdout(io.StringIO()):
        assert main("8h 7h 9d Ts 7s Qc Jc --opponent uniform".split()) == 0
        assert main("Kc Qh Qd Js 9d 8s 7d --no-store --epsilon 0.5 --quiet".split()) == 0
    print(sorted(set(compiled)))
    print(precompile(list(GROUPS)))
"""


@pytest.mark.subprocess
@pytest.mark.slow
def test_a_command_compiles_nothing_after_precompile_on_a_cold_cache(tmp_path):
    ran = subprocess.run([sys.executable, "-c", textwrap.dedent(COMMAND_AFTER_PRECOMPILE)], capture_output=True,
                         text=True, timeout=900, cwd=ROOT, env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert ran.returncode == 0, ran.stderr
    compiled, missing_after = ran.stdout.strip().splitlines()
    # nothing but the bound of a search stopped at its time limit (then compiled at its first call)
    assert set(ast.literal_eval(compiled)) <= {"solver.engines.search._open_bound"}, compiled
    assert missing_after == "0"
