"""Array columns in a run and in judgments on the Spark engine: ALS's recommendations
(``array<struct<item:int, rating:float>>``) with judgments as rows or as arrays, and RAG
lists (a query id and an ``array<string>`` of passages, optionally a parallel array of
scores; gold as arrays of relevant ids), from DataFrames and from JSON Lines and Parquet
files read by path; each against the local engine given the very same data, and the bad
rows named.

One local[2] session serves the module (``spark`` fixture); the data are small.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("pyspark")

import prfeval
import prfeval.spark
from prfeval._core.errors import InputFormatError

MEASURES = "AP P@5 nDCG@10 R@10 RR NumRet"


def recommendations(seed: int) -> list[tuple[int, list[tuple[int, float]]]]:
    """ALS's output layout: per user, ten (item, rating) structs in rating order, some
    ratings tied, users 0 to 24 (user 24 with an empty list)."""
    rng = np.random.default_rng(seed)
    out = []
    for user in range(25):
        items = rng.choice(60, 0 if user == 24 else 10, replace=False).tolist()
        ratings = sorted((float(np.float32(round(rng.random() * 4, 1))) for _ in items),
                         reverse=True)
        out.append((user, list(zip(items, ratings, strict=True))))
    return out


def ratings(seed: int) -> list[tuple[int, int, int]]:
    """Judgments as rows (user, item, rating 0-5), users 0 to 19 and 30 (not recommended)."""
    rng = np.random.default_rng(seed)
    return [(u, int(i), int(rng.integers(0, 6)))
            for u in [*range(20), 30] for i in rng.choice(60, 12, replace=False)]


def test_als_recommendations_with_judgment_rows(spark):
    recs = recommendations(1)
    rows = ratings(2)
    run = spark.createDataFrame(
        recs, "user int, recommendations array<struct<item:int, rating:float>>")
    judged = spark.createDataFrame(rows, "user int, item int, rating int")
    result = prfeval.spark.evaluate(
        judged, run, MEASURES, level=3,
        run_columns={"query_id": "user", "doc_id": "recommendations"},
        qrels_columns="query_id=user,doc_id=item,relevance=rating",
    )
    local_run = {str(u): {str(i): r for i, r in items} for u, items in recs if items}
    local_qrels: dict[str, dict[str, int]] = {}
    for u, i, g in rows:
        local_qrels.setdefault(str(u), {})[str(i)] = g
    local = prfeval.evaluate(local_qrels, local_run, MEASURES, level=3)
    assert result.macro == local.macro
    assert result.skipped == {"missing_from_run": 1, "not_in_qrels": 5}  # 20-24


def test_als_judgments_as_arrays_and_an_empty_list(spark):
    recs = recommendations(3)
    run = spark.createDataFrame(
        recs, "user int, recommendations array<struct<item:int, rating:float>>")
    liked = [(u, [i for i, _ in items[::3]] + [99]) for u, items in recs]
    gold = spark.createDataFrame(liked, "user int, liked array<int>")
    columns = {"run_columns": {"query_id": "user", "doc_id": "recommendations"},
               "qrels_columns": {"query_id": "user", "doc_id": "liked"}}
    result = prfeval.spark.evaluate(gold, run, MEASURES, **columns)
    run_table = pa.table({"user": [str(u) for u, _ in recs],
                          "recommendations": [[{"id": str(i), "score": r} for i, r in items]
                                              for _, items in recs]})
    gold_table = pa.table({"user": [str(u) for u, _ in liked],
                           "liked": [[str(i) for i in items] for _, items in liked]})
    local = prfeval.evaluate(gold_table, run_table, MEASURES, **columns)
    assert result.macro == local.macro
    assert result.accounting.evaluated == local.accounting.evaluated == 25  # the empty list too


def rag_tables(seed: int) -> tuple[pa.Table, pa.Table]:
    """A RAG run (question_id, ctxs: passage ids, scores: a parallel array) and its gold
    (qid, positives: relevant ids), queries q0-q29 in the run, q5-q34 in the gold; q7 an
    empty list; repeats in some lists."""
    rng = np.random.default_rng(seed)
    ctxs, scores = [], []
    for i in range(30):
        docs = [] if i == 7 else [f"p{d}" for d in rng.integers(0, 50, int(rng.integers(1, 20)))]
        ctxs.append(docs)
        scores.append([float(s) for s in rng.integers(0, 5, len(docs))])
    run = pa.table({"question_id": [f"q{i}" for i in range(30)], "ctxs": ctxs,
                    "scores": scores})
    gold = pa.table({
        "qid": [f"q{i}" for i in range(5, 35)],
        "positives": [[f"p{d}" for d in rng.choice(50, int(rng.integers(1, 6)), replace=False)]
                      for _ in range(5, 35)],
    })
    return run, gold


@pytest.mark.parametrize("scored", [True, False])
def test_rag_lists_from_dataframes(spark, scored):
    run, gold = rag_tables(4)
    if not scored:
        run = run.drop(["scores"])
    columns = {"qrels_columns": {"doc_id": "positives"}}
    result = prfeval.spark.evaluate(spark.createDataFrame(gold), spark.createDataFrame(run),
                                    MEASURES, **columns)
    local = prfeval.evaluate(gold, run, MEASURES, **columns)
    assert result.macro == local.macro
    assert result.skipped == {"missing_from_run": 5, "not_in_qrels": 5}
    assert result.accounting.duplicates == local.accounting.duplicates


def test_rag_lists_from_jsonl_and_parquet_files(spark, tmp_path):
    run, gold = rag_tables(5)
    pq.write_table(run, tmp_path / "run.parquet")
    with open(tmp_path / "gold.jsonl", "w") as f:
        for row in gold.to_pylist():
            f.write(json.dumps(row) + "\n")
    columns = {"qrels_columns": "doc_id=positives"}
    paths = str(tmp_path / "gold.jsonl"), str(tmp_path / "run.parquet")
    result = prfeval.spark.evaluate(*paths, MEASURES, **columns)
    assert result.macro == prfeval.evaluate(*paths, MEASURES, **columns).macro


@pytest.mark.parametrize(
    ("run", "schema", "message"),
    [
        ([("q1", ["a", "b"], [1.0])], "question_id string, ctxs array<string>, "
         "scores array<double>", r"'scores' has 1 values but 'ctxs' has 2 for query q1"),
        ([("q1", ["a", None])], "question_id string, ctxs array<string>",
         r"column 'ctxs': an item has no id for query q1"),
        ([("q1", None)], "question_id string, ctxs array<string>",
         r"column 'ctxs' is missing \(null\): expected a list of doc ids"),
        ([("q1", [("t", "x")])], "question_id string, ctxs array<struct<title:string,"
         "text:string>>", r"column 'ctxs' holds structs without an id field"),
    ],
)
def test_bad_lists_name_the_column_and_query(spark, run, schema, message):
    gold = spark.createDataFrame([("q1", "a", 1)], "query_id string, doc_id string, rel int")
    with pytest.raises(InputFormatError, match=message):
        prfeval.spark.evaluate(gold, spark.createDataFrame(run, schema), "AP")
