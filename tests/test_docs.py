"""The README's Python examples and every docstring example, run as doctests.

Each ```python block of the README is a doctest session (``>>>`` lines and their output);
every module of ``quintet`` and ``solver`` is searched for docstring examples.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import quintet
import solver

README = Path(__file__).resolve().parents[1] / "README.md"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


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


def _readme_blocks() -> list[tuple[int, str]]:
    text = README.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in _PYTHON_BLOCK.finditer(text)]


def test_readme_has_python_examples_and_each_is_a_doctest():
    blocks = _readme_blocks()
    assert len(blocks) >= 2
    for line, block in blocks:
        assert block.lstrip().startswith(">>>"), f"README.md line {line}: a ```python block that is not run"


@pytest.mark.parametrize("index", range(len(_readme_blocks())))
def test_readme_python_examples(index):
    line, block = _readme_blocks()[index]
    test = doctest.DocTestParser().get_doctest(block, {}, f"README.md block {index + 1}", str(README), line)
    attempted, report = _run(test)
    assert attempted > 0
    assert not report, report


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
