"""Tables on quintet-serve (issue 20): the per-seat view, tokens, commitments, the event
stream, persistence across a restart, expiry and the limit, and 50 tables played at once.

The HTTP tests talk to a live ``quintet-serve`` (a subprocess on a loopback port) with httpx:
the event streams are real server-sent events.  Every body and event a seat receives is
searched for the other side's packets (``packets_found``: five of its cards in a row, in any
order) — absent before both have confirmed, present after (the control of the search).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import signal
import subprocess
import sys
import time

import httpx
import pytest
from serve_helpers import NO_LIMITS, ROOT, live_server, wait_for_workers
from table_helpers import (
    SeatClient,
    deal_of,
    new_table,
    packet_sets,
    packets_found,
    public_windows,
    two_arrangements,
)

from quintet.cards import RANK_NAMES
from quintet.game import Arrangement, Deal, showdown
from solver.advisor.sparse import roll_mix
from solver.apps.serve.tables.errors import NOT_FOUND
from solver.apps.serve.tables.models import TableView
from solver.apps.serve.tables.rows import GameRow, Side, TableRow
from solver.apps.serve.tables.views import seat_view
from solver.play.commitment import canonical_text, check, commit, commitment_of
from solver.play.session import MIX_HINT_ROLL_STREAM
from solver.problem.opponents import random_arrangement

SEED = 11  # game 1's seed of the tables below


# ---------------------------------------------------------------------- the one view, every state


def _side(arrangement: str | None, deal: Deal) -> Side:
    if arrangement is None:
        return Side()
    c = commit(Arrangement.parse(arrangement), deal.rules)
    return Side(c.arrangement, c.salt, c.digest, 1.0, ["hint"], None)


def _table_states():
    """Every state of a two-game table, friend's and computer's: each side of game 1 confirmed
    or not (the computer: preparing, failed or drawn), and once game 1 is shown down each seat
    at game 1 or 2, with game 2's sides in every state."""
    deals = [Deal.random(SEED), Deal.random(SEED + 1)]
    arrangements = [two_arrangements(d) for d in deals]
    for friend in (True, False):
        for g1 in itertools.product((False, True), ("none", "failed", "drawn") if not friend else ("-",),
                                    (False, True) if friend else (False,)):
            one, computer1, two = g1
            for at in ((1, 1), (1, 2), (2, 1), (2, 2)):
                for g2 in itertools.product((False, True), (False, True)):
                    table = TableRow("T" * 22, "friend" if friend else "uniform", 2, SEED, {"name": "classic"},
                                     True, 0.0, 0.0)
                    shown1 = one and (two if friend else computer1 == "drawn")
                    seats = table.seats
                    if not shown1 and at != (1, 1):
                        continue
                    if not friend and at[1] != 1:
                        continue
                    if not (shown1 and any(a == 2 for a in at)) and g2 != (False, False):
                        continue
                    table.seat_games = {s: at[s - 1] for s in seats}
                    for game, (first, second), comp in ((1, (one, two), computer1), (2, g2, "drawn")):
                        a, b = arrangements[game - 1]
                        row = GameRow(game, equilibrium=0.0)
                        row.plays[1] = _side(a if first else None, deals[game - 1])
                        if friend:
                            row.plays[2] = _side(b if second else None, deals[game - 1])
                        elif comp == "drawn" and (game == 1 or shown1):
                            c = commit(Arrangement.parse(b))
                            row.computer, row.computer_salt, row.computer_commitment = c.arrangement, c.salt, c.digest
                            row.computer_description = "uniform: a random arrangement"
                        elif comp == "failed":
                            row.failed = "the worker process died"
                        if game == 1 and shown1:
                            row.ended = 2.0
                            row.plays[1].record = {"regret": 0.5}
                        table.game_rows[game] = row
                    yield table, arrangements


def test_seat_view_never_shows_the_other_side_before_both_have_confirmed():
    seen = 0
    for table, arrangements in _table_states():
        for seat in table.seats:
            view = seat_view(table, seat, {"iteration": 3, "exploitability": 0.5, "support": 4, "pool_size": 5,
                                           "seconds": 1.5})
            TableView.model_validate(view.model_dump())  # the schema's own check
            text = view.model_dump_json()
            game = view.game
            deal = Deal.random(SEED + game - 1)
            mine_text, theirs_text = arrangements[game - 1] if seat == 1 else arrangements[game - 1][::-1]
            theirs = packet_sets(theirs_text, deal)
            mine = table.row(game).side(seat)
            other = table.other_side(game, seat)
            both = mine.is_confirmed and other.is_confirmed
            found = packets_found(text, theirs)
            if both:
                assert view.status == "showdown" and len(found) == 5, (seat, view.status)
                assert view.other.salt == other.salt and view.showdown is not None
            else:
                assert found == [], (seat, game, view.status, found)
                assert other.salt is None or other.salt not in text
                assert view.other.arrangement is None and view.showdown is None
                if other.is_confirmed:
                    assert view.other.commitment == other.commitment  # the commitment only
            if mine.is_confirmed:
                assert len(packets_found(text, packet_sets(mine_text, deal))) == 5
            # an earlier game shown down is in the match table, with both its sides' points
            if game == 2:
                assert [f.game for f in view.finished] == [1] + ([2] if both else [])
            seen += 1
    assert seen > 40


