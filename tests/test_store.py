"""The SQLite store of solved deals: round trips, keep-the-best, concurrency, crashes, bad files."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quintet.cards import Deck
from quintet.fingerprint import rules_fingerprint
from quintet.rules import CLASSIC, Category, Rules, get_rules
from solver.storage.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    SolutionStore,
    StoreError,
    default_store_path,
)

FP = rules_fingerprint(CLASSIC)
KIND = "equilibrium"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_child(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


# ------------------------------------------------------------------ paths and keys


def test_default_store_path(monkeypatch, tmp_path):
    monkeypatch.setenv("QUINTET_STORE", str(tmp_path / "x.sqlite"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_store_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("QUINTET_STORE")
    assert default_store_path() == tmp_path / "cache" / "quintet" / "solutions.sqlite"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    home_default = tmp_path / "home" / ".cache" / "quintet" / "solutions.sqlite"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # invalid per the XDG spec
    assert default_store_path() == home_default
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_store_path() == home_default


def test_store_uses_default_path(monkeypatch, tmp_path):
    monkeypatch.setenv("QUINTET_STORE", str(tmp_path / "env" / "s.sqlite"))
    (tmp_path / "env").mkdir()
    with SolutionStore() as store:
        assert store.path == tmp_path / "env" / "s.sqlite"
        store.put(FP, KIND, 1, {"a": 1}, 1.0)
    assert (tmp_path / "env" / "s.sqlite").is_file()


def test_rules_fingerprint_names_every_option():
    assert rules_fingerprint(Rules()) == rules_fingerprint(CLASSIC) == FP
    variants = [
        CLASSIC.with_options(name="other"),
        CLASSIC.with_options(weights=(3, 4, 5, 6, 8)),
        CLASSIC.with_options(weights=(3, 4, 5, 6)),
        CLASSIC.with_options(tie_points=0.5),
        CLASSIC.with_options(ace_low_straight=True),
        CLASSIC.with_options(flush_over_full_house=True),
        CLASSIC.with_options(tiebreak="group-only"),
        CLASSIC.with_options(tiebreak="no-kickers"),
        CLASSIC.with_options(deck=Deck(name="36", ranks="6789TJQKA", field=16)),
        CLASSIC.with_options(category_order=tuple(Category)[:-1]),
        CLASSIC.with_options(hand_size=4),
    ]
    # every yes/no option of Rules, present and future, changes the fingerprint
    variants += [
        CLASSIC.with_options(**{f.name: not getattr(CLASSIC, f.name)})
        for f in dataclasses.fields(Rules)
        if isinstance(getattr(CLASSIC, f.name), bool)
    ]
    prints = [rules_fingerprint(r) for r in variants]
    assert FP not in prints
    assert len(set(prints)) == len(set(variants))  # distinct rule sets, distinct prints
    assert "\n" not in FP
    assert rules_fingerprint(CLASSIC.with_options(weights=(3, 4, 5, 6, 7))) == FP
    jokers = [get_rules("draw36-joker", joker_card=card) for card in ("6c", "6d", "6h", "6s")]
    assert len({rules_fingerprint(r) for r in jokers}) == 4  # the joker card is part of the game


# ------------------------------------------------------------------ round trips


def test_round_trip_and_reopen(tmp_path):
    path = tmp_path / "s.sqlite"
    record = {
        "mix": [{"probability": 0.25, "arrangement": [["As", "Ks"]]}],
        "name": "pique ♠",
        "n": 2**40,
    }
    with SolutionStore(path) as store:
        assert len(store) == 0 and store.get(FP, KIND, 123) is None and not store.has(FP, KIND, 123)
        assert store.put(FP, KIND, 123, record, 0.5)
        assert store.get(FP, KIND, 123) == record
        assert store.has(FP, KIND, 123) and (FP, KIND, 123) in store
        assert store.quality(FP, KIND, 123) == 0.5
        # other kinds, rule sets and masks are other keys
        assert store.get(FP, "best-response", 123) is None
        assert store.get("other", KIND, 123) is None
        assert store.get(FP, KIND, 124) is None
        store.put(FP, "best-response", 123, {"b": 1}, 2.0)
        store.put(FP, KIND, 2**32 - 1, {"c": 1}, 0.0)
        assert len(store) == 3
    with SolutionStore(path) as store:
        entry = store.entry(FP, KIND, 123)
        assert entry is not None and entry.record == record and entry.quality == 0.5
        assert abs(entry.updated - time.time()) < 60
        assert list(store.keys()) == [
            (FP, "best-response", 123),
            (FP, KIND, 123),
            (FP, KIND, 2**32 - 1),
        ]
        assert list(store.keys(kind=KIND)) == [(FP, KIND, 123), (FP, KIND, 2**32 - 1)]
        assert list(store.keys(fingerprint="other")) == []
        assert store.delete(FP, KIND, 123) and not store.delete(FP, KIND, 123)
        assert len(store) == 2
        assert store.integrity_check() == "ok"


def test_masks_of_64_bits_are_keys(tmp_path):
    """Variant decks use 64-bit masks; the 54-card deck's second joker is bit 63."""
    big = [2**63, 2**64 - 1, 2**63 + 5, 2**63 - 1, 0]
    with SolutionStore(tmp_path / "s.sqlite") as store:
        for i, mask in enumerate(big):
            assert store.put(FP, KIND, mask, {"i": i}, 1.0)
        assert [store.get(FP, KIND, m) for m in big] == [{"i": i} for i in range(len(big))]
        assert store.get(FP, KIND, 5) is None  # 2**63 + 5 is not 5 or -(2**63) + 5
        assert list(store.keys()) == [(FP, KIND, m) for m in sorted(big)]
        assert not store.put(FP, KIND, 2**64 - 1, {"i": "worse"}, 2.0)
        assert store.delete(FP, KIND, 2**64 - 1) and len(store) == len(big) - 1


