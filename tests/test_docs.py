"""The manual's examples are code: run as doctests, or run and compared.

* Each ```python block of the README and of every page under docs/ is a doctest session
  (``>>>`` lines and their output); every module of ``quintet`` and ``solver`` is searched
  for docstring examples.
* A shown output is written by the program: ``docs/generate.py`` runs each command marked
  ``<!-- output: … -->`` and writes what it printed under it; the committed pages must equal
  what it writes (the README here, every page under ``-m slow``: the solves take minutes).
* In docs/draw-poker.md every ``quintet …`` line of a ```bash block runs (stdin empty: the
  interactive game ends at once) and must exit 0, and every ``$ quintet …`` line of a
  ```console block must print exactly the lines under it.
* Nothing points outside the repository: no ``../shared`` paths, no ``RULES.md`` or
  ``DESIGN.md``, no issue numbers.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import os
import pkgutil
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import quintet
import solver

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DRAW_POKER = ROOT / "docs" / "draw-poker.md"
PAGES = (README, *sorted((ROOT / "docs").glob("*.md")))
_WITH_PYTHON = ("draw-poker", "python", "rules", "play", "architecture")
RUNNABLE = (README, *(ROOT / "docs" / f"{name}.md" for name in _WITH_PYTHON))  # pages that hold Python examples
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
_BASH_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.DOTALL | re.MULTILINE)
_CONSOLE_BLOCK = re.compile(r"^```console\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _modules() -> list[str]:
    names = []
    for package in (quintet, solver):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
                  if not m.name.endswith(".__main__")]
    return sorted(names)


MODULES = _modules()


def _run(test: doctest.DocTest) -> tuple[int, str]:
    """Run one doctest; (examples attempted, the failure report or '')."""
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    result = runner.run(test, out=out.append)
    return result.attempted, "".join(out)


def _blocks(page: Path, pattern: re.Pattern[str] = _PYTHON_BLOCK) -> list[tuple[int, str]]:
    """(line of the block's first line, text) of each block of ``page`` matching ``pattern``."""
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in pattern.finditer(text)]


PYTHON_EXAMPLES = [(page, i) for page in PAGES for i in range(len(_blocks(page)))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_python_block_is_a_doctest(page):
    for line, block in _blocks(page):
        assert block.lstrip().startswith(">>>"), f"{page.name} line {line}: a ```python block that is not run"


@pytest.mark.parametrize("page", RUNNABLE, ids=lambda p: p.name)
def test_pages_have_python_examples(page):
    assert _blocks(page)


@pytest.mark.parametrize("page, index", PYTHON_EXAMPLES, ids=[f"{p.name}-{i + 1}" for p, i in PYTHON_EXAMPLES])
def test_python_examples(page, index):
    line, block = _blocks(page)[index]
    test = doctest.DocTestParser().get_doctest(block, {}, f"{page.name} block {index + 1}", str(page), line)
    attempted, report = _run(test)
    assert attempted > 0
    assert not report, report


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_are_self_contained(page):
    text = page.read_text(encoding="utf-8")
    for outside in ("../shared", "shared/seeds", "RULES.md", "DESIGN.md"):
        assert outside not in text, f"{page.name} points at {outside}"
    assert re.search(r"\bissue\s*#?\d", text, re.IGNORECASE) is None, f"{page.name} names an issue number"


def test_no_message_or_docstring_names_an_issue_or_a_file_outside():
    """The packages' text (messages, help, docstrings, the page) cites neither issue numbers nor
    files a user does not have; a bug of another project (CPython issue N) may be cited."""
    bad = []
    for path in sorted([*ROOT.glob("quintet/**/*"), *ROOT.glob("solver/**/*")]):
        if path.suffix not in (".py", ".js", ".html", ".css"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"(?<!CPython )\bissue[- ]?#?\d", line, re.IGNORECASE) or \
                    re.search(r"RULES\.md|DESIGN\.md|\.\./shared", line):
                bad.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not bad, "\n".join(bad)


def _commands() -> list[str]:
    """The ``quintet …`` lines of the manual's ```bash blocks, comments dropped."""
    blocks = _blocks(DRAW_POKER, _BASH_BLOCK)
    lines = [line.split("  #")[0].strip() for _, block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith("quintet ")]


def _quintet(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(command)
    return subprocess.run([sys.executable, "-m", "quintet.cli", *argv[1:]], input="", capture_output=True, text=True,
                          encoding="utf-8", env=dict(os.environ, PYTHONIOENCODING="utf-8"), cwd=cwd, timeout=300)


@pytest.mark.subprocess
@pytest.mark.parametrize("command", _commands())
def test_draw_poker_manual_commands_run(command, tmp_path):
    proc = _quintet(command, tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout


def _console_examples() -> list[tuple[str, str]]:
    """(command, the output shown under it) of each ``$ quintet …`` line of the manual's ```console blocks."""
    examples: list[tuple[str, list[str]]] = []
    for _, block in _blocks(DRAW_POKER, _CONSOLE_BLOCK):
        for line in block.splitlines():
            if line.startswith("$ "):
                examples.append((line[2:], []))
            else:
                examples[-1][1].append(line)
    return [(command, "\n".join(output) + "\n") for command, output in examples]


@pytest.mark.subprocess
@pytest.mark.parametrize("command, shown", _console_examples())
def test_draw_poker_manual_shows_real_output(command, shown, tmp_path):
    proc = _quintet(command, tmp_path)
    assert proc.returncode == 0 and proc.stdout == shown


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures = []
    for test in doctest.DocTestFinder().find(module, name):
        _, report = _run(test)
        if report:
            failures.append(report)
    assert not failures, "\n".join(failures)


def test_docstring_examples_exist():
    """The parametrized test above is not vacuous: the packages carry examples."""
    count = sum(len(t.examples) for name in MODULES
                for t in doctest.DocTestFinder().find(importlib.import_module(name), name))
    assert count >= 25


def _generator():
    """docs/generate.py as a module."""
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATED = [page for page in PAGES if _generator().commands(page.read_text(encoding="utf-8"))]


@pytest.mark.subprocess  # the command runs as the installed program, in a shell
def test_the_readme_shows_what_its_command_prints():
    """The fast case of the next test: the README's example, a best response of about a second."""
    generate = _generator()
    text = README.read_text(encoding="utf-8")
    assert generate.commands(text)
    assert generate.render(text) == text, "run python docs/generate.py README.md and commit it"


@pytest.mark.slow
@pytest.mark.parametrize("page", GENERATED, ids=lambda p: p.name)
def test_every_shown_output_is_what_the_command_prints(page):
    generate = _generator()
    text = page.read_text(encoding="utf-8")
    assert generate.render(text) == text, f"run python docs/generate.py {page.relative_to(ROOT)} and commit it"


def test_the_generator_masks_only_durations():
    generate = _generator()
    assert generate.DURATION.sub("… s", "engine search; 1.064 s; 22 iterations, 9.8 s") == \
        "engine search; … s; 22 iterations, … s"
    assert generate.DURATION.sub("… s", "time limit 600 s, ε 0.05") == "time limit 600 s, ε 0.05"
