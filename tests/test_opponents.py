"""Opponent models: marginals against direct counting, the greedy player by hand, parsing."""

from __future__ import annotations

import json
from functools import cache

import brute
import numpy as np
import pytest
from deals import EXAMPLE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quintet.cards import parse_cards
from quintet.evaluator import hand_key
from quintet.game import Arrangement, Deal
from quintet.rules import get_rules
from solver.advisor.advice import evaluate_arrangement
from solver.problem.deal_tables import DealTables
from solver.problem.opponent_spec import parse_opponent
from solver.problem.opponents import (
    ArrangementMix,
    Greedy,
    Mixture,
    OpponentError,
    Uniform,
    greedy_arrangement,
    load_population,
)

CLASSIC = get_rules("classic")
HALF_TIES = get_rules("classic", tie_points=0.5)

# docs/rules.md: A's arrangement in the worked example (legal), and B's with the misprint corrected
ARR_A = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
ARR_B = "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 9c"


@cache
def tables_for(exposed: int, rules=CLASSIC) -> DealTables:
    return DealTables.build(Deal(exposed, rules))


@pytest.fixture(scope="module")
def example():
    deal = Deal.from_exposed(EXAMPLE)
    return deal, tables_for(deal.exposed)


def seeded_deal(seed: int, rules=CLASSIC) -> Deal:
    return brute.random_deal(np.random.default_rng(seed), rules)


def mask(text: str) -> int:
    return brute.mask_of_cards(parse_cards(text))


# --------------------------------------------------------------------------------------
# uniform: exact marginals by direct counting
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("deal_id", ["example", 1, 2])
def test_uniform_marginals_equal_direct_counting(deal_id):
    deal = Deal.from_exposed(EXAMPLE) if deal_id == "example" else seeded_deal(deal_id)
    tables = tables_for(deal.exposed)
    masks, keys = brute.all_packets(deal.live, deal.rules)  # every 5-subset, keyed by hand_key
    n = len(masks)
    assert n == 53_130
    distinct, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    # the tables' rank classes are exactly the dense ranks of the directly computed keys
    assert tables.n_classes == len(distinct)
    idx = np.array([tables.index_of(int(m)) for m in masks])
    assert np.array_equal(tables.classes[idx], inverse.reshape(-1))
    m = Uniform().marginals(tables)
    assert m.shape == (5, len(distinct))
    expected = counts / n
    for s in range(5):
        assert np.array_equal(m[s], expected), f"slot {s + 1}"


def test_uniform_win_tie_loss_of_a_packet_by_counting(example):
    """Four aces with the 9c, counted by hand on the example deal (all four aces live).

    Stronger: the straight flushes inside the live cards -- hearts 9..A give the A-high and
    the K-high one, diamonds T..A the A-high one (clubs 7 8 9 T K A lack the J, spades
    8 9 J Q K A the T) -- and four aces with a better kicker: K (Kc Kd Kh Ks live: 4),
    Q (Qd Qh Qs: 3), J (Jd Jh Js: 3), T (Tc Td Th: 3).  So 3 + 13 = 16 above.
    Equal: four aces with a 9 (9c 9h 9s; 9d is exposed): 3, mine included.
    """
    deal, tables = example
    key = hand_key(mask("As Ah Ad Ac 9c"))
    below, equal, above = brute.uniform_counts(deal, key)
    assert (equal, above) == (3, 16)
    assert below == 53_130 - 19
    m = Uniform().marginals(tables)
    c = tables.classes[tables.index_of(mask("As Ah Ad Ac 9c"))]
    for s in range(5):
        assert m[s, c] == 3 / 53_130
        assert m[s, c + 1 :].sum() == pytest.approx(16 / 53_130, abs=1e-15)


# --------------------------------------------------------------------------------------
# every model: rows are probability distributions
# --------------------------------------------------------------------------------------


def all_models(deal: Deal, tables: DealTables, rng: np.random.Generator):
    arrs = tuple(brute.random_arrangement(rng, deal) for _ in range(3))
    mix = ArrangementMix(arrs, (0.2, 0.0, 1.3))
    return {
        "uniform": Uniform(),
        "greedy": Greedy(),
        "mixture": Mixture((Uniform(), Greedy()), (0.3, 0.7)),
        "arrangement-mix": mix,
        "nested": Mixture((mix, Greedy(), Uniform()), (2.0, 1.0, 5.0)),
    }


