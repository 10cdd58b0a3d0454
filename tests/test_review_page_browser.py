"""The page as a trainer (issue 42), in a real browser (Debian's chromium through Playwright)
against a live ``quintet-serve``, at 1280 and 390 px: tabs and reviewed games have addresses; a
finished page game is reviewed in one click; the games table's Review buttons are on screen;
the review says where the expected points went (your per-slot margins beside the best's, the
slot where the regret was made, the luck); the rules and the hand ranking one click away; each
packet named as it is built; the Draw tab opens on a deck with a shipped heads-up strategy.

Screenshots go to ``$QUINTET_SCREENSHOTS`` (default: the test's temporary directory)."""

from __future__ import annotations

import base64
import json
import os
import time
from pathlib import Path

import httpx
import pytest
from browser_helpers import DESKTOP, PHONE, checked_page, open_page
from serve_helpers import EXAMPLE, one_worker_server, secret_of
from test_review import played

from solver.storage.records import append_record

pytestmark = [pytest.mark.browser, pytest.mark.server]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with one_worker_server(tmp_path_factory.mktemp("review-page") / "solutions.sqlite") as url:
        yield url


@pytest.fixture(params=[DESKTOP, PHONE], ids=["1280px", "390px"])
def viewport(request):
    return request.param


@pytest.fixture()
def page(browser, server, viewport):
    with checked_page(browser, server, viewport) as pg:
        yield pg


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("QUINTET_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def selected_tab(pg) -> str:
    return pg.eval_on_selector('[role="tab"][aria-selected="true"]', "t => t.id")


def reviewed(server: str, record: dict) -> dict:
    """The API's review of ``record`` (following the job when it is one)."""
    response = httpx.post(f"{server}/api/review", json={"record": record}, timeout=120)
    assert response.status_code in (200, 202), response.text
    job = created = response.json()
    if response.status_code == 200:
        return job
    while job["status"] not in ("done", "failed", "cancelled"):
        time.sleep(0.3)
        job = httpx.get(f"{server}/api/jobs/{job['job']}", headers=secret_of(created)).json()
    assert job["status"] == "done", job
    return job["result"]


def signed(x: float) -> str:
    """The page's signed number (format.js ``signed``, 2 digits): +1.25, −0.50, 0.00."""
    text = f"{abs(x):.2f}"
    return text if float(text) == 0 else f"{'+' if x > 0 else '−'}{text}"


# ---------------------------------------------------------------- addresses


def test_each_tab_has_an_address_and_a_reload_stays_there(page, server):
    pg = page
    for name, tab in (("play", "tab-play"), ("review", "tab-review"), ("draw", "tab-draw"), ("advise", "tab-advisor")):
        pg.goto(f"{server}/#{name}")
        pg.reload()
        pg.wait_for_selector("body[data-ready=true]")
        assert selected_tab(pg) == tab, name
        assert pg.is_visible(f"#{pg.get_attribute(f'#{tab}', 'aria-controls')}")
    pg.click("#tab-draw")
    assert pg.evaluate("location.hash") == "#draw"
    pg.reload()
    pg.wait_for_selector("body[data-ready=true]")
    assert selected_tab(pg) == "tab-draw"
    pg.click("#tab-review")
    assert pg.evaluate("location.hash") == "#review"


def test_a_finished_page_game_is_reviewed_in_one_click_at_its_own_address(page, browser, server, viewport, shots):
    """The Play tab's finished game: one click opens its review in the Review tab; the review says
    your per-slot expected margins beside the best's, where the regret was made, and the luck;
    its address reopens it in a new page."""
    pg = page
    pg.click("#tab-play")
    pg.select_option("#play-opponent", "greedy")
    pg.fill("#play-games", "1")
    pg.fill("#play-seed", "4242")
    pg.click("#play-start")
    pg.wait_for_selector("#panel-play[data-status='placing'][data-game='1']")
    pg.fill("#play-text", "")  # the exposed cards where they fall: the packets in deck order
    pool = pg.eval_on_selector_all("#play-pool [data-card]", "e => e.map(c => c.dataset.card)")
    packets = [pool[k:k + 5] for k in range(0, 25, 5)]
    pg.fill("#play-text", " | ".join(" ".join(p) for p in packets))
    pg.dispatch_event("#play-text", "change")
    pg.click("#play-confirm")
    pg.wait_for_selector("#panel-play[data-revealed='5']")
    row = "#play-match tr[data-game='1']"
    pg.wait_for_selector(f"{row} .review-game")
    seat = pg.evaluate("location.hash")
    with pg.expect_response("**/api/review"):
        pg.click(f"{row} .review-game")
    pg.wait_for_selector("#review-heading", timeout=120_000)
    assert selected_tab(pg) == "tab-review"
    assert pg.evaluate("document.activeElement.id") == "review-heading"  # the focus follows the review
    address = pg.evaluate("location.hash")
    assert address.startswith("#review/")
    table, token = seat.split("/")[1], seat.split("/")[3]
    record = json.loads(httpx.get(f"{server}/api/tables/{table}/records",
                                  headers={"Authorization": f"Bearer {token}"}).text.splitlines()[-1])
    want = reviewed(server, record)
    assert pg.inner_text("#review-heading").startswith(f"Game 1 (seed {want['seed']}) against greedy")
    # where the expected points went: per slot, yours beside the best's
    model = want["model"]
    rows = pg.eval_on_selector_all("#review .regret[data-against=model] .regret-slots tr[data-slot]",
                                   "e => e.map(r => [...r.cells].slice(0, 4).map(c => c.textContent))")
    assert rows == [[str(s["slot"]), signed(s["yours"]), signed(s["best"]), signed(s["lost"])] for s in model["slots"]]
    marked = pg.eval_on_selector_all("#review .regret[data-against=model] .regret-slots tr.worst",
                                     "e => e.map(r => Number(r.dataset.slot))")
    assert marked == ([] if model["worst_slot"] is None else [model["worst_slot"]])
    assert model["worst_slot"] is not None  # cards in deck order leave points behind
    assert pg.eval_on_selector_all("#review .review-slot.regret-made", "e => e.map(x => Number(x.dataset.slot))") \
        == [model["worst_slot"]]
    luck = pg.inner_text("#review .regret[data-against=model] .luck-line")
    assert luck == (f"Skill and luck apart: the result {signed(model['result'])} = your expected margin "
                    f"{signed(model['expected'])} + luck {signed(model['luck'])}.")
    assert model["result"] == want["points"]["player"] - want["points"]["computer"]
    pg.locator("#review").screenshot(path=str(shots / f"review-luck-{viewport['width']}.png"))
    assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    # the game is kept in the games list, and its address reopens the review elsewhere
    assert pg.eval_on_selector_all("#games tr[data-index]", "e => e.length") == 1
    context, other, errors = open_page(browser, server, viewport)
    with other.expect_response("**/api/review"):
        other.goto(f"{server}/{address}")
    other.wait_for_selector("#review-heading", timeout=120_000)
    assert selected_tab(other) == "tab-review"
    assert other.inner_text("#review-heading") == pg.inner_text("#review-heading")
    assert other.evaluate("location.hash") == address
    other.goto(f"{server}/#review/bm90IGEgcmVjb3Jk")  # base64 of "not a record"
    other.reload()
    other.wait_for_selector("#review-error:not([hidden])")
    assert other.inner_text("#review-error").startswith("This review's link could not be read: ")
    context.close()
    assert errors == []
    # back to the Play tab: its seat's address again
    pg.click("#tab-play")
    assert pg.evaluate("location.hash") == seat


# ---------------------------------------------------------------- the games table


@pytest.fixture(scope="module")
def records_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    for k in range(6):  # the longest opponent's name among them: 'equilibrium'
        r = played("greedy" if k % 2 else "uniform", seed=300 + k)
        append_record(path, type(r)(**{**r.__dict__, "time": f"2026-12-02T1{k}:00:00Z",
                                       "opponent": "equilibrium" if k % 3 == 0 else r.opponent}))
    return path


def test_the_review_buttons_and_the_regret_are_on_screen(page, records_file, viewport):
    pg = page
    pg.click("#tab-review")
    pg.set_input_files("#records-file", str(records_file))
    pg.wait_for_selector("#games tr[data-index]")
    box = pg.eval_on_selector(".games-wrap", "w => { const r = w.getBoundingClientRect(); "
                              "return {left: r.left, right: r.right, scroll: w.scrollWidth, client: w.clientWidth}; }")
    assert box["scroll"] <= box["client"], box  # nothing past the right edge
    cells = pg.eval_on_selector_all("#games button, #games th", "e => e.filter(b => b.offsetWidth).map(b => { "
                                    "const r = b.getBoundingClientRect(); return [b.textContent, r.left, r.right, "
                                    "b.scrollWidth <= b.clientWidth + 1]; })")
    assert len([c for c in cells if c[0] == "Review"]) == 6
    for text, left, right, whole in cells:
        assert box["left"] - 0.5 <= left and right <= box["right"] + 0.5 and whole, (text, left, right, box)
    assert "regret" in [c[0] for c in cells]
    assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


# ---------------------------------------------------------------- the page teaches


def test_the_rules_and_the_hand_ranking_are_one_click_away(page, server, viewport, shots):
    """The ranking is the rule set's own (GET /api/rules): in classic Quintet a flush ranks below a
    full house."""
    pg = page
    classic = httpx.get(f"{server}/api/rules?rules=classic").json()[0]
    pg.click("#rules-open")
    pg.wait_for_selector("#rules-dialog[open] #hand-ranking li")
    ranking = pg.eval_on_selector_all("#hand-ranking li", "e => e.map(x => x.textContent)")
    assert ranking == classic["categories"][::-1]
    assert ranking.index("full house") < ranking.index("flush")  # strongest first
    text = pg.inner_text("#rules-dialog")
    assert "7 of the 32 cards are dealt face up" in text and "worth 3, 4, 5, 6 and 7 points" in text
    box = pg.eval_on_selector("#rules-dialog", "d => [d.getBoundingClientRect().left, d.getBoundingClientRect().right]")
    assert 0 <= box[0] and box[1] <= viewport["width"]
    pg.locator("#rules-dialog").screenshot(path=str(shots / f"rules-{viewport['width']}.png"))
    pg.select_option("#rules-set", "draw54")
    assert pg.eval_on_selector_all("#hand-ranking li", "e => e.map(x => x.textContent)")[0] == "five of a kind"
    pg.keyboard.press("Escape")
    assert not pg.is_visible("#rules-dialog")
    assert pg.evaluate("document.activeElement.id") == "rules-open"


def test_each_packet_is_named_as_it_is_built(page, server, viewport):
    pg = page
    pg.fill("#exposed-text", EXAMPLE)
    pg.dispatch_event("#exposed-text", "change")
    pg.fill("#mine-text", "Ah Ad Ac As Kh | Ks Kd")
    pg.dispatch_event("#mine-text", "change")
    want = httpx.post(f"{server}/api/hand", json={"hand": "Ah Ad Ac As Kh"}).json()["description"]
    pg.wait_for_function("document.querySelector('#mine-slots [data-slot=\"1\"] .slot-hand')?.textContent !== ''")
    assert pg.inner_text('#mine-slots [data-slot="1"] .slot-hand') == want == "four aces"
    assert not pg.query_selector('#mine-slots [data-slot="2"] .slot-hand')  # two cards: no hand yet
    for card in ("Qs", "Qd", "Jd"):
        pg.click(f'#pool [data-card="{card}"]')
    pg.wait_for_function("document.querySelector('#mine-slots [data-slot=\"2\"] .slot-hand')?.textContent !== ''")
    assert pg.inner_text('#mine-slots [data-slot="2"] .slot-hand') == "two pair, kings and queens"
    assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def test_the_draw_tab_opens_on_a_deck_with_a_shipped_strategy(page, server):
    pg = page
    shipped = [r["name"] for r in httpx.get(f"{server}/api/rules").json() if r["heads_up"]]
    pg.click("#tab-draw")
    assert pg.input_value("#draw-rules") == shipped[0]
    assert pg.inner_text("#draw-strategy-note") == f"A strategy ships for these rules ({shipped[0]})."
    pg.fill("#draw-hand", "Ah Kh Qh Jh 9c")
    pg.dispatch_event("#draw-hand", "change")
    with pg.expect_response("**/api/draw/strategy") as response:
        pg.click("#draw-strategy")
    assert response.value.status == 200
    pg.wait_for_selector("#draw-strategy-answer table")
    # another deck: the page says which has a strategy, before and after asking
    deck52 = pg.eval_on_selector("#draw-deck", "s => [...s.options].find(o => o.dataset.rules.split(' ')"
                                 ".includes('draw52')).value")
    pg.select_option("#draw-deck", deck52)
    pg.select_option("#draw-rules", "draw52")
    assert pg.inner_text("#draw-strategy-note").startswith(f"No heads-up strategy ships for draw52: one does for "
                                                           f"{shipped[0]} (36 cards")
    with pg.expect_response("**/api/draw/strategy"):
        pg.click("#draw-strategy")
    pg.wait_for_selector("#draw-strategy-error:not([hidden])")
    assert f"shipped for the default terms: {shipped[0]}" in pg.inner_text("#draw-strategy-error")


# ---------------------------------------------------------------- cosmetic


def test_the_hands_menu_shows_each_label_whole(page, viewport):
    """Every hand table's label fits its menu (a select cannot wrap: a label wider than the box is cut)."""
    pg = page
    pg.click("#tab-draw")
    cut = pg.evaluate("""() => {
        const out = [];
        const deck = document.getElementById('draw-deck'), menu = document.getElementById('draw-rules');
        const ctx = document.createElement('canvas').getContext('2d');
        for (const d of [...deck.options]) {
            deck.value = d.value;
            deck.dispatchEvent(new Event('change'));
            const s = getComputedStyle(menu);
            ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
            const room = menu.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 20;
            for (const o of [...menu.options]) {
                const w = ctx.measureText(o.textContent).width;
                if (w > room) out.push([o.textContent, Math.round(w), Math.round(room)]);
            }
        }
        return out;
    }""")
    assert cut == [], cut
    assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def test_the_progress_chart_is_no_empty_box(page):
    """Before an equilibrium's second iteration (and through a K-mix's certifications) there is no
    line to draw: no chart box either."""
    pg = page
    pg.fill("#exposed-text", EXAMPLE)
    pg.dispatch_event("#exposed-text", "change")
    pg.fill("#epsilon", "0.000000001")
    pg.click("#solve")
    pg.wait_for_selector("#progress:not([hidden])")
    assert not pg.is_visible("#progress-chart")
    pg.wait_for_function("document.getElementById('progress-text').textContent.includes('iteration')")
    pg.wait_for_selector("#progress-chart polyline")
    assert pg.is_visible("#progress-chart")
    pg.click("#cancel")
    pg.wait_for_selector("#answer .certificate")


def test_graded_packets_read_as_the_terminal_shows_them(page, server):
    """A graded arrangement's packets in the terminal's order (the largest rank group first,
    quintet.cards order 'group'), not the order typed nor the API's rank order."""
    pg = page
    mine = "8s As 8c Ah Ad | Ks Js Kd Kc Tc | Qd Jd Td 8d 7d | 9s Qs 9c Ac 7c | Kh Qh Jh Th 9h"
    pg.fill("#exposed-text", EXAMPLE)
    pg.dispatch_event("#exposed-text", "change")
    pg.fill("#mine-text", mine)
    pg.dispatch_event("#mine-text", "change")
    with pg.expect_response("**/api/solve"):
        pg.click("#grade")
    pg.wait_for_selector("#answer .packets")
    shown = pg.eval_on_selector("#answer .packets", "p => [...p.querySelectorAll('.packet')].map("
                                "s => [...s.querySelectorAll('.packet-cards [data-card]')].map(c => c.dataset.card))")
    assert shown[0] == ["As", "Ah", "Ad", "8s", "8c"] and shown[3] == ["9s", "9c", "Ac", "Qs", "7c"]
    assert shown[1] == ["Ks", "Kd", "Kc", "Js", "Tc"] and shown[4] == ["Kh", "Qh", "Jh", "Th", "9h"]


def test_the_review_lists_the_best_plans_beside_yours(page, server, records_file, viewport, shots):
    """Item 8: your plan (hand category per slot) beside the best arrangements of the three best
    plans, each with its expected margin and what it gives up against the best — the API's numbers."""
    pg = page
    pg.click("#tab-review")
    pg.set_input_files("#records-file", str(records_file))
    pg.wait_for_selector("#games tr[data-index='1']")
    with pg.expect_response("**/api/review"):
        pg.click("#games tr[data-index='1'] .review-game")  # a game against greedy
    pg.wait_for_selector("#review .regret[data-against=model] .review-plans", timeout=120_000)
    record = json.loads(base64.urlsafe_b64decode(pg.evaluate("location.hash").removeprefix("#review/") + "=="))
    grade = reviewed(server, record)["model"]["grade"]
    rows = pg.eval_on_selector_all("#review .regret[data-against=model] .review-plans tr[data-plan]",
                                   "e => e.map(r => [r.dataset.plan, [...r.querySelectorAll('.plan-slot')].map("
                                   "c => c.dataset.category), r.cells[2].textContent, r.cells[3].textContent])")
    best = grade["best"]
    listed = [("yours", grade["given"]), ("1", best), *((str(a["rank"]), a) for a in best["alternatives"])]
    assert len(best["alternatives"]) == 2
    assert rows == [[key, sol["categories"], signed(sol["expected_margin"]),
                     "" if key == "1" else signed(sol["expected_margin"] - best["expected_margin"])]
                    for key, sol in listed]
    plans = [tuple(sol["categories"]) for _, sol in listed[1:]]
    assert len(set(plans)) == 3  # three different plans, best first
    margins = [sol["expected_margin"] for _, sol in listed[1:]]
    assert margins == sorted(margins, reverse=True)
    pg.locator("#review .regret[data-against=model] .review-plans").screenshot(
        path=str(shots / f"review-plans-{viewport['width']}.png"))
    assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
