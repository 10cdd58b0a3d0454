"""The advisor API (solver.advisor.advice): best_response, complete, grade — against tests/brute.py."""

from __future__ import annotations

import brute
import numpy as np
import pytest
from deals import EXAMPLE

from quintet.cards import format_cards, parse_card, parse_cards
from quintet.game import Arrangement, Deal, IllegalArrangementError
from quintet.rules import get_rules
from solver.advisor.advice import best_response, complete, grade
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import greedy_arrangement

TOL = 1e-9
CLASSIC = get_rules("classic")
HALF_TIES = get_rules("classic", tie_points=0.5)
ARR_A = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
ARR_B_PRINTED = "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 8c"


def seeded_deal(seed: int, rules=CLASSIC) -> Deal:
    return brute.random_deal(np.random.default_rng(seed), rules)


def direct_opponent(spec: str, deal: Deal):
    """The opponent spec as [(component, weight)] for tests/brute.py."""
    out = []
    for part in spec.split(","):
        name, _, w = part.partition(":")
        weight = float(w) if w else 1.0
        if name == "uniform":
            out.append((brute.UNIFORM, weight))
        elif name == "greedy":
            out.append((greedy_arrangement(DealTables.build(deal)), weight))
        else:
            raise AssertionError(spec)
    return out


def check_solution(sol, deal: Deal, opponent, objective: str):
    """Legal; reported values equal the direct computation; per-slot numbers consistent."""
    assert brute.is_legal(sol.arrangement.packets, deal)
    margin = brute.direct_value(deal, opponent, sol.arrangement, "margin")
    points = brute.direct_value(deal, opponent, sol.arrangement, "points")
    assert sol.expected_margin == pytest.approx(margin, abs=TOL)
    assert sol.expected_points == pytest.approx(points, abs=TOL)
    assert sol.value == (sol.expected_margin if objective == "margin" else sol.expected_points)
    assert sol.bound >= sol.value - 1e-12
    assert len(sol.per_slot) == 5
    for s, advice in enumerate(sol.per_slot):
        packet = sol.arrangement.packets[s]
        assert advice.slot == s + 1 and advice.points == deal.rules.weights[s]
        assert set(parse_cards(" ".join(advice.cards))) == set(brute.cards_of_mask(packet))
        assert advice.p_win + advice.p_tie + advice.p_loss == pytest.approx(1.0, abs=1e-12)
        assert min(advice.p_win, advice.p_tie, advice.p_loss) >= 0
    assert sum(a.expected_margin for a in sol.per_slot) == pytest.approx(
        sol.expected_margin, abs=1e-12
    )
    assert sum(a.expected_points for a in sol.per_slot) == pytest.approx(
        sol.expected_points, abs=1e-12
    )


# --------------------------------------------------------------------------------------
# best_response
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("objective", ["margin", "points"])
@pytest.mark.parametrize("spec", ["uniform", "greedy", "uniform:0.3,greedy:0.7"])
@pytest.mark.parametrize("deal_id", ["example", 61])
def test_best_response(deal_id, spec, objective):
    rules = HALF_TIES if deal_id == 61 else CLASSIC
    deal = (
        Deal.from_exposed(EXAMPLE, rules) if deal_id == "example" else seeded_deal(deal_id, rules)
    )
    sol = best_response(deal, spec, objective=objective)
    assert sol.optimal
    assert sol.objective == objective
    opponent = direct_opponent(spec, deal)
    check_solution(sol, deal, opponent, objective)
    assert sol.bound == pytest.approx(sol.value, abs=TOL)
    # necessary condition: no two-card swap or slot order improves it
    masks, pv = brute.packet_values(deal, opponent, objective)
    for order in brute.slot_orders(sol.arrangement.packets):
        assert brute.table_value(deal, masks, pv, order) <= sol.value + TOL
    for *_, new in brute.two_card_swaps(sol.arrangement.packets):
        assert brute.table_value(deal, masks, pv, new) <= sol.value + TOL


def test_best_response_uniform_per_slot_by_counting():
    deal = seeded_deal(62)
    sol = best_response(deal, "uniform")
    for advice, packet in zip(sol.per_slot, sol.arrangement.packets, strict=True):
        from quintet.evaluator import hand_key

        below, equal, above = brute.uniform_counts(deal, hand_key(packet))
        n = below + equal + above
        assert (advice.p_win, advice.p_tie, advice.p_loss) == pytest.approx(
            (below / n, equal / n, above / n), abs=1e-12
        )


