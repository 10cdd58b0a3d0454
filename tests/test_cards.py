"""Cards: the documented bit layout, parsing and formatting, errors, round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quintet.cards import (
    CLASSIC_DECK,
    CardError,
    CardNotInDeckError,
    DuplicateCardError,
    MalformedCardError,
    UnknownRankError,
    UnknownSuitError,
    WrongCardCountError,
    cards_of,
    format_card,
    format_cards,
    mask_of,
    parse_card,
    parse_cards,
    parse_mask,
    popcount,
)

RANKS = "789TJQKA"
SUITS = "cdhs"
UNICODE_SUITS = "♣♦♥♠"


def documented(rank_letter: str, suit_letter: str) -> int:
    """cards.py's documented layout: card = 8 * suit + rank index (7=0 … A=7; c d h s = 0..3)."""
    return 8 * SUITS.index(suit_letter) + RANKS.index(rank_letter)


# ------------------------------------------------------------------- layout ----------


def test_bit_layout_is_as_documented():
    assert parse_card("7c") == 0
    assert parse_card("Ac") == 7
    assert parse_card("7d") == 8
    assert parse_card("Ah") == 23
    assert parse_card("As") == 31
    for r in RANKS:
        for s in SUITS:
            assert parse_card(r + s) == documented(r, s)
    assert CLASSIC_DECK.full_mask == 0xFFFFFFFF
    assert CLASSIC_DECK.size == 32
    assert sorted(CLASSIC_DECK.cards()) == list(range(32))


def test_mask_helpers():
    mask = parse_mask("Ah Td 7c")
    assert mask == (1 << 23) | (1 << 11) | (1 << 0)
    assert list(cards_of(mask)) == [0, 11, 23]
    assert mask_of([0, 11, 23]) == mask
    assert popcount(mask) == 3
    assert popcount(CLASSIC_DECK.full_mask) == 32


# ------------------------------------------------------------------ parsing -----------


@pytest.mark.parametrize(
    "token,rank,suit",
    [
        ("Ah", "A", "h"),
        ("ah", "A", "h"),
        ("AH", "A", "h"),
        ("aH", "A", "h"),
        ("Td", "T", "d"),
        ("td", "T", "d"),
        ("TD", "T", "d"),
        ("10d", "T", "d"),
        ("10D", "T", "d"),
        ("7s", "7", "s"),
        ("7S", "7", "s"),
        ("Kc", "K", "c"),
        ("qd", "Q", "d"),
        ("jS", "J", "s"),
        ("9h", "9", "h"),
        ("8c", "8", "c"),
        ("A♥", "A", "h"),
        ("10♣", "T", "c"),
        ("K♦", "K", "d"),
        ("7♠", "7", "s"),
        ("t♠", "T", "s"),
    ],
)
def test_parse_card_notations(token, rank, suit):
    assert parse_card(token) == documented(rank, suit)


@pytest.mark.parametrize(
    "text",
    [
        "Ah Td 7s",
        "Ah,Td,7s",
        "Ah, Td, 7s",
        "  ah  10d\t7S \n",
        "A♥ 10♦ 7♠",
        "A♥,T♦ , 7s",
    ],
)
def test_parse_cards_separators_and_mixed_notation(text):
    assert parse_cards(text) == [documented("A", "h"), documented("T", "d"), documented("7", "s")]


def test_parse_cards_keeps_order_and_accepts_iterables():
    assert parse_cards(["7s", "Ah"]) == [documented("7", "s"), documented("A", "h")]
    assert parse_cards(["7s Ah", "Kd"]) == [
        documented("7", "s"),
        documented("A", "h"),
        documented("K", "d"),
    ]
    assert parse_cards("") == []


def test_parse_cards_count():
    assert len(parse_cards("8h 7h 9d Ts 7s Qc Jc", count=7)) == 7


# ------------------------------------------------------------------ format ------------


def test_format_card_ascii_and_unicode():
    assert format_card(documented("A", "h")) == "Ah"
    assert format_card(documented("T", "d")) == "Td"
    assert format_card(documented("7", "s")) == "7s"
    assert format_card(documented("A", "h"), unicode=True) == "A♥"
    assert format_card(documented("T", "c"), unicode=True) == "10♣"
    assert format_card(documented("9", "d"), unicode=True) == "9♦"
    assert format_card(documented("K", "s"), unicode=True) == "K♠"


def test_format_cards_orders_by_rank_highest_first():
    assert format_cards(parse_mask("7s Ah Td 7c")) == "Ah Td 7s 7c"
    assert format_cards(parse_cards("7s Ah Td"), order="given") == "7s Ah Td"
    assert format_cards(parse_mask("7s Ah"), unicode=True, sep=",") == "A♥,7♠"


