"""quintet-batch: resumable batch solving into the store, local and on Dask."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from programs import child_pids, still_running

from quintet.fingerprint import rules_fingerprint
from quintet.game import Deal
from quintet.rules import CLASSIC
from quintet.symmetry import permute_mask
from solver.advisor.advice import best_response
from solver.advisor.equilibrium import STALE_STORE_KINDS, STORE_KIND, EquilibriumResult, equilibrium, solve_equilibrium
from solver.apps.batch import (
    BatchProgress,
    BookEstimate,
    canonical_key,
    random_deals,
    read_deal_file,
    run_batch,
)
from solver.apps.batch.cli import main as batch_main
from solver.apps.batch.deals import DealFileError
from solver.storage.store import SolutionStore

FP = rules_fingerprint(CLASSIC)
EPSILON = 0.1
# Deals whose equilibrium at ε = 0.1 takes about a second or less.
FAST = ("Kc Qh Qd Js 9d 8s 7d", "Ac Qd Js Jh 8c 7d 7c", "Kd Kc Js Jh 9s 9h 8h")


def batch_command() -> list[str]:
    script = Path(sys.executable).with_name("quintet-batch")
    if script.exists():
        return [str(script)]
    found = shutil.which("quintet-batch")
    return [found] if found else [sys.executable, "-m", "solver.apps.batch"]


def stored(path: Path) -> dict[int, tuple[float, float]]:
    """canonical key -> (quality, updated) of every equilibrium row."""
    with SolutionStore(path) as store:
        return {k: (e.quality, e.updated) for _, _, k in store.keys(STORE_KIND)
                if (e := store.entry(FP, STORE_KIND, k)) is not None}


# ---------------------------------------------------------------------------- resume after a kill


@pytest.mark.subprocess
def test_resume_after_sigkill(tmp_path):
    store_path = tmp_path / "book.sqlite"
    n, seed = 4, 11  # four deals that solve in seconds
    expected = set(random_deals(n, seed))
    cmd = batch_command() + ["--random", str(n), "--seed", str(seed), "--epsilon", str(EPSILON),
                             "--time-limit", "60", "--workers", "1", "--store", str(store_path), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        count = 0
        while time.monotonic() < deadline and proc.poll() is None:
            if store_path.exists() and store_path.stat().st_size > 0:
                try:
                    count = len(stored(store_path))
                except Exception:  # noqa: BLE001 — the file may be mid-creation
                    count = 0
                if count >= 1:
                    break
            time.sleep(0.02)
        assert proc.poll() is None, "the batch finished before it could be killed"
        assert count >= 1, "no deal was stored in time"
        os.killpg(proc.pid, signal.SIGKILL)  # the whole process group we started
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    before = stored(store_path)
    assert 1 <= len(before) < n, "the kill must come mid-run"
    assert set(before) <= expected

    rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    summary = json.loads(rerun.stdout)
    assert summary["total"] == n
    assert summary["skipped"] == len(before)  # nothing solved twice …
    assert summary["solved"] + summary["unconverged"] == n - len(before)
    assert summary["failed"] == 0
    assert "deals" in rerun.stderr  # the progress bar

    after = stored(store_path)
    assert set(after) == expected  # … and nothing lost
    for key, (quality, updated) in before.items():
        assert after[key] == (quality, updated)  # untouched by the restart
    with SolutionStore(store_path) as store:
        assert store.integrity_check() == "ok"
        for key in expected:  # every record readable and legal for its deal
            eq = EquilibriumResult.from_record(Deal(key), store.get(FP, STORE_KIND, key))
            assert eq.exploitability <= EPSILON or not eq.converged


# ---------------------------------------------------------------------------- Dask = local


def _check_certificates(store_path: Path, keys: set[int]) -> dict[int, float]:
    """Recompute each stored mix's exploitability with an exact best response."""
    out = {}
    with SolutionStore(store_path) as store:
        assert set(k for _, _, k in store.keys(STORE_KIND)) == keys
        assert store.integrity_check() == "ok"
        for key in keys:
            entry = store.entry(FP, STORE_KIND, key)
            deal = Deal(key)
            eq = EquilibriumResult.from_record(deal, entry.record)
            br = best_response(deal, eq.opponent(), time_limit=60)
            assert br.optimal
            assert br.expected_margin <= entry.quality + 1e-7  # the certificate holds
            assert entry.quality <= EPSILON
            out[key] = entry.quality
    return out


