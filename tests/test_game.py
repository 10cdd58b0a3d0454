"""Deals, arrangements and the show-down: the worked example of docs/rules.md and properties."""

from __future__ import annotations

import random

import pytest
from deals import EXAMPLE as EXPOSED
from hypothesis import given, settings
from hypothesis import strategies as st

from quintet.cards import (
    CLASSIC_DECK,
    CardError,
    WrongCardCountError,
    mask_of,
    parse_card,
    parse_mask,
)
from quintet.evaluator import evaluate
from quintet.game import (
    Arrangement,
    ArrangementError,
    Deal,
    IllegalArrangementError,
    showdown,
)
from quintet.rules import CLASSIC, Category, get_rules

# docs/rules.md, "The worked example".
A_TEXT = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
B_PRINTED = "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 8c"
B_FIXED = "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 9c"

# The docs/rules.md table, slot by slot: (points, A's category, B's category, winner)
EXAMPLE_TABLE = [
    (3, Category.TWO_PAIR, Category.FULL_HOUSE, "B"),
    (4, Category.THREE_OF_A_KIND, Category.FLUSH, "B"),
    (5, Category.FLUSH, Category.STRAIGHT_FLUSH, "B"),
    (6, Category.FOUR_OF_A_KIND, Category.STRAIGHT_FLUSH, "B"),
    (7, Category.STRAIGHT_FLUSH, Category.PAIR, "A"),
]


@pytest.fixture
def deal():
    return Deal.from_exposed(EXPOSED)


# ------------------------------------------------------------------ the deal ----------


def test_deal_has_25_live_cards(deal):
    assert bin(deal.exposed).count("1") == 7
    assert bin(deal.live).count("1") == 25
    assert deal.live & deal.exposed == 0
    assert deal.live | deal.exposed == CLASSIC_DECK.full_mask
    assert deal.n_exposed == 7
    assert deal.exposed == parse_mask(EXPOSED)


def test_deal_from_exposed_accepts_lists_and_card_ints():
    as_list = Deal.from_exposed(EXPOSED.split())
    as_ints = Deal.from_exposed([parse_card(t) for t in EXPOSED.split()])
    assert as_list == as_ints == Deal.from_exposed(EXPOSED)


@pytest.mark.parametrize("text", ["8h 7h 9d Ts 7s Qc", "8h 7h 9d Ts 7s Qc Jc Ac", ""])
def test_deal_needs_seven_exposed_cards(text):
    with pytest.raises(WrongCardCountError):
        Deal.from_exposed(text)


def test_deal_rejects_duplicates_and_foreign_cards():
    with pytest.raises(CardError):
        Deal.from_exposed("8h 7h 9d Ts 7s Qc 8h")
    with pytest.raises(CardError):
        Deal.from_exposed("8h 7h 9d Ts 7s Qc 2h")
    with pytest.raises(CardError):
        Deal.from_exposed([0, 1, 2, 3, 4, 5, 5])
    with pytest.raises(WrongCardCountError):
        Deal.from_exposed([0, 1, 2, 3, 4, 5])


# ----------------------------------------------------------- worked example -----------


def test_example_a_is_legal(deal):
    a = Arrangement.parse(A_TEXT)
    a.validate(deal)  # must not raise
    assert a.mask == deal.live


def test_example_b_printed_is_rejected_naming_8c_and_9c(deal):
    b = Arrangement.parse(B_PRINTED)
    with pytest.raises(IllegalArrangementError) as info:
        b.validate(deal)
    exc = info.value
    message = str(exc)
    assert "8c" in message and "duplicated" in message
    assert "9c" in message and "missing" in message
    assert exc.duplicated == parse_mask("8c")
    assert exc.missing == parse_mask("9c")
    assert exc.foreign == 0
    assert exc.bad_sizes == ()
    assert isinstance(exc, ValueError)


def test_example_b_printed_is_rejected_by_showdown(deal):
    with pytest.raises(IllegalArrangementError) as info:
        showdown(Arrangement.parse(A_TEXT), Arrangement.parse(B_PRINTED), deal)
    assert "B" in str(info.value)
    assert info.value.duplicated == parse_mask("8c") and info.value.missing == parse_mask("9c")


