"""The Play tab in a real browser (Debian's chromium, Playwright) against a live quintet-serve:
two browser contexts play a friend's match by the invitation the page shows, one plays the
computer; a seat is its address (a reload, a new tab, another device resume it); the
invitation exchanged once; presence, the tab title, two devices on one seat; "New match"
asks first; the arrangement being laid survives a reload; the show-down turned before its
result; what decides between two hands of one name; the commitment check's note; the
progress of a search; odds that are the whole of each slot; a rematch; the keyboard and the
phone width; errors beside the control; a script error shown, never silent.

What a page is checked against is the API's answer for the same seat (its token read from
the page's address) and ``quintet.game.showdown`` — never cards typed in here for a seed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import re
import subprocess
import sys
import time

import httpx
import pytest
from browser_helpers import DESKTOP, PHONE, accept_invitation, new_page, playwright_api
from caddy_helpers import free_port
from serve_helpers import QUICK_DEALS, live_server, one_worker_server
from table_helpers import SeatClient, packet_sets, packets_found, two_arrangements

from quintet.game import Arrangement, Deal, showdown
from quintet.hands import tie_break
from quintet.rules import get_rules
from solver.play.commitment import check, commit
from solver.problem.opponents import random_arrangement

pytestmark = [pytest.mark.browser, pytest.mark.server]

SEED = 21
SEAT_LINK = re.compile(r"#play/([\w-]{22})/([12])/([\w-]{43})$")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with one_worker_server(tmp_path_factory.mktemp("play") / "solutions.sqlite") as url:
        yield url


class Page:
    """A browser context with one page; page errors are collected (none allowed)."""

    def __init__(self, browser, viewport=DESKTOP) -> None:
        # bypass_csp: Playwright evaluates its string predicates with eval, which the page's CSP forbids
        self.context, self.pg, self.errors = new_page(browser, viewport, accept_downloads=True, bypass_csp=True)

    def open(self, url: str) -> None:
        self.pg.goto(url)
        self.pg.wait_for_selector("body[data-ready=true]")

    def seat(self) -> dict:
        """The seat the page is at: its address, #play/TABLE/SEAT/TOKEN."""
        m = SEAT_LINK.search(self.pg.url)
        assert m, self.pg.url
        return {"table": m.group(1), "seat": int(m.group(2)), "token": m.group(3)}

    def client(self, server: str) -> SeatClient:
        s = self.seat()
        return SeatClient(server, s["table"], s["seat"], s["token"])

    def api_view(self, server: str) -> dict:
        return self.client(server).view()

    def wait_status(self, status: str, game: int) -> None:
        self.pg.wait_for_selector(f"#panel-play[data-status={status}][data-game='{game}']")

    def wait_revealed(self) -> None:
        self.pg.wait_for_selector("#panel-play[data-revealed='5']")

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], self.errors


def start_match(page: Page, opponent: str, games: int, seed: int, hints: bool | None = None) -> None:
    pg = page.pg
    pg.click("#tab-play")
    pg.select_option("#play-opponent", opponent)
    pg.fill("#play-games", str(games))
    pg.fill("#play-seed", str(seed))
    if hints is not None:
        pg.set_checked("#play-hints", hints)
    pg.click("#play-start")
    pg.wait_for_selector("#panel-play[data-status]")


def invitation(page: Page) -> str:
    page.pg.wait_for_function("document.querySelector('#play-share-link').value !== ''")
    return page.pg.input_value("#play-share-link")


def join_by_api(server: str, link: str) -> SeatClient:
    """Seat 2 over HTTP: the invitation's code exchanged for its token."""
    m = re.search(r"#join/([\w-]+)/([\w-]+)$", link)
    assert m, link
    r = httpx.post(f"{server}/api/tables/{m.group(1)}/join", json={"invitation": m.group(2)}, timeout=60)
    assert r.status_code == 201, r.text
    data = r.json()
    assert data["seat"] == 2 and data["link"].endswith(f"#play/{data['table']}/2/{data['token']}")
    return SeatClient(server, data["table"], 2, data["token"])


def late_answer(route) -> None:
    """A Playwright route handler: the server's answer, delivered 2 s late."""
    answer = route.fetch()
    time.sleep(2)
    route.fulfill(response=answer)


def click_arrangement(pg, arrangement: str) -> None:
    """Lay an arrangement by clicking: each slot's head, then its five cards in the pool."""
    for slot, packet in enumerate(arrangement.split("|"), start=1):
        pg.click(f'#play-slots [data-slot="{slot}"] .slot-head')
        for card in packet.split():
            pg.click(f'#play-pool [data-card="{card}"]')
    assert pg.input_value("#play-text") == arrangement  # the typed box follows the clicks


def board(pg) -> list[list[str]]:
    return pg.eval_on_selector_all("#play-slots .mine-slot", "e => e.map(s => "
                                   "[...s.querySelectorAll('button.placed')].map(c => c.dataset.card))")


def dom_packets(pg) -> set[frozenset[str]]:
    """Every group of exactly five cards the page shows together (an element holding five card
    elements), and the five-card windows of every text it keeps in its storage."""
    groups = pg.evaluate("""() => [...document.querySelectorAll('*')]
        .filter(e => !e.dataset.card && e.querySelectorAll('[data-card]').length === 5)
        .map(e => [...e.querySelectorAll('[data-card]')].map(c => c.dataset.card))""")
    stored = pg.evaluate("() => [sessionStorage, localStorage].flatMap(s => Object.keys(s).map(k => s.getItem(k)))"
                         ".join('\\n')")
    return {frozenset(g) for g in groups} | {frozenset(p) for p in packets_in_text(stored)}


def packets_in_text(text: str) -> list[list[str]]:
    cards = re.findall(r"\b[AKQJT987][shdc]\b", text)
    return [cards[k:k + 5] for k in range(len(cards) - 4)]


def shown_scores(pg) -> tuple[float, float]:
    text = pg.text_content("#play-score")
    m = re.search(r"you (\d+(?:\.\d+)?), (?:your friend|the computer) (\d+(?:\.\d+)?)", text)
    assert m, text
    return float(m.group(1)), float(m.group(2))


def presence(pg) -> dict[str, bool]:
    return dict(pg.eval_on_selector_all("#play-presence [data-presence]",
                                        "e => e.map(x => [x.dataset.presence, x.dataset.on === 'true'])"))


def wait_title(pg, words: str) -> None:
    try:
        pg.wait_for_function("w => document.title.includes(w)", arg=words)
    except playwright_api.TimeoutError:
        raise AssertionError(f"the title is {pg.title()!r}, not with {words!r}") from None


