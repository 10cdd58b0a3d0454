"""The Play tab in a real browser (Debian's chromium, Playwright) against a live quintet-serve:
two browser contexts play a friend's match against each other, one plays the computer, the
keyboard and the phone width, the page's own commitment check.

What a page is checked against is the API's answer for the same seat (its token read from the
page's sessionStorage) and ``quintet.game.showdown`` — never cards typed in here for a seed.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time

import httpx
import pytest
import tiers
from serve_helpers import live_server, wait_for_workers
from table_helpers import packet_sets, packets_found, two_arrangements

from quintet.game import Arrangement, Deal, showdown
from solver.play.commitment import check, commit

pytestmark = [pytest.mark.browser, pytest.mark.server]
playwright_api = pytest.importorskip("playwright.sync_api", reason="the Playwright package is not installed")
from test_serve_browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PHONE, TIMEOUT_MS  # noqa: E402

SEED = 21


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("play")
    with live_server("--workers", "1", "--store", str(base / "solutions.sqlite")) as (url, _):
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        yield url


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        tiers.require("browser")
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Page:
    """A browser context with one page; page errors are collected (none allowed)."""

    def __init__(self, browser, viewport) -> None:
        phone = viewport["width"] < 500
        self.context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone, accept_downloads=True)
        self.pg = self.context.new_page()
        self.pg.set_default_timeout(TIMEOUT_MS)
        self.errors: list[str] = []
        self.pg.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.pg.on("console", lambda msg: self.errors.append(msg.text)
                   if msg.type == "error" and not msg.text.startswith("Failed to load resource") else None)

    def open(self, url: str) -> None:
        self.pg.goto(url)
        self.pg.wait_for_selector("body[data-ready=true]")

    def seat(self) -> dict:
        return json.loads(self.pg.evaluate("sessionStorage.getItem('quintet-play-seat')"))

    def api_view(self, server: str) -> dict:
        seat = self.seat()
        return httpx.get(f"{server}/api/tables/{seat['table']}",
                         headers={"Authorization": f"Bearer {seat['token']}"}).json()

    def wait_status(self, status: str, game: int) -> None:
        self.pg.wait_for_selector(f"#panel-play[data-status={status}][data-game='{game}']")

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


def dom_packets(pg) -> set[frozenset[str]]:
    """Every group of exactly five cards the page shows together (an element holding five card
    elements), and the five-card windows of every text it keeps in sessionStorage."""
    groups = pg.evaluate("""() => [...document.querySelectorAll('*')]
        .filter(e => !e.dataset.card && e.querySelectorAll('[data-card]').length === 5)
        .map(e => [...e.querySelectorAll('[data-card]')].map(c => c.dataset.card))""")
    stored = pg.evaluate("() => Object.keys(sessionStorage).map(k => sessionStorage.getItem(k)).join('\\n')")
    return {frozenset(g) for g in groups} | {frozenset(p) for p in packets_in_text(stored)}


def packets_in_text(text: str) -> list[list[str]]:
    cards = re.findall(r"\b[AKQJT987][shdc]\b", text)
    return [cards[k:k + 5] for k in range(len(cards) - 4)]


def shown_scores(pg) -> tuple[float, float]:
    text = pg.text_content("#play-score")
    m = re.search(r"you (\d+(?:\.\d+)?), (?:your friend|the computer) (\d+(?:\.\d+)?)", text)
    assert m, text
    return float(m.group(1)), float(m.group(2))


def test_two_browsers_play_a_three_game_friend_match(browser, server):
    a, b = Page(browser, DESKTOP), Page(browser, PHONE)
    a.open(server + "/")
    start_match(a, "friend", 3, SEED, hints=False)
    a.wait_status("placing", 1)
    link = a.pg.input_value("#play-share-link")
    assert re.fullmatch(re.escape(server) + r"/#play/[\w-]{22}/2/[\w-]{43}", link)
    assert a.pg.url.endswith("/1") and a.seat()["token"] not in a.pg.url  # the token is not in the address bar
    b.open(link)
    b.wait_status("placing", 1)
    assert b.seat()["token"] not in b.pg.url and b.pg.is_visible("#panel-play")
    assert "hints off for both of you" in b.pg.text_content("#play-against")
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
        second.pg.wait_for_selector("#play-commitment:not([hidden])")
        assert "committed: SHA-256" in second.pg.text_content("#play-commitment")
        # before the reveal the page holds none of the other seat's packets (shown or stored)
        theirs = set(packet_sets(first_arr, deal))
        assert not dom_packets(second.pg) & theirs
        assert packets_found(second.pg.content(), list(theirs)) == []
        if game == 2:  # a reload resumes the seat (token from sessionStorage)
            second.pg.reload()
            second.pg.wait_for_selector("body[data-ready=true]")
            second.wait_status("placing", game)
        second.pg.fill("#play-text", second_arr)
        second.pg.press("#play-text", "Enter")
        for page in (a, b):
            page.pg.wait_for_selector("#panel-play[data-revealed='5']")
            page.wait_status("showdown", game)
        assert theirs <= dom_packets(second.pg)  # the control: after it, every one is shown
        expected = showdown(Arrangement.parse(arr_a), Arrangement.parse(arr_b), deal)
        assert shown_scores(a.pg) == (expected.points_a, expected.points_b)
        assert shown_scores(b.pg) == (expected.points_b, expected.points_a)
        winners = a.pg.eval_on_selector_all("#play-showdown .sd-slot", "e => e.map(x => x.dataset.winner)")
        assert winners == [{"A": "you", "B": "other", None: "tie"}[s.winner] for s in expected.slots]
        # the seat that confirmed second saw the first one's commitment: it checks out
        assert second.pg.get_attribute("#play-check", "data-ok") == "true"
        assert first.pg.get_attribute("#play-check", "data-ok") == "true"
        assert "checks out" in second.pg.text_content("#play-check")
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
    a.close()
    b.close()


def test_a_computer_match_through_the_page(browser, server):
    page = Page(browser, DESKTOP)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "greedy", 2, SEED + 10)
    page.wait_status("placing", 1)
    assert pg.is_visible("#play-advice-buttons") and "greedy" in pg.text_content("#play-against")
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
    pg.wait_for_selector("#panel-play[data-revealed='5']")
    pg.unroute("**/arrangement")
    view = page.api_view(server)
    assert check(commitment, view["other"]["salt"], " | ".join(" ".join(p) for p in view["other"]["arrangement"]))
    assert pg.get_attribute("#play-check", "data-ok") == "true"
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
    pg.click("#play-odds")
    pg.wait_for_selector("#play-advice .marginals")
    assert "greedy" in pg.text_content("#play-advice")
    pg.click("#play-confirm")
    pg.wait_for_selector("#panel-play[data-revealed='5']")
    assert "The match is over" in pg.text_content("#play-status") and not pg.is_visible("#play-next")
    pg.wait_for_function("[...document.querySelectorAll('#play-match tr[data-game]')].every("
                         "r => r.cells[5].textContent !== 'computing…')")
    with pg.expect_download() as download:
        pg.click("#play-records")
    lines = download.value.path().read_text().splitlines()
    seat = page.seat()
    served = httpx.get(f"{server}/api/tables/{seat['table']}/records",
                       headers={"Authorization": f"Bearer {seat['token']}"}).text.splitlines()
    assert lines == served and [json.loads(x)["hints"] for x in lines] == [["hint"], ["grade", "odds"]]
    assert json.loads(lines[1])["player"] == Arrangement.parse(mine).card_lists()
    page.close()


def test_a_mix_of_k_at_the_equilibrium_computers_table(browser, server):
    """quintet-play's 'hint K' on the page: the K-mix with the game's die roll, its pick taken and
    confirmed; a K that is not one is refused at the box, with no request."""
    page = Page(browser, DESKTOP)
    pg = page.pg
    page.open(server + "/")
    start_match(page, "equilibrium", 1, 5)  # a deal whose equilibrium is certified in seconds
    page.wait_status("placing", 1)
    assert pg.is_visible("#play-mix-box")
    pg.fill("#play-k", "0")
    pg.click("#play-mix")
    assert "from 1 to 1000" in pg.text_content("#play-k-msg") and not pg.is_visible("#play-advice-box")
    pg.fill("#play-k", "2")
    pg.press("#play-k", "Enter")
    pg.wait_for_selector("#play-mix-roll")
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
    pg.wait_for_selector("#panel-play[data-revealed='5']")
    pg.wait_for_function("document.querySelector('#play-match tr[data-game=\"1\"]').cells[5].textContent "
                         "!== 'computing…'")  # the record is written (a worker, just after the reveal)
    seat = page.seat()
    served = httpx.get(f"{server}/api/tables/{seat['table']}/records",
                       headers={"Authorization": f"Bearer {seat['token']}"}).text.splitlines()
    assert [json.loads(line)["hints"] for line in served] == [["hint 2"]]
    assert page.api_view(server)["you"]["arrangement"] == picked
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
    pg.wait_for_selector("#panel-play[data-revealed='5']")
    width = pg.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide at {PHONE['width']} px"
    for selector in ("#play-showdown .sd-slot", "#play-confirm", "#play-slots .slot-head"):
        box = pg.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")
        assert box["right"] <= PHONE["width"] + 0.5, (selector, box)
    page.close()


def test_the_page_checks_commitments_with_its_own_sha256(browser, server):
    page = Page(browser, DESKTOP)
    page.open(server + "/")
    rng = random.Random(5)
    texts = ["", "abc", "x" * 55, "y" * 56, "z" * 64, "é ♠ " * 40] + [
        "".join(rng.choice("0123456789abcdef:| AKQJT987shdc") for _ in range(rng.randrange(200))) for _ in range(20)]
    ours = page.pg.evaluate("async (ts) => { const m = await import('/static/sha256.js'); "
                            "return ts.map(t => m.sha256Hex(t)); }", texts)
    assert ours == [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    deal = Deal.random(SEED)
    arrangement = Arrangement.parse(two_arrangements(deal)[0])
    c = commit(arrangement)
    packets = arrangement.card_lists()
    changed = [list(p) for p in packets]
    changed[0][0], changed[4][0] = changed[4][0], changed[0][0]
    result = page.pg.evaluate("async ([d, s, a, b]) => { const m = await import('/static/sha256.js'); "
                              "return [m.checkCommitment(d, s, a), m.checkCommitment(d, s, b), "
                              "m.commitmentText(s, a)]; }", [c.digest, c.salt, packets, changed])
    assert result == [True, False, c.text]
    page.close()
