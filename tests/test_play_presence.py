"""Presence from heartbeats both ways (issue 41, item 7): a table's event stream beats every
``--heartbeat-seconds`` and the seat's page answers each (``POST …/alive``).  A seat whose stream
is open but that answers nothing for ``LOST_AFTER`` heartbeats has **lost its connection** for
the other seat — not "left the table", not "does not have the table open" (a closed stream) — and
is present again once heard from.  The page that hears nothing from the server for as long says
so and reconnects, then reads the table again.

Over HTTP (a silent seat, a closed one) and in two browsers (directly and through Caddy), one of
which loses its network:
its page reaches the server through a relay that is frozen (no byte either way, nothing closed:
what a closed lid or a lost Wi-Fi looks like from the server) while the browser is offline
(Playwright's ``set_offline``); against a live ``quintet-serve`` with 1-second heartbeats.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from browser_helpers import DESKTOP, PHONE, accept_invitation, new_page
from caddy_helpers import caddy_in_front, requires_caddy
from serve_helpers import NO_LIMITS, live_server, wait_for_workers
from table_helpers import new_table

from solver.apps.serve.tables.config import LOST_AFTER

pytestmark = [pytest.mark.server]

SEED = 41
BEAT = 1.0  # seconds between heartbeats in these tests


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("presence")
    with live_server("--workers", "1", *NO_LIMITS, "--heartbeat-seconds", f"{BEAT:g}",
                     "--store", str(base / "solutions.sqlite")) as (url, _):
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        yield url


class FrozenNetwork:
    """A TCP relay on loopback to ``upstream``'s port (``http://127.0.0.1:PORT``, or Caddy's
    ``https://localhost:PORT``): ``url`` is the same server through it (``http://127.0.0.1:PORT``).
    ``freeze()`` stops every byte both ways and closes nothing — new connections wait too —
    until ``thaw()`` passes on what waited."""

    def __init__(self, upstream: str) -> None:
        self.target = ("127.0.0.1", int(upstream.rsplit(":", 1)[1]))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self._open = threading.Event()
        self._open.set()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def freeze(self) -> None:
        self._open.clear()

    def thaw(self) -> None:
        self._open.set()

    def close(self) -> None:
        self._open.set()
        for s in [self.listener, *self._sockets]:
            with contextlib.suppress(OSError):
                s.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self._open.wait()
            server = socket.create_connection(self.target)
            self._sockets += [client, server]
            for src, dst in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                self._open.wait()
                dst.sendall(data)
            self._open.wait()
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            with contextlib.suppress(OSError):
                dst.close()


@contextlib.contextmanager
def frozen_network(upstream: str) -> Iterator[FrozenNetwork]:
    link = FrozenNetwork(upstream)
    try:
        yield link
    finally:
        link.close()


def presence_event(stream, predicate, after: int = 0) -> tuple[dict, int]:
    """The first ``presence`` event past the stream's first ``after`` events whose presence
    satisfies ``predicate``, and its index (a hang cap of 60 s)."""
    deadline = time.monotonic() + 60
    while True:
        for i, (kind, event, _) in enumerate(stream.events[after:], start=after):
            if kind == "presence" and predicate(event["view"]["presence"]):
                return event["view"]["presence"], i
        assert time.monotonic() < deadline, [(k, e.get("view") and e["view"]["presence"]) for k, e, _ in stream.events]
        time.sleep(0.02)


def test_a_seat_that_answers_no_heartbeat_is_lost_for_the_other_and_back_once_heard(server):
    one, two = new_table(server, {"opponent": "friend", "seed": SEED, "hints": False})
    first = one.events()
    kind, event, _ = first.events[0]
    assert kind == "view" and event["heartbeat"] == BEAT and event["silence"] == LOST_AFTER * BEAT
    assert event["view"]["presence"]["lost"] is False
    with httpx.Client(timeout=60) as http, http.stream("GET", f"{server}/api/tables/{two.table}/events",
                                                      headers=two.headers) as silent:
        assert silent.status_code == 200
        opened = time.monotonic()
        here, i = presence_event(first, lambda p: p["connected"])
        assert here["lost"] is False
        # seat 2 reads nothing and answers nothing: after LOST_AFTER heartbeats, lost (not "left", not closed)
        gone, i = presence_event(first, lambda p: p["lost"], i)
        assert time.monotonic() - opened >= LOST_AFTER * BEAT
        assert gone["connected"] is False and gone["left"] is False and gone["joined"] is True
        assert one.view()["presence"]["lost"] is True
        # the heartbeats kept coming meanwhile, at their pace, each with its period
        beats = [e for k, e, _ in first.events if k == "heartbeat"]
        assert len(beats) >= 2 and beats[0] == {"event": "heartbeat", "game": None, "seat": None, "view": None,
                                                "heartbeat": BEAT, "silence": LOST_AFTER * BEAT}
        # seat 2's page answers a heartbeat: present again
        assert two.request("POST", "/alive").json() == {"heartbeat": BEAT, "silence": LOST_AFTER * BEAT}
        back, i = presence_event(first, lambda p: p["connected"], i)
        assert back["lost"] is False
    # a stream closed (the tab closed) is "not open", never "lost"
    closed, _ = presence_event(first, lambda p: not p["connected"], i)
    assert closed["lost"] is False
    assert httpx.post(f"{server}/api/tables/{one.table}/alive", timeout=60).status_code == 401


@pytest.mark.browser
@pytest.mark.parametrize("proxy", [None, pytest.param("caddy", marks=requires_caddy)], ids=["direct", "through-caddy"])
def test_a_page_whose_network_goes_silent_is_lost_for_the_other_and_both_recover(browser, server, tmp_path, proxy):
    """Two friends (directly, or through Caddy by the docs' Caddyfile); seat 2's browser reaches
    the server through a relay.  Its network goes silent (the relay frozen, the browser offline):
    seat 1 reads "connection lost" within the bound, and seat 2's page says it lost the server;
    the network back, both recover by themselves (seat 2's page reconnects and reads the table
    again)."""
    with contextlib.ExitStack() as stack:
        base = server if proxy is None else stack.enter_context(caddy_in_front(server, "/", tmp_path)).base
        link = stack.enter_context(frozen_network(base))
        via = link.url if proxy is None else f"https://localhost:{link.url.rsplit(':', 1)[1]}"
        ca, a, a_errors = new_page(browser, DESKTOP, bypass_csp=True, ignore_https_errors=True)
        cb, b, b_errors = new_page(browser, PHONE, bypass_csp=True, ignore_https_errors=True)
        a.goto(base + "/")
        a.wait_for_selector("body[data-ready=true]")
        a.click("#tab-play")
        a.select_option("#play-opponent", "friend")
        a.fill("#play-games", "1")
        a.fill("#play-seed", str(SEED + 1))
        a.click("#play-start")
        a.wait_for_function("document.querySelector('#play-share-link').value !== ''")
        invitation = a.input_value("#play-share-link")
        b.goto(via + "/" + invitation[invitation.index("#"):])
        accept_invitation(b)
        b.wait_for_selector("#panel-play[data-connection=open]")
        a.wait_for_selector("#play-presence [data-presence=connected][data-on=true]")
        link.freeze()
        cb.set_offline(True)
        cut = time.monotonic()
        b.wait_for_selector("#panel-play[data-connection=lost]")
        assert b.text_content("#play-status") == "Connection lost — reconnecting…"
        a.wait_for_selector("#play-presence [data-presence=connected]:has-text('connection lost')")
        assert time.monotonic() - cut >= LOST_AFTER * BEAT - 1  # not before the bound (a tick's leeway)
        assert "connection is lost" in a.title()
        link.thaw()
        cb.set_offline(False)
        b.wait_for_selector("#panel-play[data-connection=open]")
        a.wait_for_selector("#play-presence [data-presence=connected][data-on=true]")
        assert b.text_content("#play-status") != "Connection lost — reconnecting…"
        ca.close()
        cb.close()
    assert a_errors == [] and b_errors == [], (a_errors, b_errors)