def gap_below(pg, control: str, message: str = "#play-error") -> float:
    """Pixels from the bottom of ``control`` to the top of ``message`` (negative: above it)."""
    return pg.evaluate("([c, m]) => document.querySelector(m).getBoundingClientRect().top"
                       " - document.querySelector(c).getBoundingClientRect().bottom", [control, message])


# ---------------------------------------------------------------------- a friend's match


def test_two_browsers_play_a_three_game_friend_match(browser, server):
    """Seat 1 starts, its address is its seat link, it sends the invitation the page shows;
    seat 2's page exchanges it for its own seat link.  Presence and the tab title follow
    every event; nothing of the other seat is on a page before the reveal."""
    a, b = Page(browser, DESKTOP), Page(browser, PHONE)
    a.open(server + "/")
    start_match(a, "friend", 3, SEED, hints=False)
    a.wait_status("placing", 1)
    host = a.seat()
    assert host["seat"] == 1 and a.pg.url == f"{server}/#play/{host['table']}/1/{host['token']}"
    link = invitation(a)
    assert re.fullmatch(re.escape(server) + r"/#join/" + host["table"] + r"/[\w-]+", link)
    assert host["token"] not in link
    assert presence(a.pg) == {"joined": False}
    assert a.pg.text_content("#play-presence [data-presence=joined]") == "has not accepted your invitation yet"
    # a loopback link: only this machine can open it; the server says so, the page shows it beside the link
    warning = a.client(server).request("GET", "/invitation").json()["warning"]
    assert warning and a.pg.text_content("#play-share-warning") == warning
    wait_title(a.pg, "Waiting for your friend to join")
    b.open(link)
    accept_invitation(b.pg)
    b.wait_status("placing", 1)
    guest = b.seat()
    assert guest["seat"] == 2 and guest["table"] == host["table"] and guest["token"] != host["token"]
    assert b.pg.url == f"{server}/#play/{host['table']}/2/{guest['token']}"  # the invitation is gone from the address
    assert "hints off for both of you" in b.pg.text_content("#play-against")
    # seat 1 is told: the invitation gives way to "your friend has joined", presence, the title
    a.pg.wait_for_selector("#play-share", state="hidden")
    assert a.pg.text_content("#play-presence").startswith("Your friend") and presence(a.pg)["joined"]
    assert a.pg.text_content("#play-presence [data-presence=joined]") == "has joined"
    a.pg.wait_for_function("document.querySelector('#play-presence [data-presence=connected]')?.dataset.on === 'true'")
    wait_title(a.pg, "Your move")
    assert presence(b.pg) == {"connected": True, "confirmed": False}
    total = [0.0, 0.0]
    for game in (1, 2, 3):
        deal = Deal.from_exposed(" ".join(a.api_view(server)["deal"]["exposed"]))
        arr_a, arr_b = two_arrangements(deal, game)
        first, second = (a, b) if game != 2 else (b, a)
        first_arr, second_arr = (arr_a, arr_b) if first is a else (arr_b, arr_a)
        if game == 1:
            click_arrangement(first.pg, first_arr)
        else:
            first.pg.fill("#play-text", first_arr)
        first.pg.click("#play-confirm")
        first.wait_status("waiting", game)
        wait_title(first.pg, "Waiting for your friend")
        second.pg.wait_for_selector("#play-commitment:not([hidden])")
        assert "committed: SHA-256" in second.pg.text_content("#play-commitment")
        wait_title(second.pg, "Your friend has confirmed")
        second.pg.wait_for_function(
            "document.querySelector('#play-presence [data-presence=confirmed]')?.dataset.on === 'true'")
        # before the reveal the page holds none of the other seat's packets (shown or stored)
        theirs = set(packet_sets(first_arr, deal))
        assert not dom_packets(second.pg) & theirs
        assert packets_found(second.pg.content(), list(theirs)) == []
        if game == 2:  # a reload resumes the seat: its address is its link
            second.pg.reload()
            second.pg.wait_for_selector("body[data-ready=true]")
            second.wait_status("placing", game)
        second.pg.fill("#play-text", second_arr)
        second.pg.press("#play-text", "Enter")
        for page in (a, b):
            page.wait_revealed()
            page.wait_status("showdown", game)
        assert theirs <= dom_packets(second.pg)  # the control: after it, every one is shown
        expected = showdown(Arrangement.parse(arr_a), Arrangement.parse(arr_b), deal)
        assert shown_scores(a.pg) == (expected.points_a, expected.points_b)
        assert shown_scores(b.pg) == (expected.points_b, expected.points_a)
        wait_title(a.pg, f"Game {game}: " if game < 3 else "Match over: ")
        winners = a.pg.eval_on_selector_all("#play-showdown .sd-slot", "e => e.map(x => x.dataset.winner)")
        assert winners == [{"A": "you", "B": "other", None: "tie"}[s.winner] for s in expected.slots]
        # the seat that confirmed second saw the first one's commitment: it checks out
        assert second.pg.get_attribute("#play-check", "data-ok") == "true"
        assert first.pg.get_attribute("#play-check", "data-ok") == "true"
        assert "checks out" in second.pg.text_content("#play-check")
        assert "confirmed after you" in first.pg.text_content("#play-check")
        for page in (a, b):  # what the check proves, in the server's words
            assert page.api_view(server)["commitments"]["proves"] in page.pg.text_content("#play-check")
        total[0] += expected.points_a
        total[1] += expected.points_b
        rows = a.pg.eval_on_selector_all("#play-match tr[data-game]", "e => e.length")
        assert rows == game
        if game < 3:
            for page in (a, b):
                page.pg.click("#play-next")
                page.wait_status("placing", game + 1)
    assert not a.pg.is_visible("#play-next")
    assert f"Match: you {total[0]:g}" in a.pg.text_content("#play-score")
    last = a.pg.eval_on_selector("#play-match tr.total", "e => [...e.cells].map(c => c.textContent)")
    assert [float(last[2]), float(last[3])] == total
    wait_title(a.pg, "Match over")
    # a rematch: one click a seat; seat 1 asks first and is told it waits, seat 2 sees the request
    a.pg.click("#play-rematch")
    a.pg.wait_for_selector("#play-rematch-note:has-text('when your friend asks too')")
    b.pg.wait_for_selector("#play-rematch-note:has-text('Your friend asks for a rematch')")
    wait_title(b.pg, "Your friend asks for a rematch")
    b.pg.click("#play-rematch")
    for page in (a, b):
        page.wait_status("placing", 1)
        assert board(page.pg) == [[]] * 5 and not page.pg.is_visible("#play-showdown-box")
    assert a.seat() == host and b.seat() == guest  # both keep their seats
    a.close()
    b.close()


