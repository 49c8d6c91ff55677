"""Every input form gives the same judgments and run; bad input names its file and line."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from prfeval import evaluate
from prfeval._core.errors import InputFormatError, PrfevalWarning
from prfeval._io import load_qrels, load_run
from prfeval._io.trec import parse_qrels, parse_run

QRELS_TEXT = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 x 1\n"
RUN_TEXT = "q1 Q0 a 1 3.0 t\nq1 Q0 c 2 2.5 t\nq1 Q0 z 3 1.0 t\nq2 Q0 y 1 0.5 t\n"
# Hand counts: q1 retrieves a, c (relevant) and z; q2 retrieves nothing relevant.
EXPECTED = {"P@2": 0.5, "R@3": 0.5, "NumRelRet": 2.0}
MEASURES = "P@2 R@3 NumRelRet"


def check(qrels, run):
    assert evaluate(qrels, run, MEASURES).macro == pytest.approx(EXPECTED)


def test_trec_files_plain_and_gz(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS_TEXT)
    (tmp_path / "r.txt.gz").write_bytes(gzip.compress(RUN_TEXT.encode()))
    check(tmp_path / "q.txt", str(tmp_path / "r.txt.gz"))


def test_whitespace_comments_and_blank_lines():
    messy = (
        "# a comment\n\n  q1\tQ0   a 1 3.0 t  \r\nq1 Q0 c 2 2.5 t\n\n"
        "q1 Q0 z 3 1 t\nq2 Q0 y 1 0.5 t"
    )
    with pytest.warns(PrfevalWarning, match="<bytes>: skipped 1 comment line starting with '#'"):
        check(QRELS_TEXT.encode(), messy.encode())


def test_comment_lines_and_lone_carriage_returns_are_counted():
    """Nothing is dropped without a count: each skipped comment line and each lone CR read
    as a line end is said, once per file, with how many."""
    run = b"# one\nq1 Q0 a 1 3 t\n  # two\nq1 Q0 c 2 2.5 t\rq2 Q0 y 1 0.5 t\r\n"
    with pytest.warns(PrfevalWarning) as notes:
        parsed = parse_run(run, "r.txt")
    assert sorted(str(n.message) for n in notes) == [
        "r.txt: read 1 lone carriage return (CR) as line ends",
        "r.txt: skipped 2 comment lines starting with '#'",
    ]
    assert parsed.doc_ids.to_pylist() == ["a", "c", "y"]
    assert parsed.source.line_of(2) == 5


def test_csv_tsv_jsonl_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    q_rows = [line.split() for line in QRELS_TEXT.splitlines()]
    r_rows = [line.split() for line in RUN_TEXT.splitlines()]
    (tmp_path / "q.csv").write_text(
        "query_id,doc_id,relevance\n" + "".join(f"{r[0]},{r[2]},{r[3]}\n" for r in q_rows)
    )
    (tmp_path / "r.tsv").write_text(
        "qid\tdocid\tscore\n" + "".join(f"{r[0]}\t{r[2]}\t{r[4]}\n" for r in r_rows)
    )
    check(tmp_path / "q.csv", tmp_path / "r.tsv")
    (tmp_path / "r.jsonl").write_text(
        "".join(json.dumps({"query_id": r[0], "doc_id": r[2], "score": float(r[4])}) + "\n"
                for r in r_rows)
    )
    check(tmp_path / "q.csv", tmp_path / "r.jsonl")
    table = pa.table({"qid": [r[0] for r in r_rows], "docid": [r[2] for r in r_rows],
                      "score": [float(r[4]) for r in r_rows]})
    pq.write_table(table, tmp_path / "r.parquet")
    check(tmp_path / "q.csv", tmp_path / "r.parquet")


def test_dataframes_and_dicts():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    q_rows = [line.split() for line in QRELS_TEXT.splitlines()]
    r_rows = [line.split() for line in RUN_TEXT.splitlines()]
    qdf = pd.DataFrame({"query_id": [r[0] for r in q_rows], "doc_id": [r[2] for r in q_rows],
                        "relevance": [int(r[3]) for r in q_rows]})
    rdf = pl.DataFrame({"query_id": [r[0] for r in r_rows], "doc_id": [r[2] for r in r_rows],
                        "score": [float(r[4]) for r in r_rows]})
    check(qdf, rdf)
    qd = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
    check(qd, {"q1": {"a": 3.0, "c": 2.5, "z": 1.0}, "q2": {"y": 0.5}})
    check(qd, {"q1": ["a", "c", "z"], "q2": ["y"]})


def test_numeric_ids_in_tables_become_strings(tmp_path):
    (tmp_path / "q.csv").write_text("qid,docid,rel\n1,10,1\n1,20,0\n")
    (tmp_path / "r.csv").write_text("qid,docid,score\n1,20,2\n1,10,1\n")
    assert evaluate(tmp_path / "q.csv", tmp_path / "r.csv", "P@1 P@2").macro == {
        "P@1": 0.0, "P@2": 0.5}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"q1 Q0 a 1 3.0\n", "<bytes>:1: expected at least 6 fields, got 5"),
        (b"q1 Q0 a 1 high t\n", "<bytes>:1: score is not a number: 'high'"),
        (b"# c\nq1 Q0 a 1 nan t\n", "<bytes>:2: score is not finite"),
        (b"q1 Q0 a 1 1 t\n\nq1 Q0 b 2 -inf t\n", "<bytes>:3: score is not finite"),
        (b"q1 Q0 a 1 1 t\n\x00\x01", "<bytes>: binary data"),
    ],
)
def test_bad_run_lines(text, message):
    with pytest.raises(InputFormatError) as info:
        parse_run(text, "<bytes>") if b"\x00" not in text else load_run(text)
    assert str(info.value).startswith(message)


def test_bad_qrels_grade_and_missing_file(tmp_path):
    with pytest.raises(InputFormatError, match=r"q.txt:2: grade is not an integer: '1.5'"):
        parse_qrels(b"q1 0 a 1\nq1 0 b 1.5\n", "q.txt")
    with pytest.raises(InputFormatError, match="no such file"):
        load_qrels(tmp_path / "missing.txt")
    # No relevance column: every listed document is relevant (a gold list), unless the table
    # has a rank column (a run given as judgments).
    (tmp_path / "q.csv").write_text("qid,docid\n1,2\n")
    assert load_qrels(tmp_path / "q.csv").grades.tolist() == [1]
    with pytest.raises(InputFormatError, match="no relevance column, and a rank column"):
        (tmp_path / "r.csv").write_text("qid,docid,rank\n1,2,1\n")
        load_qrels(tmp_path / "r.csv")
    with pytest.raises(InputFormatError, match="expected a finite score"):
        load_run({"q1": {"a": "high"}})


def test_empty_run_is_valid_and_scores_zero():
    with pytest.warns(PrfevalWarning, match="is empty"):
        e = evaluate(QRELS_TEXT.encode(), b"", "P@2 SetR", complete=True)
    assert e.macro == {"P@2": 0.0, "SetR": 0.0}
    assert e.accounting.evaluated == 2
    assert e.settings["empty_run"]


def test_scores_keep_float64_precision():
    run = parse_run(b"q1 Q0 a 1 0.30000000000000004 t\nq1 Q0 b 2 0.3 t\n")
    assert run.scores.tolist() == [0.30000000000000004, 0.3]
    assert np.all(run.ranks == [1, 2])
