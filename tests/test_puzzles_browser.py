"""The page's puzzles in a real browser (Debian's chromium through Playwright) against a live
``quintet-serve`` with an empty store, at 1280 and 390 px: the shipped set's puzzle near the
player's rating, the rating shown and moved by the first answer only, a retry after a miss (the
answer kept back until asked for), the themes only with the answer (never before: they would
tell it), the rating in whole points, and the progress kept over a reload.

Screenshots are written to ``$QUINTET_SCREENSHOTS`` (default: the test's temporary directory)
as ``quintet-serve-puzzles-<width>.png``, to be looked at: ``QUINTET_SCREENSHOTS=docs pytest
tests/test_puzzles_browser.py`` makes docs/page.md's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_helpers import DESKTOP, PHONE, checked_page
from serve_helpers import one_worker_server

from solver.play.puzzle_set import THEMES_BY_NAME, puzzle_set, rate

pytestmark = [pytest.mark.browser, pytest.mark.server]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with one_worker_server(tmp_path_factory.mktemp("puzzles-browser") / "empty.sqlite") as url:
        yield url


@pytest.fixture(params=[DESKTOP, PHONE], ids=["1280px", "390px"])
def any_page(request, browser, server):
    with checked_page(browser, server, request.param) as pg:
        yield pg


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("QUINTET_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def new_puzzle(pg) -> dict:
    with pg.expect_response("**/api/puzzles?*") as response:
        pg.click("#puzzle-new")
    puzzle = response.value.json()
    pg.wait_for_function("n => document.getElementById('puzzle-deal').textContent.includes(n)",
                         arg=f"puzzle {puzzle['number']} of {puzzle['count']} shipped")
    return puzzle


def answer(pg, text: str, verdict: str) -> None:
    pg.fill("#puzzle-text", text)
    pg.dispatch_event("#puzzle-text", "change")
    with pg.expect_response("**/api/puzzles/grade"):
        pg.click("#puzzle-answer")
    pg.wait_for_function("v => document.getElementById('puzzle-verdict')?.textContent.includes(v)", arg=verdict)


def test_a_rated_puzzle_a_retry_and_the_progress_kept(any_page, shots):
    pg = any_page
    width = pg.viewport_size["width"]
    pg.click("#tab-review")
    assert pg.inner_text("#puzzle-rating").startswith("Your rating 1500 · 0 rated puzzles")
    puzzle = new_puzzle(pg)
    assert puzzle["source"] == "set" and puzzle["rating"] is not None and "themes" not in puzzle
    assert pg.inner_text("#puzzle-deal .puzzle-rated") == f"rated {puzzle['rating']}"
    section = "section[aria-labelledby=puzzle-title]"

    def no_themes() -> None:  # the themes would tell the answer
        shown = pg.inner_text(section)
        assert "Themes" not in shown and not any(t in shown for t in THEMES_BY_NAME), shown

    no_themes()
    entry = puzzle_set().puzzles[puzzle["number"] - 1]
    # a miss: rated, the answer kept back, a retry offered
    answer(pg, entry.mistake.arrangement, "Regret")
    after = rate(1500.0, 0, entry.rating, 0.0).after
    pg.wait_for_function("r => document.getElementById('puzzle-rating').textContent.startsWith(r)",
                         arg=f"Your rating {after:.0f} · 1 rated puzzle,")
    result = pg.inner_text("#puzzle-result")
    assert f"Rating 1500 → {after:.0f} (−{1500 - after:.0f};" in result and "Try again" in result
    assert "The best arrangement" not in result
    no_themes()
    pg.locator(section).screenshot(
        path=str(shots / f"quintet-serve-puzzles-{width}.png"))
    assert pg.evaluate("document.documentElement.scrollWidth") <= width
    # the retry solves it: not rated again, the themes shown
    answer(pg, entry.best, "Solved")
    result = pg.inner_text("#puzzle-result")
    themes = "; ".join(f"{t} — {THEMES_BY_NAME[t].about}" for t in entry.themes)
    assert f"Themes: {themes}." in result and "Rating" not in result
    assert pg.evaluate("document.documentElement.scrollWidth") <= width  # the themes' sentences wrap
    assert pg.inner_text("#puzzle-rating").startswith(f"Your rating {after:.0f} · 1 rated puzzle,")
    # kept over a reload (a rating an older page kept with decimals shows whole); the next puzzle
    # given up scores 0
    kept = pg.evaluate("JSON.parse(localStorage.getItem('quintet-puzzle-progress'))")
    assert kept["rating"] == after and kept["games"] == 1
    after = 1512.34
    pg.evaluate("p => localStorage.setItem('quintet-puzzle-progress', JSON.stringify(p))", kept | {"rating": after})
    pg.reload()
    pg.wait_for_selector("body[data-ready=true]")
    pg.click("#tab-review")
    assert pg.inner_text("#puzzle-rating").startswith("Your rating 1512 · 1 rated puzzle,")
    second = new_puzzle(pg)
    with pg.expect_response("**/api/puzzles/grade"):
        pg.click("#puzzle-give-up")
    pg.wait_for_function("() => document.getElementById('puzzle-verdict')?.textContent === 'The answer'")
    then = rate(after, 1, second["rating"], 0.0).after
    assert pg.inner_text("#puzzle-rating").startswith(f"Your rating {then:.0f} · 2 rated puzzles")
    result = pg.inner_text("#puzzle-result")
    assert "The best arrangement" in result and f"Rating 1512 → {then:.0f} (−" in result
    assert "Themes: " in result  # given up: the answer, and with it the themes
