"""Bad and odd inputs: every reader names the file and line, and reads what is valid.

Issue 16, cases 3 (a FIFO read once), 5 (a 10 MB doc id), 6 (empty and null ids), 7 (huge
grades), 9 (``-`` for two inputs), 16 (line numbers in every format) and 18 (one message for
a streamed error); issue 17, items 4 (stdin's format from its first line, --run-format and
--qrels-format) and 9 (--qrels-duplicates).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from prfeval import evaluate, load_qrels, load_run
from prfeval._core.errors import InputFormatError, PrfevalError, PrfevalWarning, UsageError
from support.cli import run_cli

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\nq2 0 d5 1\nq3 0 d6 1\n"
RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d9 3 1.0 r\nq2 Q0 d4 1 2.0 r\nq2 Q0 d7 2 1.0 r\n"
PY = [sys.executable, "-m", "prfeval"]


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(PrfevalError) as info:
        call(*args, **kwargs)
    return str(info.value)


@pytest.fixture
def qrels(tmp_path: Path) -> str:
    (tmp_path / "qrels.txt").write_text(QRELS)
    return str(tmp_path / "qrels.txt")


# -- case 3: a FIFO is opened once -----------------------------------------------------------


def _feed(fifo: Path, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(fifo, "wb") as out:
            out.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (RUN.replace(" ", "\t"), "run.fifo"),  # not clean: Arrow's fast path used to fail
        (RUN, "run.fifo"),
        ("query_id,doc_id,score\nq1,d1,3\nq1,d2,2\nq1,d9,1\nq2,d4,2\nq2,d7,1\n", "run.csv"),
    ],
)
def test_a_fifo_is_read_once(qrels, tmp_path, text, name) -> None:
    """The input used to be opened twice (Arrow, then a fallback): a FIFO hung forever."""
    fifo = tmp_path / name
    os.mkfifo(fifo)
    writer = _feed(fifo, text.encode())
    done = subprocess.run(
        [*PY, "evaluate", qrels, str(fifo), "-m", "P@2 R@10", "--format", "json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    writer.join(5)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["macro"] == {"P@2": 0.5, "R@10": 0.5}


def test_a_fifo_of_judgments_and_a_fifo_of_ids(tmp_path) -> None:
    (tmp_path / "run.txt").write_text(RUN.replace(" ", "\t"))
    qfifo, ids = tmp_path / "qrels.fifo", tmp_path / "ids.fifo"
    os.mkfifo(qfifo)
    os.mkfifo(ids)
    writers = [_feed(qfifo, QRELS.encode()), _feed(ids, b"q1\n")]
    done = subprocess.run(
        [*PY, "evaluate", str(qfifo), str(tmp_path / "run.txt"), "--queries", str(ids),
         "-m", "P@2", "--format", "json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    for w in writers:
        w.join(5)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["macro"] == {"P@2": 0.5}


def test_judgments_from_stdin_with_a_streamed_run_that_is_read_again(tmp_path) -> None:
    """A run asked for in blocks with judgments from stdin (the compiled pass reads a
    regular file only): read whole, and stdin read once."""
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 3.0 r\nq2 Q0 d4 1 2.0 r\nq1 Q0 d2 2 2.0 r\n")
    done = subprocess.run(
        [*PY, "evaluate", "-", str(run), "--stream", "-m", "NumRelRet", "--format", "json"],
        input=QRELS, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["macro"]["NumRelRet"] == 2


# -- case 5: a line longer than a block ------------------------------------------------------

LONG_ID = "x" * (10 << 20)
LONG_RUN = f"q1 Q0 {LONG_ID} 1 3.0 r\nq1 Q0 d1 2 2.0 r\nq2 Q0 d4 1 1.0 r\n"


@pytest.mark.large
@pytest.mark.parametrize("how", ["file", "gzip", "bytes", "stream", "tabs"])
def test_a_10_mb_doc_id_is_read(qrels, tmp_path, how) -> None:
    path = tmp_path / ("run.txt.gz" if how == "gzip" else "run.txt")
    text = LONG_RUN.replace(" ", "\t") if how == "tabs" else LONG_RUN
    if how == "gzip":
        path.write_bytes(gzip.compress(text.encode(), compresslevel=1))
    else:
        path.write_text(text)
    run = text.encode() if how == "bytes" else str(path)
    # Over 8 MiB, so planned in blocks; the first line is past what the compiled pass takes
    # (and tabs need the careful reader), so the run is read whole from line 1: the reader
    # plan says so (--verbose), and a warning too when blocks were asked for.
    if how == "stream":
        with pytest.warns(PrfevalWarning, match="reading it whole"):
            e = evaluate(qrels, run, "P@2 NumRet", stream=True)
    else:
        e = evaluate(qrels, run, "P@2 NumRet")
    if how in ("file", "stream", "tabs"):
        assert "whole" in e.reading[1]
    assert e.macro == {"P@2": 0.5, "NumRet": 3}  # q1: the long id, then d1; q2: d4


def test_a_long_line_in_a_table(qrels, tmp_path) -> None:
    path = tmp_path / "run.csv"
    path.write_text(f"query_id,doc_id,score\nq1,{LONG_ID},3\nq1,d1,2\n")
    assert evaluate(qrels, str(path), "NumRet").macro["NumRet"] == 2
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"query_id": "q1", "doc_id": LONG_ID, "score": 1}) + "\n")
    assert evaluate(qrels, str(path), "NumRet").macro["NumRet"] == 1


# -- case 6: empty and null ids --------------------------------------------------------------


def test_empty_doc_id_in_csv_judgments_is_an_error(tmp_path) -> None:
    """It used to count as a relevant document: R@10 for q1 fell from 1.0 to 0.5."""
    path = tmp_path / "qrels.csv"
    path.write_text("query_id,doc_id,relevance\nq1,d1,1\nq1,,1\n")
    message = error_of(evaluate, str(path), {"q1": {"d1": 1.0}}, "R@10")
    assert message.startswith(f"{path}:3: ") and "doc_id" in message and "empty" in message


def test_empty_query_id_is_an_error_not_a_blank_skipped_query(tmp_path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("query_id,doc_id,score\nq1,d1,1\n,d2,1\n")
    message = error_of(evaluate, {"q1": {"d1": 1}}, str(path), "R@10")
    assert message.startswith(f"{path}:3: ") and "query_id" in message


@pytest.mark.parametrize(
    ("name", "write", "where"),
    [
        ("r.jsonl", lambda p: p.write_text(
            '{"query_id": "q1", "doc_id": "d1", "score": 1}\n\n'
            '{"query_id": "q1", "doc_id": null, "score": 1}\n'), ":3: "),
        ("r.tsv", lambda p: p.write_text("qid\tdocid\tscore\nq1\t\t1\n"), ":2: "),
        ("r.parquet", lambda p: __import__("pyarrow.parquet").parquet.write_table(
            __import__("pyarrow").table({"query_id": ["q1", None], "doc_id": ["d1", "d2"],
                                         "score": [1.0, 2.0]}), p), ": row 2: "),
        ("r.jsonl", lambda p: p.write_text(
            '{"query_id": "q1", "doc_id": "d1", "score": 1}\n'
            '{"query_id": "q1", "doc_id": NaN, "score": 1}\n'), None),
    ],
)  # fmt: skip
def test_null_ids_name_file_and_line_in_every_format(tmp_path, name, write, where) -> None:
    path = tmp_path / name
    write(path)
    message = error_of(load_run, str(path))
    assert message.startswith(str(path)), message
    if where:
        assert message.startswith(f"{path}{where}"), message


def test_null_ids_in_dicts_and_data_frames() -> None:
    pd = pytest.importorskip("pandas")
    for qrels, run in [
        ({"": {"d1": 1}}, {"q1": {"d1": 1.0}}),
        ({"q1": {"": 1}}, {"q1": {"d1": 1.0}}),
        ({"q1": {"d1": 1}}, {"q1": {"": 1.0}}),
        ({"q1": {"d1": 1}}, {None: {"d1": 1.0}}),
        ({"q1": {"d1": 1}}, {"q1": ["d1", ""]}),
    ]:
        assert "id is" in error_of(evaluate, qrels, run, "P@1")
    frame = pd.DataFrame({"query_id": ["q1", None], "doc_id": ["d1", "d2"], "relevance": [1, 1]})
    assert error_of(load_qrels, frame).startswith("qrels table: row 2: ")


# -- case 7: grades that do not fit ----------------------------------------------------------


@pytest.mark.parametrize("grade", [10**30, -(10**30), 10**400, 2**63, 1e30, float("inf")])
def test_huge_grades_are_refused_in_the_api(grade) -> None:
    """10**30 used to give a numpy cast warning, then NumRel = 0."""
    message = error_of(evaluate, {"q1": {"d1": grade}}, {"q1": {"d1": 1.0}}, "NumRel")
    assert message.startswith("qrels dict: query 'q1', doc 'd1': ")


def test_huge_grades_in_tables_and_exact_large_ones(tmp_path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("query_id,doc_id,relevance\nq1,d1,1\nq1,d2,1e30\n")
    assert error_of(load_qrels, str(path)).startswith(f"{path}:3: ")
    path.write_text("query_id,doc_id,relevance\nq1,d1,99999999999999999999999\n")
    assert "out of range" in error_of(load_qrels, str(path))
    big = 2**62 + 1  # beyond float64's exact integers: read exactly
    assert load_qrels({"q1": {"d1": big}}).grades.tolist() == [big]
    path.write_text(f"query_id,doc_id,relevance\nq1,d1,{big}\n")
    assert load_qrels(str(path)).grades.tolist() == [big]
    assert "out of range" in error_of(load_qrels, f"q1 0 d1 {-(2**63)}\n".encode())


# -- case 9: "-" for two inputs --------------------------------------------------------------


def test_stdin_for_both_inputs_is_a_usage_error(capsys) -> None:
    """``cat qrels | prfeval evaluate - -`` used to exit 0 with every measure 0."""
    code, out, err = run_cli(capsys, "evaluate", "-", "-")
    assert code == 2 and out == "" and "'-'" in err and err.count("\n") == 1
    with pytest.raises(UsageError, match="standard input"):
        evaluate("-", "-")
    for argv in (["curve", "-", "-"], ["compare", "q", "-", "-"], ["classify", "-", "-"],
                 ["trec_eval", "-", "-"]):
        code, _, err = run_cli(capsys, *argv)
        assert code == 2 and "'-'" in err, argv


def test_stdin_for_both_inputs_in_a_subprocess(qrels) -> None:
    done = subprocess.run(
        [*PY, "evaluate", "-", "-"], input=QRELS, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "'-'" in done.stderr and done.stdout == ""


# -- case 16: line numbers -------------------------------------------------------------------


def _rows(n: int, bad_at: int | None, bad: str, sep: str = ",") -> str:
    lines = [sep.join(["query_id", "doc_id", "score"])]
    for i in range(2, n + 1):
        lines.append(sep.join(["q1", f"d{i}", bad if i == bad_at else "1.5"]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("sep, suffix", [(",", "csv"), ("\t", "tsv")])
def test_csv_errors_name_the_line(tmp_path, sep, suffix) -> None:
    """Line 5000 (the header is line 1): a bad score, a short row, an extra field."""
    path = tmp_path / f"r.{suffix}"
    path.write_text(_rows(6000, 5000, "high", sep))
    assert error_of(load_run, str(path)).startswith(f"{path}:5000: ")
    text = _rows(6000, None, "", sep).splitlines()
    for broken in (sep.join(["q1", "d5000"]), sep.join(["q1", "d5000", "1", "x"])):
        lines = [*text[:4999], broken, *text[5000:]]
        path.write_text("\n".join(lines) + "\n")
        message = error_of(load_run, str(path))
        assert message.startswith(f"{path}:5000: expected 3 fields"), message


def test_csv_line_numbers_count_blank_lines_and_quoted_line_breaks(tmp_path) -> None:
    path = tmp_path / "r.csv"
    path.write_text('query_id,doc_id,score\n\nq1,"d\n1",2\n\nq1,d2,oops\n')
    assert error_of(load_run, str(path)).startswith(f"{path}:6: ")
    # a later error (a repeated document) is located the same way
    path.write_text('query_id,doc_id,score\n\nq1,"d\n1",2\n\nq1,"d\n1",1\n')
    message = error_of(evaluate, {"q1": {"x": 1}}, str(path), "P@1", duplicates="error")
    assert message.startswith(f"{path}:6: "), message


def test_nan_in_a_csv_is_called_nan(tmp_path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("query_id,doc_id,score\nq1,d1,1\nq1,d2,NaN\n")
    message = error_of(load_run, str(path))
    assert message.startswith(f"{path}:3: ") and "NaN" in message and "missing" not in message
    path.write_text("query_id,doc_id,score\nq1,d1,1\nq1,d2,\n")
    assert error_of(load_run, str(path)).startswith(f"{path}:3: ")


def test_jsonl_line_numbers_are_lines(tmp_path) -> None:
    """Line 5000 used to be reported as "row 4999", without a file:line: prefix."""
    path = tmp_path / "r.jsonl"
    rows = [json.dumps({"query_id": "q1", "doc_id": f"d{i}", "score": 1.0}) for i in range(6000)]
    for bad, fragment in [
        ('{"query_id": "q1", "doc_id": "d", "score": "high"}', "string"),
        ('{"query_id": "q1", "doc_id": "d", "score": }', "invalid JSON"),
        ('["q1", "d", 1]', "object"),
        ('{"query_id": "q1", "doc_id": null, "score": 1}', "doc_id"),
        ('{"query_id": ["a", 1], "doc_id": "d", "score": 1}', "query_id"),  # by fuzzing
    ]:
        path.write_text("\n".join([*rows[:4999], bad, *rows[5000:]]) + "\n")
        message = error_of(load_run, str(path))
        assert message.startswith(f"{path}:5000: ") and fragment in message, message
    path.write_text(rows[0] + "\n\n\n" + bad + "\n")  # blank lines still count
    assert error_of(load_run, str(path)).startswith(f"{path}:4: ")


def test_parquet_rows(tmp_path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"qid": ["q1", "q1", "q1"], "docid": ["a", "b", "c"],
                             "score": [1.0, float("nan"), 2.0]}), path)  # fmt: skip
    assert error_of(load_run, str(path)).startswith(f"{path}: row 2: ")


def test_errors_after_reading_name_the_line_of_every_format(tmp_path) -> None:
    """A repeated judgment is found when judgments are joined: its line is still named."""
    csv_path = tmp_path / "q.csv"
    csv_path.write_text("query_id,doc_id,relevance\n\nq1,d1,1\nq1,d1,2\n")
    assert error_of(evaluate, str(csv_path), RUN.encode(), "P@1").startswith(f"{csv_path}:4: ")
    trec = tmp_path / "q.txt"
    trec.write_text("# judgments\n\nq1 0 d1 1\nq1\t0\td1\t2\n")
    with pytest.warns(PrfevalWarning, match="skipped 1 comment line starting with '#'"):
        assert error_of(evaluate, str(trec), RUN.encode(), "P@1").startswith(f"{trec}:4: ")


# -- case 18: a streamed error is one message ------------------------------------------------


def test_a_streamed_error_is_one_message_without_a_warning(qrels, tmp_path, capsys) -> None:
    """It used to warn "reading it whole", then give the error. (A PrfevalWarning is an
    error in these tests: one before the InputFormatError would fail this test.)"""
    run = tmp_path / "run.txt"
    run.write_text(RUN + "q2 Q0 d8 3 oops r\n")
    with pytest.raises(InputFormatError, match=r"run\.txt:6: score is not a number"):
        evaluate(qrels, str(run), "P@2", stream=True)
    code, _, err = run_cli(capsys, "evaluate", qrels, str(run), "--stream")
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"prfeval: {run}:6: ")
    code, _, err = run_cli(capsys, "evaluate", qrels, "-", "--stream")  # stdin: no file to stream
    assert code == 2 and "warning" not in err


# -- issue 17 item 4: stdin's format from its first line ------------------------------------

TABLES = {
    "csv": "query_id,doc_id,score\nq1,d1,3\nq1,d2,2\nq1,d9,1\nq2,d4,2\nq2,d7,1\n",
    "tsv": "qid\tdocid\tscore\nq1\td1\t3\nq1\td2\t2\nq1\td9\t1\nq2\td4\t2\nq2\td7\t1\n",
    "jsonl": "".join(
        json.dumps({"query_id": q, "doc_id": d, "score": s}) + "\n"
        for q, d, s in [("q1", "d1", 3), ("q1", "d2", 2), ("q1", "d9", 1), ("q2", "d4", 2),
                        ("q2", "d7", 1)]
    ),
    "trec": RUN,
}  # fmt: skip


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_stdin_format_is_sniffed_from_the_first_line(qrels, kind, monkeypatch, capsys) -> None:
    """``cat run.csv | prfeval evaluate qrels.csv -`` used to fail: "expected 6 fields"."""
    _stdin(monkeypatch, TABLES[kind].encode())
    code, out, err = run_cli(capsys, "evaluate", qrels, "-", "-m", "P@2 R@10", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["macro"] == {"P@2": 0.5, "R@10": 0.5}


def test_stdin_in_a_process(qrels) -> None:
    done = subprocess.run(
        [*PY, "evaluate", qrels, "-", "-m", "P@2", "--format", "json"],
        input=TABLES["csv"], capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["macro"] == {"P@2": 0.5}


def test_parquet_and_gzip_from_stdin(qrels, monkeypatch, capsys) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    buffer = io.BytesIO()
    pq.write_table(pa.table({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"],
                             "score": [3.0, 2.0]}), buffer)  # fmt: skip
    for data in (buffer.getvalue(), gzip.compress(TABLES["csv"].encode())):
        _stdin(monkeypatch, data)
        code, out, err = run_cli(capsys, "evaluate", qrels, "-", "-m", "P@2", "--format", "json")
        assert code == 0, err
        assert json.loads(out)["macro"]["P@2"] == 0.5


def test_bytes_and_streams_are_sniffed_too(qrels) -> None:
    assert evaluate(qrels, TABLES["csv"].encode(), "P@2").macro == {"P@2": 0.5}
    assert evaluate(qrels, io.BytesIO(TABLES["tsv"].encode()), "P@2").macro == {"P@2": 0.5}


def test_formats_can_be_forced(qrels, tmp_path, capsys) -> None:
    odd = tmp_path / "run.txt"  # a CSV under a TREC name
    odd.write_text(TABLES["csv"])
    assert evaluate(qrels, str(odd), "P@2", run_format="csv").macro == {"P@2": 0.5}
    code, out, err = run_cli(
        capsys, "evaluate", qrels, str(odd), "--run-format", "csv", "-m", "P@2", "--format",
        "trec",
    )  # fmt: skip
    assert code == 0, err
    assert out.split() == ["P@2", "all", "0.5000"]
    trec_as_csv = tmp_path / "run.csv"  # and TREC under a CSV name
    trec_as_csv.write_text(RUN)
    assert evaluate(qrels, str(trec_as_csv), "P@2", run_format="trec").macro == {"P@2": 0.5}
    csv_qrels = tmp_path / "qrels.dat"
    csv_qrels.write_text("query_id,doc_id,relevance\nq1,d1,1\n")
    assert evaluate(str(csv_qrels), RUN.encode(), "P@2", qrels_format="csv").macro["P@2"] == 0.5
    with pytest.raises(UsageError, match="run_format"):
        evaluate(qrels, str(odd), run_format="xls")
    # forcing TREC onto a CSV names the first line it cannot read as TREC
    message = error_of(evaluate, qrels, str(odd), run_format="trec")
    assert message.startswith(f"{odd}:1: ")


# -- issue 17 item 9: --qrels-duplicates -----------------------------------------------------

REPEATED = "q1 0 d1 0\nq1 0 d2 1\nq2 0 d4 1\nq1 0 d1 2\nq1 0 d1 1\n"  # d1: 0, 2, then 1


@pytest.mark.parametrize(
    ("policy", "grade"), [("max", 2), ("last", 1)]
)
def test_qrels_duplicates_policies(tmp_path, policy, grade) -> None:
    run = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq2 Q0 d4 1 1.0 r\n"
    e = evaluate(REPEATED.encode(), run.encode(), "P(rel=2)@1 NumRel", qrels_duplicates=policy)
    assert e.macro["P(rel=2)@1"] == (0.5 if grade == 2 else 0.0)
    assert e.accounting.repeated_judgments == 2
    assert e.to_dict()["queries"]["repeated_judgments"] == 2
    assert e.settings["qrels_duplicates"] == policy
    # the streamed path joins its judgments the same way, and counts the same
    (tmp_path / "run.txt").write_text(run)
    s = evaluate(REPEATED.encode(), str(tmp_path / "run.txt"), "P(rel=2)@1 NumRel",
                 qrels_duplicates=policy, stream=True)  # fmt: skip
    assert s.macro == e.macro
    assert s.accounting.repeated_judgments == 2


def test_qrels_duplicates_default_is_an_error_naming_the_line(capsys, tmp_path) -> None:
    with pytest.raises(InputFormatError, match=r"<bytes>:4: judgment repeated"):
        evaluate(REPEATED.encode(), RUN.encode(), "P@1")
    q = tmp_path / "q.txt"
    q.write_text(REPEATED)
    (tmp_path / "r.txt").write_text(RUN)
    code, _, err = run_cli(capsys, "evaluate", str(q), str(tmp_path / "r.txt"))
    assert code == 2 and err.startswith(f"prfeval: {q}:4: ") and "--qrels-duplicates" in err
    for fmt in ("table", "trec", "json", "csv"):
        code, out, err = run_cli(
            capsys, "evaluate", str(q), str(tmp_path / "r.txt"), "--qrels-duplicates", "max",
            "--format", fmt,
        )  # fmt: skip
        assert code == 0
        assert "Repeated judgments: 2" in (out if fmt == "table" else err), fmt
    for command in (["curve"], ["compare", str(tmp_path / "r.txt")]):
        code, out, err = run_cli(capsys, *command[:1], str(q), str(tmp_path / "r.txt"),
                                 *command[1:], "--qrels-duplicates", "last")  # fmt: skip
        assert code == 0, err
        assert "Repeated judgments: 2" in out, command
    code, out, err = run_cli(capsys, "compare", str(q), str(tmp_path / "r.txt"),
                             str(tmp_path / "r.txt"), "--qrels-duplicates", "max", "--format",
                             "json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["queries"]["repeated_judgments"] == 2
    assert "Repeated judgments: 2" in err
    with pytest.raises(UsageError, match="qrels_duplicates"):
        evaluate(REPEATED.encode(), RUN.encode(), qrels_duplicates="first")


def test_the_numbers_match_a_hand_count_with_max() -> None:
    """d1's grades 0, 2, 1 with max: relevant at level 1 and 2; q1 has 2 relevant (d1, d2)."""
    e = evaluate(REPEATED.encode(), b"q1 Q0 d1 1 3.0 r\n", "NumRel R@1", qrels_duplicates="max")
    assert e.macro == {"NumRel": 2, "R@1": 0.5}
    assert np.isclose(e.micro["R@1"], 0.5)


