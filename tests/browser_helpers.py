"""Shared helpers of the browser tests: Debian's chromium driven by Playwright (the ``browser``
fixture of tests/conftest.py launches it), a page whose errors are collected, a page of a live
quintet-serve.  Importing this module skips the test module, with the reason, where Playwright's
package or ``/usr/bin/chromium`` is missing (``.ci/run`` installs both)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import tiers

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

playwright_api = pytest.importorskip("playwright.sync_api", reason="the Playwright package is not installed")
if not Path(CHROMIUM).exists():
    pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium chromium-driver)",
                allow_module_level=True)

TIMEOUT_MS = 60_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@contextlib.contextmanager
def chromium() -> Iterator:
    """Chromium launched headless (the test needs the ``browser`` marker); closed at the end."""
    with playwright_api.sync_playwright() as p:
        tiers.require("browser")
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def new_page(browser, viewport: dict, **options) -> tuple:
    """A new context of ``viewport`` (below 500 px a phone's: mobile, touch) with Playwright's context
    ``options``, and its page: (context, page, the list of the page's errors).  An error is a script
    error or one the console logs, but for a failed load (a 4xx answer the page shows as a message
    is logged by the browser too)."""
    phone = viewport["width"] < 500
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone, **options)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text)
          if msg.type == "error" and not msg.text.startswith("Failed to load resource") else None)
    return context, pg, errors


def open_page(browser, server, viewport):
    """``new_page`` at the server's page, once it is ready."""
    # bypass_csp: Playwright evaluates its string predicates with eval, which the page's CSP forbids
    # (tests/test_public_server.py checks the page under its CSP)
    context, pg, errors = new_page(browser, viewport, bypass_csp=True)
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready=true]")
    return context, pg, errors


@contextlib.contextmanager
def checked_page(browser, server, viewport) -> Iterator:
    """``open_page``'s page; at the end its context is closed and the page must have had no error."""
    context, pg, errors = open_page(browser, server, viewport)
    yield pg
    context.close()
    assert errors == [], errors


def accept_invitation(pg) -> None:
    """On a page opened at an invitation (``/#join/TABLE/CODE``): wait for the match it shows,
    click Accept, and wait for the seat (nothing is taken before the click)."""
    pg.wait_for_selector("#play-invite:not([hidden]) #play-accept[aria-disabled=false]")
    pg.click("#play-accept")
    pg.wait_for_selector("#panel-play[data-status]")
