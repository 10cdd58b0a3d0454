"""Helpers of the tables' tests: a seat's client, its event stream read in a thread, the
arrangements two seats lay, and the search for another side's packets in what a seat got."""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from quintet.cards import format_cards
from quintet.game import Arrangement, Deal
from solver.problem.opponents import random_arrangement

CARD = re.compile(r"(?<![A-Za-z0-9])(?:[AKQJT98765432][shdc]|Jk[12]?)(?![A-Za-z0-9])")
SEPARATOR = re.compile(r"[\s\",']{1,6}")  # between two cards of one packet (text or JSON); a bracket or bar ends it


def packets_found(text: str, packets: list[frozenset[str]]) -> list[frozenset[str]]:
    """The ``packets`` (as card sets) written in ``text``: five cards in a row — in any order,
    separated only by spaces, quotes or commas (a JSON list or a packet's text) — that are one
    of them."""
    found = []
    tokens = list(CARD.finditer(text))
    run: list[str] = []
    runs = []
    for i, m in enumerate(tokens):
        if run and not SEPARATOR.fullmatch(text[tokens[i - 1].end():m.start()]):
            runs.append(run)
            run = []
        run.append(m.group())
    runs.append(run)
    targets = set(packets)
    for run in runs:
        for k in range(len(run) - 4):
            window = frozenset(run[k:k + 5])
            if window in targets and window not in found:
                found.append(window)
    return found


def packet_sets(arrangement: Arrangement | str | list[list[str]], deal: Deal) -> list[frozenset[str]]:
    if isinstance(arrangement, list):
        return [frozenset(p) for p in arrangement]
    if isinstance(arrangement, str):
        arrangement = Arrangement.parse(arrangement, deal.rules)
    return [frozenset(format_cards(p, deal.rules.deck).split()) for p in arrangement.packets]


def public_windows(deal: Deal) -> set[frozenset[str]]:
    """Five cards in a row of the deal's own lists (live, exposed): any packet among them is in
    every view, and so no sign of a leak."""
    out = set()
    for cards in (format_cards(deal.live, deal.rules.deck).split(), deal.format().split()):
        out |= {frozenset(cards[k:k + 5]) for k in range(len(cards) - 4)}
    return out


def two_arrangements(deal: Deal, seed: int = 0) -> tuple[str, str]:
    """Two random arrangements of ``deal`` with no packet in common, and none of whose packets
    is five cards in a row of the deal's own lists (so finding one in a body is a leak)."""
    public = public_windows(deal)
    k = seed
    while True:
        a, b = random_arrangement(deal, 1000 + k), random_arrangement(deal, 2000 + k)
        pa, pb = packet_sets(a, deal), packet_sets(b, deal)
        if not set(pa) & set(pb) and not (set(pa) | set(pb)) & public:
            return a.format(deal.rules), b.format(deal.rules)
        k += 1


@dataclass
class EventReader:
    """A seat's event stream, read in a thread: ``events`` (kind, data, raw data text)."""

    url: str
    table: str
    token: str
    events: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    status: int | None = None
    error: str | None = None
    _thread: threading.Thread | None = None
    _response: httpx.Response | None = None

    def start(self) -> EventReader:
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self.events and self.error is None and self.status in (None, 200):
            assert time.monotonic() < deadline, "no first event"
            time.sleep(0.02)
        return self

    def _read(self) -> None:
        try:
            with httpx.stream("GET", f"{self.url}/api/tables/{self.table}/events",
                              headers={"Authorization": f"Bearer {self.token}"}, timeout=120) as r:
                self.status = r.status_code
                kind = ""
                for line in r.iter_lines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        self.events.append((kind, json.loads(line[6:]), line[6:]))
        except Exception as exc:  # noqa: BLE001 — reported to the test
            self.error = repr(exc)

    def wait_for(self, kind: str, count: int = 1, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while sum(k == kind for k, _, _ in self.events) < count:
            assert time.monotonic() < deadline, (kind, [k for k, _, _ in self.events], self.error)
            time.sleep(0.02)
        return [e for k, e, _ in self.events if k == kind][count - 1]

    def join(self, timeout: float = 20) -> None:
        assert self._thread is not None
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the stream did not end"

    @property
    def kinds(self) -> list[str]:
        return [k for k, _, _ in self.events]

    @property
    def raw(self) -> list[str]:
        return [r for _, _, r in self.events]


@dataclass
class SeatClient:
    """One seat over HTTP: every body it receives is kept (``bodies``) for the leak search."""

    url: str
    table: str
    seat: int
    token: str
    bodies: list[str] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def request(self, method: str, path: str = "", body: object = None, status: int | None = 200) -> httpx.Response:
        r = httpx.request(method, f"{self.url}/api/tables/{self.table}{path}", headers=self.headers,
                          json=body, timeout=120)
        self.bodies.append(r.text)
        if status is not None:
            assert r.status_code == status, (method, path, r.status_code, r.text)
        return r

    def view(self) -> dict[str, Any]:
        return self.request("GET").json()

    def wait(self, predicate: Any, timeout: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            view = self.view()
            if predicate(view):
                return view
            assert time.monotonic() < deadline, view
            time.sleep(0.1)

    def confirm(self, arrangement: str, status: int = 200) -> httpx.Response:
        return self.request("POST", "/arrangement", {"arrangement": arrangement}, status)

    def events(self) -> EventReader:
        return EventReader(self.url, self.table, self.token).start()


def join(url: str, invitation_link: str) -> httpx.Response:
    """Exchange an invitation (its link, …/#join/TABLE/CODE) as the friend's page does."""
    table, code = invitation_link.rsplit("#join/", 1)[1].split("/")
    return httpx.post(f"{url}/api/tables/{table}/join", json={"invitation": code}, timeout=60)


def new_table(url: str, body: dict[str, Any]) -> list[SeatClient]:
    """A new table's seats: seat 1 (the creator's token), and at a friend's table seat 2 by
    exchanging the invitation, as the friend's page does."""
    r = httpx.post(f"{url}/api/tables", json=body, timeout=60)
    assert r.status_code == 201, r.text
    data = r.json()
    seats = [SeatClient(url, data["table"], 1, data["token"])]
    if data["invitation"] is not None:
        joined = join(url, data["invitation"]["link"])
        assert joined.status_code == 201, joined.text
        seats.append(SeatClient(url, data["table"], 2, joined.json()["token"]))
    return seats


def deal_of(view: dict[str, Any]) -> Deal:
    return Deal.from_exposed(" ".join(view["deal"]["exposed"]))
