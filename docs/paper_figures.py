"""The paper's figures (docs/paper.md), computed from the committed benchmark data when the manual is built.

``docs/paper.md`` is a template: every figure in it is a placeholder ``{{name}}`` that
``render`` replaces by the value ``figures`` computes from ``benchmarks/data/`` — the files the
sections of ``benchmarks/RESULTS.md`` were written from — so no number of the paper is typed in.
The mkdocs hook (``docs/hooks.py``) renders the page at every build; a missing data file or an
unknown placeholder stops the build with a one-line error naming it (``PaperError``).

Intervals: Clopper–Pearson 95% for proportions of deals; for medians the distribution-free
interval from order statistics; for means a percentile bootstrap over deals (4,000 resamples,
seed 0) — the helpers of ``benchmarks/analysis_common.py``, so the paper and RESULTS compute alike.

    python docs/paper_figures.py             # every figure, name = value
    python docs/paper_figures.py --page      # the rendered page on stdout
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
DATA = BENCHMARKS / "data"
RESULTS = BENCHMARKS / "RESULTS.md"
PAGE = ROOT / "docs" / "paper.md"
for _dir in (str(ROOT), str(BENCHMARKS)):  # analysis_common and research live in benchmarks/
    if _dir not in sys.path:
        sys.path.insert(0, _dir)

from analysis_common import bootstrap_ci, clopper_pearson, median_ci, read_jsonl, sign_test_p  # noqa: E402
from research.equilibrium_set import PRIMAL_TOLERANCE, ROW_SLACK, EquilibriumSet  # noqa: E402
from research.quintet_structure import MATERIAL_TV, SMALL_TV, verdict_of  # noqa: E402

from quintet.rules import get_rules  # noqa: E402
from solver.problem.best_response import VALUE_TOLERANCE  # noqa: E402

PLACEHOLDER = re.compile(r"\{\{\s*([a-z0-9_]+)\s*\}\}")
MARGINAL_BASELINE = "marginal_baseline.json"
"""Written by the marginal-polytope baseline's benchmark; until it exists the paper says the comparison is pending."""
RADIUS_SMALL = 1e-4
"""A certified TV radius the paper counts as small (its share of the unique deals is reported)."""
EQUAL_TV = 1e-9
"""Two runs' slot marginals this close in total variation count as equal (``bench_uniqueness.py``'s cut)."""
KMIX_WITHIN = 0.5
"""Points: a K-mix this exploitable or less counts as close to the equilibrium in the K-mix table."""
REMEASURED = ("profile-2026-12-02.jsonl", "profile-2026-12-03.jsonl")
"""Re-measurements of the book pilot's 300 classes at other commits and loads (``profile_equilibrium.py``)."""


class PaperError(RuntimeError):
    """A data file the paper needs is missing, or the page names a figure that does not exist."""


def _path(name: str) -> Path:
    path = DATA / name
    if not path.exists():
        raise PaperError(f"docs/paper.md needs benchmarks/data/{name}, which is missing")
    return path


def _json(name: str) -> Any:
    return json.loads(_path(name).read_text(encoding="utf-8"))


