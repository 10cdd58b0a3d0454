"""A mix: a mixed strategy over the arrangements of one deal (an equilibrium, a safe mix).

``Mix`` holds (probability, arrangement) pairs, most likely first, and does what every
front-end does with one: draw an arrangement to play (``sample``: the same seed draws the
same arrangement), play against it (``as_opponent``), and write it (``to_model``: the
``mix`` field of the JSON; ``slot_marginals``: each slot's hands).

    >>> from quintet.game import Arrangement
    >>> a = Arrangement.parse("9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h")
    >>> mix = Mix(((1.0, a),))
    >>> entry = mix.to_model()[0]
    >>> mix.sample(7) == a, entry.hands[0], entry.categories[0]
    (True, 'two pair, nines and eights', 'two_pair')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from quintet.cards import format_cards
from quintet.evaluator import evaluate
from quintet.game import Arrangement, Deal
from quintet.rules import CLASSIC, Rules
from quintet.seeds import seed_rng
from solver.problem.opponents import ArrangementMix

if TYPE_CHECKING:
    from .schema import MixEntryOut, SlotMarginalOut

__all__ = ["Mix", "HandShare", "hands_of", "answer_fields"]


class HandShare(NamedTuple):
    """A hand (by its description) and its category's machine name (``Category.slug``), with a
    probability: one slot's odds."""

    hand: str
    category: str
    probability: float


def hands_of(arrangement: Arrangement, rules: Rules) -> tuple[list[str], list[str]]:
    """The hands of an arrangement in slot order: their descriptions and their categories
    (machine names) — the ``hands`` and ``categories`` of the JSON."""
    values = [evaluate(m, rules) for m in arrangement.packets]
    return [v.description for v in values], [v.category.slug for v in values]


def answer_fields(deal: Deal, play: Arrangement | None = None) -> dict[str, Any]:
    """The JSON fields an answer about ``deal`` starts with: its exposed and live cards and the
    rule set described; with ``play``, the arrangement to play and its ``hands`` and ``categories``."""
    rules = deal.rules
    fields: dict[str, Any] = {"exposed": format_cards(deal.exposed, rules.deck).split(),
                              "live": format_cards(deal.live, rules.deck).split(), "rules": rules.describe()}
    if play is not None:
        fields["arrangement"] = play.card_lists(rules)
        fields["hands"], fields["categories"] = hands_of(play, rules)
    return fields


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

    def slot_marginals(self) -> list[list[HandShare]]:
        """Per slot: each hand (by description) with its probability, most likely first."""
        out: list[list[HandShare]] = []
        for s in range(self.rules.n_slots):
            acc: dict[str, float] = {}
            category: dict[str, str] = {}
            for p, a in self.entries:
                value = evaluate(a.packets[s], self.rules)
                acc[value.description] = acc.get(value.description, 0.0) + p
                category[value.description] = value.category.slug
            out.append([HandShare(h, category[h], p) for h, p in sorted(acc.items(), key=lambda kv: -kv[1])])
        return out

    def to_model(self) -> list[MixEntryOut]:
        """The ``mix`` field of the JSON: each arrangement with its probability and hands."""
        from .schema import MixEntryOut
        out = []
        for p, a in self.entries:
            hands, categories = hands_of(a, self.rules)
            out.append(MixEntryOut(probability=float(p), arrangement=a.card_lists(self.rules), hands=hands,
                                   categories=categories))
        return out

    def slot_marginals_model(self) -> list[list[SlotMarginalOut]]:
        """The ``slot_marginals`` field of the JSON."""
        from .schema import SlotMarginalOut
        return [[SlotMarginalOut(hand=h.hand, category=h.category, probability=float(h.probability)) for h in slot]
                for slot in self.slot_marginals()]