def test_best_response_to_dict_fields():
    deal = Deal.from_exposed(EXAMPLE)
    d = best_response(deal).to_dict()
    for key in (
        "exposed",
        "live",
        "opponent",
        "objective",
        "arrangement",
        "hands",
        "expected_margin",
        "expected_points",
        "per_slot",
        "optimal",
        "bound",
        "seconds",
    ):
        assert key in d
    assert sorted(d["exposed"]) == sorted(EXAMPLE.split())
    assert len(d["live"]) == 25 and not set(d["live"]) & set(d["exposed"])
    assert [len(p) for p in d["arrangement"]] == [5] * 5


# --------------------------------------------------------------------------------------
# complete
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("objective", ["margin", "points"])
@pytest.mark.parametrize("spec", ["uniform", "greedy", "uniform:0.6,greedy:0.4"])
@pytest.mark.parametrize("seed", [71, 72])
def test_complete_three_fixed_is_optimal(seed, spec, objective):
    rules = HALF_TIES if seed == 72 else CLASSIC
    deal = seeded_deal(seed, rules)
    rng = np.random.default_rng([seed, len(spec), len(objective)])
    opponent = direct_opponent(spec, deal)
    masks, pv = brute.packet_values(deal, opponent, objective)
    for _ in range(2):
        arr = brute.random_arrangement(rng, deal)
        slots = sorted(int(s) + 1 for s in rng.choice(5, 3, replace=False))
        fixed: dict[int, int | str] = {}
        for k, slot in enumerate(slots):  # masks and text both accepted
            p = arr.packets[k]
            fixed[slot] = p if k % 2 == 0 else format_cards(p, rules.deck)
        sol = complete(deal, fixed, spec, objective=objective)
        assert sol.optimal
        check_solution(sol, deal, opponent, objective)
        for k, slot in enumerate(slots):
            assert sol.arrangement.packets[slot - 1] == arr.packets[k]
        best, _ = brute.brute_best(
            deal,
            masks,
            pv,
            [arr.packets[slots.index(s + 1)] if s + 1 in slots else None for s in range(5)],
        )
        assert sol.value == pytest.approx(best, abs=TOL)


@pytest.mark.parametrize("spec", ["uniform", "uniform:0.5,greedy:0.5"])
def test_complete_two_fixed_is_optimal(spec):
    deal = Deal.from_exposed(EXAMPLE)
    opponent = direct_opponent(spec, deal)
    masks, pv = brute.packet_values(deal, opponent, "margin")
    fixed = {2: "As Ah Ad Ac 7c", 4: "Kh Qh Jh Th 9h"}
    sol = complete(deal, fixed, spec)
    assert sol.optimal
    check_solution(sol, deal, opponent, "margin")
    assert sol.arrangement.packets[1] == brute.mask_of_cards(parse_cards(fixed[2]))
    assert sol.arrangement.packets[3] == brute.mask_of_cards(parse_cards(fixed[4]))
    best, _ = brute.brute_best(
        deal,
        masks,
        pv,
        [
            None,
            brute.mask_of_cards(parse_cards(fixed[2])),
            None,
            brute.mask_of_cards(parse_cards(fixed[4])),
            None,
        ],
    )
    assert sol.value == pytest.approx(best, abs=TOL)


def test_complete_with_nothing_fixed_is_the_best_response():
    deal = seeded_deal(73)
    a = complete(deal, {}, "uniform:0.3,greedy:0.7")
    b = best_response(deal, "uniform:0.3,greedy:0.7")
    assert a.value == pytest.approx(b.value, abs=TOL)


@pytest.mark.parametrize(
    "fixed, error",
    [
        ({0: "Ah Kh Qh Jh Th"}, ValueError),
        ({6: "Ah Kh Qh Jh Th"}, ValueError),
        ({1: "Ah Kh Qh Jh"}, IllegalArrangementError),  # four cards
        ({1: "Ah Kh Qh Jh Th 9h"}, IllegalArrangementError),  # six cards
        ({1: "Ah Kh Qh Jh 8h"}, IllegalArrangementError),  # 8h is exposed
        ({1: "Ah Kh Qh Jh Th", 2: "Ah As Ad Ac Kc"}, IllegalArrangementError),  # overlap
        ({1: "Ah Kh Qh Jh Xx"}, ValueError),  # not a card
    ],
)
def test_complete_rejects_bad_fixed_packets(fixed, error):
    deal = Deal.from_exposed(EXAMPLE)
    with pytest.raises(error):
        complete(deal, fixed)


# --------------------------------------------------------------------------------------
# grade
# --------------------------------------------------------------------------------------


