"""A grade column is never ignored: read by a known name, or refused naming it (issue 45).

Judgments of one query with d1 relevant and d2, d3 not: P@3 of the run d1 d2 d3 is 1/3 by
hand count (and pytrec_eval's), where a grade column ignored makes every listed document
relevant (P@3 = 1). Grades are numbers or true/false in every typed input; text is refused
there, and parsed in CSV/TSV, whose cells have no types.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import pytrec_eval

import prfeval
from prfeval._core.errors import InputFormatError
from support.cli import run_cli

RUN = "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d3 3 1 r\n"
GRADES = {"d1": 1, "d2": 0, "d3": 0}
LAYOUTS = ("csv", "tsv", "jsonl", "parquet", "pandas", "polars")


def _reference() -> float:
    """P@3 by pytrec_eval (P_3), on the judgments as trec_eval reads them."""
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    scores = pytrec_eval.RelevanceEvaluator({"q1": GRADES}, {"P.3"}).evaluate(run)
    return float(scores["q1"]["P_3"])


def _judgments(tmp_path: Path, layout: str, column: str, values: list[Any] | None = None) -> Any:
    """The judgments with the grade in ``column``, as a file of ``layout`` (or a frame)."""
    grades = list(GRADES.values()) if values is None else values
    table = pa.table({"qid": ["q1"] * 3, "docid": list(GRADES), column: grades})
    if layout in ("csv", "tsv"):
        sep = "," if layout == "csv" else "\t"
        lines = [sep.join(("qid", "docid", column))]
        lines += [sep.join(("q1", d, str(g).lower())) for d, g in zip(GRADES, grades, strict=True)]
        path = tmp_path / f"qrels.{layout}"
        path.write_text("\n".join(lines) + "\n")
        return str(path)
    if layout == "jsonl":
        path = tmp_path / "qrels.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in table.to_pylist()))
        return str(path)
    if layout == "parquet":
        path = tmp_path / "qrels.parquet"
        pq.write_table(table, path)
        return str(path)
    if layout == "pandas":
        return table.to_pandas()
    import polars as pl

    return pl.from_arrow(table)


@pytest.fixture
def run_file(tmp_path: Path) -> str:
    path = tmp_path / "run.txt"
    path.write_text(RUN)
    return str(path)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("column", ["relevancy", "judgment", "judgement", "qrel", "is_relevant",
                                    "relevant", "Relevance"])
def test_a_known_grade_name_is_read(tmp_path: Path, run_file: str, layout: str,
                                    column: str) -> None:
    qrels = _judgments(tmp_path, layout, column)
    value = prfeval.evaluate(qrels, run_file, ["P@3"]).macro["P@3"]
    assert value == pytest.approx(1 / 3)
    assert value == pytest.approx(_reference())


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("column", ["rating", "gain", "relevance_score", "stars"])
def test_an_unknown_grade_column_is_refused_in_python(tmp_path: Path, run_file: str,
                                                      layout: str, column: str) -> None:
    qrels = _judgments(tmp_path, layout, column)
    with pytest.raises(InputFormatError) as info:
        prfeval.evaluate(qrels, run_file, ["P@3"])
    assert repr(column) in str(info.value)
    assert f"--qrels-columns grade={column}" in str(info.value)
    # Named, it is read: the hand count.
    value = prfeval.evaluate(qrels, run_file, ["P@3"], qrels_columns={"grade": column})
    assert value.macro["P@3"] == pytest.approx(_reference())


@pytest.mark.parametrize("layout", ["csv", "tsv", "jsonl", "parquet"])
def test_an_unknown_grade_column_is_refused_on_the_command_line(
    tmp_path: Path, run_file: str, layout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = _judgments(tmp_path, layout, "rating")
    code, out, err = run_cli(capsys, "evaluate", qrels, run_file, "-m", "P@3", "--format", "csv")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "'rating'" in err and "--qrels-columns grade=rating" in err
    code, out, _ = run_cli(capsys, "evaluate", qrels, run_file, "-m", "P@3", "--format", "csv",
                           "--qrels-columns", "grade=rating")
    assert code == 0
    assert float(out.splitlines()[1].split(",")[-1]) == pytest.approx(_reference())


@pytest.mark.parametrize("layout", ["csv", "jsonl", "parquet", "pandas"])
def test_text_and_iteration_columns_are_not_grades(tmp_path: Path, run_file: str,
                                                   layout: str) -> None:
    """Listed documents are relevant (grade 1 each) beside a title and TREC's iteration."""
    table = pa.table({"qid": ["q1"], "iter": [0], "docid": ["d1"], "title": ["On relevance"]})
    if layout == "pandas":
        qrels: Any = table.to_pandas()
    else:
        qrels = str(tmp_path / f"qrels.{layout}")
        if layout == "parquet":
            pq.write_table(table, qrels)
        elif layout == "jsonl":
            Path(qrels).write_text(json.dumps(table.to_pylist()[0]) + "\n")
        else:
            Path(qrels).write_text("qid,iter,docid,title\nq1,0,d1,On relevance\n")
    value = prfeval.evaluate(qrels, run_file, ["P@3"]).macro["P@3"]
    assert value == pytest.approx(1 / 3)  # d1 relevant, d2 and d3 unjudged


