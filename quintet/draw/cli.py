"""``quintet hand``, ``quintet compare``, ``quintet draw``: hands under any rule set; ``quintet poker``.

* ``quintet hand HAND [--rules NAME] [--json]`` — one hand: category, description, key, the
  cards the jokers play, and its percentile among all hands of the deck;
* ``quintet compare HAND HAND … [--rules NAME] [--json]`` — rank several hands, ties shown
  (``2=``);
* ``quintet draw HAND [--rules NAME] [--known CARDS] [--objective …] [--json]`` — the draw
  advisor (``quintet.draw.advise``): all 32 exchanges, exact;
* ``quintet poker`` — the whole game at the terminal, or bots alone (``quintet.draw.play``).

A hand is one argument (``"As Ah Ad Ac Jk"``) or five.  Errors are one line, exit 2
(``quintet.cliutil.run_cli``).
"""

from __future__ import annotations

import argparse
from math import comb

from ..cards import cards_of, format_card, format_cards, parse_cards
from ..cliutil import UsageError, add_rules_arguments, extra_missing, needs_extra, print_json
from ..evaluator import HandValue, evaluate
from ..reports import hand_fields, hand_report
from ..rules import Rules
from .advisor import DrawAdvice, DrawOption, Objective, advise, parse_objective
from .tables import percentile, stand_ins

COMMANDS = ("hand", "compare", "draw", "poker")