def test_example_b_fixed_wins_18_to_7(deal):
    a, b = Arrangement.parse(A_TEXT), Arrangement.parse(B_FIXED)
    b.validate(deal)
    result = showdown(a, b, deal)
    assert result.points_b == 18 and result.points_a == 7
    assert result.margin == -11  # A's points minus B's
    assert result.winner == "B"
    assert [s.slot for s in result.slots] == [1, 2, 3, 4, 5]
    for s, (points, cat_a, cat_b, winner) in zip(result.slots, EXAMPLE_TABLE, strict=True):
        assert s.weight == points
        assert s.hand_a.category == cat_a, s
        assert s.hand_b.category == cat_b, s
        assert s.winner == winner
        assert (s.points_a, s.points_b) == ((points, 0) if winner == "A" else (0, points))
    # the table's own names
    assert result.slots[1].hand_a.description == "three kings"
    assert result.slots[3].hand_a.description == "four aces"
    assert result.slots[4].hand_b.description == "pair of sevens"
    assert result.slots[0].hand_b.description == "full house, aces over eights"
    # from B's side
    reverse = showdown(b, a, deal)
    assert (reverse.points_a, reverse.points_b, reverse.margin) == (18, 7, 11)


def test_example_to_dict(deal):
    result = showdown(Arrangement.parse(A_TEXT), Arrangement.parse(B_FIXED), deal)
    d = result.to_dict()
    assert d["points_a"] == 7 and d["points_b"] == 18 and d["margin"] == -11 and d["winner"] == "B"
    assert [s["winner"] for s in d["slots"]] == ["B", "B", "B", "B", "A"]
    assert [s["points"] for s in d["slots"]] == [3, 4, 5, 6, 7]
    assert sorted(d["slots"][0]["a"]["cards"]) == sorted("9s 9c 8s 8c 7c".split())
    assert d["kind"] == "showdown" and d["exposed"] == deal.format().split()
    assert d["slots"][2]["b"]["category"] == "straight_flush"  # the machine name, in every rule set
    assert d["slots"][2]["b"]["hand"] == result.slots[2].hand_b.description


# --------------------------------------------------------- arrangement text -----------


def test_arrangement_parse_separators_and_format_round_trip():
    slash = Arrangement.parse(A_TEXT.replace("|", "/"))
    pipe = Arrangement.parse(A_TEXT)
    listed = Arrangement.parse([p.strip() for p in A_TEXT.split("|")])
    nested = Arrangement.parse([p.split() for p in A_TEXT.split("|")])
    assert slash == pipe == listed == nested
    assert Arrangement.parse(pipe.format()) == pipe
    assert Arrangement.parse(pipe.format(unicode=True)) == pipe
    assert pipe.packets[3] == parse_mask("As Ah Ad Ac Qs")


@pytest.mark.parametrize(
    "text",
    [
        "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs",
        A_TEXT + " | 9c",
        "9s 9c 8s 8c 7c",
    ],
)
def test_arrangement_needs_five_packets(text):
    with pytest.raises(ArrangementError, match="5 packets"):
        Arrangement.parse(text)


def test_arrangement_bad_card_names_packet_and_token():
    with pytest.raises(ArrangementError) as info:
        Arrangement.parse(A_TEXT.replace("Kh", "2h"))
    assert "packet 5" in str(info.value) and "2h" in str(info.value)
    with pytest.raises(ArrangementError) as info:
        Arrangement.parse(A_TEXT.replace("Qd", "Qx"))
    assert "packet 3" in str(info.value) and "Qx" in str(info.value)


def test_validate_names_foreign_and_bad_sizes(deal):
    # put the exposed 8h in place of 9h, and move Qs from packet 4 into packet 5
    text = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac | Kh Qh Jh Th 8h Qs"
    with pytest.raises(IllegalArrangementError) as info:
        Arrangement.parse(text).validate(deal)
    exc = info.value
    assert exc.foreign == parse_mask("8h")
    assert exc.missing == parse_mask("9h")
    assert exc.duplicated == 0
    assert set(exc.bad_sizes) == {(4, 4), (5, 6)}
    msg = str(exc)
    assert (
        "8h" in msg and "exposed" in msg and "9h" in msg and "packet 4" in msg and "packet 5" in msg
    )


# --------------------------------------------------------------- properties -----------


@st.composite
def deals(draw):
    exposed = draw(st.lists(st.integers(0, 31), min_size=7, max_size=7, unique=True))
    return Deal(mask_of(exposed))


