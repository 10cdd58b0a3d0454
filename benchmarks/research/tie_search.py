"""Close a deal's pure security level: constraint generation over every arrangement with a tie.

The level is min_P E(P), E(P) = max_Q u(Q, P), u(Q, P) = Σ_s w_s sign(c(Q_s) − c(P_s)) (points,
an integer).  Given an arrangement with E = U (the upper bound), the level is U exactly iff no
arrangement has E ≤ T = U − 1.  Two families cover every arrangement P:

* **P has five different strengths**: E(P) ≥ 11 (the reorder bound, ``pure_security``), so
  nothing to search when U ≤ 11;
* **P has a tie**: some slots a < b hold two disjoint packets of one class k.  For each class k
  with such pairs, each slot pair (a, b) and each pair, every completion — the other 15 cards
  split into three packets in the other three slots (126,126 splits × 6 orders) — is either
  *excluded* by a cut or *evaluated* exactly.

**The cuts** (constraint generation): a set S of the opponent's arrangements, each a best response
found on the way; for fixed Q, u(Q, P) depends on P's classes only, so Q excludes every P with
u(Q, P) > T (then E(P) ≥ u(Q, P) > T).  The master — the arrangements with a tie not excluded by
S — is solved by enumeration with two levels of exclusion:

1. *pair level* (all pairs of a class at once): the completion's classes are at most M, the
   strongest packet inside the 15 cards left; u(Q, ·) is nondecreasing in Q's classes and
   nonincreasing in P's, so u(Q, P) ≥ w_a sgn(q_a − k) + w_b sgn(q_b − k) + Σ_{s ≠ a,b} w_s
   sgn(q_s − M) for every completion; a pair is excluded when this exceeds T for some Q ∈ S;
2. *completion level*: every completion of a pair not excluded, against every Q ∈ S (vectorised);
   then the structural bounds of ``pure_security`` (reorder, re-split of tied pairs: each an
   arrangement the opponent has).

A completion that survives both is evaluated by the exact best response Q*: if E ≤ T it is a
better arrangement (U and T fall; what was excluded stays excluded — its bound exceeded a larger
T), else Q* joins S and excludes it and its like.  When the enumeration ends, every arrangement
with a tie has E > T: **the level is U, proved**.  Any bound is only ever an arrangement the
opponent can lay, so the proof has no tolerance; the search stops (open bracket) at its CPU cap.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations

import numpy as np

from solver.games.quintet_game import QuintetGame, Strategy

__all__ = ["TieSearch", "close_level"]

_SUBSETS15 = np.array(list(combinations(range(15), 5)), dtype=np.int64)  # 3003 × 5 positions


def _splits15() -> np.ndarray:
    """Every split of 15 positions into three groups of five, each once, as three indices into
    ``_SUBSETS15`` (126,126 × 3): the first group holds position 0, the second the lowest left."""
    index = {s: i for i, s in enumerate(map(tuple, _SUBSETS15.tolist()))}
    out = []
    for a in combinations(range(1, 15), 4):
        left = [x for x in range(1, 15) if x not in a]
        for b in combinations(left[1:], 4):
            out.append((index[(0, *a)], index[(left[0], *b)],
                        index[tuple(x for x in left[1:] if x not in b)]))
    return np.array(out, dtype=np.int64)


_SPLIT15 = _splits15()
_ORDERS3 = np.array(list(permutations(range(3))), dtype=np.int64)
_PERMS5 = np.array(list(permutations(range(5))), dtype=np.int64)


@dataclass
class TieSearch:
    """The outcome: ``upper`` (E of ``arrangement``, exact), ``proved`` when every arrangement
    with a tie has E ≥ ``upper`` (so the level is ``upper`` when ``upper`` ≤ 11), the cuts used
    (``cuts``), exact best responses evaluated (``evaluated``), pairs examined / excluded at
    the pair level, completions that passed every cut, and CPU seconds."""

    upper: int
    arrangement: Strategy
    proved: bool
    cuts: list[Strategy] = field(default_factory=list)
    evaluated: int = 0
    pairs: int = 0
    pairs_excluded: int = 0
    survivors: int = 0
    cpu: float = 0.0


class _Master:
    def __init__(self, game: QuintetGame, upper: int, arrangement: Strategy, cuts: Sequence[Strategy],
                 structural, time_limit: float | None) -> None:  # type: ignore[no-untyped-def]
        self.game = game
        tables = game.tables
        self.w = np.asarray(tables.rules.weights, dtype=np.int64)
        self.classes = tables.classes.astype(np.int64)
        self.masks = tables.masks.astype(np.int64)
        order = np.argsort(self.masks, kind="stable")
        self.sorted_masks, self.sorted_index = self.masks[order], order
        self.by_strength = np.argsort(-self.classes, kind="stable")  # packets, strongest first
        self.upper, self.arrangement = upper, arrangement
        self.cut_list: list[Strategy] = []
        self.cut_classes = np.zeros((0, len(self.w)), dtype=np.int64)
        for q in cuts:
            self.add_cut(q)
        self.structural = structural  # P (packet indices by slot) → a proven lower bound on E(P)
        self.time_limit = time_limit
        self.evaluated = 0
        self.survivors = 0

    @property
    def T(self) -> int:
        return self.upper - 1

    def add_cut(self, q: Strategy) -> None:
        """Q and its hands in every other slot order (each an arrangement the opponent has)."""
        if q in self.cut_list:
            return
        self.cut_list.append(q)
        rows = np.unique(self.classes[list(q)][_PERMS5], axis=0)
        self.cut_classes = np.unique(np.vstack([self.cut_classes, rows]), axis=0)

    def index_of(self, masks: np.ndarray) -> np.ndarray:
        return self.sorted_index[np.searchsorted(self.sorted_masks, masks)]

    def strongest_two(self, rest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(M1, M2) per card set (int64 masks): M1 the class of the strongest packet inside it,
        M2 the largest c such that two disjoint packets inside it both have class ≥ c (M2 ≤ M1;
        every split of the set into packets has its second strongest class ≤ M2)."""
        n = len(rest)
        m1 = np.full(n, -1, dtype=np.int64)
        m2 = np.full(n, -1, dtype=np.int64)
        seen: list[list[int]] = [[] for _ in range(n)]  # masks of the packets inside, strongest first
        todo = np.arange(n)
        for start in range(0, len(self.by_strength), 2048):
            chunk = self.by_strength[start:start + 2048]
            cm = self.masks[chunk]
            fits = (cm[None, :] & ~rest[todo][:, None]) == 0
            done = np.zeros(len(todo), dtype=bool)
            for row, col in zip(*np.nonzero(fits), strict=True):
                i = int(todo[row])
                if done[row]:
                    continue
                x = int(cm[col])
                if m1[i] < 0:
                    m1[i] = self.classes[chunk[col]]
                if any(x & y == 0 for y in seen[i]):
                    m2[i] = self.classes[chunk[col]]
                    done[row] = True
                seen[i].append(x)
            todo = todo[~done]
            if not len(todo):
                break
        return m1, m2

    def evaluate(self, p: Strategy) -> None:
        """The exact best response to P: a better upper bound, or a new cut."""
        r = self.game.best_response([p], np.ones(1), time_limit=self.time_limit, hint=None, stop_event=None)
        self.evaluated += 1
        found = int(round(r.value))  # the payoff of a response the opponent has: E(P) ≥ found
        self.add_cut(tuple(int(x) for x in r.strategy))
        if r.proven and found < self.upper:
            self.upper, self.arrangement = found, p
        elif not r.proven and found <= self.T:
            raise _Unproven  # E(P) is neither known nor excluded

    def maximal_splits(self, rest_mask: int) -> tuple[np.ndarray, np.ndarray]:
        """The splits of these 15 cards into three packets whose class triple (sorted, strongest
        first) no other split's triple dominates: (packets, classes), each k × 3, strongest first.
        Every split is dominated by one of them slot by slot (in the matching order), and E is
        nonincreasing in P's classes, so these decide every completion."""
        cards = np.array([1 << c for c in range(64) if rest_mask >> c & 1], dtype=np.int64)
        packets = self.index_of(cards[_SUBSETS15].sum(axis=1))  # the 3003 packets inside
        tri = self.classes[packets][_SPLIT15]  # 126126 × 3
        order = np.argsort(-tri, axis=1)
        tri = np.take_along_axis(tri, order, axis=1)
        big = int(self.classes.max()) + 1
        _, first = np.unique((tri[:, 0] * big + tri[:, 1]) * big + tri[:, 2], return_index=True)
        cand = tri[first]
        # dominated by another triple iff one with c1' ≥ c1 and c2' ≥ c2 has c3' ≥ c3 (2-D suffix maxima)
        v1, i1 = np.unique(cand[:, 0], return_inverse=True)
        v2, i2 = np.unique(cand[:, 1], return_inverse=True)
        i1, i2 = i1.ravel(), i2.ravel()
        cell = np.full((len(v1) + 1, len(v2) + 1), -1, dtype=np.int64)
        np.maximum.at(cell, (i1, i2), cand[:, 2])
        suffix = np.maximum.accumulate(np.maximum.accumulate(cell[::-1, ::-1], axis=0), axis=1)[::-1, ::-1]
        dominated = (np.maximum(suffix[i1 + 1, i2], suffix[i1, i2 + 1]) >= cand[:, 2]) | (cell[i1, i2] > cand[:, 2])
        rows = first[~dominated]
        split_packets = np.take_along_axis(packets[_SPLIT15[rows]], order[rows], axis=1)
        return split_packets, tri[rows]

    def completions(self, k: int, pair: tuple[int, int], slots: list[tuple[int, int]], rest_mask: int) -> None:
        """Every completion of this tied pair in each of these slot pairs: excluded or evaluated."""
        packets, cls = self.maximal_splits(rest_mask)
        for a, b in slots:
            others = [s for s in range(len(self.w)) if s not in (a, b)]
            for o in _ORDERS3:  # the split's o[j]-th strongest packet in slot others[j]
                q = self.cut_classes
                base = self.w[a] * np.sign(q[:, a] - k) + self.w[b] * np.sign(q[:, b] - k)
                u = base[None, :] + sum(self.w[s] * np.sign(q[None, :, s] - cls[:, o[j], None])
                                        for j, s in enumerate(others))
                for row in np.flatnonzero(u.max(axis=1, initial=-10 ** 9) <= self.T).tolist():
                    p = [0] * len(self.w)
                    p[a], p[b] = pair
                    for j, s in enumerate(others):
                        p[s] = int(packets[row, o[j]])
                    strategy = tuple(p)
                    q = self.cut_classes
                    if (np.sign(q - self.classes[list(strategy)][None, :]) @ self.w).max(initial=-10 ** 9) > self.T:
                        continue  # a cut found since excludes it
                    if self.structural(strategy) > self.T:
                        continue
                    self.survivors += 1
                    self.evaluate(strategy)


