"""The page's Review tab and the Arrangement tab's link, in a real browser (Debian's chromium
through Playwright) against a live ``quintet-serve``: a position reopened from its link asks the
same question and shows the same answer; a quick answer says where it is queued; a K-mix job
shows its certifications; a cancelled solve is not offered to play; the focus ring of a greyed
card; the Draw tab's defects of issue 31; the records loaded and kept, a game reviewed, the
statistics and a puzzle — each compared with the API's own answer.

Screenshots at 1280 and 390 px are written to ``$QUINTET_SCREENSHOTS`` (default: the test's
temporary directory) to be looked at."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import httpx
import pytest
from browser_helpers import DESKTOP, PHONE, checked_page, open_page
from serve_helpers import EXAMPLE, QUICK_DEALS, one_worker_server, secret_of
from test_review import played
from test_serve_browser import solved

from solver.storage.records import append_record

pytestmark = [pytest.mark.browser, pytest.mark.server]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with one_worker_server(tmp_path_factory.mktemp("review-browser") / "solutions.sqlite") as url:
        solved(url, {"exposed": QUICK_DEALS[0], "epsilon": 0.05})  # a solved deal: a puzzle
        yield url


@pytest.fixture(params=[DESKTOP, PHONE], ids=["1280px", "390px"])
def any_page(request, browser, server):
    with checked_page(browser, server, request.param) as pg:
        yield pg


@pytest.fixture()
def page(browser, server):
    with checked_page(browser, server, DESKTOP) as pg:
        yield pg


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("QUINTET_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def solve_bodies(pg) -> list[dict]:
    bodies: list[dict] = []
    pg.on("request", lambda r: bodies.append(json.loads(r.post_data or "null"))
          if r.method == "POST" and r.url.endswith("/api/solve") else None)
    return bodies


def answer_text(pg) -> str:
    """The answer as shown, its timings left out (they differ from run to run)."""
    return re.sub(r"\d+\.\d+ s\b", "… s", pg.inner_text("#answer"))


def width(pg) -> int:
    return pg.viewport_size["width"]


# ---------------------------------------------------------------- a position as a link


def test_a_position_is_a_link_that_reopens_to_the_same_answer(any_page, browser, server, shots):
    """Deal, opponent, rules and a partial arrangement in the fragment; the link asks the same
    question again and shows the same answer — an equilibrium's drawn arrangement too."""
    pg = any_page
    bodies = solve_bodies(pg)
    pg.fill("#exposed-text", EXAMPLE)
    pg.dispatch_event("#exposed-text", "change")
    pg.select_option("#opponent", "mixture")
    pg.fill("#mixture", "uniform:0.5,greedy:0.5")
    pg.click("#rules-summary")
    pg.select_option("#rule-tie", "0.5")
    pg.check("#rule-flush")
    assert pg.inner_text("#rules-summary") == "Rules: classic; a tie scores 0.5 each; flush above full house"
    pg.fill("#mine-text", "| | | | Ah Ad Ac As Kh")
    pg.dispatch_event("#mine-text", "change")
    with pg.expect_response("**/api/solve"):
        pg.click("#complete")
    pg.wait_for_selector("#answer .packet")
    asked = bodies[-1]
    assert asked["rules"] == {"name": "classic", "tie_points": 0.5, "flush_over_full_house": True}
    fragment = pg.evaluate("location.hash")
    assert fragment.startswith("#advise?deal=") and "&ask=complete" in fragment
    assert "mine=////Ah.Ad.Ac.As.Kh" in fragment
    shown = answer_text(pg)
    pg.locator("#answer").screenshot(path=str(shots / f"link-answer-{width(pg)}.png"))
    # the link, opened in a new page: the same question, the same answer
    context, other, errors = open_page(browser, server, pg.viewport_size)
    again = solve_bodies(other)
    with other.expect_response("**/api/solve"):
        other.goto(f"{server}/{fragment}")
    other.wait_for_selector("#answer .packet")
    assert again[-1] == asked
    assert answer_text(other) == shown
    assert other.inner_text("#rules-summary") == "Rules: classic; a tie scores 0.5 each; flush above full house"
    assert other.input_value("#mine-text").endswith("Ah Ad Ac As Kh")
    context.close()
    assert errors == []
    # changing the form drops the question from the link (the position stays)
    pg.select_option("#objective", "points")
    assert "ask=" not in pg.evaluate("location.hash") and "objective=points" in pg.evaluate("location.hash")