def test_the_host_keeps_the_seat_on_any_device(browser, server):
    """The address after Start is seat 1's link: opened on another device it resumes the seat
    and shows the invitation again (until the friend has opened it); two pages of one seat
    are warned; "New match" asks first, and the link brings the seat back."""
    a = Page(browser)
    a.open(server + "/")
    start_match(a, "friend", 2, SEED + 1, hints=False)
    a.wait_status("placing", 1)
    link = invitation(a)
    address = a.pg.url
    assert not a.pg.is_visible("#play-devices")
    other = Page(browser, PHONE)  # another device: only the address
    other.open(address)
    other.wait_status("placing", 1)
    assert other.seat() == a.seat() and invitation(other) == link
    for page in (a, other):
        page.pg.wait_for_selector("#play-devices:not([hidden])")
        assert "open in 2 places" in page.pg.text_content("#play-devices")
    other.close()
    a.pg.wait_for_selector("#play-devices", state="hidden")
    # a new tab of the same browser: the same seat
    tab = a.context.new_page()
    tab.goto(address)
    tab.wait_for_selector("#panel-play[data-status=placing]")
    tab.wait_for_function("document.querySelector('#play-share-link').value !== ''")  # asked of the server
    assert tab.input_value("#play-share-link") == link
    tab.close()
    # "New match" asks first; Stay keeps the seat
    a.pg.click("#play-leave")
    assert a.pg.is_visible("#play-leave-confirm") and a.pg.input_value("#play-leave-link") == address
    a.pg.click("#play-leave-no")
    assert not a.pg.is_visible("#play-leave-confirm") and a.pg.is_visible("#play-table") and a.pg.url == address
    a.pg.click("#play-leave")
    a.pg.click("#play-leave-yes")
    assert a.pg.is_visible("#play-setup") and "#play" not in a.pg.url
    a.open(address)  # the link brings it back, invitation and all
    a.wait_status("placing", 1)
    assert invitation(a) == link
    a.close()


def test_an_invitation_opens_seat_2_once(browser, server):
    """The friend's page exchanges the invitation; the same device opening it again goes back
    to its seat; another device gets a clear refusal, and the host is told."""
    a, b, c = Page(browser), Page(browser), Page(browser)
    a.open(server + "/")
    start_match(a, "friend", 1, SEED + 2, hints=False)
    link = invitation(a)
    b.open(link)
    accept_invitation(b.pg)
    b.wait_status("placing", 1)
    seat_b = b.seat()
    b.open(link)  # the invitation again, on the device that took the seat: back to it, no second exchange
    b.wait_status("placing", 1)
    assert b.seat() == seat_b
    c.open(link)
    c.pg.wait_for_selector("#play-error:not([hidden])")
    message = c.pg.text_content("#play-error")
    assert "used already" in message and "opens your friend's seat once" in message
    assert c.pg.is_visible("#play-setup") and "#join" not in c.pg.url and "#play" not in c.pg.url
    assert 0 <= gap_below(c.pg, "#play-start") < 40  # beside the form it is about
    c.open(server + "/#join/" + seat_b["table"] + "/" + "x" * 22)  # a made-up code
    c.pg.wait_for_selector("#play-error:has-text('not valid')")
    # seat 1 is told someone else has the link; the table and both seats are as they were
    a.pg.wait_for_selector("#play-reused:not([hidden])")
    assert "someone besides your friend has its link" in a.pg.text_content("#play-reused")
    assert b.api_view(server)["seat"] == 2 and a.api_view(server)["presence"]["joined"] is True
    for page in (a, b, c):
        page.close()


def test_a_declined_invitation_tells_the_host_and_stays_valid(browser, server):
    """Issue 41, item 6: the friend's page shows the match with Accept and Decline; Decline
    tells the host, and the invitation can still be accepted."""
    a, b = Page(browser), Page(browser, PHONE)
    a.open(server + "/")
    start_match(a, "friend", 2, SEED + 3, hints=True)
    link = invitation(a)
    b.open(link)
    b.pg.wait_for_selector("#play-decline[aria-disabled=false]")
    assert "a match of 2 games" in b.pg.text_content("#play-invite-text")
    assert "hints, grades and odds on for both of you" in b.pg.text_content("#play-invite-text")
    b.pg.click("#play-decline")
    b.pg.wait_for_selector("#play-invite-text:has-text('You declined')")
    a.pg.wait_for_selector("#play-presence [data-presence=joined]:has-text('declined your invitation')")
    assert a.api_view(server)["presence"]["joined"] is False
    b.pg.click("#play-accept")
    b.wait_status("placing", 1)
    a.pg.wait_for_selector("#play-presence [data-presence=joined][data-on=true]")
    for page in (a, b):
        page.close()


def test_your_tables_lead_back_to_this_browsers_seats(browser, server):
    """Issue 41, item 9: the site's first page (the Play tab) lists the seats this browser holds
    whose tables still run, each a link back to its seat; a seat the server no longer knows is
    forgotten; another browser lists nothing."""
    a = Page(browser)
    a.open(server + "/")
    a.pg.click("#tab-play")
    assert a.pg.is_hidden("#play-mine")
    start_match(a, "greedy", 2, SEED + 4)
    a.wait_status("placing", 1)
    address, table = a.pg.url, a.seat()["table"]
    gone = "Z" * 22
    a.pg.evaluate("""g => { const all = JSON.parse(localStorage.getItem('quintet-play-seats'));
        all[g + '/1'] = {value: {token: 'x'.repeat(43)}, saved: Date.now()};
        localStorage.setItem('quintet-play-seats', JSON.stringify(all)); }""", gone)
    a.open(server + "/")  # the site's address: no seat in it
    a.pg.click("#tab-play")
    a.pg.wait_for_selector(f"#play-mine-list li[data-table='{table}']")
    assert a.pg.locator("#play-mine-list li").count() == 1
    text = a.pg.text_content("#play-mine-list")
    assert "The computer (greedy): game 1 of 2, your move" in text
    stored = a.pg.evaluate("Object.keys(JSON.parse(localStorage.getItem('quintet-play-seats')))")
    assert stored == [f"{table}/1"]  # the unknown seat is forgotten
    a.pg.click(f"#play-mine-list li[data-table='{table}'] a")
    a.wait_status("placing", 1)
    assert a.pg.url == address
    b = Page(browser)  # another browser holds no seat
    b.open(server + "/")
    b.pg.click("#tab-play")
    b.pg.wait_for_timeout(500)
    assert b.pg.is_hidden("#play-mine")
    for page in (a, b):
        page.close()


