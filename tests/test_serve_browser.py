"""The page in a real browser: Debian's chromium driven by Playwright, against a live
``quintet-serve`` (a subprocess on a free loopback port).

Skipped, with the reason in pytest's summary, only when no browser is installed
(``/usr/bin/chromium``; ``.ci/run`` installs it) or Playwright's package is missing.

Every test that checks what the page asked for reads the request it sent (``page.on("request")``
or ``page.route``), and compares the page with the API's own answer to that request — never
with cards typed in here for a seed (``/api/deal?seed=N`` is asked).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import httpx
import pytest
from browser_helpers import DESKTOP, PHONE, TIMEOUT_MS, checked_page
from serve_helpers import ARR_A, EXAMPLE, QUICK_DEALS, one_worker_server

from quintet.cards import format_cards, mask_of, parse_cards
from quintet.evaluator import evaluate
from solver.advisor.limits import SOLVE_EPSILON, SOLVE_TIME_LIMIT

pytestmark = [pytest.mark.browser, pytest.mark.server]
MAX_SEED = 2**31 - 1
SUIT_GLYPHS = re.compile("[♠♥♦♣♤♡♢♧\U0001F0CF]")
ANOTHER_DEAL = "Ac Kh Kd Kc Qd Ts 7s"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with one_worker_server(tmp_path_factory.mktemp("browser") / "solutions.sqlite") as url:
        yield url


@pytest.fixture(params=[DESKTOP, PHONE], ids=["1280px", "390px"])
def any_page(request, browser, server):
    with checked_page(browser, server, request.param) as pg:
        yield pg


@pytest.fixture()
def page(browser, server):
    with checked_page(browser, server, DESKTOP) as pg:
        yield pg


@pytest.fixture()
def phone(browser, server):
    with checked_page(browser, server, PHONE) as pg:
        yield pg


def api(server: str, path: str, body: dict) -> dict:
    response = httpx.post(f"{server}{path}", json=body, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def solved(server: str, body: dict) -> dict:
    """The API's answer to ``body``, following the job when it is one (an equilibrium not stored yet)."""
    response = httpx.post(f"{server}/api/solve", json=body, timeout=120)
    assert response.status_code in (200, 202), response.text
    job = created = response.json()
    if response.status_code == 200:
        return job
    while job["status"] not in ("done", "failed", "cancelled"):
        time.sleep(0.2)
        job = httpx.get(f"{server}/api/jobs/{job['job']}",
                        headers={"Authorization": f"Bearer {created['secret']}"}).json()
    assert job["status"] == "done", job
    return job["result"]


def solve_bodies(pg) -> list[dict]:
    """The bodies of the page's POST /api/solve requests, as they are sent."""
    bodies: list[dict] = []
    pg.on("request", lambda r: bodies.append(json.loads(r.post_data or "null"))
          if r.method == "POST" and r.url.endswith("/api/solve") else None)
    return bodies


def stub_solve(pg) -> list[dict]:
    """Answer the page's solves with a 400 (nothing solved) and record their bodies."""
    bodies: list[dict] = []

    def handle(route):
        bodies.append(json.loads(route.request.post_data or "null"))
        route.fulfill(status=400, json={"error": "stub: not solved"})

    pg.route("**/api/solve", handle)
    return bodies


def choose_rules(pg, name: str) -> None:
    """Pick the rule set ``name`` on the draw tab: its deck, then its hand table."""
    deck = pg.eval_on_selector("#draw-deck", "(s, name) => [...s.options].find(o => "
                               "o.dataset.rules.split(' ').includes(name)).value", name)
    pg.select_option("#draw-deck", deck)
    pg.select_option("#draw-rules", name)


def pick_exposed(pg, cards: str) -> None:
    for card in cards.split():
        pg.click(f'#exposed-grid [data-card="{card}"]')


def ask(pg, button: str = "#solve", done: str = "#answer .packet") -> None:
    with pg.expect_response("**/api/solve"):
        pg.click(button)
    pg.wait_for_selector(done)


def page_packets(pg, which: int = 0) -> list[list[str]]:
    """The five packets of an answer on the page, read off the drawn cards."""
    return [pg.eval_on_selector_all(f'#answer .packets >> nth={which} >> .packet[data-slot="{s}"] .card',
                                    "cards => cards.map(c => c.dataset.card)") for s in range(1, 6)]


def as_shown(arrangement: list[list[str]]) -> list[list[str]]:
    """An answer's packets as the page shows them: each in the terminal's order (the largest rank
    group first: quintet.cards order 'group')."""
    return [format_cards(mask_of(parse_cards(" ".join(p))), order="group").split() for p in arrangement]


def mine_packets(pg) -> list[list[str]]:
    return [pg.eval_on_selector_all(f'#mine-slots [data-slot="{s}"] .placed', "e => e.map(x => x.dataset.card)")
            for s in range(1, 6)]


def label_cards(pg) -> list[str]:
    return pg.eval_on_selector_all("#answer-for .card-text", "e => e.map(x => x.dataset.card)")


def active(pg) -> dict:
    return pg.evaluate("({id: document.activeElement.id, card: document.activeElement.dataset.card || null, "
                       "in: document.activeElement.closest('[id]') && document.activeElement.closest('[id]').id})")


def signed(x: float) -> str:
    return f"{x:+.4f}".replace("-", "−") if abs(x) >= 5e-5 else f"{abs(x):.4f}"


def sorted_cards(cards: str) -> str:
    order = "AKQJT98765432"
    return " ".join(sorted(cards.split(), key=lambda c: (order.index(c[0]), "shdc".index(c[1]))))


# ---------------------------------------------------------------- the arrangement advisor


