"""The card abstraction of heads-up draw poker: classes of hands before and after the exchange.

The solved game does not see cards; a player sees the **class** of his hand, computed from the
exact percentile tables of ``quintet.draw.tables`` and ``quintet.draw.policy``:

* **before the exchange** — the hand's exact best exchange (``ExchangePolicy``: the keep whose
  final hand has the highest mean percentile over every draw) gives two numbers: ``d*``, the
  number of cards that exchange draws, and ``E*``, its mean percentile.  Hands are grouped by
  ``d*`` (a pat hand, a one-card draw, … — what the other player will see drawn), and each
  group is cut into classes of equal numbers of hands by ``E*``: about ``pre`` classes shared by
  the groups in proportion to their hands, at least one a group, and at least
  min(``GROUP_MIN``, pre / 6) for a group of 5% of the hands or more;
* **before the exchange, by distribution** (``emd=True``; Johanson et al. 2013) — the same groups by
  ``d*`` and the same number of classes in each, but a group's hands are clustered by the whole
  distribution of their final hand's class (over the final classes below, exact for every hand), by
  the earth mover's distance between those histograms (``emd_clusters``: k-medians on the CDFs,
  exact EMD in one dimension), and the clusters numbered by their mean ``E*``.  A hand's class is
  then looked up in a table of every hand of the deck (``HandClasses.pre_of``);
* **the joker apart** (``joker=True``, with either of the above) — within each group, the hands that
  hold a joker and those that do not are classed apart (the group's classes shared between them in
  proportion to their hands, at least one each), and the group's classes numbered by their mean
  ``E*``; a hand's class is looked up in the table too;
* **after the exchange** — the final hand's percentile among all hands of the deck, cut into
  ``post`` classes, finer at the top: class boundaries are the quantiles 1 - (1 - i/post)² of the
  final hands of players who exchanged by the policy (a seeded sample of 400,000 deals), so the
  strong hands that make big pots are told apart.  Every class is a union of whole rank classes
  of the evaluator: a higher class always beats a lower one; two hands of one class tie in the
  abstract game.

**Exact**: the exchange action "draw d" keeps the best ``5 - d`` cards (by the same exact
mean percentile), and the transition ``T[d, a, b]`` — the chance that a hand of class ``a``
drawing ``d`` ends in class ``b`` — is counted over every hand of the deck and every draw
from the 31 (…49) cards it does not hold, by inclusion–exclusion over superset counts (no
sampling).  ``prior[a]`` is the exact share of the deck's hands in class ``a``.  **Not kept**:
which hand of its class a player holds, and card removal between the two players (each
player's classes are drawn independently).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import comb

import numpy as np
from numba import njit

from ...rules import Rules
from .. import kernels as draw_kernels
from ..policy import exchange_policy

__all__ = ["HandClasses", "hand_classes", "emd_distance", "emd_clusters", "PRE_CLASSES", "POST_CLASSES",
           "BOUNDARY_SAMPLES"]

PRE_CLASSES = 30
POST_CLASSES = 32
GROUP_MIN = 5  # classes at least, for a group of 5% of the hands or more
BOUNDARY_SAMPLES = 400_000
BOUNDARY_CHUNK = 20_000
BOUNDARY_SEED = 2026


@dataclass(frozen=True, eq=False)
class HandClasses:
    """The abstraction of one rule set (module doc).

    * ``group_first[g]`` — the first pre-exchange class of the hands whose best exchange draws g cards
      (``group_first[6]`` = the number of pre-exchange classes); ``pre_cuts[g]`` — the E* values that
      cut group g (a hand of E* ≥ cut i is above it);
    * ``post_cuts`` — the percentiles that cut the final hands (a percentile > cut i is above it);
    * ``prior`` — float64[pre]; ``transitions`` — float64[6, pre, post];
    * ``pre_range`` — float64[pre, 2]: the E* range of each pre-exchange class; ``post_range`` — the
      percentile range of each final class (both for people);
    * ``pre_of`` — classes by distribution (``emd``) or with the joker apart (``joker``): the pre-exchange
      class of every hand of the deck (int16, colex order of the hand's deck positions), which replaces
      ``pre_cuts``; None for classes by mean alone.
    """

    rules: Rules
    group_first: np.ndarray
    pre_cuts: tuple[np.ndarray, ...]
    post_cuts: np.ndarray
    prior: np.ndarray
    transitions: np.ndarray
    pre_range: np.ndarray
    post_range: np.ndarray
    pre_of: np.ndarray | None = None

    @property
    def n_pre(self) -> int:
        return int(self.group_first[-1])

    @property
    def n_post(self) -> int:
        return int(self.post_cuts.shape[0]) + 1

    def pre_class(self, hand: tuple[int, ...] | list[int]) -> int:
        """The pre-exchange class of five card ints."""
        if self.pre_of is not None:
            policy = exchange_policy(self.rules)
            positions = sorted(int(policy.position_of[c]) for c in hand)
            return int(self.pre_of[sum(int(policy.big_binom[p, i + 1]) for i, p in enumerate(positions))])
        drawn, value = best_draw(self.rules, hand)
        return self.pre_class_of(drawn, value)

    def pre_class_of(self, drawn: int, value: float) -> int:
        return int(self.group_first[drawn]) + int(np.searchsorted(self.pre_cuts[drawn], value, side="right"))

    def post_class(self, mask: int) -> int:
        """The class of a final hand (card mask)."""
        return self.post_class_of(exchange_policy(self.rules).percentile(mask))

    def post_class_of(self, percentile: float) -> int:
        return int(np.searchsorted(self.post_cuts, percentile, side="left"))

    def group_of(self, pre: int) -> int:
        """The number of cards the best exchange of the class's hands draws."""
        return int(np.searchsorted(self.group_first, pre, side="right")) - 1


def draw_values(rules: Rules, hand: tuple[int, ...] | list[int]) -> tuple[list[int], list[float]]:
    """For d = 0..5: the best keep-mask drawing exactly d cards (bit i keeps ``hand[i]``) and its exact
    mean percentile (ties: the lower mask)."""
    policy = exchange_policy(rules)
    totals = policy.totals(hand)
    keeps, values = [], []
    for d in range(6):
        masks = [s for s in range(32) if 5 - s.bit_count() == d]
        best = max(masks, key=lambda s: (int(totals[s]), -s))
        keeps.append(best)
        values.append(int(totals[best]) / (2 * policy.tables.n_hands * int(policy.n_draws[d])))
    return keeps, values


def best_draw(rules: Rules, hand: tuple[int, ...] | list[int]) -> tuple[int, float]:
    """(d*, E*): the number of cards the policy's best exchange draws, and its mean percentile."""
    policy = exchange_policy(rules)
    keep = policy.best(hand)
    d = 5 - keep.bit_count()
    return d, draw_values(rules, hand)[1][d]


@njit(cache=True, nogil=True)
def _next_hand(pos, n):
    """The next 5-subset of positions 0..n-1 after ``pos`` (increasing) in colex order, in place."""
    i = 0
    while i < 4 and pos[i] + 1 == pos[i + 1]:
        i += 1
    pos[i] += 1
    for j in range(i):
        pos[j] = j


@njit(cache=True, nogil=True)
def _holds(is_marked, n_hands, out):
    """out[h] = whether hand h (colex order of positions) holds a position marked in ``is_marked``."""
    n = is_marked.shape[0]
    pos = np.arange(5)
    for h in range(n_hands):
        hit = False
        for i in range(5):
            hit |= is_marked[pos[i]]
        out[h] = hit
        _next_hand(pos, n)


@njit(cache=True, nogil=True)
def _draw_options(cards, position_of, card_rank, card_suitbit, binom, offsets, cell_value, sums, big_binom,
                  set_offsets, n_draws, keeps, totals, best):
    """Every hand of the deck (colex order of positions): the best keep per number of cards drawn, its
    total over every draw, and the number the best exchange draws (ties: fewer cards)."""
    n = cards.shape[0]
    hand = np.empty(5, dtype=np.int64)
    pos = np.arange(5)
    for h in range(keeps.shape[0]):  # every hand, colex order of positions
        for i in range(5):
            hand[i] = cards[pos[i]]
        value = cell_value[draw_kernels.cell_of(hand[0], hand[1], hand[2], hand[3], hand[4],
                                                card_rank, card_suitbit, binom, offsets)]
        tot = draw_kernels.exchange_totals(hand, position_of, value, sums, big_binom, set_offsets)
        for k in range(6):
            keeps[h, k] = -1
        for s in range(32):
            k = 5 - ((s & 1) + (s >> 1 & 1) + (s >> 2 & 1) + (s >> 3 & 1) + (s >> 4 & 1))
            if keeps[h, k] < 0 or tot[s] > totals[h, k]:
                keeps[h, k] = s
                totals[h, k] = tot[s]
        top = 0
        for k in range(1, 6):
            if draw_kernels._ratio_less(totals[h, top], n_draws[top], totals[h, k], n_draws[k]):
                top = k
        best[h] = top
        _next_hand(pos, n)


@njit(cache=True, nogil=True)
def _final_counts(hand, pos, card_rank, card_suitbit, binom, offsets, cell_bucket, bucket_sums, big_binom, set_offsets,
                  g):
    """g[s, q] = the number of draws keeping the hand's positions in mask s (bit i: ``hand[i]``) that end in final
    class q: the superset counts of the hand's 32 subsets (``bucket_sums[set, q]``: the hands of the deck
    containing the set in final class q) and one Möbius inversion over them (``quintet.draw.kernels``,
    section "exchange values")."""
    n_post = bucket_sums.shape[1]
    for t in range(31):  # the subsets of the hand's positions (increasing: colex index)
        k = 0
        index = 0
        for i in range(5):
            if (t >> i) & 1:
                k += 1
                index += big_binom[pos[i], k]
        row = set_offsets[k] + index
        for q in range(n_post):
            g[t, q] = bucket_sums[row, q]
    for q in range(n_post):
        g[31, q] = 0
    own = cell_bucket[draw_kernels.cell_of(hand[0], hand[1], hand[2], hand[3], hand[4],
                                           card_rank, card_suitbit, binom, offsets)]
    g[31, own] = 1
    for i in range(5):  # Möbius inversion over supersets
        bit = 1 << i
        for t in range(32):
            if not t & bit:
                for q in range(n_post):
                    g[t, q] -= g[t | bit, q]


@njit(cache=True, nogil=True)
def _transition_counts(cards, position_of, card_rank, card_suitbit, binom, offsets, cell_bucket, bucket_sums,
                       big_binom, set_offsets, keeps, pre, counts):
    """counts[d, pre class, final class] += the number of draws of d cards, keeping the best 5 - d, that end
    in each final class, over every hand of the deck (same order as ``_draw_options``)."""
    n = cards.shape[0]
    n_post = bucket_sums.shape[1]
    hand = np.empty(5, dtype=np.int64)
    g = np.zeros((32, n_post), dtype=np.int64)
    pos = np.arange(5)
    for h in range(keeps.shape[0]):  # every hand, colex order of positions
        for i in range(5):
            hand[i] = cards[pos[i]]
        _final_counts(hand, pos, card_rank, card_suitbit, binom, offsets, cell_bucket, bucket_sums, big_binom,
                      set_offsets, g)
        p = pre[h]
        for k in range(6):
            s = keeps[h, k]
            for q in range(n_post):
                counts[k, p, q] += g[s, q]
        _next_hand(pos, n)


@njit(cache=True, nogil=True)
def _histograms(cards, card_rank, card_suitbit, binom, offsets, cell_bucket, bucket_sums, big_binom, set_offsets,
                keeps, best, hist):
    """hist[h, q] = the number of draws of hand h's best exchange that end in final class q (every hand of the
    deck, same order as ``_draw_options``)."""
    n = cards.shape[0]
    n_post = bucket_sums.shape[1]
    hand = np.empty(5, dtype=np.int64)
    g = np.zeros((32, n_post), dtype=np.int64)
    pos = np.arange(5)
    for h in range(keeps.shape[0]):
        for i in range(5):
            hand[i] = cards[pos[i]]
        _final_counts(hand, pos, card_rank, card_suitbit, binom, offsets, cell_bucket, bucket_sums, big_binom,
                      set_offsets, g)
        s = keeps[h, best[h]]
        for q in range(n_post):
            hist[h, q] = g[s, q]
        _next_hand(pos, n)


def _cuts(values: np.ndarray, quantiles: np.ndarray) -> np.ndarray:
    """Distinct cut values at these quantiles of ``values`` (sorted)."""
    if values.size == 0:
        return np.zeros(0)
    return np.unique(np.quantile(values, quantiles, method="lower"))


def emd_distance(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> float:
    """The earth mover's distance between two histograms (any positive totals, normalised) over the increasing
    positions ``x``: in one dimension the L1 distance of their CDFs, each gap weighted by its length."""
    fa, fb = np.cumsum(a) / a.sum(), np.cumsum(b) / b.sum()
    return float(np.abs(fa - fb)[:-1] @ np.diff(x))


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weighted median of each column (the lower one of two)."""
    order = np.argsort(values, axis=0, kind="stable")
    cum = np.cumsum(weights[order], axis=0)
    at = np.argmax(cum >= cum[-1] / 2, axis=0)
    return values[order[at, np.arange(values.shape[1])], np.arange(values.shape[1])]


def emd_clusters(hist: np.ndarray, weight: np.ndarray, x: np.ndarray, k: int, iterations: int = 100) -> np.ndarray:
    """Cluster histograms (rows over the positions ``x``, each of multiplicity ``weight``) into at most k clusters
    by earth mover's distance: k-medians on the CDFs (the L1 distance of CDFs, weighted by the gaps of ``x``, is
    the EMD, and the coordinate-wise median of CDFs is the exact EMD centre), started from equal shares of the
    rows ordered by mean, until no row moves.  Returns each row's cluster, numbered by mean position (weakest
    first)."""
    total = hist.sum(axis=1, keepdims=True)
    cdf = (np.cumsum(hist, axis=1) / total)[:, :-1]
    gaps = np.diff(x)
    mean = (hist @ x) / total[:, 0]
    order = np.argsort(mean, kind="stable")
    share = np.cumsum(weight[order]) / weight.sum()
    labels = np.empty(hist.shape[0], dtype=np.int64)
    labels[order] = np.minimum((share * k - 1e-9).astype(np.int64), k - 1)
    centres = np.zeros((k, cdf.shape[1]))
    for _ in range(iterations):
        for c in range(k):
            rows = labels == c
            if rows.any():
                centres[c] = _weighted_median(cdf[rows], weight[rows])
        distance = np.stack([np.abs(cdf - centres[c]) @ gaps for c in range(k)], axis=1)
        moved = np.argmin(distance, axis=1)
        if np.array_equal(moved, labels):
            break
        labels = moved
    used = np.unique(labels)
    means = [np.average(mean[labels == c], weights=weight[labels == c]) for c in used]
    rank = np.empty(int(used.max()) + 1, dtype=np.int64)
    rank[used[np.argsort(means, kind="stable")]] = np.arange(used.size)
    return rank[labels]


@cache
def hand_classes(rules: Rules, pre: int = PRE_CLASSES, post: int = POST_CLASSES, emd: bool = False,
                 joker: bool = False) -> HandClasses:
    """Build the abstraction (module doc): a few seconds for 36 cards, under a minute for 54.  ``emd``: the classes
    before the exchange by the distribution of the final hand's strength, not its mean; ``joker``: the hands that
    hold a joker classed apart within each group (module doc)."""
    policy = exchange_policy(rules)
    t = policy.tables
    cards = np.array(rules.deck.cards(), dtype=np.int64)
    n_hands = comb(cards.shape[0], 5)
    keeps = np.empty((n_hands, 6), dtype=np.int64)
    totals = np.zeros((n_hands, 6), dtype=np.int64)
    best = np.empty(n_hands, dtype=np.int64)
    _draw_options(cards, policy.position_of, t.card_rank, t.card_suitbit, t.binom, t.offsets, policy.cell_value,
                  policy.sums, policy.big_binom, policy.set_offsets, policy.n_draws, keeps, totals, best)
    denominator = 2.0 * t.n_hands * policy.n_draws.astype(np.float64)
    value = totals[np.arange(n_hands), best] / denominator[best]

    # after the exchange: finer at the top, by the final hands of players exchanging by the policy
    rng = np.random.default_rng(BOUNDARY_SEED)
    parts = []
    for _ in range(BOUNDARY_SAMPLES // BOUNDARY_CHUNK):  # in chunks: a few MB at a time
        deals = np.ascontiguousarray(rng.permuted(np.tile(cards, (BOUNDARY_CHUNK, 1)), axis=1)[:, :10])
        finals, _ = draw_kernels.exchanged_hands(deals, policy.best_many(np.ascontiguousarray(deals[:, :5])))
        parts.append(t.percentiles[t.classes(finals)])
    sample = np.sort(np.concatenate(parts))
    post_cuts = _cuts(sample, 1.0 - (1.0 - np.arange(1, post) / post) ** 2)
    post_cuts = post_cuts[post_cuts < t.percentiles.max()]
    n_post = post_cuts.shape[0] + 1
    class_bucket = np.searchsorted(post_cuts, t.percentiles, side="left")
    cell_bucket = np.where(t.cell_class >= 0, class_bucket[np.maximum(t.cell_class, 0)], -1)
    bucket_sums = np.ascontiguousarray(np.stack([
        draw_kernels.superset_sums(cards, t.card_rank, t.card_suitbit, t.binom, t.offsets,
                                   (cell_bucket == q).astype(np.int64), policy.big_binom, policy.set_offsets)
        for q in range(n_post)
    ], axis=1))
    edges = np.concatenate([[0.0], post_cuts, [1.0]])
    post_range = np.stack([edges[:-1], edges[1:]], axis=1)

    # before the exchange: groups by cards drawn; in each, equal shares of its hands by E*, or EMD clusters
    mass = np.bincount(best, minlength=6) / n_hands
    sizes = np.where(mass > 0, np.maximum(1, np.round(mass * pre)), 0).astype(int)
    sizes = np.where(mass >= 0.05, np.maximum(sizes, min(GROUP_MIN, pre // 6)), sizes)  # pat hands: few, apart
    holds = np.zeros(n_hands, dtype=np.bool_)
    if joker:
        _holds(np.isin(cards, rules.deck.joker_cards), n_hands, holds)
    hist = np.zeros((n_hands, n_post if emd else 0), dtype=np.int64)
    if emd:
        _histograms(cards, t.card_rank, t.card_suitbit, t.binom, t.offsets, cell_bucket, bucket_sums,
                    policy.big_binom, policy.set_offsets, keeps, best, hist)
    pre_cuts: list[np.ndarray] = [np.zeros(0) for _ in range(6)]
    lookup: np.ndarray | None = None
    if emd or joker:
        pre_of = np.empty(n_hands, dtype=np.int64)
        first = np.zeros(7, dtype=np.int64)
        for d in range(6):
            rows = np.flatnonzero(best == d)
            if not sizes[d]:
                continue
            parts = [rows[holds[rows] == j] for j in (False, True)]
            parts = [part for part in parts if part.size]
            shares = [max(1, round(sizes[d] * part.size / rows.size)) for part in parts]
            labels, base = np.empty(rows.size, dtype=np.int64), 0
            where = np.empty(n_hands, dtype=np.int64)
            where[rows] = np.arange(rows.size)
            for part, k in zip(parts, shares, strict=True):
                cuts = _cuts(np.sort(value[part]), np.arange(1, k) / k)
                got = (_emd_labels(hist[part], post_range, k) if emd else  # below: empty classes dropped
                       np.unique(np.searchsorted(cuts, value[part], side="right"), return_inverse=True)[1])
                labels[where[part]] = base + got
                base += int(got.max()) + 1
            rank = np.arange(base)
            if len(parts) > 1:  # the joker apart: the group's classes numbered by mean E*, weakest first
                means = np.array([value[rows][labels == c].mean() for c in range(base)])
                rank[np.argsort(means, kind="stable")] = np.arange(base)
            pre_of[rows] = first[d] + rank[labels]
            first[d + 1:] = first[d] + base
        lookup = pre_of.astype(np.int16)
    else:
        group_first = [0]
        for d in range(6):
            cuts = (_cuts(np.sort(value[best == d]), np.arange(1, sizes[d]) / sizes[d]) if sizes[d] > 1
                    else np.zeros(0))
            pre_cuts[d] = cuts
            group_first.append(group_first[-1] + (len(cuts) + 1 if sizes[d] else 0))
        first = np.array(group_first, dtype=np.int64)
        pre_of = _pre_classes(best, value, first, pre_cuts)
    n_pre = int(first[-1])

    counts = np.zeros((6, n_pre, n_post), dtype=np.int64)
    _transition_counts(cards, policy.position_of, t.card_rank, t.card_suitbit, t.binom, t.offsets, cell_bucket,
                       bucket_sums, policy.big_binom, policy.set_offsets, keeps, pre_of, counts)
    size = np.bincount(pre_of, minlength=n_pre)
    transitions = counts / (policy.n_draws[:, None, None] * size[None, :, None])
    pre_range = np.array([[value[pre_of == a].min(), value[pre_of == a].max()] for a in range(n_pre)])
    return HandClasses(rules, first, tuple(pre_cuts), post_cuts, size / n_hands, transitions, pre_range, post_range,
                       lookup)


def _emd_labels(hist: np.ndarray, post_range: np.ndarray, k: int) -> np.ndarray:
    """EMD clusters (``emd_clusters``) of these hands' histograms, at most k, numbered weakest first."""
    unique, inverse, counts = np.unique(hist, axis=0, return_inverse=True, return_counts=True)
    labels = emd_clusters(unique.astype(np.float64), counts.astype(np.float64), post_range.mean(axis=1),
                          min(k, unique.shape[0]))
    return labels[inverse.ravel()]


def _pre_classes(best: np.ndarray, value: np.ndarray, first: np.ndarray, cuts: list[np.ndarray]) -> np.ndarray:
    out = np.empty(best.shape[0], dtype=np.int64)
    for d in range(6):
        rows = best == d
        out[rows] = first[d] + np.searchsorted(cuts[d], value[rows], side="right")
    return out