@pytest.mark.subprocess  # a dask cluster: worker processes of its own
def test_dask_engine_stores_the_same_results_as_local(tmp_path):
    pytest.importorskip("dask.distributed")
    masks = [Deal.from_exposed(d).exposed for d in FAST]
    keys = {canonical_key(m) for m in masks}
    results = {}
    for executor, workers in (("local", 1), ("dask", 2)):
        path = tmp_path / f"{executor}.sqlite"
        with SolutionStore(path) as store:
            summary = run_batch(masks, store=store, epsilon=EPSILON, time_limit=60, workers=workers, executor=executor)
        assert (summary.executor, summary.solved, summary.failed, summary.skipped) == (executor, len(FAST), 0, 0)
        if executor == "dask":
            assert len({r.worker for r in summary.results}) >= 1
            assert all(r.worker.split(":")[1] != str(os.getpid()) for r in summary.results)  # solved remotely
        results[executor] = _check_certificates(path, keys)
    assert results["local"].keys() == results["dask"].keys()
    for key in keys:
        assert abs(results["local"][key] - results["dask"][key]) <= EPSILON


# ---------------------------------------------------------------------------- in-process behaviour


def test_skips_certified_and_improves_weaker_records(tmp_path):
    deal = Deal.from_exposed(FAST[0])
    key = canonical_key(deal.exposed)
    path = tmp_path / "s.sqlite"
    weak = equilibrium(Deal(key), epsilon=5.0, time_limit=30)  # a coarse first answer
    assert weak.exploitability > EPSILON
    with SolutionStore(path) as store:
        store.put(FP, STORE_KIND, key, weak.to_record(), weak.exploitability)
        first = run_batch([deal.exposed], store=store, epsilon=EPSILON, time_limit=60)
        assert (first.solved, first.skipped) == (1, 0)  # a weaker record does not count as done
        q = store.quality(FP, STORE_KIND, key)
        assert q <= EPSILON
        second = run_batch([deal.exposed], store=store, epsilon=EPSILON, time_limit=60)
        assert (second.solved, second.skipped) == (0, 1)
        looser = run_batch([deal.exposed], store=store, epsilon=2 * EPSILON, time_limit=60)
        assert looser.skipped == 1
        # what the batch stored is what quintet-solve reads
        eq = solve_equilibrium(deal, epsilon=EPSILON, store=store)
        assert eq.from_store and eq.exploitability == q


def test_stale_entries_are_re_solved_and_reported(tmp_path):
    """An entry of an earlier certificate version is never trusted: the batch solves the deal
    again (as solve_equilibrium does, through the same look-up) and says so in its summary."""
    deal = Deal.from_exposed(FAST[0])
    key = canonical_key(deal.exposed)
    rough = equilibrium(Deal(key), epsilon=5.0, time_limit=30)
    fake = replace(rough, exploitability=0.0, converged=True)  # claims perfection
    with SolutionStore(tmp_path / "s.sqlite") as store:
        store.put(FP, STALE_STORE_KINDS[0], key, fake.to_record(), 0.0)
        summary = run_batch([deal.exposed], store=store, epsilon=EPSILON, time_limit=60)
        assert (summary.skipped, summary.solved, summary.stale) == (0, 1, 1)
        assert summary.to_model().stale == 1 and "earlier solver" in summary.format()
        assert store.quality(FP, STORE_KIND, key) <= EPSILON
        again = run_batch([deal.exposed], store=store, epsilon=EPSILON, time_limit=60)
        assert (again.skipped, again.stale) == (1, 0) and "earlier solver" not in again.format()


def test_suit_equivalent_deals_are_one_job(tmp_path):
    mask = Deal.from_exposed(FAST[2]).exposed
    twin = permute_mask(mask, (3, 2, 1, 0))
    assert twin != mask and canonical_key(twin) == canonical_key(mask)
    with SolutionStore(tmp_path / "s.sqlite") as store:
        summary = run_batch([mask, twin], store=store, epsilon=EPSILON, time_limit=60)
        assert (summary.total, summary.duplicates, summary.solved) == (1, 1, 1)
        assert len(store) == 1


def test_random_deals_are_distinct_canonical_and_seeded():
    a = random_deals(10, 4)
    assert a == random_deals(10, 4) and a != random_deals(10, 5)
    assert len(set(a)) == 10
    assert all(canonical_key(k) == k for k in a)
    assert random_deals(12, 4)[:10] == a  # a longer sample extends a shorter one


