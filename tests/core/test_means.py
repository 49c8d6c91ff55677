"""The three means of P and R and the F_beta contour geometry, against seeds 000 and 004."""

from __future__ import annotations

import numpy as np
import pytest

from prfeval._core.counts import f_from_pr
from prfeval._core.errors import UsageError
from prfeval._core.means import (
    EXAMPLE_SYSTEMS,
    arithmetic_mean,
    contour_asymptotes,
    contour_endpoints,
    contour_vertex,
    geometric_mean,
    harmonic_mean,
    indifference_line,
    means_table,
    precision_on_f_contour,
    recall_on_f_contour,
    recall_on_mean_contour,
)

BETAS = (0.25, 0.5, 1.0, 2.0, 3.0)
LEVELS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)

# Seed 000, "Why a harmonic mean": P, R, arithmetic, geometric, harmonic (F1).
SEED_000_MEANS = [
    (0.4, 0.8, 0.600, 0.566, 0.533),
    (0.5, 0.5, 0.500, 0.500, 0.500),
    (0.002, 1.0, 0.501, 0.045, 0.004),
    (1.0, 0.05, 0.525, 0.224, 0.095),
    (0.9, 0.1, 0.500, 0.300, 0.180),
]


@pytest.mark.parametrize(("p", "r", "am", "gm", "hm"), SEED_000_MEANS)
def test_seed_000_means_to_three_decimals(
    p: float, r: float, am: float, gm: float, hm: float
) -> None:
    assert round(float(arithmetic_mean(p, r)), 3) == am
    assert round(float(geometric_mean(p, r)), 3) == gm
    assert round(float(harmonic_mean(p, r)), 3) == hm


def test_means_table_reproduces_the_seed_table() -> None:
    table = means_table(EXAMPLE_SYSTEMS)
    assert table.labels == tuple(EXAMPLE_SYSTEMS)
    got = np.column_stack(
        [table.precision, table.recall, table.arithmetic, table.geometric, table.harmonic]
    )
    np.testing.assert_array_equal(np.round(got, 3), np.array(SEED_000_MEANS))
    records = table.records()
    assert records[2]["system"] == "Retrieve everything"
    assert round(records[2]["harmonic"], 3) == 0.004  # type: ignore[arg-type]


def test_harmonic_mean_is_f1_from_counts_module() -> None:
    rng = np.random.default_rng(0)
    p, r = rng.random(100), rng.random(100)
    np.testing.assert_array_equal(harmonic_mean(p, r), f_from_pr(p, r, 1.0))
    assert float(harmonic_mean(0.0, 0.0)) == 0.0  # 0/0: no precision, no recall, F = 0


def test_harmonic_le_geometric_le_arithmetic() -> None:
    rng = np.random.default_rng(1)
    p = np.concatenate([rng.random(2000), [0.0, 1.0, 0.0, 1.0]])
    r = np.concatenate([rng.random(2000), [1.0, 0.0, 0.0, 1.0]])
    hm, gm, am = harmonic_mean(p, r), geometric_mean(p, r), arithmetic_mean(p, r)
    assert np.all(hm <= gm + 1e-15)
    assert np.all(gm <= am + 1e-15)
    # Strict whenever P != R (seed 000: equality only when P = R) ...
    apart = np.abs(p - r) > 1e-6
    assert np.all(gm[apart] < am[apart])
    positive = apart & (p > 0) & (r > 0)
    assert np.all(hm[positive] < gm[positive])
    # ... except that with a zero, harmonic and geometric are both 0.
    zero = apart & ((p == 0) | (r == 0))
    assert zero.sum() == 2
    assert np.all(hm[zero] == 0.0) and np.all(gm[zero] == 0.0)


def test_means_are_equal_on_the_diagonal() -> None:
    x = np.linspace(0.0, 1.0, 101)
    for mean in (arithmetic_mean, geometric_mean, harmonic_mean):
        np.testing.assert_allclose(mean(x, x), x, rtol=0, atol=1e-15)


def test_means_broadcast() -> None:
    assert arithmetic_mean([0.2, 0.4], 0.6).tolist() == pytest.approx([0.4, 0.5])
    assert geometric_mean(0.25, [1.0, 0.04]).tolist() == pytest.approx([0.5, 0.1])


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), float("inf")])
def test_means_reject_values_outside_the_unit_interval(bad: float) -> None:
    for mean in (arithmetic_mean, geometric_mean, harmonic_mean):
        with pytest.raises(UsageError, match="precision must be in"):
            mean(bad, 0.5)
        with pytest.raises(UsageError, match="recall must be in"):
            mean(0.5, bad)


