"""The tournament: exact margins from marginals, checked against direct enumeration."""

from __future__ import annotations

import json
import math
from itertools import combinations

import numpy as np
import pytest

from quintet.cards import cards_of, mask_of
from quintet.evaluator import hand_keys
from quintet.game import Arrangement, Deal, showdown
from solver.apps.tournament import default_strategies, margin_matrix, run_tournament
from solver.apps.tournament import main as tournament_main
from solver.problem.best_response import expected_margin

# Deals whose equilibrium at ε = 0.1 takes about a second.
FAST_DEALS = ("Ah Kc Jd 9s 9h 8d 8c", "Kh Kd Qd Js Jc 9h 8c")
EPSILON = 0.1
STRATEGIES = default_strategies()


@pytest.fixture(scope="module")
def tournament():
    deals = [Deal.from_exposed(d) for d in FAST_DEALS]
    return run_tournament(deals, STRATEGIES, epsilon=EPSILON, time_limit=60, store=None)


def idx(name: str) -> int:
    return STRATEGIES.index(name)


def random_marginals(rng: np.random.Generator, n_slots: int = 5, r: int = 40, support: int | None = None) -> np.ndarray:
    out = rng.random((n_slots, r)) ** 3
    if support is not None:
        for row in out:
            row[rng.permutation(r)[support:]] = 0.0
    return out / out.sum(axis=1, keepdims=True)


def test_margin_matrix_is_antisymmetric_with_zero_diagonal_on_random_marginals():
    rng = np.random.default_rng(5)
    ms = [random_marginals(rng, support=s) for s in (1, 3, 10, None, None)]
    m = margin_matrix(ms, (3, 4, 5, 6, 7))
    assert np.abs(m + m.T).max() < 1e-12
    assert np.abs(np.diag(m)).max() < 1e-12
    assert np.abs(m).max() > 1.0  # not trivially zero


def test_expected_margin_matches_double_sum_definition():
    rng = np.random.default_rng(6)
    pa, pb = random_marginals(rng, r=12), random_marginals(rng, r=12)
    w = (3, 4, 5, 6, 7)
    direct = sum(w[s] * pa[s, r] * pb[s, q] * np.sign(r - q)
                 for s in range(5) for r in range(12) for q in range(12))
    assert expected_margin(pa, pb, w) == pytest.approx(direct, abs=1e-12)


def test_tournament_is_antisymmetric_and_zero_against_itself(tournament):
    per_deal = tournament.per_deal
    assert per_deal.shape == (2, len(STRATEGIES), len(STRATEGIES))
    for m in per_deal:
        assert np.abs(m + m.T).max() < 1e-9
        assert np.abs(np.diag(m)).max() < 1e-9
    assert np.abs(tournament.mean + tournament.mean.T).max() < 1e-9
    assert np.allclose(tournament.ci95, tournament.ci95.T, atol=1e-9)


def test_pure_strategies_score_exactly_their_showdown_margin(tournament):
    for entry in tournament.entries:
        arrangements = entry.arrangements
        for a, b in [("greedy", "br:uniform"), ("br:greedy", "greedy"), ("br:uniform", "br:greedy")]:
            direct = showdown(arrangements[a], arrangements[b], entry.deal).margin
            assert entry.matrix[idx(a), idx(b)] == pytest.approx(direct, abs=1e-9)


def test_equilibrium_entries_match_enumeration_over_its_mix(tournament):
    for entry in tournament.entries:
        mix = entry.equilibrium.mix
        assert len(mix) > 1
        for other in ("greedy", "br:greedy"):
            opp = entry.arrangements[other]
            direct = sum(p * showdown(a, opp, entry.deal).margin for p, a in mix)
            assert entry.matrix[idx("equilibrium"), idx(other)] == pytest.approx(direct, abs=1e-9)


def _uniform_vs(deal: Deal, arrangement: Arrangement) -> float:
    """Expected margin of the arrangement against a uniformly random arrangement, by
    enumerating all C(25, 5) packets with the plain evaluator (no deal tables)."""
    live = list(cards_of(deal.live))
    masks = np.array([mask_of(c) for c in combinations(live, 5)], dtype=np.uint32)
    keys = hand_keys(masks, deal.rules)[0].astype(np.int64)
    total = 0.0
    for s, packet in enumerate(arrangement.packets):
        mine = int(hand_keys(np.array([packet], dtype=np.uint32), deal.rules)[0][0])
        total += deal.rules.weights[s] * (np.sum(keys < mine) - np.sum(keys > mine)) / len(keys)
    return total


def test_uniform_entries_match_enumeration_over_all_packets(tournament):
    for entry in tournament.entries:
        for other in ("br:uniform", "greedy"):
            direct = _uniform_vs(entry.deal, entry.arrangements[other])
            assert entry.matrix[idx(other), idx("uniform")] == pytest.approx(direct, abs=1e-9)
            assert entry.matrix[idx("uniform"), idx(other)] == pytest.approx(-direct, abs=1e-9)


def test_nothing_gains_more_than_the_certificate_against_the_equilibrium(tournament):
    for entry in tournament.entries:
        eps = entry.equilibrium.exploitability
        assert eps <= EPSILON
        column = entry.matrix[:, idx("equilibrium")]
        assert column.max() <= eps + 1e-9
        # and the best response to uniform really is best against uniform
        col_u = entry.matrix[:, idx("uniform")]
        assert col_u.max() == pytest.approx(col_u[idx("br:uniform")], abs=1e-9)
        col_g = entry.matrix[:, idx("greedy")]
        assert col_g.max() == pytest.approx(col_g[idx("br:greedy")], abs=1e-9)


