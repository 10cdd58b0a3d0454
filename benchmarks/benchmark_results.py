"""Shared by the benchmark scripts: the machine's CPU name, the commit, and the RESULTS.md writer
(which ends every section with the commit and date it was written at)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")
START_LOAD = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")  # when the script started


def machine_load() -> str:
    """The CPU, its logical CPUs and the 1-minute load average when the script started (what else ran)."""
    load = "" if START_LOAD != START_LOAD else f", load average {START_LOAD:.2f} at the start"
    return f"{cpu_name()}, {os.cpu_count()} logical CPUs{load}"


def cpu_name() -> str:
    """The CPU model from /proc/cpuinfo (or what platform knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass  # not Linux: fall back below
    return platform.processor() or platform.machine()


def git_commit() -> str:
    """The commit the code ran at (``+dirty`` when tracked code files had uncommitted changes)."""
    try:
        root = RESULTS.parent.parent
        head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                 capture_output=True, text=True, check=True).stdout.splitlines()
        # outputs (RESULTS.md, data, plots, the notebook) do not make the code dirty
        dirty = [line for line in changed if line[3:].endswith((".py", ".toml", ".sh", ".js", ".html"))]
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_section(tag: str, title: str, body: str, path: Path = RESULTS) -> None:
    """Replace the section between ``<!-- tag:start -->`` and ``<!-- tag:end -->`` (added at
    the end when missing) with ``## title``, ``body`` and a last line naming the script, the commit
    and the date it was written at; other sections are left alone."""
    start, end = f"<!-- {tag}:start -->", f"<!-- {tag}:end -->"
    text = path.read_text() if path.exists() else (
        "# Benchmark results\n\nEach section is written by its benchmark script; rerun the script to refresh it.\n")
    stamp = (f"*Section written by `{Path(sys.argv[0]).name}` at commit `{git_commit()}` on "
             f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC.*")
    block = f"{start}\n## {title}\n\n{body}\n\n{stamp}\n{end}"
    if start in text and end in text and text.index(start) < text.index(end):
        text = text[: text.index(start)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)