@pytest.mark.parametrize("seed", [3, 4])
def test_every_model_marginals_are_distributions(seed):
    deal = seeded_deal(seed)
    tables = tables_for(deal.exposed)
    for name, model in all_models(deal, tables, np.random.default_rng(seed)).items():
        m = model.marginals(tables)
        assert m.shape == (5, tables.n_classes), name
        assert np.all(m >= 0), name
        assert np.allclose(m.sum(axis=1), 1.0, atol=1e-12), name


def test_mixture_marginals_are_the_weighted_sum(example):
    deal, tables = example
    rng = np.random.default_rng(9)
    arr = brute.random_arrangement(rng, deal)
    parts = (Uniform(), Greedy(), ArrangementMix((arr,), (1.0,)))
    weights = (0.5, 2.0, 1.5)
    m = Mixture(parts, weights).marginals(tables)
    expected = sum(w / 4.0 * p.marginals(tables) for p, w in zip(parts, weights, strict=True))
    assert np.allclose(m, expected, atol=1e-15)
    # the single-arrangement component is one-hot at that arrangement's packets
    one = parts[2].marginals(tables)
    keys = tables.packets.class_keys()
    for s in range(5):
        (nz,) = np.nonzero(one[s])
        assert len(nz) == 1 and one[s, nz[0]] == 1.0
        assert int(keys[nz[0]]) == hand_key(arr.packets[s])


def test_arrangement_mix_normalizes_weights(example):
    deal, tables = example
    a, b = Arrangement.parse(ARR_A), Arrangement.parse(ARR_B)
    m = ArrangementMix((a, b), (1.0, 3.0)).marginals(tables)
    keys = tables.packets.class_keys()
    for s in range(5):
        ka, kb = hand_key(a.packets[s]), hand_key(b.packets[s])
        got = {int(keys[c]): float(m[s, c]) for c in np.nonzero(m[s])[0]}
        want: dict[int, float] = {}
        want[ka] = want.get(ka, 0.0) + 0.25
        want[kb] = want.get(kb, 0.0) + 0.75
        assert got == pytest.approx(want)


def test_arrangement_mix_rejects_bad_weights(example):
    a = Arrangement.parse(ARR_A)
    for probs in [(), (1.0, 2.0), (-1.0,), (0.0,), (float("nan"),), (float("inf"),)]:
        with pytest.raises(OpponentError):
            ArrangementMix((a,), probs)


def test_arrangement_mix_rejects_an_illegal_arrangement(example):
    deal, tables = example
    illegal = Arrangement.parse(
        "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 8c"
    )  # B as printed: 8c twice, 9c missing
    with pytest.raises(ValueError):
        ArrangementMix((illegal,), (1.0,)).marginals(tables)


# --------------------------------------------------------------------------------------
# greedy on the example deal, written out by hand
# --------------------------------------------------------------------------------------


def test_greedy_on_the_example_deal_by_hand(example):
    """Exposed 8h 7h 9d Ts 7s Qc Jc; the 25 live cards are
    clubs 7 8 9 T K A, diamonds 7 8 T J Q K A, hearts 9 T J Q K A, spades 8 9 J Q K A.

    1. Strongest hand: an ace-high straight flush.  Two exist, T-A of diamonds and T-A of
       hearts, equal (suits never matter).  Tie rule: the lexicographically smallest list of
       card ints (suit*8 + rank): diamonds [11..15] < hearts [19..23] -> Td Jd Qd Kd Ad.
    2. Then the hearts royal Th Jh Qh Kh Ah (no other ace-high straight flush is left).
    3. Left: 7c 8c 9c Tc Kc Ac 7d 8d 9h 8s 9s Js Qs Ks As.  No straight flush (clubs lack
       the J, spades the T), no four of a kind; best full house: three nines (9c 9h 9s)
       over the aces (Ac As) -- unique.
    4. Left: 7c 8c Tc Kc 7d 8d 8s Js Qs Ks.  Best: eights (8c 8d 8s) over kings (Kc Ks).
    5. The rest: 7c 7d Tc Js Qs, a pair of sevens.
    Laid weakest in slot 1 to strongest in slot 5; the two equal royals keep the order
    in which they were taken, the earlier (diamonds) in the higher slot.
    """
    deal, tables = example
    expected = Arrangement(
        (
            mask("7c 7d Tc Js Qs"),
            mask("8c 8d 8s Kc Ks"),
            mask("9c 9h 9s Ac As"),
            mask("Th Jh Qh Kh Ah"),
            mask("Td Jd Qd Kd Ad"),
        )
    )
    expected.validate(deal)
    got = greedy_arrangement(tables)
    assert got.packets == expected.packets, got.format()