def test_confidence_interval_uses_student_t(tournament):
    d = tournament.per_deal[:, idx("greedy"), idx("uniform")]
    half = 12.7062 * d.std(ddof=1) / math.sqrt(2)
    assert tournament.ci95[idx("greedy"), idx("uniform")] == pytest.approx(half)


def test_seeded_deals_are_reproducible():
    a, b = Deal.random_series(7, 3), Deal.random_series(7, 3)
    assert [d.exposed for d in a] == [d.exposed for d in b]
    assert len({d.exposed for d in a}) == 3
    assert [d.exposed for d in Deal.random_series(8, 3)] != [d.exposed for d in a]


def test_cli_json_plot_and_store(tmp_path, capsys):
    store = tmp_path / "store.sqlite"
    png = tmp_path / "heat.png"
    argv = ["--deals", "0", "--exposed", FAST_DEALS[0], "--exposed", FAST_DEALS[1], "--epsilon", str(EPSILON),
            "--store", str(store), "--json", "--quiet", "--plot", str(png)]
    assert tournament_main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sampled"] is False and "Nothing is sampled" in out["note"]
    mean = np.array(out["mean"])
    assert np.abs(mean + mean.T).max() < 1e-9
    assert out["strategies"] == list(STRATEGIES)
    assert out["equilibrium"]["from_store"] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # again: the equilibria now come from the store, the figures are the same
    assert tournament_main(argv[:-2]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["equilibrium"]["from_store"] == 2
    assert np.allclose(np.array(again["mean"]), mean, atol=1e-9)


def test_cli_table_says_nothing_is_sampled(capsys):
    assert tournament_main(["--deals", "1", "--seed", "3", "--strategies", "uniform,greedy,br:greedy",
                            "--no-store", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Nothing is sampled" in out
    header = next(line for line in out.splitlines() if line.startswith("row \\ column"))
    assert header.split()[3:] == ["uniform", "greedy", "br:greedy", "mean"]


@pytest.mark.parametrize("argv", [["--strategies", "uniform,bogus"], ["--deals", "0"],
                                  ["--store", "x", "--no-store"], ["--strategies", "uniform,uniform"]])
def test_cli_errors(argv, capsys):
    try:
        status = tournament_main(argv)
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    assert status == 2
    assert capsys.readouterr().err.startswith("quintet-tournament: error:")


def test_the_old_spelling_is_told_the_new_one(capsys):
    assert tournament_main(["--strategies", "uniform,br-uniform", "--deals", "1", "--no-store"]) == 2
    assert capsys.readouterr().err.strip() == ("quintet-tournament: error: unknown strategy 'br-uniform' "
                                               "(write br:uniform)")


@pytest.mark.parametrize("plot, problem", [("/nonexistent/dir/x.png", "no directory '/nonexistent/dir'"),
                                           ("heat.txt", "cannot write .txt files"),
                                           (".", "is a directory")])
def test_cli_checks_the_plot_path_before_the_work(plot, problem, capsys, monkeypatch):
    import solver.apps.tournament as tournament_module

    def no_work(*args, **kwargs):
        raise AssertionError("the tournament ran before --plot was checked")

    monkeypatch.setattr(tournament_module, "run_tournament", no_work)
    status = tournament_main(["--deals", "1", "--strategies", "uniform,greedy", "--no-store", "--plot", plot])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("quintet-tournament: error: --plot") and problem in err
    assert len(err.strip().splitlines()) == 1


def test_the_row_mean_leaves_self_play_out(tournament, capsys):
    k = len(STRATEGIES)
    mean = tournament.mean
    for a in range(k):
        others = [mean[a, b] for b in range(k) if b != a]
        assert tournament.row_mean[a] == pytest.approx(sum(others) / (k - 1))
    assert abs(tournament.row_mean).max() > abs(mean.mean(axis=1)).max()  # not the mean over all k columns
    d = tournament.to_model().model_dump(mode="json")
    assert d["kind"] == "tournament" and len(d["deals"]) == len(tournament.entries)
    assert d["row_mean"] == pytest.approx(tournament.row_mean.tolist()) and "self-play left out" in d["row_mean_note"]
    table = tournament.format_table()
    assert "mean: the row strategy's mean margin against the other strategies (self-play left out)." in table
    row = next(line for line in table.splitlines() if line.startswith("greedy "))
    assert row.split()[-1] == f"{tournament.row_mean[idx('greedy')]:+.2f}"
    assert tournament_main(["--deals", "1", "--seed", "3", "--strategies", "greedy", "--no-store", "--quiet",
                            "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["row_mean"] == [None]  # one strategy: nobody else to meet


def test_one_deal_is_one_deal_in_the_heat_map(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from solver.apps.tournament import plot_heatmap

    one = run_tournament([Deal.from_exposed(FAST_DEALS[0])], ("uniform", "greedy"), store=None)
    figure = plot_heatmap(one, tmp_path / "one.png")
    title = figure.axes[0].get_title()
    assert "\n1 deal" in title and "1 deals" not in title and (tmp_path / "one.png").exists()
