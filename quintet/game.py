"""The game's objects: a deal, an arrangement, and the show-down of two arrangements.

* ``Deal`` — the exposed cards and the live cards both players arrange (25 in Quintet);
* ``Arrangement`` — five packets of five cards, in slot order (slot 1 scores 3 points … slot
  5 scores 7 under the classic weights), parsed from text like
  ``"9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | …"`` (packets separated by ``|`` or ``/``);
* ``showdown(a, b)`` — slot by slot, the two hands, the winner and the points.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cards import (
    CardError,
    Deck,
    WrongCardCountError,
    cards_of,
    format_card,
    format_cards,
    mask_of,
    parse_cards,
    popcount,
)
from .evaluator import HandValue, evaluate
from .faults import InputError
from .hands import TieBreak, tie_break
from .jsonable import Jsonable
from .rules import CLASSIC, Rules
from .seeds import seed_rng, seed_series

if TYPE_CHECKING:
    from .schema import ShowdownOut

__all__ = [
    "ArrangementError",
    "IllegalArrangementError",
    "Deal",
    "Arrangement",
    "SlotResult",
    "Showdown",
    "deciding_card",
    "showdown",
]


class ArrangementError(InputError):
    """Text that cannot be read as an arrangement (wrong number of packets, bad cards)."""


class IllegalArrangementError(ArrangementError):
    """An arrangement that does not split the deal's live cards into packets of five.

    ``duplicated``, ``missing`` and ``foreign`` are masks; ``bad_sizes`` lists
    (slot, number of cards) for packets of the wrong size.
    """

    def __init__(self, message: str, *, duplicated: int = 0, missing: int = 0, foreign: int = 0,
                 bad_sizes: tuple[tuple[int, int], ...] = ()) -> None:
        super().__init__(message)
        self.duplicated = duplicated
        self.missing = missing
        self.foreign = foreign
        self.bad_sizes = bad_sizes


@dataclass(frozen=True, repr=False)
class Deal:
    """A deal: the exposed cards (out of play) and the live cards both players hold.

    >>> deal = Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc")
    >>> deal
    Deal.from_exposed('Qc Jc Ts 9d 8h 7s 7h')
    >>> format_cards(deal.live)[:26]
    'As Ah Ad Ac Ks Kh Kd Kc Qs'
    """

    exposed: int
    rules: Rules = CLASSIC

    @property
    def live(self) -> int:
        return self.rules.deck.full_mask & ~self.exposed

    @property
    def n_exposed(self) -> int:
        return self.rules.n_exposed

    @classmethod
    def from_exposed(cls, exposed: str | Iterable[str] | Iterable[int], rules: Rules = CLASSIC) -> Deal:
        """A deal from its exposed cards (text, a list of card strings, or card ints)."""
        n = rules.n_exposed
        items = list(exposed) if not isinstance(exposed, str) else [exposed]
        if items and all(isinstance(c, int) for c in items):
            cards = [int(c) for c in items if isinstance(c, int)]
            mask = mask_of(cards)
            if popcount(mask) != len(cards):
                raise CardError("duplicate card in exposed cards")
            if mask & ~rules.deck.full_mask:
                raise CardError("exposed cards outside the deck")
            if len(cards) != n:
                raise WrongCardCountError(f"expected {n} exposed cards, got {len(cards)}")
            return cls(mask, rules)
        return cls(mask_of(parse_cards([str(c) for c in items], rules.deck, count=n, what="exposed cards")), rules)

    @classmethod
    def random(cls, seed: int, rules: Rules = CLASSIC) -> Deal:
        """The deal of ``seed`` (0..``SEED_MAX``, ``quintet.seeds``): the exposed cards are a
        uniformly random subset of the deck, the same for the same seed in every front-end."""
        cards = seed_rng(seed).choice(rules.deck.cards(), rules.n_exposed, replace=False)
        return cls(mask_of(int(c) for c in cards), rules)

    @classmethod
    def random_series(cls, seed: int, count: int, rules: Rules = CLASSIC) -> list[Deal]:
        """The deals of the seeds ``seed`` … ``seed + count − 1`` (``quintet.seeds.seed_series``):
        a match of ``count`` games, a tournament of ``count`` deals."""
        return [cls.random(s, rules) for s in seed_series(seed, count)]

    def format(self, *, unicode: bool = False) -> str:
        return format_cards(self.exposed, self.rules.deck, unicode=unicode)

    def __repr__(self) -> str:
        """``Deal.from_exposed('…')`` (with the rule set unless classic): it pastes back as code."""
        deck = self.rules.deck
        if popcount(self.exposed) != self.rules.n_exposed or self.exposed & ~deck.full_mask:
            return f"Deal(exposed={self.exposed:#x}, rules={self.rules!r})"  # not a legal deal
        rules = "" if self.rules == CLASSIC else f", {self.rules!r}"
        return f"Deal.from_exposed({self.format()!r}{rules})"


_PACKET_SPLIT = re.compile(r"[|/]")


@dataclass(frozen=True, repr=False)
class Arrangement:
    """Packets (card masks) in slot order: ``packets[0]`` plays in slot 1.

    >>> a = Arrangement.parse("9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h")
    >>> a.validate(Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc"))
    >>> a
    Arrangement.parse('9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h')
    """

    packets: tuple[int, ...]

    @property
    def mask(self) -> int:
        m = 0
        for p in self.packets:
            m |= p
        return m

    @classmethod
    def parse(cls, text: str | Sequence[str] | Sequence[Sequence[str]], rules: Rules = CLASSIC) -> Arrangement:
        """Read packets separated by ``|`` or ``/`` (or a list of packet strings / card lists).

        Only the notation is checked here; ``validate`` checks the packets against a deal.
        """
        if isinstance(text, str):
            parts = _PACKET_SPLIT.split(text)
        else:
            parts = [p if isinstance(p, str) else " ".join(p) for p in text]
        if len(parts) != rules.n_slots:
            raise ArrangementError(
                f"an arrangement has {rules.n_slots} packets separated by '|' or '/', got {len(parts)}"
            )
        packets = []
        for slot, part in enumerate(parts, start=1):
            try:
                packets.append(mask_of(parse_cards(part, rules.deck, what=f"packet {slot}")))
            except CardError as exc:
                raise ArrangementError(f"packet {slot}: {exc}") from None
        return cls(tuple(packets))

    @classmethod
    def from_cards(cls, packets: Iterable[Iterable[int]]) -> Arrangement:
        return cls(tuple(mask_of(p) for p in packets))

    def validate(self, deal: Deal) -> None:
        """Raise ``IllegalArrangementError`` unless the packets split the live cards in fives."""
        rules = deal.rules
        deck = rules.deck
        problems = []
        bad_sizes = []
        if len(self.packets) != rules.n_slots:
            problems.append(f"{len(self.packets)} packets instead of {rules.n_slots}")
        counts: Counter[int] = Counter()
        slots_of: dict[int, list[int]] = {}
        for slot, packet in enumerate(self.packets, start=1):
            n = popcount(packet)
            if n != rules.hand_size:
                bad_sizes.append((slot, n))
                problems.append(f"packet {slot} has {n} cards instead of {rules.hand_size}")
            for card in cards_of(packet):
                counts[card] += 1
                slots_of.setdefault(card, []).append(slot)
        duplicated = mask_of(c for c, k in counts.items() if k > 1)
        used = mask_of(counts)
        foreign = used & ~deal.live
        missing = deal.live & ~used
        for card in cards_of(duplicated):
            where = " and ".join(str(s) for s in slots_of[card])
            problems.append(f"{format_card(card, deck)} is duplicated (packets {where})")
        for card in cards_of(foreign):
            kind = "exposed" if deal.exposed >> card & 1 else "not in the deck"
            problems.append(f"{format_card(card, deck)} is {kind}, not a live card")
        if missing:
            problems.append(f"{format_cards(missing, deck)} {'is' if popcount(missing) == 1 else 'are'} missing")
        if problems:
            raise IllegalArrangementError(
                "illegal arrangement: " + "; ".join(problems),
                duplicated=duplicated, missing=missing, foreign=foreign, bad_sizes=tuple(bad_sizes),
            )

    def format(self, rules: Rules = CLASSIC, *, unicode: bool = False, sep: str = " | ") -> str:
        return sep.join(format_cards(p, rules.deck, unicode=unicode) for p in self.packets)

    def __repr__(self) -> str:
        """``Arrangement.parse('… | …')`` when the packets are cards of the classic deck, else
        the masks (an arrangement does not know its deck): it pastes back as code."""
        full = CLASSIC.deck.full_mask
        if len(self.packets) == CLASSIC.n_slots and all(p and not p & ~full for p in self.packets):
            return f"Arrangement.parse({self.format()!r})"
        return f"Arrangement(packets={self.packets!r})"

    def card_lists(self, rules: Rules = CLASSIC) -> list[list[str]]:
        """Packets as lists of two-character ASCII cards, highest rank first (for JSON)."""
        return [format_cards(p, rules.deck).split() for p in self.packets]


@dataclass(frozen=True)
class SlotResult:
    slot: int  # 1-based
    weight: int  # points at stake
    hand_a: HandValue
    hand_b: HandValue
    winner: str | None  # "A", "B" or None for a tie
    points_a: float
    points_b: float

    def tie_break(self, rules: Rules = CLASSIC) -> TieBreak | None:
        """What decided between two hands of the same name (a kicker, a flush's second card…);
        None when the names differ (they say why) or the hands tie."""
        if self.hand_a.description != self.hand_b.description:
            return None
        return tie_break(self.hand_a.key, self.hand_b.key, rules)


def deciding_card(hand: HandValue, rank: int, deck: Deck) -> int:
    """The card of ``hand`` at a tie-break place of rank ``rank`` (``TieBreak.rank_a``/``rank_b``):
    the one of that rank (a kicker's rank is once in a hand), else the joker standing for it."""
    cards = list(cards_of(hand.mask))
    ranked = [c for c in cards if not deck.is_joker(c) and deck.rank_of(c) == rank]
    return (ranked or [c for c in cards if deck.is_joker(c)])[0]


@dataclass(frozen=True)
class Showdown(Jsonable):
    slots: tuple[SlotResult, ...]
    points_a: float
    points_b: float
    deal: Deal | None = None  # the deal shown down (``showdown`` sets it)

    @property
    def margin(self) -> float:
        """A's points minus B's points."""
        return self.points_a - self.points_b

    @property
    def winner(self) -> str | None:
        if self.points_a == self.points_b:
            return None
        return "A" if self.points_a > self.points_b else "B"

    def to_model(self) -> ShowdownOut:
        """The show-down's JSON model (``quintet showdown --json``, ``POST /api/showdown``)."""
        from .schema import HandOut, ShowdownOut, ShowdownSlotOut, model_of

        assert self.deal is not None, "a show-down made by showdown() knows its deal"
        rules = self.deal.rules

        def hand(h: HandValue, decider: int | None = None) -> HandOut:
            return HandOut(cards=format_cards(h.mask, rules.deck).split(), category=h.category.slug,
                           hand=h.description, key=h.key,
                           decider=None if decider is None else format_card(deciding_card(h, decider, rules.deck),
                                                                            rules.deck))

        def slot(s: SlotResult) -> ShowdownSlotOut:
            tb = s.tie_break(rules)
            return model_of(ShowdownSlotOut, s, points=s.weight, decided_by=None if tb is None else str(tb),
                            a=hand(s.hand_a, None if tb is None else tb.rank_a),
                            b=hand(s.hand_b, None if tb is None else tb.rank_b))

        return model_of(ShowdownOut, self, exposed=self.deal.format().split(), rules=rules.name,
                        rules_description=rules.describe(), slots=[slot(s) for s in self.slots])


def showdown(a: Arrangement, b: Arrangement, deal: Deal) -> Showdown:
    """Compare two arrangements slot by slot (both are validated against the deal first)."""
    rules = deal.rules
    for name, arrangement in (("A", a), ("B", b)):
        try:
            arrangement.validate(deal)
        except IllegalArrangementError as exc:
            raise IllegalArrangementError(
                f"player {name}: {exc}", duplicated=exc.duplicated, missing=exc.missing,
                foreign=exc.foreign, bad_sizes=exc.bad_sizes,
            ) from None
    slots = []
    for i, (pa, pb) in enumerate(zip(a.packets, b.packets, strict=True)):
        w = rules.weights[i]
        ha, hb = evaluate(pa, rules), evaluate(pb, rules)
        if ha.key > hb.key:
            winner, xa, xb = "A", float(w), 0.0
        elif hb.key > ha.key:
            winner, xa, xb = "B", 0.0, float(w)
        else:
            winner, xa, xb = None, w * rules.tie_points, w * rules.tie_points
        slots.append(SlotResult(i + 1, w, ha, hb, winner, xa, xb))
    return Showdown(tuple(slots), sum(s.points_a for s in slots), sum(s.points_b for s in slots), deal)
