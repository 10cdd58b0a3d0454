"""Style models: how a player arranges, learned from records of *other* deals (``style:FILE``).

Records of one person hold arrangements of other deals, which ``population:`` cannot use.
A style model keeps what carries over from deal to deal:

* the **profile** of each recorded arrangement: its packets from the strongest to the
  second weakest, each as its *depth* ``log10(1 + c)``, where ``c`` counts the packets of
  the deal that are strictly stronger and share no card with the player's stronger packets
  (0: the strongest packet still makeable; a greedy player's profile is all zeros);
* per slot, the distribution over the **order** of the packet placed there among the
  player's five (1 = the strongest of the five … 5 = the weakest) and over its **category**
  (both with add-``smoothing`` counts).

On a new deal (``marginals``) a partition heuristic follows the profiles: ``partitions``
times, take a recorded profile plus Gaussian noise (``jitter``, in log10 units) and build the
packets strongest first, each time taking a free packet whose depth is nearest the target
(ties drawn at random); the fifth packet is the cards left.  Each partition's packets are
laid in the slots with probability ∝ Π_s P_s(order) · P_s(category) over all 5! orders.
The per-slot marginals of that mix are the model (all an opponent model needs).

Deterministic: the draws are seeded by ``seed`` and the deal's exposed cards.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from pathlib import Path

import numpy as np

from quintet.game import Arrangement, Deal
from quintet.rules import Category, Rules
from solver.problem.deal_tables import DealTables
from solver.storage.records import RecordError, player_games_from_json, read_player_games

__all__ = ["StyleModel", "fit_style", "load_style", "arrangement_profile"]


def _free_stronger(keys: np.ndarray, masks: np.ndarray, used: int, key: int) -> int:
    """How many packets share no card with ``used`` and are strictly stronger than ``key``."""
    return int(np.count_nonzero((keys > key) & ((masks & masks.dtype.type(used)) == 0)))


def arrangement_profile(tables: DealTables, arrangement: Arrangement) -> tuple[
        tuple[float, ...], tuple[int, ...], tuple[int, ...]]:
    """(depths, orders, categories) of a legal arrangement, as the style model sees it.

    ``depths[k]``: the depth (see the module doc) of the (k+1)-th strongest packet, k < n−1;
    ``orders[s]``: 0-based strength order of slot s's packet among the five (0 = strongest;
    equal hands in slot order); ``categories[s]``: its ``Category`` id.
    """
    idx = [tables.index_of(p) for p in arrangement.packets]
    keys = tables.packets.keys.astype(np.int64)
    masks = tables.masks
    slot_keys = [int(keys[i]) for i in idx]
    ranked = sorted(range(len(idx)), key=lambda s: (-slot_keys[s], s))
    orders = [0] * len(idx)
    for position, s in enumerate(ranked):
        orders[s] = position
    depths = []
    used = 0
    for s in ranked[:-1]:
        depths.append(math.log10(1 + _free_stronger(keys, masks, used, slot_keys[s])))
        used |= arrangement.packets[s]
    categories = tuple(int(tables.packets.categories[i]) for i in idx)
    return tuple(depths), tuple(orders), categories


@dataclass(frozen=True)
class StyleModel:
    """A fitted style (see the module doc); ``marginals`` makes it an opponent model."""

    profiles: tuple[tuple[float, ...], ...]  # one per record: depths of packets 1..n−1
    order_probabilities: tuple[tuple[float, ...], ...]  # [slot][order]
    category_probabilities: tuple[tuple[float, ...], ...]  # [slot][Category id]
    name: str = "style"
    seed: int = 0
    partitions: int = 256
    jitter: float = 0.1

    def partition_counts(self, tables: DealTables) -> Counter[tuple[int, ...]]:
        """The heuristic's partitions of the deal (packet indices, in the order built) and
        how often each was built, out of ``partitions``."""
        n = tables.n_slots
        if len(self.order_probabilities) != n:
            raise ValueError(f"this style was fitted for {len(self.order_probabilities)} slots, the deal has {n}")
        rng = np.random.default_rng([self.seed, tables.deal.exposed])
        keys = tables.packets.keys.astype(np.int64)
        masks = tables.masks
        live = tables.deal.live
        profiles = np.asarray(self.profiles, dtype=np.float64)
        levels_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        counts: Counter[tuple[int, ...]] = Counter()
        for _ in range(self.partitions):
            targets = profiles[rng.integers(len(profiles))] + rng.normal(0.0, self.jitter, n - 1)
            free = np.arange(len(keys))
            used = 0
            chosen = []
            for step, target in enumerate(targets):
                free_keys = keys[free]
                if step == 0 and 0 in levels_cache:
                    levels, depth = levels_cache[0]
                else:
                    levels, level_counts = np.unique(free_keys, return_counts=True)  # ascending
                    stronger = len(free_keys) - np.cumsum(level_counts)
                    depth = np.log10(1.0 + stronger)
                    if step == 0:
                        levels_cache[0] = (levels, depth)
                level = levels[int(np.argmin(np.abs(depth - target)))]
                candidates = free[free_keys == level]
                pick = int(candidates[rng.integers(len(candidates))])
                chosen.append(pick)
                mask = int(masks[pick])
                used |= mask
                free = free[(masks[free] & masks.dtype.type(mask)) == 0]
            chosen.append(tables.index_of(live & ~used))
            counts[tuple(chosen)] += 1
        return counts

    def marginals(self, tables: DealTables) -> np.ndarray:
        n = tables.n_slots
        orders = np.log(np.asarray(self.order_probabilities))
        categories = np.log(np.asarray(self.category_probabilities))
        perms = np.array(list(permutations(range(n))))  # perms[i, s]: the packet laid in slot s
        slots = np.arange(n)
        out = np.zeros((n, tables.n_classes))
        counts = self.partition_counts(tables)
        total = sum(counts.values())
        for packets, count in counts.items():
            keys = tables.packets.keys[list(packets)].astype(np.int64)
            rank = np.empty(n, dtype=np.int64)
            rank[np.argsort(-keys, kind="stable")] = slots  # 0 = the strongest of the five
            cats = tables.packets.categories[list(packets)]
            score = orders[:, rank] + categories[:, cats]  # [slot, packet j]
            perm_scores = score[slots, perms].sum(axis=1)
            weights = np.exp(perm_scores - perm_scores.max())
            weights *= (count / total) / weights.sum()
            classes = tables.classes[list(packets)]
            for s in range(n):
                np.add.at(out[s], classes[perms[:, s]], weights)
        return out


def fit_style(games: Sequence[tuple[Deal, Arrangement]], *, name: str = "style", seed: int = 0,
              partitions: int = 256, jitter: float = 0.1, smoothing: float = 0.5) -> StyleModel:
    """Fit a style to arrangements of (other) deals; see the module doc for the parameters."""
    if not games:
        raise RecordError("a style needs at least one recorded arrangement")
    n = games[0][0].rules.n_slots
    order_counts = np.full((n, n), smoothing)
    category_counts = np.full((n, len(Category)), smoothing)
    profiles = []
    for deal, arrangement in games:
        arrangement.validate(deal)
        depths, orders, cats = arrangement_profile(DealTables.build(deal), arrangement)
        profiles.append(depths)
        for s in range(n):
            order_counts[s, orders[s]] += 1
            category_counts[s, cats[s]] += 1
    order_p = order_counts / order_counts.sum(axis=1, keepdims=True)
    category_p = category_counts / category_counts.sum(axis=1, keepdims=True)
    return StyleModel(
        tuple(profiles), tuple(map(tuple, order_p.tolist())), tuple(map(tuple, category_p.tolist())),
        name=name, seed=seed, partitions=partitions, jitter=jitter,
    )


@lru_cache(maxsize=16)
def _load(path: str, mtime_ns: int, size: int, rules: Rules) -> StyleModel:
    return fit_style(read_player_games(path, rules), name=f"style:{Path(path).name}")


def load_style(path: str | Path, rules: Rules) -> StyleModel:
    """The style fitted on a records file (JSON lines with ``exposed`` and ``player``; see
    ``solver.storage.records``).  Raises ``RecordError`` (one line) for a file that cannot be used.
    Fitted once per file version (cached on path, modification time and size)."""
    path = Path(path)
    try:
        stat = os.stat(path)
    except OSError:
        raise RecordError(f"records file {str(path)!r} not found") from None
    return _load(str(path.resolve()), stat.st_mtime_ns, stat.st_size, rules)


def style_from_records(entries: object, rules: Rules, *, limit: int | None = None) -> StyleModel:
    """The style fitted on game records given as JSON data (the HTTP API's ``style`` field):
    a list of objects with ``exposed`` and ``player``.  Raises ``RecordError`` (one line)."""
    return fit_style(player_games_from_json(entries, rules, where="style", limit=limit), name="style")
