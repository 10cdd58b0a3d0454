"""Seats that cannot be lost (issue 30): a friend's table hands out no second token — an
invitation, exchanged once by the friend's page, shown again to seat 1 until then; presence
(the other seat joined, connected, confirmed; this seat open twice) in every view and as an
event; a rematch in one click for each seat, both keeping their links; the commitment check
saying what it proves.  Against a live ``quintet-serve`` on loopback, over HTTP."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from serve_helpers import live_server, wait_for_workers
from table_helpers import SeatClient, deal_of, join, two_arrangements

from quintet.rules import get_rules
from quintet.seeds import SEED_MAX
from solver.apps.serve.tables.errors import NOT_FOUND
from solver.apps.serve.tables.service import JOINED, USED
from solver.apps.serve.tables.views import COMPUTER_PROVES, FRIEND_PROVES

SEED = 21


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("seats")
    with live_server("--workers", "1", "--store", str(base / "solutions.sqlite"),
                     "--tables", str(base / "tables.sqlite")) as (url, _):
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        yield url


def error(r: httpx.Response, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    assert list(r.json()) == ["error"] and "\n" not in r.json()["error"]
    return r.json()["error"]


def create(url: str, body: dict) -> dict:
    r = httpx.post(f"{url}/api/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.server
def test_the_creator_holds_seat_1_and_an_invitation_never_seat_2s_token(server):
    created = create(server, {"opponent": "friend", "seed": SEED})
    assert set(created) == {"table", "seat", "token", "link", "warning", "invitation"}
    assert created["seat"] == 1 and created["link"] == f"{server}/#play/{created['table']}/1/{created['token']}"
    link = created["invitation"]["link"]
    table, code = link.rsplit("#join/", 1)[1].split("/")
    assert link.startswith(f"{server}/#join/") and table == created["table"] and len(code) >= 22  # 128 bits
    one = SeatClient(server, table, 1, created["token"])
    assert one.view()["presence"] == {"joined": False, "connected": False, "lost": False, "confirmed": False, "here": 0,
                                      "left": False}
    # seat 1 may see the invitation again until the friend joins
    assert one.request("GET", "/invitation").json()["link"] == link
    stream = one.events()
    joined = join(server, link)
    assert joined.status_code == 201
    friend = joined.json()
    assert set(friend) == {"table", "seat", "token", "link", "warning"} and friend["seat"] == 2
    assert friend["token"] != created["token"] and friend["token"] not in link
    assert friend["link"] == f"{server}/#play/{table}/2/{friend['token']}"
    two = SeatClient(server, table, 2, friend["token"])
    assert two.view()["seat"] == 2
    stream.wait_for("joined")
    assert stream.wait_for("presence")["view"]["presence"]["joined"] is True
    assert one.view()["presence"]["joined"] is True and two.view()["presence"]["joined"] is True
    # now the invitation is spent: seat 1 is told so, and a second exchange is refused — seat 1 told
    assert error(one.request("GET", "/invitation", status=None), 409) == JOINED
    assert error(join(server, link), 409) == USED
    told = stream.wait_for("invitation_reused")
    assert told["view"]["invitation_reused"] == 1 and told["seat"] == 2
    assert one.view()["invitation_reused"] == 1 and two.view()["invitation_reused"] == 0
    # seat 2 has no invitation to show; a computer's table has none either
    assert "seat 1's" in error(two.request("GET", "/invitation", status=None), 403)
    computer = create(server, {"opponent": "greedy", "seed": SEED})
    assert computer["invitation"] is None
    mine = SeatClient(server, computer["table"], 1, computer["token"])
    assert "no second seat" in error(mine.request("GET", "/invitation", status=None), 409)


@pytest.mark.server
def test_a_wrong_invitation_is_the_same_404_as_no_table(server):
    created = create(server, {"opponent": "friend", "seed": SEED})
    table = created["table"]
    code = created["invitation"]["link"].rsplit("/", 1)[1]
    computer = create(server, {"opponent": "greedy", "seed": SEED})
    refused = []
    for where, body in (
            (table, {"invitation": code[:-1] + ("A" if code[-1] != "A" else "B")}),  # one character off
            (table, {"invitation": created["token"]}),  # seat 1's token is no invitation
            (computer["table"], {"invitation": code}),  # another table
            ("NoSuchTable0000000000a", {"invitation": code}),
            (table, {"invitation": "../../etc/passwd"}), (table, {"invitation": "x" * 128}),
            ("x" * 300, {"invitation": code})):
        r = httpx.post(f"{server}/api/tables/{where}/join", json=body)
        assert error(r, 404) == NOT_FOUND, (where, body)
        refused.append((r.content, r.headers["content-length"]))
    assert len(set(refused)) == 1
    # malformed bodies are 422 naming the field, the code being the right one does not matter
    for body, words in (({}, "invitation: required"), ({"invitation": 5}, "invitation"),
                        ({"invitation": "x" * 100_000}, "invitation"), ({"invitation": code, "seat": 1}, "seat")):
        assert words in error(httpx.post(f"{server}/api/tables/{table}/join", json=body), 422)
    # none of this spent the invitation
    assert join(server, created["invitation"]["link"]).status_code == 201


@pytest.mark.server
def test_an_invitation_shows_its_match_and_takes_nothing_until_accepted(server):
    """Issue 41, item 6: the friend's page shows the match (``POST …/invited``) with Accept and
    Decline; looking takes no seat, declining tells seat 1 and leaves the invitation valid."""
    created = create(server, {"opponent": "friend", "seed": SEED, "games": 3, "hints": True})
    table, code = created["invitation"]["link"].rsplit("#join/", 1)[1].split("/")
    one = SeatClient(server, table, 1, created["token"])
    stream = one.events()
    for _ in range(2):  # looking twice, as a host checking the link would: nothing is taken
        r = httpx.post(f"{server}/api/tables/{table}/invited", json={"invitation": code})
        assert r.status_code == 200, r.text
        assert r.json() == {"table": table, "games": 3, "match": 1, "rules": "classic", "hints": True}
    assert one.view()["presence"]["joined"] is False and one.view()["declined"] is False
    wrong = httpx.post(f"{server}/api/tables/{table}/invited", json={"invitation": created["token"][:22]})
    assert error(wrong, 404) == NOT_FOUND
    r = httpx.post(f"{server}/api/tables/{table}/decline", json={"invitation": code})
    assert r.status_code == 200 and r.json()["games"] == 3, r.text
    told = stream.wait_for("declined")
    assert told["view"]["declined"] is True and told["seat"] == 2
    assert one.view()["declined"] is True and one.request("GET", "/invitation").json()["link"]
    # the friend may still accept: then the view no longer says declined, and looking again is refused
    assert join(server, created["invitation"]["link"]).status_code == 201
    assert one.view()["declined"] is False
    again = httpx.post(f"{server}/api/tables/{table}/invited", json={"invitation": code})
    assert error(again, 409) == USED
    assert error(httpx.post(f"{server}/api/tables/{table}/decline", json={"invitation": code}), 409) == USED


def presence(reader, predicate, timeout: float = 30) -> dict:
    """The first ``presence`` event on ``reader`` whose presence satisfies ``predicate``."""
    deadline = time.monotonic() + timeout
    while True:
        for kind, data, _ in list(reader.events):
            if kind == "presence" and predicate(data["view"]["presence"]):
                return data["view"]["presence"]
        assert time.monotonic() < deadline, reader.kinds
        time.sleep(0.02)


@pytest.mark.server
def test_presence_follows_the_other_seat_and_counts_this_seats_streams(server):
    created = create(server, {"opponent": "friend", "seed": SEED})
    one = SeatClient(server, created["table"], 1, created["token"])
    two = SeatClient(server, created["table"], 2, join(server, created["invitation"]["link"]).json()["token"])
    first = one.events()
    assert first.events[0][1]["view"]["presence"] == {"joined": True, "connected": False, "lost": False,
                                                     "confirmed": False, "here": 1, "left": False}
    second = one.events()  # the same seat open in a second tab: both streams are told
    assert second.events[0][1]["view"]["presence"]["here"] == 2
    presence(first, lambda p: p["here"] == 2)
    with httpx.stream("GET", f"{server}/api/tables/{created['table']}/events", headers=two.headers,
                      timeout=30) as theirs:
        lines = theirs.iter_lines()
        assert next(lines) == "event: view"
        assert json.loads(next(lines)[6:])["view"]["presence"] == {"joined": True, "connected": True, "lost": False,
                                                                  "confirmed": False, "here": 1, "left": False}
        presence(first, lambda p: p["connected"])
        a, b = two_arrangements(deal_of(one.view()))
        two.confirm(b)
        assert presence(first, lambda p: p["confirmed"]) == {"joined": True, "connected": True, "lost": False,
                                                              "confirmed": True, "here": 2, "left": False}
        kinds = first.kinds
        assert kinds[kinds.index("confirmed") + 1] == "presence"  # the event, then what it changed
        assert one.view()["presence"]["confirmed"] is True
        assert two.view()["presence"]["confirmed"] is False  # seat 1 has not confirmed
    # seat 2 closed its tab: seat 1's streams see it gone
    for stream in (first, second):
        assert presence(stream, lambda p: p["confirmed"] and not p["connected"])["here"] == 2
    # against the computer: present once it is ready
    computer = create(server, {"opponent": "greedy", "seed": SEED})
    mine = SeatClient(server, computer["table"], 1, computer["token"])
    ready = mine.wait(lambda v: v["status"] == "placing")
    assert ready["presence"] == {"joined": True, "connected": True, "lost": False, "confirmed": True, "here": 0,
                                 "left": False}


def _play_match(seats: list[SeatClient], games: int) -> None:
    for game in range(1, games + 1):
        view = seats[0].wait(lambda v: v["status"] == "placing")
        a, b = two_arrangements(deal_of(view), game)
        for seat, arrangement in zip(seats, (a, b), strict=False):
            seat.confirm(arrangement)
        if game < games:
            for seat in seats:
                seat.request("POST", "/next")


@pytest.mark.server
def test_a_rematch_in_one_click_for_each_seat(server):
    created = create(server, {"opponent": "friend", "seed": SEED, "games": 2})
    one = SeatClient(server, created["table"], 1, created["token"])
    two = SeatClient(server, created["table"], 2, join(server, created["invitation"]["link"]).json()["token"])
    assert "not over" in error(one.request("POST", "/rematch", status=None), 409)
    _play_match([one, two], 2)
    over = one.view()
    assert over["over"] and over["match"] == 1 and over["rematch"] == {"you": False, "other": False}
    streams = [one.events(), two.events()]
    asked = one.request("POST", "/rematch").json()
    assert asked["rematch"] == {"you": True, "other": False} and asked["match"] == 1
    assert streams[1].wait_for("rematch")["view"]["rematch"] == {"you": False, "other": True}
    assert one.request("POST", "/rematch").json()["match"] == 1  # asking twice is asking once
    started = two.request("POST", "/rematch").json()
    assert started["match"] == 2 and started["game"] == 1 and not started["over"] and started["finished"] == []
    assert started["deal"]["seed"] == SEED + 2  # the seeds go on from the last match's
    assert started["score"] == {"you": 0, "other": 0}
    for stream in streams:
        event = stream.wait_for("match")
        assert event["view"]["match"] == 2 and event["game"] == 1
    # both keep their tokens; the records hold every game of both matches
    _play_match([one, two], 2)
    assert one.view()["over"] and one.view()["match"] == 2
    records = one.wait(lambda v: all(f["record"] == "ready" for f in v["finished"]))
    assert [f["game"] for f in records["finished"]] == [1, 2]
    lines = one.request("GET", "/records").text.splitlines()
    assert len(lines) == 4
    # against the computer a rematch starts at once
    computer = create(server, {"opponent": "greedy", "seed": SEED})
    mine = SeatClient(server, computer["table"], 1, computer["token"])
    _play_match([mine], 1)
    again = mine.request("POST", "/rematch").json()
    assert again["match"] == 2 and again["game"] == 1 and again["deal"]["seed"] == SEED + 1
    assert mine.wait(lambda v: v["status"] == "placing")["rematch"] == {"you": False, "other": False}
    # a series that would run past the last seed is refused in one line
    edge = create(server, {"opponent": "greedy", "seed": SEED_MAX})
    last = SeatClient(server, edge["table"], 1, edge["token"])
    _play_match([last], 1)
    assert "past" in error(last.request("POST", "/rematch", status=None), 409)


@pytest.mark.server
def test_a_match_resigned_aborted_or_left_says_how_it_ended_and_the_tally_counts_it(server):
    """Issue 41, item 10: abort before the first show-down (no result), resign after it (the other
    side wins the match), leave the table (the friend is told, no rematch); a tally across rematches."""
    created = create(server, {"opponent": "friend", "seed": SEED, "games": 2})
    one = SeatClient(server, created["table"], 1, created["token"])
    two = SeatClient(server, created["table"], 2, join(server, created["invitation"]["link"]).json()["token"])
    streams = [one.events(), two.events()]
    assert one.view()["tally"] == {"you": 0, "other": 0, "drawn": 0, "aborted": 0}
    # before the first show-down: aborted, no one wins; the other seat is told
    aborted = two.request("POST", "/resign").json()
    assert aborted["ended"] == {"how": "aborted", "by": "you"} and aborted["over"] and aborted["status"] == "ended"
    told = streams[0].wait_for("aborted")["view"]
    assert told["ended"] == {"how": "aborted", "by": "other"} and told["tally"]["aborted"] == 1
    deal = deal_of(one.view())
    assert "has ended" in error(one.confirm(two_arrangements(deal)[0], status=None), 409)
    assert "over already" in error(one.request("POST", "/resign", status=None), 409)
    # a rematch; one game shown down, then seat 1 resigns: seat 2 wins the match
    one.request("POST", "/rematch")
    assert two.request("POST", "/rematch").json()["match"] == 2
    _play_match([one, two], 1)
    one.request("POST", "/next")
    resigned = one.request("POST", "/resign").json()
    assert resigned["ended"] == {"how": "resigned", "by": "you"} and resigned["can_next"] is False
    assert resigned["tally"] == {"you": 0, "other": 1, "drawn": 0, "aborted": 1}
    assert streams[1].wait_for("resigned")["view"]["tally"] == {"you": 1, "other": 0, "drawn": 0, "aborted": 1}
    assert "has ended" in error(two.request("POST", "/next", status=None), 409)
    # a played match counts too
    one.request("POST", "/rematch")
    two.request("POST", "/rematch")
    _play_match([one, two], 2)
    tally = one.view()["tally"]
    assert sum(tally.values()) == 3 and tally["aborted"] == 1 and one.view()["ended"] is None
    # leaving: the friend is told, and no rematch can start
    left = two.request("POST", "/resign", {"leave": True}).json()
    assert left["over"] and streams[0].wait_for("left")["view"]["presence"]["left"] is True
    assert "your friend has left" in error(one.request("POST", "/rematch", status=None), 409)
    assert "you have left" in error(two.request("POST", "/rematch", status=None), 409)
    # against the computer: resigning after a show-down gives it the match
    computer = create(server, {"opponent": "greedy", "seed": SEED, "games": 2})
    mine = SeatClient(server, computer["table"], 1, computer["token"])
    _play_match([mine], 1)
    mine.request("POST", "/next")
    assert mine.request("POST", "/resign").json()["tally"] == {"you": 0, "other": 1, "drawn": 0, "aborted": 0}


@pytest.mark.server
def test_the_view_says_what_the_commitment_check_proves(server):
    created = create(server, {"opponent": "friend", "seed": SEED})
    one = SeatClient(server, created["table"], 1, created["token"])
    assert one.view()["commitments"] == {"by": "server", "proves": FRIEND_PROVES}
    computer = create(server, {"opponent": "uniform", "seed": SEED})
    mine = SeatClient(server, computer["table"], 1, computer["token"])
    assert mine.view()["commitments"] == {"by": "computer", "proves": COMPUTER_PROVES}


@pytest.mark.server
def test_links_follow_the_public_url_and_warn_of_a_loopback_address(tmp_path):
    with live_server("--workers", "1", "--store", str(tmp_path / "s.sqlite")) as (url, _):
        created = create(url, {"opponent": "friend"})
        assert created["link"].startswith(url) and "127.0.0.1" in created["warning"]
        assert "--public-url" in created["warning"] and created["invitation"]["warning"] == created["warning"]
        joined = join(url, created["invitation"]["link"]).json()
        assert joined["warning"] == created["warning"]
    public = "https://quintet.example.org:8443/games"
    with live_server("--workers", "1", "--store", str(tmp_path / "s.sqlite"), "--public-url", public + "/") as (url, _):
        created = create(url, {"opponent": "friend"})
        assert created["link"].startswith(f"{public}/#play/") and created["warning"] is None
        assert created["invitation"]["link"].startswith(f"{public}/#join/")
        one = SeatClient(url, created["table"], 1, created["token"])
        assert one.request("GET", "/invitation").json() == created["invitation"]
        assert join(url, created["invitation"]["link"]).json()["link"].startswith(f"{public}/#play/")


V1_SCHEMA = """
PRAGMA application_id = 1364476465;
PRAGMA user_version = 1;
CREATE TABLE tables (id TEXT PRIMARY KEY, opponent TEXT NOT NULL, games INTEGER NOT NULL, seed INTEGER NOT NULL,
    rules TEXT NOT NULL, hints INTEGER NOT NULL, created REAL NOT NULL, touched REAL NOT NULL);
