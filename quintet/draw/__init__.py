"""Five-card draw poker (docs/draw-poker.md): jokers, 36/52/53/54-card decks, colours, the draw advisor.

Rule sets ``draw<deck>[-<table>]`` (``quintet.rules.RULE_SETS``):

==================  =====================================================================
deck                ``32`` (7–A), ``36`` (6–A), ``36-joker`` (6–A; a six is the joker, the 6♠ by default),
                    ``52``, ``53`` (52 + one joker), ``54`` (52 + two jokers)
table (suffix)      *(none)* standard poker order, five of a kind on top;
                    ``-11`` the 11-category table (pair … colour, flush, straight, straight
                    colour, straight flush, four, five of a kind); ``-11-swap`` the same
                    with four of a kind and straight flush swapped; ``-9`` the 9-category
                    table (no flush; full house above straight); ``-7`` the 11-category
                    table without colour, flush, straight and straight colour
==================  =====================================================================

High card ("no category") is the bottom of every table.  Options of ``Rules`` apply as in
Quintet: ``ace_low_straight`` (A with the deck's four lowest ranks: A-2-3-4-5, A-6-7-8-9),
``flush_over_full_house``, ``tiebreak`` (``kickers``, ``group-only`` or ``no-kickers``),
``swap_four_straight_flush``, and ``joker_card`` (which six is the joker of ``36-joker``).

Hands of these rule sets are evaluated through ``quintet.evaluator`` like Quintet's (it
loads this package on first use of such a rule set).  Modules:

* ``tables`` — a rule set's cell tables (``tables(rules)``) and ranking over them;
  ``stand_ins``, ``percentile``, ``hand_count_by_category``;
* ``kernels`` — the numba kernels over 64-bit masks;
* ``advisor`` — the draw advisor ``advise`` (which cards to exchange);
* ``cli`` — ``quintet hand``, ``quintet compare``, ``quintet draw`` and ``quintet poker``.

The game itself (not imported by this package; ``cli`` loads it): ``game`` — one hand as a state machine (``State``,
``Terms``, the records, ``replay``); ``table`` — a match; ``policy`` — the advisor's exchange
as an exact table and the opponent model; ``bots`` — ``random``, ``advisor`` and ``cfr``; ``cfr`` —
the heads-up strategy computed by CFR+ on a card abstraction (the solvers, the abstract game, the strategy,
the bot and its advice); ``play`` — ``quintet poker`` at the terminal.
"""

from .advisor import DrawAdvice, DrawOption, Objective, advise, parse_objective
from .tables import VariantTables, hand_count_by_category, percentile, stand_ins

__all__ = [
    "DrawAdvice",
    "DrawOption",
    "Objective",
    "advise",
    "parse_objective",
    "VariantTables",
    "hand_count_by_category",
    "percentile",
    "stand_ins",
]
