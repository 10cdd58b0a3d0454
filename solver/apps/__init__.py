"""The programs: quintet-solve, quintet-play, quintet-tournament, quintet-batch, quintet-serve.

quintet-solve and quintet-tournament need the package alone; the others start here and need an extra
of pyproject.toml's (``quintet.cliutil.needs_extra``: without it, one line naming the install command).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module


def _run(prog: str, extra: str, module: str, argv: Sequence[str] | None) -> int:
    from quintet.cliutil import needs_extra  # not at the top: quintet-solve's client loads only the standard library

    with needs_extra(prog, extra):  # around the run too: some of the extra's modules load only when used
        return int(import_module(module).main(argv))


def quintet_serve(argv: Sequence[str] | None = None) -> int:
    return _run("quintet-serve", "serve", "solver.apps.serve.cli", argv)


def quintet_play(argv: Sequence[str] | None = None) -> int:
    return _run("quintet-play", "play", "solver.apps.play_cli", argv)


def quintet_batch(argv: Sequence[str] | None = None) -> int:
    return _run("quintet-batch", "batch", "solver.apps.batch.cli", argv)
