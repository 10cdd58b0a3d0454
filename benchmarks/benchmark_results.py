"""Shared by the benchmark scripts: the machine's CPU name and the RESULTS.md writer."""

from __future__ import annotations

import platform
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def cpu_name() -> str:
    """The CPU model from /proc/cpuinfo (or what platform knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass  # not Linux: fall back below
    return platform.processor() or platform.machine()


def write_section(tag: str, title: str, body: str, path: Path = RESULTS) -> None:
    """Replace the section between ``<!-- tag:start -->`` and ``<!-- tag:end -->`` (added at
    the end when missing) with ``## title`` and ``body``; other sections are left alone."""
    start, end = f"<!-- {tag}:start -->", f"<!-- {tag}:end -->"
    text = path.read_text() if path.exists() else (
        "# Benchmark results\n\nEach section is written by its benchmark script; rerun the script to refresh it.\n")
    block = f"{start}\n## {title}\n\n{body}\n{end}"
    if start in text and end in text and text.index(start) < text.index(end):
        text = text[: text.index(start)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)
