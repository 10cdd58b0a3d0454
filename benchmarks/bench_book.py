"""The book's cost, one figure: a stratified sample of classes solved at ε 0.01, CPU and wall.

    python benchmarks/bench_book.py --stop 0                   # the frame's predictors only (about a CPU-minute)
    python benchmarks/bench_book.py --start 0 --stop 100       # a shard of the stratified sample's solves
    python benchmarks/bench_book.py --report                   # the RESULTS section and book.json, no solving

The book is one equilibrium per suit class of exposed sets, so its cost is the number of classes
times the mean CPU seconds per class.  Three steps, each resumable:

1. **Frame**: ``--frame`` classes drawn uniformly (``book_sample``, seed ``--frame-seed``), the
   pilot's classes left out.  For each, and for the pilot's classes, the predictors known before
   solving — the deal's features (``bench_heuristics.features``: ranks, suits, packets, the top
   key's ties, the orbit) and greedy's exploitability (the exact best response's value against
   greedy's arrangement) — one JSON line per class in ``book-frame.jsonl``.
2. **Design**: the pilot (``--pilot``: ``bench_equilibrium``'s 300 classes of ``book_sample(300,
   2026)`` at ε 0.01, with their CPU seconds) fits log CPU on the predictors (least squares; R² by
   5-fold cross-validation repeated over ``--repeats`` splits, ``bench_reread.cv_r2``).  Strata are
   the ``--strata`` quantiles of the model's prediction over the frame — predictors only, so a
   class's stratum never depends on its own solve; ``--sample`` classes are allocated by Neyman
   (∝ stratum share × the pilot's within-stratum standard deviation of CPU) and drawn within the
   strata (seed ``--sample-seed``).
3. **Solves**: each sampled class solved from scratch exactly as ``bench_equilibrium`` does
   (``equilibrium`` to certified ε ≤ ``--epsilon``, ``--time-limit`` s), CPU (``time.process_time``)
   and wall (``time.perf_counter``) seconds and the load average at its start, one line per class in
   ``book-sample.jsonl``; ``--start``/``--stop`` pick sample positions (shards).

``--report`` aggregates: the stratified mean per class (two-phase variance: the stratum shares
are the frame's), × the number of classes; the design effect against a uniform sample; the
pilot's own figure; the earlier figures reconciled.  Writes the ``book`` section of RESULTS.md
and ``benchmarks/data/book.json`` (``--no-write``: prints only).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analysis_common import (  # noqa: E402
    DATA,
    Run,
    append_jsonl,
    bootstrap_ci,
    finish_shard,
    provenance,
    read_jsonl,
    save_data,
    start_shard,
    warm_kernels,
)
from bench_heuristics import features  # noqa: E402
from bench_reread import FOLDS, book, cv_r2  # noqa: E402
from benchmark_results import write_section  # noqa: E402

from quintet.cliutil import OneLineParser, float_at_least, int_at_least, positive_float, positive_int  # noqa: E402
from quintet.game import Deal  # noqa: E402
from quintet.rules import get_rules  # noqa: E402
from quintet.symmetry import all_canonical_exposed, symmetry_group  # noqa: E402

Z95 = 1.959964
GREEDY = "greedy_exploitability"


# ---------------------------------------------------------------- predictors

def predictors(deal: Deal, br_time_limit: float) -> dict[str, Any]:
    """What is known before solving the deal: its features and greedy's exploitability (proven or not)."""
    from solver.advisor.advice import best_response
    from solver.problem.deal_tables import DealTables
    from solver.problem.opponents import ArrangementMix, greedy_arrangement

    tables = DealTables.build(deal)
    out: dict[str, Any] = dict(features(deal, tables))
    sol = best_response(deal, ArrangementMix((greedy_arrangement(tables),), (1.0,)), tables=tables,
                        time_limit=br_time_limit)
    out[GREEDY] = float(sol.expected_margin)
    out["greedy_proven"] = bool(sol.optimal)
    return out


def predictor_names(records: list[dict[str, Any]]) -> list[str]:
    """The numeric predictors of the records (greedy's exploitability last), proof flags left out."""
    names = [k for k in records[0]["predictors"] if k not in (GREEDY, "greedy_proven")]
    return names + [GREEDY]


def matrix(records: list[dict[str, Any]], names: list[str]) -> np.ndarray:
    return np.array([[float(r["predictors"][k]) for k in names] for r in records], dtype=np.float64)


# ---------------------------------------------------------------- model, strata, allocation (pure)