def test_an_equilibrium_s_link_reopens_to_the_same_drawn_arrangement(page, browser, server):
    pg = page
    bodies = solve_bodies(pg)
    pg.fill("#exposed-text", QUICK_DEALS[0])
    pg.dispatch_event("#exposed-text", "change")
    pg.fill("#epsilon", "0.05")
    with pg.expect_response("**/api/solve"):
        pg.click("#solve")
    pg.wait_for_selector("#answer .certificate")
    seed = bodies[-1]["seed"]
    fragment = pg.evaluate("location.hash")
    assert f"draw={seed}" in fragment and "epsilon=0.05" in fragment
    drawn = pg.eval_on_selector_all("#answer .packets >> nth=0 >> .card", "e => e.map(c => c.dataset.card)")
    context, other, errors = open_page(browser, server, DESKTOP)
    again = solve_bodies(other)
    other.goto(f"{server}/{fragment}")
    other.wait_for_selector("#answer .certificate")
    assert again[-1] == bodies[-1]  # the same seed: the same draw
    assert other.eval_on_selector_all("#answer .packets >> nth=0 >> .card", "e => e.map(c => c.dataset.card)") \
        == drawn
    # a link of another tab's place is left alone, and a bad link says why
    other.goto(f"{server}/#advise?deal=Zz.As&opponent=uniform&ask=solve")
    other.wait_for_selector("#error:not([hidden])")
    assert other.inner_text("#error").startswith("This link could not be read whole: the deal: ")
    context.close()
    assert errors == []


# ---------------------------------------------------------------- the Arrangement tab's defects


def test_a_quick_answer_says_where_it_is_queued(page, server):
    """One worker busy with a long equilibrium: the best response waits, and the page says so."""
    hard = httpx.post(f"{server}/api/solve", json={"exposed": EXAMPLE, "epsilon": 1e-9}).json()
    try:
        pg = page
        pg.fill("#exposed-text", QUICK_DEALS[1])
        pg.dispatch_event("#exposed-text", "change")
        pg.select_option("#opponent", "uniform")
        pg.click("#solve")
        pg.wait_for_function("document.getElementById('progress-text').textContent.startsWith('Queued')")
        text = pg.inner_text("#progress-text")
        assert text.startswith("Queued: 1 of 1 worker busy with a long solve (an equilibrium, a K-mix or a safe "
                               "mix); yours is next · "), text
        assert not pg.is_visible("#cancel")
    finally:
        cancelled = httpx.delete(f"{server}/api/jobs/{hard['job']}", headers=secret_of(hard))
        assert cancelled.status_code == 200, cancelled.text  # not left to solve (and store) the deal
    pg.wait_for_selector("#answer .packet")
    assert not pg.is_visible("#progress")


def test_a_k_mix_job_shows_its_certifications(page, server):
    """The job's events are the page's to draw: a kmix progress is said in words (routes feed the
    events: the API's own answer, after a progress event of kind kmix)."""
    pg = page
    want = solved(server, {"exposed": QUICK_DEALS[1], "epsilon": 0.05, "max_support": 2, "seed": 3})
    job = {"job": "feed", "status": "running", "request": {"exposed": QUICK_DEALS[1], "max_support": 2}, "elapsed": 1.0,
           "progress": {"kind": "kmix", "certified": 7, "support": 2, "exploitability": 0.3125, "seconds": 0.9},
           "result": None, "error": None}
    done = {**job, "status": "done", "elapsed": 2.0, "result": want}

    def events(route):
        if route.request.method == "POST":
            route.fulfill(status=202, json=job, headers={"Location": "/api/jobs/feed"})
        else:
            route.fallback()

    pg.route("**/api/solve", events)
    body = f"event: job\ndata: {json.dumps(job)}\n\n"
    pg.route("**/api/jobs/feed/events", lambda route: route.fulfill(
        status=200, headers={"Content-Type": "text/event-stream"}, body=body))
    pg.route("**/api/jobs/feed", lambda route: (time.sleep(1.5), route.fulfill(status=200, json=done)))
    pg.fill("#exposed-text", QUICK_DEALS[1])
    pg.dispatch_event("#exposed-text", "change")
    pg.fill("#epsilon", "0.05")
    pg.fill("#max-support", "2")
    pg.fill("#seed", "3")
    pg.click("#solve")
    pg.wait_for_function("document.getElementById('progress-text').textContent.includes('certified')")
    assert pg.inner_text("#progress-text").startswith(
        "The equilibrium is solved; mixes of at most 2: 7 mixes certified (each by an exact best response), the least "
        "exploitable so far 0.3125")
    pg.wait_for_selector("#kmix-certificate")


