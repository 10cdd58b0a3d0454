"""The page takes the rules from the server (``GET /api/rules``): a server with a toy rule set of
other slot points (tests/toy_rules_server.py) shows those points on a table of that rule set —
the slots being laid and the show-down — and the API and the limits follow the same rule set.
Debian's chromium driven by Playwright, against a live quintet-serve."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from browser_helpers import DESKTOP, checked_page
from serve_helpers import NO_LIMITS, live_server, wait_for_workers
from table_helpers import new_table
from toy_rules_server import TOY

from quintet.game import Arrangement, Deal, showdown
from solver.problem.opponents import random_arrangement

pytestmark = [pytest.mark.browser, pytest.mark.server]
SCRIPT = Path(__file__).resolve().parent / "toy_rules_server.py"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("toy-rules") / "solutions.sqlite"
    with live_server("--workers", "1", *NO_LIMITS, "--store", str(store), program=(str(SCRIPT),)) as (url, _):
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        yield url


def slot_heads(pg) -> list[str]:
    return pg.eval_on_selector_all("#play-slots .slot-head small", "e => e.map(x => x.textContent)")


def test_the_api_offers_the_toy_rule_set_and_its_bounds(server):
    (toy,) = httpx.get(f"{server}/api/rules", params={"rules": TOY.name}).json()
    assert toy["weights"] == [2, 3, 5, 8, 13] and toy["n_exposed"] == 7 and toy["hand_size"] == 5
    assert toy["name"] in [r["name"] for r in httpx.get(f"{server}/api/rules").json()]
    # ε's bound is the most points a rule set offers: the toy's 31
    assert httpx.get(f"{server}/api/limits").json()["ranges"]["epsilon"]["high"] == sum(TOY.weights)


def test_a_table_of_other_slot_points_shows_them(browser, server):
    you, friend = new_table(server, {"opponent": "friend", "games": 1, "seed": 11, "hints": False,
                                     "rules": {"name": TOY.name}})
    view = you.view()
    assert view["deal"]["rules"] == TOY.name
    deal = Deal.from_exposed(" ".join(view["deal"]["exposed"]), TOY)
    mine, theirs = random_arrangement(deal, 1), random_arrangement(deal, 2)
    friend.confirm(theirs.format(TOY))
    with checked_page(browser, server, DESKTOP) as pg:
        pg.goto(f"{server}/#play/{you.table}/1/{you.token}")
        pg.wait_for_selector("#panel-play[data-status=placing]")
        assert slot_heads(pg) == ["2 pts", "3 pts", "5 pts", "8 pts", "13 pts"]
        assert pg.get_attribute("#play-slots [data-slot='5'] .slot-head", "aria-label").startswith(
            "slot 5, 13 points: 0 of 5 cards")
        pg.fill("#play-text", mine.format(TOY))
        pg.press("#play-text", "Enter")  # the text taken, then confirmed
        pg.wait_for_selector("#panel-play[data-revealed='5']")
        shown = pg.eval_on_selector_all("#play-showdown .slot-label small", "e => e.map(x => x.textContent)")
        assert shown == ["2 pts", "3 pts", "5 pts", "8 pts", "13 pts"]
        sd = showdown(Arrangement.parse(mine.format(TOY), TOY), Arrangement.parse(theirs.format(TOY), TOY), deal)
        score = pg.text_content("#play-score")
        assert f"you {sd.points_a:g}, your friend {sd.points_b:g}" in score, (score, sd)