# ------------------------------------------------------------------ errors ------------

ERROR_CASES = [
    # (text, exception class, the bad token that the message must quote)
    ("A", MalformedCardError, "A"),
    ("Ah K Qd", MalformedCardError, "K"),
    ("AA", MalformedCardError, "AA"),
    ("10", MalformedCardError, "10"),
    ("1h", UnknownRankError, "1h"),
    ("Xh", UnknownRankError, "Xh"),
    ("11s", UnknownRankError, "11s"),
    ("Ahh", UnknownRankError, "Ahh"),
    ("Ax", UnknownSuitError, "Ax"),
    ("7z", UnknownSuitError, "7z"),
    ("A?", UnknownSuitError, "A?"),
    ("2h", CardNotInDeckError, "2h"),
    ("6♠", CardNotInDeckError, "6♠"),
    ("Ah 5c", CardNotInDeckError, "5c"),
    ("Ah Kd ah", DuplicateCardError, "ah"),
    ("10d Td", DuplicateCardError, "Td"),
    ("A♥ Ah", DuplicateCardError, "Ah"),
]


@pytest.mark.parametrize("text,exc,token", ERROR_CASES)
def test_parse_errors_are_specific_value_errors_quoting_the_token(text, exc, token):
    assert issubclass(exc, CardError) and issubclass(exc, ValueError)
    with pytest.raises(exc) as info:
        parse_cards(text)
    assert isinstance(info.value, ValueError)
    assert token in str(info.value), str(info.value)


def test_duplicate_message_names_both_spellings():
    with pytest.raises(DuplicateCardError) as info:
        parse_cards("10d 7s Td")
    assert "Td" in str(info.value) and "10d" in str(info.value)


@pytest.mark.parametrize(
    "text,count", [("8h 7h 9d Ts 7s Qc", 7), ("8h 7h 9d Ts 7s Qc Jc Ac", 7), ("", 5)]
)
def test_wrong_card_count(text, count):
    with pytest.raises(WrongCardCountError) as info:
        parse_cards(text, count=count, what="exposed cards")
    assert issubclass(WrongCardCountError, ValueError)
    assert str(count) in str(info.value) and "exposed cards" in str(info.value)
    n = len(text.split())
    assert f"got {n}" in str(info.value)


def test_parse_card_rejects_non_text():
    with pytest.raises(MalformedCardError):
        parse_card(31)  # type: ignore[arg-type]


def test_all_error_classes_are_distinct_card_errors():
    classes = {
        MalformedCardError,
        UnknownRankError,
        UnknownSuitError,
        CardNotInDeckError,
        DuplicateCardError,
        WrongCardCountError,
    }
    assert len(classes) == 6
    for cls in classes:
        assert issubclass(cls, CardError) and issubclass(cls, ValueError)


# -------------------------------------------------------------- properties ------------

card_sets = st.lists(st.integers(0, 31), unique=True, max_size=32)


@given(cards=card_sets, unicode=st.booleans(), sep=st.sampled_from([" ", ",", ", ", "  "]))
def test_format_parse_round_trip_mask(cards, unicode, sep):
    mask = mask_of(cards)
    text = format_cards(mask, unicode=unicode, sep=sep)
    assert parse_mask(text) == mask
    assert popcount(mask) == len(cards)


@given(cards=card_sets, unicode=st.booleans())
def test_format_parse_round_trip_given_order(cards, unicode):
    text = format_cards(cards, unicode=unicode, order="given")
    assert parse_cards(text) == cards
    # each card on its own
    for c in cards:
        assert parse_card(format_card(c, unicode=unicode)) == c


@given(cards=card_sets, data=st.data())
def test_parse_is_case_insensitive(cards, data):
    text = format_cards(cards, order="given")
    flips = data.draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    mixed = "".join(ch.upper() if f else ch.lower() for ch, f in zip(text, flips, strict=True))
    assert parse_cards(mixed) == cards


CARDISH = "0123456789TJQKAtjqkaXx1cdhsCDHSzZ♣♦♥♠♡♢♧♤?. ,;\t"


@settings(max_examples=300)
@given(text=st.one_of(st.text(), st.text(alphabet=CARDISH, max_size=30)))
def test_parse_garbage_raises_only_card_errors(text):
    try:
        cards = parse_cards(text)
    except CardError as exc:
        assert str(exc)  # every error has a message
    else:
        assert len(set(cards)) == len(cards)
        assert all(0 <= c < 32 for c in cards)


@settings(max_examples=200)
@given(token=st.text(min_size=0, max_size=6))
def test_parse_card_garbage_raises_only_card_errors(token):
    try:
        card = parse_card(token)
    except CardError:
        pass
    else:
        assert 0 <= card < 32
        assert parse_card(format_card(card)) == card