def test_the_show_down_says_what_decides_between_hands_of_one_name_and_who_committed_first():
    """A slot won between two hands of the same name carries the deciding place (the
    evaluator's ``tie_break``) and each hand's card there — the same from both seats, mirrored;
    others carry none.  Whoever confirmed first is named from both seats."""
    decided = 0
    for seed in range(40):
        deal = Deal.random(seed)
        a, b = (random_arrangement(deal, seed * 10 + k).format() for k in (1, 2))
        table = TableRow("T" * 22, "friend", 1, seed, {"name": "classic"}, False, 0.0, 0.0)
        table.seat_games = {1: 1, 2: 1}
        row = GameRow(1, equilibrium=None)
        row.plays[1], row.plays[2] = _side(a, deal), _side(b, deal)
        row.plays[2].confirmed = 0.5  # seat 2 confirmed first
        table.game_rows[1] = row
        views = {seat: seat_view(table, seat) for seat in (1, 2)}
        assert views[1].confirmed_first == "other" and views[2].confirmed_first == "you"
        for s, mirror in zip(views[1].showdown.slots, views[2].showdown.slots, strict=True):
            assert (s.decided_by is not None) == (s.a.hand == s.b.hand and s.winner is not None), s
            assert mirror.decided_by == s.decided_by
            assert (mirror.a.decider, mirror.b.decider) == (s.b.decider, s.a.decider)
            if s.decided_by is None:
                assert s.a.decider is None and s.b.decider is None
                continue
            decided += 1
            high, low = (s.a, s.b) if s.winner == "A" else (s.b, s.a)
            assert s.decided_by.endswith(f": {RANK_NAMES[high.decider[0]][0]} over {RANK_NAMES[low.decider[0]][0]}")
            assert s.a.decider in s.a.cards and s.b.decider in s.b.cards
    assert decided >= 3
    # the computer commits when the game starts: first, whenever the seat confirmed
    computer = next(t for t, _ in _table_states() if not t.friend and t.shown_down(1) and t.seat_games[1] == 1)
    assert seat_view(computer, 1).confirmed_first == "other"
    assert seat_view(next(t for t, _ in _table_states() if not t.shown_down(1)), 1).confirmed_first is None


def test_seat_view_statuses():
    table = next(t for t, _ in _table_states() if not t.friend and t.row(1).computer is None and not t.row(1).failed)
    assert seat_view(table, 1).status == "preparing" and seat_view(table, 1).other.confirmed is False
    assert seat_view(table, 1).description == "uniform"  # what it plays, once ("Against the computer: uniform")
    failed = next(t for t, _ in _table_states() if t.row(1).failed)
    assert seat_view(failed, 1).status == "failed" and seat_view(failed, 1).error == "the worker process died"


# ---------------------------------------------------------------------- commitments


@pytest.mark.subprocess
def test_commitment_checks_out_with_sha256sum_and_fails_for_a_changed_arrangement(tmp_path):
    deal = Deal.random(SEED)
    a = random_arrangement(deal, 5)
    c = commit(a, deal.rules)
    assert len(c.salt) == 32 and int(c.salt, 16) >= 0 and c.arrangement == canonical_text(a, deal.rules)
    sha256sum = subprocess.run(["sha256sum"], input=c.text.encode("ascii"), capture_output=True, check=True)
    assert sha256sum.stdout.split()[0].decode() == c.digest == hashlib.sha256(c.text.encode()).hexdigest()
    assert check(c.digest, c.salt, a, deal.rules) and check(c.digest, c.salt, c.arrangement)
    swapped = list(a.packets)
    x, y = swapped[0] & -swapped[0], swapped[4] & -swapped[4]  # a card of slot 1 and one of slot 5 change places
    swapped[0], swapped[4] = swapped[0] ^ x | y, swapped[4] ^ y | x
    changed = Arrangement(tuple(swapped))
    changed.validate(deal)
    assert not check(c.digest, c.salt, changed, deal.rules)
    assert not check(c.digest, "0" * 32, a, deal.rules)  # another salt
    assert commitment_of(c.salt, c.arrangement) == c.digest
    assert commit(a, deal.rules).digest != c.digest  # a fresh salt every time


# ---------------------------------------------------------------------- a live server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("tables")
    with live_server("--workers", "1", *NO_LIMITS, "--store", str(base / "solutions.sqlite"),
                     "--tables", str(base / "tables.sqlite")) as (url, proc):
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        yield url


