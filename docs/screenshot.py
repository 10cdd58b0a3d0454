"""The pictures of the page (README, docs/page.md): quintet-serve with the example deal solved.

    python docs/screenshot.py                      # uniform advice, a graded arrangement, the draw tab
    python docs/screenshot.py --store PATH         # a store holding the example's equilibrium:
                                                   # the equilibrium view as well

Starts ``quintet-serve`` on a free loopback port, drives Debian's chromium with Playwright
and writes ``docs/quintet-serve.png`` (desktop, 1280 px wide), ``docs/quintet-serve-phone.png``
(390 px), ``docs/quintet-serve-draw.png`` (the draw tab, 1280 px), ``docs/quintet-serve-play.png``
(the Play tab: game 1 of a match against the greedy computer, hinted, confirmed and shown down),
``docs/quintet-serve-review.png`` (game 2 of that match, its cards laid in the pool's order, opened
in the Review tab with one click: your per-slot expected margins beside the best's, the slot where
the regret was made, the luck), ``docs/quintet-serve-rules.png`` (the rules and the hand ranking)
and, with ``--store``, ``docs/quintet-serve-equilibrium.png``.

The page draws the equilibrium's "play this" seed at random (``crypto.getRandomValues``);
here that generator is pinned to ``--seed`` so the pictures are the same at every run.
"""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
EXAMPLE = "8h 7h 9d Ts 7s Qc Jc"
MINE = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
DRAW_HAND = "Ah Kh 9h 5h Jk"
PLAY_SEED = 7  # the match's seed (game 1 deals As Ks Th 9s 8h 7s 7h, as quintet-play --seed 7)
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def pin_random(page, seed: int) -> None:
    """Every crypto.getRandomValues of the page fills in ``seed`` (the seeds it draws)."""
    page.add_init_script(f"crypto.getRandomValues = (a) => {{ a.fill({seed}); return a; }};")


def solve_example(page, url: str, opponent: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    for card in EXAMPLE.split():
        page.click(f'#exposed-grid [data-card="{card}"]')
    page.select_option("#opponent", opponent)
    page.click("#solve")
    page.wait_for_selector("#answer .certificate" if opponent == "equilibrium" else "#answer .packet",
                           timeout=600_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=None, help="a store with the example deal's equilibrium")
    parser.add_argument("--seed", type=int, default=20240607, help="the seed the page draws (default 20240607)")
    args = parser.parse_args()
    store = args.store or str(Path(tempfile.mkdtemp()) / "solutions.sqlite")
    proc = subprocess.Popen([sys.executable, "-m", "solver.apps.serve.cli", "--port", "0", "--workers", "1",
                             "--store", store], stderr=subprocess.PIPE, text=True, cwd=HERE.parent)
    try:
        assert proc.stderr is not None
        url = re.search(r"(http://\S+)/ ", proc.stderr.readline()).group(1) + "/"  # type: ignore[union-attr]
        while httpx.get(f"{url}api/health").json()["workers_ready"] < 1:
            time.sleep(0.2)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 980}, bypass_csp=True)  # eval'd predicates
            pin_random(page, args.seed)
            solve_example(page, url, "uniform")
            page.wait_for_timeout(300)
            page.screenshot(path=str(HERE / "quintet-serve.png"))
            if args.store:
                solve_example(page, url, "equilibrium")
                page.wait_for_timeout(300)
                page.screenshot(path=str(HERE / "quintet-serve-equilibrium.png"), full_page=True)
            # the draw tab: a hand with a joker of the 54-card deck
            page.goto(url)
            page.wait_for_selector("body[data-ready=true]")
            page.click("#tab-draw")
            page.select_option("#draw-deck", label="54 cards: 52 and two jokers")
            page.select_option("#draw-rules", "draw54")
            page.fill("#draw-hand", DRAW_HAND)
            page.click("#draw-advise")
            page.wait_for_selector("#draw-answer table")
            page.wait_for_timeout(300)
            page.screenshot(path=str(HERE / "quintet-serve-draw.png"))
            # the Play tab: a match against greedy, game 1 hinted (the hint taken), confirmed, shown down
            page.goto(url)
            page.wait_for_selector("body[data-ready=true]")
            page.click("#tab-play")
            page.select_option("#play-opponent", "greedy")
            page.fill("#play-games", "3")
            page.fill("#play-seed", str(PLAY_SEED))
            page.click("#play-start")
            page.wait_for_selector("#panel-play[data-status=placing]")
            page.click("#play-hint")
            page.wait_for_selector("#play-advice .packet")
            page.click("#play-advice button:has-text('Use as my arrangement')")
            page.click("#play-confirm")
            page.wait_for_selector("#panel-play[data-revealed='5']")
            page.wait_for_function("[...document.querySelectorAll('#play-match tr[data-game]')].every("
                                   "r => r.cells[5].textContent !== 'computing…')")
            page.evaluate("document.activeElement.blur()")
            page.wait_for_timeout(300)
            page.screenshot(path=str(HERE / "quintet-serve-play.png"), full_page=True)
            # game 2: the cards laid in the pool's order, confirmed, reviewed with one click
            page.click("#play-next")
            page.wait_for_selector("#panel-play[data-status=placing][data-game='2']")
            pool = page.eval_on_selector_all("#play-pool [data-card]", "e => e.map(c => c.dataset.card)")
            page.fill("#play-text", " | ".join(" ".join(pool[k:k + 5]) for k in range(0, 25, 5)))
            page.dispatch_event("#play-text", "change")
            page.click("#play-confirm")
            page.wait_for_selector("#panel-play[data-revealed='5']")
            page.click("#play-match tr[data-game='2'] .review-game")
            page.wait_for_selector("#review-heading", timeout=600_000)
            page.evaluate("document.activeElement.blur()")
            page.wait_for_timeout(300)
            page.locator("#panel-review .column >> nth=1").screenshot(path=str(HERE / "quintet-serve-review.png"))
            # the rules and the hand ranking (the header's button)
            page.click("#rules-open")
            page.wait_for_selector("#rules-dialog[open] #hand-ranking li")
            page.locator("#rules-dialog").screenshot(path=str(HERE / "quintet-serve-rules.png"))
            page.keyboard.press("Escape")
            # a phone: the arrangement typed in, graded
            phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, bypass_csp=True)
            pin_random(phone, args.seed)
            solve_example(phone, url, "uniform")
            phone.fill("#mine-text", MINE)
            phone.click("#grade")
            phone.wait_for_selector("#grade-regret")
            phone.wait_for_timeout(800)  # the smooth scroll to the answer
            phone.screenshot(path=str(HERE / "quintet-serve-phone.png"))
            browser.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    print("wrote", ", ".join(p.name for p in sorted(HERE.glob("quintet-serve*.png"))))


if __name__ == "__main__":
    main()