def live_cards(deal: Deal) -> list[int]:
    return [c for c in range(32) if deal.live >> c & 1]


@st.composite
def deals_and_arrangements(draw, n=1):
    deal = draw(deals())
    cards = live_cards(deal)
    arrangements = []
    for _ in range(n):
        perm = draw(st.permutations(cards))
        arrangements.append(Arrangement.from_cards([perm[5 * i : 5 * i + 5] for i in range(5)]))
    return deal, arrangements


@settings(max_examples=150, deadline=None)
@given(data=deals_and_arrangements(), seed=st.integers(0, 2**32 - 1))
def test_shuffled_legal_arrangement_validates(data, seed):
    deal, (arrangement,) = data
    arrangement.validate(deal)
    rng = random.Random(seed)
    # permute cards among packets (any re-split of the same cards) and the slot order
    cards = [c for p in arrangement.packets for c in range(32) if p >> c & 1]
    rng.shuffle(cards)
    packets = [cards[5 * i : 5 * i + 5] for i in range(5)]
    rng.shuffle(packets)
    shuffled = Arrangement.from_cards(packets)
    shuffled.validate(deal)
    # and through its text form
    Arrangement.parse(shuffled.format()).validate(deal)
    Arrangement.parse(shuffled.format(unicode=True, sep=" / ")).validate(deal)


@settings(max_examples=100, deadline=None)
@given(data=deals_and_arrangements(), pick=st.data())
def test_swapping_in_an_exposed_card_is_caught(data, pick):
    deal, (arrangement,) = data
    slot = pick.draw(st.integers(0, 4))
    packet_cards = [c for c in range(32) if arrangement.packets[slot] >> c & 1]
    out = pick.draw(st.sampled_from(packet_cards))
    exposed = [c for c in range(32) if deal.exposed >> c & 1]
    inn = pick.draw(st.sampled_from(exposed))
    packets = list(arrangement.packets)
    packets[slot] = packets[slot] & ~(1 << out) | (1 << inn)
    with pytest.raises(IllegalArrangementError) as info:
        Arrangement(tuple(packets)).validate(deal)
    assert info.value.foreign == 1 << inn
    assert info.value.missing == 1 << out
    assert info.value.duplicated == 0


@settings(max_examples=100, deadline=None)
@given(data=deals_and_arrangements(), pick=st.data())
def test_moving_a_card_between_packets_is_caught(data, pick):
    deal, (arrangement,) = data
    src, dst = pick.draw(st.lists(st.integers(0, 4), min_size=2, max_size=2, unique=True))
    card = pick.draw(st.sampled_from([c for c in range(32) if arrangement.packets[src] >> c & 1]))
    packets = list(arrangement.packets)
    packets[dst] |= 1 << card  # duplicate it
    with pytest.raises(IllegalArrangementError) as info:
        Arrangement(tuple(packets)).validate(deal)
    assert info.value.duplicated == 1 << card
    assert info.value.bad_sizes == ((dst + 1, 6),)


TIE_POINTS = st.sampled_from([0.0, 0.25, 0.5])


@settings(max_examples=150, deadline=None)
@given(data=deals_and_arrangements(n=2), tie_points=TIE_POINTS)
def test_showdown_is_antisymmetric_and_points_add_up(data, tie_points):
    deal0, (a, b) = data
    rules = get_rules(tie_points=tie_points)
    deal = Deal(deal0.exposed, rules)
    ab, ba = showdown(a, b, deal), showdown(b, a, deal)
    assert ab.margin == -ba.margin
    assert (ab.points_a, ab.points_b) == (ba.points_b, ba.points_a)
    swap = {"A": "B", "B": "A", None: None}
    assert [swap[s.winner] for s in ab.slots] == [s.winner for s in ba.slots]
    assert ab.winner == swap[ba.winner]
    total = ab.points_a + ab.points_b
    assert total <= 25
    untied = sum(s.weight for s in ab.slots if s.winner is not None)
    tied = sum(s.weight for s in ab.slots if s.winner is None)
    assert total == pytest.approx(untied + 2 * tie_points * tied)
    if tie_points == 0:
        assert total == untied
    for s in ab.slots:
        # the winner is the stronger hand, independently evaluated
        ka, kb = evaluate(s.hand_a.mask, rules).key, evaluate(s.hand_b.mask, rules).key
        assert s.winner == ("A" if ka > kb else "B" if kb > ka else None)
        assert s.hand_a.mask == a.packets[s.slot - 1] and s.hand_b.mask == b.packets[s.slot - 1]
        assert s.weight == (3, 4, 5, 6, 7)[s.slot - 1]