CREATE TABLE seats (table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE, seat INTEGER NOT NULL,
    token_sha256 BLOB NOT NULL, game INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (table_id, seat));
CREATE TABLE games (table_id TEXT NOT NULL, game INTEGER NOT NULL, computer TEXT, computer_salt TEXT,
    computer_commitment TEXT, computer_description TEXT, equilibrium REAL, failed TEXT, ended REAL,
    PRIMARY KEY (table_id, game));
CREATE TABLE plays (table_id TEXT NOT NULL, game INTEGER NOT NULL, seat INTEGER NOT NULL, arrangement TEXT,
    salt TEXT, commitment TEXT, confirmed REAL, hints TEXT NOT NULL DEFAULT '[]', record TEXT,
    PRIMARY KEY (table_id, game, seat));
INSERT INTO tables VALUES ('T1', 'friend', 3, 21, '{"name": "classic"}', 0, 100.0, 100.0);
INSERT INTO games (table_id, game) VALUES ('T1', 1);
"""


def test_a_version_1_tables_file_is_read_on(tmp_path):
    """A tables file of the version before invitations: its friend tables' two seats both hold
    their tokens (joined), one match, no invitation."""
    import sqlite3

    from solver.apps.serve.tables.store import SCHEMA_VERSION, TableStore, token_hash

    path = tmp_path / "t.sqlite"
    db = sqlite3.connect(path)
    db.executescript(V1_SCHEMA)
    db.executemany("INSERT INTO seats VALUES ('T1', ?, ?, 1)", [(1, token_hash("one")), (2, token_hash("two"))])
    db.commit()
    db.close()
    store = TableStore(path)
    table = store.load("T1")
    assert table is not None and table.joined == {1: True, 2: True} and table.matches == 1
    assert table.invitation is None and table.rematch == set() and table.last_game == 3 and not table.declined
    assert store.seat_of("T1", "two") == 2 and store.invitation_of("T1") == (None, None)
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    TableStore(path).close()  # and opened again as it is now


def records(seat: SeatClient) -> list[dict]:
    return [json.loads(line) for line in seat.request("GET", "/records").text.splitlines()]


@pytest.mark.server
def test_a_game_resigned_is_lost_in_every_slot_and_the_match_goes_on(server):
    """Issue 41, item 10 (docs/rules.md, a game resigned): a seat resigns its current game before
    its show-down — the other side scores every slot's points, the resigner none; the other seat
    is told; the match goes on to its next game (and ends with its last); the records say it was
    resigned (no arrangement for the resigner) and the review and statistics skip it."""
    all_points = float(sum(get_rules("classic").weights))
    created = create(server, {"opponent": "friend", "seed": SEED, "games": 2})
    one = SeatClient(server, created["table"], 1, created["token"])
    two = SeatClient(server, created["table"], 2, join(server, created["invitation"]["link"]).json()["token"])
    streams = [one.events(), two.events()]
    deal = deal_of(one.wait(lambda v: v["status"] == "placing"))
    a, b = two_arrangements(deal)
    two.confirm(b)  # the friend has laid its packets; seat 1 resigns the game
    assert "scope" in error(one.request("POST", "/resign", {"scope": "set"}, status=None), 422)
    assert "leav" in error(one.request("POST", "/resign", {"scope": "game", "leave": True}, status=None), 409)
    gave = one.request("POST", "/resign", {"scope": "game"}).json()
    assert gave["status"] == "resigned" and gave["resigned"] == "you" and gave["can_next"] and not gave["over"]
    assert gave["ended"] is None and gave["showdown"] is None and gave["other"]["arrangement"] is not None
    assert gave["score"] == {"you": 0.0, "other": all_points}
    assert gave["finished"][0]["resigned"] == "you" and gave["finished"][0]["record"] == "ready"
    told = streams[1].wait_for("game_resigned")
    assert told["game"] == 1 and told["seat"] == 1
    theirs = told["view"]
    assert theirs["resigned"] == "other" and theirs["score"] == {"you": all_points, "other": 0.0}
    assert theirs["you"]["arrangement"] is not None and theirs["other"]["arrangement"] is None  # the resigner's: never
    assert "resigned already" in error(one.request("POST", "/resign", {"scope": "game"}, status=None), 409)
    assert "was resigned" in error(one.confirm(a, status=None), 409)
    # the records: resigned, no arrangement for the resigner; the review refuses it in one line, stats skip it
    mine = records(one)
    assert len(mine) == 1 and mine[0]["resigned"] == "player" and mine[0]["player"] is None
    assert mine[0]["computer"] is not None and mine[0]["points"] == {"player": 0.0, "computer": all_points}
    friends = records(two)[0]
    assert friends["resigned"] == "computer" and friends["computer"] is None and friends["player"] is not None
    assert "resigned" in error(httpx.post(f"{server}/api/review", json={"record": mine[0]}), 400)
    # the next game: the match goes on, and resigning its last game ends it (a played match: seat 2 wins it)
    for seat in (one, two):
        seat.request("POST", "/next")
    view = one.wait(lambda v: v["status"] == "placing" and v["game"] == 2)
    assert view["score"] == {"you": 0.0, "other": all_points}
    last = two.request("POST", "/resign", {"scope": "game"}).json()
    assert last["over"] and last["ended"] is None and last["score"] == {"you": all_points, "other": all_points}
    assert last["tally"] == {"you": 0, "other": 0, "drawn": 1, "aborted": 0}
    assert streams[0].wait_for("game_resigned", 2)["view"]["over"] is True
    # after a resigned game, resigning the match is a resignation (a game is over), not an abort
    one.request("POST", "/rematch")
    two.request("POST", "/rematch")
    one.wait(lambda v: v["status"] == "placing" and v["match"] == 2)
    one.request("POST", "/resign", {"scope": "game"})
    assert one.request("POST", "/resign", {"scope": "match"}).json()["ended"] == {"how": "resigned", "by": "you"}
    # against the computer: its committed arrangement is shown to the resigner; the next game follows
    computer = create(server, {"opponent": "greedy", "seed": SEED, "games": 2})
    me = SeatClient(server, computer["table"], 1, computer["token"])
    me.wait(lambda v: v["status"] == "placing")
    lost = me.request("POST", "/resign", {"scope": "game"}).json()
    assert lost["score"] == {"you": 0.0, "other": all_points} and lost["other"]["arrangement"] is not None
    assert me.request("POST", "/next").json()["game"] == 2
    record = records(me)[0]
    assert record["resigned"] == "player" and record["regret"] is None and record["computer"] is not None
    stats = httpx.post(f"{server}/api/stats", json={"records": [record]})
    assert stats.status_code == 200 and stats.json()["games"] == 0, stats.text


def test_a_version_3_tables_file_is_read_on_and_keeps_a_resigned_game(tmp_path):
    """Version 3 (before a game could be resigned) is read on: its games were not resigned, and a
    game resigned now is kept across a reopening."""
    import sqlite3

    from solver.apps.serve.tables import store as tables_store

    path = tmp_path / "t.sqlite"
    db = sqlite3.connect(path)
    db.executescript(V1_SCHEMA + tables_store._MIGRATE_1 + tables_store._MIGRATE_2 + "PRAGMA user_version = 3;")
    db.executemany("INSERT INTO seats (table_id, seat, token_sha256) VALUES ('T1', ?, ?)",
                   [(1, tables_store.token_hash("one")), (2, tables_store.token_hash("two"))])
    db.commit()
    db.close()
    store = tables_store.TableStore(path)
    table = store.load("T1")
    assert table is not None and table.resigned(1) is None and not table.game_over(1)
    row = table.row(1)
    row.resigned, row.ended = 2, 200.0
    store.save_game("T1", row)
    store.close()
    again = tables_store.TableStore(path)
    reread = again.load("T1")
    assert reread is not None and reread.resigned(1) == 2 and reread.game_over(1) and not reread.shown_down(1)
    again.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == tables_store.SCHEMA_VERSION == 4
