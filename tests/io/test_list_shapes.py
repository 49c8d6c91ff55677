"""Lists of doc ids in the shapes Arrow, polars and pandas give them (issue 45, D2, D3, D25).

Each expected value is pytrec_eval's on the rankings as written out in Python lists (a
ranking of n documents gets scores n, n-1, ..., 1, so that its order is the list's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import pytrec_eval

import prfeval
from prfeval._core.errors import InputFormatError, PrfevalError

QRELS = {"q1": {"a": 1, "z": 1}, "q2": {"b": 1}, "q3": {"c": 1, "y": 1}}
MEASURES = ["P@1", "P@2", "AP"]


def _reference(rankings: dict[str, list[str]]) -> dict[str, float]:
    """pytrec_eval's means of P_1, P_2 and map over the queries in both."""
    run = {q: {d: float(len(ds) - i) for i, d in enumerate(ds)} for q, ds in rankings.items()}
    both = {q: g for q, g in QRELS.items() if q in run}
    values = pytrec_eval.RelevanceEvaluator(both, {"P.1,2", "map"}).evaluate(run)
    mean = {m: sum(v[m] for v in values.values()) / len(values) for m in ("P_1", "P_2", "map")}
    return {"P@1": mean["P_1"], "P@2": mean["P_2"], "AP": mean["map"]}


def _check(run: Any, rankings: dict[str, list[str]], qrels: Any = QRELS) -> None:
    result = prfeval.evaluate(qrels, run, MEASURES).macro
    expected = _reference(rankings)
    for name in MEASURES:
        assert result[name] == pytest.approx(expected[name]), name


# D2: list views


def test_list_views_out_of_row_order_give_each_row_its_own_ids() -> None:
    values = pa.array(["b", "x", "a", "y", "c", "z"])
    # q1 views values 2..3, q2 values 0..1, q3 values 4..5: offsets not in row order.
    views = pa.ListViewArray.from_arrays(pa.array([2, 0, 4], pa.int32()),
                                         pa.array([2, 2, 2], pa.int32()), values)
    assert views.to_pylist() == [["a", "y"], ["b", "x"], ["c", "z"]]
    table = pa.table({"qid": ["q1", "q2", "q3"], "docid": views})
    _check(table, {"q1": ["a", "y"], "q2": ["b", "x"], "q3": ["c", "z"]})


def test_overlapping_list_views_are_read_as_their_lists() -> None:
    values = pa.array(["z", "b", "x", "y"])
    views = pa.LargeListViewArray.from_arrays(pa.array([0, 1, 2], pa.int64()),
                                              pa.array([3, 2, 2], pa.int64()), values)
    lists = views.to_pylist()
    assert lists == [["z", "b", "x"], ["b", "x"], ["x", "y"]]
    table = pa.table({"qid": ["q1", "q2", "q3"], "docid": views})
    _check(table, dict(zip(["q1", "q2", "q3"], lists, strict=True)))


def test_sliced_list_views_with_parallel_scores() -> None:
    values = pa.array(["b", "x", "a", "y", "c", "z"])
    views = pa.ListViewArray.from_arrays(pa.array([2, 0, 4], pa.int32()),
                                         pa.array([2, 2, 2], pa.int32()), values)
    scores = pa.ListViewArray.from_arrays(pa.array([2, 0, 4], pa.int32()),
                                          pa.array([2, 2, 2], pa.int32()),
                                          pa.array([1.0, 2.0, 1.0, 2.0, 1.0, 2.0]))
    table = pa.table({"qid": ["q1", "q2", "q3"], "docid": views, "score": scores}).slice(1)
    # Scores order each list: the second item first.
    _check(table, {"q2": ["x", "b"], "q3": ["z", "c"]})


def test_a_null_list_view_is_named_by_its_row() -> None:
    views = pa.ListViewArray.from_arrays(pa.array([2, 0], pa.int32()), pa.array([2, 2],
                                         pa.int32()), pa.array(["b", "x", "a", "y"]),
                                         mask=pa.array([False, True]))
    with pytest.raises(InputFormatError, match=r"row 2: column 'docid' is missing \(null\)"):
        prfeval.evaluate(QRELS, pa.table({"qid": ["q1", "q2"], "docid": views}), ["P@1"])


# D25: dictionary-encoded ids in lists


def _dictionary_lists(rankings: dict[str, list[str]]) -> pa.Table:
    kind = pa.list_(pa.dictionary(pa.int32(), pa.string()))
    return pa.table({"qid": list(rankings), "docid": pa.array(list(rankings.values()), kind)})


RANKINGS = {"q1": ["a", "y"], "q2": ["x", "b"], "q3": ["c"]}


def test_lists_of_dictionary_ids_are_read_as_their_strings(tmp_path: Path) -> None:
    table = _dictionary_lists(RANKINGS)
    _check(table, RANKINGS)
    path = tmp_path / "run.parquet"
    pq.write_table(table, path)
    assert pa.types.is_dictionary(pq.read_table(path).schema.field("docid").type.value_type)
    _check(str(path), RANKINGS)


def test_polars_list_of_categorical() -> None:
    frame = pl.DataFrame({"qid": list(RANKINGS), "docid": list(RANKINGS.values())},
                         schema={"qid": pl.Utf8, "docid": pl.List(pl.Categorical)})
    _check(frame, RANKINGS)
    # Gold as lists of categories too: every listed id relevant.
    gold = pl.DataFrame({"qid": ["q1", "q2"], "docid": [["a", "z"], ["b"]]},
                        schema={"qid": pl.Utf8, "docid": pl.List(pl.Categorical)})
    result = prfeval.evaluate(gold, {"q1": ["a", "y"], "q2": ["x", "b"]}, ["P@1"]).macro
    assert result["P@1"] == pytest.approx(0.5)  # q1: a relevant; q2: x not


# D3: a set has no order


@pytest.mark.parametrize("kind", [set, frozenset])
def test_a_set_is_not_a_ranking(kind: type) -> None:
    frame = pd.DataFrame({"qid": ["q1", "q2"], "docid": [["a", "y"], kind({"b", "x"})]})
    with pytest.raises(InputFormatError, match=r"row 2: column 'docid' holds a set \(query "
                                               r"'q2'\), which has no order"):
        prfeval.evaluate(QRELS, frame, ["P@1"])
    with pytest.raises(InputFormatError, match="query 'q2': the ranking is a set"):
        prfeval.evaluate(QRELS, {"q1": ["a"], "q2": kind({"b", "x"})}, ["P@1"])
    evaluator = prfeval.Evaluator(QRELS, ["P@1"])
    with pytest.raises(PrfevalError, match="ranked_ids is a set"):
        evaluator.add("q2", kind({"b", "x"}))


@pytest.mark.parametrize("kind", [set, frozenset])
def test_gold_may_be_a_set(kind: type) -> None:
    gold = pd.DataFrame({"qid": ["q1", "q2"], "docid": [kind({"a", "z"}), kind({"b"})]})
    rankings = {"q1": ["y", "a"], "q2": ["b", "x"]}
    _check(rankings, rankings, qrels=gold)
    assert isinstance(gold.docid[0], kind)  # the caller's frame is left as it was
    _check(rankings, rankings, qrels={"q1": kind({"a", "z"}), "q2": kind({"b"})})