def test_a_parallel_list_of_unknown_grades_is_refused(tmp_path: Path, run_file: str) -> None:
    path = tmp_path / "qrels.jsonl"
    path.write_text(json.dumps({"qid": "q1", "docid": list(GRADES),
                                "rating": list(GRADES.values())}) + "\n")
    with pytest.raises(InputFormatError, match="'rating'"):
        prfeval.evaluate(str(path), run_file, ["P@3"])


def test_objects_with_an_unknown_grade_field_are_refused(tmp_path: Path, run_file: str) -> None:
    path = tmp_path / "qrels.jsonl"
    items = [{"id": d, "rating": g} for d, g in GRADES.items()]
    path.write_text(json.dumps({"qid": "q1", "docid": items}) + "\n")
    with pytest.raises(InputFormatError, match=r"qrels.jsonl:1: .*'rating'"):
        prfeval.evaluate(str(path), run_file, ["P@3"])
    known = [{"id": d, "relevancy": g} for d, g in GRADES.items()]
    path.write_text(json.dumps({"qid": "q1", "docid": known}) + "\n")
    assert prfeval.evaluate(str(path), run_file, ["P@3"]).macro["P@3"] == pytest.approx(
        _reference()
    )


# D21: one rule for grades, in Python and in files.


@pytest.mark.parametrize("layout", LAYOUTS)
def test_boolean_grades_are_one_and_zero(tmp_path: Path, run_file: str, layout: str) -> None:
    qrels = _judgments(tmp_path, layout, "relevance", [True, False, False])
    assert prfeval.evaluate(qrels, run_file, ["P@3"]).macro["P@3"] == pytest.approx(_reference())


def test_boolean_grades_in_dicts_and_json(tmp_path: Path, run_file: str) -> None:
    qrels = {"q1": {"d1": True, "d2": False, "d3": False}}
    assert prfeval.evaluate(qrels, run_file, ["P@3"]).macro["P@3"] == pytest.approx(_reference())
    path = tmp_path / "qrels.json"
    path.write_text(json.dumps(qrels))
    assert prfeval.evaluate(str(path), run_file, ["P@3"]).macro["P@3"] == pytest.approx(
        _reference()
    )


@pytest.mark.parametrize("layout", ["jsonl", "parquet", "pandas", "polars"])
def test_a_text_grade_is_refused_in_typed_inputs(tmp_path: Path, run_file: str,
                                                 layout: str) -> None:
    qrels = _judgments(tmp_path, layout, "relevance", ["1", "0", "0"])
    with pytest.raises(InputFormatError, match=r"column 'relevance' holds text \('1'\)"):
        prfeval.evaluate(qrels, run_file, ["P@3"])


def test_a_text_grade_is_refused_in_dicts_and_json(tmp_path: Path, run_file: str) -> None:
    qrels = {"q1": {"d1": "1", "d2": 0, "d3": 0}}
    with pytest.raises(InputFormatError, match=r"doc 'd1': expected an integer grade, got '1'"):
        prfeval.evaluate(qrels, {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, ["P@3"])
    with pytest.raises(InputFormatError, match="got '1'"):
        prfeval.evaluate(qrels, run_file, ["P@3"])
    path = tmp_path / "qrels.json"
    path.write_text(json.dumps(qrels))
    with pytest.raises(InputFormatError, match=r"qrels.json: .*got '1'"):
        prfeval.evaluate(str(path), run_file, ["P@3"])
    lines = tmp_path / "qrels.jsonl"
    lines.write_text(json.dumps({"qid": "q1", "docid": {"d1": "1", "d2": "0"}}) + "\n")
    with pytest.raises(InputFormatError, match=r"qrels.jsonl:1: .*holds text"):
        prfeval.evaluate(str(lines), run_file, ["P@3"])


@pytest.mark.parametrize("layout", ["csv", "tsv"])
def test_text_tables_parse_their_grades(tmp_path: Path, run_file: str, layout: str) -> None:
    """A CSV has no types: its cells are text, and a grade is parsed from it."""
    qrels = _judgments(tmp_path, layout, "relevance")
    assert prfeval.evaluate(qrels, run_file, ["P@3"]).macro["P@3"] == pytest.approx(_reference())


def test_a_list_of_other_ids_beside_the_doc_ids_is_not_a_grade(tmp_path: Path) -> None:
    """Negatives of another length than the positives are ids, not grades (numeric ids as
    MS MARCO's): every positive is relevant."""
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps({"qid": "q1", "positives": ["1", "2"],
                                "negatives": ["3", "4", "5"]}) + "\n")
    result = prfeval.evaluate(str(path), {"q1": ["1", "3"]}, ["P@2"],
                              qrels_columns={"doc_id": "positives"})
    assert result.macro["P@2"] == pytest.approx(1 / 2)  # 1 relevant, 3 not