# ---------------------------------------------------------------------- against the computer


def test_a_computer_match_through_the_page(browser, server):
    page = Page(browser, DESKTOP)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "greedy", 2, SEED + 10)
    page.wait_status("placing", 1)
    assert pg.is_visible("#play-advice-buttons") and pg.text_content("#play-against").startswith(
        "Against the computer: greedy: the strongest hand left")
    assert not pg.is_visible("#play-presence") and not pg.is_visible("#play-share")
    commitment = page.api_view(server)["other"]["commitment"]
    assert commitment[:12] in pg.text_content("#play-commitment")
    # game 1: a hint, taken, confirmed
    pg.click("#play-hint")
    pg.wait_for_selector("#play-advice .packet")
    assert "the computer's model (greedy)" in pg.text_content("#play-advice")
    pg.click("#play-advice button:has-text('Use as my arrangement')")
    # the confirm's answer held back until the record's event (its regret) has surely come: the page
    # must keep the newer view, not the late answer's "computing…"
    pg.route("**/arrangement", late_answer)
    pg.click("#play-confirm")
    page.wait_revealed()
    pg.unroute("**/arrangement")
    view = page.api_view(server)
    assert check(commitment, view["other"]["salt"], " | ".join(" ".join(p) for p in view["other"]["arrangement"]))
    assert pg.get_attribute("#play-check", "data-ok") == "true"
    assert view["commitments"]["proves"] in pg.text_content("#play-check")
    assert shown_scores(pg) == (view["showdown"]["points_a"], view["showdown"]["points_b"])
    pg.wait_for_function("document.querySelector('#play-match tr[data-game=\"1\"]').cells[5].textContent "
                         "!== 'computing…'")
    regret = float(pg.eval_on_selector("#play-match tr[data-game='1']", "e => e.cells[5].textContent"))
    assert regret == pytest.approx(0, abs=0.005)  # the hint is a best response to greedy
    pg.click("#play-next")
    page.wait_status("placing", 2)
    # game 2: grade a typed arrangement, the odds, then confirm it
    deal = Deal.from_exposed(" ".join(page.api_view(server)["deal"]["exposed"]))
    mine = two_arrangements(deal)[0]
    pg.fill("#play-text", mine)
    pg.click("#play-grade")
    pg.wait_for_selector("#play-grade-regret")
    placed = pg.input_value("#play-text")
    pg.click("#play-hint")  # five full slots: the hint is the best arrangement (as quintet-play's)
    pg.wait_for_selector("#play-advice h3:has-text('Hint: the best arrangement')")
    assert not pg.is_visible("#play-error") and pg.input_value("#play-text") == placed  # the slots as they were
    pg.click("#play-odds")
    pg.wait_for_selector("#play-advice .marginals")
    assert "greedy" in pg.text_content("#play-advice")
    pg.click("#play-confirm")
    page.wait_revealed()
    # the status follows the reveal's view: waited for, not read at once (a busy machine lags)
    pg.wait_for_function("document.querySelector('#play-status').textContent.includes('The match is over')")
    assert not pg.is_visible("#play-next")
    pg.wait_for_function("[...document.querySelectorAll('#play-match tr[data-game]')].every("
                         "r => r.cells[5].textContent !== 'computing…')")
    with pg.expect_download() as download:
        pg.click("#play-records")
    lines = download.value.path().read_text().splitlines()
    seat = page.seat()
    served = httpx.get(f"{server}/api/tables/{seat['table']}/records",
                       headers={"Authorization": f"Bearer {seat['token']}"}).text.splitlines()
    assert lines == served and [json.loads(x)["hints"] for x in lines] == [["hint"], ["grade", "hint", "odds"]]
    assert json.loads(lines[1])["player"] == Arrangement.parse(mine).card_lists()
    # a rematch against the computer: one click, a new match of as many games at the same seat
    pg.click("#play-rematch")
    page.wait_status("placing", 1)
    assert page.seat() == seat and board(pg) == [[]] * 5 and "Game 1 of 2" in pg.text_content("#play-title")
    assert not pg.is_visible("#play-match-box") and not pg.is_visible("#play-rematch-row")
    page.close()


def test_the_show_down_turns_before_its_result_is_shown(browser, server):
    """While the slots are turned over one by one, neither the match table nor "The match is
    over." nor the final score gives the result away."""
    page = Page(browser)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "uniform", 1, SEED + 20)
    page.wait_status("placing", 1)
    pg.evaluate("""() => { window.states = [];
        new MutationObserver(() => window.states.push([
            Number(document.querySelector('#panel-play').dataset.revealed || 0),
            !document.querySelector('#play-match-box').hidden,
            document.querySelector('#play-status').textContent,
            document.querySelector('#play-score').textContent])).observe(
            document.querySelector('#panel-play'), {subtree: true, childList: true, attributes: true,
                                                    characterData: true}); }""")
    deal = Deal.from_exposed(" ".join(page.api_view(server)["deal"]["exposed"]))
    pg.fill("#play-text", two_arrangements(deal)[0])
    pg.click("#play-confirm")
    page.wait_revealed()
    pg.wait_for_selector("#play-match-box:not([hidden])")
    states = pg.evaluate("window.states")
    turning = [s for s in states if 0 <= s[0] < 5 and "show-down" in s[2]]
    assert len({s[0] for s in turning}) == 5, states  # every step of the turning was seen
    for revealed, match_shown, status, score in turning:
        assert not match_shown and "over" not in status and "Game 1:" not in score, (revealed, status, score)
    assert "The match is over." in pg.text_content("#play-status")
    page.close()