@pytest.mark.parametrize("seed", [5, 6, 7, 8, 9, 10])
def test_greedy_follows_its_documented_rule_on_random_deals(seed):
    """Replay the documented rule with directly computed keys: four times take the strongest
    5-subset of the cards left (ties: the lexicographically smallest list of card ints), the
    rest is the fifth packet; lay them by strength, equal hands earlier-taken higher."""
    deal = seeded_deal(seed)
    tables = tables_for(deal.exposed)
    masks, keys = brute.all_packets(deal.live, deal.rules)
    used = 0
    taken: list[int] = []
    for _ in range(4):
        free = (masks & used) == 0
        best = keys[free].max()
        candidates = [int(m) for m in masks[free & (keys == best)]]
        first = min(candidates, key=brute.cards_of_mask)
        taken.append(first)
        used |= first
    taken.append(deal.live & ~used)
    order = sorted(range(5), key=lambda i: (hand_key(taken[i]), -i))
    expected = tuple(taken[i] for i in order)
    got = greedy_arrangement(tables)
    got.validate(deal)
    assert got.packets == expected


def test_greedy_marginals_one_hot_at_its_arrangement(example):
    deal, tables = example
    m = Greedy().marginals(tables)
    keys = tables.packets.class_keys()
    for s, text in enumerate(
        ["7c 7d Tc Js Qs", "8c 8d 8s Kc Ks", "9c 9h 9s Ac As", "Th Jh Qh Kh Ah", "Td Jd Qd Kd Ad"]
    ):
        (nz,) = np.nonzero(m[s])
        assert len(nz) == 1 and m[s, nz[0]] == 1.0
        assert int(keys[nz[0]]) == hand_key(mask(text))


# --------------------------------------------------------------------------------------
# parse_opponent and population files
# --------------------------------------------------------------------------------------


def test_parse_simple_models(example):
    deal, tables = example
    assert isinstance(parse_opponent("uniform", deal), Uniform)
    assert isinstance(parse_opponent("greedy", deal), Greedy)
    assert isinstance(parse_opponent("  greedy ", deal), Greedy)
    mix = parse_opponent("uniform:0.3,greedy:0.7", deal)
    expected = 0.3 * Uniform().marginals(tables) + 0.7 * Greedy().marginals(tables)
    assert np.allclose(mix.marginals(tables), expected, atol=1e-15)
    # weights are relative
    rel = parse_opponent("uniform:3, greedy:7", deal)
    assert np.allclose(rel.marginals(tables), expected, atol=1e-15)
    unweighted = parse_opponent("uniform,greedy", deal)
    assert np.allclose(
        unweighted.marginals(tables),
        0.5 * Uniform().marginals(tables) + 0.5 * Greedy().marginals(tables),
        atol=1e-15,
    )


def _mix_marginals(tables, pairs):
    return ArrangementMix(
        tuple(Arrangement.parse(a) for a, _ in pairs), tuple(w for _, w in pairs)
    ).marginals(tables)


def _cells(text: str) -> list[str]:
    return [p.strip() for p in text.split("|")]


