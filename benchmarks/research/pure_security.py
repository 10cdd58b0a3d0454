"""A deal's pure security level: the least exploitability of a single arrangement, proved.

For an arrangement P its *exploitability* E(P) = max_Q u(Q, P) is an exact best response's value
(an integer: slot weights times ±1 or 0).  A deal's *pure security level* is min_P E(P): what a
player who never randomises concedes to a best response (an equilibrium concedes 0).

Two lower bounds on E(P), both from arrangements the opponent can lay with the same 25 cards:

* **reorder** — P's own five hands in another slot order: E(P) ≥ R(P) = max_σ Σ_s w_s
  sign(c(P_σ(s)) − c(P_s)), a function of the weak order of P's classes over the slots.  Five
  different strengths: the opponent wins every slot but the one with P's strongest hand (shift
  every hand one place), R ≥ 11, 11 with the strongest in slot 5.  Ties lower it
  (``reorder_table``): one tied pair 6, two tie groups 2 or 3, a triple and a pair 0.
* **re-split** — P's tied hands re-split into other hands, the rest copied: E(P) ≥ the gain on
  the tied slots alone.  Two equal high-card hands (five ranks in two suits) re-split into two
  two-pairs; two equal one-pair hands into four of a kind and two pair; two equal two-pairs into
  two fours of a kind: both slots won, E(P) ≥ 3 + 4 = 7.  Equal straights, flushes and straight
  flushes are checked by trying all 126 re-splits of their ten cards.

**The search.**  The least E found (an upper bound): an equilibrium's partitions, greedy, the best
responses to uniform and greedy, and tie constructions (a tied pair of a *strong* class — one no
re-split beats on both slots — in the slots that minimise R, the rest completed by the exact
engine).  Then every partition with two tie groups of strong classes (two disjoint pairs, a
triple, four of one class) is enumerated and E evaluated on each slot order whose R is below the
best; partitions with a weak tie are excluded by the re-split bound (7) once the best is ≤ 7.
The level is **proved** when the best found is at most every bound left: 11 (no tie), 6 (one tied
pair), 7 (a weak tie) and the enumerated partitions; otherwise the answer is [lower, upper].
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations, permutations

import numpy as np

from quintet.rules import Category
from solver.engines.base import solve
from solver.games.quintet_game import QuintetGame, Strategy
from solver.problem.best_response import BestResponseProblem, slot_values
from solver.problem.opponents import Uniform

from .tie_search import TieSearch, close_level

__all__ = ["reorder_gain", "reorder_table", "least_bound", "TieClasses", "tie_classes", "exploitability",
           "SecurityLevel", "pure_security_level", "WEAK_CATEGORIES"]

WEAK_CATEGORIES = (Category.HIGH_CARD, Category.PAIR, Category.TWO_PAIR)
"""Classes whose tied pairs a re-split always beats on both slots (module doc; checked per class)."""


_PERMS = np.array(list(permutations(range(5))), dtype=np.int64)  # the 120 slot orders of five hands


def reorder_gain(classes: Sequence[int], weights: Sequence[int]) -> int:
    """R: the most an opponent gains by laying these hands (rank classes by slot) in another slot
    order against them."""
    return _reorder_gain(tuple(int(c) for c in classes), tuple(int(w) for w in weights))


@lru_cache(maxsize=8192)
def _reorder_gain(classes: tuple[int, ...], weights: tuple[int, ...]) -> int:
    n = len(classes)
    best = -(10 ** 9)
    for sigma in permutations(range(n)):
        gain = 0
        for s in range(n):
            a, b = classes[sigma[s]], classes[s]
            gain += weights[s] * ((a > b) - (a < b))
        best = max(best, gain)
    return best


@lru_cache(maxsize=16)
def reorder_table(weights: tuple[int, ...]) -> dict[tuple[int, ...], tuple[int, tuple[int, ...]]]:
    """Per tie structure — the sizes of the groups of equal hands, weakest group first — the
    least R over slot assignments and an assignment reaching it (a strength rank per slot)."""
    n = len(weights)
    out: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}
    for ranks in np.ndindex(*(n,) * n):
        levels = sorted(set(ranks))
        if levels != list(range(len(levels))):
            continue
        composition = tuple(ranks.count(v) for v in levels)
        r = _reorder_gain(tuple(ranks), weights)
        if composition not in out or r < out[composition][0]:
            out[composition] = (r, tuple(ranks))
    return out


def least_bound(sizes: Sequence[int], weights: tuple[int, ...]) -> int:
    """The least R of an arrangement whose equal hands form groups of these sizes (in any order)."""
    target = sorted(sizes)
    return min(r for comp, (r, _) in reorder_table(weights).items() if sorted(comp) == target)


@dataclass
class TieClasses:
    """The deal's classes with two disjoint packets: ``weak`` (a re-split beats a tied pair on both
    slots, checked on one pair of each: class → its packet count) and ``strong`` (class → its
    disjoint pairs, as packet indices), each strong pair's re-split bound ``pair_bound`` (the least,
    over the two slots it could fill, of the most a re-split of its ten cards gains there), and
    ``groups(c)``: the strong class's triples and quadruples of pairwise-disjoint packets."""

    weak: dict[int, int]
    strong: dict[int, list[tuple[int, int]]]
    pair_bound: dict[tuple[int, int], int]
    pair_gain: dict[tuple[int, int], np.ndarray] = field(default_factory=dict, repr=False)  # per slot pair
    _members: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    _masks: np.ndarray | None = field(default=None, repr=False)

    def groups(self, c: int) -> Iterator[tuple[int, ...]]:
        """Triples and quadruples of pairwise-disjoint packets of strong class ``c`` (lazily)."""
        group = self._members[c]
        assert self._masks is not None
        m = self._masks[group]
        disjoint = (m[:, None] & m[None, :]) == 0
        for i, j in np.argwhere(np.triu(disjoint, 1)).tolist():
            common = np.flatnonzero(disjoint[i] & disjoint[j])
            common = common[common > j]
            for k in common.tolist():
                yield int(group[i]), int(group[j]), int(group[k])
                for q in common[common > k].tolist():
                    if disjoint[k, q]:
                        yield int(group[i]), int(group[j]), int(group[k]), int(group[q])