def test_hands_of_one_name_and_the_commitment_notes(browser, server):
    """A slot won between two hands of the same name says which cards decided it, and marks
    them.  The commitment note says who committed first — on a fresh device too — and, at a
    friend's table, that the server computed the commitments.  Seat 2 plays over HTTP."""
    for seed in range(200, 400):
        deal = Deal.random(seed)
        pairs = [(random_arrangement(deal, 10 * k), random_arrangement(deal, 10 * k + 1)) for k in range(8)]
        found = [(a, b, s) for a, b in pairs for s in showdown(a, b, deal).slots
                 if s.hand_a.description == s.hand_b.description and s.winner is not None]
        if found:
            break
    arr_a, arr_b, slot = found[0]
    page = Page(browser)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "friend", 2, seed, hints=False)
    friend = join_by_api(server, invitation(page))
    friend.confirm(arr_b.format())  # seat 2 confirms first: its commitment is shown to seat 1
    page.pg.wait_for_selector("#play-commitment:not([hidden])")
    pg.fill("#play-text", arr_a.format())
    pg.click("#play-confirm")
    page.wait_revealed()
    row = f"#play-showdown .sd-slot[data-slot='{slot.slot}']"
    tb = tie_break(slot.hand_a.key, slot.hand_b.key)
    assert tb is not None
    what, ranks = str(tb).split(": ")  # 'highest kicker: ace over queen'
    assert pg.text_content(f"{row} .sd-why") == f"Both {slot.hand_a.description}: the {what} decides, {ranks}."
    marked = pg.eval_on_selector_all(f"{row} .card.decider", "e => e.map(c => c.dataset.card)")
    assert [c[0] for c in marked] == ["789TJQKA"[tb.rank_a], "789TJQKA"[tb.rank_b]]  # yours, then your friend's
    assert pg.eval_on_selector_all("#play-showdown .sd-why", "e => e.length") == sum(
        s.hand_a.description == s.hand_b.description and s.winner is not None
        for s in showdown(arr_a, arr_b, deal).slots)
    note = pg.text_content("#play-check")
    assert "checks out" in note and "the value this page showed before you confirmed" in note
    assert page.api_view(server)["commitments"]["by"] == "server"
    assert page.api_view(server)["commitments"]["proves"] in note
    # the same seat on a fresh device: the commitment was shown before, not there
    fresh = Page(browser)
    fresh.open(page.pg.url)
    fresh.wait_revealed()
    note = fresh.pg.text_content("#play-check")
    assert "though not on this device" in note and "confirmed after you" not in note
    fresh.close()
    # game 2: seat 1 confirms first — the friend's commitment comes with the show-down
    pg.click("#play-next")
    friend.request("POST", "/next")
    page.wait_status("placing", 2)
    deal2 = Deal.from_exposed(" ".join(friend.view()["deal"]["exposed"]))
    mine, theirs = two_arrangements(deal2)
    pg.fill("#play-text", mine)
    pg.click("#play-confirm")
    page.wait_status("waiting", 2)
    friend.confirm(theirs)
    page.wait_revealed()
    assert "Your friend confirmed after you" in pg.text_content("#play-check")
    page.close()


def test_a_mix_of_k_shows_its_progress_and_can_be_cancelled(browser, server):
    """quintet-play's 'hint K' on the page: the search says what it does and for how long,
    can be cancelled, and its K-mix with the game's die roll is taken and confirmed; a K that
    is not one is refused at the box, with no request."""
    page = Page(browser, DESKTOP)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "equilibrium", 1, 5)  # a deal whose equilibrium is certified in seconds
    assert "the computer: the computer" not in pg.text_content("#play-against").lower()
    page.wait_status("placing", 1)
    assert pg.text_content("#play-against").startswith("Against the computer: equilibrium")
    assert pg.is_visible("#play-mix-box")
    pg.fill("#play-k", "0")
    pg.click("#play-mix")
    assert "from 1 to 1000" in pg.text_content("#play-k-msg") and not pg.is_visible("#play-advice-box")
    # held back: the progress is seen ticking, then cancelled (the request never reaches the server)
    held = []
    pg.route("**/hint", lambda route: held.append(route))
    pg.fill("#play-k", "2")
    pg.click("#play-mix")
    pg.wait_for_selector("#play-progress:not([hidden])")
    assert "least exploitable mix of at most 2 arrangements" in pg.text_content("#play-progress-text")
    pg.wait_for_function("/… [1-9]\\d* s/.test(document.querySelector('#play-progress-text').textContent)")
    pg.click("#play-cancel")
    pg.wait_for_selector("#play-error:has-text('Cancelled')")
    assert not pg.is_visible("#play-progress") and pg.get_attribute("#play-mix", "aria-disabled") == "false"
    pg.unroute("**/hint")
    for route in held:
        with contextlib.suppress(playwright_api.Error):  # the page has cancelled it already
            route.abort()
    pg.press("#play-k", "Enter")
    pg.wait_for_selector("#play-progress:not([hidden])")
    pg.wait_for_selector("#play-mix-roll")
    assert not pg.is_visible("#play-progress") and not pg.is_visible("#play-error")
    entries = pg.eval_on_selector_all("#play-advice .kmix-entry", "e => e.map(x => x.dataset.picked)")
    assert 1 <= len(entries) <= 2 and entries.count("true") == 1
    pick = entries.index("true") + 1
    assert f"play arrangement {pick}" in pg.text_content("#play-mix-roll")
    assert "seed 5" in pg.text_content("#play-mix-roll")  # the game's seed rolls the die
    pg.click(f"#play-advice button:has-text('Use arrangement {pick} as my arrangement')")
    picked = pg.eval_on_selector_all(f"#play-advice .kmix-entry:nth-child({pick}) .packet",
                                     "e => e.map(p => [...p.querySelectorAll('[data-card]')].map(c => c.dataset.card))")
    assert pg.input_value("#play-text") == " | ".join(" ".join(p) for p in picked)
    pg.click("#play-confirm")
    page.wait_revealed()
    pg.wait_for_function("document.querySelector('#play-match tr[data-game=\"1\"]').cells[5].textContent "
                         "!== 'computing…'")  # the record is written (a worker, just after the reveal)
    served = page.client(server).request("GET", "/records").text.splitlines()
    assert [json.loads(line)["hints"] for line in served] == [["hint 2"]]
    assert page.api_view(server)["you"]["arrangement"] == picked
    page.close()


def test_odds_draw_the_whole_of_each_slot(browser, server):
    """Against uniform every slot holds a hundred hand names: the page gets and draws them all,
    so each slot's bar is full and its segments are the API's odds."""
    page = Page(browser)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "uniform", 1, SEED + 30)
    page.wait_status("placing", 1)
    with pg.expect_response("**/odds") as answer:
        pg.click("#play-odds")
    slots = answer.value.json()["slots"]
    pg.wait_for_selector("#play-advice .marginals")
    for slot in slots:
        assert sum(h["probability"] for h in slot) == pytest.approx(1) and len(slot) > 4
    drawn = pg.eval_on_selector_all("#play-advice .marginal-bar", "bars => bars.map(b => [...b.children].map("
                                    "s => [s.dataset.hand, s.getBoundingClientRect().width]))")
    widths = pg.eval_on_selector_all("#play-advice .marginal-bar", "bars => bars.map(b => b.clientWidth)")
    for segments, slot, width in zip(drawn, slots, widths, strict=True):
        assert [h for h, _ in segments] == [h["hand"] for h in slot]
        assert sum(w for _, w in segments) == pytest.approx(width, abs=1.5)
    page.close()