class _Unproven(Exception):
    """The search stopped at its CPU cap before it ruled every pair out: the bracket stays open."""


def close_level(game: QuintetGame, upper: int, arrangement: Strategy, cuts: Sequence[Strategy] = (),
                structural=None, *, cpu_limit: float = 60.0,  # type: ignore[no-untyped-def]
                time_limit: float | None = None) -> TieSearch:
    """Search every arrangement with a tie for one with E < ``upper`` (module doc).  ``cuts``:
    opponent arrangements to start S with; ``structural(P)``: a proven lower bound on E(P) (or
    None); stops unproved after ``cpu_limit`` CPU seconds."""
    start = time.process_time()
    master = _Master(game, upper, arrangement, cuts, structural or (lambda p: -10 ** 9), time_limit)
    tables = game.tables
    classes, masks = master.classes, master.masks
    live = int(tables.deal.live)
    n = len(master.w)
    slot_pairs = list(combinations(range(n), 2))
    order = np.argsort(classes, kind="stable")
    groups = np.split(order, np.flatnonzero(np.diff(classes[order])) + 1)
    proved = True
    pairs_seen = excluded = 0
    try:
        for group in sorted(groups, key=lambda g: -int(classes[g[0]])):
            if len(group) < 2:
                continue
            k = int(classes[group[0]])
            m = masks[group]
            ij = np.argwhere(np.triu((m[:, None] & m[None, :]) == 0, 1))
            if not len(ij):
                continue
            pa, pb = group[ij[:, 0]], group[ij[:, 1]]
            rest = live & ~(masks[pa] | masks[pb])
            pairs_seen += len(pa)
            m1, m2 = master.strongest_two(rest)
            tops, which = np.unique(np.stack([m1, m2], axis=1), axis=0, return_inverse=True)
            live_tops = np.zeros((len(tops), len(slot_pairs)), dtype=bool)
            for t, (a, b) in enumerate(slot_pairs):
                others = [s for s in range(n) if s not in (a, b)]
                q = master.cut_classes
                base = master.w[a] * np.sign(q[:, a] - k) + master.w[b] * np.sign(q[:, b] - k)  # per cut
                # the completion's strongest class ≤ M1 in one of the three slots, the others ≤ M2
                low = {s: master.w[s] * np.sign(q[:, s, None] - tops[None, :, 1]) for s in others}
                bound = np.min([base[:, None] + master.w[s] * np.sign(q[:, s, None] - tops[None, :, 0])
                                + sum(low[r] for r in others if r != s) for s in others], axis=0)
                live_tops[:, t] = bound.max(axis=0, initial=-10 ** 9) <= master.T
            live_slots = live_tops[which.ravel()]
            keep = np.flatnonzero(live_slots.any(axis=1))
            excluded += len(pa) - len(keep)
            # pairs leaving the same 15 cards have the same completions and classes: one decides all
            _, first = np.unique(rest[keep], return_index=True)
            for i in keep[np.sort(first)].tolist():
                if time.process_time() - start > cpu_limit:
                    raise _Unproven
                slots = [slot_pairs[t] for t in np.flatnonzero(live_slots[i]).tolist()]
                master.completions(k, (int(pa[i]), int(pb[i])), slots, int(rest[i]))
    except _Unproven:
        proved = False
    return TieSearch(upper=master.upper, arrangement=master.arrangement, proved=proved, cuts=master.cut_list,
                     evaluated=master.evaluated, pairs=pairs_seen, pairs_excluded=excluded,
                     survivors=master.survivors, cpu=time.process_time() - start)
