"""trec_eval's way with parameters prfeval refuses, taken only by ``prfeval trec_eval``.

The command's outputs are checked against the built binary in test_trec_eval_args.py; here,
the helpers that reproduce trec_eval's C (its truncating comparisons, glibc's merge sort,
11pt_avg's walk over its levels), by hand, and that everything else keeps refusing.
"""

from __future__ import annotations

import numpy as np
import pytest

import prfeval
from prfeval._core.errors import MeasureError
from prfeval._core.trec_names import C_LONG_MAX, TrecEvalRefusal
from prfeval._measures import TREC_REGISTRY
from prfeval._measures.c_sort import INT_MIN, c_int, glibc_msort, long_difference, trec_cutoff_order
from prfeval._measures.interpolated import walked_needs

#: (trec_eval name, parameter text): values trec_eval computes with and prfeval refuses.
RELAXED = [
    ("iprec_at_recall", "1.5"),
    ("11pt_avg", "-0.5"),
    ("Rprec_mult", "-1"),
    ("set_F", "-1"),
    ("ndcg", "1=inf"),
    ("ndcg", "1=3,1=5"),
    ("relstring", "-3"),
    ("P", str(C_LONG_MAX)),
]


def test_c_int_truncates_and_overflows_to_int_min() -> None:
    assert [c_int(x) for x in (2.9, -2.9, 0.5, 2.0**31 - 1)] == [2, -2, 0, 2**31 - 1]
    assert [c_int(x) for x in (2.0**31, -(2.0**31) - 1, float("inf"), float("nan"))] == [
        INT_MIN
    ] * 4


def test_long_difference_keeps_the_low_32_bits() -> None:
    # 2^32 - 5 = 0xFFFFFFFB: as an int, -5; 2^31 is INT_MIN; small differences are exact.
    assert long_difference(2**32, 5) == -5
    assert long_difference(2**31, 0) == INT_MIN
    assert long_difference(3, 10) == -7


def test_glibc_msort_merges_as_glibc() -> None:
    # A true order: any stable sort. Ties keep their order (merge takes left on <= 0).
    items = [(3, "a"), (1, "b"), (3, "c"), (2, "d")]
    assert glibc_msort(items, lambda x, y: x[0] - y[0]) == sorted(items, key=lambda t: t[0])
    # A comparison that is no order: [a, b, c] splits into [a] and [b, c]; b, c merge to
    # c, b (c < b), then a < c gives a, c, b, though b < a.
    rank = {"a": 0, "b": 2, "c": 1}
    less = {("b", "a")}

    def cmp(x: str, y: str) -> int:
        return -1 if (x, y) in less else (1 if (y, x) in less else rank[x] - rank[y])

    assert glibc_msort(["a", "b", "c"], cmp) == ["a", "c", "b"]


def test_cutoff_order_as_comp_long_sorts() -> None:
    assert trec_cutoff_order([10, 2, 7]) == [2, 7, 10]
    # 2^32 - 5 cast to int is -5: 2^32 "is below" 5, whichever comes first.
    assert trec_cutoff_order([2**32, 5]) == [2**32, 5]
    assert trec_cutoff_order([5, 2**32]) == [2**32, 5]


def test_walked_needs_by_hand() -> None:
    # 3 relevant retrieved. Ascending counts are kept; a count above the retrieved at the
    # end is skipped (-> 4, read as 0); one above the count matched after it blocks itself
    # and all before it (-> 0, the best precision anywhere); so does a count <= 0.
    need = np.array([[1, 2, 3], [4, 2, 2], [5, 1, 9], [2, -1, 3]])
    got = walked_needs(need, np.array([3, 3, 3, 3]))
    assert got.tolist() == [[1, 2, 3], [0, 2, 2], [0, 1, 4], [0, 0, 3]]


@pytest.mark.parametrize(("name", "params"), RELAXED)
def test_only_the_trec_eval_command_takes_them(name: str, params: str) -> None:
    with pytest.raises(MeasureError):
        TREC_REGISTRY.parse_trec(name, params)
    with pytest.raises(MeasureError):
        TREC_REGISTRY.parse(f"{name}.{params}")
    assert TREC_REGISTRY.parse_trec(name, params, as_trec_eval=True)


def test_utility_with_three_weights_is_refused_with_trec_eval_s_words() -> None:
    with pytest.raises(MeasureError, match="four weights") as strict:
        TREC_REGISTRY.parse_trec("utility", "1,2,3")
    assert not isinstance(strict.value, TrecEvalRefusal)
    with pytest.raises(TrecEvalRefusal, match="four weights") as refused:
        TREC_REGISTRY.parse_trec("utility", "1,2,3", as_trec_eval=True)
    assert refused.value.words == "trec_eval.calc_utility: improper number of coefficients\n"


def test_evaluate_keeps_its_checks() -> None:
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    for name, params in RELAXED:
        with pytest.raises(MeasureError):
            prfeval.evaluate(qrels, run, f"{name}.{params}")


def test_relaxed_values_computed_by_hand() -> None:
    """Values with parameters only trec_eval takes, counted by hand: q retrieves a (rel),
    x, b (rel); R = 3 (c is never retrieved)."""
    from prfeval._io import load_qrels, load_run
    from prfeval._retrieval.pipeline import align

    jr = align(load_qrels({"q": {"a": 1, "b": 1, "c": 1}}), load_run({"q": ["a", "x", "b"]}))

    def value(name: str, params: str) -> float:
        (m,) = TREC_REGISTRY.parse_trec(name, params, as_trec_eval=True)
        assert m.definition.ranked is not None
        return float(m.definition.ranked(jr, m, 1)[0])

    assert value("iprec_at_recall", "1.5") == 0  # asks for 5 relevant: never reached
    assert value("11pt_avg", "-0.5") == 1.0  # asks for none: the best precision, 1/1
    # Levels 1 and 0.5 ask for 3 and 2: 2 is matched (2/3 at rank 3), then 3 > 2 is
    # blocked and gets the best precision, 1/1: (1 + 2/3) / 2.
    assert value("11pt_avg", "1,0.5") == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)
    assert value("Rprec_mult", "-1") == 0  # a multiple of R asking for -2 documents
