"""The heads-up draw-poker strategy, an equilibrium of a card abstraction: built by CFR+, stored and shipped.

``train(rules, terms)`` builds the abstract game (``quintet.draw.cfr.betting``), runs CFR+ on it
and returns a ``Strategy``: the average strategy where a player's own play reaches an information
set with probability at least ``PURE_BELOW``; below that its likeliest action alone (what lets
the file be a few MB); and where its own play never reaches (``UNREACHED``: after a line it never
plays itself, which a person or another bot may play) a best response to the other player's
strategy — what to do once there.  The unreached sets change neither the strategy's value nor
its exploitability (a test checks it); the info header records the exploitability before and
after storing.  Probabilities are stored in 1/255 steps (uint8, lzma-compressed).

``strategy_for(rules, terms)`` finds the strategy of a table: the one shipped with the package
(``quintet/draw/cfr/data``: the default rule set and terms), else one built before and stored
in the user's cache (``~/.cache/quintet/cfr``, or ``$QUINTET_CFR_DIR``), else it trains one (a few
minutes; ``progress`` reports the iterations) and stores it; terms whose game is too big to solve
here (``MAX_ENTRIES``) are refused.  A file is keyed and checked by its format version, the rules
fingerprint (``quintet.fingerprint``), the terms and the abstraction's parameters; a file of
another version is not read (it is rebuilt beside it).
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ...cliutil import user_cache_dir
from ...faults import InputError
from ...fingerprint import rules_fingerprint
from ...rules import RULE_SETS, Rules
from ..game import Terms
from . import kernels
from .betting import FOLD, AbstractGame, Betting, Navigator, Spot, build_game
from .classes import BOUNDARY_SAMPLES, BOUNDARY_SEED, POST_CLASSES, PRE_CLASSES, HandClasses, hand_classes
from .solve import CFRPlus, best_response, exploitability
from .tree import DECISION, PublicTree

__all__ = ["FORMAT", "ITERATIONS", "MAX_ENTRIES", "Strategy", "StrategyError", "train", "strategy_for",
           "strategy_key", "store_dir", "shipped_rule_sets", "quantise", "finish", "monotonicity"]

FORMAT = 1
ITERATIONS = 400
UNREACHED = 1e-12  # own reach below this: the information set is off the strategy's own path
PURE_BELOW = 1e-6  # own reach below this: one action stored (what a file of a few MB can hold)
MAX_ENTRIES = 30_000_000  # strategy entries: solving takes about 60 bytes each (the default terms: 13 million)


class StrategyError(InputError):
    """A strategy file that cannot be used (damaged, another format, another game)."""


def _header_key(rules: Rules, terms: Terms, pre: int, post: int, emd: bool = False,
                joker: bool = False) -> dict[str, Any]:
    classes: dict[str, Any] = {"pre": pre, "post": post, "boundary_samples": BOUNDARY_SAMPLES,
                               "boundary_seed": BOUNDARY_SEED}
    if emd:  # classes by distribution (``hand_classes``); the key of classes by mean is as it always was
        classes["emd"] = True
    if joker:  # the joker apart (``hand_classes``)
        classes["joker"] = True
    return {"format": FORMAT, "fingerprint": rules_fingerprint(rules), "terms": terms.to_dict(), "classes": classes}


def strategy_key(rules: Rules, terms: Terms, pre: int = PRE_CLASSES, post: int = POST_CLASSES,
                 emd: bool = False, joker: bool = False) -> str:
    """A file name for the strategy of this game: the rule set's name and a hash of everything that defines it."""
    text = json.dumps(_header_key(rules, terms, pre, post, emd, joker), sort_keys=True)
    return f"{rules.name}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def store_dir() -> Path:
    """``$QUINTET_CFR_DIR`` if set, else ``cfr`` in ``user_cache_dir()``."""
    explicit = os.environ.get("QUINTET_CFR_DIR")
    return Path(explicit).expanduser() if explicit else user_cache_dir() / "cfr"


