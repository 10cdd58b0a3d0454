"""A program in a tmux pane of a fixed size, as a person sees it: keys in, the screen out.

    with Pane(tmp_path, ["python", "-m", "solver.apps.play_cli", "--seed", "7"], width=80) as pane:
        pane.wait_for("game 1 (0/5 placed)>")
        pane.type("hint")
        pane.keys("Enter")
        text = pane.screen()              # what is on the screen (and the scrollback)
        raw = pane.screen(colours=True)   # with the escape codes of the colours

Each pane runs on a tmux server of its own (its socket in the test's directory), killed on exit.
The program runs under ``sh -c`` without ``NO_COLOR``, ``COLUMNS`` and ``LINES`` (pytest sets the last two,
and rich would believe them); ``EXIT=<status>`` is printed when it ends.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import tiers

TMUX = shutil.which("tmux")


class Pane:
    def __init__(self, tmp_path: Path, argv: list[str], *, width: int = 80, height: int = 50,
                 env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        tiers.require("tmux")
        if TMUX is None:
            pytest.skip("tmux not found on PATH (apt-get install -y tmux); the terminal run cannot happen")
        self.socket = str(tmp_path / f"tmux-{width}.sock")
        settings = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        cd = f"cd {shlex.quote(str(cwd))} && " if cwd else ""
        command = (f"{cd}env -u NO_COLOR -u COLUMNS -u LINES TERM=xterm-256color {settings} {shlex.join(argv)}; "
                   "echo EXIT=$?; sleep 600")
        self._tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), command)

    def _tmux(self, *args: str, stdin: str | None = None) -> str:
        assert TMUX is not None
        return subprocess.run([TMUX, "-S", self.socket, *args], capture_output=True, text=True, encoding="utf-8",
                              timeout=30, check=True, input=stdin).stdout

    def __enter__(self) -> Pane:
        return self

    def __exit__(self, *exc: object) -> None:
        assert TMUX is not None
        subprocess.run([TMUX, "-S", self.socket, "kill-server"], capture_output=True, timeout=30)

    def screen(self, *, colours: bool = False, joined: bool = False) -> str:
        """The pane and its scrollback; ``colours``: with escape codes; ``joined``: lines the
        terminal wrapped joined again (as they were written)."""
        flags = (["-e"] if colours else []) + (["-J"] if joined else [])
        return self._tmux("capture-pane", "-p", *flags, "-S", "-", "-t", "t")

    def lines(self) -> list[str]:
        return self.screen().rstrip("\n").split("\n")

    def wait_for(self, text: str, timeout: float = 90, after: int = 0) -> str:
        """The screen once ``text`` shows (more than ``after`` times)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            shown = self.screen()
            if shown.count(text) > after:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen()}")

    def type(self, text: str) -> None:
        """Typed literally (no key names)."""
        self._tmux("send-keys", "-t", "t", "-l", text)

    def keys(self, *names: str) -> None:
        """Keys by name: Enter, Up, Left, C-c, C-d …"""
        self._tmux("send-keys", "-t", "t", *names)

    def enter(self, line: str) -> None:
        self.type(line)
        self.keys("Enter")

    def paste(self, text: str) -> None:
        """Paste ``text`` as a terminal does, in bracketed-paste markers (when the program asks for them)."""
        self._tmux("load-buffer", "-b", "p", "-", stdin=text)
        self._tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", "t")

    def prompt_line(self) -> str:
        """The last non-empty line: the prompt and what is typed after it."""
        return [line for line in self.lines() if line.strip()][-1]
