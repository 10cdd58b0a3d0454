"""The command-line programs run in this process, as their console scripts run them: ``main(argv)``
with stdin from a string and stdout/stderr captured as UTF-8 text streams that are not a terminal
(as a pipe is), the exit status from its return or its ``SystemExit`` (argparse's errors, --help).
What a subprocess adds — the installed entry point, a fresh interpreter, signals, a terminal — is
tested once per program by a test marked ``subprocess`` or ``tmux``."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Ran:
    """What a program did: the fields of ``subprocess.CompletedProcess`` the tests read."""

    returncode: int
    stdout: str
    stderr: str


def _text_stream(data: str = "") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data.encode("utf-8")), encoding="utf-8", newline=None, write_through=True)


def run_main(main: Callable[[Sequence[str]], int], argv: Sequence[str], stdin: str = "") -> Ran:
    """``main(argv)`` in this process: (exit status, stdout, stderr)."""
    out, err = _text_stream(), _text_stream()
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        previous_stdin = sys.stdin
        sys.stdin = _text_stream(stdin)
        stack.callback(setattr, sys, "stdin", previous_stdin)
        try:
            status = main(list(argv))
        except SystemExit as exit_:
            code = exit_.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if code is not None and not isinstance(code, int):
                print(code, file=sys.stderr)
    return Ran(status, _read(out), _read(err))


def _read(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8").replace("\r\n", "\n")


def child_pids(pid: int) -> list[str]:
    """The processes ``pid`` started (``pgrep -P``): a pool's workers."""
    return subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()


def still_running(pids: Sequence[str]) -> list[str]:
    """Those of ``pids`` that still run (a zombie has exited: it only waits to be reaped)."""
    return [pid for pid in pids if Path(f"/proc/{pid}").exists()
            and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()]
