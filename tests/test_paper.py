"""The paper (docs/paper.md) is a template whose every figure ``docs/paper_figures.py`` computes from
``benchmarks/data/`` at build time: no placeholder without a figure, no figure without its data file,
no figure left unused, the same figures as benchmarks/RESULTS.md, and the manual builds with it.
And its theorems (§3) hold for the code that applies them, on small games solved exactly."""

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

import paper_figures as pf  # noqa: E402

PAGE = ROOT / "docs" / "paper.md"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"


def _hooks():
    """The manual's build hooks (docs/hooks.py), which need MkDocs: the docs extra, not the test extra."""
    pytest.importorskip("mkdocs", reason="the build hooks need the docs extra (pip install -e '.[docs]')")
    import hooks

    return hooks


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
          "soundness-2026-12-05a.jsonl", "structure.jsonl", "structure-bounds.jsonl", "book-sample.jsonl"]


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
    assert "| 20 | " + _results(r"\| 20 \| ([\d.]+ \[[\d.]+, [\d.]+\]) \|")[0] + " |" in figures["km_table"]


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
    do_row, mp_row = (line for line in text.splitlines() if line.startswith(("| double oracle", "| over the marginal")))
    assert "3 of 3 (100%" in do_row and "| 2.00 [" in do_row  # median CPU of 1, 2, 3
    assert "2 of 3 (67%" in mp_row and "| 6.00 [" in mp_row
    assert "double oracle certified the lower ε on 2 deals, the marginal polytope on 0" in text
    assert "on the 2 deals both reached: median 3.33" in text  # ratios 4 and 8/3 (deal 2 not reached)


def test_the_hook_renders_the_paper_and_leaves_other_pages():
    page = SimpleNamespace(file=SimpleNamespace(src_uri="paper.md"))
    hooks = _hooks()
    rendered = hooks.on_page_markdown(PAGE.read_text(encoding="utf-8"), page, None, None)
    assert "{{" not in rendered
    other = SimpleNamespace(file=SimpleNamespace(src_uri="rules.md"))
    assert hooks.on_page_markdown("{{ kept }}", other, None, None) == "{{ kept }}"


@pytest.mark.subprocess
def test_the_manual_builds_strictly_with_the_paper(tmp_path):
    pytest.importorskip("mkdocs", reason="the manual's build needs the docs extra (pip install -e '.[docs]')")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (tmp_path / "site" / "paper" / "index.html").read_text(encoding="utf-8")
    assert "{{" not in html and "Theorem 1" in html


# §3's theorems, checked against the code on small ordinal component games, where the equilibrium
# set is an explicit polytope and every maximum an exact linear program.

ROW_SLACK = 1e-9  # the rows u(a, x) ≤ this: GLOP may call a zero right-hand side infeasible
TOL = 1e-6


def _ordinal_game(seed: int):
    """A random ordinal component game — a weighted Colonel Blotto: the allocations of B troops to n
    battlefields (a random fifth of them left out), classes the troop counts — as (classes per
    strategy and component, weights, payoff matrix, classes per component)."""
    import itertools

    import numpy as np

    rng = np.random.default_rng(seed)
    n, budget = int(rng.integers(2, 4)), int(rng.integers(3, 8))
    allocations = np.array([a for a in itertools.product(range(budget + 1), repeat=n) if sum(a) == budget])
    keep = rng.random(len(allocations)) > 0.2
    classes = allocations[keep] if keep.sum() >= 2 else allocations
    k = budget + 1
    w = rng.integers(1, 5, size=n).astype(float)
    payoff = (w * np.sign(classes[:, None, :] - classes[None, :, :])).sum(axis=-1)
    return classes, w, payoff, k


def _over_equilibria(payoff, objective, maximize: bool):
    """max (or min) of ``objective``·x over the game's equilibria {x ∈ Δ : payoff x ≤ 0}: (value, x)."""
    import numpy as np

    from solver.games.lp import solve_lp

    n = payoff.shape[0]
    A = np.vstack([payoff, np.ones((1, n))])
    x, value, _ = solve_lp(np.asarray(objective, dtype=float), A, np.append(np.full(n, -np.inf), 1.0),
                           np.append(np.full(n, ROW_SLACK), 1.0), var_lower=np.zeros(n), var_upper=np.ones(n),
                           maximize=maximize, what="small equilibrium set")
    return value, np.clip(x, 0.0, None) / np.clip(x, 0.0, None).sum()