def assert_error(r: httpx.Response, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert list(body) == ["error"] and body["error"] and "\n" not in body["error"], body
    return body["error"]


ENDPOINTS = [  # (method, path, body)
    ("GET", "", None), ("POST", "/arrangement", {"arrangement": "As Ah Ad Ac Ks | Kh Kd Kc Qs Qh | "
                                                 "Qd Qc Js Jh Jd | Jc Ts Th Td Tc | 9s 9h 9d 9c 8s"}),
    ("POST", "/next", None), ("GET", "/records", None), ("POST", "/hint", {"slots": {}}),
    ("POST", "/grade", {"arrangement": "As Ah Ad Ac Ks | Kh Kd Kc Qs Qh | Qd Qc Js Jh Jd | Jc Ts Th Td Tc | "
                                       "9s 9h 9d 9c 8s"}),
    ("POST", "/odds", None), ("GET", "/events", None), ("GET", "/invitation", None), ("POST", "/rematch", None),
    ("POST", "/resign", None), ("POST", "/alive", None),
]


def _ask(url: str, table: str, method: str, path: str, body: object, headers: dict[str, str]) -> httpx.Response:
    if path == "/events":  # a refused stream answers at once; an accepted one would not end
        with httpx.stream(method, f"{url}/api/tables/{table}{path}", headers=headers, timeout=30) as r:
            r.read()
            return r
    return httpx.request(method, f"{url}/api/tables/{table}{path}", headers=headers, json=body, timeout=60)


@pytest.mark.server
def test_every_endpoint_without_a_token_or_with_a_wrong_one(server):
    mine = new_table(server, {"opponent": "uniform", "seed": SEED})[0]
    theirs = new_table(server, {"opponent": "friend", "seed": SEED})
    forged = "A" * 43
    for method, path, body in ENDPOINTS:
        for headers in ({}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer"}):
            r = _ask(server, mine.table, method, path, body, headers)
            assert "token" in assert_error(r, 401) and r.headers["www-authenticate"] == "Bearer"
        refused = []
        for table, token in ((mine.table, theirs[0].token), (mine.table, theirs[1].token),  # another table's seats
                             (mine.table, forged), (mine.table, "not/a token!"), (mine.table, mine.token + "x"),
                             (theirs[0].table, mine.token),  # my token at another table
                             ("NoSuchTable0000000000a", mine.token), ("x" * 300, mine.token)):
            r = _ask(server, table, method, path, body, {"Authorization": f"Bearer {token}"})
            assert assert_error(r, 404) == NOT_FOUND, (method, path)
            refused.append((r.content, r.headers["content-type"], r.headers["content-length"]))
        assert len(set(refused)) == 1, (method, path, set(refused))  # the same bytes: no table is told apart
    # and the right token is accepted by every endpoint (the stream sends its first event)
    assert mine.view()["seat"] == 1
    stream = mine.events()
    assert stream.status == 200 and stream.kinds[0] == "view"


@pytest.mark.server
def test_the_tables_api_is_typed_and_its_errors_documented(server):
    spec = httpx.get(f"{server}/openapi.json").json()
    paths = {p: ops for p, ops in spec["paths"].items() if p.startswith("/api/tables")}
    expected = {"/api/tables": {"post"}, "/api/tables/{table_id}": {"get"},
                **{f"/api/tables/{{table_id}}/{x}": {"post"}
                   for x in ("arrangement", "next", "hint", "grade", "odds", "join", "rematch", "invited", "decline",
                             "resign", "alive")},
                "/api/tables/{table_id}/events": {"get"}, "/api/tables/{table_id}/records": {"get"},
                "/api/tables/{table_id}/invitation": {"get"}}
    assert {p: set(ops) for p, ops in paths.items()} == expected
    models = {"/api/tables": ("201", "TableCreatedOut"), "/api/tables/{table_id}": ("200", "TableView"),
              "/api/tables/{table_id}/join": ("201", "TableJoinedOut"),
              "/api/tables/{table_id}/invitation": ("200", "InvitationOut"),
              "/api/tables/{table_id}/rematch": ("200", "TableView"),
              "/api/tables/{table_id}/arrangement": ("200", "TableView"), "/api/tables/{table_id}/hint":
              ("200", ("SolutionOut", "SparseOut")), "/api/tables/{table_id}/grade": ("200", "GradeOut"),
              "/api/tables/{table_id}/odds": ("200", "OddsOut")}
    for path, ops in paths.items():
        for op in ops.values():
            responses = op["responses"]
            untokened = ("/api/tables", *(f"/api/tables/{{table_id}}/{x}" for x in ("join", "invited", "decline")))
            if path not in untokened:  # the calls without a token: opening a table, and an invitation's
                assert {"401", "404"} <= set(responses), path
                assert op["security"] == [{"seat token": []}]
            else:
                assert "security" not in op, path
            for code, r in responses.items():
                if code[0] in "45":
                    assert r["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOut"), (path, code)
            if path in models:
                code, model = models[path]
                schema = responses[code]["content"]["application/json"]["schema"]
                refs = [x["$ref"] for x in schema["anyOf"]] if "anyOf" in schema else [schema["$ref"]]
                assert [r.rsplit("/", 1)[1] for r in refs] == ([model] if isinstance(model, str) else list(model))
    assert "text/event-stream" in paths["/api/tables/{table_id}/events"]["get"]["responses"]["200"]["content"]
    assert spec["components"]["securitySchemes"]["seat token"] == {
        "type": "http", "scheme": "bearer", "description": "the seat's token (from its link: /#play/TABLE/SEAT/TOKEN)"}


def _everything(seat: SeatClient, arrangement: str, *, hints: bool) -> None:
    """Ask every endpoint as a seat may before its show-down (errors included)."""
    seat.view()
    seat.request("GET", "/records")
    seat.request("POST", "/next", status=409)
    seat.request("POST", "/arrangement", {"arrangement": arrangement.replace("|", "", 1)}, status=400)
    seat.request("POST", "/arrangement", {"arrangement": "Zz " + arrangement}, status=400)
    seat.request("POST", "/hint", {"slots": {"9": "As Ah Ad Ac Ks"}}, status=400 if hints else 403)
    if hints:
        first = arrangement.split("|")[0]
        seat.request("POST", "/hint", {"slots": {"1": first}})
        seat.request("POST", "/hint", {"slots": {}})
        seat.request("POST", "/grade", {"arrangement": arrangement})
        seat.request("POST", "/odds")
    else:
        seat.request("POST", "/odds", status=403)
        seat.request("POST", "/grade", {"arrangement": arrangement}, status=403)


@pytest.mark.server
def test_a_friends_table_shows_nothing_of_the_other_seat_before_the_reveal(server):
    one, two = new_table(server, {"opponent": "friend", "games": 1, "seed": SEED})
    deal = deal_of(one.view())
    a, b = two_arrangements(deal)
    streams = [one.events(), two.events()]
    theirs = {1: packet_sets(b, deal), 2: packet_sets(a, deal)}
    _everything(one, a, hints=False)
    _everything(two, b, hints=False)
    one.confirm(a)
    two.wait(lambda v: v["other"]["confirmed"])
    streams[1].wait_for("confirmed")
    _everything(two, b, hints=False)
    one.request("POST", "/arrangement", {"arrangement": a}, status=409)  # final
    one.request("POST", "/next", status=409)
    one.view()
    for seat, stream in ((one, streams[0]), (two, streams[1])):
        for text in seat.bodies + stream.raw:
            assert packets_found(text, theirs[seat.seat]) == [], text[:300]
    commitment_of_one = two.view()["other"]["commitment"]
    assert commitment_of_one == one.view()["you"]["commitment"]
    # the reveal: both see both, and seat 1's commitment checks out
    two.confirm(b)
    for stream in streams:
        stream.wait_for("reveal")
    reveal = streams[1].wait_for("reveal")["view"]
    assert len(packets_found(json.dumps(reveal), theirs[2])) == 5
    assert check(commitment_of_one, reveal["other"]["salt"], " | ".join(" ".join(p) for p in
                                                                         reveal["other"]["arrangement"]))
    expected = showdown(Arrangement.parse(b), Arrangement.parse(a), deal)
    assert reveal["showdown"] == expected.to_dict()  # quintet showdown --json's, A the seat asking
    assert reveal["over"] and not reveal["can_next"]
    two.wait(lambda v: v["finished"][0]["record"] == "ready")  # written just after the reveal
    records = [json.loads(line) for line in two.request("GET", "/records").text.splitlines()]
    assert records[0]["opponent"] == "friend" and records[0]["regret"] is None
    assert records[0]["player"] == Arrangement.parse(b).card_lists() and records[0]["computer"] == \
        Arrangement.parse(a).card_lists()


@pytest.mark.server
def test_a_computer_table_commits_first_and_reveals_at_the_show_down(server):
    for attempt in range(3):  # the computer's arrangement is drawn at random: rule out coincidences
        seat = new_table(server, {"opponent": "uniform", "games": 1, "seed": SEED + attempt, "hints": True})[0]
        stream = seat.events()
        view = seat.wait(lambda v: v["status"] == "placing")
        deal = deal_of(view)
        commitment = view["other"]["commitment"]
        assert view["other"]["confirmed"] and len(commitment) == 64 and view["other"]["arrangement"] is None
        assert view["advice"] == {"on": True, "against": "the computer's model (uniform)", "ready": True,
                                  "mixes": False}
        mine, _ = two_arrangements(deal)
        _everything(seat, mine, hints=True)
        before = seat.bodies + stream.raw
        done = seat.confirm(mine).json()
        theirs = done["other"]["arrangement"]
        computer = packet_sets(theirs, deal)
        hinted = [p for body in seat.bodies if body.startswith('{"exposed"') for p in
                  packet_sets(json.loads(body).get("arrangement") or json.loads(body)["best"]["arrangement"], deal)]
        if set(computer) & (public_windows(deal) | set(packet_sets(mine, deal)) | set(hinted)):
            continue  # one of its packets is also in a public list or an answer: try another deal
        for text in before:
            assert packets_found(text, computer) == [], text[:300]
        assert check(commitment, done["other"]["salt"], " | ".join(" ".join(p) for p in theirs))
        assert done["other"]["commitment"] == commitment
        changed = [list(p) for p in theirs]
        changed[0][0], changed[4][0] = changed[4][0], changed[0][0]
        assert not check(commitment, done["other"]["salt"], " | ".join(" ".join(p) for p in changed))
        stream.wait_for("reveal")
        record = seat.wait(lambda v: v["finished"] and v["finished"][0]["record"] == "ready")["finished"][0]
        assert record["regret"] is not None and record["regret"] >= -1e-9
        # every view is stamped later than the ones before it: the record's event is newer than the
        # confirm's answer (a client keeps the newest), and the views of the stream only grow
        written = stream.wait_for("record")
        stamps = [e["view"]["revision"] for _, e, _ in stream.events if e["view"] is not None]
        assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
        assert done["revision"] < written["view"]["revision"] < seat.view()["revision"]
        lines = seat.request("GET", "/records").text.splitlines()
        assert json.loads(lines[0])["hints"] == ["hint", "hint", "grade", "odds"]
        return
    pytest.fail("three deals in a row put a computer packet in a public list")


@pytest.mark.server
def test_a_match_writes_the_records_quintet_play_writes(server, tmp_path):
    seat = new_table(server, {"opponent": "greedy", "games": 2, "seed": SEED})[0]
    lines = []
    for game in (1, 2):
        view = seat.wait(lambda v, g=game: v["game"] == g and v["status"] == "placing")
        mine = random_arrangement(deal_of(view), game).format()
        lines.append(f"play {mine}")
        done = seat.confirm(mine).json()
        assert done["status"] == "showdown" and done["can_next"] == (game == 1)
        if game == 1:
            seat.request("POST", "/next")
    seat.request("POST", "/next", status=409)  # the match is over
    seat.wait(lambda v: len(v["finished"]) == 2 and all(f["record"] == "ready" for f in v["finished"]))
    served = [json.loads(line) for line in seat.request("GET", "/records").text.splitlines()]
    record = tmp_path / "played.jsonl"
    subprocess.run([sys.executable, "-m", "solver.apps.play_cli", "--opponent", "greedy", "--seed", str(SEED),
                    "--games", "2", "--record", str(record), "--quiet", "--plain"], input="\n".join(lines) + "\n",
                   text=True, cwd=ROOT, check=True, capture_output=True, timeout=300)
    played = [json.loads(line) for line in record.read_text().splitlines()]
    for a, b in zip(served, played, strict=True):
        a.pop("time"), b.pop("time")
        assert a == b
    view = seat.view()
    assert view["over"] and view["score"]["you"] == sum(r["points"]["player"] for r in served)


QUICK_SEEDS = (5, 16)  # seeds whose deal's equilibrium is certified within 0.05 in seconds (found by trying)


@pytest.mark.server
def test_the_equilibrium_computer_is_prepared_in_the_long_lane(server):
    seat = new_table(server, {"opponent": "equilibrium", "games": 1, "seed": QUICK_SEEDS[0]})[0]
    stream = seat.events()
    assert stream.events[0][1]["view"]["status"] in ("preparing", "placing")
    ready = stream.wait_for("ready", timeout=180)["view"]
    assert ready["status"] == "placing" and len(ready["other"]["commitment"]) == 64
    assert ready["description"].startswith("equilibrium: a sample from its certified mix")
    assert ready["advice"]["mixes"]
    hint = seat.request("POST", "/hint").json()
    assert hint["opponent"] == "equilibrium" and hint["optimal"]
    # quintet-play's 'hint K': the K-mix of the equilibrium, its die roll on the game's own stream
    mixed = seat.request("POST", "/hint", {"max_support": 2}).json()
    assert mixed["max_support"] == 2 and 1 <= len(mixed["mix"]) <= 2
    assert mixed["exploitability"] >= mixed["equilibrium_exploitability"] - 1e-9
    probabilities = [entry["probability"] for entry in mixed["mix"]]
    roll = roll_mix(probabilities, ready["deal"]["seed"], MIX_HINT_ROLL_STREAM)
    assert mixed["roll"] == {"seed": ready["deal"]["seed"], "value": roll.value, "pick": roll.index + 1,
                             "low": roll.low, "high": roll.high}
    assert mixed["arrangement"] == mixed["mix"][roll.index]["arrangement"]
    refused = seat.request("POST", "/hint", {"max_support": 2, "slots": {"1": "As Ah Ad Ac Ks"}}, status=400)
    assert refused.json()["error"].startswith("max_support: a K-mix is of whole arrangements")
    odds = seat.request("POST", "/odds").json()
    assert odds["model"] == "equilibrium" and len(odds["slots"]) == 5
    for slot in odds["slots"]:  # every hand the model plays there, the likeliest first: the whole slot
        chances = [h["probability"] for h in slot]
        assert chances == sorted(chances, reverse=True) and sum(chances) == pytest.approx(1)
        assert len({h["hand"] for h in slot}) == len(slot)
    arrangement = " | ".join(" ".join(p) for p in hint["arrangement"])
    done = seat.confirm(arrangement).json()
    assert check(ready["other"]["commitment"], done["other"]["salt"],
                 " | ".join(" ".join(p) for p in done["other"]["arrangement"]))
    finished = seat.wait(lambda v: v["finished"][0]["record"] == "ready")["finished"][0]
    assert finished["regret"] == pytest.approx(0, abs=1e-6)  # the hint was a best response to the model
    record = json.loads(seat.request("GET", "/records").text.splitlines()[0])
    assert record["hints"] == ["hint", "hint 2", "odds"]  # as quintet-play writes them (the refused one not)


@pytest.mark.server
def test_a_friends_table_with_hints_tells_both_seats_and_advises_against_the_equilibrium(server):
    one, two = new_table(server, {"opponent": "friend", "games": 1, "seed": QUICK_SEEDS[1], "hints": True})
    for seat in (one, two):
        advice = seat.wait(lambda v: v["advice"]["ready"], timeout=180)["advice"]
        assert advice["on"] and advice["against"].startswith("the deal's equilibrium") and not advice["mixes"]
    assert one.request("POST", "/hint").json()["opponent"] == "equilibrium"
    assert "a friend's table has no computer" in one.request("POST", "/hint", {"max_support": 2}, status=400).text
    off = new_table(server, {"opponent": "friend", "games": 1, "seed": QUICK_SEEDS[1]})
    for seat in off:
        assert seat.view()["advice"] == {"on": False, "against": None, "ready": False, "mixes": False}


BAD_TABLES = {
    "unknown opponent": ({"opponent": "smart"}, 400, "unknown opponent"),
    "a file": ({"opponent": "style:me.jsonl"}, 400, "file"),
    "seed too big": ({"opponent": "greedy", "seed": 2**31}, 422, "seed"),
    "series past the end": ({"opponent": "greedy", "seed": 2**31 - 1, "games": 2}, 400, "runs past"),
    "no games": ({"opponent": "greedy", "games": 0}, 422, "games"),
    "too many games": ({"opponent": "greedy", "games": 101}, 422, "games"),
    "games as text": ({"opponent": "greedy", "games": "3"}, 422, "games"),
    "unknown field": ({"opponent": "greedy", "colour": "red"}, 422, "colour"),
    "bad rules": ({"opponent": "greedy", "rules": {"name": "bogus"}}, 400, "bogus"),
    "no opponent": ({}, 422, "opponent"),
}


@pytest.mark.server
@pytest.mark.parametrize("case", sorted(BAD_TABLES))
def test_bad_tables_are_one_line_4xx(server, case):
    body, status, words = BAD_TABLES[case]
    assert words in assert_error(httpx.post(f"{server}/api/tables", json=body), status)


@pytest.mark.server
def test_bad_moves_are_one_line_4xx(server):
    seat = new_table(server, {"opponent": "greedy", "seed": SEED})[0]
    seat.wait(lambda v: v["status"] == "placing")
    huge = {"arrangement": "As " * 2000}
    assert "at most 400 characters" in assert_error(seat.request("POST", "/arrangement", huge, None), 422)
    assert assert_error(seat.request("POST", "/arrangement", {"arrangement": 5}, None), 422)
    assert "unknown field" in assert_error(seat.request("POST", "/arrangement", {"arrangement": "x", "cards": "x"},
                                                        None), 422)
    assert "not a slot" in assert_error(seat.request("POST", "/hint", {"slots": {"05": "As Ah Ad Ac Ks"}}, None), 400)
    assert "exposed" in assert_error(seat.request("POST", "/hint", {"slots": {"1": seat.view()["deal"]["exposed"]
                                                                              [:5]}}, None), 400)
    assert "illegal arrangement" in assert_error(seat.request("POST", "/grade", {"arrangement": "As|Ah|Ad|Ac|Ks"},
                                                              None), 400)
    # 'hint K' is of the equilibrium: not at a greedy computer's table; K from 1 to 1,000
    assert "this table's computer plays greedy" in assert_error(seat.request("POST", "/hint", {"max_support": 3},
                                                                             None), 400)
    for k in (0, 1001, 2.5, "3", True):
        assert "max_support" in assert_error(seat.request("POST", "/hint", {"max_support": k}, None), 422)
    r = httpx.post(f"{server}/api/tables", content=b"{" * 2_000_000, headers={"content-type": "application/json"})
    assert_error(r, 413)


# ---------------------------------------------------------------------- the limit and expiry


@pytest.mark.server
def test_a_full_server_is_503_and_idle_tables_expire(tmp_path):
    with live_server("--workers", "1", "--store", str(tmp_path / "s.sqlite"), "--max-tables", "2",
                     "--table-ttl", "3") as (url, _):
        one = new_table(url, {"opponent": "friend"})
        new_table(url, {"opponent": "friend"})
        r = httpx.post(f"{url}/api/tables", json={"opponent": "friend"})
        assert "maximum of 2 open tables" in assert_error(r, 503) and 1 <= int(r.headers["retry-after"]) <= 3
        stream = one[0].events()
        time.sleep(1.5)
        one[0].view()  # used: its idle clock starts again
        time.sleep(2)
        assert one[1].view()["seat"] == 2
        stream.wait_for("expired", timeout=30)  # no one used it for 3 s
        stream.join()
        assert assert_error(one[0].request("GET", status=None), 404) == NOT_FOUND
        assert httpx.post(f"{url}/api/tables", json={"opponent": "friend"}).status_code == 201  # room again


# ---------------------------------------------------------------------- a restart


def _views(seats: list[SeatClient]) -> list[dict]:
    """The seats' views without their stamps (``revision``), which only grow."""
    return [{k: v for k, v in s.view().items() if k != "revision"} for s in seats]


@pytest.mark.server
def test_a_restart_mid_match_loses_nothing(tmp_path):
    args = ("--workers", "1", "--store", str(tmp_path / "s.sqlite"), "--tables", str(tmp_path / "t.sqlite"))
    with live_server(*args) as (url, proc):
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        friends = new_table(url, {"opponent": "friend", "games": 3, "seed": SEED})
        computer = new_table(url, {"opponent": "uniform", "games": 2, "seed": SEED})
        deal1 = deal_of(friends[0].view())
        a, b = two_arrangements(deal1)
        friends[0].confirm(a)
        friends[1].confirm(b)
        friends[0].request("POST", "/next")
        deal2 = deal_of(friends[0].view())
        a2, b2 = two_arrangements(deal2)
        friends[0].confirm(a2)  # game 2: seat 1 has confirmed, seat 2 is still at game 1's show-down
        view = computer[0].wait(lambda v: v["status"] == "placing")
        mine = random_arrangement(deal_of(view), 9).format()
        computer[0].confirm(mine)
        computer[0].wait(lambda v: v["finished"][0]["record"] == "ready")
        computer[0].request("POST", "/next")
        game2 = computer[0].wait(lambda v: v["game"] == 2 and v["status"] == "placing")
        friends[1].wait(lambda v: v["finished"][0]["record"] == "ready")
        before = _views(friends + computer)
        last = friends[0].view()["revision"]
        records = friends[1].request("GET", "/records").text
        stream = friends[1].events()
        proc.kill()  # no clean shutdown: what was answered was already committed
        proc.wait()
        stream.join()
    with live_server(*args) as (url, proc):
        for s in friends + computer:
            s.url = url
        assert friends[0].view()["revision"] > last  # a restarted server stamps above the old views
        assert _views(friends + computer) == before
        assert friends[1].request("GET", "/records").text == records
        friends[1].request("POST", "/next")
        done = friends[1].confirm(b2).json()  # meets the arrangement seat 1 confirmed before the restart
        expected = showdown(Arrangement.parse(b2), Arrangement.parse(a2), deal2)
        assert done["showdown"]["points_a"] == expected.points_a and done["other"]["commitment"] == \
            before[0]["you"]["commitment"]
        assert done["score"]["you"] == before[1]["score"]["you"] + expected.points_a
        shown = computer[0].confirm(random_arrangement(deal_of(game2), 3).format()).json()
        assert check(game2["other"]["commitment"], shown["other"]["salt"],
                     " | ".join(" ".join(p) for p in shown["other"]["arrangement"]))
        finished = friends[1].wait(lambda v: all(f["record"] == "ready" for f in v["finished"]))["finished"]
        proc.send_signal(signal.SIGINT)  # and a clean stop and start
        proc.wait(30)
    with live_server(*args) as (url, _):
        for s in friends:
            s.url = url
        assert friends[1].view()["finished"] == finished and len(finished) == 2


# ---------------------------------------------------------------------- 50 tables at once


async def _get(client: httpx.AsyncClient, url: str, **kwargs) -> httpx.Response:
    """A GET as a browser sends it: retried once when the server closed the kept-alive connection
    as the request went out (a race of every HTTP/1.1 client, not a server fault; GET is idempotent)."""
    try:
        return await client.get(url, **kwargs)
    except (httpx.ReadError, httpx.RemoteProtocolError):
        return await client.get(url, **kwargs)


async def _play_table(client: httpx.AsyncClient, body: dict, log: dict) -> list[dict]:
    """One table to the end, each seat following its event stream; the seats' records."""
    r = await client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    table = created["table"]
    tokens = [created["token"]]
    if created["invitation"]:  # the friend's page exchanges the invitation for seat 2's own token
        code = created["invitation"]["link"].rsplit("/", 1)[1]
        joined = await client.post(f"/api/tables/{table}/join", json={"invitation": code})
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    seats = [(seat, {"Authorization": f"Bearer {token}"}) for seat, token in enumerate(tokens, start=1)]
    reveals = {s: 0 for s, _ in seats}
    connected = {s: asyncio.Event() for s, _ in seats}

    async def follow(seat: int, headers: dict) -> None:
        async with client.stream("GET", f"/api/tables/{table}/events", headers=headers) as stream:
            assert stream.status_code == 200
            async for line in stream.aiter_lines():
                if line == "event: view":  # the first event: from now on every event reaches this stream
                    connected[seat].set()
                if line == "event: reveal":
                    reveals[seat] += 1
                    if reveals[seat] == body["games"]:
                        return

    async def play(seat: int, headers: dict) -> None:
        for game in range(1, body["games"] + 1):
            while True:
                view = (await _get(client, f"/api/tables/{table}", headers=headers)).json()
                log["requests"] += 1
                if view["status"] == "placing":
                    break
                await asyncio.sleep(0.05)
            deal = Deal.from_exposed(" ".join(view["deal"]["exposed"]))
            arrangement = random_arrangement(deal, 100 * seat + game).format()
            r = await client.post(f"/api/tables/{table}/arrangement", headers=headers,
                                  json={"arrangement": arrangement})
            log["requests"] += 1
            assert r.status_code == 200, r.text
            if game < body["games"]:
                while not (await _get(client, f"/api/tables/{table}", headers=headers)).json()["can_next"]:
                    await asyncio.sleep(0.05)
                r = await client.post(f"/api/tables/{table}/next", headers=headers)
                assert r.status_code == 200, r.text

    followers = [asyncio.create_task(follow(s, h)) for s, h in seats]
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in connected.values())), 60)
    await asyncio.gather(*(play(s, h) for s, h in seats))
    await asyncio.wait_for(asyncio.gather(*followers), 60)
    out = []
    for _, headers in seats:
        while True:
            view = (await _get(client, f"/api/tables/{table}", headers=headers)).json()
            if all(f["record"] == "ready" for f in view["finished"]) and len(view["finished"]) == body["games"]:
                break
            await asyncio.sleep(0.1)
        lines = (await _get(client, f"/api/tables/{table}/records", headers=headers)).text.splitlines()
        out.append({"view": view, "records": [json.loads(line) for line in lines]})
    log["tables"] += 1
    return out


