"""Exact sums and moments: the same last digit whatever the order or the split of the terms.

Checked against :func:`math.fsum` (Python's correctly rounded sum), on values chosen to make
float addition lose digits: wide ranges of magnitude, cancellations, subnormals.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prfeval._core.aggregate import Moments, assemble, geometric, macro
from prfeval._core.partials import Cells, MeasurePartial, Partial
from prfeval._core.sums import ExactSum
from prfeval._measures import REGISTRY, parse_measures
from prfeval._retrieval.kernel import measure_queries
from prfeval._retrieval.pipeline import align

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


def fsum(values) -> float:
    return math.fsum(list(values)) + 0.0


@given(st.lists(finite, max_size=200))
@settings(max_examples=300, deadline=None)
def test_the_sum_is_fsum(values):
    # Correctly rounded, so equal to fsum wherever fsum does not overflow in between.
    try:
        expected = fsum(values)
    except OverflowError:
        return
    assert ExactSum.of(values).value() == expected


@given(st.lists(finite, max_size=200), st.randoms(use_true_random=False))
@settings(max_examples=200, deadline=None)
def test_parts_add_up_to_the_whole_in_any_order(values, rnd):
    whole = ExactSum.of(values).value()
    shuffled = list(values)
    rnd.shuffle(shuffled)
    cuts = sorted(rnd.sample(range(len(shuffled) + 1), k=min(3, len(shuffled) + 1)))
    parts = [shuffled[a:b] for a, b in zip([0, *cuts], [*cuts, len(shuffled)], strict=True)]
    total = ExactSum()
    for part in parts:
        total = total + ExactSum.of(part)
    assert total.value() == whole


@pytest.mark.parametrize("scale", [1.0, 1e-300, 1e300, 1e-310])
def test_large_arrays_match_fsum(scale):
    rng = np.random.default_rng(7)
    v = rng.standard_normal(100_000) * scale
    assert ExactSum.of(v).value() == fsum(v)


def test_wide_exponents_and_cancellation():
    values = [1e308, 1.0, -1e308, 1e-320, 2.0**-1074]
    assert ExactSum.of(values).value() == fsum(values) == 1.0
    assert ExactSum.of([0.1] * 10).value() == 1.0  # sum() gives 0.9999999999999999


def test_non_finite_terms_dominate_as_in_float_arithmetic():
    assert ExactSum.of([1.0, math.inf]).value() == math.inf
    assert math.isnan(ExactSum.of([math.inf, -math.inf]).value())
    assert ExactSum.of([-1e308, -1e308]).value() == -math.inf  # overflow when rounded


def test_negative_zero_is_zero():
    assert math.copysign(1.0, ExactSum.of([-0.0]).value()) == 1.0


def test_empty():
    assert ExactSum.of([]).value() == 0.0
    assert Moments.of([]).mean() == 0.0
    assert Moments.of([float("nan")]).mean(empty=float("nan")) != 0.0


@given(st.lists(st.floats(0, 1), max_size=60), st.integers(0, 60))
@settings(max_examples=200, deadline=None)
def test_moments_of_parts_are_the_moments_of_the_whole(values, cut):
    values = [*values, float("nan")] if cut % 7 == 0 else values
    a, b = values[:cut], values[cut:]
    joined = Moments.of(a, logs=True) + Moments.of(b, logs=True)
    whole = Moments.of(values, logs=True)
    assert joined.mean() == whole.mean() == macro(values)
    assert joined.geometric() == whole.geometric() == geometric(values)
    assert (joined.n, joined.undefined) == (whole.n, whole.undefined)


def test_the_mean_does_not_depend_on_the_order():
    rng = np.random.default_rng(3)
    v = rng.random(10_001)
    assert macro(v) == macro(v[::-1]) == macro(rng.permutation(v))


def _spec(name: str) -> str:
    d = REGISTRY[name]
    return d.example(10)


@pytest.mark.parametrize(
    # trec_eval's preference measures read preference judgments, not qrels (test_prefs.py)
    "name", sorted(n for n, d in REGISTRY.items() if not d.needs_preferences)
)
def test_assemble_of_parts_equals_whole(name):
    """Every registered measure: its averages reduced from parts are those of the whole."""
    rng = np.random.default_rng(11)
    qrels = {
        f"q{q}": {f"d{i}": int(rng.choice([-1, 0, 1, 2])) for i in rng.choice(50, 20, False)}
        for q in range(30)
    }
    run = {
        f"q{q}": {f"d{i}": float(rng.integers(0, 5)) for i in rng.choice(50, 25, False)}
        for q in range(30)
    }
    if REGISTRY[name].is_text:
        pytest.skip("a text measure (runid, relstring): no values to average")
    measures = parse_measures(_spec(name))
    (m,) = measures
    ranking = align(qrels, run, collection_size=200)
    measured = measure_queries(ranking, measures, collection_size=200)
    values, counts = measured.values[0], measured.counts[0]
    whole = assemble(Partial.of((m,), values, (counts,)))[0]

    d = m.definition
    logs = d.aggregation == "gmean"
    parts = [slice(0, 7), slice(7, 8), slice(8, 30)]
    moments = Moments.of([], logs=logs)
    p = r = Moments.of([])
    for part in parts:
        moments = moments + Moments.of(values[part], logs=logs)
        if counts is not None:
            from prfeval._core.counts import precision, recall

            p = p + Moments.of(precision(counts.select(part)))
            r = r + Moments.of(recall(counts.select(part)))
    pooled = None if counts is None else counts.pooled()
    cells = None if pooled is None else Cells.of(pooled)
    reduced = assemble(Partial((m,), (MeasurePartial(moments, cells, p, r),)))[0]
    assert reduced == whole
