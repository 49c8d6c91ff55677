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
from support.hand_made import write_trec
from support.random_data import Qrels, Run, judged_runs, rounded

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


def random_dicts(seed: int, numeric_ids: bool) -> tuple[Qrels, Run]:
    """Judgments and a run (tests/support/random_data.py) of 1 to 40 queries, ids ``"0"``, ``"1"``,
    ... or ``"q0"``, ...: each judges 0 to 14 of 60 documents (empty judgments) with grades -2
    to 2 and ranks 0 to 29 (empty rankings) with scores to one decimal (ties). Every 7th query
    and the last one are judged only, every 9th and one more, ``"only-in-run"``, only in the
    run; query 0 judges ``d1`` relevant, so that there is a judgment at all."""
    n = int(np.random.default_rng((seed, 1)).integers(1, 41))
    # Numbers of one and two digits: with "9" and "10" evaluated and "only-in-run" not, both
    # encoders must order the evaluated queries as numbers (the table encoder once ordered
    # them by bytes, asking the run-only id too).
    name = str if numeric_ids else "q{}".format
    qrels, (run,) = judged_runs(
        seed, queries=[*map(name, range(n)), "only-in-run"], n_docs=60, judged=(0, 15),
        grades=(-2, 3), retrieved=(0, 30), scores=rounded(1),
        judged_only=lambda i: i % 7 == 6 or 0 < i == n - 1,
        run_only=lambda i: i % 9 == 8 or i == n,
    )  # fmt: skip
    qrels[name(0)].setdefault("d1", 1)
    return qrels, run


# Each trial holds every kind of query (empty judgments and rankings, judged only, only in
# the run, ties, negative grades), so 8 trials of up to 40 queries a test check what 25
# trials of up to 8 did, at a fifth of the cost: most of a trial's time is the 66 measures'
# fixed cost, not its queries.
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("complete", [False, True])
def test_same_ranking_as_the_general_path(seed: int, complete: bool) -> None:
    for trial in range(8):
        qrels, run = random_dicts(100 * seed + trial, numeric_ids=trial % 2 == 0)
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


@pytest.mark.parametrize("native", ["0", "1"])
def test_a_query_that_is_not_evaluated_leaves_the_order_to_those_that_are(
    native: str, tmp_path, monkeypatch
) -> None:
    """``2``, ``9`` and ``10`` are evaluated; ``x`` is only in the run. The evaluated ids are
    all numbers, so every path lists them ``2, 9, 10`` (by bytes, ``10`` came first): dicts,
    tables, and a TREC file read by Arrow (``PRFEVAL_NATIVE=0``) or by the compiled pass where
    it is built (``=1``)."""
    qrels = {"2": {"a": 1}, "10": {"a": 1}, "9": {"b": 1}}
    run = {"2": {"a": 1.0}, "10": {"b": 1.0}, "9": {"b": 2.0}, "x": {"a": 1.0}}
    paths = write_trec(tmp_path, qrels, run)
    monkeypatch.setenv("PRFEVAL_NATIVE", native)
    for inputs in [(qrels, run), (load_qrels(qrels), load_run(run)), tuple(map(str, paths))]:
        result = evaluate(*inputs, ["P@1"])
        assert result.query_ids == ("2", "9", "10"), inputs
        assert result.accounting.not_in_qrels == ("x",)