POPULATION_FORMATS = {
    "json-strings": ("pop.json", json.dumps([ARR_A, ARR_B]), [(ARR_A, 1), (ARR_B, 1)]),
    "json-weighted": (
        "pop.json",
        json.dumps([{"arrangement": ARR_A, "weight": 1}, {"arrangement": ARR_B, "weight": 3}]),
        [(ARR_A, 1), (ARR_B, 3)],
    ),
    "json-card-lists": (
        "pop.json",
        json.dumps(
            [
                [p.split() for p in _cells(ARR_A)],
                {"arrangement": [p.split() for p in _cells(ARR_B)], "weight": 0.5},
            ]
        ),
        [(ARR_A, 1), (ARR_B, 0.5)],
    ),
    "json-wrapped": ("pop.json", json.dumps({"arrangements": [ARR_B]}), [(ARR_B, 1)]),
    "csv-plain": ("pop.csv", f"{ARR_A}\n{ARR_B}\n", [(ARR_A, 1), (ARR_B, 1)]),
    "csv-header-weights": (
        "pop.csv",
        f"arrangement,weight\n{ARR_A},2\n# a comment\n{ARR_B},6\n",
        [(ARR_A, 2), (ARR_B, 6)],
    ),
    "csv-five-cells": (
        "pop.csv",
        ",".join(_cells(ARR_A)) + ",1\n" + ",".join(_cells(ARR_B)) + ",4\n",
        [(ARR_A, 1), (ARR_B, 4)],
    ),
    "csv-five-cells-header": (
        "pop.csv",
        "slot1,slot2,slot3,slot4,slot5\n" + ",".join(_cells(ARR_B)) + "\n",
        [(ARR_B, 1)],
    ),
    "txt-csv": ("pop.txt", f"{ARR_B},1\n{ARR_A},1\n", [(ARR_A, 1), (ARR_B, 1)]),
}


@pytest.mark.parametrize("fmt", sorted(POPULATION_FORMATS))
def test_population_formats(fmt, example, tmp_path):
    deal, tables = example
    name, text, pairs = POPULATION_FORMATS[fmt]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    model = parse_opponent(f"population:{path}", deal)
    assert np.allclose(model.marginals(tables), _mix_marginals(tables, pairs), atol=1e-15)
    direct = load_population(path, deal)
    assert np.allclose(direct.marginals(tables), _mix_marginals(tables, pairs), atol=1e-15)
    # in a mixture too
    mixed = parse_opponent(f"population:{path}:0.25,uniform:0.75", deal)
    expected = 0.25 * _mix_marginals(tables, pairs) + 0.75 * Uniform().marginals(tables)
    assert np.allclose(mixed.marginals(tables), expected, atol=1e-15)


@pytest.mark.parametrize("spec", ["foo", "uniformm", "Greedy2", "population", "uniform:abc"])
def test_unknown_model(spec, example):
    deal, _ = example
    with pytest.raises(OpponentError):
        parse_opponent(spec, deal)


@pytest.mark.parametrize("spec", ["uniform:0", "greedy:0.0", "uniform:0.5,greedy:0", "uniform:-1"])
def test_bad_weight(spec, example):
    deal, _ = example
    with pytest.raises(OpponentError):
        parse_opponent(spec, deal)


@pytest.mark.parametrize("spec", ["", "   ", ",", "uniform,", ",greedy", "uniform,,greedy"])
def test_empty_spec(spec, example):
    deal, _ = example
    with pytest.raises(OpponentError):
        parse_opponent(spec, deal)


def test_opponent_error_is_a_value_error():
    assert issubclass(OpponentError, ValueError)


def test_missing_population_file(example, tmp_path):
    deal, _ = example
    with pytest.raises(OpponentError, match="not found"):
        parse_opponent(f"population:{tmp_path / 'nope.json'}", deal)
    with pytest.raises(OpponentError):
        parse_opponent(f"population:{tmp_path}", deal)  # a directory


@pytest.mark.parametrize("text", ["[1, 2", '{"arrangements": [', '["' + ARR_A + '",]'])
def test_invalid_json(text, example, tmp_path):
    deal, _ = example
    path = tmp_path / "pop.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(OpponentError):
        parse_opponent(f"population:{path}", deal)


@pytest.mark.parametrize(
    "text", ["[]", "{}", "[42]", '[{"arrangement": "' + ARR_A + '", "weight": "x"}]', ""]
)
def test_unusable_population(text, example, tmp_path):
    deal, _ = example
    path = tmp_path / "pop.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(OpponentError):
        parse_opponent(f"population:{path}", deal)


