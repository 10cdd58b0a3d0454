"""solver.advisor.stats: Student t quantiles and 95% confidence intervals of a mean."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.advisor.stats import mean_ci95, t_quantile_975


@pytest.mark.parametrize("df, expected", [(1, 12.706), (4, 2.776), (19, 2.093), (30, 2.042), (40, 2.021),
                                          (60, 2.000), (120, 1.980), (10**6, 1.960)])
def test_t_quantile(df, expected):
    assert t_quantile_975(df) == pytest.approx(expected, abs=1.5e-3)


def test_t_quantile_needs_a_degree_of_freedom():
    assert math.isnan(t_quantile_975(0))


@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=40))
def test_mean_ci95_of_scalars_matches_the_textbook_formula(xs):
    mean, half = mean_ci95(xs)
    n = len(xs)
    assert float(mean) == pytest.approx(statistics.fmean(xs), abs=1e-6)
    expected = t_quantile_975(n - 1) * statistics.stdev(xs) / math.sqrt(n)
    assert float(half) == pytest.approx(expected, rel=1e-9, abs=1e-6)


def test_mean_ci95_is_elementwise_over_arrays():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(7, 3, 2))
    mean, half = mean_ci95(x)
    assert mean.shape == half.shape == (3, 2)
    for i in range(3):
        for j in range(2):
            m, h = mean_ci95(x[:, i, j])
            assert (mean[i, j], half[i, j]) == pytest.approx((float(m), float(h)))


def test_one_sample_has_no_interval_and_none_is_an_error():
    mean, half = mean_ci95([2.5])
    assert float(mean) == 2.5 and math.isnan(float(half))
    with pytest.raises(ValueError, match="at least one sample"):
        mean_ci95([])
