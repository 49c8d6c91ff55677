"""The Spark engine reads a path as the format given (``qrels_format``, ``run_format``), as
the local engine does, whatever its name says; a format it has no reader for is refused
before Spark reads anything, never ignored. One local session serves the module (``spark``
fixture); the files are hand-made, small enough to check by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyspark")

import prfeval
import prfeval.spark
from prfeval._core.errors import UsageError

QRELS_CSV = "qid,docid,relevance\nq1,a,1\nq1,b,0\nq2,c,2\n"
RUN_CSV = "qid,docid,score\nq1,a,3.0\nq1,x,2.0\nq1,b,1.0\nq2,y,2.0\nq2,c,1.0\n"
QRELS_TREC = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"
RUN_TREC = "q1 Q0 a 1 3.0 r\nq1 Q0 x 2 2.0 r\nq1 Q0 b 3 1.0 r\nq2 Q0 y 1 2.0 r\nq2 Q0 c 2 1.0 r\n"
MEASURES = "P@1 P@2 R@2 SetF"


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("names", "texts", "fmt"),
    [
        (("q.txt", "r.txt"), (QRELS_CSV, RUN_CSV), "csv"),  # CSV under a TREC-like name
        (("q.csv", "r.csv"), (QRELS_TREC, RUN_TREC), "trec"),  # TREC under a CSV name
        (("q.data", "r.data"), (QRELS_CSV.replace(",", "\t"), RUN_CSV.replace(",", "\t")),
         "tsv"),
    ],
)
def test_a_format_given_is_read_as_given(spark, tmp_path, names, texts, fmt):
    qrels, run = (_write(tmp_path, n, t) for n, t in zip(names, texts, strict=True))
    local = prfeval.evaluate(qrels, run, MEASURES, qrels_format=fmt, run_format=fmt)
    on_spark = prfeval.spark.evaluate(qrels, run, MEASURES, spark=spark, qrels_format=fmt,
                                      run_format=fmt)  # fmt: skip
    assert on_spark.macro == local.macro
    # By hand: q1 ranks a (rel), x, b (non-rel); q2 ranks y, c (rel): P@1 = (1 + 0) / 2.
    assert on_spark.macro["P@1"] == 0.5 and on_spark.n_queries["P@1"] == 2


def test_a_format_spark_has_no_reader_for_is_refused(spark, tmp_path):
    qrels = _write(tmp_path, "q.txt", QRELS_TREC)
    run = _write(tmp_path, "r.json", '{"q1": {"a": 3.0}}')
    with pytest.raises(UsageError) as caught:
        prfeval.spark.evaluate(qrels, run, MEASURES, spark=spark, run_format="json")
    assert str(caught.value) == (
        "qrels_format and run_format (--qrels-format, --run-format) on Spark are trec, csv, "
        "tsv, jsonl, parquet (by the file's name when not given), not 'json': read such a "
        "file with the local engine"
    )