def test_uniform_advice_and_grading_my_arrangement(page, server):
    pg = page
    bodies = solve_bodies(pg)
    pick_exposed(pg, EXAMPLE)
    assert pg.inner_text("#exposed-count") == "7 of 7"
    pg.select_option("#opponent", "uniform")
    ask(pg)
    assert bodies[-1] == {"exposed": sorted_cards(EXAMPLE), "opponent": "uniform", "objective": "margin"}
    want = api(server, "/api/solve", {"exposed": EXAMPLE, "opponent": "uniform"})
    assert page_packets(pg) == as_shown(want["arrangement"])
    assert pg.eval_on_selector_all("#answer .hand", "e => e.map(x => x.textContent)") == want["hands"]
    assert pg.inner_text("#answer .total-margin") == signed(want["expected_margin"])
    wins = pg.eval_on_selector_all("#answer .p-win", "e => e.map(x => x.textContent)")
    assert wins == [f"W {100 * s['p_win']:.1f}%" for s in want["per_slot"]]
    # focus lands on the answer's heading, not on the page
    assert active(pg)["id"] == "answer-heading"

    # build ARR_A by clicking cards into the slots; undo once on the way
    packets = [p.split() for p in ARR_A.split("|")]
    pg.click(f'#pool [data-card="{packets[0][0]}"]')
    pg.click("#undo")
    assert mine_packets(pg)[0] == []
    for packet in packets:
        for card in packet:
            pg.click(f'#pool [data-card="{card}"]')
    assert mine_packets(pg) == packets
    assert pg.input_value("#mine-text") == ARR_A  # the clicks, as text
    ask(pg, "#grade", "#grade-regret")
    assert bodies[-1] == {"exposed": sorted_cards(EXAMPLE), "opponent": "uniform", "objective": "margin",
                          "grade": ARR_A}
    grade = api(server, "/api/solve", {"exposed": EXAMPLE, "opponent": "uniform", "grade": ARR_A})
    assert pg.inner_text("#grade-value") == signed(grade["value"])
    assert pg.inner_text("#grade-optimum") == signed(grade["optimum"])
    assert pg.inner_text("#grade-regret") == f"{grade['regret']:.4f}"
    # the best swap is written as the cards are drawn (10♣), not as codes (Tc)
    swap = grade["best_swap"]
    written = pg.eval_on_selector_all("#grade-swap .card-text", "e => e.map(x => x.dataset.card)")
    assert written == [swap["card_a"], swap["card_b"]]
    text = pg.inner_text("#grade-swap")
    assert f"(slot {swap['slot_a']})" in text and f"(slot {swap['slot_b']})" in text
    # the one way of every front-end (Swap.change): the value after it and the gain, signed
    gain = signed(swap["value"] - grade["value"])
    assert text.endswith(f"(slot {swap['slot_b']}) → {signed(swap['value'])} ({gain})")
    for code in (swap["card_a"], swap["card_b"]):
        assert code not in text
        rank = "10" if code[0] == "T" else code[0]
        svg_suit = pg.eval_on_selector(f'#grade-swap .card-text[data-card="{code}"]',
                                       "e => [e.className, e.querySelector('svg path') !== null, e.textContent]")
        assert f"suit-{code[1]}" in svg_suit[0] and svg_suit[1] and svg_suit[2].startswith(rank)
    # the swap is shown on the cards: in the answer and in my arrangement
    marked = pg.eval_on_selector_all("#answer .card.swap", "e => e.map(x => x.dataset.card)")
    assert sorted(marked) == sorted([swap["card_a"], swap["card_b"]])
    marked = pg.eval_on_selector_all("#mine-slots .card.swap", "e => e.map(x => x.dataset.card)")
    assert sorted(marked) == sorted([swap["card_a"], swap["card_b"]])

    # complete: keep only slot 5, let the solver fill the rest
    pg.click("#clear-mine")
    pg.click('#mine-slots [data-slot="5"] .slot-head')
    for card in packets[4]:
        pg.click(f'#pool [data-card="{card}"]')
    ask(pg, "#complete", "#answer .slot-label .yours")
    assert bodies[-1] == {"exposed": sorted_cards(EXAMPLE), "opponent": "uniform", "objective": "margin",
                          "fix": {"5": " ".join(packets[4])}}
    want = api(server, "/api/solve", {"exposed": EXAMPLE, "opponent": "uniform", "fix": {"5": packets[4]}})
    assert page_packets(pg) == as_shown(want["arrangement"])
    assert want["arrangement"][4] == packets[4]
    assert all("workers" not in b and "threads" not in b and "seed" not in b for b in bodies)


def test_solve_uses_the_deal_in_the_box_and_bad_text_blocks_it(page, server):
    """Issue 19: a new deal typed with a bad card → the old deal was solved, the error flashed away."""
    pg = page
    bodies = solve_bodies(pg)
    pg.fill("#exposed-text", EXAMPLE)
    pg.select_option("#opponent", "uniform")
    ask(pg)
    assert label_cards(pg) == sorted_cards(EXAMPLE).split()
    # a bad card: the message appears as it is typed, and stays through a click on Solve
    pg.fill("#exposed-text", "Ac Kh Kd Kc Qd Ts 7x")
    assert pg.is_visible("#exposed-text-msg") and "7x" in pg.inner_text("#exposed-text-msg")
    pg.click("#solve")
    pg.wait_for_timeout(600)
    assert len(bodies) == 1  # nothing asked
    assert pg.is_visible("#exposed-text-msg") and "7x" in pg.inner_text("#exposed-text-msg")
    assert pg.is_visible("#error") and "7x" in pg.inner_text("#error")
    assert active(pg)["id"] == "exposed-text"
    assert pg.get_attribute("#answer", "data-stale") == "true"  # the answer shown is not for the box
    # fixed, and Solve clicked straight from the box: the deal in the box is the one solved
    pg.fill("#exposed-text", ANOTHER_DEAL)
    assert not pg.is_visible("#exposed-text-msg")
    ask(pg)
    assert bodies[-1]["exposed"] == sorted_cards(ANOTHER_DEAL)
    want = api(server, "/api/solve", {"exposed": ANOTHER_DEAL, "opponent": "uniform"})
    assert page_packets(pg) == as_shown(want["arrangement"])
    assert label_cards(pg) == sorted_cards(ANOTHER_DEAL).split()
    assert pg.get_attribute("#answer", "data-stale") == "false"
    picked = pg.eval_on_selector_all('#exposed-grid [aria-pressed="true"]', "e => e.map(x => x.dataset.card)")
    assert sorted(picked) == sorted(ANOTHER_DEAL.split())


def test_deal_text_is_checked_against_the_deck_as_it_is_typed(page):
    pg = page
    bodies = stub_solve(pg)
    for text, words in [("8h 7h 2c", ["2c", "32-card deck"]), ("8h 8h", ["twice"]), ("8h Jk", ["no joker"]),
                        ("8h 7h 9d Ts 7s Qc Jc Ah", ["8 cards"])]:
        pg.fill("#exposed-text", text)  # no blur, no Enter
        message = pg.inner_text("#exposed-text-msg")
        assert all(w in message for w in words), (text, message)
        assert pg.get_attribute("#exposed-text", "aria-invalid") == "true"
        pg.click("#solve")
        assert bodies == [] and pg.is_visible("#error")
    # unfinished cards are not errors while typed; 10h and A♥ are cards
    pg.fill("#exposed-text", "10h A♥ K")
    assert not pg.is_visible("#exposed-text-msg")
    picked = pg.eval_on_selector_all('#exposed-grid [aria-pressed="true"]', "e => e.map(x => x.dataset.card)")
    assert sorted(picked) == ["Ah", "Th"]