@dataclass(frozen=True, eq=False)
class Strategy:
    """A strategy (module doc): the rules of its abstract game, its hand classes, the probability of
    every action of every information set in 1/255 steps (uint8, the tree's strategy layout), and ``info``
    (the header: how and when it was built, its exploitability)."""

    betting: Betting
    classes: HandClasses
    steps: np.ndarray
    info: dict[str, Any]

    @property
    def rules(self) -> Rules:
        return self.classes.rules

    @property
    def terms(self) -> Terms:
        return self.betting.terms

    @cached_property
    def navigator(self) -> Navigator:
        return Navigator(self.betting, self.classes.n_pre, self.classes.n_post)

    @cached_property
    def game(self) -> AbstractGame:
        """The whole tree (a few seconds to build: for evaluation, not for play)."""
        return build_game(self.terms, self.classes)

    def probabilities(self) -> np.ndarray:
        """Every probability as float64 (the solvers' layout)."""
        return self.steps.astype(np.float64) / 255.0

    def block(self, spot: Spot, offset: int) -> np.ndarray:
        """The probabilities at a spot whose block starts at ``offset``: float64 [types of the player, actions]."""
        n_types = self.navigator.types(spot, spot.turn)
        k = len(self.betting.moves(spot))
        return self.steps[offset: offset + n_types * k].reshape(n_types, k) / 255.0

    def save(self, path: Path) -> None:
        """Write the strategy: an npz of the header (JSON), the classes and the steps (lzma-compressed)."""
        c = self.classes
        path.parent.mkdir(parents=True, exist_ok=True)
        extra: dict[str, Any] = {} if c.pre_of is None else {"pre_of": c.pre_of}  # classes by a table
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as stream:
            np.savez(
                stream, header=np.frombuffer(json.dumps(self.info).encode(), dtype=np.uint8),
                steps=np.frombuffer(lzma.compress(self.steps.tobytes(), preset=6), dtype=np.uint8),
                group_first=c.group_first, pre_cuts=np.concatenate(c.pre_cuts), post_cuts=c.post_cuts,
                prior=c.prior, transitions=c.transitions, pre_range=c.pre_range, post_range=c.post_range,
                **extra,
            )
        tmp.replace(path)

    @classmethod
    def load(cls, path: Any, rules: Rules, terms: Terms) -> Strategy:
        """Read a strategy file of this game (``StrategyError`` if it is not one); ``path``: a ``Path`` or a
        package resource."""
        try:
            with path.open("rb") as stream, np.load(stream, allow_pickle=False) as data:
                info = json.loads(data["header"].tobytes().decode())
                if info.get("format") != FORMAT:
                    raise StrategyError(f"strategy file format {info.get('format')}, this program reads {FORMAT}")
                key = info["key"]
                c = key["classes"]
                if key != _header_key(rules, terms, c["pre"], c["post"], c.get("emd", False), c.get("joker", False)):
                    raise StrategyError("the strategy file is of another game (rules, terms or classes)")
                first = data["group_first"]
                classes = HandClasses(rules, first, _pre_cuts(first, data["pre_cuts"]), data["post_cuts"],
                                      data["prior"], data["transitions"], data["pre_range"], data["post_range"],
                                      data["pre_of"] if "pre_of" in data.files else None)
                steps = np.frombuffer(lzma.decompress(data["steps"].tobytes()), dtype=np.uint8)
        except StrategyError:
            raise
        except (OSError, KeyError, ValueError, TypeError, lzma.LZMAError) as exc:
            raise StrategyError(f"not a strategy file: {exc}") from None
        betting = Betting(terms)
        if steps.shape != (Navigator(betting, classes.n_pre, classes.n_post).entries(betting.root()),):
            raise StrategyError("the strategy file does not fit its game")
        return cls(betting, classes, steps, info)


