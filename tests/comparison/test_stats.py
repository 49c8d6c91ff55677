"""Paired tests, bootstrap intervals and corrections against straightforward references.

The references are written here, loop by loop: exact enumeration of every sign flip for the
randomization test, one resample at a time for the bootstrap, scipy's ``ttest_rel`` and
``wilcoxon`` on the two samples, and Holm/Bonferroni by hand.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats

import prfeval._comparison.stats as S
from prfeval._core.errors import UsageError
from prfeval._io import native_lib
from prfeval._io.plan import compiled_unavailable
from support.hand_made import holm_by_hand


@pytest.fixture(params=["compiled", "numpy"])
def draw_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The randomization test and the bootstrap drawn by the compiled library, then by numpy
    (``PRFEVAL_NATIVE=0``): both draw the same numbers."""
    if request.param == "compiled":
        why_not = compiled_unavailable()
        if why_not is not None:
            pytest.skip(f"the compiled draws are not available: {why_not}")
    else:
        monkeypatch.setenv(native_lib.ENV, "0")
    return request.param


def exact_randomization_p(d: np.ndarray) -> float:
    """Two-sided exact p over all 2^n sign assignments (the identity included)."""
    observed = abs(float(np.sum(d)))
    extreme = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(d)):
        total = sum(s * x for s, x in zip(signs, d, strict=True))
        if abs(total) >= observed - 1e-12:
            extreme += 1
    return extreme / 2 ** len(d)


def loop_randomization_p(d: np.ndarray, n_permutations: int, seed: int) -> float:
    """The documented Monte Carlo procedure, one permutation at a time."""
    rng = np.random.default_rng(seed)
    observed = abs(math.fsum(d))
    extreme = 0
    for _ in range(n_permutations):
        u = rng.random(len(d))
        total = math.fsum(-x if ui < 0.5 else x for ui, x in zip(u, d, strict=True))
        if abs(total) >= observed - 1e-12:
            extreme += 1
    return (extreme + 1) / (n_permutations + 1)


