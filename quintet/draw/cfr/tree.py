"""The game interface of the solvers: a two-player zero-sum game as a **public tree over private types**.

Every game the solvers take (``quintet.draw.cfr.solve``) is given in this one form, as
OpenSpiel's algorithms take any game through its ``Game``/``State`` interface:

* each player holds a private **type** (a card, a class of hands), drawn at the root from
  ``prior[player]`` — players' types are drawn independently; a correlation (cards dealt from
  one deck) is put into the payoff matrices as a likelihood ratio, below;
* every other move is **public**: a node of the tree is a public history, and a player's
  information set is (its type, the node) — so the game has perfect recall of actions;
* node kinds: ``DECISION`` (``player`` picks one of the children: the actions), ``CHANCE`` (a
  public chance move: every child is a public outcome; its probability is in the payoff
  matrices below the node, so the solvers *sum* over the children), ``TRANSITION`` (the
  ``player``'s type changes by chance, privately: ``matrix[node]`` is a row-stochastic matrix
  T with T[a, b] = P(new type b | type a); the draw of an exchange), and ``TERMINAL``;
* a terminal's payoff to player 0 for types (a, b) is
  ``coef[node, 0] * M[a, b] + coef[node, 1] * N[a, b]`` with M = ``matrix[node]`` and
  N = ``matrix2[node]`` (either may be ``NONE``); player 1 receives the opposite.  Besides dense
  matrices there are two implicit kinds, computed in O(types): ``ONES`` (every entry 1) and
  ``SIGN`` (sign(a - b): types ordered weakest first, the higher type wins, equal types tie).

With independent types the payoff of a history is the expectation over both players' types
of its matrix entry weighted by the priors and transitions; a game whose types are correlated
(Kuhn poker deals two cards from three) multiplies each entry by P(a, b) / (P(a) P(b)).

Build a tree with ``TreeBuilder`` (nodes in pre-order, children listed after their parent has
an id), then ``freeze()`` it into a ``PublicTree`` of flat numpy arrays, which the numba
kernels read.  ``labels`` name the actions for people; ``action`` codes are the game's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["DECISION", "CHANCE", "TRANSITION", "TERMINAL", "NONE", "ONES", "SIGN", "PublicTree", "TreeBuilder"]

DECISION, CHANCE, TRANSITION, TERMINAL = 0, 1, 2, 3
NONE, ONES, SIGN = -1, -2, -3  # matrix ids below 0: none, all ones, sign(a - b)


@dataclass(frozen=True, eq=False)
class PublicTree:
    """A frozen public tree (module doc); node 0 is the root.

    * ``kind``, ``player`` — int8 per node; ``parent`` — int32 (-1 at the root);
    * ``first``, ``count`` — a node's children are ``children[first : first + count]``;
    * ``action`` — int32 per node: the game's code of the move that led to it (-1 at the root);
    * ``types`` — int32 [node, 2]: how many types each player has at the node;
    * ``offset`` — int64 per decision node: where its block (types × actions, type-major) of the
      strategy arrays starts (-1 elsewhere); ``size`` — the arrays' length;
    * ``matrix``, ``matrix2`` — int32 matrix ids (dense ids index ``matrices``); ``coef`` — float64 [node, 2];
    * ``matrices`` — the dense matrices, float64 2-D arrays (``mat_data`` flattened, with ``mat_offset``
      and ``mat_cols``, for the kernels);
    * ``prior`` — the root's type distribution of each player.
    """

    kind: np.ndarray
    player: np.ndarray
    parent: np.ndarray
    first: np.ndarray
    count: np.ndarray
    children: np.ndarray
    action: np.ndarray
    types: np.ndarray
    offset: np.ndarray
    size: int
    matrix: np.ndarray
    matrix2: np.ndarray
    coef: np.ndarray
    matrices: tuple[np.ndarray, ...]
    mat_data: np.ndarray
    mat_offset: np.ndarray
    mat_cols: np.ndarray
    prior: tuple[np.ndarray, np.ndarray]
    labels: dict[int, str] = field(default_factory=dict)

    @property
    def n_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def max_types(self) -> int:
        return int(self.types.max())

    @property
    def max_actions(self) -> int:
        decisions = self.kind == DECISION
        return int(self.count[decisions].max()) if decisions.any() else 1

    @property
    def depth(self) -> int:
        """The number of nodes on the longest path from the root."""
        depth = np.zeros(self.n_nodes, dtype=np.int32)
        for node in range(1, self.n_nodes):  # pre-order: a parent comes before its children
            depth[node] = depth[self.parent[node]] + 1
        return int(depth.max()) + 1

    def child_list(self, node: int) -> list[int]:
        return self.children[self.first[node]: self.first[node] + self.count[node]].tolist()

    def decisions(self, player: int | None = None) -> np.ndarray:
        """Ids of the decision nodes (of ``player``, if given)."""
        mask = self.kind == DECISION
        if player is not None:
            mask &= self.player == player
        return np.flatnonzero(mask)


class TreeBuilder:
    """Grows a public tree node by node; ``freeze`` gives the ``PublicTree``.

    ``node(...)`` adds a node under ``parent`` (its children keep the order they were added in)
    and returns its id; ``matrix(m)`` registers a dense matrix and returns its id.
    """

    def __init__(self, prior0: Sequence[float] | np.ndarray, prior1: Sequence[float] | np.ndarray) -> None:
        self._prior = (np.asarray(prior0, dtype=np.float64), np.asarray(prior1, dtype=np.float64))
        for p in self._prior:
            if p.ndim != 1 or p.size == 0 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
                raise ValueError("a prior is a probability vector")
        self._kind: list[int] = []
        self._player: list[int] = []
        self._parent: list[int] = []
        self._action: list[int] = []
        self._types: list[tuple[int, int]] = []
        self._matrix: list[int] = []
        self._matrix2: list[int] = []
        self._coef: list[tuple[float, float]] = []
        self._children: list[list[int]] = []
        self._matrices: list[np.ndarray] = []
        self.labels: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._kind)

    def matrix(self, m: np.ndarray) -> int:
        self._matrices.append(np.ascontiguousarray(m, dtype=np.float64))
        return len(self._matrices) - 1

    def node(self, parent: int, kind: int, *, player: int = -1, action: int = -1, types: tuple[int, int],
             matrix: int = NONE, matrix2: int = NONE, coef: tuple[float, float] = (0.0, 0.0)) -> int:
        node = len(self._kind)
        if (parent < 0) != (node == 0):
            raise ValueError("node 0 is the root, every other node has a parent")
        self._kind.append(kind)
        self._player.append(player)
        self._parent.append(parent)
        self._action.append(action)
        self._types.append(types)
        self._matrix.append(matrix)
        self._matrix2.append(matrix2)
        self._coef.append(coef)
        self._children.append([])
        if parent >= 0:
            self._children[parent].append(node)
        return node

    def freeze(self) -> PublicTree:
        n = len(self._kind)
        kind = np.array(self._kind, dtype=np.int8)
        player = np.array(self._player, dtype=np.int8)
        count = np.array([len(c) for c in self._children], dtype=np.int32)
        first = np.zeros(n, dtype=np.int64)
        first[1:] = np.cumsum(count)[:-1]
        children = np.array([c for cs in self._children for c in cs], dtype=np.int32)
        types = np.array(self._types, dtype=np.int32).reshape(n, 2)
        offset = np.full(n, -1, dtype=np.int64)
        size = 0
        for node in np.flatnonzero(kind == DECISION).tolist():
            if count[node] < 1:
                raise ValueError(f"decision node {node} has no actions")
            offset[node] = size
            size += int(types[node, player[node]]) * int(count[node])
        if np.any((kind != TERMINAL) & (count == 0)):
            raise ValueError("only terminal nodes may have no children")
        mats = tuple(self._matrices)
        mat_offset = np.zeros(len(mats) + 1, dtype=np.int64)
        for i, m in enumerate(mats):
            mat_offset[i + 1] = mat_offset[i] + m.size
        mat_data = np.concatenate([m.ravel() for m in mats]) if mats else np.zeros(0)
        return PublicTree(
            kind=kind, player=player, parent=np.array(self._parent, dtype=np.int32),
            first=first.astype(np.int32), count=count, children=children,
            action=np.array(self._action, dtype=np.int32), types=types, offset=offset, size=size,
            matrix=np.array(self._matrix, dtype=np.int32), matrix2=np.array(self._matrix2, dtype=np.int32),
            coef=np.array(self._coef, dtype=np.float64).reshape(n, 2), matrices=mats, mat_data=mat_data,
            mat_offset=mat_offset, mat_cols=np.array([m.shape[1] for m in mats], dtype=np.int64), prior=self._prior,
            labels=dict(self.labels),
        )
