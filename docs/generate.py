"""Write the output the manual shows under its shell examples, by running them.

A shown output is marked in the page by a comment naming the command, followed by a
```console block:

    <!-- output: quintet-solve 8h 7h 9d Ts 7s Qc Jc --opponent uniform -->
    ```console
    $ quintet-solve 8h 7h 9d Ts 7s Qc Jc --opponent uniform
    … what the command printed …
    ```

``<!-- output (exit 2): … -->`` marks a command that must exit with status 2 (an error shown
on purpose); any other status is an error of this script.  A command may run over several
lines (``\\`` at the end of a line, as in a shell).  Each command runs in bash, in a fresh
temporary directory (its user data and cache directories too: the games' records and
histories; the records' time fixed by ``SOURCE_DATE_EPOCH``), with a fresh empty store
(``QUINTET_STORE``) and this interpreter's scripts first on ``PATH``; the block shows the
command and what it wrote to stdout and stderr, interleaved as a terminal shows them.
Durations (``1.064 s``) differ from run to run, so they are shown as ``… s``.

    python docs/generate.py            # rewrite the marked blocks of README.md and docs/*.md
    python docs/generate.py --check    # exit 1 if a page differs from what the commands print now
    python docs/generate.py docs/rules.md

``tests/test_docs.py`` checks that the committed pages equal what this script writes.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
TIMEOUT = 900  # seconds per command
SOURCE_DATE_EPOCH = "1764590400"  # 2025-12-01 12:00 UTC: the games' records show this time, at every run

MARKED = re.compile(
    r"^<!-- output(?: \(exit (?P<status>\d+)\))?: (?P<command>.*?) -->\n```console\n(?P<shown>.*?)^```$",
    re.DOTALL | re.MULTILINE)
DURATION = re.compile(r"(?<![\w.])\d+\.\d+ s\b")


class GenerateError(RuntimeError):
    """A marked command failed (another exit status than the marker says)."""


def commands(text: str) -> list[str]:
    """The marked commands of a page, in order."""
    return [m.group("command") for m in MARKED.finditer(text)]


def run(command: str, expected_status: int = 0) -> str:
    """What ``command`` prints (stdout and stderr interleaved), durations masked."""
    with tempfile.TemporaryDirectory(prefix="quintet-docs-") as tmp:
        env = dict(os.environ, QUINTET_STORE=str(Path(tmp) / "solutions.sqlite"), XDG_DATA_HOME=tmp,
                   XDG_CACHE_HOME=tmp, SOURCE_DATE_EPOCH=SOURCE_DATE_EPOCH, PYTHONUNBUFFERED="1",
                   PYTHONIOENCODING="utf-8", COLUMNS="120", TERM="dumb", NO_COLOR="1",
                   PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
        proc = subprocess.run(["bash", "-c", command], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8",
                              timeout=TIMEOUT)
    if proc.returncode != expected_status:
        raise GenerateError(f"{command!r} exited with status {proc.returncode}, not {expected_status}:\n"
                            f"{proc.stdout[-2000:]}")
    return DURATION.sub("… s", proc.stdout)


def render(text: str) -> str:
    """``text`` with every marked block rewritten from its command's output."""

    def block(m: re.Match[str]) -> str:
        command = m.group("command")
        status = int(m.group("status") or 0)
        head = m.group(0)[: m.start("shown") - m.start(0)]
        output = run(command, status)
        if output and not output.endswith("\n"):
            output += "\n"
        return f"{head}$ {command}\n{output}```"

    return MARKED.sub(block, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the output of the manual's marked shell examples.")
    parser.add_argument("pages", nargs="*", type=Path, help="pages to render (default: README.md and docs/*.md)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a page would change")
    args = parser.parse_args(argv)
    changed = []
    for page in args.pages or PAGES:
        text = page.read_text(encoding="utf-8")
        if not commands(text):
            continue
        new = render(text)
        if new == text:
            continue
        changed.append(page)
        if args.check:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                       str(page), f"{page} (generated)"))
        else:
            page.write_text(new, encoding="utf-8")
    for page in changed:
        print(f"{'differs' if args.check else 'rewritten'}: {page.relative_to(ROOT) if page.is_absolute() else page}",
              file=sys.stderr)
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
