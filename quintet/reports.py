"""The game's answers, built once for the command line and the HTTP API: ``quintet showdown``
(``POST /api/showdown``), ``quintet hand`` (``POST /api/hand``) and ``quintet compare``.

Each returns the game's object and, through ``quintet.schema``, its JSON model; the command
lines print them, the server sends them.  Errors are ``ValueError``s with one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cards import format_card, format_cards
from .evaluator import HandValue, evaluate
from .game import Arrangement, ArrangementError, Deal, Showdown, showdown
from .rules import Rules

if TYPE_CHECKING:
    from .schema import HandReportOut

__all__ = ["showdown_report", "hand_fields", "hand_report"]


def _parse_player(player: str, text: str, rules: Rules) -> Arrangement:
    try:
        return Arrangement.parse(text, rules)
    except ArrangementError as exc:
        raise ArrangementError(f"player {player}: {exc}") from None


def showdown_report(exposed: str, a: str, b: str, rules: Rules) -> Showdown:
    """The show-down of arrangements ``a`` and ``b`` (text) of the deal with ``exposed`` cards
    (``.to_model()``: what ``quintet showdown --json`` prints).  Errors name the player."""
    deal = Deal.from_exposed(exposed, rules)
    return showdown(_parse_player("A", a, rules), _parse_player("B", b, rules), deal)


def hand_fields(value: HandValue, rules: Rules) -> dict[str, Any]:
    """One evaluated hand's fields of ``quintet.schema.HandValueOut`` (its percentile and the
    cards its jokers play come from the draw tables, loaded here on first use)."""
    from .draw.tables import percentile, stand_ins

    deck = rules.deck
    stand = stand_ins(value.mask, rules) if deck.jokers else {}
    return {
        "hand": format_cards(value.mask, deck, order="group").split(),
        "category": value.category.slug,
        "category_strength": rules.categories.index(value.category),
        "description": value.description,
        "key": value.key,
        "percentile": percentile(value.key, rules),
        "stand_ins": {format_card(j, deck): format_card(c, deck) for j, c in stand.items()},
    }


def hand_report(hand: str, rules: Rules) -> tuple[HandValue, HandReportOut]:
    """One hand (text) evaluated, and its JSON model (what ``quintet hand --json`` prints)."""
    from .schema import HandReportOut

    value = evaluate(hand, rules)
    return value, HandReportOut(rules=rules.name, rules_description=rules.describe(), **hand_fields(value, rules))