def test_a_k_mix_line_moves_between_certifications_and_draws_no_box(page):
    """A K-mix certifies its next mix after minutes at times: the line says how long that mix has
    been checked, so it never reads frozen while the certifications stand still; and there is no
    empty chart box (the K-mix has no convergence line)."""
    pg = page
    started = time.monotonic()
    job = {"job": "slow", "status": "running", "request": {"exposed": QUICK_DEALS[1], "max_support": 2},
           "elapsed": 1.0, "progress": {"kind": "kmix", "certified": 7, "support": 2, "exploitability": 0.3125,
                                        "seconds": 0.9}, "result": None, "error": None}

    def solve(route):
        if route.request.method == "POST":
            route.fulfill(status=202, json=job, headers={"Location": "/api/jobs/slow"})
        else:
            route.fallback()

    pg.route("**/api/solve", solve)
    pg.route("**/api/jobs/slow/events", lambda route: route.fulfill(
        status=200, headers={"Content-Type": "text/event-stream"}, body=f"event: job\ndata: {json.dumps(job)}\n\n"))
    pg.route("**/api/jobs/slow", lambda route: route.fulfill(  # still running, the same certifications
        status=200, json={**job, "elapsed": 1.0 + time.monotonic() - started}))
    pg.fill("#exposed-text", QUICK_DEALS[1])
    pg.dispatch_event("#exposed-text", "change")
    pg.fill("#epsilon", "0.05")
    pg.fill("#max-support", "2")
    pg.click("#solve")
    pg.wait_for_function("/7 mixes certified .* the next mix being checked for [3-9] s/"
                         ".test(document.getElementById('progress-text').textContent)", timeout=60_000)
    assert not pg.is_visible("#progress-chart")


def test_a_cancelled_equilibrium_is_not_offered_to_play(page):
    pg = page
    pg.fill("#exposed-text", EXAMPLE)
    pg.dispatch_event("#exposed-text", "change")
    pg.fill("#epsilon", "0.000000001")
    pg.click("#solve")
    pg.wait_for_function("document.getElementById('progress-text').textContent.includes('iteration')")
    pg.click("#cancel")
    pg.wait_for_selector("#answer .certificate")
    assert pg.inner_text("#answer-heading") == "Cancelled: the best mix found so far"
    assert not pg.is_visible("text=Play this") and not pg.query_selector("#draw-another")
    assert "not an equilibrium to play" in pg.inner_text("#answer .stopped-note")


def test_the_focus_ring_of_a_greyed_card_keeps_its_contrast(page):
    """The seven exposed cards picked: the others are greyed; the ring on one is not faded with it."""
    pg = page
    pg.fill("#exposed-text", EXAMPLE)
    pg.dispatch_event("#exposed-text", "change")
    pg.focus('#exposed-grid [tabindex="0"]')
    pg.keyboard.press("Home")
    style = pg.eval_on_selector("#exposed-grid :focus", """b => {
        const s = getComputedStyle(b), face = getComputedStyle(b.querySelector('svg.face'));
        return {disabled: b.getAttribute('aria-disabled'), visible: b.matches(':focus-visible'),
                opacity: s.opacity, face: face.opacity, width: parseFloat(s.outlineWidth), colour: s.outlineColor};
    }""")
    assert style["disabled"] == "true" and style["visible"], style
    assert style["opacity"] == "1" and float(style["face"]) < 0.5 and style["width"] >= 3
    assert style["colour"] == "rgb(11, 31, 58)"
    pg.fill("#mine-text", "Ah Ad Ac As Kh")
    pg.dispatch_event("#mine-text", "change")
    used = pg.eval_on_selector('#pool [data-card="Ah"]', "b => [getComputedStyle(b).opacity, "
                               "getComputedStyle(b.querySelector('svg.face')).opacity]")
    assert used[0] == "1" and float(used[1]) < 0.3


# ---------------------------------------------------------------- the Draw tab's defects