def test_answers_say_what_they_are_for_and_go_stale(any_page, server):
    pg = any_page
    pick_exposed(pg, EXAMPLE)
    pg.select_option("#opponent", "uniform")
    ask(pg)
    label = pg.inner_text("#answer-for")
    assert "uniform random" in label and "expected margin" in label
    assert label_cards(pg) == sorted_cards(EXAMPLE).split()
    assert pg.get_attribute("#answer", "data-stale") == "false" and not pg.is_visible("#stale-note")
    # a random deal: the answer is marked out of date, its "use" button off
    with pg.expect_response(re.compile(r"/api/deal\?seed=\d+$")):
        pg.click("#random-deal")
    pg.wait_for_function("document.getElementById('answer').dataset.stale === 'true'")
    assert pg.is_visible("#stale-note") and "the deal" in pg.inner_text("#stale-note")
    assert pg.get_attribute("#answer .take", "aria-disabled") == "true"
    # the deal again: fresh; another opponent: stale again
    pg.fill("#exposed-text", EXAMPLE)
    assert pg.get_attribute("#answer", "data-stale") == "false"
    pg.select_option("#opponent", "greedy")
    assert pg.get_attribute("#answer", "data-stale") == "true"
    assert "the opponent" in pg.inner_text("#stale-note")
    pg.select_option("#opponent", "uniform")
    assert pg.get_attribute("#answer", "data-stale") == "false"
    # a new pick on the grid
    pg.click('#exposed-grid [data-card="8h"]')
    assert pg.get_attribute("#answer", "data-stale") == "true"


def test_complete_keeps_the_cards_where_i_put_them(page, server):
    """Issue 19: As Ah in slot 1 and slot 5 full → the aces were moved to slot 4 without a word."""
    pg = page
    bodies = solve_bodies(pg)
    pick_exposed(pg, EXAMPLE)
    pg.select_option("#opponent", "uniform")
    five = "Kh Qh Jh Th 9h"
    pg.fill("#mine-text", f"As Ah | | | | {five}")
    assert mine_packets(pg) == [["As", "Ah"], [], [], [], five.split()]
    pg.click("#complete")
    pg.wait_for_timeout(300)
    assert bodies == []  # refused, with a message naming the slot
    assert "slot 1 holds 2 of 5 cards" in pg.inner_text("#error")
    assert pg.is_visible("#mine-text-msg")
    assert mine_packets(pg)[0] == ["As", "Ah"]  # nothing moved
    # slot 1 filled: both full packets are sent as fixed, and stay where they were put
    pg.fill("#mine-text", f"As Ah Ad Ac Qs | | | | {five}")
    ask(pg, "#complete", "#answer .slot-label .yours")
    assert bodies[-1]["fix"] == {"1": "As Ah Ad Ac Qs", "5": five}
    assert set(bodies[-1]) == {"exposed", "opponent", "objective", "fix"}
    shown = page_packets(pg)
    assert shown[0] == "As Ah Ad Ac Qs".split() and shown[4] == five.split()
    want = api(server, "/api/solve", {"exposed": EXAMPLE, "opponent": "uniform", "fix": bodies[-1]["fix"]})
    assert shown == as_shown(want["arrangement"])
    yours = pg.eval_on_selector_all("#answer .packet", "e => e.map(p => !!p.querySelector('.yours'))")
    assert yours == [True, False, False, False, True]


def test_typed_arrangement_round_trips_and_an_answer_can_be_taken(page, server):
    pg = page
    bodies = solve_bodies(pg)
    pick_exposed(pg, EXAMPLE)
    pg.select_option("#opponent", "uniform")
    packets = [p.split() for p in ARR_A.split("|")]
    # typed (in any notation) → the slots; the slots → the text
    pg.fill("#mine-text", ARR_A.replace("Th", "10h").replace("Ks", "K♠"))
    assert mine_packets(pg) == packets
    pg.press("#mine-text", "Tab")
    assert pg.input_value("#mine-text") == ARR_A
    ask(pg, "#grade", "#grade-regret")  # one click to grade
    assert bodies[-1]["grade"] == ARR_A
    # bad text: a message, the slots unchanged, no grade
    for text, words in [("8h 9s", ["8h is exposed"]), ("As As", ["twice"]), ("a|b|c|d|e|f", ["6 packets"]),
                        ("As Ah Ad Ac Ks Qs", ["6 cards"])]:
        pg.fill("#mine-text", text)
        message = pg.inner_text("#mine-text-msg")
        assert all(w in message for w in words), (text, message)
        assert mine_packets(pg) == packets
    n = len(bodies)
    pg.click("#grade")
    pg.wait_for_timeout(300)
    assert len(bodies) == n
    pg.fill("#mine-text", ARR_A)
    # take the optimal arrangement into mine, then change it
    grade = api(server, "/api/solve", {"exposed": EXAMPLE, "opponent": "uniform", "grade": ARR_A})
    pg.click("#answer .take >> nth=-1")
    assert mine_packets(pg) == grade["best"]["arrangement"]
    assert pg.input_value("#mine-text") == " | ".join(" ".join(p) for p in grade["best"]["arrangement"])
    assert active(pg)["id"] == "mine-text"
    assert pg.get_attribute("#answer", "data-stale") == "true"  # the grade was of another arrangement
    card = grade["best"]["arrangement"][2][0]
    pg.click(f'#mine-slots .placed[data-card="{card}"]')
    assert card not in pg.input_value("#mine-text")
    # focus stays on the card grid, on the card taken back (the grid's one tab stop)
    assert active(pg) == {"id": "", "card": card, "in": "pool"}
    assert pg.eval_on_selector_all('#pool [tabindex="0"]', "e => e.map(x => x.dataset.card)") == [card]
    pg.click("#undo")
    assert mine_packets(pg) == grade["best"]["arrangement"]


