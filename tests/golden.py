"""The JSON every front-end prints for the example deal, recorded once and compared after a
change that must not alter behaviour (``tests/test_golden.py``).

``python tests/golden.py`` rewrites ``tests/data/golden.json`` from the current code.  Timing
fields are dropped; equilibria and safe mixes are compared by their fields and certificate,
not their mix (an engine change may find another mix of the same quality).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

from deals import EXAMPLE as EX
from deals import QUICK

GOLDEN = Path(__file__).resolve().parent / "data" / "golden.json"
A = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
B = "Th Td Tc 7d 7c | Js Jh Jd 8s 8d | Qs Qh Qd 9s 9h | Ks Kh Kd Kc 8c | As Ah Ad Ac 9c"
VOLATILE = {"seconds", "elapsed", "time", "cpu_seconds", "wall_seconds", "worker", "stats"}
STRUCTURE_ONLY = {"mix", "slot_marginals", "arrangement", "hands", "per_slot", "iterations", "pool_size",
                  "expected_margin", "expected_points", "exploitability", "bound", "margin_bound",
                  "equilibrium_margin", "best_response_margin", "exploitability_proven", "optimal", "converged"}

COMMANDS: dict[str, tuple[str, list[str]]] = {
    "solve-uniform": ("quintet-solve", [EX, "--opponent", "uniform", "--json"]),
    "solve-greedy": ("quintet-solve", [EX, "--opponent", "greedy", "--json"]),
    "solve-mixture": ("quintet-solve", [EX, "--opponent", "uniform:0.5,greedy:0.5", "--json"]),
    "solve-points": ("quintet-solve", [EX, "--opponent", "greedy", "--objective", "points", "--json"]),
    "solve-fix": ("quintet-solve", [EX, "--opponent", "uniform", "--fix", "5=Ah Kh Qh Jh Th", "--json"]),
    "solve-grade": ("quintet-solve", [EX, "--opponent", "uniform", "--grade", A, "--json"]),
    "solve-equilibrium": ("quintet-solve", [QUICK, "--no-store", "--quiet", "--json"]),
    "solve-safe": ("quintet-solve", [QUICK, "--opponent", "greedy", "--max-exploitability", "0.5", "--no-store",
                                     "--json"]),
    "showdown": ("quintet", ["showdown", "--exposed", EX, "--a", A, "--b", B, "--json"]),
    "hand": ("quintet", ["hand", "As Ah Ad Ac Jk", "--rules", "draw54", "--json"]),
    "compare": ("quintet", ["compare", "Ah Kh Qh Jh Th", "Jk Jk As Ad Ac", "--rules", "draw54", "--json"]),
    "draw": ("quintet", ["draw", "Ah Kh 9h 5h 2c", "--rules", "draw52", "--objective", "at-least:flush", "--json"]),
    "tournament": ("quintet-tournament", ["--exposed", EX, "--deals", "0", "--strategies",
                                          "uniform,greedy,br:uniform,br:greedy", "--json", "--no-store"]),
}


def _main_of(program: str) -> Any:
    import importlib.metadata as md

    (entry,) = [e for e in md.entry_points(group="console_scripts") if e.name == program]
    return entry.load()


def run(program: str, args: list[str]) -> Any:
    """The JSON a program prints for ``args`` (run in this process)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = _main_of(program)(args)
    assert status in (0, None), f"{program} {args}: exit {status}"
    return json.loads(out.getvalue())


def normalize(value: Any, key: str = "") -> Any:
    """Drop timing fields; reduce mixes to their shape."""
    if isinstance(value, dict):
        return {k: normalize(v, k) for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def structure(value: Any) -> Any:
    """The fields and types of an answer, for mixes whose arrangements may differ."""
    if isinstance(value, dict):
        return {k: (structure(v) if k not in STRUCTURE_ONLY else type(v).__name__)
                for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return "list"
    return type(value).__name__ if isinstance(value, float) else value


def record() -> dict[str, Any]:
    outputs: dict[str, Any] = {}
    for name, (program, args) in COMMANDS.items():
        answer = run(program, args)
        outputs[name] = structure(answer) if name in ("solve-equilibrium", "solve-safe") else normalize(answer)
    return outputs


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}", file=sys.stderr)