@pytest.mark.server
def test_fifty_tables_played_at_once(server):
    log = {"requests": 0, "tables": 0}

    async def main() -> list:
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
        async with httpx.AsyncClient(base_url=server, timeout=120, limits=limits) as client:
            bodies = [{"opponent": "friend" if i % 5 else "greedy", "games": 2, "seed": 1000 + 2 * i}
                      for i in range(50)]
            return await asyncio.wait_for(asyncio.gather(*(_play_table(client, b, log) for b in bodies)), 240)

    results = asyncio.run(main())
    assert log["tables"] == 50
    for table in results:
        for seat in table:
            view, records = seat["view"], seat["records"]
            assert [r["game"] for r in records] == [1, 2]
            total = [0.0, 0.0]
            for r, finished in zip(records, view["finished"], strict=True):
                deal = Deal.from_exposed(r["exposed"])
                result = showdown(Arrangement.parse(r["player"]), Arrangement.parse(r["computer"]), deal)
                assert (result.points_a, result.points_b) == (r["points"]["player"], r["points"]["computer"])
                assert (finished["you"], finished["other"]) == (result.points_a, result.points_b)
                total[0] += result.points_a
                total[1] += result.points_b
            assert [view["score"]["you"], view["score"]["other"]] == total
    # a friend's two seats saw the same games from both sides
    for table in results:
        if len(table) == 2:
            one, two = (s["records"] for s in table)
            assert [r["player"] for r in one] == [r["computer"] for r in two]