def test_the_draw_tab_says_what_it_does(page, server, shots):
    pg = page
    pg.click("#tab-draw")
    deck = pg.eval_on_selector("#draw-deck", "s => [...s.options].find(o => o.dataset.rules.split(' ')"
                               ".includes('draw54')).value")
    pg.select_option("#draw-deck", deck)
    pg.fill("#draw-hand", "Jk Ah Kh Qh Jh")
    pg.dispatch_event("#draw-hand", "change")
    # another deck: the joker cannot stay, and the page says so
    deck52 = pg.eval_on_selector("#draw-deck", "s => [...s.options].find(o => o.dataset.rules.split(' ')"
                                 ".includes('draw52')).value")
    pg.select_option("#draw-deck", deck52)
    assert pg.input_value("#draw-hand") == "Ah Kh Qh Jh"
    assert pg.inner_text("#draw-hand-msg").startswith("joker 1 is not in this deck (52 cards, twos to aces): "
                                                       "taken out of your hand")
    # hand tables in words, each its own; the 7-category table names the straight it renames
    for name in ("draw52-7", "draw52-9", "draw52-11", "draw52-11-swap", "draw52"):
        pg.select_option("#draw-rules", name)
    labels = pg.eval_on_selector_all("#draw-rules option", "e => e.map(o => o.textContent)")
    assert len(set(labels)) == len(labels) and "no flush; a straight is a straight flush" in labels
    pg.select_option("#draw-rules", "draw52-7")
    assert "straight (five in sequence of one suit: a straight flush)" in pg.inner_text("#draw-rules-help")
    # a card known out that is in the hand
    pg.select_option("#draw-rules", "draw52")
    pg.fill("#draw-hand", "Ah Kh Qh Jh Th")
    pg.dispatch_event("#draw-hand", "change")
    pg.fill("#draw-known", "Ah 2c")
    assert pg.inner_text("#draw-known-msg") == "Ah: the ace of hearts is in your hand, not out"
    pg.fill("#draw-known", "2c")
    with pg.expect_response("**/api/draw"):
        pg.click("#draw-advise")
    pg.wait_for_selector("#draw-answer table")
    assert "stand pat (keep all five)" in pg.inner_text("#draw-answer .recommended")
    assert "draw 0" not in pg.inner_text("#draw-answer")
    assert pg.eval_on_selector("#draw-answer table tr:nth-child(2)", "r => r.children[2].textContent") == "stand pat"
    pg.locator("#panel-draw").screenshot(path=str(shots / "draw-1280.png"))


# ---------------------------------------------------------------- the Review tab


@pytest.fixture(scope="module")
def records_file(tmp_path_factory) -> tuple[Path, list]:
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    records = []
    for k in range(12):
        r = played("greedy" if k % 3 else "uniform", seed=200 + k)
        r = type(r)(**{**r.__dict__, "time": f"2026-12-{1 + k // 6:02d}T1{k % 6}:00:00Z"})
        append_record(path, r)
        records.append(r)
    return path, records