ILLEGAL = {
    # 8c twice (packets 1 and 5), 9c missing: B's printed arrangement
    "duplicate": (
        "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 8c",
        ["8c", "9c"],
    ),
    # a packet of four: 9c missing
    "missing": (
        "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc",
        ["9c"],
    ),
    # Qc is exposed (and 9c missing)
    "exposed": (
        "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc Qc",
        ["Qc"],
    ),
}


@pytest.mark.parametrize("fmt", ["json", "csv"])
@pytest.mark.parametrize("kind", sorted(ILLEGAL))
def test_population_with_illegal_arrangement_names_it(kind, fmt, example, tmp_path):
    deal, _ = example
    bad, cards = ILLEGAL[kind]
    path = tmp_path / f"pop.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps([ARR_A, bad, ARR_B]), encoding="utf-8")
    else:
        path.write_text(f"arrangement,weight\n{ARR_A},1\n{bad},1\n{ARR_B},1\n", encoding="utf-8")
    with pytest.raises(OpponentError) as info:
        parse_opponent(f"population:{path}", deal)
    message = str(info.value)
    assert "arrangement 2" in message, message
    for card in cards:
        assert card in message, message
    assert "\n" not in message


# --------------------------------------------------------------------------------------
# property: values from marginals == direct slot-by-slot comparison
# --------------------------------------------------------------------------------------

PROPERTY_DEALS = [(EXAMPLE, CLASSIC), (EXAMPLE, HALF_TIES), (50, CLASSIC), (51, HALF_TIES)]


def _property_deal(i: int) -> tuple[Deal, DealTables]:
    spec, rules = PROPERTY_DEALS[i]
    deal = Deal.from_exposed(spec, rules) if isinstance(spec, str) else seeded_deal(spec, rules)
    return deal, tables_for(deal.exposed, rules)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    deal_index=st.integers(0, len(PROPERTY_DEALS) - 1),
    seed=st.integers(0, 2**32 - 1),
    n_arrangements=st.integers(1, 6),
    with_uniform=st.booleans(),
    strong=st.booleans(),
)
def test_marginal_values_equal_direct_computation(
    deal_index, seed, n_arrangements, with_uniform, strong
):
    deal, tables = _property_deal(deal_index)
    rng = np.random.default_rng(seed)
    if strong:  # slot orders of one partition: many ties with my packets
        base = greedy_arrangement(tables).packets
        arrs = tuple(
            Arrangement(tuple(base[i] for i in rng.permutation(5))) for _ in range(n_arrangements)
        )
    else:
        arrs = tuple(brute.random_arrangement(rng, deal) for _ in range(n_arrangements))
    probs = tuple(float(x) for x in rng.uniform(0.01, 1.0, n_arrangements))
    model = ArrangementMix(arrs, probs)
    opponent = list(zip(arrs, probs, strict=True))
    if with_uniform:
        w = float(rng.uniform(0.1, 2.0))
        model = Mixture((model, Uniform()), (1.0, w))
        total = sum(probs)
        opponent = [(a, p / total) for a, p in opponent] + [(brute.UNIFORM, w)]
    mine = (
        brute.random_arrangement(rng, deal)
        if rng.random() < 0.5
        else Arrangement(tuple(greedy_arrangement(tables).packets[i] for i in rng.permutation(5)))
    )
    slots, margin, points = evaluate_arrangement(tables, model.marginals(tables), mine)
    assert margin == pytest.approx(brute.direct_value(deal, opponent, mine, "margin"), abs=1e-9)
    assert points == pytest.approx(brute.direct_value(deal, opponent, mine, "points"), abs=1e-9)
    for s, advice in enumerate(slots):
        win, tie, loss = brute.slot_outcomes(deal, opponent, hand_key(mine.packets[s]), s)
        assert (advice.p_win, advice.p_tie, advice.p_loss) == pytest.approx(
            (win, tie, loss), abs=1e-12
        )
        assert advice.p_win + advice.p_tie + advice.p_loss == pytest.approx(1.0, abs=1e-12)