# ---------------------------------------------------------------------- the page itself


def test_the_arrangement_being_laid_survives_a_reload(browser, server):
    page = Page(browser)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "uniform", 2, SEED + 40)
    page.wait_status("placing", 1)
    deal = Deal.from_exposed(" ".join(page.api_view(server)["deal"]["exposed"]))
    mine = two_arrangements(deal)[0]
    packets = [p.split() for p in mine.split(" | ")]
    click_arrangement(pg, " | ".join(" ".join(p) for p in packets[:2]))
    pg.click('#play-slots [data-slot="4"] .slot-head')
    for card in packets[3][:3]:
        pg.click(f'#play-pool [data-card="{card}"]')
    laid = board(pg)
    assert laid == [packets[0], packets[1], [], packets[3][:3], []]
    pg.reload()
    pg.wait_for_selector("body[data-ready=true]")
    page.wait_status("placing", 1)
    assert board(pg) == laid
    tab = page.context.new_page()  # a new tab of this browser, too
    tab.goto(pg.url)
    tab.wait_for_selector("#panel-play[data-status=placing]")
    assert board(tab) == laid
    tab.close()
    pg.fill("#play-text", mine)
    pg.click("#play-confirm")
    page.wait_revealed()
    assert pg.evaluate("localStorage.getItem('quintet-play-drafts')") in (None, "{}")  # kept until confirmed
    pg.click("#play-next")
    page.wait_status("placing", 2)
    assert board(pg) == [[]] * 5
    page.close()


def test_start_works_after_an_equilibrium_answer_and_a_script_error_is_shown(browser, server):
    """The equilibrium answer's seed label once shared its id with the Play tab's seed box, and
    "Start the match" then failed without a word.  Ids are unique; a script error is shown."""
    page = Page(browser)
    pg = page.pg
    page.open(server + "/")
    pg.fill("#exposed-text", QUICK_DEALS[1])
    pg.press("#exposed-text", "Enter")
    pg.select_option("#opponent", "equilibrium")
    pg.fill("#epsilon", "0.05")
    pg.click("#solve")
    pg.wait_for_selector("#answer .certificate")
    ids = pg.eval_on_selector_all("[id]", "e => e.map(x => x.id)")
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    start_match(page, "uniform", 1, SEED)
    page.wait_status("placing", 1)
    assert not pg.is_visible("#page-error")
    page.errors.clear()
    pg.evaluate("setTimeout(() => { throw new TypeError('a test error'); })")
    pg.wait_for_selector("#page-error:not([hidden])")
    assert "TypeError: a test error" in pg.text_content("#page-error")
    pg.evaluate("() => { Promise.reject(new Error('a lost promise')); }")
    pg.wait_for_selector("#page-error:has-text('a lost promise')")
    page.errors.clear()
    page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_errors_are_shown_beside_what_they_are_about(browser, server, viewport):
    page = Page(browser, viewport)
    pg = page.pg
    page.open(server + "/")
    pg.click("#tab-play")
    pg.fill("#play-games", "0")
    pg.click("#play-start")
    assert "from 1 to 100" in pg.text_content("#play-games-msg")
    start_match(page, "greedy", 1, SEED + 50)
    page.wait_status("placing", 1)
    pg.click("#play-confirm", force=True)  # an empty board: the button says it cannot confirm (aria-disabled)
    pg.wait_for_selector("#play-error:not([hidden])")
    assert "slot 1 holds 0 of 5 cards" in pg.text_content("#play-error")
    assert 0 <= gap_below(pg, "#play-confirm") < 40
    pg.fill("#play-text", " ".join(page.api_view(server)["deal"]["live"][:3]))
    pg.click("#play-hint")
    pg.wait_for_selector("#play-error:has-text('a hint keeps your full packets')")
    assert 0 <= gap_below(pg, "#play-hint") < 40
    box = pg.eval_on_selector("#play-error", "e => e.getBoundingClientRect().toJSON()")
    assert box["right"] <= viewport["width"] + 0.5
    page.close()


def test_the_play_tab_by_keyboard_at_phone_width(browser, server):
    page = Page(browser, PHONE)
    pg = page.pg
    page.open(server + "/")
    pg.focus("#tab-advisor")
    pg.keyboard.press("ArrowLeft")  # the last tab
    assert pg.is_visible("#panel-play")
    pg.focus("#play-opponent")
    pg.select_option("#play-opponent", "uniform")
    pg.focus("#play-games")
    pg.keyboard.press("Control+A")
    pg.keyboard.type("1")
    pg.keyboard.press("Enter")
    page.wait_status("placing", 1)
    pg.focus('#play-pool [tabindex="0"]')
    for _ in range(25):  # each card in turn into the next free slot
        pg.keyboard.press("Space")
        pg.keyboard.press("ArrowRight")
    assert pg.get_attribute("#play-confirm", "aria-disabled") == "false"
    pg.focus("#play-confirm")
    pg.keyboard.press("Enter")
    page.wait_revealed()
    width = pg.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide at {PHONE['width']} px"
    for selector in ("#play-showdown .sd-slot", "#play-confirm", "#play-slots .slot-head", "#play-rematch"):
        box = pg.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")
        assert box["right"] <= PHONE["width"] + 0.5, (selector, box)
    page.close()