def test_an_arrow_failure_without_a_cause_of_its_own_is_still_located(tmp_path) -> None:
    """A list of mixed types in a JSON line (found by the long fuzz run), in a column that
    is used: refused at the line where it shows."""
    path = tmp_path / "r.jsonl"
    path.write_text('{"doc_id": "d"}\n{"doc_id": "d"}\n{"query_id": ["a", 1], "doc_id": "d"}\n')
    assert error_of(load_run, str(path)).startswith(f"{path}:3: ")


@pytest.mark.process
@pytest.mark.parametrize("text", ["null\n", '\ufeff\n \r\nnull', 'null\n{"query_id": "q1"}\n'])
def test_a_null_line_in_json_lines_is_an_error_not_a_crash(tmp_path, text) -> None:
    """Arrow's JSON reader (pyarrow 26) kills the process on a first line that is only
    ``null`` (found by the long fuzz run): such text is refused before Arrow sees it. In a
    process of its own, so that a crash is a failure, not the end of the test run."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(text.encode())
    for name in (path, tmp_path / "r.jsonl.gz"):
        if name.suffix == ".gz":
            name.write_bytes(gzip.compress(path.read_bytes()))
        done = subprocess.run(
            [*PY, "evaluate", str(name), "-"], capture_output=True, text=True,
            timeout=60, input=RUN,
        )  # fmt: skip
        assert done.returncode == 2, (done.returncode, done.stderr)
        assert "expected a JSON object per line, got null" in done.stderr