def loop_bootstrap_means(d: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Resample means, one resample at a time: indices floor(n * uniform)."""
    rng = np.random.default_rng(seed)
    n = len(d)
    means = []
    for _ in range(n_resamples):
        idx = [math.floor(u * n) for u in rng.random(n)]
        means.append(math.fsum(d[i] for i in idx) / n)
    return np.array(means)


SMALL = [
    np.array([0.2, 0.1, 0.3, 0.25, 0.15, 0.05]),
    np.array([0.5, -0.1, 0.2, -0.3, 0.4, 0.1, 0.0, 0.3]),
    np.array([0.1, -0.1, 0.2, -0.2, 0.05, 0.3, -0.4, 0.25, 0.1, 0.0, -0.05, 0.15]),
]


@pytest.mark.parametrize("d", SMALL)
def test_randomization_close_to_exact_enumeration(d: np.ndarray) -> None:
    exact = exact_randomization_p(d)
    n_perm = 20_000
    p = float(S.randomization_test(d, n_permutations=n_perm, seed=11))
    # Monte Carlo error: 5 standard errors, plus the +1/(B+1) of the estimator.
    tolerance = 5 * math.sqrt(exact * (1 - exact) / n_perm) + 2 / n_perm
    assert abs(p - exact) <= tolerance, (p, exact)


def test_randomization_hand_example() -> None:
    # All six differences positive: only the identity and the full flip are as extreme.
    d = SMALL[0]
    assert exact_randomization_p(d) == pytest.approx(2 / 64)


@pytest.mark.parametrize("d", SMALL)
def test_randomization_equals_reference_loop_with_same_seed(d: np.ndarray, draw_path: str) -> None:
    for seed in (0, 1, 123):
        p = float(S.randomization_test(d, n_permutations=3000, seed=seed))
        assert p == loop_randomization_p(d, 3000, seed)


def test_randomization_does_not_depend_on_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native_lib.ENV, "0")  # blocks of draws are numpy's path
    rng = np.random.default_rng(5)
    d = rng.normal(0.02, 0.2, size=(40, 3))
    whole = S.randomization_test(d, n_permutations=5000, seed=9)
    monkeypatch.setattr(S, "_BLOCK_ELEMENTS", 40 * 7)  # blocks of 7 permutations
    assert np.array_equal(S.randomization_test(d, n_permutations=5000, seed=9), whole)


def test_columns_equal_separate_tests(draw_path: str) -> None:
    rng = np.random.default_rng(6)
    d = rng.normal(0.05, 0.3, size=(25, 4))
    together = S.randomization_test(d, n_permutations=2000, seed=3)
    for j in range(4):
        assert together[j] == S.randomization_test(d[:, j], n_permutations=2000, seed=3)
    assert together.shape == (4,)
    assert S.randomization_test(d[:, 0], n_permutations=10).shape == ()


def test_randomization_reproducible_and_seed_dependent() -> None:
    d = np.random.default_rng(2).normal(0.03, 0.2, size=30)
    a = S.randomization_test(d, n_permutations=999, seed=42)
    assert a == S.randomization_test(d, n_permutations=999, seed=42)
    others = {float(S.randomization_test(d, n_permutations=999, seed=s)) for s in range(5)}
    assert len(others) > 1


def test_randomization_edge_cases(draw_path: str) -> None:
    assert float(S.randomization_test(np.zeros(10), n_permutations=100)) == 1.0
    # One query: both signs are as extreme as the observed one.
    assert float(S.randomization_test([0.7], n_permutations=100)) == 1.0
    # The estimator never reaches 0: p >= 1 / (B + 1).
    assert float(S.randomization_test(np.ones(30), n_permutations=99)) == pytest.approx(0.01)
    with pytest.raises(UsageError):
        S.randomization_test([0.1, np.nan])
    with pytest.raises(UsageError):
        S.randomization_test([], n_permutations=10)
    with pytest.raises(UsageError):
        S.randomization_test([0.1, 0.2], n_permutations=0)


def test_bootstrap_equals_reference_loop(draw_path: str) -> None:
    d = np.array([0.3, -0.1, 0.25, 0.0, 0.4, -0.2, 0.1, 0.05, 0.15])
    n_boot, seed = 4000, 17
    means = loop_bootstrap_means(d, n_boot, seed)
    result = S.paired_bootstrap(d, confidence=0.9, n_resamples=n_boot, seed=seed)
    low, high = np.quantile(means, [0.05, 0.95])
    assert float(result.low) == pytest.approx(low, abs=1e-12)
    assert float(result.high) == pytest.approx(high, abs=1e-12)
    assert float(result.mean) == pytest.approx(d.mean())
    # The shifted test on the same resamples.
    extreme = np.sum(np.abs(means - d.mean()) >= abs(d.mean()) - 1e-12)
    assert float(result.p_value) == pytest.approx((extreme + 1) / (n_boot + 1))


def test_bootstrap_columns_and_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native_lib.ENV, "0")  # blocks of draws are numpy's path
    d = np.random.default_rng(8).normal(0.05, 0.2, size=(30, 2))
    together = S.paired_bootstrap(d, n_resamples=1500, seed=4)
    first = S.paired_bootstrap(d[:, 0], n_resamples=1500, seed=4)
    assert together.low[0] == pytest.approx(float(first.low), abs=1e-12)
    assert together.high[0] == pytest.approx(float(first.high), abs=1e-12)
    monkeypatch.setattr(S, "_BLOCK_ELEMENTS", 30 * 11)
    blocked = S.paired_bootstrap(d, n_resamples=1500, seed=4)
    assert np.allclose(blocked.low, together.low, atol=1e-12, rtol=0)
    assert np.allclose(blocked.high, together.high, atol=1e-12, rtol=0)


def test_bootstrap_edge_cases(draw_path: str) -> None:
    constant = S.paired_bootstrap([0.1, 0.1, 0.1], n_resamples=50)
    assert (float(constant.low), float(constant.high)) == (0.1, 0.1)
    zero = S.paired_bootstrap(np.zeros(5), n_resamples=50)
    assert float(zero.p_value) == 1.0 and float(zero.low) == float(zero.high) == 0.0
    with pytest.raises(UsageError):
        S.paired_bootstrap([0.1, 0.2], confidence=1.0)


def test_ttest_and_wilcoxon_equal_scipy() -> None:
    rng = np.random.default_rng(21)
    x = rng.uniform(0, 1, size=(35, 3))
    y = np.clip(x + rng.normal(0.04, 0.15, size=x.shape), 0, 1)
    d = y - x
    t = S.ttest(d)
    w = S.wilcoxon(d)
    for j in range(3):
        assert t[j] == pytest.approx(scipy.stats.ttest_rel(y[:, j], x[:, j]).pvalue, rel=1e-12)
        assert w[j] == pytest.approx(scipy.stats.wilcoxon(y[:, j], x[:, j]).pvalue, rel=1e-12)


def test_scipy_tests_degenerate() -> None:
    assert float(S.ttest(np.zeros(6))) == 1.0
    assert float(S.wilcoxon(np.zeros(6))) == 1.0
    assert math.isnan(float(S.ttest([0.3])))


def test_paired_p_values_dispatch() -> None:
    d = np.random.default_rng(1).normal(0.1, 0.2, size=20)
    assert S.paired_p_values(d, "randomization", n_permutations=500, seed=2) == (
        S.randomization_test(d, n_permutations=500, seed=2)
    )
    assert S.paired_p_values(d, "bootstrap", n_resamples=500, seed=2) == (
        S.paired_bootstrap(d, n_resamples=500, seed=2).p_value
    )
    with pytest.raises(UsageError, match="unknown test"):
        S.paired_p_values(d, "sign")  # type: ignore[arg-type]


def test_holm_by_hand() -> None:
    # m = 4: sorted 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.06, 0.06, 0.5
    assert S.holm([0.03, 0.01, 0.5, 0.02]) == pytest.approx([0.06, 0.04, 0.5, 0.06])
    # The running maximum matters: sorted, 0.01 * 3 = 0.03, then 0.012 * 2 = 0.024 is raised
    # to 0.03, then 0.9 * 1 = 0.9.
    assert S.holm([0.012, 0.01, 0.9]) == pytest.approx([0.03, 0.03, 0.9])
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.uniform(0, 0.2, size=int(rng.integers(1, 12))).tolist()
        assert S.holm(p) == pytest.approx(holm_by_hand(p))


def test_bonferroni_and_none() -> None:
    assert S.bonferroni([0.01, 0.2, 0.04]) == pytest.approx([0.03, 0.6, 0.12])
    assert S.bonferroni([0.5, 0.6]) == pytest.approx([1.0, 1.0])
    assert S.adjust([0.01, 0.2], "none") == pytest.approx([0.01, 0.2])
    with pytest.raises(UsageError):
        S.adjust([0.1], "fdr")  # type: ignore[arg-type]


def test_nan_p_values_are_not_counted() -> None:
    out = S.holm([0.01, np.nan, 0.04])
    assert math.isnan(out[1])
    assert out[[0, 2]] == pytest.approx([0.02, 0.04])
    assert S.bonferroni([0.01, np.nan]) == pytest.approx([0.01, np.nan], nan_ok=True)