def test_read_deal_file(tmp_path):
    f = tmp_path / "deals.txt"
    f.write_text("# my deals\n8h 7h 9d Ts 7s Qc Jc\n\nAs Ks Qs Js Ts Ah Kh  # comment\n")
    assert read_deal_file(f) == [Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc").exposed,
                                 Deal.from_exposed("As Ks Qs Js Ts Ah Kh").exposed]
    f.write_text("8h 7h 9d Ts 7s Qc Jc\n8h 7h 9d Ts 7s Qc\n")
    with pytest.raises(DealFileError, match="line 2"):  # a ValueError: the command line's one line, exit 2
        read_deal_file(f)
    assert issubclass(DealFileError, ValueError)


def test_progress_without_a_terminal_prints_one_line_per_deal():
    stream = io.StringIO()
    bar = BatchProgress(stream=stream)
    bar.start(4)
    bar.started -= 60.0  # one minute ago
    bar.update(1, "last: x")
    bar.update(2)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in stream.getvalue()  # not a terminal: one line per update
    assert "1/4 deals" in lines[0] and "last: x" in lines[0] and " 25%" in lines[0]
    assert "2/4 deals" in lines[1] and "30.00s/deal" in lines[1] and "01:00<01:00" in lines[1]  # rate and ETA
    assert "|#####     |" in lines[1]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_redraws_one_line():
    stream = _Terminal()
    bar = BatchProgress(stream=stream)
    bar.start(3)
    for done in (1, 2, 3):
        bar.update(done, f"last: deal {done}")
    bar.close()
    text = stream.getvalue()
    assert text.count("\n") == 1  # redrawn in place with \r; one newline when closed
    assert "3/3 deals" in text.rsplit("\r", 1)[-1] and "last: deal 3" in text


def test_disabled_progress_prints_nothing():
    stream = _Terminal()
    bar = BatchProgress(stream=stream, enabled=False)
    bar.start(2)
    bar.update(1, "x")
    bar.close()
    assert stream.getvalue() == ""


def test_book_estimate_arithmetic():
    est = BookEstimate(rules="classic", canonical_deals=156_248, exposed_sets=3_365_856, sample=4, epsilon=0.05,
                       time_limit=600, cpu_seconds=[1.0, 2.0, 3.0, 6.0], wall_seconds=[1, 2, 3, 6], converged=4,
                       seed=0)
    assert est.cpu_hours == pytest.approx(156_248 * 3.0 / 3600)
    lo, hi = est.cpu_hours_ci
    half = 3.1824 * (est.cpu_seconds and __import__("statistics").stdev(est.cpu_seconds)) / 2
    assert hi == pytest.approx((3.0 + half) * 156_248 / 3600)
    assert lo == pytest.approx(max(0.0, (3.0 - half) * 156_248 / 3600))
    assert "156,248" in est.format() and "lower bound" not in est.format()
    est.converged = 3
    assert "lower bound" in est.format()


def test_cli_book_size_counts_the_canonical_deals(capsys):
    assert batch_main(["--book-size", "--sample", "0"]) == 0
    out = capsys.readouterr().out
    assert "156,248 suit-canonical deals" in out and "3,365,856" in out