def test_better_quality_replaces_worse_does_not(tmp_path):
    with SolutionStore(tmp_path / "s.sqlite") as store:
        assert store.put(FP, KIND, 7, {"v": "first"}, 1.0)
        t1 = store.entry(FP, KIND, 7).updated
        assert not store.put(FP, KIND, 7, {"v": "worse"}, 1.5)
        assert not store.put(FP, KIND, 7, {"v": "equal"}, 1.0)
        assert store.get(FP, KIND, 7) == {"v": "first"}
        assert store.entry(FP, KIND, 7).updated == t1
        time.sleep(0.01)
        assert store.put(FP, KIND, 7, {"v": "better"}, 0.25)
        entry = store.entry(FP, KIND, 7)
        assert entry.record == {"v": "better"} and entry.quality == 0.25 and entry.updated > t1
        assert store.put(FP, KIND, 7, {"v": "exact"}, 0.0)
        assert not store.put(FP, KIND, 7, {"v": "inf"}, float("inf"))
        assert store.get(FP, KIND, 7) == {"v": "exact"}
        assert len(store) == 1


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**62), 2**62)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.sampled_from(["eq", "br"]),
            st.floats(-10, 10, allow_nan=False),
            json_values,
        ),
        max_size=25,
    )
)
def test_put_sequence_matches_a_model(ops):
    """Whatever the order of puts, each key holds the first record of its least quality."""
    model: dict[tuple[str, str, int], tuple[float, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp, SolutionStore(Path(tmp) / "s.sqlite") as store:
        for canonical, kind, quality, value in ops:
            key = (FP, kind, canonical)
            record = {"value": value}
            expected = key not in model or quality < model[key][0]
            if expected:
                model[key] = (quality, record)
            assert store.put(*key, record, quality) == expected
        assert len(store) == len(model)
        assert set(store.keys()) == set(model)
        for key, (quality, record) in model.items():
            entry = store.entry(*key)
            assert entry.quality == quality and entry.record == record


def test_transaction_groups_writes_and_rolls_back(tmp_path):
    with SolutionStore(tmp_path / "s.sqlite") as store:
        with store.transaction():
            store.put(FP, KIND, 1, {}, 1.0)
            with store.transaction():  # nested: part of the outer one
                store.put(FP, KIND, 2, {}, 1.0)
        assert len(store) == 2
        with pytest.raises(RuntimeError), store.transaction():
            store.put(FP, KIND, 3, {}, 1.0)
            store.put(FP, KIND, 1, {}, 0.0)
            raise RuntimeError("abandon")
        assert len(store) == 2 and store.quality(FP, KIND, 1) == 1.0


def test_bad_arguments_raise_store_error(tmp_path):
    with SolutionStore(tmp_path / "s.sqlite") as store:
        for bad in (
            lambda: store.put(FP, KIND, 1, {"x": float("nan")}, 1.0),
            lambda: store.put(FP, KIND, 1, {"x": object()}, 1.0),
            lambda: store.put(FP, KIND, 1, ["not", "a", "dict"], 1.0),  # type: ignore[arg-type]
            lambda: store.put(FP, KIND, 1, {}, float("nan")),
            lambda: store.put(FP, KIND, 1, {}, "good"),  # type: ignore[arg-type]
            lambda: store.put(FP, KIND, -1, {}, 1.0),
            lambda: store.put(FP, KIND, 2**64, {}, 1.0),
            lambda: store.put(FP, KIND, 1.5, {}, 1.0),  # type: ignore[arg-type]
            lambda: store.put("", KIND, 1, {}, 1.0),
            lambda: store.get(FP, "", 1),
        ):
            with pytest.raises(StoreError):
                bad()
        assert len(store) == 0
    with pytest.raises(StoreError, match="closed"):
        store.get(FP, KIND, 1)


def test_a_missing_directory_is_refused_and_nothing_is_made(tmp_path, monkeypatch):
    for path, problem in [(tmp_path / "a" / "b" / "s.sqlite", f"directory '{tmp_path / 'a' / 'b'}' does not exist"),
                          (Path("/etc/passwd/s.sqlite"), "'/etc/passwd' is not a directory")]:
        with pytest.raises(StoreError) as info:
            SolutionStore(path)
        assert str(info.value) == f"solution store '{path}': {problem}"
    assert list(tmp_path.iterdir()) == []
    # the default location's directory (the user cache directory) is made
    monkeypatch.delenv("QUINTET_STORE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with SolutionStore() as store:
        assert store.path == tmp_path / "cache" / "quintet" / "solutions.sqlite"


def test_a_new_store_is_made_in_an_existing_directory(tmp_path):
    path = tmp_path / "solutions.sqlite"
    with SolutionStore(path) as store:
        store.put(FP, KIND, 1, {"ok": True}, 0.0)
    assert path.is_file()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_an_empty_file_becomes_a_store(tmp_path):
    path = tmp_path / "empty.sqlite"
    path.touch()
    with SolutionStore(path) as store:
        assert store.put(FP, KIND, 1, {}, 0.0)


# ------------------------------------------------------------------ bad files


def _expect_untouched_refusal(path: Path, match: str) -> None:
    before = digest(path)
    siblings = sorted(p.name for p in path.parent.iterdir())
    with pytest.raises(StoreError, match=match) as info:
        SolutionStore(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    assert digest(path) == before
    assert sorted(p.name for p in path.parent.iterdir()) == siblings


def test_random_bytes_are_refused_and_left_alone(tmp_path):
    path = tmp_path / "junk.sqlite"
    path.write_bytes(os.urandom(10_000))
    _expect_untouched_refusal(path, "not a SQLite database")


def test_a_short_text_file_is_refused(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    _expect_untouched_refusal(path, "not a SQLite database")


def test_a_damaged_store_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "damaged.sqlite"
    with SolutionStore(path) as store:
        for i in range(50):
            store.put(FP, KIND, i, {"pad": "x" * 2000}, 1.0)
    data = bytearray(path.read_bytes())
    data[100:] = os.urandom(len(data) - 100)  # keep the header, scramble every page
    path.write_bytes(bytes(data))
    before = digest(path)
    with pytest.raises(StoreError, match="corrupt") as info:
        SolutionStore(path)
    assert str(path) in str(info.value)
    assert digest(path) == before


def test_a_foreign_sqlite_file_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers (name) VALUES ('Ada')")
    conn.commit()
    conn.close()
    _expect_untouched_refusal(path, "another application")
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT name FROM customers").fetchall() == [("Ada",)]
    conn.close()


def test_a_foreign_wal_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "other-wal.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA application_id=1234")
    conn.execute("CREATE TABLE solutions (x)")
    conn.commit()
    conn.close()
    _expect_untouched_refusal(path, "another application")


def test_another_schema_version_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "future.sqlite"
    with SolutionStore(path) as store:
        store.put(FP, KIND, 1, {}, 0.0)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.close()
    _expect_untouched_refusal(path, "schema version")


# ------------------------------------------------------------------ processes

WRITER = """
    import json, random, sys, time
    from pathlib import Path
    from solver.storage.store import SolutionStore
    path, go, who, n = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.005)
    rng = random.Random(who)
    log = []
    with SolutionStore(path) as store:   # both writers may create the store at once
        (go.parent / f"opened-{who}").touch()
        while len(list(go.parent.glob("opened-*"))) < 2:
            time.sleep(0.002)
        start = time.time()
        for i in range(n):
            key = rng.randrange(20)
            quality = rng.random()
            stored = store.put("fp", "eq", key, {"who": who, "i": i, "quality": quality}, quality)
            log.append([key, quality, stored])
    print(json.dumps({"log": log, "start": start, "end": time.time()}), flush=True)
"""


@pytest.mark.subprocess
def test_two_processes_write_concurrently(tmp_path):
    path = tmp_path / "shared" / "s.sqlite"
    path.parent.mkdir()  # the store's directory must exist; the file itself both writers may create
    go = tmp_path / "go"
    procs = [run_child(WRITER, str(path), str(go), who, "200") for who in ("A", "B")]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    go.touch()
    logs, spans = [], []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        result = json.loads(out)
        logs.append(result["log"])
        spans.append((result["start"], result["end"]))
    assert max(a for a, _ in spans) < min(b for _, b in spans), f"writers did not overlap: {spans}"
    best: dict[int, float] = {}
    for log in logs:
        assert len(log) == 200
        for key, quality, _ in log:
            best[key] = min(best.get(key, 2.0), quality)
    with SolutionStore(path) as store:
        assert store.integrity_check() == "ok"
        assert len(store) == len(best)
        for key, quality in best.items():
            entry = store.entry("fp", "eq", key)
            assert entry.quality == quality == entry.record["quality"]
    # a put that reports "stored" beat everything this process had put for that key before
    for log in logs:
        own: dict[int, float] = {}
        for key, quality, stored in log:
            if stored:
                assert quality < own.get(key, 2.0)
            elif quality < own.get(key, 2.0):
                assert any(
                    q <= quality
                    for other in logs
                    if other is not log
                    for k, q, _ in other
                    if k == key
                )
            own[key] = min(own.get(key, 2.0), quality)


KILLED_IN_TRANSACTION = """
    import sys, time
    from solver.storage.store import SolutionStore
    store = SolutionStore(sys.argv[1])
    for i in range(10):
        store.put("fp", "eq", i, {"i": i}, 1.0)
    with store.transaction():
        store.put("fp", "eq", 0, {"i": "overwritten"}, 0.0)
        for i in range(10, 200):   # ~10 MB: spills uncommitted pages into the WAL
            store.put("fp", "eq", i, {"i": i, "pad": "x" * 50_000}, 1.0)
        print("in transaction", flush=True)
        time.sleep(120)
"""


@pytest.mark.subprocess
def test_a_writer_killed_inside_a_transaction_leaves_the_committed_state(tmp_path):
    path = tmp_path / "s.sqlite"
    proc = run_child(KILLED_IN_TRANSACTION, str(path))
    try:
        assert proc.stdout.readline().strip() == "in transaction", proc.stderr.read()
        assert Path(str(path) + "-wal").stat().st_size > 1_000_000  # uncommitted frames on disk
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    with SolutionStore(path, timeout=5) as store:
        assert store.integrity_check() == "ok"
        assert len(store) == 10
        assert [store.get("fp", "eq", i) for i in range(10)] == [{"i": i} for i in range(10)]
        assert store.quality("fp", "eq", 0) == 1.0
        assert store.put("fp", "eq", 10, {"i": 10}, 1.0)  # and it takes writes again
    with SolutionStore(path) as store:
        assert len(store) == 11


KILLED_IN_LOOP = """
    import sys
    from solver.storage.store import SolutionStore
    with SolutionStore(sys.argv[1]) as store:
        i = 0
        while True:
            store.put("fp", "eq", i, {"i": i, "pad": "y" * 3000}, float(i))
            print(i, flush=True)
            i += 1
"""


@pytest.mark.subprocess
def test_a_writer_killed_in_a_loop_of_puts_loses_nothing_committed(tmp_path):
    path = tmp_path / "s.sqlite"
    proc = run_child(KILLED_IN_LOOP, str(path))
    reported = []
    try:
        while len(reported) < 150:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            reported.append(int(line))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    with SolutionStore(path, timeout=5) as store:
        assert store.integrity_check() == "ok"
        n = len(store)
        # everything reported was committed; at most a couple more finished before the kill
        assert len(reported) <= n
        assert list(store.keys()) == [("fp", "eq", i) for i in range(n)]
        for i in reported:
            assert store.get("fp", "eq", i) == {"i": i, "pad": "y" * 3000}
