"""The paired tests' draws in the compiled library (native/pass/src/draws.rs) against numpy.

The references are independent of the library: numpy's own PCG64 stream
(``bit_generator.random_raw``, ``advance``, ``Generator.random``), sums of those draws taken
here one query at a time in query order (which the library must match to the bit), and the
numpy path of :mod:`prfeval._comparison.stats` (``PRFEVAL_NATIVE=0``), which the library must
match to rounding: p-values equal, intervals within a relative 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest

import prfeval._comparison.stats as S
from prfeval._comparison import draws
from prfeval._io import native_lib
from prfeval._io.plan import compiled_unavailable

pytestmark = pytest.mark.skipif(
    compiled_unavailable() is not None,
    reason=f"the compiled draws are not available: {compiled_unavailable()} "
    "(`make native` builds them)",
)

SEEDS = [0, 1, 12345, 2**63 + 11]


def numpy_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native_lib.ENV, "0")


def in_order(values: np.ndarray) -> float:
    """The sum of ``values`` one at a time, first to last (``sum`` compensates since Python
    3.12)."""
    s = 0.0
    for v in values.tolist():
        s += v
    return s


def reference_flip_stats(d: np.ndarray, n_perm: int, seed: int) -> np.ndarray:
    """total - 2 * (sum of the flipped d_i, one query at a time in query order), from
    numpy's draws, row b drawing u[b, i] for query i."""
    n, m = d.shape
    u = np.random.default_rng(seed).random((n_perm, n))
    total = d.sum(axis=0)
    out = np.empty((n_perm, m))
    for b in range(n_perm):
        for j in range(m):
            out[b, j] = total[j] - 2.0 * in_order(d[u[b] < 0.5, j])
    return out


