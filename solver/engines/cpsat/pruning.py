"""Pruning of (packet, slot) pairs for the CP-SAT model: exact ranks of value differences, slot
chains, and P1–P4 to a fixed point (``solver.engines.cpsat`` has the rules and why each is sound)."""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass

import numpy as np

from .kernels import B1, B2, PairLists, first_disjoint, level1_lhs, pair_prune
from .options import IMPROVE_EPS, PRUNE_TOL

__all__ = ["exact_difference_rank", "exchange_keys", "edge", "best_chains", "relations", "PruneState", "prune"]

MAX_ROUNDS = 30  # pruning rounds per phase (each only shrinks the pair set)
PLAIN_FIRST_ROUND = 20000  # first pruning round without the key filter above this many pairs
PAIR_CHUNK = 128  # candidates per pair_prune call (the deadline and the stop are checked between calls;
# rows are independent, so the chunk size changes nothing but how soon a check comes: ~0.1 s)


def exact_difference_rank(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Dense rank (int64, 0 = smallest) of the *exact* differences ``x − y`` of float64
    arrays: equal exact differences get equal ranks, and ``rank[i] < rank[j]`` exactly when
    ``x[i] − y[i] < x[j] − y[j]`` in real arithmetic (TwoSum; see the module doc)."""
    x = np.asarray(x, dtype=np.float64)
    ny = -np.asarray(y, dtype=np.float64)
    hi = x + ny
    bb = hi - x
    lo = (x - (hi - bb)) + (ny - bb)
    hi = hi + 0.0  # −0.0 → 0.0
    order = np.lexsort((lo, hi))
    hs, ls = hi[order], lo[order]
    new = np.empty(order.size, dtype=bool)
    if order.size:
        new[0] = True
        new[1:] = (hs[1:] != hs[:-1]) | (ls[1:] != ls[:-1])
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    return rank


def exchange_keys(V: np.ndarray, free: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """``rank[a, b]`` (a < b, free positions): exact dense rank of ``V[:, free[b]] −
    V[:, free[a]]`` per class; ``keys[j, k]`` the filter of P4: ``rank[j, k]`` if
    ``j < k``, ``−rank[k, j]`` if ``j > k`` (so ``keys[j, k, c(q)] ≥ keys[j, k, c(p)]`` for p
    in slot j, q in slot k of an exchange-stable arrangement)."""
    nf, R = len(free), V.shape[0]
    rank = np.zeros((nf, nf, R), dtype=np.int64)
    keys = np.zeros((nf, nf, R), dtype=np.int64)
    for a in range(nf):
        for b in range(a + 1, nf):
            rank[a, b] = exact_difference_rank(V[:, free[b]], V[:, free[a]])
            keys[a, b] = rank[a, b]
            keys[b, a] = -rank[a, b]
    return rank, keys


def edge(rank: np.ndarray, S: np.ndarray, a: int, b: int) -> bool:
    """D = V[:, b] − V[:, a] exactly nondecreasing in the class over the sorted classes S."""
    r = rank[a, b, S] if a < b else -rank[b, a, S]
    return bool(np.all(r[1:] >= r[:-1]))


def best_chains(n: int, edge: np.ndarray) -> list[list[int]]:
    """Vertex-disjoint paths in the digraph ``edge`` (n × n bools) with the most edges."""
    if n <= 1:
        return []
    perms = itertools.permutations(range(n)) if n <= 6 else [tuple(range(n))]
    best: list[list[int]] = []
    best_edges = 0
    for perm in perms:
        chains, run, n_edges = [], [perm[0]], 0  # cut the permutation at missing edges
        for v in perm[1:]:
            if edge[run[-1], v]:
                run.append(v)
                n_edges += 1
            else:
                if len(run) > 1:
                    chains.append(run)
                run = [v]
        if len(run) > 1:
            chains.append(run)
        if n_edges > best_edges:
            best, best_edges = chains, n_edges
            if best_edges == n - 1:
                break
    return best


def relations(nf: int, chains: list[list[int]]) -> np.ndarray:
    """rel[j, k] = +1 if k follows j on a chain (c_k ≥ c_j), −1 if it precedes, else 0."""
    rel = np.zeros((nf, nf), dtype=np.int64)
    for chain in chains:
        for i, j in enumerate(chain):
            for k in chain[:i]:
                rel[j, k] = -1
            for k in chain[i + 1:]:
                rel[j, k] = 1
    return rel


def _key_blocks(keys: np.ndarray, flat_cls: np.ndarray, off: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``fkey[j, i] = keys[j, k, flat_cls[i]]`` for position i of slot k's segment, and its
    maxima over aligned blocks of ``B1`` and ``B2`` positions (for ``_best_in``)."""
    nf = keys.shape[0]
    total = flat_cls.size
    fkey = np.empty((nf, total), dtype=np.int64)
    for k in range(nf):
        seg = slice(off[k], off[k + 1])
        fkey[:, seg] = keys[:, k, flat_cls[seg]]
    low = np.iinfo(np.int64).min

    def blocks(size: int) -> np.ndarray:
        n_blk = -(-total // size) if total else 0
        padded = np.full((nf, n_blk * size), low, dtype=np.int64)
        padded[:, :total] = fkey
        return padded.reshape(nf, n_blk, size).max(axis=2) if n_blk else padded[:, :0]

    return fkey, blocks(B1), blocks(B2)


@dataclass(frozen=True)
class PruneState:
    """Where a pruning phase starts: the candidate packets of the free slots, the pairs still alive, the
    hint and the relations that the rules use (values in real units)."""

    masks: np.ndarray  # the candidates' card masks
    classes: np.ndarray  # their classes
    values: np.ndarray  # values[i, j]: candidate i in free slot j
    alive: np.ndarray  # bool (candidate, free slot): the pairs not pruned yet (not changed: prune copies it)
    hint_pos: np.ndarray  # the hint's candidate positions, in free-slot order (kept alive: P5)
    target: float  # T, the hint's value: a pair stays if it may still beat it
    fixed_value: float  # the fixed slots' value
    rel: np.ndarray  # slot relations (``relations``; zeros: no chains)
    keys: np.ndarray  # the exchange keys of P4 (``exchange_keys``; zeros with exchange off)


def prune(state: PruneState, *, pair_level: bool, deadline: float, stop_event: threading.Event | None = None
          ) -> tuple[np.ndarray, float, int]:
    """P1–P4 to a fixed point from ``state.alive`` (P3 only with ``pair_level``; until ``deadline``, a
    ``time.perf_counter()`` value, or ``stop_event``; at least one round unless stopped).  Returns (alive,
    bound, rounds), ``bound`` the best P6 bound of the rounds (inf after none: the trivial bound stands)."""
    cmasks, ccls, Vc, hint_pos, T = state.masks, state.classes, state.values, state.hint_pos, state.target
    fixed_value, rel, keys = state.fixed_value, state.rel, state.keys

    def stopped() -> bool:
        return stop_event is not None and stop_event.is_set()

    def expired() -> bool:
        return time.perf_counter() >= deadline or stopped()

    n_cand, nf = Vc.shape
    desc = np.argsort(-ccls, kind="stable")
    cols = np.arange(nf)
    cls64 = ccls.astype(np.int64)
    alive = state.alive.copy()
    thresh = T + IMPROVE_EPS - PRUNE_TOL
    zero_keys = np.zeros_like(keys)
    bound = np.inf
    rounds = 0
    while rounds < MAX_ROUNDS and not stopped() and (rounds == 0 or not expired()):  # ≥ 1 round unless stopped
        rounds += 1
        lists = [desc[alive[desc, j]] for j in range(nf)]
        flat = np.concatenate(lists).astype(np.int64)
        flat_cls = cls64[flat]
        off = np.zeros(nf + 1, dtype=np.int64)
        off[1:] = np.cumsum([lst.size for lst in lists])
        # the key filter makes scans long; on the full first round the plain P1 (keys 0)
        # is much cheaper and already removes nearly everything
        k_round = zero_keys if rounds == 1 and alive.sum() > PLAIN_FIRST_ROUND else keys
        # (fkey, bm1, bm2 below and every kernel call of this round use k_round: consistent)
        fkey, bm1, bm2 = _key_blocks(k_round, flat_cls, off)
        pl = PairLists(cmasks, cls64, Vc, flat, flat_cls, off, rel, k_round, fkey, bm1, bm2)
        if k_round is zero_keys and not rel.any() and alive.all():
            # every slot's list is the same and unfiltered: one scan per packet (P1)
            pos = first_disjoint(cmasks[lists[0]], cmasks)
            best = np.where((pos >= 0)[:, None], Vc[lists[0][np.maximum(pos, 0)]], -np.inf)
            # (the strongest disjoint packet, in every slot; −inf: none)
            lhs = np.empty((n_cand, nf))
            for j in range(nf):
                others = np.zeros(n_cand)
                for k in range(nf):
                    if k != j:
                        others = others + best[:, k]
                lhs[:, j] = fixed_value + Vc[:, j] + others
        else:
            lhs = level1_lhs(pl, alive, fixed_value)
        new_alive = alive & (lhs >= thresh)
        new_alive[hint_pos, cols] = True
        bound = min(bound, max(T + IMPROVE_EPS, min(lhs[new_alive[:, j], j].max() for j in range(nf))))
        if np.array_equal(new_alive, alive):
            if k_round is zero_keys and keys.any():
                continue  # the next round applies the key filter before P3 runs
            if not pair_level or nf < 3:
                break
            rows = np.flatnonzero(alive.any(axis=1))
            new_alive = alive
            for lo in range(0, rows.size, PAIR_CHUNK):
                if expired():
                    break
                hi = min(lo + PAIR_CHUNK, rows.size)
                new_alive = pair_prune(pl, new_alive, thresh - fixed_value, rows[lo], rows[hi - 1] + 1)
            new_alive[hint_pos, cols] = True
            if np.array_equal(new_alive, alive):
                break
        alive = new_alive
    return alive, float(bound), rounds