def _packets_by_class(game: QuintetGame) -> list[np.ndarray]:
    classes = game.tables.classes
    order = np.argsort(classes, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(classes[order])) + 1)


def _resplits(cards: int, deck_size: int) -> Iterator[tuple[int, int]]:
    """The ways to split these cards (ten) into two packets of five, each once (as masks)."""
    bits = [c for c in range(deck_size) if cards >> c & 1]
    for rest in combinations(bits[1:], len(bits) // 2 - 1):
        a = (1 << bits[0]) | sum(1 << c for c in rest)
        yield a, cards & ~a


_SPLITS = np.array([(0, *rest) for rest in combinations(range(1, 10), 4)], dtype=np.int64)  # 126 × 5


def _resplit_classes(game: QuintetGame, unions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ten-card masks (n,): the classes of both packets of each of the 126 re-splits (n × 126)."""
    tables = game.tables
    order = np.argsort(tables.masks.astype(np.int64), kind="stable")
    ordered = tables.masks.astype(np.int64)[order]
    n = len(unions)
    bits = np.zeros((n, 10), dtype=np.int64)  # the ten cards of each union, lowest first
    rest = unions.copy()
    for k in range(10):
        low = rest & -rest
        bits[:, k] = low
        rest = rest ^ low
    first = bits[:, _SPLITS].sum(axis=2)  # n × 126 (distinct bits: the sum is the OR)
    second = unions[:, None] - first

    def classes_of(x: np.ndarray) -> np.ndarray:
        return tables.classes[order[np.searchsorted(ordered, x.ravel())]].reshape(x.shape)

    return classes_of(first), classes_of(second)


def _weak_resplit(game: QuintetGame, pair: tuple[int, int]) -> tuple[int, int]:
    """The module doc's re-split of a weak tied pair: pairs of equal ranks put together (two pairs,
    four of a kind).  Returns the two new packets' masks."""
    tables = game.tables
    deck = tables.rules.deck
    cards = int(tables.masks[pair[0]]) | int(tables.masks[pair[1]])
    by_rank: dict[int, list[int]] = {}
    for c in range(deck.size):
        if cards >> c & 1:
            by_rank.setdefault(deck.rank_of(c), []).append(c)
    groups = sorted(by_rank.values(), key=len, reverse=True)  # quads first, then pairs
    flat = [c for g in groups for c in g]
    if len(groups[0]) == 4:  # one pair (4 + 2 + 2 + 2) or two pair (4 + 4 + 2): a quad and the rest
        first = flat[:4] + [groups[-1][0]]
    else:  # high card: five ranks, two cards each: r1 r1 r2 r2 r3 / r4 r4 r5 r5 r3
        first = groups[0] + groups[1] + [groups[2][0]]
    x = sum(1 << c for c in first)
    return x, cards & ~x


def tie_classes(game: QuintetGame) -> TieClasses:
    """Sort the deal's tie classes into weak and strong (``TieClasses``)."""
    tables = game.tables
    masks = tables.masks.astype(np.int64)
    weights = np.asarray(tables.rules.weights, dtype=np.int64)
    index = {int(m): i for i, m in enumerate(masks.tolist())}
    slot_pairs = list(combinations(range(len(weights)), 2))
    weak: dict[int, int] = {}
    strong: dict[int, list[tuple[int, int]]] = {}
    members: dict[int, np.ndarray] = {}
    pair_bound: dict[tuple[int, int], int] = {}
    pair_gain: dict[tuple[int, int], np.ndarray] = {}
    for group in _packets_by_class(game):
        if len(group) < 2:
            continue
        c = int(tables.classes[group[0]])
        m = masks[group]
        disjoint = np.argwhere(np.triu((m[:, None] & m[None, :]) == 0, 1))
        if not len(disjoint):
            continue
        if Category(int(tables.packets.categories[group[0]])) in WEAK_CATEGORIES:
            i, j = map(int, disjoint[0])
            x, y = _weak_resplit(game, (int(group[i]), int(group[j])))
            if tables.classes[index[x]] > c and tables.classes[index[y]] > c:
                weak[c] = len(group)
                continue
        pairs = [(int(group[i]), int(group[j])) for i, j in disjoint.tolist()]
        strong[c] = pairs
        members[c] = group
        unions = np.array([masks[a] | masks[b] for a, b in pairs], dtype=np.int64)
        for start in range(0, len(pairs), 4096):
            ca, cb = _resplit_classes(game, unions[start:start + 4096])
            sa, sb = np.sign(ca - c), np.sign(cb - c)  # n × 126
            # per pair: the least over slot pairs (p, q) of the best re-split and assignment
            gains = np.stack([np.maximum(weights[p] * sa + weights[q] * sb, weights[p] * sb + weights[q] * sa)
                              .max(axis=1) for p, q in slot_pairs], axis=1)
            for pair, g in zip(pairs[start:start + 4096], gains, strict=True):
                pair_bound[pair] = int(g.min())
                pair_gain[pair] = g
    return TieClasses(weak=weak, strong=strong, pair_bound=pair_bound, pair_gain=pair_gain, _members=members,
                      _masks=masks)


def _triple_bound(game: QuintetGame, ties: TieClasses, c: int, weights: tuple[int, ...]) -> int:
    """A lower bound on E of any arrangement holding three equal hands of this class: 0 unless a
    re-split of the three (five ranks, three suits each) into a full house, a full house and three
    of a kind beats two of them — then the two highest of any three slot weights minus the third,
    at least 4 + 5 − 3 = 6.  Checked on one triple of the class (all share its ranks)."""
    triple = next(ties.groups(c), None)
    if triple is None:
        return 10 ** 6  # no triple: nothing to bound
    tables = game.tables
    deck = tables.rules.deck
    cards = int(np.bitwise_or.reduce(tables.masks[list(triple[:3])].astype(np.int64)))
    by_rank: dict[int, list[int]] = {}
    for c in range(deck.size):
        if cards >> c & 1:
            by_rank.setdefault(deck.rank_of(c), []).append(c)
    ranks = list(by_rank.values())
    if len(ranks) != 5 or any(len(r) != 3 for r in ranks):
        return 0
    first = ranks[0] + ranks[1][:2]
    second = ranks[2] + ranks[3][:2]
    index = {int(m): i for i, m in enumerate(tables.masks.tolist())}
    c = int(tables.classes[triple[0]])
    beaten = sum(int(tables.classes[index[sum(1 << x for x in packet)]]) > c for packet in (first, second))
    if beaten < 2:
        return 0
    return min(sorted(t)[1] + sorted(t)[2] - sorted(t)[0] for t in combinations(weights, 3))


def exploitability(game: QuintetGame, strategy: Strategy, time_limit: float | None = None) -> tuple[float, bool]:
    """E(P): the exact best response's value against the arrangement (proven, or its bound)."""
    r = game.best_response([strategy], np.ones(1), time_limit=time_limit, hint=None, stop_event=None)
    return (r.value if r.proven else r.bound), r.proven


@dataclass
class SecurityLevel:
    """``lower ≤ min_P E(P) ≤ upper`` (points), ``exact`` when they meet; ``arrangement`` has
    E = ``upper`` (proven unless ``upper_proven`` is False); ``limiting``: the bound that sets
    ``lower``; ``evaluated``: exact best responses; ``enumerated``: strong two-group partitions
    examined (``complete``: all of them)."""

    lower: int
    upper: float
    upper_proven: bool
    arrangement: Strategy
    limiting: str
    weak_classes: int
    strong_classes: int
    evaluated: int
    enumerated: int
    complete: bool
    sources: dict[str, float] = field(default_factory=dict)
    closed: TieSearch | None = None  # the tie search's outcome, when it ran

    @property
    def exact(self) -> bool:
        return self.upper <= self.lower + 1e-9


class _Search:
    def __init__(self, game: QuintetGame, time_limit: float | None, max_evaluations: int) -> None:
        self.game = game
        self.weights = tuple(int(w) for w in game.tables.rules.weights)
        self.time_limit = time_limit
        self.max_evaluations = max_evaluations
        self.best: tuple[float, Strategy, bool] = (float("inf"), (), True)
        self.evaluated = 0
        self.seen: set[Strategy] = set()
        self.ties: TieClasses | None = None
        self.triple_floor: dict[int, int] = {}
        self.slot_pairs = list(combinations(range(len(self.weights)), 2))
        self.killers: list[Strategy] = []  # best responses found: every one bounds E of any order
        self.killer_set: set[Strategy] = set()

    def classes(self, strategy: Sequence[int]) -> tuple[int, ...]:
        return tuple(int(c) for c in self.game.tables.classes[list(strategy)])

    def bound(self, order: tuple[int, ...]) -> int:
        """A lower bound on E(order): the reorder bound R, and every way of re-splitting some tied
        pairs (each gains its ``pair_gain`` on its two slots) while reordering the other hands
        among their own slots — the gains add, the blocks being disjoint; a weak pair re-split
        wins both its slots; three equal straights or flushes re-split into two full houses and
        three of a kind win two of their three slots."""
        classes = self.classes(order)
        w = self.weights
        best = reorder_gain(classes, w)
        if self.ties is None:
            return best
        n = len(order)
        pairs: list[tuple[tuple[int, int], int]] = []  # (slots, gain when re-split)
        for c in set(classes):
            slots = [s for s in range(n) if classes[s] == c]
            if len(slots) < 2:
                continue
            for a, b in combinations(slots, 2):
                if c in self.ties.weak:
                    pairs.append(((a, b), w[a] + w[b]))
                else:
                    gains = self.ties.pair_gain.get((min(order[a], order[b]), max(order[a], order[b])))
                    if gains is not None:
                        pairs.append(((a, b), int(gains[self.slot_pairs.index((a, b))])))
            if len(slots) >= 3 and self.triple_floor.get(c, 0) > 0:
                for t in combinations(slots, 3):
                    ws = sorted(w[x] for x in t)
                    rest = [x for x in range(n) if x not in t]
                    best = max(best, ws[1] + ws[2] - ws[0] + _reorder_gain(tuple(classes[x] for x in rest),
                                                                          tuple(w[x] for x in rest)))
        for k in (1, 2):
            for chosen in combinations(pairs, k):
                used = [x for slots, _ in chosen for x in slots]
                if len(set(used)) < len(used):
                    continue
                rest = [x for x in range(n) if x not in used]
                gain = sum(g for _, g in chosen) + _reorder_gain(tuple(classes[x] for x in rest),
                                                                 tuple(w[x] for x in rest))
                best = max(best, gain)
        return best

    def partition(self, packets: Sequence[int], max_orders: int | None = None, target: float = float("inf")) -> bool:
        """Evaluate E on the slot orders of a partition whose lower bound is below the best and
        below ``target`` (least bound first, at most ``max_orders``); False when such an order was
        left unevaluated.  The bound of an order: ``bound`` (reorders and re-splits), and the
        payoff of every best response found so far against it (each a strategy the opponent has:
        a cutting plane, cheap to evaluate on all orders at once)."""
        order_array = np.asarray(packets, dtype=np.int64)[_PERMS]  # 120 × 5: every slot order
        orders = [tuple(int(p) for p in o) for o in order_array.tolist()]
        classes = self.game.tables.classes[order_array].astype(np.int64)
        # the reorder bound of every order at once: max over τ of Σ_s w_s sign(c[τ(s)] − c[s])
        gains = (np.sign(classes[:, _PERMS] - classes[:, None, :]) * np.asarray(self.weights)).sum(axis=2)
        floor = gains.max(axis=1).astype(float)
        if self.killers:
            floor = np.maximum(floor, self.game.payoffs(self.killers, orders).max(axis=0))
        threshold = min(self.best[0], target) - 1e-9
        keep = np.flatnonzero(floor < threshold)
        ranked = sorted((max(self.bound(orders[i]), float(floor[i])), orders[i]) for i in keep.tolist())
        done = 0
        for r, o in ranked:
            if r >= min(self.best[0], target) - 1e-9:
                return True
            if o in self.seen:
                continue
            if self.killers and float(self.game.payoffs(self.killers[-8:], [o]).max()) >= \
                    min(self.best[0], target) - 1e-9:
                continue  # a response found since this partition's cut was computed excludes it
            if (max_orders is not None and done >= max_orders) or self.evaluated >= self.max_evaluations:
                return False
            response = self.game.best_response([o], np.ones(1), time_limit=self.time_limit, hint=None,
                                               stop_event=None)
            value, proven = (response.value if response.proven else response.bound), response.proven
            self.seen.add(o)
            self.evaluated += 1
            done += 1
            if response.strategy not in self.killer_set:
                self.killer_set.add(response.strategy)
                self.killers.append(response.strategy)
            if value < self.best[0]:
                self.best = (value, o, proven)
        return True


def _complete(game: QuintetGame, fixed: dict[int, int], time_limit: float | None) -> tuple[int, ...] | None:
    """The best response to uniform with these slots fixed (slot → packet index): a strong
    completion of a tie construction (None if the fixed packets overlap)."""
    tables = game.tables
    values = slot_values(Uniform().marginals(tables), tables.rules.weights, "margin")
    try:
        problem = BestResponseProblem(tables, values, tuple(fixed.get(s, -1) for s in range(tables.n_slots)))
    except ValueError:
        return None
    return tuple(int(p) for p in solve(problem, game.engine.with_time_limit(time_limit)).packets)


def pure_security_level(game: QuintetGame, candidates: Sequence[Strategy] = (), *, time_limit: float | None = None,
                        max_evaluations: int = 6000, max_enumerated: int = 500_000,
                        constructions: int = 40, close_cpu: float = 0.0) -> SecurityLevel:
    """The deal's pure security level, proved or bracketed (module doc).  ``candidates``: more
    arrangements to start from (e.g. an equilibrium's support, whose partitions are tried in every
    slot order the bound allows).  ``close_cpu``: CPU seconds for ``tie_search.close_level`` when
    the bracket stays open (0: not tried)."""
    tables = game.tables
    weights = tuple(int(w) for w in tables.rules.weights)
    search = _Search(game, time_limit, max_evaluations)
    sources: dict[str, float] = {}
    for strategy in dict.fromkeys(tuple(sorted(c)) for c in candidates):
        search.partition(strategy, max_orders=3)
    sources["candidates"] = search.best[0]
    ties = tie_classes(game)
    one_tie = least_bound((2, 1, 1, 1), weights)
    # tie constructions: a strong tied pair (low re-split bound) in the slots that minimise R
    pairs = sorted((ties.pair_bound[s], -c, s) for c, sets in ties.strong.items() for s in sets)
    tried = 0
    for composition in ((1, 1, 1, 2), (1, 1, 2, 1), (1, 2, 1, 1), (2, 1, 1, 1)):
        _, ranks = reorder_table(weights)[composition]
        tied = [s for s in range(len(weights)) if ranks.count(ranks[s]) == 2]
        for bound, _, pair in pairs:
            if search.best[0] <= max(bound, one_tie) or tried >= constructions:
                break
            done = _complete(game, {tied[0]: pair[0], tied[1]: pair[1]}, time_limit)
            tried += 1
            if done is not None:
                search.partition(done, max_orders=2)
    sources["constructions"] = search.best[0]
    # every partition with two strong tie groups whose bounds are below the best
    masks = tables.masks.astype(np.int64)
    index = {int(m): i for i, m in enumerate(masks.tolist())}
    live = int(tables.deal.live)
    deck_size = tables.rules.deck.size
    triple_floor = {c: _triple_bound(game, ties, c, weights) for c in ties.strong}
    search.ties, search.triple_floor = ties, triple_floor

    cap = [float("inf")]  # phase 2's target: bounds at or above it need no evaluation

    def below(bound: float) -> bool:
        return bound < min(search.best[0], cap[0]) - 1e-9

    def two_group_partitions() -> Iterator[tuple[tuple[int, ...], float]]:
        """(packets, their tie groups' bound) of every partition with two strong tie groups whose
        bound is below the best (checked again as the best falls), strongest classes first."""
        for c in sorted(ties.strong, reverse=True):  # triples and quadruples of a class
            if not below(triple_floor[c]):
                continue
            for group in ties.groups(c):
                used = int(np.bitwise_or.reduce(masks[list(group)]))
                if len(group) == 4:
                    yield (*group, index[live & ~used]), triple_floor[c]
                else:
                    for a, b in _resplits(live & ~used, deck_size):
                        yield (*group, index[a], index[b]), triple_floor[c]
        for ca, cb in sorted(combinations(sorted(strong_pairs), 2), key=lambda t: (-t[1], -t[0])):
            if not below(two_groups):
                continue
            threshold = min(search.best[0], cap[0]) - 1e-9
            (pa, ma, ba), (pb, mb, bb) = strong_pairs[ca], strong_pairs[cb]
            keep_a, keep_b = np.flatnonzero(ba < threshold), np.flatnonzero(bb < threshold)
            if not len(keep_a) or not len(keep_b):
                continue
            for start in range(0, len(keep_a), 256):
                rows = keep_a[start:start + 256]
                bound = np.maximum(np.maximum(ba[rows][:, None], bb[keep_b][None, :]), two_groups)
                hits = np.argwhere(((ma[rows][:, None] & mb[keep_b][None, :]) == 0) & (bound < threshold))
                for i, j in hits.tolist():
                    a, b = int(rows[i]), int(keep_b[j])
                    if below(float(bound[i, j])):
                        yield (*pa[a], *pb[b], index[live & ~int(ma[a] | mb[b])]), float(bound[i, j])

    two_groups = least_bound((2, 2, 1), weights)
    strong_pairs = {c: (sets, np.array([masks[a] | masks[b] for a, b in sets], dtype=np.int64),
                        np.array([ties.pair_bound[p] for p in sets], dtype=float))
                    for c, sets in ties.strong.items()}
    # phase 1, to find low levels: the best slot order of each two-group partition, within a budget
    # of evaluations and of partitions examined (most are excluded without an evaluation, at a
    # cost each: unbounded, this phase ran for many minutes on some deals)
    budget = search.evaluated + max_evaluations // 4
    for examined, (packets, floor) in enumerate(two_group_partitions()):
        if search.evaluated >= budget or examined >= max_enumerated or not below(floor):
            break
        search.partition(packets, max_orders=1)
    sources["two strong ties, first orders"] = search.best[0]
    # phase 2, the proof: worth it only when no other bound is below the best (one tied pair: 6,
    # a weak tie: 7): every order of every partition below the best, evaluated or excluded
    # (to the target of the next bound: a proof that two tie groups cannot go below it)
    target = min(one_tie if ties.strong else 99, weights[0] + weights[1] if ties.weak else 99, 11)
    cap[0] = target
    enumerated = 0
    complete = True
    for packets, _ in two_group_partitions():
        enumerated += 1
        if enumerated > max_enumerated or not search.partition(packets, target=target):
            complete = False
            break
    sources["two strong ties"] = search.best[0]
    best = search.best[0]
    # the bounds left for what was neither evaluated nor excluded
    remaining = {"five different strengths (R ≥ 11)": least_bound((1, 1, 1, 1, 1), weights)}
    if ties.weak:
        remaining["a weak tie (re-split ≥ 7)"] = weights[0] + weights[1]
    if ties.strong:
        remaining["one strong tied pair (R ≥ 6)"] = one_tie
    if complete:
        remaining["two strong tie groups (enumerated)"] = target
    else:
        floors = [two_groups] + [b for b in triple_floor.values()]
        remaining["two strong tie groups, not all enumerated"] = min(floors)
    limiting = min(remaining, key=lambda k: remaining[k])
    lower = int(min(remaining[limiting], np.floor(best + 1e-9)))
    if remaining[limiting] >= best:
        limiting = "the best found"
    closed: TieSearch | None = None
    if lower < best and close_cpu > 0 and search.best[2] and best <= remaining["five different strengths (R ≥ 11)"]:
        # every arrangement without a tie has E ≥ 11 ≥ best: the tie search decides the level
        closed = close_level(game, int(round(best)), search.best[1], search.killers, search.bound,
                             cpu_limit=close_cpu, time_limit=time_limit)
        best = float(closed.upper)
        search.best = (best, closed.arrangement, True)
        sources["tie search"] = best
        lower = min(lower, int(best))
        if closed.proved:
            lower, limiting = int(best), "the tie search (every tie excluded or evaluated)"
    return SecurityLevel(lower=lower, upper=best, upper_proven=search.best[2], arrangement=search.best[1],
                         limiting=limiting, weak_classes=len(ties.weak), strong_classes=len(ties.strong),
                         evaluated=search.evaluated + (closed.evaluated if closed else 0), enumerated=enumerated,
                         complete=complete, sources=sources, closed=closed)