def test_the_page_checks_commitments_with_its_own_sha256(browser, server):
    page = Page(browser, DESKTOP)
    page.open(server + "/")
    rng = random.Random(5)
    texts = ["", "abc", "x" * 55, "y" * 56, "z" * 64, "é ♠ " * 40] + [
        "".join(rng.choice("0123456789abcdef:| AKQJT987shdc") for _ in range(rng.randrange(200))) for _ in range(20)]
    ours = page.pg.evaluate("async (ts) => { const m = await import('./static/sha256.js'); "
                            "return ts.map(t => m.sha256Hex(t)); }", texts)
    assert ours == [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    deal = Deal.random(SEED)
    arrangement = Arrangement.parse(two_arrangements(deal)[0])
    c = commit(arrangement)
    packets = arrangement.card_lists()
    changed = [list(p) for p in packets]
    changed[0][0], changed[4][0] = changed[4][0], changed[0][0]
    result = page.pg.evaluate("async ([d, s, a, b]) => { const m = await import('./static/sha256.js'); "
                              "return [m.checkCommitment(d, s, a), m.checkCommitment(d, s, b), "
                              "m.commitmentText(s, a)]; }", [c.digest, c.salt, packets, changed])
    assert result == [True, False, c.text]
    page.close()


def test_a_confirm_the_server_did_not_take_is_offered_again_once_it_is_back(browser, tmp_path):
    """Issue 41, item 8: Confirm while the server is down says the arrangement is not confirmed;
    once the server is back (the page reconnects and reads the table again) it says so, in words,
    and confirming again works."""
    port = free_port()
    args = [sys.executable, "-m", "solver.apps.serve.cli", "--port", str(port), "--workers", "1",
            "--store", str(tmp_path / "s.sqlite"), "--tables", str(tmp_path / "t.sqlite")]
    url = f"http://127.0.0.1:{port}"

    def up() -> subprocess.Popen:
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120  # a hang cap
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=5).json()["workers_ready"] == 1:
                    return proc
            except (httpx.HTTPError, ValueError):
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)

    proc = up()
    try:
        page = Page(browser)
        pg = page.pg
        page.open(url + "/")
        start_match(page, "greedy", 1, SEED + 100)
        page.wait_status("placing", 1)
        deal = Deal.from_exposed(" ".join(page.api_view(url)["deal"]["exposed"]))
        pg.fill("#play-text", two_arrangements(deal)[0])
        proc.kill()
        proc.wait()
        pg.click("#play-confirm")
        pg.wait_for_selector("#play-error:has-text('Your arrangement is not confirmed')")
        proc = up()
        pg.wait_for_selector("#play-error:has-text('The server is back: confirm again.')")
        pg.click("#play-confirm")
        page.wait_revealed()
        page.close()
    finally:
        proc.kill()
        proc.wait()


def test_a_play_only_server_shows_the_play_tab_alone(browser, tmp_path):
    """quintet-serve --play-only: the page hides the tabs whose requests it refuses (the
    Arrangement, Draw poker and Review tabs: solves, draw advice, reviews), opens on Play, and a
    match against the computer starts there.  The site is "Quintet", not "Quintet advisor"; an
    unknown seat's message says how long tables are kept (``--table-ttl``, here 2 hours)."""
    with live_server("--workers", "1", "--play-only", "--table-ttl", "7200",
                     "--store", str(tmp_path / "s.sqlite")) as (url, _):
        page = Page(browser, PHONE)
        pg = page.pg
        page.open(url + "/")
        pg.wait_for_selector("body[data-play-only=true]")
        assert [pg.is_visible(f"#tab-{t}") for t in ("advisor", "draw", "review", "play")] == [False] * 3 + [True]
        assert pg.get_attribute("#tab-play", "aria-selected") == "true" and "play only" in pg.text_content("#health")
        assert pg.text_content("h1") == "Quintet" and pg.title() == "Quintet"
        start_match(page, "greedy", 1, SEED + 70)
        page.wait_status("placing", 1)
        page.open(f"{url}/#play/{'A' * 22}/1/{'B' * 43}")  # no such table
        pg.wait_for_selector("#play-error:not([hidden])")
        assert "tables are kept 2 hours after their last move" in pg.text_content("#play-error")
        assert pg.title() == "Quintet"
        page.close()


@pytest.mark.parametrize("viewport", [PHONE, {"width": 1280, "height": 800}], ids=["phone", "laptop"])
def test_after_the_reveal_the_result_is_in_view_and_has_the_focus(browser, server, viewport):
    """Issue 41, item 11: once the show-down is turned over, the result (the score line) is on
    the screen and the keyboard's focus is on it, not on the page's body."""
    page = Page(browser, viewport)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "greedy", 1, SEED + 80)
    page.wait_status("placing", 1)
    deal = Deal.from_exposed(" ".join(page.api_view(server)["deal"]["exposed"]))
    pg.fill("#play-text", two_arrangements(deal)[0])
    pg.click("#play-confirm")
    page.wait_revealed()
    pg.wait_for_function("document.activeElement && document.activeElement.id === 'play-score'")
    box = pg.evaluate("() => { const r = document.querySelector('#play-score').getBoundingClientRect(); "
                      "return [r.top, r.bottom, innerHeight]; }")
    assert 0 <= box[0] and box[1] <= box[2], box
    page.close()


def test_a_friend_is_they_and_the_words_fit_a_touch_screen(browser, server):
    """Issue 41, item 11: the commitment note calls your friend "they" ("their commitment"), and
    the page's help says "pick", not "click"."""
    a, b = Page(browser), Page(browser, PHONE)
    a.open(server + "/")
    start_match(a, "friend", 1, SEED + 90, hints=False)
    b.open(invitation(a))
    accept_invitation(b.pg)
    b.wait_status("placing", 1)
    deal = Deal.from_exposed(" ".join(a.api_view(server)["deal"]["exposed"]))
    arr_a, arr_b = two_arrangements(deal)
    a.pg.fill("#play-text", arr_a)
    a.pg.click("#play-confirm")
    a.wait_status("waiting", 1)
    # not the page's body (the event stream may show "waiting" a moment before the POST's answer moves the focus)
    a.pg.wait_for_function("document.activeElement && document.activeElement.id === 'play-status'")
    b.pg.wait_for_selector("#play-commitment:not([hidden])")
    b.pg.fill("#play-text", arr_b)
    b.pg.click("#play-confirm")
    a.wait_revealed()
    a.pg.wait_for_selector("#play-check:not([hidden])")
    check_text = a.pg.text_content("#play-check .check-line")
    assert "their" in check_text and " its " not in check_text, check_text
    for text in (b.pg.text_content("#play-text-help"), b.pg.get_attribute("#play-pool", "aria-label")):
        assert "click" not in text.lower(), text
    for page in (a, b):
        page.close()


def test_a_laptop_shows_the_cards_and_confirm_without_a_scroll(browser, server):
    """Issue 41, item 11: on a 1280×800 laptop, while placing, the slots, every card to place and
    Confirm are on the screen at once (the cards beside the slots), with no scroll."""
    page = Page(browser, {"width": 1280, "height": 800})
    pg = page.pg
    page.open(server + "/")
    start_match(page, "greedy", 2, SEED + 110)
    page.wait_status("placing", 1)
    shown = pg.evaluate("""() => [...document.querySelectorAll(
        '#play-slots .slot-head, #play-pool [data-card], #play-confirm')].map(e => {
          const r = e.getBoundingClientRect();
          return [e.id || e.dataset.card || e.textContent.trim(), r.top >= 0 && r.bottom <= innerHeight
                  && r.left >= 0 && r.right <= innerWidth];
        })""")
    assert len(shown) == 5 + 25 + 1 and all(inside for _, inside in shown), [n for n, inside in shown if not inside]
    assert pg.evaluate("document.documentElement.scrollHeight <= innerHeight"), "the page scrolls"
    page.close()


