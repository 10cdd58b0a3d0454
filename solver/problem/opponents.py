"""Opponent models.  Each reduces to per-slot distributions over the deal's rank classes.

Because the payoff is additive over slots, my expected result against *any* mixed opponent
depends on it only through ``marginals(tables)``: an array ``(n_slots, R)`` whose row ``s``
is the probability that the opponent's slot-``s`` packet has rank class ``r``.  A new model
is a small class with a ``name`` and that one method.

Models, by their spelling (``solver.problem.opponent_spec`` reads and writes it):

* ``uniform`` — a uniformly random arrangement: each slot holds a uniformly random 5-subset
  of the live cards, so every row is the class histogram of all packets / C(25, 5). Exact.
* ``greedy`` — a naive player: repeatedly takes the strongest hand among the cards left
  (ties: the first such packet in the table's order, i.e. the lexicographically smallest
  list of card ints — clubs before diamonds before hearts before spades, then lower rank);
  the fifth packet is what remains; lays them weakest in slot 1 … strongest in slot 5
  (equal hands keep the order in which they were taken, the earlier taken in the higher slot).
* ``population:FILE`` — observed arrangements (JSON or CSV, optional weights), each
  validated against the deal (see ``load_population``).
* ``style:FILE`` — a style model fitted on game records of other deals (JSON lines with
  ``exposed`` and ``player``, as ``quintet-play --record`` writes; see ``solver.problem.style``).
* mixtures ``uniform:0.3,greedy:0.7`` — weights are relative (normalized to sum 1).
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from quintet.cards import CardError, cards_of, mask_of
from quintet.faults import InputError
from quintet.game import Arrangement, ArrangementError, Deal
from quintet.seeds import seed_rng
from quintet.text import quote
from solver.problem.deal_tables import DealTables

__all__ = [
    "OpponentModel",
    "OpponentError",
    "Uniform",
    "Greedy",
    "ArrangementMix",
    "Mixture",
    "FixedMarginals",
    "load_population",
    "population_from_json",
    "greedy_arrangement",
    "random_arrangement",
]



class OpponentError(InputError):
    """An opponent specification or population file that cannot be used."""


@runtime_checkable
class OpponentModel(Protocol):
    @property
    def name(self) -> str:
        """How the model is spelled on the command line (``uniform``, ``mix`` …)."""
        ...

    def marginals(self, tables: DealTables) -> np.ndarray:
        """float64 (n_slots, R): P(opponent's slot-s packet has class r); rows sum to 1."""
        ...


@dataclass(frozen=True)
class Uniform:
    name: str = "uniform"

    def marginals(self, tables: DealTables) -> np.ndarray:
        hist = np.bincount(tables.classes, minlength=tables.n_classes).astype(np.float64)
        hist /= hist.sum()
        return np.tile(hist, (tables.n_slots, 1))


def random_arrangement(deal: Deal, seed: int) -> Arrangement:
    """A uniformly random arrangement of the deal's live cards, the same for the same seed."""
    rules = deal.rules
    cards = seed_rng(seed, 1).permutation(list(cards_of(deal.live)))
    size = rules.hand_size
    return Arrangement(tuple(mask_of(int(c) for c in cards[s * size:(s + 1) * size]) for s in range(rules.n_slots)))


def greedy_arrangement(tables: DealTables) -> Arrangement:
    """The ``greedy`` player's arrangement (see module doc for the tie rules)."""
    order = np.argsort(-tables.packets.keys.astype(np.int64), kind="stable")  # strongest first, ties by index
    masks = tables.masks[order]
    used = 0
    taken: list[int] = []
    n_slots = tables.n_slots
    for m in masks.tolist():
        if len(taken) == n_slots - 1:
            break
        if m & used == 0:
            taken.append(m)
            used |= m
    taken.append(tables.deal.live & ~used)
    # taken[0] is the strongest; a stable sort by key keeps earlier-taken packets higher
    keyed = [(int(tables.packets.keys[tables.index_of(m)]), -i, m) for i, m in enumerate(taken)]
    keyed.sort()
    return Arrangement(tuple(m for _, _, m in keyed))


@dataclass(frozen=True)
class Greedy:
    name: str = "greedy"

    def marginals(self, tables: DealTables) -> np.ndarray:
        return ArrangementMix((greedy_arrangement(tables),), (1.0,), self.name).marginals(tables)


@dataclass(frozen=True)
class ArrangementMix:
    """A finite mix of arrangements with probabilities (a population, an equilibrium mix)."""

    arrangements: tuple[Arrangement, ...]
    probabilities: tuple[float, ...]
    name: str = "mix"

    def __post_init__(self) -> None:
        if len(self.arrangements) != len(self.probabilities) or not self.arrangements:
            raise OpponentError("a mix needs one probability per arrangement, and at least one")
        if any(not math.isfinite(p) or p < 0 for p in self.probabilities) or sum(self.probabilities) <= 0:
            raise OpponentError("mix weights must be non-negative numbers with a positive sum")

    def marginals(self, tables: DealTables) -> np.ndarray:
        out = np.zeros((tables.n_slots, tables.n_classes), dtype=np.float64)
        total = float(sum(self.probabilities))
        for arrangement, p in zip(self.arrangements, self.probabilities, strict=True):
            arrangement.validate(tables.deal)
            for s, c in enumerate(tables.arrangement_classes(arrangement)):
                out[s, c] += p / total
        return out


@dataclass(frozen=True)
class Mixture:
    """A weighted mixture of opponent models (weights relative)."""

    components: tuple[OpponentModel, ...]
    weights: tuple[float, ...]

    @property
    def name(self) -> str:
        total = sum(self.weights)
        return ",".join(f"{m.name}:{w / total:g}" for m, w in zip(self.components, self.weights, strict=True))

    def marginals(self, tables: DealTables) -> np.ndarray:
        total = sum(self.weights)
        return sum(
            (w / total) * m.marginals(tables) for m, w in zip(self.components, self.weights, strict=True)
        )  # type: ignore[return-value]


@dataclass(frozen=True, eq=False)
class FixedMarginals:
    """A model given by its marginals on one deal (e.g. another model's, computed once)."""

    name: str
    values: np.ndarray  # float64 (n_slots, R) of the deal they were computed for

    def marginals(self, tables: DealTables) -> np.ndarray:
        if self.values.shape != (tables.n_slots, tables.n_classes):
            raise OpponentError(f"the marginals of {self.name} have shape {self.values.shape}, "
                                f"this deal needs {(tables.n_slots, tables.n_classes)}")
        return self.values


def _read_population_rows(path: Path) -> list[tuple[object, float]]:
    text = path.read_text(encoding="utf-8")
    rows: list[tuple[object, float]] = []
    if path.suffix.lower() == ".csv" or (not text.lstrip().startswith(("[", "{"))):
        reader = csv.reader(line for line in text.splitlines() if line.strip() and not line.startswith("#"))
        for i, row in enumerate(reader, start=1):
            cells = [c.strip() for c in row]
            if i == 1 and cells and cells[0].lower() in ("arrangement", "packets", "slot1"):
                continue  # header
            if len(cells) in (1, 2):
                arr, weight = cells[0], cells[1] if len(cells) == 2 else "1"
            elif len(cells) in (5, 6):
                arr, weight = " | ".join(cells[:5]), cells[5] if len(cells) == 6 else "1"
            else:
                raise OpponentError(f"{path}: row {i}: expected 'arrangement[,weight]' or 5 packets[,weight]")
            try:
                rows.append((arr, float(weight)))
            except ValueError:
                raise OpponentError(f"{path}: row {i}: weight {quote(weight)} is not a number") from None
        return rows
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OpponentError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    return _json_population_rows(data, str(path))


def _json_population_rows(data: object, where: str) -> list[tuple[object, float]]:
    if isinstance(data, dict):
        data = data.get("arrangements", data.get("population"))
    if not isinstance(data, list):
        raise OpponentError(f"{where}: expected a JSON list of arrangements")
    rows: list[tuple[object, float]] = []
    for i, entry in enumerate(data, start=1):
        given: object = 1.0
        item = entry
        if isinstance(entry, dict):
            given = entry.get("weight", entry.get("probability", 1.0))
            item = entry.get("arrangement")
        if not isinstance(given, (int, float)) or isinstance(given, bool):
            raise OpponentError(f"{where}: arrangement {i}: weight must be a number")
        rows.append((item, float(given)))
    return rows


def load_population(path: str | Path, deal: Deal) -> ArrangementMix:
    """Observed arrangements from JSON or CSV, each validated against ``deal``.

    JSON: a list whose items are an arrangement string (``"Ah Kh … | … "``), a list of five
    card lists, or ``{"arrangement": …, "weight": w}``; optionally wrapped as
    ``{"arrangements": [...]}``.  CSV: rows ``arrangement,weight`` or five packet cells and
    an optional weight; a header row and ``#`` comments are allowed.
    """
    path = Path(path)
    if not path.is_file():
        raise OpponentError(f"population file {str(path)!r} not found")
    return _population_mix(_read_population_rows(path), deal, str(path), f"population:{path.name}")


def population_from_json(data: object, deal: Deal, *, name: str = "population",
                         limit: int | None = None) -> ArrangementMix:
    """Observed arrangements given as JSON data (already decoded), in the JSON forms
    ``load_population`` reads; each validated against ``deal``.  Errors name ``name``; at most
    ``limit`` arrangements."""
    if limit is not None and isinstance(data, list) and len(data) > limit:
        raise OpponentError(f"{name}: at most {limit:,} arrangements, got {len(data):,}")
    return _population_mix(_json_population_rows(data, name), deal, name, name)


def _population_mix(rows: list[tuple[object, float]], deal: Deal, where: str, name: str) -> ArrangementMix:
    if not rows:
        raise OpponentError(f"{where}: no arrangements")
    arrangements = []
    for i, (item, _) in enumerate(rows, start=1):
        if not isinstance(item, (str, list)):
            raise OpponentError(f"{where}: arrangement {i}: expected a string or a list of five packets")
        try:
            arrangement = Arrangement.parse(item, deal.rules)
            arrangement.validate(deal)
        except (ArrangementError, CardError) as exc:
            raise OpponentError(f"{where}: arrangement {i}: {exc}") from None
        arrangements.append(arrangement)
    weights = tuple(w for _, w in rows)
    return ArrangementMix(tuple(arrangements), weights, name=name)