def _pre_cuts(first: np.ndarray, flat: np.ndarray) -> tuple[np.ndarray, ...]:
    """Split the concatenated cuts: group g has (classes in it - 1) cuts, or none when empty."""
    out, at = [], 0
    for g in range(6):
        n = max(int(first[g + 1] - first[g]) - 1, 0)
        out.append(flat[at: at + n])
        at += n
    return tuple(out)


def quantise(tree: PublicTree, probabilities: np.ndarray) -> np.ndarray:
    """Each row of probabilities as uint8 steps of 1/255 summing to 255 (largest remainders)."""
    out = np.zeros(tree.size, dtype=np.uint8)
    kernels.quantise(kernels.tree_arrays(tree), np.ascontiguousarray(probabilities, dtype=np.float64), out)
    return out


def finish(tree: PublicTree, average: np.ndarray) -> np.ndarray:
    """The strategy to store (module doc): at the information sets the player's own strategy reaches with
    probability below ``UNREACHED``, a best response to the other player's strategy; below ``PURE_BELOW``,
    the average's most likely action; elsewhere the average."""
    t = kernels.tree_arrays(tree)
    weights = np.zeros(tree.size)
    kernels.walk(t, kernels.Work.of(tree), tree.prior[0], tree.prior[1], 0, kernels.REACH, average, weights, 0.0)
    _, best0 = best_response(tree, average, 0)  # player 0's blocks replaced, player 1's the average
    _, best1 = best_response(tree, average, 1)
    choice = best0 + best1 - average  # each player's blocks: its best response to the other's average
    out = average.copy()
    kernels.purify(t, weights, choice, PURE_BELOW, UNREACHED, out)
    return out


def train(rules: Rules, terms: Terms, *, iterations: int = ITERATIONS, pre: int = PRE_CLASSES,
          post: int = POST_CLASSES, emd: bool = False, joker: bool = False,
          progress: Callable[[int, int], None] | None = None,
          monitor: Callable[[CFRPlus], bool | None] | None = None, game: AbstractGame | None = None) -> Strategy:
    """Solve the abstract game of these rules and terms by CFR+ (module doc); ``progress(done, total)``
    after each iteration; ``monitor(solver)`` too (a benchmark measures the average there; True from it
    stops the training before ``iterations``); ``game``: the abstract game, built already (of these rules,
    terms and classes); ``pre``, ``post``, ``emd``, ``joker``: the classes (``hand_classes``)."""
    start = time.process_time()
    if game is None:
        game = build_game(terms, hand_classes(rules, pre, post, emd, joker))
    classes = game.classes
    solver = CFRPlus(game.tree)
    for i in range(iterations):
        solver.iterate(1)
        if progress is not None:
            progress(i + 1, iterations)
        if monitor is not None and monitor(solver):
            break
    average = solver.average()
    measured = exploitability(game.tree, average)
    steps = quantise(game.tree, finish(game.tree, average))
    stored = exploitability(game.tree, steps / 255.0)
    info = {
        "format": FORMAT, "key": _header_key(rules, terms, pre, post, emd, joker), "rules": rules.name,
        "algorithm": "CFR+ (regret matching+, alternating updates, linear averaging)",
        "iterations": solver.iterations,
        "cpu_seconds": round(time.process_time() - start, 1), "built": time.strftime("%Y-%m-%d"),
        "tree": {"nodes": game.tree.n_nodes, "decisions": int((game.tree.kind == DECISION).sum()),
                 "entries": game.tree.size},
        "exploitability": {"average": measured.total, "stored": stored.total, "value": stored.value,
                           "best0": stored.best0, "best1": stored.best1},
    }
    strategy = Strategy(game.betting, classes, steps, info)
    strategy.__dict__["game"] = game  # the tree is built already
    return strategy


