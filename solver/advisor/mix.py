"""A mix: a mixed strategy over the arrangements of one deal (an equilibrium, a safe mix).

``Mix`` holds (probability, arrangement) pairs, most likely first, and does what every
front-end does with one: draw an arrangement to play (``sample``: the same seed draws the
same arrangement), play against it (``as_opponent``), and write it (``to_model``: the
``mix`` field of the JSON; ``slot_marginals``: each slot's hands).

    >>> from quintet.game import Arrangement
    >>> a = Arrangement.parse("9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h")
    >>> mix = Mix(((1.0, a),))
    >>> mix.sample(7) == a, mix.to_model()[0].hands[0]
    (True, 'two pair, nines and eights')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from quintet.evaluator import describe
from quintet.game import Arrangement
from quintet.rules import CLASSIC, Rules
from quintet.seeds import seed_rng
from solver.problem.opponents import ArrangementMix

if TYPE_CHECKING:
    from .schema import MixEntryOut, SlotMarginalOut

__all__ = ["Mix"]


@dataclass(frozen=True)
class Mix:
    """(probability, arrangement) pairs of one deal under ``rules``, most likely first."""

    entries: tuple[tuple[float, Arrangement], ...]
    rules: Rules = CLASSIC

    def __post_init__(self) -> None:
        if not self.entries:
            raise ValueError("a mix holds at least one arrangement")

    def sample(self, seed: int = 0) -> Arrangement:
        """An arrangement drawn from the mix: the same seed draws the same one."""
        probs = np.array([p for p, _ in self.entries])
        return self.entries[int(seed_rng(seed).choice(len(self.entries), p=probs / probs.sum()))][1]

    def as_opponent(self, name: str = "mix") -> ArrangementMix:
        """The mix as an opponent model."""
        return ArrangementMix(tuple(a for _, a in self.entries), tuple(p for p, _ in self.entries), name=name)

    def slot_marginals(self) -> list[list[tuple[str, float]]]:
        """Per slot: (hand description, probability), most likely first."""
        out: list[list[tuple[str, float]]] = []
        for s in range(self.rules.n_slots):
            acc: dict[str, float] = {}
            for p, a in self.entries:
                name = describe(a.packets[s], self.rules)
                acc[name] = acc.get(name, 0.0) + p
            out.append(sorted(acc.items(), key=lambda kv: -kv[1]))
        return out

    def to_model(self) -> list[MixEntryOut]:
        """The ``mix`` field of the JSON: each arrangement with its probability and hands."""
        from .schema import MixEntryOut
        return [MixEntryOut(probability=float(p), arrangement=a.card_lists(self.rules),
                            hands=[describe(m, self.rules) for m in a.packets]) for p, a in self.entries]

    def slot_marginals_model(self) -> list[list[SlotMarginalOut]]:
        """The ``slot_marginals`` field of the JSON."""
        from .schema import SlotMarginalOut
        return [[SlotMarginalOut(hand=h, probability=float(p)) for h, p in slot] for slot in self.slot_marginals()]