def test_means_table_inputs() -> None:
    table = means_table([(0.4, 0.8), (0.5, 0.5)], labels=["a", "b"])
    assert table.labels == ("a", "b") and len(table) == 2
    assert means_table(np.array([[0.4, 0.8]])).labels == (None,)
    empty = means_table([])
    assert len(empty) == 0 and empty.records() == []
    with pytest.raises(UsageError, match="shape"):
        means_table([(0.1, 0.2, 0.3)])
    with pytest.raises(UsageError, match="labels"):
        means_table([(0.1, 0.2)], labels=["a", "b"])
    with pytest.raises(UsageError, match="not both"):
        means_table({"a": (0.1, 0.2)}, labels=["a"])
    with pytest.raises(UsageError, match="recall must be in"):
        means_table({"a": (0.1, 1.2)})
    with pytest.raises(UsageError, match="numbers"):
        means_table([("x", 0.2)])


# --- contours ------------------------------------------------------------------------


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("c", LEVELS)
def test_points_from_recall_on_f_contour_have_f_equal_to_c(beta: float, c: float) -> None:
    p = np.linspace(0.0, 1.0, 1001)
    r = recall_on_f_contour(p, c, beta)
    on = ~np.isnan(r)
    assert on.sum() > 10
    assert np.all((r[on] >= 0.0) & (r[on] <= 1.0))
    np.testing.assert_allclose(f_from_pr(p[on], r[on], beta), c, rtol=1e-12)
    # And the inverse, precision from recall, lands on the same curve.
    p_back = precision_on_f_contour(r[on], c, beta)
    np.testing.assert_allclose(p_back, p[on], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("c", (0.2, 0.5, 0.8))
def test_recall_on_f_contour_is_nan_where_unreachable(beta: float, c: float) -> None:
    a, _ = contour_asymptotes(c, beta)
    p_full_recall, _ = contour_endpoints(c, beta)
    assert np.isnan(recall_on_f_contour(a, c, beta))  # on the asymptote: R infinite
    assert np.isnan(recall_on_f_contour(a / 2, c, beta))  # left of it: R negative
    assert np.isnan(recall_on_f_contour(p_full_recall * 0.99, c, beta))  # R above 1
    assert np.isnan(recall_on_f_contour(1.01, c, beta))
    assert np.isnan(recall_on_f_contour(-0.5, c, beta))
    assert float(recall_on_f_contour(p_full_recall, c, beta)) == pytest.approx(1.0)


def test_seed_000_f2_half_contour() -> None:
    # F2 = 0.5: asymptotes P = 0.1, R = 0.4; from P = 1/6 at R = 1 to R = 4/9 at P = 1.
    assert contour_asymptotes(0.5, 2.0) == pytest.approx((0.1, 0.4))
    assert contour_endpoints(0.5, 2.0) == pytest.approx((1 / 6, 4 / 9))
    assert float(recall_on_f_contour(1 / 6, 0.5, 2.0)) == pytest.approx(1.0)
    assert float(recall_on_f_contour(1.0, 0.5, 2.0)) == pytest.approx(4 / 9)
    assert float(precision_on_f_contour(1.0, 0.5, 2.0)) == pytest.approx(1 / 6)


def test_seed_000_f1_half_needs_a_third() -> None:
    # "To reach F1 = 0.5 a system needs recall of at least 1/3 even with perfect precision."
    assert float(recall_on_f_contour(1.0, 0.5, 1.0)) == pytest.approx(1 / 3)
    assert contour_endpoints(0.5, 1.0) == pytest.approx((1 / 3, 1 / 3))
    assert contour_asymptotes(0.5, 1.0) == pytest.approx((0.25, 0.25))
    # R = cP / (2P - c), seed 000's F1 form.
    p = np.array([0.4, 0.6, 0.9])
    np.testing.assert_allclose(recall_on_f_contour(p, 0.5), 0.5 * p / (2 * p - 0.5))


def test_the_c_equals_one_contour_is_the_corner() -> None:
    r = recall_on_f_contour(np.array([0.5, 0.99, 1.0]), 1.0, 2.0)
    assert np.isnan(r[:2]).all() and r[2] == 1.0


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("c", LEVELS)
def test_vertex_is_on_the_contour_and_the_indifference_line(beta: float, c: float) -> None:
    p, r = contour_vertex(c, beta)
    assert r / p == pytest.approx(beta, rel=1e-12)
    assert r == pytest.approx(float(indifference_line(p, beta)), rel=1e-12)
    # On the hyperbola (P - a)(R - b) = ab, i.e. F_beta = c (seed 000).
    a, b = contour_asymptotes(c, beta)
    assert (p - a) * (r - b) == pytest.approx(a * b, rel=1e-12)
    assert float(f_from_pr(p, r, beta)) == pytest.approx(c, rel=1e-12)


@pytest.mark.parametrize("beta", BETAS)
def test_vertex_is_the_contour_point_nearest_the_centre(beta: float) -> None:
    # Of a rectangular hyperbola's branch, the vertex is the point closest to its centre.
    c = 0.4
    a, b = contour_asymptotes(c, beta)
    p = np.linspace(a + 1e-6, 4.0, 400_001)
    r = c * beta**2 * p / ((1 + beta**2) * p - c)  # the unclipped branch
    nearest = np.argmin(np.hypot(p - a, r - b))
    vp, vr = contour_vertex(c, beta)
    assert p[nearest] == pytest.approx(vp, abs=1e-4)
    assert r[nearest] == pytest.approx(vr, abs=1e-4)


def test_vertex_may_lie_outside_the_square() -> None:
    p, r = contour_vertex(0.9, 2.0)
    assert (p, r) == pytest.approx((0.54, 1.08))


@pytest.mark.parametrize(("beta", "r"), [(0.5, 0.15), (1.0, 0.3), (2.0, 0.6)])
def test_partial_derivatives_agree_on_the_indifference_line(beta: float, r: float) -> None:
    # Seed 000: at P = 0.3 the derivatives agree at R = 0.15, 0.3, 0.6 for beta 0.5, 1, 2.
    p, h = 0.3, 1e-6
    assert float(indifference_line(p, beta)) == pytest.approx(r)
    d_p = (f_from_pr(p + h, r, beta) - f_from_pr(p - h, r, beta)) / (2 * h)
    d_r = (f_from_pr(p, r + h, beta) - f_from_pr(p, r - h, beta)) / (2 * h)
    assert float(d_p) == pytest.approx(float(d_r), rel=1e-6)


@pytest.mark.parametrize("mean", ["arithmetic", "geometric", "harmonic"])
@pytest.mark.parametrize("c", (0.1, 0.5, 0.9))
def test_mean_contours(mean: str, c: float) -> None:
    functions = {
        "arithmetic": arithmetic_mean,
        "geometric": geometric_mean,
        "harmonic": harmonic_mean,
    }
    p = np.linspace(0.0, 1.0, 501)
    r = recall_on_mean_contour(p, c, mean)  # type: ignore[arg-type]
    on = ~np.isnan(r)
    assert on.any()
    np.testing.assert_allclose(functions[mean](p[on], r[on]), c, rtol=1e-12, atol=1e-15)


def test_retrieve_everything_is_on_the_arithmetic_half_contour() -> None:
    # Seed 000: retrieving everything sits on the 0.5 contour next to balanced systems.
    assert float(recall_on_mean_contour(0.002, 0.501, "arithmetic")) == pytest.approx(1.0)


def test_contour_arguments_are_checked() -> None:
    with pytest.raises(UsageError, match="contour level"):
        recall_on_f_contour(0.5, 0.0)
    with pytest.raises(UsageError, match="contour level"):
        contour_vertex(1.5)
    with pytest.raises(UsageError, match="beta"):
        recall_on_f_contour(0.5, 0.5, beta=0.0)
    with pytest.raises(UsageError, match="beta"):
        indifference_line(0.5, beta=float("nan"))
    with pytest.raises(UsageError, match="unknown mean"):
        recall_on_mean_contour(0.5, 0.5, "median")  # type: ignore[arg-type]


# Seed 004, "Example: F-beta for System A and B".
SEED_004_F_BETA = [
    (0.5, 0.522, 0.638),
    (1.0, 0.600, 0.522),
    (2.0, 0.706, 0.441),
]


@pytest.mark.parametrize(("beta", "f_a", "f_b"), SEED_004_F_BETA)
def test_seed_004_f_beta_table(beta: float, f_a: float, f_b: float) -> None:
    assert round(float(f_from_pr(0.48, 0.80, beta)), 3) == f_a
    assert round(float(f_from_pr(0.75, 0.40, beta)), 3) == f_b


def test_seed_004_systems_lie_on_their_own_contours() -> None:
    # Each system lies on the F_beta contour through its own F_beta value.
    for p, r in ((0.48, 0.80), (0.75, 0.40)):
        for beta in (0.5, 1.0, 2.0):
            c = float(f_from_pr(p, r, beta))
            assert float(recall_on_f_contour(p, c, beta)) == pytest.approx(r, rel=1e-12)