def monotonicity(strategy: Strategy, tolerance: float = 0.1, reached: float = 1e-6) -> dict[str, float]:
    """How often the strategy stays in (does not fold) less often with a stronger class, at the decisions where
    folding is allowed: ``decisions`` — how many such decisions some class reaches by its own play (own reach
    at least ``reached``); ``non_monotone`` — the share of them where a stronger class (of one group before the
    exchange: classes are ordered by strength within a group of hands drawing the same number) stays in with
    a probability lower by more than ``tolerance`` than a weaker class does, both reached; ``weighted`` —
    the same share weighted by the decisions' reach (chance times the player's own play, summed over classes)."""
    tree = strategy.game.tree
    probs = strategy.probabilities()
    t = kernels.tree_arrays(tree)
    weights = np.zeros(tree.size)
    kernels.walk(t, kernels.Work.of(tree), tree.prior[0], tree.prior[1], 0, kernels.REACH, probs, weights, 0.0)
    classes = strategy.classes
    groups = [classes.group_of(x) for x in range(classes.n_pre)]
    count = bad = 0
    mass = bad_mass = 0.0
    for node in tree.decisions().tolist():
        kids = tree.child_list(node)
        actions = tree.action[kids].tolist()
        if FOLD not in actions:
            continue
        p = int(tree.player[node])
        n, k = int(tree.types[node, p]), len(actions)
        block = weights[tree.offset[node]: tree.offset[node] + n * k].reshape(n, k)
        reach = block.sum(axis=1)
        stay = 1.0 - probs[tree.offset[node]: tree.offset[node] + n * k].reshape(n, k)[:, actions.index(FOLD)]
        group = groups if n == classes.n_pre else [0] * n
        ok = reach >= reached
        if not ok.any():
            continue
        worse = False
        for g in set(group):
            rows = [x for x in range(n) if ok[x] and group[x] == g]
            best = -1.0
            for x in rows:  # weakest first
                worse |= stay[x] < best - tolerance
                best = max(best, stay[x])
        count += 1
        bad += worse
        mass += float(reach.sum())
        bad_mass += float(reach.sum()) * worse
    return {"decisions": count, "non_monotone": bad / max(count, 1), "weighted": bad_mass / mass if mass else 0.0,
            "tolerance": tolerance}


def check_size(terms: Terms) -> None:
    """Refuse (``StrategyError``) terms whose game is too big to solve here (``MAX_ENTRIES``)."""
    betting = Betting(terms)
    entries = Navigator(betting, PRE_CLASSES + 6, POST_CLASSES).entries(betting.root())
    if entries > MAX_ENTRIES:
        raise StrategyError(f"the heads-up game of these terms is too big to solve here: about {entries:,} strategy "
                            f"entries, at most {MAX_ENTRIES:,} (lower the limit or the circles)")


@cache
def shipped_rule_sets() -> tuple[str, ...]:
    """The rule sets whose heads-up strategy ships with the package for the default terms
    (``Terms()``): the names its ``data/*.npz`` files are keyed by."""
    files = {f.name for f in resources.files(__package__).joinpath("data").iterdir()}
    return tuple(name for name, rules in RULE_SETS.items() if f"{strategy_key(rules, Terms())}.npz" in files)


_LOADED: dict[str, Strategy] = {}


def strategy_for(rules: Rules, terms: Terms, *, build: bool = True,
                 progress: Callable[[int, int], None] | None = None) -> Strategy:
    """The strategy of this game: shipped, stored, or trained now and stored (module doc)."""
    key = strategy_key(rules, terms)
    if key in _LOADED:
        return _LOADED[key]
    candidates = [resources.files(__package__).joinpath("data", f"{key}.npz"), store_dir() / f"{key}.npz"]
    for path in candidates:
        if path.is_file():
            try:
                strategy = Strategy.load(path, rules, terms)
            except StrategyError:
                continue  # another version, or damaged: rebuilt below
            _LOADED[key] = strategy
            return strategy
    if not build:
        raise StrategyError(f"no strategy is stored for {rules.name} under these terms")
    check_size(terms)
    strategy = train(rules, terms, iterations=ITERATIONS, progress=progress)
    strategy.save(store_dir() / f"{key}.npz")
    _LOADED[key] = strategy
    return strategy