def reference_resample_means(d: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """sum of the picked d_i (floor(n * u), at most n - 1), one draw at a time in draw order,
    over n."""
    n, m = d.shape
    u = np.random.default_rng(seed).random((n_boot, n))
    picks = np.minimum((u * n).astype(np.intp), n - 1)
    out = np.empty((n_boot, m))
    for b in range(n_boot):
        for j in range(m):
            out[b, j] = in_order(d[picks[b], j]) / n
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_the_stream_is_numpys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    before = rng.bit_generator.state
    ours = draws.raw_draws(rng, 2000)
    assert rng.bit_generator.state == before  # only read
    assert np.array_equal(ours, np.random.default_rng(seed).bit_generator.random_raw(2000))
    # Generator.random() is the top 53 bits times 2^-53.
    doubles = (ours >> np.uint64(11)).astype(np.float64) * 2.0**-53
    assert np.array_equal(doubles, np.random.default_rng(seed).random(2000))


@pytest.mark.parametrize("skip", [1, 2, 7, 9900, 123_456_789, 2**64 + 3, 2**127 + 2**100 + 5])
def test_the_jump_ahead_is_numpys(skip: int) -> None:
    for seed in SEEDS[:2]:
        rng = np.random.default_rng(seed)
        ours = draws.raw_draws(rng, 100, skip=skip)
        rng.bit_generator.advance(skip)
        assert np.array_equal(ours, rng.bit_generator.random_raw(100)), (seed, skip)


SHAPES = [(1, 1), (2, 3), (9, 1), (33, 2), (64, 4)]


@pytest.mark.parametrize("shape", SHAPES)
def test_sign_flip_sums_are_numpys_draws_summed_in_query_order(shape: tuple[int, int]) -> None:
    d = np.random.default_rng(sum(shape)).normal(0.02, 0.3, size=shape)
    for n_perm in (1, 8, 21):  # one, a group of rows side by side, groups and single rows
        stats = draws.sign_flip_stats(d, d.sum(axis=0), n_perm, np.random.default_rng(5))
        assert np.array_equal(stats, reference_flip_stats(d, n_perm, 5)), n_perm


@pytest.mark.parametrize("shape", SHAPES)
def test_resample_means_are_numpys_draws_summed_in_draw_order(shape: tuple[int, int]) -> None:
    d = np.random.default_rng(sum(shape) + 1).normal(0.02, 0.3, size=shape)
    for n_boot in (1, 8, 21):
        means = draws.resample_means(d, n_boot, np.random.default_rng(6))
        assert np.array_equal(means, reference_resample_means(d, n_boot, 6)), n_boot


def test_picks_reach_every_query_and_no_further() -> None:
    # floor(n * u) can round up to n for u within an ulp of 1: the pick is then n - 1. With
    # one column of d_i = i, each resample's picks sum to n * mean.
    n = 7
    d = np.arange(n, dtype=np.float64)[:, None]
    means = draws.resample_means(d, 4000, np.random.default_rng(3))
    assert np.array_equal(means, reference_resample_means(d, 4000, 3))
    assert means.min() >= 0 and means.max() <= n - 1


def test_results_do_not_depend_on_the_thread_count() -> None:
    # Enough rows that each thread gets work (the library starts a thread per 2^16 draws),
    # and a number of rows no thread count or group of rows divides.
    d = np.random.default_rng(4).normal(0.0, 0.2, size=(300, 3))
    total = d.sum(axis=0)
    flips = [
        draws.sign_flip_stats(d, total, 2003, np.random.default_rng(8), threads=t)
        for t in (1, 2, 3, 5)
    ]
    means = [
        draws.resample_means(d, 2003, np.random.default_rng(8), threads=t) for t in (1, 2, 3, 5)
    ]
    for other in flips[1:]:
        assert np.array_equal(other, flips[0])
    for other in means[1:]:
        assert np.array_equal(other, means[0])
    # Rows about where the threads start are the reference's: the jumps land right.
    n = d.shape[0]
    for row in (0, 401, 667, 668, 669, 1001, 1002, 1602, 2002):
        rng = np.random.default_rng(8)
        rng.bit_generator.advance(row * n)
        u = rng.random(n)
        flipped = [in_order(d[u < 0.5, j]) for j in range(3)]
        assert np.array_equal(flips[0][row], total - 2.0 * np.array(flipped)), row
        picks = np.minimum((u * n).astype(np.intp), n - 1)
        picked = [in_order(d[picks, j]) / n for j in range(3)]
        assert np.array_equal(means[0][row], picked), row


def test_a_column_is_the_same_whichever_columns_stand_beside_it() -> None:
    d = np.random.default_rng(9).normal(0.01, 0.25, size=(500, 5))
    total = d.sum(axis=0)
    flips = draws.sign_flip_stats(d, total, 1000, np.random.default_rng(2))
    means = draws.resample_means(d, 1000, np.random.default_rng(2))
    for j in range(5):
        column = d[:, [j]]
        alone = draws.sign_flip_stats(column, total[[j]], 1000, np.random.default_rng(2))
        assert np.array_equal(alone[:, 0], flips[:, j])
        alone = draws.resample_means(column, 1000, np.random.default_rng(2))
        assert np.array_equal(alone[:, 0], means[:, j])
    pairs = d[:, [4, 1]]  # and in another order
    assert np.array_equal(
        draws.resample_means(pairs, 1000, np.random.default_rng(2)), means[:, [4, 1]]
    )


@pytest.mark.parametrize("shape", [(1,), (6,), (2, 2), (57, 3), (400, 1), (990, 4)])
def test_p_values_and_intervals_equal_the_numpy_path(
    shape: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    for seed in (0, 7):
        d = np.random.default_rng(seed + len(shape)).normal(0.01, 0.2, size=shape)
        p = S.randomization_test(d, n_permutations=3001, seed=seed)
        boot = S.paired_bootstrap(d, n_resamples=3001, seed=seed, confidence=0.9)
        with monkeypatch.context() as patch:
            numpy_path(patch)
            p_numpy = S.randomization_test(d, n_permutations=3001, seed=seed)
            boot_numpy = S.paired_bootstrap(d, n_resamples=3001, seed=seed, confidence=0.9)
        assert np.array_equal(p, p_numpy)
        assert np.array_equal(boot.p_value, boot_numpy.p_value)
        assert np.array_equal(boot.mean, boot_numpy.mean)
        np.testing.assert_allclose(boot.low, boot_numpy.low, rtol=1e-12, atol=0)
        np.testing.assert_allclose(boot.high, boot_numpy.high, rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    "d",
    [
        np.zeros(12),  # all zero: p = 1
        np.array([0.4]),  # one query
        np.zeros((5, 0)),  # no column
        np.column_stack([np.full(40, 0.1), np.full(40, -0.3), np.zeros(40)]),  # constants
        np.random.default_rng(1).normal(0, 1, size=(30, 2)),
    ],
    ids=["zeros", "one query", "no column", "constant columns", "random"],
)
@pytest.mark.parametrize("draws_taken", [1, 10])
def test_edge_cases_as_on_the_numpy_path(
    d: np.ndarray, draws_taken: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    def both() -> tuple[np.ndarray, S.BootstrapResult]:
        return (
            S.randomization_test(d, n_permutations=draws_taken, seed=3),
            S.paired_bootstrap(d, n_resamples=draws_taken, seed=3),
        )

    p, boot = both()
    with monkeypatch.context() as patch:
        numpy_path(patch)
        p_numpy, boot_numpy = both()
    assert np.array_equal(p, p_numpy)
    for name in ("mean", "low", "high", "p_value"):
        ours, theirs = getattr(boot, name), getattr(boot_numpy, name)
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0, err_msg=name)
    if d.ndim == 2 and d.shape[1] == 3 and not d[:, 2].any():  # the constants
        assert np.array_equal(boot.low, [0.1, -0.3, 0.0])
        assert np.array_equal(boot.high, [0.1, -0.3, 0.0])
    if d.size and not d.any():
        assert np.all(p == 1.0) and np.all(boot.p_value == 1.0)


def test_the_generator_ends_where_numpys_draws_leave_it(monkeypatch: pytest.MonkeyPatch) -> None:
    d = np.random.default_rng(2).normal(0.0, 0.3, size=(23, 2))

    def states() -> list[dict]:
        out = []
        for half in (False, True):  # True: a 32-bit half kept for the next 32-bit draw
            rng = np.random.default_rng(4)
            if half:
                rng.integers(0, 10, dtype=np.int32)
            S.randomization_test(d, n_permutations=17, seed=rng)
            S.paired_bootstrap(d, n_resamples=9, seed=rng)
            out.append(rng.bit_generator.state)
        return out

    ours = states()
    with monkeypatch.context() as patch:
        numpy_path(patch)
        assert states() == ours
    assert ours[1]["has_uint32"] == 1


def test_other_bit_generators_take_the_numpy_path(monkeypatch: pytest.MonkeyPatch) -> None:
    d = np.random.default_rng(3).normal(0.0, 0.3, size=(40, 2))
    for bits in (np.random.Philox, np.random.PCG64DXSM, np.random.MT19937):
        rng = np.random.Generator(bits(5))
        assert bits.__name__ in (draws.unavailable(rng) or "")
        p = S.randomization_test(d, n_permutations=300, seed=np.random.Generator(bits(5)))
        with monkeypatch.context() as patch:
            numpy_path(patch)
            expected = S.randomization_test(
                d, n_permutations=300, seed=np.random.Generator(bits(5))
            )
        assert np.array_equal(p, expected)
    assert draws.unavailable(np.random.default_rng(1)) is None
    monkeypatch.setenv(native_lib.ENV, "0")
    assert draws.unavailable(np.random.default_rng(1)) == f"{native_lib.ENV}=0"
