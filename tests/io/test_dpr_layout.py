"""DPR's retrieval output read as it is, with no column map: ``question_id`` (or ``qid``,
``query_id``, ``id``) and ``ctxs`` (or ``passages``, ``contexts``, ``docs``), as JSON Lines
and as DPR's own JSON array (``results.json``); passages as ids or as objects ranked by
their ``score``; the other fields ignored; two candidate columns refused as ambiguous.

Expected values are counted by hand: q1 retrieves p1 (relevant) at rank 1 by score although
it is written second; q2 retrieves p3 (not relevant), so P@1 = (1 + 0) / 2 = 0.5, RR = 0.5;
R@2 = (1/1 + 0/1) / 2 = 0.5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prfeval import evaluate, load_run
from prfeval._core.errors import InputFormatError
from support.cli import run_cli

QRELS = "q1 0 p1 1\nq2 0 p4 1\n"
HAND = {"P@1": 0.5, "RR": 0.5, "R@2": 0.5}
PER_QUERY_P1 = {"q1": 1.0, "q2": 0.0}


def _records(query: str = "question_id", passages: str = "ctxs", objects: bool = True):
    def ctx(pid: str, score: float, has: bool) -> object:
        if not objects:
            return pid
        return {"id": pid, "score": score, "title": "T", "text": "...", "has_answer": has}

    # Objects out of order: p2 is written first, with the lower score.
    first = [ctx("p2", 1.5, False), ctx("p1", 3.0, True)] if objects else ["p1", "p2"]
    return [
        {query: "q1", "question": "who?", "answers": ["x"], passages: first},
        {query: "q2", "question": "what?", "answers": ["y"], passages: [ctx("p3", 2.0, False)]},
    ]


def _write(tmp_path: Path, records: list[dict], *, array: bool) -> Path:
    if array:
        path = tmp_path / "results.json"
        path.write_text(json.dumps(records, indent=2))
    else:
        path = tmp_path / "run.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("array", [False, True], ids=["jsonl", "json-array"])
@pytest.mark.parametrize("query", ["question_id", "qid", "query_id", "id"])
@pytest.mark.parametrize("passages", ["ctxs", "passages", "contexts", "docs"])
def test_dpr_names_need_no_column_map(tmp_path, array, query, passages) -> None:
    path = _write(tmp_path, _records(query, passages), array=array)
    result = evaluate(QRELS.encode(), str(path), "P@1 RR R@2")
    assert result.macro == pytest.approx(HAND)
    assert {q: v["P@1"] for q, v in result.per_query.items()} == PER_QUERY_P1


@pytest.mark.parametrize("array", [False, True], ids=["jsonl", "json-array"])
def test_plain_id_lists_rank_in_list_order(tmp_path, array) -> None:
    path = _write(tmp_path, _records(objects=False), array=array)
    run = load_run(str(path))
    assert run.query_ids.to_pylist() == ["q1", "q1", "q2"]
    assert run.doc_ids.to_pylist() == ["p1", "p2", "p3"]
    assert evaluate(QRELS.encode(), str(path), "P@1").macro["P@1"] == 0.5


@pytest.mark.parametrize("field", ["doc_id", "docid", "passage_id"])
def test_object_id_field_synonyms(tmp_path, field) -> None:
    records = _records()
    for r in records:
        for c in r["ctxs"]:
            c[field] = c.pop("id")
    path = _write(tmp_path, records, array=False)
    assert evaluate(QRELS.encode(), str(path), "P@1 RR R@2").macro == pytest.approx(HAND)


def test_from_the_command_line(tmp_path, capsys) -> None:
    qrels = tmp_path / "gold.qrels"
    qrels.write_text(QRELS)
    path = _write(tmp_path, _records(), array=True)
    code, out, err = run_cli(capsys, "evaluate", str(qrels), str(path), "-m", "P@1",
                             "--format", "json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["macro"]["P@1"] == 0.5


def test_two_query_id_columns_are_ambiguous(tmp_path, capsys) -> None:
    records = _records()
    for r in records:
        r["qid"] = r["question_id"]
    path = _write(tmp_path, records, array=False)
    qrels = tmp_path / "gold.qrels"
    qrels.write_text(QRELS)
    code, _, err = run_cli(capsys, "evaluate", str(qrels), str(path), "-m", "P@1")
    assert code == 2
    assert "ambiguous" in err and "'question_id'" in err and "'qid'" in err
    assert "Traceback" not in err
    # A column map settles it.
    code, _, err = run_cli(capsys, "evaluate", str(qrels), str(path), "-m", "P@1",
                           "--run-columns", "query_id=qid")  # fmt: skip
    assert code == 0, err


def test_two_passage_columns_are_ambiguous(tmp_path) -> None:
    records = _records()
    for r in records:
        r["passages"] = r["ctxs"]
    path = _write(tmp_path, records, array=True)
    with pytest.raises(InputFormatError, match=r"ambiguous.*'ctxs'.*'passages'"):
        load_run(str(path))


def test_objects_with_two_id_fields_are_ambiguous(tmp_path) -> None:
    records = _records()
    for r in records:
        for c in r["ctxs"]:
            c["passage_id"] = "x" + c["id"]
    path = _write(tmp_path, records, array=False)
    with pytest.raises(InputFormatError, match=r"ambiguous.*'id'.*'passage_id'") as info:
        load_run(str(path))
    assert info.value.line_number == 1