@settings(max_examples=30, deadline=None)
@given(data=deals_and_arrangements(), tie_points=TIE_POINTS)
def test_showdown_against_itself_is_all_ties(data, tie_points):
    deal0, (a,) = data
    deal = Deal(deal0.exposed, get_rules(tie_points=tie_points))
    result = showdown(a, a, deal)
    assert all(s.winner is None for s in result.slots)
    assert result.margin == 0 and result.winner is None
    assert result.points_a == result.points_b == pytest.approx(25 * tie_points)


def test_tie_points_on_equal_hands_with_different_cards():
    # B is A with 8s and 8d swapped between packets 1 and 3: packet 1 stays two pair
    # 9-9-8-8-7 (a tie), A's flush Q-J-T-8-7 becomes B's queen high (A wins 5), the rest tie.
    deal = Deal.from_exposed(EXPOSED, get_rules(tie_points=0.5))
    a = Arrangement.parse(A_TEXT)
    b = Arrangement.parse(
        "9s 9c 8d 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8s 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
    )
    result = showdown(a, b, deal)
    assert [s.winner for s in result.slots] == [None, None, "A", None, None]
    assert result.points_a == 5 + 0.5 * 20 and result.points_b == 0.5 * 20
    assert result.margin == 5


def test_group_only_rules_change_the_showdown():
    # Both players make four aces in slot 1; only the kicker differs.
    exposed = "7c 7d 7h 7s 8c 8d 8h"
    a = "As Ah Ad Ac Ks | Kd Kh Kc Qs Qd | Qh Qc Js Jd Jh | Jc Ts Td Th Tc | 9s 9d 9h 9c 8s"
    b = "As Ah Ad Ac Qs | Kd Kh Kc Ks Qd | Qh Qc Js Jd Jh | Jc Ts Td Th Tc | 9s 9d 9h 9c 8s"
    kick = showdown(Arrangement.parse(a), Arrangement.parse(b), Deal.from_exposed(exposed))
    assert kick.slots[0].winner == "A"
    group = showdown(
        Arrangement.parse(a),
        Arrangement.parse(b),
        Deal.from_exposed(exposed, get_rules(tiebreak="group-only")),
    )
    assert group.slots[0].winner is None
    assert kick.slots[1].winner == "B" and group.slots[1].winner == "B"  # full house vs four kings


def test_the_showdown_json_says_what_decides_between_hands_of_one_name():
    # slot 1: four aces each, the fifth card decides (king over queen); the other slots tie or
    # have names that say it
    exposed = "7c 7d 7h 7s 8c 8d 8h"
    a = "As Ah Ad Ac Ks | Kd Kh Kc Qs Qd | Qh Qc Js Jd Jh | Jc Ts Td Th Tc | 9s 9d 9h 9c 8s"
    b = "As Ah Ad Ac Qs | Kd Kh Kc Ks Qd | Qh Qc Js Jd Jh | Jc Ts Td Th Tc | 9s 9d 9h 9c 8s"
    out = showdown(Arrangement.parse(a), Arrangement.parse(b), Deal.from_exposed(exposed)).to_model()
    first = out.slots[0]
    assert first.decided_by == "fifth card: king over queen"
    assert (first.a.decider, first.b.decider) == ("Ks", "Qs")
    assert [s.decided_by for s in out.slots[1:]] == [None] * 4
    dumped = out.slots[1].model_dump(mode="json")
    assert "decided_by" not in dumped and "decider" not in dumped["a"]  # absent, not null
    group = showdown(Arrangement.parse(a), Arrangement.parse(b),
                     Deal.from_exposed(exposed, get_rules(tiebreak="group-only"))).to_model()
    assert group.slots[0].winner is None and group.slots[0].decided_by is None  # the kicker does not count: a tie


def test_classic_weights():
    assert CLASSIC.weights == (3, 4, 5, 6, 7)
    assert sum(CLASSIC.weights) == 25
    assert CLASSIC.tie_points == 0