def _marginals(classes, x, k):
    import numpy as np

    return np.array([[x[classes[:, s] == r].sum() for r in range(k)] for s in range(classes.shape[1])])


def _equilibrium(payoff, seed: int):
    """A vertex of the equilibrium set (a random objective), its atoms below 10⁻¹² dropped."""
    import numpy as np

    _, x = _over_equilibria(payoff, np.random.default_rng(seed + 1000).normal(size=payoff.shape[0]), True)
    x[x < 1e-12] = 0.0
    return x / x.sum()


def _tail_maxima(classes, payoff, m0, k):
    """Every played threshold (s, t) with F₀ and the exact maximum M over the equilibria."""
    out = []
    for s in range(classes.shape[1]):
        for r in range(k - 1):
            if m0[s, r] > 0:
                found = float(m0[s, r + 1:].sum())
                out.append((s, r + 1, found, _over_equilibria(payoff, classes[:, s] >= r + 1, True)[0]))
    return out


def test_theorem_1_tail_maxima_at_the_played_thresholds_decide_uniqueness():
    """Marginals unique (every class's mass has one value over the equilibrium set: its min and max
    agree) if and only if the tail maxima at the played thresholds do not exceed x₀'s tails."""
    outcomes = []
    for seed in range(40):
        classes, _, payoff, k = _ordinal_game(seed)
        x0 = _equilibrium(payoff, seed)
        m0 = _marginals(classes, x0, k)
        predicted = all(bound <= found + 1e-7 for _, _, found, bound in _tail_maxima(classes, payoff, m0, k))
        unique = all(abs(_over_equilibria(payoff, classes[:, s] == r, sense)[0] - m0[s, r]) <= TOL
                     for s in range(classes.shape[1]) for r in range(k) for sense in (True, False))
        assert predicted == unique, f"seed {seed}: the test says {predicted}, the equilibrium set {unique}"
        outcomes.append(unique)
    assert 0 < sum(outcomes) < len(outcomes), "the games should include unique and non-unique marginals"


def test_theorem_2_and_proposition_3_hold_for_the_codes_radius_and_support_bound():
    """``radii`` (the code's Theorem 2) with upper bounds loosened at random confines every equilibrium's
    class masses and total variation, and ``coupling_lower_bound`` (Proposition 3) never exceeds the
    support of an equilibrium found."""
    import numpy as np
    from research.quintet_structure import TailBound, coupling_lower_bound, radii

    checked = 0
    for seed in range(25):
        classes, w, payoff, k = _ordinal_game(seed)
        rng = np.random.default_rng(seed + 2000)
        x0 = _equilibrium(payoff, seed)
        m0 = _marginals(classes, x0, k)
        tails = [TailBound(s, t, found, found, bound + float(rng.choice([0.0, rng.uniform(0, 0.02)])), True, 0, 0)
                 for s, t, found, bound in _tail_maxima(classes, payoff, m0, k)]
        _, tv_radius, class_radius = radii(m0, tails, w)
        for s in range(classes.shape[1]):
            for r, radius in class_radius[s].items():
                for sense in (True, False):
                    value = _over_equilibria(payoff, classes[:, s] == r, sense)[0]
                    assert abs(value - m0[s, r]) <= radius + TOL, (seed, s, r)
        bound, _ = coupling_lower_bound(m0, class_radius, time_limit=10)
        for trial in range(8):
            _, x = _over_equilibria(payoff, rng.normal(size=len(x0)), True)
            m = _marginals(classes, x, k)
            for s in range(classes.shape[1]):
                assert 0.5 * np.abs(m[s] - m0[s]).sum() <= tv_radius[s] + TOL, (seed, trial, s)
            assert int(np.sum(x > 1e-9)) >= bound, (seed, trial)
            checked += 1
    assert checked == 25 * 8
