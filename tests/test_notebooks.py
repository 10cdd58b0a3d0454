"""The notebooks under notebooks/ are committed with their outputs (run on a modest sample, so a
reader sees the results without running them) and a copy executes here on small data."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
KERNEL = "quintet-test-python"

# Small data: 2 deals, loose ε, short time limits; a seed whose first deals solve in about a second.
SMALL = {
    "QUINTET_NB_DEALS": "2",
    "QUINTET_NB_EPSILON": "0.1",
    "QUINTET_NB_TIME_LIMIT": "30",
    "QUINTET_NB_SEED": "3",
}


def test_there_is_a_notebook():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_with_its_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code
    counts = [c.get("execution_count") for c in code]
    assert all(isinstance(n, int) for n in counts), f"{path.name}: a cell was not run before committing"
    assert counts == sorted(counts), f"{path.name}: cells were run out of order"
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"], f"{path.name}: a committed cell failed"
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 4, f"{path.name}: plots missing"
    # the data size is a parameter read from the environment
    assert "QUINTET_NB_DEALS" in "".join("".join(c["source"]) for c in code)


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    """A kernelspec for this very interpreter (so the notebook sees the installed project)."""
    pytest.importorskip("ipykernel")
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "quintet tests", "language": "python",
    }))
    return root


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_on_small_data(path, kernel_dir, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    for key, value in SMALL.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the notebook draws inline
    monkeypatch.setenv("QUINTET_STORE", str(tmp_path / "store.sqlite"))  # never the user's store
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # a clean copy: what runs here is the code, not the committed results
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = nbclient.NotebookClient(nb, kernel_name=KERNEL, timeout=240,
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 4, "the analyses should draw their plots"
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "Nothing is sampled" in text


RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "RESULTS.md"
OVERVIEW = Path(__file__).resolve().parent.parent / "notebooks" / "quintet_research_overview.ipynb"

# (what, the notebook's printed line, the same figures in RESULTS): every group of the two must match
FIGURES = [
    ("the book", r"the book at ε ≤ ([\d.]+) \(bench_book\.py.*?\): ([\d.]+) CPU-hours \[([\d.]+), ([\d.]+)\]",
     r"the book at ε ≤ ([\d.]+): 156,248 classes × [\d.]+ CPU s = ([\d.]+) CPU-hours \[([\d.]+), ([\d.]+)\]"),
    ("unique deals and their radius",
     r"unique to a certified radius: (\d+) of (\d+) deals; r per deal: median (\S+), p90 (\S+), max (\S+)\n",
     r"\*\*unique to a certified radius\*\* \| \*\*(\d+) of (\d+)\*\*.*?r per deal: median (\S+), p90 (\S+), "
     r"max (\S+) \|"),
    ("not unique, material", r"not unique, material: (\d+);", r"\| not unique, material \| (\d+) \|"),
    ("not unique, between", r"between: (\d+);", r"\| not unique, between \| (\d+) \|"),
    ("not unique, small", r"small: (\d+);", r"\| not unique, small \| (\d+) \|"),
    ("undecided", r"undecided: (\d+)\n", r"\| undecided \| (\d+) \|"),
    ("support over its lower bound", r"unique deals: median ([\d.]+)× ", r"it is ([\d.]+)× the lower bound"),
    ("support pinned", r"pinned on (\d+) of (\d+)\n", r"pinned \(fewest found = lower bound\) on (\d+) of (\d+) "),
    ("security levels proved", r"proved exactly on (\d+) of (\d+) deals",
     r"\*\*proved exactly on (\d+) of (\d+) deals\*\*"),
]


def _notebook_text(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []) if o.get("output_type") == "stream")


def _groups(pattern: str, text: str) -> list[str]:
    """The captures of the pattern's first match in the text."""
    m = re.search(pattern, text, re.S)
    assert m is not None, f"not found: {pattern}"
    return list(m.groups())


@pytest.mark.parametrize("what, in_notebook, in_results", FIGURES, ids=[f[0] for f in FIGURES])
def test_notebook_figures_are_results_figures(what, in_notebook, in_results):
    """The committed notebook prints the figures RESULTS states, from the same committed data: a
    notebook left stale by a re-run (or RESULTS by a notebook) fails here."""
    notebook = _groups(in_notebook, _notebook_text(OVERVIEW))
    results = _groups(in_results, RESULTS.read_text(encoding="utf-8"))
    assert notebook == results, f"{what}: the notebook says {notebook}, RESULTS {results}"


def test_notebook_output_is_clean():
    """No warning, no empty legend entry, no spelling the command line rejects, no claim RESULTS refutes
    (in what a reader sees: the outputs and the text cells)."""
    nb = json.loads(OVERVIEW.read_text(encoding="utf-8"))
    seen = json.dumps([c["source"] for c in nb["cells"] if c["cell_type"] == "markdown"]
                      + [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
                         if o.get("output_type") != "display_data"], ensure_ascii=False)
    for bad in ("Warning", "( partitions)", "br-uniform", "br-greedy", "wall-clock would measure"):
        assert bad not in seen, bad
