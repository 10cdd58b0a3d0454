"""The kernels a command needs, compiled ahead and in parallel when numba's cache is cold.

On a warm cache numba loads a kernel from disk at its first call; on a cold one (a fresh
install, a changed source file) it compiles each kernel at its first call, one after the other,
in the command's own process — most of a first command's time.  ``precompile(groups)``, called by
a command before its work, asks numba's cache index whether each kernel it will call is there
for the signature it will be called with (``is_cached``: the index is read, nothing is loaded).
When some are not, it starts one worker process (``python -m solver.engines.precompile``) for the
largest kernel — the exact search's ``_run`` with the helpers it calls — and compiles the others
in this process meanwhile; then it waits for the worker.  Both write into the same cache, each
kernel from one process only, and the command then loads them all from there.  On a warm cache
it costs the reading of a few index files.

Each module of kernels says how they are called (``kernel_specimens()``: a kernel and arguments
of the right types with placeholder values), so a kernel compiles without a deal.
``tests/test_precompile.py`` checks that a command compiles nothing after ``precompile``.
If anything here fails, nothing is lost: numba compiles at the first call as before.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["GROUPS", "precompile", "is_cached", "groups_for"]

GROUPS: dict[str, tuple[str, ...]] = {
    "evaluator": ("quintet.kernels", "solver.problem.packet_index"),
    "search": ("solver.engines.search",),
    "local search": ("solver.engines.local_search",),
}
"""A group of kernels: the modules whose ``kernel_specimens()`` list them."""
ASIDE = ("solver.engines.search", "_run")
"""The kernel compiled in a worker process (the largest: about half of the search's compilation)."""


def _specimens(groups: Iterable[str]) -> list[tuple[str, str, Any, tuple[Any, ...]]]:
    """(module, kernel name, dispatcher, arguments) of every kernel of ``groups``."""
    out = []
    for group in groups:
        for module_name in GROUPS[group]:
            module = importlib.import_module(module_name)
            for kernel, args in module.kernel_specimens():
                out.append((module_name, kernel.py_func.__name__, kernel, args))
    return out


def _signature(args: tuple[Any, ...]) -> tuple[Any, ...]:
    from numba import typeof

    return tuple(typeof(a) for a in args)


def is_cached(kernel: Any, args: tuple[Any, ...]) -> bool:
    """Does numba's on-disk cache hold ``kernel`` for the types of ``args`` (built from this source)?

    Reads the kernel's cache index through numba's caching internals; True when they cannot be
    read (then the kernel is simply compiled at its first call, as without this module)."""
    try:
        cache = kernel._cache
        key = cache._index_key(_signature(args), kernel.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - numba's internals moved: behave as numba alone would
        return True


def _compile(kernel: Any, args: tuple[Any, ...]) -> None:
    kernel.compile(_signature(args))


def precompile(groups: Sequence[str], *, parallel: bool | None = None) -> int:
    """Compile the kernels of ``groups`` not yet in numba's cache: the largest in a worker
    process (when ``parallel``; default: when this machine has two CPUs or more), the rest here;
    returns how many kernels were missing (0 on a warm cache, which costs a few index reads)."""
    missing = [(m, name, kernel, args) for m, name, kernel, args in _specimens(groups) if not is_cached(kernel, args)]
    if not missing:
        return 0
    if parallel is None:
        parallel = (os.cpu_count() or 1) >= 2
    aside = [x for x in missing if (x[0], x[1]) == ASIDE] if parallel else []
    worker = None
    if aside:  # in a session of its own: a Ctrl-C at the terminal is this process's, which ends it
        worker = subprocess.Popen([sys.executable, "-m", "solver.engines.precompile",
                                   *[f"{m}:{n}" for m, n, _, _ in aside]], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for module_name, name, kernel, args in missing:
            if (module_name, name) != ASIDE or worker is None:
                _compile(kernel, args)
        if worker is not None:
            worker.wait()
    finally:
        if worker is not None and worker.poll() is None:  # interrupted here: the worker goes too
            worker.kill()
            worker.wait()
    return len(missing)


def groups_for(*, classic_evaluator: bool, local_search: bool) -> list[str]:
    """The groups a quintet-solve command calls: the search always, the 32-card evaluator for the
    classic deck's rule sets, the local search for an equilibrium (its cheap oracle)."""
    return (["evaluator"] if classic_evaluator else []) + ["search"] + (["local search"] if local_search else [])


def main(argv: Sequence[str] | None = None) -> int:
    """The worker: compile the kernels named ``module:kernel`` (of ``GROUPS``)."""
    ap = argparse.ArgumentParser(prog="python -m solver.engines.precompile", description=__doc__.splitlines()[0])
    ap.add_argument("kernels", nargs="+", metavar="MODULE:KERNEL")
    wanted = set(tuple(k.split(":", 1)) for k in ap.parse_args(argv).kernels)
    for module_name, name, kernel, args in _specimens(GROUPS):
        if (module_name, name) in wanted:
            with contextlib.suppress(Exception):  # the command compiles it itself then
                _compile(kernel, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