def test_the_match_table_fits_a_phone_with_its_regret_column(browser, server):
    """Issue 41, item 11: on a 390 px phone the match's table shows every column — Regret and the
    row's Review button included — with no sideways scroll."""
    page = Page(browser, PHONE)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "greedy", 3, SEED + 120)
    page.wait_status("placing", 1)
    deal = Deal.from_exposed(" ".join(page.api_view(server)["deal"]["exposed"]))
    pg.fill("#play-text", two_arrangements(deal)[0])
    pg.click("#play-confirm")
    page.wait_revealed()
    pg.wait_for_function("() => { const r = document.querySelector('#play-match tr[data-game=\"1\"]'); "
                         "return r && r.cells[5].textContent !== 'computing…' && r.querySelector('.review-cell'); }")
    assert pg.text_content("#play-match th:nth-child(6)") == "Regret"
    fit = pg.evaluate("""() => { const wrap = document.querySelector('#play-match').closest('.table-wrap');
        const edge = wrap.getBoundingClientRect().right;
        return [wrap.scrollWidth <= wrap.clientWidth,
                [...document.querySelectorAll('#play-match th, #play-match td')]
                  .filter(c => c.getBoundingClientRect().right > edge + 0.5).map(c => c.textContent)]; }""")
    assert fit == [True, []], fit
    page.close()


def test_resigning_after_a_show_down_gives_the_match_away_and_the_page_says_how_it_ended(browser, server):
    """Issue 41, item 10: after the first show-down the button resigns (not aborts) the match; the
    page says who resigned and who wins, and the tally counts the match."""
    page = Page(browser)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "greedy", 2, SEED + 130)
    page.wait_status("placing", 1)
    assert pg.text_content("#play-resign") == "Abort the match"
    deal = Deal.from_exposed(" ".join(page.api_view(server)["deal"]["exposed"]))
    pg.fill("#play-text", two_arrangements(deal)[0])
    pg.click("#play-confirm")
    page.wait_revealed()
    pg.click("#play-next")
    page.wait_status("placing", 2)
    assert pg.text_content("#play-resign") == "Resign the match"
    pg.click("#play-resign")
    pg.click("#play-resign-yes")
    page.wait_status("ended", 2)
    assert pg.text_content("#play-status") == "You resigned the match: the computer wins it."
    pg.wait_for_selector("#play-tally:not([hidden])")
    assert "Matches won: you 0, the computer 1" in pg.text_content("#play-tally")
    assert page.api_view(server)["ended"] == {"how": "resigned", "by": "you"}
    page.close()


def test_a_friend_resigns_a_game_and_both_pages_show_its_points_and_the_next_game(browser, server):
    """Issue 41, item 10: "Resign this game" (with a confirm) gives the game away in every slot;
    both pages say so with the points, the match table counts it (no Review for it), and the
    match goes on to its next game."""
    a, b = Page(browser), Page(browser, PHONE)
    a.open(server + "/")
    start_match(a, "friend", 2, SEED + 140, hints=False)
    b.open(invitation(a))
    accept_invitation(b.pg)
    for page in (a, b):
        page.wait_status("placing", 1)
    points = sum(get_rules("classic").weights)
    assert a.pg.text_content("#play-resign-game") == "Resign this game"
    a.pg.click("#play-resign-game")
    assert f"all {points} points" in a.pg.text_content("#play-resign-title")
    assert not a.pg.is_visible("#play-resign-leave")  # leaving goes with the match, not a game
    a.pg.click("#play-resign-no")  # "Play on": nothing resigned
    assert a.api_view(server)["status"] == "placing"
    a.pg.click("#play-resign-game")
    a.pg.click("#play-resign-yes")
    for page in (a, b):
        page.wait_status("resigned", 1)
    a.pg.wait_for_function(f"document.querySelector('#play-score').textContent.startsWith("
                           f"'You resigned game 1: your friend wins it {points}–0.')")
    b.pg.wait_for_function(f"document.querySelector('#play-score').textContent.startsWith("
                           f"'Your friend resigned game 1: you win it {points}–0.')")
    for page, row in ((a, ["1 (resigned by you)", 0, points]), (b, ["1 (resigned by your friend)", points, 0])):
        pg = page.pg
        assert not pg.is_visible("#play-resign-game") and not pg.is_visible("#play-confirm")
        pg.wait_for_selector("#play-match tr[data-game='1']")
        cells = pg.eval_on_selector("#play-match tr[data-game='1']", "e => [...e.cells].map(c => c.textContent)")
        assert cells[:4] == [row[0], str(SEED + 140), str(row[1]), str(row[2])], cells
        assert not pg.query_selector("#play-match tr[data-game='1'] .review-game")
        pg.click("#play-next")
        page.wait_status("placing", 2)
        assert pg.is_visible("#play-resign-game") and pg.text_content("#play-resign") == "Resign the match"
    for page in (a, b):
        page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_the_advice_to_use_goes_once_the_game_is_confirmed(browser, server, viewport):
    """Issue 42, item 10: a grade's "Make this swap" / "Use the best arrangement" would change
    nothing once the arrangement is confirmed: after the show-down the advice box and its
    buttons are gone.  The grade words its swap as every tab does (render.js swapWords)."""
    page = Page(browser, viewport)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "greedy", 1, SEED + 150)
    page.wait_status("placing", 1)
    deal = Deal.from_exposed(" ".join(page.api_view(server)["deal"]["exposed"]))
    pg.fill("#play-text", two_arrangements(deal)[0])
    pg.click("#play-grade")
    pg.wait_for_selector("#play-grade-regret")
    assert pg.is_visible("#play-advice-box button:has-text('Use the best arrangement')")
    swap = pg.text_content(".grade-summary dd:last-of-type")
    assert "→" in swap or swap.startswith("none"), swap  # "Tc (slot 2) ↔ Qs (slot 4) → +23.40 (+0.02)"
    pg.click("#play-confirm")
    page.wait_revealed()
    pg.wait_for_selector("#play-advice-box", state="hidden")
    assert not pg.is_visible("#play-advice-box button")
    page.close()
