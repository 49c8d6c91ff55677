"""The dict shortcut builds the same judged ranking as the general path (and so the same
numbers), on random dicts with ties, negative grades, empty rankings and empty judgments.

The general path is itself checked against pytrec_eval (test_pytrec_agreement); this pins the
shortcut to it for every registered measure.
"""

from __future__ import annotations

import numpy as np
import pytest

from prfeval import evaluate
from prfeval.io import load_qrels, load_run
from prfeval.measures import REGISTRY
from prfeval.retrieval.align import align
from prfeval.retrieval.align_dicts import align_dicts, plain_dicts
from prfeval.retrieval.evaluate import evaluate_ranking

MEASURES = [
    d.example(10)
    for d in REGISTRY.values()
    if not d.needs_tn
]


def random_dicts(rng: np.random.Generator, numeric_ids: bool):
    n_queries = int(rng.integers(1, 9))
    name = str if numeric_ids else (lambda q: f"q{q}")
    qrels = {
        name(q): {
            f"d{d}": int(rng.integers(-2, 3))
            for d in rng.choice(40, int(rng.integers(0, 15)), replace=False)
        }
        for q in range(n_queries)
    }
    qrels.setdefault(name(0), {}).setdefault("d1", 1)
    run = {}
    for q in [*list(qrels)[: max(1, n_queries - 1)], "only-in-run"]:
        n = int(rng.integers(0, 30))
        run[q] = {
            f"d{d}": float(np.round(rng.random(), 1)) for d in rng.choice(60, n, replace=False)
        }
    return qrels, run


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("complete", [False, True])
def test_same_ranking_as_the_general_path(seed: int, complete: bool) -> None:
    rng = np.random.default_rng(seed)
    for trial in range(25):
        qrels, run = random_dicts(rng, numeric_ids=trial % 2 == 0)
        fast = align_dicts(qrels, run, complete=complete)
        general = align(load_qrels(qrels), load_run(run), complete=complete, doc_order="ties")
        assert fast is not None
        assert list(fast.query_ids) == list(general.query_ids)
        assert np.array_equal(fast.offsets, general.offsets)
        assert np.array_equal(fast.grades, general.grades)
        assert np.array_equal(fast.scores, general.scores)
        assert fast.accounting == general.accounting
        a, b = evaluate_ranking(fast, MEASURES), evaluate_ranking(general, MEASURES)
        assert np.array_equal(a.values, b.values)
        assert a.macro == b.macro and a.micro == b.micro


def test_what_the_shortcut_leaves_to_the_general_path() -> None:
    """Anything needing an error message, or options beyond the defaults, goes the long way."""
    assert not plain_dicts({"q": {"a": 1}}, {"q": ["a"]})  # a ranked list
    assert not plain_dicts({}, {"q": {"a": 1.0}})
    assert align_dicts({"q": {"a": 1.5}}, {"q": {"a": 1.0}}) is None  # not an integer grade
    assert align_dicts({"q": {"a": 1}}, {"q": {"a": float("nan")}}) is None
    assert align_dicts({"q": {}}, {"q": {"a": 1.0}}) is None  # no judgments at all
    with pytest.raises(ValueError, match="finite score"):
        evaluate({"q": {"a": 1}}, {"q": {"a": float("nan")}}, "P@1")
    with pytest.raises(ValueError, match="no judgments"):
        evaluate({"q": {}}, {"q": {"a": 1.0}}, "P@1")


def test_query_sets_and_options() -> None:
    qrels = {"1": {"a": 1, "b": 1}, "2": {"c": 1}, "3": {"d": 1}}
    run = {"1": {"a": 2.0, "x": 2.0, "b": 1.0}, "2": {"c": 1.0}, "4": {"a": 1.0}}
    fast = evaluate(qrels, run, "P@1 P@2 SetR", queries=["1", "2", "4"], exclude_queries=["2"])
    slow = evaluate(
        qrels, run, "P@1 P@2 SetR", queries=["1", "2", "4"], exclude_queries=["2"], max_results=1000
    )  # any non-default option takes the general path
    assert fast.values.tolist() == slow.values.tolist()
    assert fast.accounting == slow.accounting
    # ties by doc id descending: "x" before "a" at score 2.0, so P@1 of query 1 is 0
    assert fast.per_query["1"]["P@1"] == 0.0 and fast.per_query["1"]["P@2"] == 0.5