def recompute_swap(arrangement: Arrangement, swap) -> tuple[int, ...]:
    a, b = parse_card(swap.card_a), parse_card(swap.card_b)
    packets = list(arrangement.packets)
    s, t = swap.slot_a - 1, swap.slot_b - 1
    assert packets[s] >> a & 1 and packets[t] >> b & 1
    packets[s] = packets[s] & ~(1 << a) | (1 << b)
    packets[t] = packets[t] & ~(1 << b) | (1 << a)
    return tuple(packets)


def check_grade(g, deal: Deal, arrangement: Arrangement, opponent, objective: str):
    check_solution(g.given, deal, opponent, objective)
    assert g.given.arrangement.packets == arrangement.packets
    check_solution(g.best, deal, opponent, objective)
    assert g.best.optimal
    assert g.regret == pytest.approx(g.best.value - g.given.value, abs=TOL)
    assert g.regret >= 0
    masks, pv = brute.packet_values(deal, opponent, objective)
    base = brute.table_value(deal, masks, pv, arrangement.packets)
    assert g.given.value == pytest.approx(base, abs=TOL)
    # best single swap, by brute force over all 250 two-card swaps
    best_swap_value = max(
        brute.table_value(deal, masks, pv, new)
        for *_, new in brute.two_card_swaps(arrangement.packets)
    )
    if g.best_swap is None:
        assert best_swap_value <= base + TOL, "an improving swap exists but none was reported"
    else:
        sw = g.best_swap
        new = recompute_swap(arrangement, sw)
        assert sw.arrangement.packets == new
        assert brute.is_legal(new, deal)
        true_value = brute.direct_value(deal, opponent, new, objective)
        assert sw.value == pytest.approx(true_value, abs=TOL)
        assert sw.value > base
        assert sw.value == pytest.approx(best_swap_value, abs=TOL)
        assert sw.value <= g.best.value + TOL
    return g


@pytest.mark.parametrize("objective", ["margin", "points"])
@pytest.mark.parametrize("spec", ["uniform", "greedy", "uniform:0.3,greedy:0.7"])
def test_grade_random_arrangements(spec, objective):
    rng = np.random.default_rng([81, len(spec), len(objective)])
    for seed in (81, 82):
        rules = HALF_TIES if seed == 82 else CLASSIC
        deal = seeded_deal(seed, rules)
        opponent = direct_opponent(spec, deal)
        arr = brute.random_arrangement(rng, deal)
        g = grade(deal, arr, spec, objective=objective)
        check_grade(g, deal, arr, opponent, objective)
        assert g.regret > 0  # a random arrangement is far from optimal
        if spec == "uniform":  # values vary smoothly: some single swap helps a random arrangement
            assert g.best_swap is not None
        b = best_response(deal, spec, objective=objective)
        assert g.best.value == pytest.approx(b.value, abs=TOL)


def test_grade_example_arrangement_text():
    deal = Deal.from_exposed(EXAMPLE)
    opponent = direct_opponent("uniform", deal)
    g = grade(deal, ARR_A, "uniform")
    check_grade(g, deal, Arrangement.parse(ARR_A), opponent, "margin")
    d = g.to_dict()
    for key in ("value", "optimum", "regret", "best_swap"):
        assert key in d
    assert d["regret"] == pytest.approx(d["optimum"] - d["value"], abs=TOL)


@pytest.mark.parametrize("objective", ["margin", "points"])
@pytest.mark.parametrize("spec", ["uniform", "uniform:0.3,greedy:0.7"])
def test_grading_the_optimum(spec, objective):
    deal = seeded_deal(83)
    opponent = direct_opponent(spec, deal)
    sol = best_response(deal, spec, objective=objective)
    g = grade(deal, sol.arrangement, spec, objective=objective)
    check_grade(g, deal, sol.arrangement, opponent, objective)
    assert g.regret == pytest.approx(0.0, abs=TOL)
    assert g.best_swap is None or g.best_swap.value <= g.given.value + TOL


def test_grade_regret_against_greedy_of_greedy_itself():
    """Against greedy, playing greedy's own arrangement ties every slot: margin exactly 0."""
    deal = Deal.from_exposed(EXAMPLE)
    own = greedy_arrangement(DealTables.build(deal))
    g = grade(deal, own, "greedy")
    assert g.given.expected_margin == 0.0
    assert all(a.p_tie == 1.0 for a in g.given.per_slot)
    check_grade(g, deal, own, direct_opponent("greedy", deal), "margin")


def test_grade_rejects_illegal_arrangement():
    deal = Deal.from_exposed(EXAMPLE)
    with pytest.raises(IllegalArrangementError) as info:
        grade(deal, ARR_B_PRINTED)
    assert "8c" in str(info.value) and "9c" in str(info.value)