def _jsonl(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return read_jsonl(_path(name))


def _num(x: float, digits: int = 2) -> str:
    return f"{x:,.{digits}f}"


def _sci(x: float) -> str:
    """1.2e-05 as 1.2·10⁻⁵ (two significant digits); 0 as 0."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.1e}".split("e")
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{mantissa}·10{str(int(exponent)).translate(sup)}"


def _ci(point: float, low: float, high: float, digits: int = 2) -> str:
    return f"{_num(point, digits)} [{_num(low, digits)}, {_num(high, digits)}]"


def _median(values: Sequence[float] | np.ndarray, digits: int = 2) -> str:
    """The median with its 95% order-statistics interval."""
    point, low, high = median_ci(values)
    return _ci(point, low, high, digits)


def _mean(values: Sequence[float] | np.ndarray, digits: int = 2,
          stat: Callable[[np.ndarray], float] = np.mean) -> str:
    """The mean (or ``stat``) with its 95% bootstrap interval over deals."""
    point, low, high = bootstrap_ci(values, stat)
    return _ci(point, low, high, digits)


def _share(k: int, n: int) -> str:
    """k of n (p%, 95% Clopper–Pearson interval)."""
    lo, hi = clopper_pearson(k, n)
    return f"{k} of {n} ({100 * k / n:.0f}%, 95% CI {100 * lo:.0f}–{100 * hi:.0f}%)"


def _provenance(run: dict[str, Any]) -> str:
    """The command and commit of a run; a commit with uncommitted changes is flagged."""
    dirty = " (**not a clean commit**)" if run["commit"].endswith("+dirty") else ""
    return f"`{run['command']}` at commit `{run['commit']}`{dirty}"


def _invocations(name: str) -> str:
    """Every invocation that wrote a JSON-lines file of records: how many, their commits (unclean ones flagged)."""
    runs, _ = _jsonl(name)
    opened = [r["run"] for r in runs if not r["run"].get("closing")]
    if not opened:
        raise PaperError(f"benchmarks/data/{name} records no invocation")
    commits = list(dict.fromkeys(r["commit"] for r in opened))
    dirty = [c for c in commits if c.endswith("+dirty")]
    script = opened[0]["command"].split()[1]
    return (f"`benchmarks/data/{name}`: {len(opened)} invocation(s) of `{script}` at commit(s) "
            + ", ".join(f"`{c}`" for c in commits) + (" — **not a clean commit**" if dirty else ""))


def _option(command: str, name: str) -> str:
    """The value of ``--name`` in a recorded command line (its parameters are the run's, not typed here)."""
    m = re.search(rf"--{name}[ =](\S+)", command)
    if m is None:
        raise PaperError(f"the recorded command {command!r} has no --{name}")
    return m.group(1)


def game() -> dict[str, str]:
    """The rules' numbers and the game's size (classic Quintet)."""
    rules = get_rules()
    population = _json("population.json")
    live, hand, slots = rules.deck.size - rules.n_exposed, rules.hand_size, rules.n_slots
    arrangements = math.factorial(live) // math.factorial(hand) ** slots
    deals = math.comb(rules.deck.size, rules.n_exposed)
    if population["exposed_sets"] != deals:
        raise PaperError(f"population.json counts {population['exposed_sets']} exposed sets, the rules {deals}")
    return {
        "deck": str(rules.deck.size), "exposed": str(rules.n_exposed), "live": str(live), "slots": str(slots),
        "hand": str(hand), "weights": ", ".join(map(str, rules.weights)), "points": str(rules.game_points),
        "packets": f"{math.comb(live, hand):,}", "arrangements": _sci(arrangements),
        "partitions": _sci(arrangements // math.factorial(slots)), "orders": str(math.factorial(slots)),
        "deals": f"{deals:,}", "classes": f"{population['classes']:,}",
        "population_run": _provenance(population["run"]),
    }


def equilibrium(population: str) -> dict[str, str]:
    """Solve times, iterations and supports of ``bench_equilibrium.py``'s sample (``classes`` or ``dealt``)."""
    runs, rows = _jsonl(f"equilibrium-{population}.jsonl")
    sample = [r for r in rows if not r["example"]]
    cpu = np.array([r["cpu_seconds"] for r in sample])
    p = f"eq_{population}_"
    if not runs:
        raise PaperError(f"benchmarks/data/equilibrium-{population}.jsonl has no provenance line")
    return {
        p + "run": _provenance(runs[0]["run"]),
        p + "epsilon": _option(runs[0]["run"]["command"], "epsilon"),
        p + "time_limit": _option(runs[0]["run"]["command"], "time-limit"),
        p + "n": str(len(sample)),
        p + "converged": _share(sum(bool(r["converged"]) for r in sample), len(sample)),
        p + "cpu_median": _median(cpu),
        p + "cpu_p95": _num(float(np.quantile(cpu, 0.95))),
        p + "cpu_max": _num(float(cpu.max())),
        p + "cpu_mean": _mean(cpu),
        p + "iterations": _median([r["iterations"] for r in sample], 0),
        p + "exact": _median([r["exact"] for r in sample], 0),
        p + "support": _median([r["support"] for r in sample], 0),
        p + "eps_max": _sci(max(r["exploitability"] for r in sample)),
    }


def uniqueness() -> dict[str, str]:
    """The verdicts of ``bench_structure.py`` (tiers, radius) and the agreement of ``bench_uniqueness.py``'s runs."""
    structure = _json("structure.json")
    deals = structure["per_deal"]
    n = len(deals)
    tiers = Counter(d["tier"] for d in deals)
    unique = [d for d in deals if d["tier"] == "unique"]
    radius = np.array([d["radius"] for d in unique])
    out = {
        "st_run": _invocations("structure.jsonl"), "st_n": str(n), "st_deals": str(structure["deals"]),
        "st_unique": _share(tiers["unique"], n),
        "st_material": _share(tiers["not unique: material"], n),
        "st_between": _share(tiers["not unique: between"], n),
        "st_small": _share(tiers["not unique: small"], n),
        "st_undecided": _share(tiers["undecided"], n),
        "st_radius_median": _sci(float(np.median(radius))),
        "st_radius_p90": _sci(float(np.quantile(radius, 0.9))),
        "st_radius_max": _sci(float(radius.max())),
        "st_radius_small": _sci(RADIUS_SMALL),
        "st_radius_below_small": _share(int(np.sum(radius <= RADIUS_SMALL)), len(unique)),
        "st_br_time_limit": f"{structure['params']['br_time_limit']:g}",
        "st_cpu_limit": f"{structure['params']['cpu_limit']:g}",
    }
    others = [d["radius"] for d in deals if d["tier"] != "unique"]
    out["st_radius_trivial"] = f"{sum(r >= 1 for r in others)} of the {len(others)}"
    material = [d for d in deals if d["tier"] == "not unique: material"]
    out["st_material_admitted_max"] = _num(max((d["admitted"] for d in material), default=0.0), 3)
    un = _json("uniqueness.json")
    pairs = [p for d in un["deals"] for p in d["pairs"]]
    equal = sum(max(p["slot_tv"]) <= EQUAL_TV for p in pairs)
    out.update({
        "un_run": _provenance(un["run"]), "un_deals": str(len(un["deals"])),
        "un_runs": str(len(un["deals"][0]["runs"])), "un_pairs": str(len(pairs)), "un_equal": str(equal),
        "un_equal_tv": _sci(EQUAL_TV),
        "un_arrangement_tv": _num(float(np.median([p["arrangement_tv"] for p in pairs])), 2),
        "un_epsilon": f"{un['params']['epsilon']:g}",
    })
    return out


def support() -> dict[str, str]:
    """Support sizes of the exact equilibria and the robust-atom lower bound (``bench_structure.py``)."""
    deals = _json("structure.json")["per_deal"]
    unique = [d for d in deals if d["tier"] == "unique" and d["lower_bound"] is not None]
    fewest = [d["fewest"] for d in unique]
    lower = [d["lower_bound"] for d in unique]
    ratio = [f / max(lb, 1) for f, lb in zip(fewest, lower, strict=True)]
    return {
        "sp_bounds_run": _invocations("structure-bounds.jsonl"),
        "sp_found": _median([d["found"] for d in deals], 0),
        "sp_found_p10": f"{np.quantile([d['found'] for d in deals], 0.1):.0f}",
        "sp_found_p90": f"{np.quantile([d['found'] for d in deals], 0.9):.0f}",
        "sp_found_range": f"{min(d['found'] for d in deals)}–{max(d['found'] for d in deals)}",
        "sp_bounded": str(len(unique)),
        "sp_fewest": _median(fewest, 0),
        "sp_lower": _median(lower, 0),
        "sp_lower_range": f"{min(lower)}–{max(lower)}",
        "sp_ratio": _median(ratio),
        "sp_pinned": str(sum(f == lb for f, lb in zip(fewest, lower, strict=True))),
        "sp_smaller": str(sum(d["fewest"] < d["found"] for d in deals)),
    }


def security() -> dict[str, str]:
    """Pure security levels as brackets [proven lower bound, least exploitability found] (``bench_security.py``)."""
    data = _json("security.json")
    deals = data["per_deal"]
    n = len(deals)
    lower = np.array([d["lower"] for d in deals], dtype=float)
    upper = np.array([d["upper"] for d in deals], dtype=float)
    brackets = Counter((d["lower"], d["upper"]) for d in deals)
    closed = sorted(((lo, k) for (lo, hi), k in brackets.items() if lo == hi))
    open_ = sorted(((lo, hi, k) for (lo, hi), k in brackets.items() if lo != hi), key=lambda b: (-b[2], b[0]))
    greedy = np.array([d["greedy_exploitability"] for d in deals], dtype=float)
    return {
        "se_run": _invocations("security.jsonl"), "se_n": str(n),
        "se_proved": _share(int(np.sum(lower == upper)), n),
        "se_closed": "; ".join(f"level {lo:g} on {k}" for lo, k in closed) or "none",
        "se_open": "; ".join(f"[{lo:g}, {hi:g}] on {k}" for lo, hi, k in open_) or "none",
        "se_min_lower": f"{lower.min():g}", "se_max_upper": f"{upper.max():g}",
        "se_lower_mean": _mean(lower), "se_upper_mean": _mean(upper),
        "se_below_greedy": str(int(np.sum(upper < greedy - 1e-9))),
        "se_tie": _tie(data.get("tie_search")),
        "se_recheck": _level_recheck(data.get("recheck")),
        "se_shares": "; ".join(f"level {s['level']:g} on {s['deals']}"
                               for s in data.get("level_shares", [])) or "none proved",
    }


def _level_recheck(r: dict[str, float] | None) -> str:
    """The CP-SAT recheck of the levels' upper bounds (``bench_security.py --recheck``)."""
    if not r:
        return "not run"
    return (f"{r['rechecked']} rechecked, {r['proven']} proven optimal by CP-SAT, {r['equal']} equal to the "
            f"recorded value, {r['disagree']} disagree")


def _tie(t: dict[str, float] | None) -> str:
    """The tie search's sentence (``bench_security.py --close-cpu``)."""
    if not t:
        return "it was not run"
    return (f"it ran on {t['ran']} deals and closed {t['closed']} (CPU per deal: median {t['cpu_median']:.0f} s, "
            f"max {t['cpu_max']:.0f} s)")


def kmix() -> dict[str, str]:
    """The value of randomisation: the K-mix upper envelope per K (``bench_kmix.py``)."""
    data = _json("kmix.json")
    deals = data["per_deal"]
    rows = []
    for k in data["ks"]:
        best = [d[f"K{k}"] for d in deals]
        within = sum(b <= KMIX_WITHIN + 1e-9 for b in best)
        rows.append(f"| {k} | {_median(best, 3)} | {np.quantile(best, 0.9):.3f} | {max(best):.3f} | "
                    f"{_share(within, len(deals))} |")
    support = [d["equilibrium_support"] for d in deals]
    targets = sorted({t["target"] for d in deals for t in d["sparse"] if t["target"] > 0})
    return {
        "km_targets": ", ".join(f"{t:g}" for t in targets),
        "km_run": _invocations("kmix.jsonl"), "km_n": str(len(deals)),
        "km_table": "\n".join(["| K | least certified exploitability found: median [95% CI] | p90 | worst | "
                               f"deals at most {KMIX_WITHIN:g} |", "|---:|---|---:|---:|---|", *rows]),
        "km_support": _median(support, 0),
        "km_recheck": _recheck(data.get("recheck", [])),
    }


def _recheck(counts: list[dict[str, float]]) -> str:
    """The CP-SAT recheck of the best K-mixes (``bench_kmix.py --recheck-every``), summed over K."""
    if not counts:
        return "not run"
    total = {key: sum(int(c[key]) for c in counts) for key in ("rechecked", "proven", "equal", "below_bound",
                                                                 "disagree")}
    return (f"{total['rechecked']} best mixes rechecked (K = {', '.join(str(c['k']) for c in counts)}), "
            f"{total['proven']} proven by CP-SAT: {total['equal']} equal to the search's value, "
            f"{total['below_bound']} below a bound where the search stopped at its limit, "
            f"{total['disagree']} disagreeing")


def book() -> dict[str, str]:
    """The book's cost (``bench_book.py``) and the spread of re-measuring the pilot's classes."""
    data = _json("book.json")
    est, pilot = data["estimate"], data["pilot"]
    classes = data["book_classes"]
    _, pilot_rows = _jsonl("equilibrium-classes.jsonl")
    pilot_cpu = {r["exposed"]: r["cpu_seconds"] for r in pilot_rows if not r["example"]}
    remeasured = []
    for name in REMEASURED:
        _, rows = _jsonl(name)
        cpu = {r["exposed"]: r["cpu"] for r in rows}
        both = [e for e in pilot_cpu if e in cpu]
        ratio = float(np.mean([cpu[e] for e in both]) / np.mean([pilot_cpu[e] for e in both]))
        commit = rows[0].get("commit", "?") if rows else "?"
        remeasured.append((classes * float(np.mean(list(cpu.values()))) / 3600, ratio, commit, len(both)))
    hours = [pilot["cpu_hours"], *(h for h, _, _, _ in remeasured)]
    (low, high), (pilot_low, pilot_high) = est["ci"], (classes * c / 3600 for c in pilot["ci"])
    return {
        "bk_run": _provenance(data["run"]), "bk_solves": _invocations("book-sample.jsonl"),
        "bk_classes": f"{classes:,}",
        "bk_hours": _ci(est["cpu_hours"], low, high, 1),
        "bk_bootstrap": f"{est['bootstrap_ci'][0]:.1f}–{est['bootstrap_ci'][1]:.1f}",
        "bk_per_class": _num(est["cpu_per_class"], 3), "bk_sample": str(data["sample"]),
        "bk_strata": str(len(data["strata"]["allocation"])), "bk_epsilon": f"{data['params']['epsilon']:g}",
        "bk_pilot_n": str(len(pilot_cpu)),
        "bk_pilot": _ci(pilot["cpu_hours"], pilot_low, pilot_high, 1),
        "bk_remeasured": "; ".join(f"{h:.0f} CPU-hours at commit `{c}` ({r:.2f}× the pilot's CPU on the same "
                                   f"{k} classes)" for h, r, c, k in remeasured),
        "bk_spread": f"{min(hours):.0f}–{max(hours):.0f}",
        **_measurement(data.get("measurement")),
    }


def _measurement(m: dict[str, Any] | None) -> dict[str, str]:
    """The book's measurement term (``bench_book.py --calibrate``): the same classes solved again."""
    if not m:
        return {"bk_measure": "no calibration was run"}
    return {"bk_measure": (
        f"{m['classes']} classes of the sample, solved again with {m['running_median']:.0f} runnable process(es) "
        f"at the median start (the work equal on {m['same_work']} of them), took × {m['ratio']:.3f} "
        f"[{m['ratio_ci'][0]:.3f}, {m['ratio_ci'][1]:.3f}] the sample's CPU, so under the calibration's "
        f"conditions the book is {_ci(m['cpu_hours'], m['ci'][0], m['ci'][1], 1)} CPU-hours")}


def soundness() -> dict[str, str]:
    """The differential sweep RESULTS reports: its shards are the files its Soundness section names."""
    section = re.search(r"<!-- soundness:start -->(.*?)<!-- soundness:end -->", RESULTS.read_text(encoding="utf-8"),
                        re.S)
    command = re.search(r"`(python benchmarks/bench_soundness\.py --report ([^`]*))`", section.group(1)) \
        if section else None
    if command is None:
        raise PaperError("benchmarks/RESULTS.md has no Soundness section naming its shards (--report …)")
    records = [json.loads(line) for name in command.group(2).split()
               for line in _path(name).read_text(encoding="utf-8").splitlines() if line]
    full = [r for r in records if not r["reduced"] and r["results"].get("cpsat", {}).get("optimal")]
    deals = {" ".join(r["name"].split()[:4]) for r in full}
    brute = [r for r in records if r["reduced"] and r.get("brute") is not None]
    basic = [r["results"]["basic (rules 1-3)"]["optimal"] for r in records if "basic (rules 1-3)" in r["results"]]
    commits = sorted({r.get("commit", "")[:10] for r in records} - {""})
    return {
        "so_command": f"`{command.group(1)}`", "so_commits": ", ".join(f"`{c}`" for c in commits),
        "so_instances": f"{len(records):,}", "so_disagreements": str(sum(not r["ok"] for r in records)),
        "so_full": str(sum(not r["reduced"] for r in records)), "so_reduced": str(len(brute)),
        "so_cpsat": str(len(full)), "so_cpsat_deals": str(len(deals)),
        "so_instance_bound": f"{100 * (1 - 0.05 ** (1 / len(full))):.1f}%",
        "so_deal_bound": f"{100 * (1 - 0.05 ** (1 / len(deals))):.1f}%",
        "so_basic": f"{sum(basic)} of {len(basic)}",
    }


def constants() -> dict[str, str]:
    """The tolerances the uniqueness test runs with, read from its code."""
    verdict = inspect.signature(verdict_of).parameters
    rounds = inspect.signature(EquilibriumSet.maximize).parameters["max_rounds"].default
    return {"tau": _sci(verdict["tolerance"].default), "exceed": _sci(verdict["exceed"].default),
            "delta": _sci(PRIMAL_TOLERANCE), "small_tv": f"{SMALL_TV:g}", "material_tv": f"{MATERIAL_TV:g}",
            "value_tolerance": _sci(VALUE_TOLERANCE), "max_rounds": str(rounds),
            "row_slack": _sci(ROW_SLACK)}


def marginal_baseline() -> dict[str, str]:
    """The marginal-polytope baseline against the double oracle, paired by deal — or 'pending'."""
    path = DATA / MARGINAL_BASELINE
    if not path.exists():
        return {"marginal_baseline": (
            "*The comparison is pending:* `benchmarks/data/marginal_baseline.json` does not exist yet. When its "
            "benchmark has run, this section shows, per method and paired by deal, the median CPU seconds and "
            "certified ε at the same CPU budget, from that file (the build renders it; nothing here is typed in)."),
            "marginal_relaxation": "(to be measured by the same benchmark)"}
    data = json.loads(path.read_text(encoding="utf-8"))
    deals, target = data["deals"], float(data["target_epsilon"])
    methods = (("double_oracle", "double oracle (exact best response, slot orders)"),
               ("marginal", "over the marginal polytope (exact best response as its oracle)"))
    lines = [f"Run: `{data['command']}` at commit `{data['commit']}`: {len(deals)} deals, each method with "
             f"{data['cpu_budget']:g} CPU s, target certified ε ≤ {target:g}. Medians with 95% order-statistics "
             "intervals; proportions with Clopper–Pearson intervals.", "",
             "| method | reached the target | CPU s (to the target, or the budget): median [95% CI] | "
             "certified ε: median [95% CI] | iterations: median |", "|---|---|---|---|---:|"]
    for key, label in methods:
        cpu = [d[key]["cpu_s"] for d in deals]
        eps = [d[key]["epsilon"] for d in deals]
        reached = sum(e <= target for e in eps)
        lines.append(f"| {label} | {_share(reached, len(deals))} | {_median(cpu)} | {_median(eps, 4)} | "
                     f"{np.median([d[key]['iterations'] for d in deals]):.0f} |")
    gaps = [d["relaxation"]["lp"] - d["relaxation"]["exact"] for d in deals
            if d.get("relaxation", {}).get("proven")]
    relaxation = (f"its LP's optimum exceeds the exact best response's by a median of {np.median(gaps):.2f} "
                  f"points (at most {max(gaps):.2f}), larger on {sum(g > 1e-9 for g in gaps)} of the {len(gaps)} "
                  "deals where the best response was proven" if gaps else "(not measured in the data file)")
    both = [d for d in deals if d["double_oracle"]["epsilon"] <= target and d["marginal"]["epsilon"] <= target]
    lower_do = sum(d["double_oracle"]["epsilon"] < d["marginal"]["epsilon"] - 1e-12 for d in deals)
    lower_mp = sum(d["marginal"]["epsilon"] < d["double_oracle"]["epsilon"] - 1e-12 for d in deals)
    ratios = [d["marginal"]["cpu_s"] / d["double_oracle"]["cpu_s"] for d in both]
    ratio = (f"CPU ratio (marginal / double oracle) on the {len(both)} deals both reached: median "
             f"{_mean(ratios, 2, np.median)} (bootstrap)" if both else "no deal reached by both, so no CPU ratio")
    lines += ["", f"Paired by deal: the double oracle certified the lower ε on {lower_do} deals, the marginal "
              f"polytope on {lower_mp} (ties left out; two-sided sign test p = {sign_test_p(lower_do, lower_mp):.2g}); "
              f"{ratio}."]
    return {"marginal_baseline": "\n".join(lines), "marginal_relaxation": relaxation}


SOURCES: tuple[Callable[[], dict[str, str]], ...] = (
    game, lambda: equilibrium("classes"), lambda: equilibrium("dealt"), uniqueness, support, security, kmix, book,
    soundness, constants, marginal_baseline)


def figures() -> dict[str, str]:
    """Every figure of the paper, name → its text, computed from the data files."""
    out: dict[str, str] = {}
    for source in SOURCES:
        out.update(source())
    return out


def render(text: str, values: dict[str, str] | None = None) -> str:
    """``text`` with every ``{{name}}`` replaced by its figure; an unknown name is a ``PaperError``."""
    values = figures() if values is None else values

    def one(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise PaperError(f"docs/paper.md: no figure named {m.group(1)!r} (docs/paper_figures.py)")
        return values[m.group(1)]

    return PLACEHOLDER.sub(one, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The paper's figures, from benchmarks/data.")
    parser.add_argument("--page", action="store_true", help="print the rendered page instead of the figures")
    args = parser.parse_args(argv)
    try:
        if args.page:
            print(render(PAGE.read_text(encoding="utf-8")))
        else:
            for name, value in figures().items():
                print(f"{name} = {value}")
    except PaperError as e:
        print(f"paper_figures: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
