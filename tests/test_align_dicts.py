"""The dict encoder builds the same judged ranking as the table encoder (and so the same
numbers), on random dicts with ties, negative grades, empty rankings and empty judgments.

The table path is itself checked against pytrec_eval (test_pytrec_agreement); this pins the
dict encoder to it for every registered measure.
"""

from __future__ import annotations

import numpy as np
import pytest

from prfeval import evaluate
from prfeval._core.ranking import RankingNeeds
from prfeval._io import load_qrels, load_run
from prfeval._io.mapping import plain_dicts
from prfeval._measures import REGISTRY, parse_measures
from prfeval._retrieval.encode import encode_dicts
from prfeval._retrieval.evaluate import summarise
from prfeval._retrieval.kernel import measure_queries
from prfeval._retrieval.pipeline import align

MEASURES_ONLY = RankingNeeds(None)  # what the dict encoder serves: no document ids


def same(a: dict[str, float], b: dict[str, float]) -> bool:
    """Equal dicts of numbers, NaN equal to NaN (an undefined mean, as trec_eval's -nan)."""
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (np.isnan(a[k]) and np.isnan(b[k])) for k in a
    )


def evaluate_ranking(jr, specs):
    return summarise(measure_queries(jr, parse_measures(specs)), jr.accounting, {})

MEASURES = [
    d.example(10)
    for d in REGISTRY.values()
    if not d.needs_tn and not d.needs_preferences  # preferences are not qrels (test_prefs.py)
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
        fast = align(qrels, run, complete=complete, needs=MEASURES_ONLY)
        general = align(
            load_qrels(qrels), load_run(run), complete=complete, needs=MEASURES_ONLY
        )
        assert fast.doc_vocab is None and general.doc_vocab is not None  # two encoders
        assert list(fast.query_ids) == list(general.query_ids)
        assert np.array_equal(fast.offsets, general.offsets)
        assert np.array_equal(fast.grades, general.grades)
        assert np.array_equal(fast.scores, general.scores)
        assert fast.accounting == general.accounting
        a, b = evaluate_ranking(fast, MEASURES), evaluate_ranking(general, MEASURES)
        assert np.array_equal(a.values, b.values, equal_nan=True)
        assert same(a.macro, b.macro) and same(a.micro, b.micro)
        assert a.text == b.text


def test_what_the_dict_encoder_leaves_to_the_table_path() -> None:
    """Anything needing an error message goes the table way, which names the problem."""
    assert not plain_dicts({"q": {"a": 1}}, {"q": ["a"]})  # a ranked list
    assert not plain_dicts({}, {"q": {"a": 1.0}})
    assert encode_dicts({"q": {"a": 1.5}}, {"q": {"a": 1.0}}) is None  # not an integer grade
    assert encode_dicts({"q": {"a": 1}}, {"q": {"a": float("nan")}}) is None
    assert encode_dicts({"q": {}}, {"q": {"a": 1.0}}) is None  # no judgments at all
    with pytest.raises(ValueError, match="finite score"):
        evaluate({"q": {"a": 1}}, {"q": {"a": float("nan")}}, "P@1")
    with pytest.raises(ValueError, match="no judgments"):
        evaluate({"q": {}}, {"q": {"a": 1.0}}, "P@1")


def test_query_sets_and_options() -> None:
    qrels = {"1": {"a": 1, "b": 1}, "2": {"c": 1}, "3": {"d": 1}}
    run = {"1": {"a": 2.0, "x": 2.0, "b": 1.0}, "2": {"c": 1.0}, "4": {"a": 1.0}}
    fast = evaluate(qrels, run, "P@1 P@2 SetR", queries=["1", "2", "4"], exclude_queries=["2"])
    slow = evaluate(
        load_qrels(qrels),
        load_run(run),
        "P@1 P@2 SetR",
        queries=["1", "2", "4"],
        exclude_queries=["2"],
        max_results=1000,
    )  # tables: the table encoder
    assert fast.values.tolist() == slow.values.tolist()
    assert fast.accounting == slow.accounting
    # ties by doc id descending: "x" before "a" at score 2.0, so P@1 of query 1 is 0
    assert fast.per_query["1"]["P@1"] == 0.0 and fast.per_query["1"]["P@2"] == 0.5