def test_cli_book_size_measures_a_sample(capsys):
    assert batch_main(["--book-size", "--sample", "1", "--seed", "1", "--epsilon", "1.0", "--time-limit", "20",
                       "--workers", "1", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["canonical_deals"] == 156_248 and out["sample"] == 1
    assert out["cpu_hours"] == pytest.approx(156_248 * out["cpu_seconds"][0] / 3600)


def test_cli_solves_arguments_and_files_then_skips(tmp_path, capsys):
    f = tmp_path / "deals.txt"
    f.write_text(FAST[1] + "\n")
    store = tmp_path / "s.sqlite"
    argv = [FAST[0], "--file", str(f), "--epsilon", str(EPSILON), "--time-limit", "60", "--workers", "1",
            "--store", str(store), "--no-progress"]
    assert batch_main(argv) == 0
    out = capsys.readouterr().out
    assert "solved 2, unconverged 0, skipped 0, failed 0" in out and "deals/minute" in out
    assert batch_main(argv) == 0
    assert "solved 0, unconverged 0, skipped 2, failed 0" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [[], ["--random", "2", "--scheduler", "tcp://x:1"], ["--book-size", "8h"],
                                  ["8h 7h 9d"], ["--random", "0"]])
def test_cli_errors(argv, capsys, tmp_path):
    try:
        status = batch_main(argv + ["--store", str(tmp_path / "s.sqlite")])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    assert status == 2
    assert capsys.readouterr().err.startswith("quintet-batch: error:")


@pytest.mark.subprocess
@pytest.mark.slow
def test_pool_workers_exit_when_the_batch_is_killed(tmp_path):
    """Kill only the parent of a 2-worker pool: the workers notice and exit; a rerun completes."""
    store_path = tmp_path / "book.sqlite"
    cmd = batch_command() + ["--random", "6", "--seed", "11", "--epsilon", str(EPSILON), "--time-limit", "60",
                             "--workers", "2", "--store", str(store_path), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (store_path.exists() and len(stored(store_path)) >= 1):
        time.sleep(0.05)
    children = child_pids(proc.pid)
    assert children, "the pool had no worker processes"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    time.sleep(3)
    alive = still_running(children)
    for pid in alive:
        os.kill(int(pid), signal.SIGKILL)
    assert not alive
    rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    summary = json.loads(rerun.stdout)
    assert summary["failed"] == 0 and set(stored(store_path)) == set(random_deals(6, 11))


@pytest.mark.tmux
def test_progress_bar_in_a_real_terminal(tmp_path):
    """Inside tmux (a real terminal) the bar is redrawn in place: one bar line, at 100%."""
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed")
    socket = f"quintet-test-{os.getpid()}"
    command = " ".join(batch_command() + [f"'{FAST[0]}'", "--epsilon", str(EPSILON), "--time-limit", "60",
                                           "--workers", "1", "--store", str(tmp_path / "s.sqlite")])
    base = [tmux, "-L", socket, "-f", "/dev/null"]
    raw = tmp_path / "terminal.log"
    subprocess.run(base + ["new-session", "-d", "-x", "160", "-y", "20",
                           f"sleep 1; {command}; echo BATCH-DONE; sleep 60"], check=True)
    try:
        subprocess.run(base + ["pipe-pane", "-o", f"cat >> {raw}"], check=True)  # the bytes the terminal got
        deadline = time.monotonic() + 120
        pane = ""
        while time.monotonic() < deadline and "BATCH-DONE" not in pane:
            time.sleep(0.5)
            pane = subprocess.run(base + ["capture-pane", "-p"], capture_output=True, text=True).stdout
    finally:
        subprocess.run(base + ["kill-server"], capture_output=True)
    assert "BATCH-DONE" in pane, pane
    bars = [line for line in pane.splitlines() if "deals [" in line]
    assert len(bars) == 1 and "100%" in bars[0] and "1/1 deals" in bars[0], pane
    written = raw.read_bytes().decode(errors="replace")  # not read_text: it would turn \r into \n
    assert "0/1 deals" in written and "\rquintet-batch: 100%" in written  # drawn at 0/1, then redrawn in place
    assert "solved 1, unconverged 0, skipped 0, failed 0" in pane


@pytest.mark.subprocess
def test_ctrl_c_keeps_what_finished_and_exits_130(tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while a slow deal is
    in flight on a 2-worker pool: the finished deals stay stored, the summary says interrupted,
    exit status 130, and no worker process is left behind."""
    store_path = tmp_path / "s.sqlite"
    slow = "As Ks Qc Js Th 8d 7s"  # about 27 CPU s to ε = 0.1 (the example deal now takes 5)
    cmd = batch_command() + [*FAST, slow, "--epsilon", str(EPSILON), "--time-limit", "300", "--workers", "2",
                             "--store", str(store_path), "--json", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            if store_path.exists() and store_path.stat().st_size > 0:
                try:
                    if len(stored(store_path)) >= len(FAST):
                        break
                except Exception:  # noqa: BLE001 — the file may be mid-creation
                    pass
            time.sleep(0.1)
        assert proc.poll() is None, "the batch finished before it could be interrupted"
        workers = child_pids(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, (err, out[:300])
    assert "Traceback" not in err and "Process" not in err, err  # the workers leave Ctrl-C to the batch
    summary = json.loads(out)
    assert summary["interrupted"] and summary["solved"] == len(FAST) and summary["failed"] == 0
    assert set(stored(store_path)) == {canonical_key(Deal.from_exposed(d).exposed) for d in FAST}
    time.sleep(1)
    assert not still_running(workers)


@pytest.mark.subprocess
def test_processes_started_for_workers_ignore_ctrl_c():
    """``children_ignore_ctrl_c``: a process started inside it inherits SIGINT ignored (so a
    Ctrl-C to the process group leaves it to the parent); outside it, Python's default."""
    from solver.apps.interrupt import children_ignore_ctrl_c

    probe = [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)"]
    before = signal.getsignal(signal.SIGINT)  # Python's (conftest: even in a suite started with it ignored)
    with children_ignore_ctrl_c():
        inside = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    assert signal.getsignal(signal.SIGINT) is before  # this process's own handler is back
    outside = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    assert (inside, outside) == ("True", "False")