RULES_HELP = (
    "rule sets: classic (Quintet, 32 cards) and drawDECK[-TABLE] for five-card draw: "
    "DECK 32, 36, 36-joker (6♠ = joker; --joker-card chooses another six), 52, 53 (one joker), 54 (two jokers); "
    "TABLE none (standard order, five of a kind on top), 11, 11-swap, 9, 7 (docs/draw-poker.md)"
)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Add the four subcommands to the ``quintet`` parser."""
    h = sub.add_parser(
        "hand",
        help="evaluate one five-card hand under a rule set",
        description="Evaluate one hand. " + RULES_HELP + ".",
    )
    h.add_argument("hand", nargs="+", metavar="HAND", help='five cards, e.g. "As Ah Ad Ac Jk"')
    c = sub.add_parser(
        "compare",
        help="rank several hands (ties shown)",
        description="Rank hands, strongest first; equal hands share a place. " + RULES_HELP + ".",
    )
    c.add_argument(
        "hands",
        nargs="+",
        metavar="HAND",
        help="one quoted argument per hand (or hands separated by '|' or '/')",
    )
    d = sub.add_parser(
        "draw",
        help="which cards to exchange: exact odds of all 32 options",
        description="The draw advisor: for every way to keep some of the five cards, the exact "
        "distribution of the final hand over every draw from the unseen cards. " + RULES_HELP + ".",
    )
    d.add_argument("hand", nargs="+", metavar="HAND", help="your five cards")
    d.add_argument(
        "--known",
        default=None,
        metavar="CARDS",
        help='other cards known to be out of the stock (seen, folded), e.g. "Jk 7c"',
    )
    d.add_argument(
        "--objective",
        default="expected",
        metavar="OBJ",
        help="expected (mean percentile, default), at-least:CATEGORY (e.g. at-least:flush), "
        "or beat-random (equity against one random hand from the unseen cards)",
    )
    d.add_argument(
        "--top", type=int, default=32, metavar="N", help="show the N best options (default all 32)"
    )
    for p in (h, c, d):
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.add_argument(
            "--unicode", action="store_true", help="print suits as ♣ ♦ ♥ ♠ and jokers as 🃏"
        )
        add_rules_arguments(p)
        p.add_argument(
            "--swap-four-straight-flush",
            action="store_true",
            default=None,
            help="four of a kind and straight flush trade places in the table",
        )
        p.add_argument("--joker-card", default=None, metavar="CARD", help=JOKER_CARD_HELP)
    try:
        from . import play  # the terminal game: the play extra (prompt_toolkit, rich)
    except ModuleNotFoundError as exc:
        if not extra_missing(exc):
            raise
        missing = exc

        class PlayExtra(argparse.Action):  # `quintet poker …` without the play extra: what to install, exit 2
            def __call__(self, *_: object) -> None:
                with needs_extra("quintet poker", "play"):
                    raise missing

        sub.add_parser("poker", help="five-card draw poker (needs the play extra)", add_help=False,
                       prefix_chars="\0").add_argument("words", nargs="*", action=PlayExtra)
        return
    play.add_command(sub)


JOKER_CARD_HELP = "in a 36-card joker deck: the lowest card that plays as the joker, 6c 6d 6h or 6s (default 6s)"


def _rules(args: argparse.Namespace, rules: Rules) -> Rules:
    if getattr(args, "swap_four_straight_flush", None):
        rules = rules.with_options(swap_four_straight_flush=True)
    if getattr(args, "joker_card", None) is not None:
        rules = rules.with_options(joker_card=args.joker_card)
    return rules


def _cards_text(mask_or_cards: int | list[int], rules: Rules, unicode: bool) -> str:
    return format_cards(mask_or_cards, rules.deck, unicode=unicode, order="group")


def _stand_in_text(value: HandValue, rules: Rules, unicode: bool) -> str:
    stand = stand_ins(value.mask, rules) if rules.deck.jokers else {}
    return ", ".join(
        f"{format_card(j, rules.deck, unicode=unicode)} = {format_card(c, rules.deck, unicode=unicode)}"
        for j, c in stand.items()
    )


def run_hand(args: argparse.Namespace, rules: Rules) -> int:
    value, report = hand_report(" ".join(args.hand), rules)
    if args.json:
        print_json(report)
        return 0
    pct = percentile(value.key, rules)
    n_hands = comb(rules.deck.size, 5)
    strength = rules.categories.index(value.category)
    print(f"{_cards_text(value.mask, rules, args.unicode)}   {value.description}")
    stand = _stand_in_text(value, rules, args.unicode)
    if stand:
        print(f"joker: {stand}")
    print(
        f"category {strength + 1} of {len(rules.categories)} in {rules.name} ({rules.category_label(value.category)}); "
        f"key {value.key}; percentile {100 * pct:.4f} among all {n_hands:,} hands of the deck"
    )
    return 0


def _split_hands(items: list[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        out.extend(part for part in item.replace("/", "|").split("|") if part.strip())
    return out


def _check_one_deck(values: list[HandValue], rules: Rules) -> None:
    """Hands dealt from one deck: no card in two hands, no more jokers than the deck has (a
    typed ``Jk`` is any joker, so jokers are counted, not matched)."""
    deck = rules.deck
    held: dict[int, int] = {}  # card → the hand holding it
    jokers = 0
    for i, value in enumerate(values, 1):
        for card in cards_of(value.mask):
            if deck.is_joker(card):
                jokers += 1
                if jokers > deck.jokers:
                    raise UsageError(f"hand {i}: the hands hold {jokers} jokers; the {deck.size}-card deck has "
                                     f"{deck.jokers}")
            elif card in held:
                raise UsageError(f"{format_card(card, deck)} is in hand {held[card]} and in hand {i}: "
                                 "one deck has one of each card")
            else:
                held[card] = i


def run_compare(args: argparse.Namespace, rules: Rules) -> int:
    texts = _split_hands(args.hands)
    if len(texts) < 2:
        raise UsageError(f"compare needs at least two hands, got {len(texts)} (quote each hand)")
    values = []
    for i, text in enumerate(texts, 1):
        try:
            values.append(evaluate(text, rules))
        except ValueError as exc:
            raise type(exc)(f"hand {i}: {exc}") from None
    _check_one_deck(values, rules)
    order = sorted(range(len(values)), key=lambda i: (-values[i].key, i))
    place: dict[int, int] = {}
    for pos, i in enumerate(order):
        if pos and values[i].key == values[order[pos - 1]].key:
            place[i] = place[order[pos - 1]]
        else:
            place[i] = pos + 1
    counts = {p: sum(1 for q in place.values() if q == p) for p in place.values()}
    if args.json:
        from ..schema import CompareOut, RankedHandOut

        hands = [RankedHandOut(index=i + 1, place=place[i], tied=counts[place[i]] > 1, **hand_fields(values[i], rules))
                 for i in order]
        print_json(CompareOut(rules=rules.name, rules_description=rules.describe(), hands=hands))
        return 0
    width = max(len(_cards_text(v.mask, rules, args.unicode)) for v in values)
    print(f"{'place':<6} {'#':>2}  {'hand':<{width}}  description")
    for i in order:
        tag = f"{place[i]}{'=' if counts[place[i]] > 1 else ''}"
        print(
            f"{tag:<6} {i + 1:>2}  {_cards_text(values[i].mask, rules, args.unicode):<{width}}  "
            f"{values[i].description}"
        )
    return 0


def _pct(x: object) -> str:
    return f"{100 * float(x):7.3f}%"  # type: ignore[arg-type]


def _keep_text(o: DrawOption, rules: Rules, unicode: bool) -> str:
    return (
        format_cards(list(o.keep), rules.deck, unicode=unicode, order="given")
        if o.keep
        else "(nothing)"
    )


def format_advice(a: DrawAdvice, *, top: int = 32, unicode: bool = False) -> str:
    rules = a.rules
    deck = rules.deck
    lines = [
        f"Hand: {format_cards(list(a.hand), deck, unicode=unicode, order='given')}   rules: {rules.name} "
        f"({deck.size} cards{f', {deck.joker_note}' if deck.joker_note else ''})   "
        f"unseen: {len(a.unseen)} cards"
        + (f"   known: {format_cards(a.known, deck, unicode=unicode)}" if a.known else ""),
        f"Objective: {a.objective} — {a.objective.title()}",
    ]
    target = a.target
    tcol = f"P(>={a.objective.target_label})" if target else ""
    kw = max(len(_keep_text(o, rules, unicode)) for o in a.options)
    head = f"{'#':>2}  {'keep':<{kw}}  draw {'outcomes':>9}  {'E[pct]':>8}  {'P(win)':>8}  {'P(tie)':>8}  {'equity':>8}"
    if target:
        head += f"  {tcol:>{max(len(tcol), 8)}}"
    lines.append(head)
    for n, o in enumerate(a.ranked()[:top], 1):
        row = (
            f"{n:>2}  {_keep_text(o, rules, unicode):<{kw}}  {o.n_draw:>4} {o.n_outcomes:>9,}  "
            f"{_pct(o.expected)}  {_pct(o.p_win)}  {_pct(o.p_tie)}  {_pct(o.equity)}"
        )
        if target:
            row += f"  {_pct(o.p_at_least):>{max(len(tcol), 8)}}"
        lines.append(row)
    lines.append("Recommended:")
    for name, o in a.recommendations().items():
        obj = a.objective if name.startswith("at-least") else Objective(name)
        value = o.value(obj)
        exact = f" = {value.numerator}/{value.denominator}" if obj.kind == "at-least" else ""
        lines.append(
            f"  {name:<24} keep {_keep_text(o, rules, unicode)} (draw {o.n_draw}): "
            f"{100 * float(value):.3f}%{exact}"
        )
    best = a.best()
    lines.append(
        f"Final hand keeping {_keep_text(best, rules, unicode)}, drawing {best.n_draw} "
        f"({best.n_outcomes:,} equally likely draws):"
    )
    running = 0
    for c in reversed(rules.categories):
        n = best.category_counts[c]
        running += n
        lines.append(
            f"  {rules.category_label(c):<16} {n:>10,}  {_pct(n / best.n_outcomes)}   "
            f"at least {_pct(running / best.n_outcomes)}"
        )
    lines.append(
        f"({a.seconds:.3f} s; percentile among all {comb(deck.size, 5):,} hands of the deck; "
        "opponent: one random hand from the unseen cards, independent of the draw)"
    )
    return "\n".join(lines)


def run_draw(args: argparse.Namespace, rules: Rules) -> int:
    if args.top < 1:
        raise UsageError(f"--top must be at least 1, got {args.top}")
    objective = parse_objective(args.objective, rules)
    hand = parse_cards(" ".join(args.hand), rules.deck, count=5, what="cards in a hand")
    result = advise(hand, rules, known=args.known, objective=objective)
    if args.json:
        from ..schema import DrawOut

        print_json(DrawOut.model_validate(result.to_dict()))
    else:
        print(format_advice(result, top=args.top, unicode=args.unicode))
    return 0


def run(args: argparse.Namespace, rules: Rules) -> int:
    rules = _rules(args, rules)
    if args.command == "hand":
        return run_hand(args, rules)
    if args.command == "compare":
        return run_compare(args, rules)
    if args.command == "poker":
        from . import play

        return play.run(args, rules)
    return run_draw(args, rules)