def test_options_are_sent_as_typed_or_refused(page):
    """ε = 0 is sent; a bad time limit or ε is a message, never the default; only fields that apply."""
    pg = page
    bodies = stub_solve(pg)
    pick_exposed(pg, QUICK_DEALS[1])
    pg.select_option("#opponent", "equilibrium")
    pg.fill("#epsilon", "0")
    with pg.expect_response("**/api/solve"):
        pg.click("#solve")
    body = bodies[-1]
    assert set(body) == {"exposed", "opponent", "epsilon", "time_limit", "seed"}
    assert body["epsilon"] == 0 and body["time_limit"] == SOLVE_TIME_LIMIT and body["opponent"] == "equilibrium"
    assert 0 <= body["seed"] <= MAX_SEED
    pg.wait_for_function("() => document.querySelector('#error').innerText.includes('stub: not solved')")
    # the server's words and ranges (GET /api/limits): the page copies none
    for field, value, words in [("#time-limit", "-5", "time limit must be more than 0 and at most 604800 seconds"),
                                ("#time-limit", "abc", "time limit must be a number, got abc"),
                                ("#time-limit", "", "type a number"), ("#epsilon", "-0.1", "from 0 to 25 points"),
                                ("#epsilon", "30", "target ε must be from 0 to 25 points, got 30"),
                                ("#epsilon", "1e", "must be a number")]:
        pg.fill("#epsilon", "0.05")
        pg.fill("#time-limit", "600")
        pg.fill(field, value)
        assert words in pg.inner_text(f"{field}-msg")  # as it is typed
        n = len(bodies)
        pg.click("#solve")
        pg.wait_for_timeout(150)
        assert len(bodies) == n and words in pg.inner_text("#error")
        assert active(pg)["id"] == field[1:]
    pg.fill("#epsilon", "0.05")
    pg.fill("#time-limit", "30")
    # a mixture with the equilibrium: ε and the time limit apply, and the objective; no seed
    pg.select_option("#opponent", "mixture")
    pg.fill("#mixture", "equilibrium:0.5,greedy:0.5")
    with pg.expect_response("**/api/solve"):
        pg.click("#solve")
    assert bodies[-1] == {"exposed": sorted_cards(QUICK_DEALS[1]), "opponent": "equilibrium:0.5,greedy:0.5",
                          "objective": "margin", "epsilon": 0.05, "time_limit": 30}
    # no equilibrium in it: neither ε nor a time limit
    pg.fill("#mixture", "uniform:0.3,greedy:0.7")
    pg.select_option("#objective", "points")
    with pg.expect_response("**/api/solve"):
        pg.click("#solve")
    assert bodies[-1] == {"exposed": sorted_cards(QUICK_DEALS[1]), "opponent": "uniform:0.3,greedy:0.7",
                          "objective": "points"}
    # grading against the equilibrium: ε and the objective, no seed
    pg.select_option("#opponent", "equilibrium")
    pg.fill("#mine-text", "")
    # the arrangement: the 25 live cards in order, five to a packet
    deck = [r + s for r in "AKQJT987" for s in "shdc" if r + s not in QUICK_DEALS[1].split()]
    arrangement = " | ".join(" ".join(deck[i:i + 5]) for i in range(0, 25, 5))
    pg.fill("#mine-text", arrangement)
    with pg.expect_response("**/api/solve"):
        pg.click("#grade")
    assert bodies[-1] == {"exposed": sorted_cards(QUICK_DEALS[1]), "opponent": "equilibrium",
                          "objective": "points", "epsilon": 0.05, "time_limit": 30, "grade": arrangement}
    assert all("workers" not in b and "threads" not in b for b in bodies)


def test_random_deal_shows_its_own_seed(page, server):
    pg = page
    seeds = []
    for _ in range(2):
        with pg.expect_response(re.compile(r"/api/deal\?seed=\d+$")) as response:
            pg.click("#random-deal")
        seed = int(response.value.url.rsplit("=", 1)[1])
        assert 0 <= seed <= MAX_SEED
        pg.wait_for_function(f"document.getElementById('seed').value === '{seed}'")  # this deal's seed
        deal = httpx.get(f"{server}/api/deal?seed={seed}").json()
        picked = pg.eval_on_selector_all('#exposed-grid [aria-pressed="true"]', "e => e.map(x => x.dataset.card)")
        assert sorted(picked) == sorted(deal["exposed"])
        seeds.append(seed)
    assert seeds[0] != seeds[1]  # fresh each time
    # a given seed replays its deal
    pg.fill("#seed", "5")
    with pg.expect_response(re.compile(r"/api/deal\?seed=5$")):
        pg.click("#deal-seed")
    deal = httpx.get(f"{server}/api/deal?seed=5").json()
    pg.wait_for_function("document.querySelectorAll('#exposed-grid [aria-pressed=true]').length === 7")
    picked = pg.eval_on_selector_all('#exposed-grid [aria-pressed="true"]', "e => e.map(x => x.dataset.card)")
    assert sorted(picked) == sorted(deal["exposed"]) and pg.input_value("#seed") == "5"
    # the seed is part of the answer's label
    pg.select_option("#opponent", "greedy")
    ask(pg)
    assert "(seed 5)" in pg.inner_text("#answer-for")
    # a bad seed is a message; a card picked by hand clears the seed
    pg.fill("#seed", "-3")
    pg.click("#deal-seed")
    assert "seed must be an integer from 0 to 2147483647, got -3" in pg.inner_text("#seed-msg")
    pg.fill("#seed", "5")
    pg.click(f'#exposed-grid [data-card="{deal["exposed"][0]}"]')
    assert pg.input_value("#seed") == ""


def test_keyboard_picks_cards_and_switches_tabs(page):
    pg = page
    pg.focus('#exposed-grid [tabindex="0"]')
    for key in ("ArrowRight", "ArrowRight", "ArrowDown", "Space"):
        pg.keyboard.press(key)
    # row 2 is hearts, column 3 the queen (A K Q …)
    assert pg.get_attribute('#exposed-grid [data-card="Qh"]', "aria-pressed") == "true"
    pg.keyboard.press("End")
    pg.keyboard.press("Enter")
    assert pg.get_attribute('#exposed-grid [data-card="7h"]', "aria-pressed") == "true"
    assert pg.input_value("#exposed-text") == "Qh 7h"
    # one tab stop per grid
    assert pg.eval_on_selector_all('#exposed-grid [tabindex="0"]', "e => e.length") == 1
    pg.focus("#tab-advisor")
    pg.keyboard.press("ArrowRight")
    assert pg.is_visible("#panel-draw") and not pg.is_visible("#panel-advisor")


