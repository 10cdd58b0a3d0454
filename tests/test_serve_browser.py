"""The page in a real browser: Debian's chromium driven by Playwright, against a live
``quintet-serve`` (a subprocess on a free loopback port).

Skipped, with the reason in pytest's summary, only when no browser is installed
(``/usr/bin/chromium``; ``.ci/run`` installs it) or Playwright's package is missing.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from serve_helpers import ARR_A, EXAMPLE, QUICK_DEALS, live_server, wait_for_workers

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

playwright_api = pytest.importorskip("playwright.sync_api", reason="the Playwright package is not installed")
if not Path(CHROMIUM).exists():
    pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium chromium-driver)",
                allow_module_level=True)

TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("browser") / "solutions.sqlite"
    with live_server("--workers", "1", "--store", str(store)) as (url, _):  # one worker: a quicker start
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        yield url


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready=true]")
    yield pg
    context.close()
    assert errors == [], errors


def api(server: str, path: str, body: dict) -> dict:
    response = httpx.post(f"{server}{path}", json=body, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def pick_exposed(pg, cards: str) -> None:
    for card in cards.split():
        pg.click(f'#exposed-grid [data-card="{card}"]')


def page_packets(pg) -> list[list[str]]:
    """The five packets of the first answer on the page, read off the drawn cards."""
    return [pg.eval_on_selector_all(f'#answer .packets >> nth=0 >> .packet[data-slot="{s}"] .card',
                                    "cards => cards.map(c => c.dataset.card)") for s in range(1, 6)]


def signed(x: float) -> str:
    return f"{x:+.4f}".replace("-", "−") if abs(x) >= 5e-5 else f"{abs(x):.4f}"


def test_uniform_advice_and_grading_my_arrangement(page, server):
    pg = page
    pick_exposed(pg, EXAMPLE)
    assert pg.inner_text("#exposed-count") == "7 of 7"
    pg.select_option("#opponent", "uniform")
    pg.click("#solve")
    pg.wait_for_selector("#answer .packet")
    want = api(server, "/api/solve", {"exposed": EXAMPLE, "opponent": "uniform"})
    assert page_packets(pg) == want["arrangement"]
    assert pg.eval_on_selector_all("#answer .hand", "e => e.map(x => x.textContent)") == want["hands"]
    assert pg.inner_text("#answer .total-margin") == signed(want["expected_margin"])
    wins = pg.eval_on_selector_all("#answer .p-win", "e => e.map(x => x.textContent)")
    assert wins == [f"W {100 * s['p_win']:.1f}%" for s in want["per_slot"]]

    # build ARR_A by clicking cards into the slots; undo once on the way
    packets = [p.split() for p in ARR_A.split("|")]
    pg.click(f'#pool [data-card="{packets[0][0]}"]')
    pg.click("#undo")
    assert pg.eval_on_selector_all('#mine-slots [data-slot="1"] .placed', "e => e.length") == 0
    for packet in packets:
        for card in packet:
            pg.click(f'#pool [data-card="{card}"]')
    for s, packet in enumerate(packets, start=1):
        shown = pg.eval_on_selector_all(f'#mine-slots [data-slot="{s}"] .placed', "e => e.map(x => x.dataset.card)")
        assert shown == packet
    assert pg.is_disabled("#complete") and not pg.is_disabled("#grade")
    pg.click("#grade")
    pg.wait_for_selector("#grade-regret")
    grade = api(server, "/api/solve", {"exposed": EXAMPLE, "opponent": "uniform", "grade": ARR_A})
    assert pg.inner_text("#grade-value") == signed(grade["value"])
    assert pg.inner_text("#grade-optimum") == signed(grade["optimum"])
    assert pg.inner_text("#grade-regret") == f"{grade['regret']:.4f}"
    swap = grade["best_swap"]
    assert f"{swap['card_a']} (slot {swap['slot_a']}) ↔ {swap['card_b']} (slot {swap['slot_b']})" in \
        pg.inner_text("#grade-swap")
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
    pg.click("#complete")
    pg.wait_for_selector("#answer .slot-label .yours")
    want = api(server, "/api/solve", {"exposed": EXAMPLE, "opponent": "uniform", "fix": {"5": packets[4]}})
    assert page_packets(pg) == want["arrangement"]
    assert want["arrangement"][4] == packets[4]


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
    pg.focus("#tab-advisor")
    pg.keyboard.press("ArrowRight")
    assert pg.is_visible("#panel-draw") and not pg.is_visible("#panel-advisor")


def test_phone_width_random_deal(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready=true]")
    pg.fill("#seed", "5")
    pg.click("#random-deal")
    pg.wait_for_function("document.getElementById('exposed-count').textContent === '7 of 7'")
    deal = httpx.get(f"{server}/api/deal?seed=5").json()
    picked = pg.eval_on_selector_all('#exposed-grid [aria-pressed="true"]', "e => e.map(x => x.dataset.card)")
    assert sorted(picked) == sorted(deal["exposed"])
    pg.select_option("#opponent", "greedy")
    pg.click("#solve")
    pg.wait_for_selector("#answer .packet")
    want = api(server, "/api/solve", {"exposed": " ".join(deal["exposed"]), "opponent": "greedy"})
    assert page_packets(pg) == want["arrangement"]
    # readable at 390 px: nothing wider than the screen, every card of the answer inside it
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    rights = pg.eval_on_selector_all("#answer .card", "e => e.map(x => x.getBoundingClientRect().right)")
    assert len(rights) == 25 and max(rights) <= 390
    context.close()


def test_equilibrium_live_progress_cancel_and_answer(page, server):
    pg = page
    # a deal that converges quickly: progress, then the mix, marginals and certificate
    pg.fill("#exposed-text", QUICK_DEALS[1])
    pg.press("#exposed-text", "Enter")
    pg.select_option("#opponent", "equilibrium")
    pg.fill("#epsilon", "0.05")
    pg.click("#solve")
    pg.wait_for_selector("#answer .certificate")
    want = api(server, "/api/solve", {"exposed": QUICK_DEALS[1], "epsilon": 0.05})  # from the store now
    assert want["from_store"] is True
    rows = pg.eval_on_selector_all("#answer table.mix tr", "e => e.length") - 1
    assert rows == min(10, len(want["mix"]))
    assert page_packets(pg) == want["arrangement"]
    assert pg.eval_on_selector_all("#answer .marginal-row", "e => e.length") == 5
    assert f"{want['exploitability']:.4f}" in pg.inner_text("#answer .certificate")
    # a hard one: live progress, then cancel keeps the best certified mix so far
    pg.fill("#exposed-text", EXAMPLE)
    pg.press("#exposed-text", "Enter")
    pg.fill("#epsilon", "0.000000001")
    pg.click("#solve")
    pg.wait_for_function("!document.getElementById('progress').hidden && "
                         "document.getElementById('progress-text').textContent.includes('iteration')")
    pg.click("#cancel")
    pg.wait_for_function("document.querySelector('#answer .certificate').textContent.includes('interrupted')")
    assert not pg.is_visible("#progress")


def test_draw_advisor_tab(page, server):
    pg = page
    pg.click("#tab-draw")
    pg.select_option("#draw-rules", "draw52")
    for card in ("Ah", "Kh", "9h", "5h", "2c"):
        pg.click(f'#draw-grid [data-card="{card}"]')
    pg.select_option("#draw-objective", "at-least")
    pg.select_option("#draw-target", "flush")
    pg.click("#draw-advise")
    pg.wait_for_selector("#draw-answer table")
    want = api(server, "/api/draw", {"hand": "Ah Kh 9h 5h 2c", "rules": {"name": "draw52"},
                                     "objective": "at-least:flush"})
    rows = pg.eval_on_selector_all("#draw-answer table tr", "rows => rows.slice(1).map(r => "
                                   "[...r.querySelectorAll('.card')].map(c => c.dataset.card))")
    assert rows == [o["keep"] for o in want["options"]]
    first = pg.eval_on_selector_all("#draw-answer table tr:nth-child(2) td.measure", "e => e[0].textContent")
    assert first == f"{100 * want['options'][0]['p_at_least']:.2f}%"

