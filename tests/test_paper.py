"""The paper (docs/paper.md) is a template whose every figure ``docs/paper_figures.py`` computes from
``benchmarks/data/`` at build time: no placeholder without a figure, no figure without its data file,
no figure left unused, the same figures as benchmarks/RESULTS.md, and the manual builds with it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))

import hooks  # noqa: E402
import paper_figures as pf  # noqa: E402

PAGE = ROOT / "docs" / "paper.md"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"


@pytest.fixture(scope="module")
def figures() -> dict[str, str]:
    return pf.figures()


def test_every_placeholder_has_a_figure_and_every_figure_a_placeholder(figures):
    text = PAGE.read_text(encoding="utf-8")
    used = set(pf.PLACEHOLDER.findall(text))
    assert used - set(figures) == set(), "placeholders without a figure"
    assert set(figures) - used == set(), "figures the page never shows"
    rendered = pf.render(text, figures)
    assert "{{" not in rendered and "}}" not in rendered


def test_an_unknown_placeholder_stops_the_build():
    with pytest.raises(pf.PaperError, match="no figure named 'no_such_figure'"):
        pf.render("a {{ no_such_figure }} here", {"other": "1"})


NEEDED = ["population.json", "equilibrium-classes.jsonl", "equilibrium-dealt.jsonl", "structure.json",
          "uniqueness.json", "security.json", "kmix.json", "book.json", "profile-2026-12-02.jsonl",
          "soundness-2026-12-03.jsonl", "structure.jsonl", "structure-bounds.jsonl", "book-sample.jsonl"]


@pytest.mark.parametrize("missing", NEEDED)
def test_a_missing_data_file_stops_the_build(missing, tmp_path, monkeypatch):
    for path in pf.DATA.iterdir():
        if path.name != missing:
            (tmp_path / path.name).symlink_to(path)
    monkeypatch.setattr(pf, "DATA", tmp_path)
    with pytest.raises(pf.PaperError, match=re.escape(f"benchmarks/data/{missing}, which is missing")):
        pf.figures()


def _sci_value(text: str) -> float:
    """1.2·10⁻⁵ back to 1.2e-05."""
    mantissa, _, exponent = text.partition("·10")
    digits = exponent.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
    return float(mantissa) * 10 ** int(digits or 0)


def _results(pattern: str) -> list[str]:
    m = re.search(pattern, RESULTS.read_text(encoding="utf-8"), re.S)
    assert m is not None, f"RESULTS has no {pattern}"
    return list(m.groups())


def test_the_figures_are_results_figures(figures):
    """A few figures against the values RESULTS states from the same data files."""
    median, p95, mx = _results(r"## Equilibrium\n.*?CPU seconds per deal: median ([\d.]+), p90 [\d.]+, "
                               r"p95 ([\d.]+), p99 [\d.]+, max ([\d.]+)")
    assert figures["eq_classes_cpu_median"].split()[0] == median
    assert (figures["eq_classes_cpu_p95"], figures["eq_classes_cpu_max"]) == (p95, mx)
    assert figures["eq_dealt_cpu_median"].split()[0] == _results(
        r"## Equilibrium, deals as dealt\n.*?CPU seconds per deal: median ([\d.]+)")[0]
    k, n, r_median, r_p90, r_max = _results(
        r"\*\*unique to a certified radius\*\* \| \*\*(\d+) of (\d+)\*\*.*?r per deal: median (\S+), p90 (\S+), "
        r"max (\S+) \|")
    assert figures["st_unique"].startswith(f"{k} of {n} ")
    for name, value in (("st_radius_median", r_median), ("st_radius_p90", r_p90), ("st_radius_max", r_max)):
        assert _sci_value(figures[name]) == pytest.approx(float(value), rel=0.06), name
    for tier in ("material", "between", "small"):
        assert figures[f"st_{tier}"].startswith(_results(rf"\| not unique, {tier} \| (\d+) \|")[0] + " of ")
    assert figures["st_undecided"].startswith(_results(r"\| undecided \| (\d+) \|")[0] + " of ")
    assert figures["sp_ratio"].split()[0] == _results(r"it is ([\d.]+)× the lower bound")[0]
    assert figures["sp_pinned"] == _results(r"pinned \(fewest found = lower bound\) on (\d+) of")[0]
    hours, lo, hi = _results(r"the book at ε ≤ [\d.]+: 156,248 classes × [\d.]+ CPU s = ([\d.]+) CPU-hours "
                             r"\[([\d.]+), ([\d.]+)\]")
    assert figures["bk_hours"] == f"{hours} [{lo}, {hi}]"
    proved, deals = _results(r"\*\*proved exactly on (\d+) of (\d+) deals\*\*")
    assert figures["se_proved"].startswith(f"{proved} of {deals} ")
    instances, cpsat, cpsat_deals, per_instance, per_deal = _results(
        r"\*\*Disagreements: 0\*\* among (\d+) instances.*?CP-SAT proved its optimum on \*\*(\d+) instances from "
        r"(\d+) deals\*\*.*?at \*\*([\d.]+%)\*\*.*?at \*\*([\d.]+%)\*\*")
    assert (figures["so_instances"], figures["so_cpsat"], figures["so_cpsat_deals"]) == (instances, cpsat, cpsat_deals)
    assert (figures["so_instance_bound"], figures["so_deal_bound"]) == (per_instance, per_deal)
    assert "| 20 | " + _results(r"\| 20 \| [^|]+\| ([\d.]+ \[[\d.]+, [\d.]+\]) \|")[0] + " |" in figures["km_table"]


BASELINE = {"command": "python benchmarks/bench_x.py --deals 3", "commit": "abcdef1234", "target_epsilon": 0.01,
            "cpu_budget": 10.0, "deals": [
                {"seed": s, "exposed": "?", "double_oracle": {"cpu_s": do, "epsilon": e1, "iterations": 5},
                 "marginal": {"cpu_s": mp, "epsilon": e2, "iterations": 9}}
                for s, do, e1, mp, e2 in ((1, 1.0, 0.0, 4.0, 0.005), (2, 2.0, 0.001, 6.0, 0.02),
                                          (3, 3.0, 0.0, 8.0, 0.0))]}


def test_the_marginal_baseline_section_renders_its_file_or_says_pending(tmp_path, monkeypatch):
    monkeypatch.setattr(pf, "DATA", tmp_path)
    assert "pending" in pf.marginal_baseline()["marginal_baseline"]
    (tmp_path / pf.MARGINAL_BASELINE).write_text(json.dumps(BASELINE), encoding="utf-8")
    text = pf.marginal_baseline()["marginal_baseline"]
    assert "pending" not in text and "`abcdef1234`" in text
    do_row, mp_row = (line for line in text.splitlines() if line.startswith(("| double oracle", "| marginal")))
    assert "3 of 3 (100%" in do_row and "| 2.00 [" in do_row  # median CPU of 1, 2, 3
    assert "2 of 3 (67%" in mp_row and "| 6.00 [" in mp_row
    assert "double oracle certified the lower ε on 2 deals, the marginal polytope on 0" in text
    assert "on the 2 deals both reached: median 3.33" in text  # ratios 4 and 8/3 (deal 2 not reached)


def test_the_hook_renders_the_paper_and_leaves_other_pages():
    page = SimpleNamespace(file=SimpleNamespace(src_uri="paper.md"))
    rendered = hooks.on_page_markdown(PAGE.read_text(encoding="utf-8"), page, None, None)
    assert "{{" not in rendered
    other = SimpleNamespace(file=SimpleNamespace(src_uri="rules.md"))
    assert hooks.on_page_markdown("{{ kept }}", other, None, None) == "{{ kept }}"


@pytest.mark.subprocess
def test_the_manual_builds_strictly_with_the_paper(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (tmp_path / "site" / "paper" / "index.html").read_text(encoding="utf-8")
    assert "{{" not in html and "Theorem 1" in html