def contrast(a: str, b: str) -> float:
    def luminance(rgb: str) -> float:
        channels = [int(x) / 255 for x in re.findall(r"\d+", rgb)[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_focus_ring_on_a_picked_card_is_clearly_visible(page):
    pg = page
    pg.focus('#exposed-grid [tabindex="0"]')
    pg.keyboard.press("Space")  # A♠ picked, and focused from the keyboard
    style = pg.eval_on_selector('#exposed-grid [data-card="As"]', """b => {
        const s = getComputedStyle(b);
        return {matches: b.matches(':focus-visible'), pressed: b.getAttribute('aria-pressed'),
                outline: s.outlineColor, width: parseFloat(s.outlineWidth), style: s.outlineStyle,
                card: s.backgroundColor, box: getComputedStyle(b.closest('.box')).backgroundColor};
    }""")
    assert style["matches"] and style["pressed"] == "true"
    assert style["style"] != "none" and style["width"] >= 2
    assert contrast(style["outline"], style["card"]) >= 3, style
    assert contrast(style["outline"], style["box"]) >= 3, style


def test_the_page_takes_its_defaults_and_ranges_from_the_api(browser, server):
    """GET /api/limits is the page's only source: other limits there, other defaults and checks on the page."""
    limits = httpx.get(f"{server}/api/limits").json()
    assert limits["kind"] == "limits" and limits["defaults"]["SOLVE_EPSILON"]["value"] == SOLVE_EPSILON
    limits["defaults"]["SOLVE_EPSILON"]["value"] = 0.25
    limits["defaults"]["SOLVE_TIME_LIMIT"]["value"] = 30
    limits["ranges"]["seed"] = {**limits["ranges"]["seed"], "high": 999, "text": "an integer from 0 to 999"}
    limits["ranges"]["games"] = {**limits["ranges"]["games"], "high": 4, "text": "an integer from 1 to 4"}
    context = browser.new_context(viewport=DESKTOP)
    try:
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.route("**/api/limits", lambda route: route.fulfill(json=limits))
        pg.goto(server + "/")
        pg.wait_for_selector("body[data-ready=true]")
        assert (pg.input_value("#epsilon"), pg.input_value("#time-limit")) == ("0.25", "30")
        pg.fill("#seed", "1000")
        pg.click("#deal-seed")
        assert "seed must be an integer from 0 to 999, got 1000" in pg.inner_text("#seed-msg")
        seeds = [pg.evaluate("async () => (await import('/static/form.js')).randomSeed()") for _ in range(20)]
        assert all(0 <= x <= 999 for x in seeds) and len(set(seeds)) > 1
        pg.click("#tab-play")
        pg.fill("#play-games", "5")
        pg.click("#play-start")
        assert "games must be an integer from 1 to 4, got 5" in pg.inner_text("#play-games-msg")
    finally:
        context.close()


def test_equilibrium_seeded_play_category_colours_and_mix(page, server):
    pg = page
    bodies = solve_bodies(pg)
    # a deal that converges quickly: the mix, marginals and certificate
    pg.fill("#exposed-text", QUICK_DEALS[1])
    pg.press("#exposed-text", "Enter")
    pg.select_option("#opponent", "equilibrium")
    pg.fill("#epsilon", "0.05")
    ask(pg, "#solve", "#answer .certificate")
    body = bodies[-1]
    assert set(body) == {"exposed", "opponent", "epsilon", "time_limit", "seed"}  # no objective
    seed = body["seed"]
    assert 0 <= seed <= MAX_SEED and pg.inner_text("#answer-seed") == str(seed)
    want = api(server, "/api/solve", {"exposed": QUICK_DEALS[1], "epsilon": 0.05, "seed": seed})
    assert want["from_store"] is True
    assert page_packets(pg) == as_shown(want["arrangement"])  # the arrangement drawn with that seed
    rows = pg.eval_on_selector_all("#answer table.mix tr", "e => e.length") - 1
    assert rows == min(10, len(want["mix"]))
    assert pg.eval_on_selector_all("#answer table.mix tr >> nth=1 >> .mini-slot",
                                   "e => e.map(x => x.textContent)") == ["1", "2", "3", "4", "5"]
    assert f"{want['exploitability']:.4f}" in pg.inner_text("#answer .certificate")
    # the chart: every hand coloured by its category, one colour per category, a legend of them
    category = {hand: evaluate(" ".join(cards)).category.slug
                for m in want["mix"] for cards, hand in zip(m["arrangement"], m["hands"], strict=True)}
    segments = pg.eval_on_selector_all("#answer .marginal-bar span", "e => e.map(s => "
                                       "[s.dataset.hand, s.dataset.category, getComputedStyle(s).backgroundColor])")
    assert len(segments) == sum(len(slot) for slot in want["slot_marginals"])
    colour_of: dict[str, str] = {}
    for hand, cat, colour in segments:
        assert cat == category[hand], hand
        assert colour_of.setdefault(cat, colour) == colour
    assert len(set(colour_of.values())) == len(colour_of) >= 3  # distinct categories, distinct colours
    legend = pg.eval_on_selector_all("#answer .category-legend .legend-item", "e => e.map(x => x.dataset.category)")
    assert sorted(legend) == sorted(colour_of)
    # "Draw another": a fresh seed, shown, and the arrangement drawn with it
    ask(pg, "#draw-another", "#answer .certificate")
    assert bodies[-1]["seed"] != seed and pg.inner_text("#answer-seed") == str(bodies[-1]["seed"])
    want = api(server, "/api/solve", {"exposed": QUICK_DEALS[1], "epsilon": 0.05, "seed": bodies[-1]["seed"]})
    assert page_packets(pg) == as_shown(want["arrangement"])
    assert active(pg)["id"] == "answer-heading"


KMIX_DEAL = "Kc Qh Qd Js 9d 8s 7d"  # its equilibrium and 2-mix solve in seconds
SCREENSHOTS = Path("/tmp/quintet-kmix-screens")  # looked at by hand; not part of the checks


def plan_rows(pg) -> list[list[str]]:
    return pg.eval_on_selector_all("#answer table.plans tr.plan", "rows => rows.map(r => [...r.cells].map("
                                   "c => c.textContent))")


def test_k_mix_answer_and_an_equilibrium_s_plans_are_the_api_s(page, server):
    """K = 2 against the equilibrium: sent as max_support with the seed box's seed; the page shows
    the API's two arrangements as packets with their shares, the certified exploitability beside
    the full equilibrium's, 'best found' unless optimal, the die roll and its pick; K = 0 is the
    server's one-line refusal, K = x the form's.  Then the equilibrium itself: its plans table."""
    pg = page
    bodies = solve_bodies(pg)
    pg.fill("#exposed-text", KMIX_DEAL)
    pg.press("#exposed-text", "Enter")
    pg.select_option("#opponent", "equilibrium")
    pg.fill("#epsilon", "0.05")
    pg.fill("#max-support", "2")
    pg.fill("#seed", "4")
    SCREENSHOTS.mkdir(exist_ok=True)
    pg.locator("section[aria-labelledby=opp-title]").screenshot(path=str(SCREENSHOTS / "form-1280.png"))
    with pg.expect_response("**/api/solve"):
        pg.click("#solve")
    pg.wait_for_selector("#kmix-roll", timeout=300_000)
    body = bodies[-1]
    assert body == {"exposed": sorted_cards(KMIX_DEAL), "opponent": "equilibrium", "epsilon": 0.05,
                    "time_limit": 600, "max_support": 2, "seed": 4}
    want = solved(server, body)  # a K-mix is always a job: solved again, from the stored equilibrium
    assert len(want["mix"]) <= 2
    entries = pg.eval_on_selector_all("#answer .kmix-entry", "e => e.map(x => [x.querySelector('.kmix-p')"
                                      ".textContent, x.dataset.picked])")
    assert entries == [[f"{100 * m['probability']:.2f}%", "true" if i == want["roll"]["pick"] - 1 else "false"]
                       for i, m in enumerate(want["mix"])]
    for i, m in enumerate(want["mix"]):
        assert page_packets(pg, i) == m["arrangement"]
        hands = pg.eval_on_selector_all(f"#answer .kmix-entry >> nth={i} >> .hand", "e => e.map(x => x.textContent)")
        assert hands == m["hands"]
    assert pg.inner_text("#kmix-exploitability") == f"{want['exploitability']:.4f}"
    assert pg.inner_text("#kmix-equilibrium") == f"{want['equilibrium_exploitability']:.4f}"
    assert f"with {want['equilibrium_support']} arrangements" in pg.inner_text("#kmix-certificate")
    status = pg.inner_text("#kmix-status")
    assert status.startswith("Proven the least exploitable" if want["optimal"] else "Best found (not proven the best)")
    roll = want["roll"]
    assert roll["seed"] == 4
    assert pg.inner_text("#kmix-roll") == (f"Die roll (seed 4): {roll['value']:.4f} falls in [{roll['low']:.4f}, "
                                           f"{roll['high']:.4f}) → play arrangement {roll['pick']}")
    assert plan_rows(pg) == [[f"{100 * p['probability']:.1f}%", *p["hands"], str(p["arrangements"])]
                             for p in want["plans"][:8]]
    pg.locator("#answer").screenshot(path=str(SCREENSHOTS / "kmix-1280.png"))
    pg.set_viewport_size(PHONE)
    pg.locator("#answer").screenshot(path=str(SCREENSHOTS / "kmix-390.png"))
    pg.locator("section[aria-labelledby=opp-title]").screenshot(path=str(SCREENSHOTS / "form-390.png"))
    pg.set_viewport_size(DESKTOP)
    # K = 0 or x: refused in words as it is typed, against the server's range (GET /api/limits); nothing sent
    for typed in ("0", "x", "1001"):
        pg.fill("#max-support", typed)
        assert "Out of date: K changed" in pg.inner_text("#stale-note")
        message = f"K must be an integer from 1 to 1000, got {typed} (blank: the full equilibrium)"
        assert pg.inner_text("#max-support-msg") == f"{message}"
        n = len(bodies)
        pg.click("#solve")
        pg.wait_for_timeout(150)
        assert len(bodies) == n and active(pg)["id"] == "max-support" and pg.inner_text("#error") == message
    # blank K: the full equilibrium (from the store), its plans above its mix rows
    pg.fill("#max-support", "")
    ask(pg, "#solve", "#answer .certificate")
    body = bodies[-1]
    assert "max_support" not in body
    eq = api(server, "/api/solve", {"exposed": KMIX_DEAL, "epsilon": 0.05, "seed": body["seed"]})
    assert plan_rows(pg) == [[f"{100 * p['probability']:.1f}%", *p["hands"], str(p["arrangements"])]
                             for p in eq["plans"][:8]]
    heading = pg.inner_text("#answer .plans-box h4")
    assert heading.startswith(f"Plans: {len(eq['mix'])} arrangements in {len(eq['plans'])} plans")
    assert pg.evaluate("document.querySelector('#answer .plans-box').compareDocumentPosition("
                       "document.querySelector('#answer table.mix')) & Node.DOCUMENT_POSITION_FOLLOWING")
    pg.locator("#answer").screenshot(path=str(SCREENSHOTS / "equilibrium-plans-1280.png"))
    pg.set_viewport_size(PHONE)
    pg.locator("#answer .plans-box").screenshot(path=str(SCREENSHOTS / "equilibrium-plans-390.png"))


def test_chart_colours_every_category_with_a_legend(page, server):
    """Hand names of every classic category (the evaluator's own words) → one colour each."""
    pg = page
    hands = ["As Kd Qh Jc 9s", "7s 7d Kh Qc Js", "As Ad Kh Kc Js", "9s 9d 9h Kc Js", "Ts 9d 8h 7c Js",
             "As Ks Qs Js 9s", "As Ad Ah Kc Ks", "Qs Qd Qh Qc Ks", "Ts 9s 8s 7s Js", "Ks Kd Qh Qc 7s"]
    values = [evaluate(h) for h in hands]
    category = {v.description: v.category.slug for v in values}
    assert len(set(category.values())) == 9
    answer = solved(server, {"exposed": QUICK_DEALS[1], "epsilon": 0.05})
    marginals = [[{"hand": v.description, "category": v.category.slug, "probability": 1 / 2} for v in values[i:i + 2]]
                 for i in range(0, 10, 2)]
    pg.route("**/api/solve", lambda route: route.fulfill(json={**answer, "slot_marginals": marginals}))
    pick_exposed(pg, QUICK_DEALS[1])
    pg.select_option("#opponent", "equilibrium")
    ask(pg, "#solve", "#answer .marginal-bar")
    segments = pg.eval_on_selector_all("#answer .marginal-bar span", "e => e.map(s => "
                                       "[s.dataset.hand, s.dataset.category, getComputedStyle(s).backgroundColor])")
    assert [hand for hand, _, _ in segments] == [v.description for v in values]
    colour_of: dict[str, str] = {}
    for hand, cat, colour in segments:
        assert cat == category[hand], hand
        assert colour_of.setdefault(cat, colour) == colour
    assert len(set(colour_of.values())) == 9  # pairs, trips, quads and high cards no longer the same grey
    legend = pg.eval_on_selector_all("#answer .category-legend .legend-item", "e => e.map(x => "
                                     "[x.dataset.category, getComputedStyle(x.querySelector('.legend-dot'))"
                                     ".backgroundColor, x.textContent])")
    assert {c: colour for c, colour, _ in legend} == colour_of
    assert [text for _, _, text in legend] == [c.replace("_", " ") for c, _, _ in legend]  # named in words


def test_equilibrium_live_progress_and_cancel(page):
    pg = page
    pg.fill("#exposed-text", EXAMPLE)
    pg.select_option("#opponent", "equilibrium")
    pg.fill("#epsilon", "0.000000001")
    pg.click("#solve")
    pg.wait_for_function("!document.getElementById('progress').hidden && "
                         "document.getElementById('progress-text').textContent.includes('iteration')")
    pg.click("#cancel")
    pg.wait_for_function("document.querySelector('#answer .certificate') && "
                         "document.querySelector('#answer .certificate').textContent.includes('interrupted')")
    assert not pg.is_visible("#progress")


def test_progress_clock_ticks_between_events_and_has_the_box_to_itself(page):
    """The job's events are held back (routes): the clock must still run, every ~0.2 s."""
    pg = page
    job = {"job": "stub1", "status": "running", "request": {"exposed": EXAMPLE, "epsilon": 0.01}, "elapsed": 0.5,
           "progress": {"iteration": 3, "exploitability": 0.2, "support": 5, "pool_size": 100, "seconds": 0.4},
           "result": None, "error": None}
    held = []
    pg.route("**/api/solve", lambda route: route.fulfill(status=202, json=job))
    pg.route("**/api/jobs/stub1/events", lambda route: held.append(route))  # never answered
    pg.route("**/api/jobs/stub1", lambda route: route.fulfill(
        json={**job, "status": "cancelled", "elapsed": 3.0}) if route.request.method == "GET"
        else route.fulfill(json={**job, "status": "cancelling"}))
    pick_exposed(pg, EXAMPLE)
    pg.select_option("#opponent", "equilibrium")
    pg.click("#solve")
    pg.wait_for_function("document.getElementById('progress-text').textContent.includes('iteration 3')")
    # the progress box alone: no greyed hint or old answer under it
    assert pg.eval_on_selector_all("#answer > *", "e => e.filter(x => x.offsetParent !== null).length") == 0
    times = []
    for _ in range(8):
        text = pg.inner_text("#progress-text")
        times.append(float(re.search(r"([\d.]+) s$", text).group(1)))
        pg.wait_for_timeout(150)
    assert times == sorted(times) and len(set(times)) >= 5, times
    assert times[0] >= 0.5
    pg.click("#cancel")
    held[0].abort()  # the stream breaks: the page asks the job, now cancelled
    pg.wait_for_function("document.getElementById('progress').hidden")
    assert "Cancelled before any answer" in pg.inner_text("#answer")


# ---------------------------------------------------------------- the draw tab


def test_draw_advisor_tab(page, server):
    pg = page
    pg.click("#tab-draw")
    # rule sets in words: a deck, then its hand tables (GET /api/rules: 31 of them)
    rules = httpx.get(f"{server}/api/rules").json()
    decks = pg.eval_on_selector_all("#draw-deck option", "e => e.map(o => [o.textContent, o.dataset.rules])")
    assert len(decks) == len({tuple(r["deck"]) for r in rules}) == 6  # 32 36 36+joker 52 53 54
    assert sorted(n for _, names in decks for n in names.split()) == sorted(r["name"] for r in rules)
    assert [d for d, _ in decks] == ["32 cards (7 to ace)", "36 cards (6 to ace)",
                                     "36 cards: 35 and a joker for the six of spades", "52 cards (2 to ace)",
                                     "53 cards: 52 and a joker", "54 cards: 52 and two jokers"]
    for _, names in decks:
        choose_rules(pg, names.split()[0])
        tables = pg.eval_on_selector_all("#draw-rules option", "e => e.map(o => o.textContent)")
        assert len(tables) == len(names.split()) and len(set(tables)) == len(tables), tables
        assert not any(re.search(r"draw\d|-11|-swap", t) for t in tables), tables
    choose_rules(pg, "draw36-joker-11")
    help_text = pg.inner_text("#draw-rules-help")
    assert "36 cards, sixes to aces, one joker (in place of the six of spades)" in help_text
    assert "five of a kind > four of a kind > straight flush > straight colour" in help_text
    choose_rules(pg, "draw52")
    for card in ("Ah", "Kh", "9h", "5h", "2c"):
        pg.click(f'#draw-grid [data-card="{card}"]')
    pg.select_option("#draw-objective", "at-least")
    pg.select_option("#draw-target", "flush")
    with pg.expect_response("**/api/draw"):
        pg.click("#draw-advise")
    pg.wait_for_selector("#draw-answer table")
    want = api(server, "/api/draw", {"hand": "Ah Kh 9h 5h 2c", "rules": {"name": "draw52"},
                                     "objective": "at-least:flush"})
    rows = pg.eval_on_selector_all("#draw-answer table tr", "rows => rows.slice(1).map(r => "
                                   "[...r.querySelectorAll('.card')].map(c => c.dataset.card))")
    assert rows == [o["keep"] for o in want["options"]]
    first = pg.eval_on_selector_all("#draw-answer table tr:nth-child(2) td.measure", "e => e[0].textContent")
    assert first == f"{100 * want['options'][0]['p_at_least']:.2f}%"
    # recommended lines in words
    lines = pg.eval_on_selector_all("#draw-answer .recommended li b", "e => e.map(x => x.textContent)")
    assert lines == ["highest mean percentile: ", "best chance to beat one random hand: ", "at least a flush: "]
    answer = pg.inner_text("#draw-answer")
    assert "expected:" not in answer and "at-least:" not in answer
    assert pg.evaluate("document.activeElement.closest('#draw-answer') !== null")
    # the answer says its hand, and goes stale when the question changes
    shown = pg.eval_on_selector_all("#draw-answer-for .card-text", "e => e.map(x => x.dataset.card)")
    assert shown == want["hand"] and "52 cards" in pg.inner_text("#draw-answer-for")
    assert pg.get_attribute("#draw-answer", "data-stale") == "false"
    pg.click('#draw-grid [data-card="2c"]')
    assert pg.get_attribute("#draw-answer", "data-stale") == "true" and pg.is_visible("#draw-stale-note")
    pg.click('#draw-grid [data-card="2c"]')
    assert pg.get_attribute("#draw-answer", "data-stale") == "false"
    pg.select_option("#draw-target", "straight")
    assert pg.get_attribute("#draw-answer", "data-stale") == "true"


def test_draw_tab_asks_the_heads_up_strategy(page, server, tmp_path):
    pg = page
    pg.click("#tab-draw")
    choose_rules(pg, "draw36-joker-11")
    pg.fill("#draw-hand", "8s 8c Ks Qh 9d")
    pg.dispatch_event("#draw-hand", "change")
    pg.select_option("#draw-player", "second")
    pg.fill("#draw-moves", "call, call; raise 3")
    with pg.expect_response("**/api/draw/strategy"):
        pg.click("#draw-strategy")
    pg.wait_for_selector("#draw-strategy-answer table")
    want = api(server, "/api/draw/strategy", {"hand": "8s 8c Ks Qh 9d", "rules": {"name": "draw36-joker-11"},
                                              "player": "second", "actions": ["call", "call", "raise 3"]})
    rows = pg.eval_on_selector_all("#draw-strategy-answer table tr", "rows => rows.slice(1).map(r => "
                                   "r.querySelector('td').textContent)")
    ranked = sorted(want["actions"], key=lambda a: -a["probability"])
    assert rows == [a["action"] for a in ranked]
    text = pg.inner_text("#draw-strategy-answer")
    assert f"Why: {want['why']}" in text and "every later turn" in text and "You are the dealer" in text
    assert want["class_name"] in text and want["strategy"]["summary"] in text
    assert pg.evaluate("document.activeElement.closest('#draw-strategy-answer') !== null")
    pg.screenshot(path=str(tmp_path / "draw-strategy.png"), full_page=True)
    # a move the rules do not allow: the error names it, the page stays
    pg.fill("#draw-moves", "raise 9")
    with pg.expect_response("**/api/draw/strategy"):
        pg.click("#draw-strategy")
    pg.wait_for_selector("#draw-strategy-error:not([hidden])")
    assert "action 1 (raise 9) is not allowed there" in pg.inner_text("#draw-strategy-error")


def test_draw_joker_is_an_svg_card_typed_or_clicked(any_page):
    """Issue 19: a typed Jk (draw54) lit no joker and could not be clicked off; the joker was an emoji."""
    pg = any_page
    pg.click("#tab-draw")
    choose_rules(pg, "draw54")
    pg.fill("#draw-hand", "As Ah Ad Ac Jk")
    assert pg.get_attribute('#draw-grid [data-card="Jk1"]', "aria-pressed") == "true"
    assert pg.inner_text("#draw-count") == "5 of 5" and not pg.is_visible("#draw-hand-msg")
    joker = pg.eval_on_selector('#draw-grid [data-card="Jk1"]', "b => ({svg: !!b.querySelector('svg polygon'), "
                                "text: b.textContent, w: b.getBoundingClientRect().width})")
    assert joker["svg"] and joker["text"] == "JOKER1"
    assert joker["w"] >= (36 if pg.viewport_size["width"] < 500 else 30)  # tappable on a phone
    pg.click('#draw-grid [data-card="Jk1"]')  # clicked off
    assert pg.get_attribute('#draw-grid [data-card="Jk1"]', "aria-pressed") == "false"
    assert pg.input_value("#draw-hand") == "As Ah Ad Ac"
    pg.fill("#draw-hand", "Jk Jk As")  # two bare jokers: both of the deck's
    pressed = pg.eval_on_selector_all('#draw-grid [aria-pressed="true"]', "e => e.map(x => x.dataset.card)")
    assert sorted(pressed) == ["As", "Jk1", "Jk2"]
    pg.fill("#draw-hand", "Jk Jk Jk")
    assert "taken already" in pg.inner_text("#draw-hand-msg")
    # no suit or joker drawn from a font: every card is an SVG, with no suit/joker glyph in its text
    faces = pg.eval_on_selector_all("#draw-grid .card", "e => e.map(c => [c.dataset.card, "
                                    "!!c.querySelector('svg .pip'), c.textContent])")
    assert len(faces) == 54
    for code, svg, text in faces:
        assert svg and not SUIT_GLYPHS.search(text), (code, text)
    # the deck of the rule set decides: 2c is not in the 32-card deck
    choose_rules(pg, "draw32")
    pg.fill("#draw-hand", "As 2c")
    assert "not in the 32-card deck" in pg.inner_text("#draw-hand-msg")


# ---------------------------------------------------------------- a phone


def test_phone_width_readable_and_tappable(phone, server):
    pg = phone
    with pg.expect_response(re.compile(r"/api/deal\?seed=\d+$")) as response:
        pg.click("#random-deal")
    seed = int(response.value.url.rsplit("=", 1)[1])
    pg.wait_for_function("document.getElementById('exposed-count').textContent === '7 of 7'")
    deal = httpx.get(f"{server}/api/deal?seed={seed}").json()
    picked = pg.eval_on_selector_all('#exposed-grid [aria-pressed="true"]', "e => e.map(x => x.dataset.card)")
    assert sorted(picked) == sorted(deal["exposed"])
    pg.select_option("#opponent", "greedy")
    ask(pg)
    want = api(server, "/api/solve", {"exposed": " ".join(deal["exposed"]), "opponent": "greedy"})
    assert page_packets(pg) == as_shown(want["arrangement"])
    # readable at 390 px: nothing wider than the screen, every card of the answer inside it
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    rights = pg.eval_on_selector_all("#answer .packets .card", "e => e.map(x => x.getBoundingClientRect().right)")
    assert len(rights) == 25 and max(rights) <= 390
    widths = pg.eval_on_selector_all("#exposed-grid .card, #pool .card", "e => e.map(x => x.offsetWidth)")
    assert min(widths) >= 36
    # the mix: every packet with its slot label, on one line, on the screen
    pg.fill("#exposed-text", QUICK_DEALS[1])
    pg.select_option("#opponent", "equilibrium")
    pg.fill("#epsilon", "0.05")
    ask(pg, "#solve", "#answer .certificate")
    groups = pg.eval_on_selector_all("#answer table.mix .mini-packet", """e => e.map(g => {
        const r = g.getBoundingClientRect();
        return [g.querySelector('.mini-slot').textContent, r.right, r.height];
    })""")
    assert groups and [g[0] for g in groups[:5]] == ["1", "2", "3", "4", "5"]
    assert max(g[1] for g in groups) <= 390 and max(g[2] for g in groups) < 40
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    # the draw tab: 52 cards, each at least 36 px wide, all on the screen; arrow keys follow the wrapped rows
    pg.click("#tab-draw")
    choose_rules(pg, "draw52")
    boxes = pg.eval_on_selector_all("#draw-grid .card", "e => e.map(x => { const r = x.getBoundingClientRect(); "
                                    "return [x.dataset.card, r.left, r.top, r.width, r.right]; })")
    assert len(boxes) == 52 and min(b[3] for b in boxes) >= 36 and max(b[4] for b in boxes) <= 390
    pg.focus('#draw-grid [tabindex="0"]')
    pg.keyboard.press("ArrowDown")
    below = pg.evaluate("document.activeElement.getBoundingClientRect().top")
    first = boxes[0]
    assert below > first[2] and pg.evaluate("document.activeElement.getBoundingClientRect().left") == first[1]
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