def test_records_are_reviewed_and_their_statistics_kept(any_page, server, records_file, shots):
    pg = any_page
    path, records = records_file
    pg.click("#tab-review")
    pg.set_input_files("#records-file", str(path))
    pg.wait_for_selector("#stats-summary")
    assert pg.inner_text("#records-file-msg") == "12 games added."
    stats = httpx.post(f"{server}/api/stats", json={"records": [r.to_dict() for r in records]}).json()
    assert pg.inner_text("#stats-summary").startswith(f"{stats['games']} games since 2026-12-01 — won {stats['won']}")
    assert f"mean regret {stats['regret']['mean']:.2f}" in pg.inner_text("#stats-regret")
    rows = pg.eval_on_selector_all("#slot-stats tr",
                                   "r => r.slice(1).map(x => [...x.children].map(c => c.textContent))")
    assert rows == [[str(s["slot"]), str(s["points"]), str(s["won"]), str(s["lost"]), str(s["tied"]),
                     f"{s['points_won']:g}", f"{s['points_lost']:g}"] for s in stats["slots"]]
    pg.locator("#panel-review .column >> nth=0").screenshot(path=str(shots / f"games-stats-{width(pg)}.png"))
    # the same file again: nothing twice; a reload keeps them (this browser)
    pg.set_input_files("#records-file", str(path))
    pg.wait_for_function("document.getElementById('records-file-msg').textContent.includes('already here')")
    pg.reload()
    pg.wait_for_selector("body[data-ready=true]")
    pg.click("#tab-review")
    assert pg.eval_on_selector_all("#games tr[data-index]", "e => e.length") == 12
    # the last game reviewed: the API's review, shown
    with pg.expect_response("**/api/review") as response:
        pg.click("#games tr[data-index='11'] button")
    pg.wait_for_selector("#review-heading", timeout=120_000)
    want = response.value.json() if response.value.status == 200 else None
    if want is None:  # a job: its result
        job = created = response.value.json()
        while job["status"] not in ("done", "failed"):
            time.sleep(0.3)
            job = httpx.get(f"{server}/api/jobs/{job['job']}", headers=secret_of(created)).json()
        want = job["result"]
    reasons = pg.eval_on_selector_all("#review .review-slot .reason", "e => e.map(x => x.textContent)")
    assert reasons == [s["reason"] for s in want["slots"]]
    verdicts = pg.eval_on_selector_all("#review .review-slot", "e => e.map(x => x.dataset.winner)")
    assert verdicts == [s["winner"] or "tie" for s in want["slots"]]
    regrets = pg.eval_on_selector_all("#review .regret-line b", "e => e.map(x => x.textContent)")
    assert regrets[0] == f"{want['model']['regret']:.2f}"
    assert f"certified exploitability {want['equilibrium']['exploitability']:.4f}" in pg.inner_text("#review")
    pg.locator("#review").screenshot(path=str(shots / f"review-{width(pg)}.png"))
    assert pg.evaluate("document.documentElement.scrollWidth") <= width(pg)
    # forgotten: gone after a reload too
    pg.click("#records-forget")
    pg.reload()
    pg.wait_for_selector("body[data-ready=true]")
    assert pg.eval_on_selector_all("#games tr", "e => e.length") == 0


def test_a_puzzle_is_graded_exactly(any_page, server, shots):
    pg = any_page
    pg.click("#tab-review")
    with pg.expect_response("**/api/puzzles?*") as response:
        pg.click("#puzzle-new")
    puzzle = response.value.json()
    pg.wait_for_selector("#puzzle:not([hidden])")
    assert pg.eval_on_selector_all("#puzzle-deal .card-text", "e => e.map(x => x.dataset.card)") == puzzle["exposed"]
    # the best arrangement (the API's give-up) typed in: solved, three stars
    best = httpx.post(f"{server}/api/puzzles/grade", json={"exposed": puzzle["exposed"], "arrangement": None},
                      timeout=120).json()["grade"]["best"]["arrangement"]
    pg.fill("#puzzle-text", " | ".join(" ".join(p) for p in best))
    pg.dispatch_event("#puzzle-text", "change")
    with pg.expect_response("**/api/puzzles/grade"):
        pg.click("#puzzle-answer")
    pg.wait_for_selector("#puzzle-verdict")
    assert pg.inner_text("#puzzle-verdict") == "★★★ Solved: no arrangement does better"
    # the slots reversed: graded as the API grades it
    worse = " | ".join(" ".join(p) for p in best[::-1])
    want = httpx.post(f"{server}/api/puzzles/grade", json={"exposed": puzzle["exposed"], "arrangement": worse},
                      timeout=120).json()
    pg.fill("#puzzle-text", worse)
    pg.dispatch_event("#puzzle-text", "change")
    with pg.expect_response("**/api/puzzles/grade"):
        pg.click("#puzzle-answer")
    # the result is replaced by "Grading your answer…" until the grade arrives: wait for the new verdict
    pg.wait_for_function("document.getElementById('puzzle-verdict')?.textContent.includes('Regret')")
    stars = "★" * want["stars"] + "☆" * (3 - want["stars"])
    assert pg.inner_text("#puzzle-verdict") == f"{stars} Regret {want['regret']:.2f}"
    assert pg.inner_text("#puzzle-score") == "This session: 1 puzzle, 1 solved, 3 of 3 stars."  # a retry: not counted
    pg.locator("#panel-review .column >> nth=1").screenshot(path=str(shots / f"puzzle-{width(pg)}.png"))
    # an unfinished answer: said, nothing sent
    pg.click("#puzzle-clear")
    pg.click("#puzzle-answer")
    assert pg.inner_text("#puzzle-text-msg").startswith("slot 1 holds 0 of 5 cards")