def fit_ols(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least squares with intercept: (coefficients, their classical standard errors), intercept first."""
    A = np.column_stack([np.ones(len(y)), X])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    resid = y - A @ coef
    dof = max(1, len(y) - np.linalg.matrix_rank(A))
    cov = np.linalg.pinv(A.T @ A) * float(resid @ resid) / dof
    return coef, np.sqrt(np.maximum(np.diag(cov), 0.0))


def predict(coef: np.ndarray, X: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones(len(X)), X]) @ coef


def strata_cuts(predicted: np.ndarray, k: int) -> np.ndarray:
    """The k − 1 inner quantiles of the frame's predictions (stratum h: cut[h−1] < x ≤ cut[h])."""
    return np.quantile(predicted, np.arange(1, k) / k)


def stratum_of(predicted: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    return np.searchsorted(cuts, predicted, side="left")


def neyman(shares: np.ndarray, sds: np.ndarray, n: int, sizes: np.ndarray, minimum: int = 2) -> np.ndarray:
    """Integer allocation of n draws ∝ share × sd (largest remainders), at least ``minimum`` per
    stratum (for its variance; one where n is too small for two) and at most its size in the frame."""
    k = len(shares)
    cap = sizes.astype(np.int64)
    floor = np.minimum(cap, max(1, min(minimum, n // k)))
    if n < floor.sum():
        raise ValueError(f"a sample of {n} cannot give {minimum} classes to each of {k} strata")
    weight = shares * np.where(sds > 0, sds, sds[sds > 0].mean() if np.any(sds > 0) else 1.0)
    fixed = np.zeros(k, dtype=bool)  # strata held at their floor or their cap
    ideal = np.zeros(k)
    for _ in range(k + 1):
        free = ~fixed
        ideal = np.where(fixed, ideal, 0.0)
        ideal[free] = (n - ideal[fixed].sum()) * weight[free] / weight[free].sum() if free.any() else 0.0
        low, high = free & (ideal < floor), free & (ideal > cap)
        if not (low.any() or high.any()):
            break
        ideal[low], ideal[high] = floor[low], cap[high]
        fixed |= low | high
    alloc = np.minimum(np.floor(ideal + 1e-9).astype(np.int64), cap)
    while alloc.sum() < n and np.any(alloc < cap):  # the largest remainders
        j = int(np.argmax(np.where(alloc < cap, ideal - alloc, -np.inf)))
        alloc[j] += 1
    return alloc


def stratified_mean(values: list[np.ndarray], shares: np.ndarray, frame_size: int | None = None) -> tuple[float, float]:
    """(estimate, its standard error): Σ W_h ȳ_h, variance Σ W_h² s_h² / n_h, plus the two-phase term
    Σ W_h (ȳ_h − ȳ)² / n' when the shares W_h are estimated from a frame of n' uniform draws.  A
    stratum of one class borrows the mean variance of the others (collapsed strata)."""
    means = np.array([v.mean() for v in values])
    n_h = np.array([len(v) for v in values])
    var_h = np.array([v.var(ddof=1) if len(v) > 1 else math.nan for v in values])
    var_h = np.where(np.isnan(var_h), np.nanmean(var_h) if np.any(n_h > 1) else 0.0, var_h)
    est = float(np.sum(shares * means))
    var = float(np.sum(shares ** 2 * var_h / n_h))
    if frame_size:
        var += float(np.sum(shares * (means - est) ** 2)) / frame_size
    return est, math.sqrt(var)


def stratified_bootstrap(values: list[np.ndarray], shares: np.ndarray, n: int = 4000,
                         seed: int = 0) -> tuple[float, float]:
    """Percentile 95% interval of Σ W_h ȳ_h, resampling classes within each stratum (shares fixed)."""
    boots = stratified_boots(values, shares, n, np.random.default_rng(seed))
    return float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))


def stratified_boots(values: list[np.ndarray], shares: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` bootstrap draws of Σ W_h ȳ_h, the classes resampled within each stratum."""
    boots = np.zeros(n)
    for w, v in zip(shares, values, strict=True):
        boots += w * v[rng.integers(0, len(v), size=(n, len(v)))].mean(axis=1)
    return boots


# ---------------------------------------------------------------- the files

def paths(args: argparse.Namespace) -> tuple[Path, Path]:
    return args.jsonl_dir / "book-frame.jsonl", args.jsonl_dir / "book-sample.jsonl"


def pilot_records(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the pilot's run, its sampled classes — the example deal left out), the first ``--pilot-classes``."""
    runs, records = read_jsonl(args.pilot)
    recs = [r for r in records if not r.get("example")]
    if args.pilot_classes is not None:
        recs = recs[: args.pilot_classes]
    return (runs[-1]["run"] if runs else {}), recs


def frame_classes(args: argparse.Namespace, rules: Any) -> tuple[list[str], int]:
    """(the frame's classes as text, the number of classes in the book): uniform over the book
    without the pilot's classes — all of them, whatever ``--pilot-classes`` says (the first
    ``--frame`` of a random-order draw not in the pilot)."""
    from solver.apps.batch import book_sample

    pilot = {r["exposed"] for r in read_jsonl(args.pilot)[1] if not r.get("example")}
    book_size = len(all_canonical_exposed(rules.deck, rules.n_exposed, group=symmetry_group(rules)))
    drawn = [Deal(int(k), rules).format() for k in book_sample(args.frame + len(pilot), args.frame_seed, rules)]
    return [c for c in drawn if c not in pilot][: args.frame], book_size


def build_frame(args: argparse.Namespace, run: Run) -> None:
    """The predictors of the pilot's and the frame's classes not yet in the frame file."""
    frame_path, _ = paths(args)
    rules = get_rules("classic")
    _, pilot = pilot_records(args)
    names = [r["exposed"] for r in pilot]
    frame, book_size = frame_classes(args, rules)
    done = {r["key"] for r in read_jsonl(frame_path)[1]}
    todo = [("pilot", i, c) for i, c in enumerate(names)] + [("frame", i, c) for i, c in enumerate(frame)]
    todo = [t for t in todo if t[2] not in done]
    if not todo:
        return
    start_shard(frame_path, run, {"part": "frame", **params(args)})
    spent = []
    for part, i, exposed in todo:
        deal = Deal.from_exposed(exposed, rules)
        cpu, wall = time.process_time(), time.perf_counter()
        pred = predictors(deal, args.br_time_limit)
        rec = {"key": exposed, "set": part, "position": i, "predictors": pred, "book": book_size,
               "cpu_seconds": time.process_time() - cpu, "wall_seconds": time.perf_counter() - wall,
               "commit": run.commit}
        append_jsonl(frame_path, rec)
        spent.append(rec["cpu_seconds"])
    finish_shard(frame_path, run)
    if spent:
        print(f"predictors of {len(spent)} classes: {np.mean(spent):.3f} CPU s per class (median "
              f"{np.median(spent):.3f}, max {max(spent):.3f})", flush=True)


def design(args: argparse.Namespace) -> dict[str, Any]:
    """The model, strata, allocation and sample, from the frame file and the pilot's CPU only."""
    frame_path, _ = paths(args)
    _, records = read_jsonl(frame_path)
    by_key = {r["key"]: r for r in records}
    _, pilot = pilot_records(args)
    missing = [r["exposed"] for r in pilot if r["exposed"] not in by_key]
    expected, _ = frame_classes(args, get_rules("classic"))
    frame = [by_key[c] for c in expected if c in by_key]
    if missing or len(frame) < args.frame:
        raise SystemExit(f"{frame_path}: the frame is incomplete ({len(frame)} of {args.frame} frame classes, "
                         f"{len(missing)} pilot classes missing): run without --report to finish it")
    pilot_rows = [by_key[r["exposed"]] for r in pilot]
    names = predictor_names(pilot_rows)
    Xp, Xf = matrix(pilot_rows, names), matrix(frame, names)
    varying = Xp.std(axis=0) > 0
    names = [n for n, v in zip(names, varying, strict=True) if v]
    Xp, Xf = Xp[:, varying], Xf[:, varying]
    y = np.log(np.array([r["cpu_seconds"] for r in pilot]))
    coef, se = fit_ols(Xp, y)
    pred_f, pred_p = predict(coef, Xf), predict(coef, Xp)
    cuts = strata_cuts(pred_f, args.strata)
    s_f, s_p = stratum_of(pred_f, cuts), stratum_of(pred_p, cuts)
    sizes = np.bincount(s_f, minlength=args.strata)
    shares = sizes / sizes.sum()
    pilot_cpu = np.array([r["cpu_seconds"] for r in pilot])
    sds = np.array([pilot_cpu[s_p == h].std(ddof=1) if np.sum(s_p == h) > 1 else 0.0 for h in range(args.strata)])
    alloc = neyman(shares, sds, args.sample, sizes)
    rng = np.random.default_rng(args.sample_seed)
    sample = []
    for h in range(args.strata):
        members = [frame[i]["key"] for i in np.flatnonzero(s_f == h)]
        sample += [(str(members[i]), h) for i in rng.choice(len(members), size=int(alloc[h]), replace=False)]
    return {"names": names, "coef": coef, "se": se, "Xp": Xp, "y": y, "cuts": cuts, "sizes": sizes,
            "shares": shares, "sds": sds, "alloc": alloc, "sample": sample, "pilot_strata": s_p,
            "pilot_cpu": pilot_cpu, "frame_strata": {r["key"]: int(h) for r, h in zip(frame, s_f, strict=True)},
            "book": int(frame[0]["book"]), "frame_cpu": np.array([r["cpu_seconds"] for r in frame]),
            "pilot_wall": np.array([r["wall_seconds"] for r in pilot])}


def solve_sample(args: argparse.Namespace, run: Run, plan: dict[str, Any]) -> None:
    """Solve the sample's positions ``--start`` … ``--stop`` not yet in the sample file, as bench_equilibrium does."""
    _, sample_path = paths(args)
    sample = plan["sample"]
    stop = len(sample) if args.stop is None else min(args.stop, len(sample))
    if args.start >= stop:
        return
    done = start_shard(sample_path, run, {"part": "sample", **params(args)})
    rules = get_rules("classic")
    for i in range(args.start, stop):
        exposed, h = sample[i]
        if exposed in done:
            continue
        rec = {"key": exposed, "position": i, "stratum": int(h), **solve_class(args, run, exposed, rules)}
        append_jsonl(sample_path, rec)
        print(f"{i + 1:4d}/{len(sample)} stratum {h + 1} {exposed}: ε {rec['exploitability']:.5f} in "
              f"{rec['cpu_seconds']:.2f} s cpu ({rec['wall_seconds']:.2f} s wall), load {rec['load']:.2f}", flush=True)
    finish_shard(sample_path, run)


def solve_class(args: argparse.Namespace, run: Run, exposed: str, rules: Any) -> dict[str, Any]:
    """One class solved from scratch as bench_equilibrium does: CPU and wall seconds, the work done
    (iterations, exact best responses: the same on every machine for the same commit) and the
    machine's state at the start (the 1-minute load average; ``running``, the runnable processes
    of ``/proc/loadavg``, this one included)."""
    from solver.advisor.equilibrium import certified_within, equilibrium

    deal = Deal.from_exposed(exposed, rules)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    running = runnable()
    t0, w0 = time.process_time(), time.perf_counter()
    r = equilibrium(deal, epsilon=args.epsilon, time_limit=args.time_limit)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    return {"cpu_seconds": cpu, "wall_seconds": wall, "exploitability": r.exploitability,
            "converged": certified_within(r.exploitability, args.epsilon), "iterations": r.iterations,
            "exact": sum(1 for x in r.history if x.exact), "support": len(r.mix), "load": load, "running": running,
            "epsilon": args.epsilon, "time_limit": args.time_limit, "commit": run.commit}


def runnable() -> int | None:
    """The runnable processes now (``/proc/loadavg``'s fourth field), None where there is none."""
    try:
        return int(Path("/proc/loadavg").read_text().split()[3].split("/")[0])
    except (OSError, IndexError, ValueError):
        return None


def calibration_path(args: argparse.Namespace) -> Path:
    return args.jsonl_dir / "book-calibration.jsonl"


def calibration_keys(args: argparse.Namespace, plan: dict[str, Any]) -> list[str]:
    """The ``--calibrate`` classes: the first of the sample in a random order (seed ``--sample-seed``)."""
    order = np.random.default_rng(args.sample_seed).permutation(len(plan["sample"]))
    return [plan["sample"][int(i)][0] for i in order[: args.calibrate]]


def calibrate(args: argparse.Namespace, run: Run, plan: dict[str, Any]) -> None:
    """Solve the ``--calibrate`` classes again, one JSON line each in ``book-calibration.jsonl``
    (resumable): run on an idle machine, their CPU against the sample's is the measurement term."""
    if args.calibrate <= 0:
        return
    path = calibration_path(args)
    done = start_shard(path, run, {"part": "calibration", **params(args)})
    rules = get_rules("classic")
    for j, exposed in enumerate(calibration_keys(args, plan)):
        if exposed in done:
            continue
        rec = {"key": exposed, **solve_class(args, run, exposed, rules)}
        append_jsonl(path, rec)
        print(f"calibration {j + 1}/{args.calibrate} {exposed}: {rec['cpu_seconds']:.2f} s cpu, load "
              f"{rec['load']:.2f}, running {rec['running']}", flush=True)
    finish_shard(path, run)


def params(args: argparse.Namespace) -> dict[str, Any]:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
            if k not in ("start", "stop", "report", "no_write")}


# ---------------------------------------------------------------- report

def report(args: argparse.Namespace, plan: dict[str, Any], run: Run) -> tuple[str, dict[str, Any]]:
    frame_path, sample_path = paths(args)
    pilot_run, _ = pilot_records(args)
    frame_runs, _ = read_jsonl(frame_path)
    runs, records = read_jsonl(sample_path)
    wanted = {key: (i, h) for i, (key, h) in enumerate(plan["sample"])}
    recs = {r["key"]: r for r in records if r["key"] in wanted}
    for r in recs.values():
        if (r.get("epsilon"), r.get("time_limit")) != (args.epsilon, args.time_limit):
            raise SystemExit(f"{sample_path}: {r['key']} was solved at ε {r.get('epsilon')}, time limit "
                             f"{r.get('time_limit')}; this report is for ε {args.epsilon:g}, {args.time_limit:g} s")
        if r["stratum"] != wanted[r["key"]][1]:
            raise SystemExit(f"{sample_path}: {r['key']} was solved as stratum {r['stratum'] + 1}, the design "
                             f"says {wanted[r['key']][1] + 1}: the frame, the pilot or the options changed")
    k, book_size, shares = args.strata, plan["book"], plan["shares"]
    by_h = [[r for r in recs.values() if r["stratum"] == h] for h in range(k)]
    f = book_size / 3600
    lines = [run.line(), "", f"Frame: {provenance(frame_runs)}", "", f"Solves: {provenance(runs)}", ""]
    if pilot_run:
        lines += [f"Pilot: `{pilot_run['command']}` at commit `{pilot_run['commit']}` on {pilot_run['date']}, load "
                  f"average {pilot_run.get('load', math.nan):.2f} at its start.", ""]
    # the model
    names, coef, se = plan["names"], plan["coef"], plan["se"]
    Xp, y = plan["Xp"], plan["y"]
    r2 = np.array([cv_r2(Xp, y, s) for s in range(args.repeats)])
    single = {n: np.median([cv_r2(Xp[:, [j]], y, s) for s in range(args.repeats)]) for j, n in enumerate(names)}
    best = max(single, key=lambda n: single[n])
    spent = plan["frame_cpu"]
    lines += ["### The cost model: predictors known before solving", "",
              f"log CPU s of the pilot's {len(y)} classes on {len(names)} predictors (least squares): "
              f"**{FOLDS}-fold cross-validated R² median {np.median(r2):.3f} [{np.quantile(r2, 0.025):.3f}, "
              f"{np.quantile(r2, 0.975):.3f}]** over {args.repeats} random splits (the splits' range, not a "
              f"confidence interval). Best single predictor: **{best}** (median R² {single[best]:.3f}). Predictors "
              f"cost {spent.mean():.3f} CPU s per class (median {np.median(spent):.3f}, max {spent.max():.3f}) — "
              f"{spent.mean() / max(plan['pilot_cpu'].mean(), 1e-9) * 100:.1f}% of a solve.", "",
              "| predictor | coefficient (log CPU s) | standard error | R² alone (median over splits) |",
              "|---|---:|---:|---:|", f"| intercept | {coef[0]:+.4f} | {se[0]:.4f} | |"]
    lines += [f"| {n} | {coef[j + 1]:+.4f} | {se[j + 1]:.4f} | {single[n]:.3f} |" for j, n in enumerate(names)]
    # the strata
    lines += ["", "### The strata and the sample", "",
              f"Strata: the {k} quantiles of the predicted log CPU over the frame of {int(plan['sizes'].sum())} "
              f"classes (`book_sample`, seed {args.frame_seed}, the pilot's classes left out); allocation of "
              f"{int(plan['alloc'].sum())} by Neyman with the pilot's within-stratum standard deviation; draws seed "
              f"{args.sample_seed}.", "",
              "| stratum | predicted log CPU up to | share of the frame | pilot classes | pilot sd CPU s | allocated | "
              "solved | converged | CPU s mean | wall s mean | pilot CPU s mean |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    sp, pc = plan["pilot_strata"], plan["pilot_cpu"]
    for h in range(k):
        top = f"{plan['cuts'][h]:.2f}" if h < k - 1 else "∞"
        cpu_h = [r["cpu_seconds"] for r in by_h[h]]
        wall_h = [r["wall_seconds"] for r in by_h[h]]
        lines.append(f"| {h + 1} | {top} | {shares[h]:.3f} | {int(np.sum(sp == h))} | {plan['sds'][h]:.2f} | "
                     f"{int(plan['alloc'][h])} | {len(by_h[h])} | {sum(r['converged'] for r in by_h[h])} | "
                     f"{np.mean(cpu_h) if cpu_h else math.nan:.2f} | {np.mean(wall_h) if wall_h else math.nan:.2f} | "
                     f"{pc[sp == h].mean() if np.any(sp == h) else math.nan:.2f} |")
    summary: dict[str, Any] = {"book_classes": book_size, "model": {
        "predictors": names, "coefficients": coef.tolist(), "standard_errors": se.tolist(),
        "cv_r2_median": float(np.median(r2)), "cv_r2_range": [float(np.quantile(r2, 0.025)),
                                                               float(np.quantile(r2, 0.975))],
        "best_single": best, "single_r2": {n: float(v) for n, v in single.items()}},
        "strata": {"cuts": plan["cuts"].tolist(), "shares": shares.tolist(), "pilot_sd": plan["sds"].tolist(),
                   "allocation": plan["alloc"].tolist()},
        "predictor_cpu_per_class": float(spent.mean()), "solved": len(recs), "sample": len(plan["sample"])}
    # the estimate
    pm, plo, phi = bootstrap_ci(pc)
    pw = float(np.mean(plan["pilot_wall"]))
    rows: list[tuple[str, str, str, str, str]] = []
    lines += ["", "### The estimate", ""]
    if len(recs) < len(plan["sample"]):
        lines += [f"**Partial:** {len(recs)} of the {len(plan['sample'])} sampled classes solved.", ""]
    if all(len(b) >= 1 for b in by_h):
        cpu_v = [np.array([r["cpu_seconds"] for r in b]) for b in by_h]
        wall_v = [np.array([r["wall_seconds"] for r in b]) for b in by_h]
        m, s = stratified_mean(cpu_v, shares, int(plan["sizes"].sum()))
        blo, bhi = stratified_bootstrap(cpu_v, shares)
        mw, sw = stratified_mean(wall_v, shares, int(plan["sizes"].sum()))
        n = sum(len(v) for v in cpu_v)
        deff = s ** 2 / (pc.var(ddof=1) / n)
        loads = np.array([r["load"] for r in recs.values()])
        conv = sum(r["converged"] for r in recs.values())
        lines += [f"- **the book at ε ≤ {args.epsilon:g}: {book_size:,} classes × {m:.3f} CPU s = {m * f:.1f} "
                  f"CPU-hours [{(m - Z95 * s) * f:.1f}, {(m + Z95 * s) * f:.1f}]** (95%, normal with the two-phase "
                  f"stratified variance; bootstrap within strata {blo * f:.1f}–{bhi * f:.1f}); wall "
                  f"{mw:.3f} s per class = {mw * f:.1f} hours [{(mw - Z95 * sw) * f:.1f}, {(mw + Z95 * sw) * f:.1f}] "
                  "on one core",
                  f"- {n} classes solved, {conv} converged within {args.time_limit:g} s; load average at each solve's "
                  f"start: median {np.median(loads):.2f}, max {loads.max():.2f}",
                  f"- design effect against a uniform sample of {n} (the pilot's variance): {deff:.2f} "
                  f"({'< 1: the strata help' if deff < 1 else '≥ 1: the strata do not help'})",
                  f"- the pilot alone ({len(pc)} classes uniformly, bootstrap): {pm:.3f} CPU s per class = "
                  f"{pm * f:.1f} CPU-hours [{plo * f:.1f}, {phi * f:.1f}]; wall {pw:.3f} s per class"]
        pooled = [np.concatenate([cpu_v[h], pc[sp == h]]) for h in range(k)]
        cm, cs = stratified_mean(pooled, shares, int(plan["sizes"].sum()))
        lines += [f"- pilot and sample pooled within strata (post-stratified pilot; meaningful only where the two "
                  f"columns of stratum means above agree, as both are uniform within a stratum): {cm * f:.1f} "
                  f"CPU-hours [{(cm - Z95 * cs) * f:.1f}, {(cm + Z95 * cs) * f:.1f}]"]
        summary["estimate"] = {"cpu_per_class": m, "se": s, "cpu_hours": m * f,
                               "ci": [(m - Z95 * s) * f, (m + Z95 * s) * f], "bootstrap_ci": [blo * f, bhi * f],
                               "wall_per_class": mw, "wall_hours": mw * f, "design_effect": deff,
                               "pooled_cpu_hours": cm * f, "converged": conv, "load_median": float(np.median(loads))}
        measured = measurement(args, recs, cpu_v, shares, m, f)
        if measured is not None:
            lines += ["", *measured[0]]
            summary["measurement"] = measured[1]
        commits = sorted({r["commit"] for r in recs.values()})
        rows.append((f"this stratified sample (commit {', '.join(commits)})", f"{n} classes, {k} strata", "0.01",
                     f"{m:.2f} [{m - Z95 * s:.2f}, {m + Z95 * s:.2f}]",
                     f"{m * f:.0f} [{(m - Z95 * s) * f:.0f}, {(m + Z95 * s) * f:.0f}]"))
    else:
        lines += ["Too few classes solved for an estimate (one per stratum needed)."]
    summary["pilot"] = {"cpu_per_class": pm, "ci": [plo, phi], "cpu_hours": pm * f, "wall_per_class": pw}
    lines += ["", *reconcile(args, pilot_run, pm, plo, phi, f, rows)]
    return "\n".join(lines), summary


def measurement(args: argparse.Namespace, recs: dict[str, dict[str, Any]],
                cpu_v: list[np.ndarray], shares: np.ndarray, m: float, f: float, n: int = 4000
                ) -> tuple[list[str], dict[str, Any]] | None:
    """The measurement term: the calibration's classes solved again (``--calibrate``), paired
    with their sample solves; (the section's lines, its summary), None without calibration records."""
    runs, cal = read_jsonl(calibration_path(args))
    pairs = [(r, recs[r["key"]]) for r in cal if r["key"] in recs]
    if not pairs:
        return None
    a = np.array([c["cpu_seconds"] for c, _ in pairs])
    b = np.array([s["cpu_seconds"] for _, s in pairs])
    same = sum(1 for c, s in pairs if (c["iterations"], c["exact"]) == (s["iterations"], s["exact"]))
    ratio = float(a.sum() / b.sum())
    rng = np.random.default_rng(1)
    idx = rng.integers(0, len(a), size=(n, len(a)))
    ratios = a[idx].sum(axis=1) / b[idx].sum(axis=1)
    idle = stratified_boots(cpu_v, shares, n, rng) * ratios * f
    rlo, rhi = np.quantile(ratios, [0.025, 0.975])
    lo, hi = np.quantile(idle, [0.025, 0.975])
    running = [c["running"] for c, _ in pairs if c.get("running") is not None]
    loads = np.array([c["load"] for c, _ in pairs])
    per = a / b
    lines = ["### The measurement term", "",
             f"Calibration: {provenance(runs)} {len(pairs)} classes of the sample (drawn at random, seed "
             f"{args.sample_seed}) solved again"
             + (f"; runnable processes at each start: median {np.median(running):.0f}, max {max(running)} (this "
                "one included: 1 is a machine otherwise idle)" if running else "")
             + f"; 1-minute load average median {np.median(loads):.2f} (it decays over a minute, so it lags). "
             f"The work (iterations and exact best responses) is the same on {same} of {len(pairs)}"
             + (": the solve is deterministic, so the difference is the measurement, not the engine."
                if same == len(pairs) else
                "; where it differs, the difference is partly the work (a time limit reached, or another commit)."),
             "",
             f"- CPU of the calibration against the sample's, the same classes: **× {ratio:.3f} [{rlo:.3f}, "
             f"{rhi:.3f}]** (ratio of sums, 95% paired bootstrap); per class × {np.median(per):.2f} median, "
             f"{per.min():.2f}–{per.max():.2f}",
             f"- the book under the calibration's conditions: {m * ratio * f:.1f} CPU-hours **[{lo:.1f}, {hi:.1f}]** "
             "(95%: the stratified sample and the ratio bootstrapped together)",
             ("- the same work cost a different CPU time: the book's figure depends on the machine's state, and CPU "
              "time is not immune to load" if not rlo <= 1.0 <= rhi else
              "- no difference between the two conditions is shown at this size")
             + "; earlier measurements of the same classes across commits and loads are in the reconciliation below."]
    return lines, {"classes": len(pairs), "same_work": same, "ratio": ratio, "ratio_ci": [float(rlo), float(rhi)],
                   "cpu_hours": m * ratio * f, "ci": [float(lo), float(hi)],
                   "running_median": float(np.median(running)) if running else None,
                   "load_median": float(np.median(loads))}


def reconcile(args: argparse.Namespace, pilot_run: dict[str, Any], pm: float, plo: float, phi: float, f: float,
              rows: list[tuple[str, str, str, str, str]]) -> list[str]:
    """The earlier figures (bench_reread's table) beside the pilot and this sample, with what differs."""
    earlier: list[str] = []
    book(earlier)  # the Re-read section's table of the committed data
    table = [s for s in earlier if s.startswith("| ") and "source" not in s and not s.startswith("|---")]
    _, pilot = pilot_records(args)
    pilot_cpu = {r["exposed"]: r["cpu_seconds"] for r in pilot}
    paired = []
    for p in sorted(DATA.glob("profile-*.jsonl")):
        prof = [json.loads(s) for s in p.read_text().splitlines() if s.strip()]
        common = [r for r in prof if r.get("exposed") in pilot_cpu]
        if common:
            ratio = sum(r["cpu"] for r in common) / sum(pilot_cpu[r["exposed"]] for r in common)
            paired.append(f"`{p.name}` (commit {common[0]['commit']}, {np.mean([r['cpu'] for r in prof]) * f:.0f} "
                          f"CPU-hours): {ratio:.2f}× the pilot's CPU on the same {len(common)} classes")
    heur = json.loads((DATA / "heuristics.json").read_text())["run"]
    limit = pilot_run.get("command", "").partition("--time-limit ")[2].split(" ")[0] or "?"
    out = ["### Reconciling the figures", "",
           "| source | sample | ε | how run | CPU s per class: mean [95% CI] | book, CPU-hours [95% CI] |",
           "|---|---|---:|---|---|---|", *table,
           f"| the pilot (`{args.pilot.name}`, commit {pilot_run.get('commit', '?')}) | {len(pilot_cpu)} classes, "
           "`book_sample` seed 2026 | 0.01 | one process, load average "
           f"{pilot_run.get('load', math.nan):.2f} at the start | {pm:.2f} [{plo:.2f}, {phi:.2f}] | {pm * f:.0f} "
           f"[{plo * f:.0f}, {phi * f:.0f}] |"]
    out += [f"| {a} | {b} | {c} | one process per shard | {d} | {e} |" for a, b, c, d, e in rows]
    out += ["", "Why they differ, as far as the data show:", "",
            "- Equilibrium section (134) and the profiles: the same 300 classes as the pilot (seed 2026), so "
            "their differences from it are not sampling; paired per class: " + ("; ".join(paired) or "no profile "
                                                                                    "data") + ". The commits and "
            "the machine's load differ between these runs, and these data do not separate the engine's version "
            "from the load.",
            "- Batch (184): other classes (100), and the only figure measured with two solving processes on the "
            "two shared cores; these data do not separate the load from the sample.",
            f"- Heuristics: ε 0.05 (not 0.01), deals as dealt re-weighted by 1 / orbit, commit "
            f"{heur.get('commit', '?')} on a machine recorded as {heur.get('machine', '?')!r}: ε, sample, "
            "commit and load all differ, so no one of them is measured by the difference.",
            f"- The pilot: {len(pilot_cpu)} classes uniformly, time limit {limit} s, "
            f"{sum(bool(r['converged']) for r in pilot)} of {len(pilot)} converged (slowest "
            f"{max(pilot_cpu.values()):.1f} CPU s).",
            "- This sample: other classes (the pilot's left out), stratified by the predictors; its difference "
            "from the pilot is sampling error, the commit, or the load — the stratum table's two columns of "
            "means compare them stratum by stratum."]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frame", type=positive_int, default=1500, help="classes in the frame (default 1500)")
    ap.add_argument("--frame-seed", type=int_at_least(0), default=7000,
                    help="book_sample seed of the frame (default 7000)")
    ap.add_argument("--sample", type=positive_int, default=200, help="classes solved, stratified (default 200)")
    ap.add_argument("--sample-seed", type=int_at_least(0), default=11,
                    help="seed of the draws within strata (default 11)")
    ap.add_argument("--strata", type=positive_int, default=4,
                    help="quantile strata of the predicted log CPU (default 4)")
    ap.add_argument("--epsilon", type=float_at_least(0), default=0.01)
    ap.add_argument("--time-limit", type=positive_float, default=120.0, help="seconds per solve (default 120)")
    ap.add_argument("--br-time-limit", type=positive_float, default=60.0,
                    help="seconds for greedy's exact best response (default 60)")
    ap.add_argument("--repeats", type=positive_int, default=200, help="random 5-fold splits of the cross-validation")
    ap.add_argument("--pilot", type=Path, default=DATA / "equilibrium-classes.jsonl",
                    help="the uniform pilot, CPU seconds per class (default benchmarks/data/equilibrium-classes.jsonl)")
    ap.add_argument("--pilot-classes", type=positive_int, default=None, help="use only the pilot's first K classes")
    ap.add_argument("--jsonl-dir", type=Path, default=DATA,
                    help="where book-frame.jsonl and book-sample.jsonl live (default benchmarks/data)")
    ap.add_argument("--start", type=int_at_least(0), default=0, help="first sample position to solve (a shard)")
    ap.add_argument("--stop", type=int_at_least(0), default=None,
                    help="stop before this sample position (0: the frame only)")
    ap.add_argument("--report", action="store_true", help="solve nothing: the section and book.json from the files")
    ap.add_argument("--calibrate", type=int_at_least(0), default=0,
                    help="solve this many of the sample's classes again into book-calibration.jsonl (run on an idle "
                         "machine: the measurement term; default 0)")
    ap.add_argument("--no-write", action="store_true", help="print the section; write no RESULTS.md or book.json")
    args = ap.parse_args(argv)
    run = Run(None if argv is None else ["bench_book.py", *argv])
    if not args.report:
        warm_kernels()
        build_frame(args, run)
    plan = design(args)
    if not args.report:
        solve_sample(args, run, plan)
        if args.stop is not None and args.stop < len(plan["sample"]):
            return 0  # a shard: the report comes from --report
        calibrate(args, run, plan)
    text, summary = report(args, plan, run)
    print(text)
    if not args.no_write:
        write_section("book", "The book: one figure, stratified", text)
        save_data("book", run, {"params": params(args), **summary})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
