"""JSON Lines and JSON documents: a right value or a clear refusal (exit 2, one line naming
the file and line), never a silent wrong value, a traceback or memory exhausted.

Each case was a defect: integer ids of 2^63 or more read as doubles (relevant documents
counted as unjudged); a key named twice in an object, the last kept silently; a list whose
first item is ``null`` (a broken Arrow array, then a traceback); unused fields whose type
changes between lines refused or crashing; bytes that are not UTF-8 in a query id (a
traceback); a ``.json`` document nested 1,000 deep (``RecursionError``); a line of a billion
ids (``MemoryError`` at 8 GB). Values are checked against pytrec_eval, fed the same data as
Python dicts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import pytrec_eval

import prfeval
from prfeval._core.errors import InputFormatError
from support.cli import run_cli

BIG = 2**64 - 1  # beyond int64 and beyond a double's 53 bits
COMMANDS = [
    ("evaluate", "-m", "P@2"),
    ("curve",),
    ("explain", "--query", "q1"),
    ("compare", "{good}"),
    ("report", "-o", "{out}"),
]


def write_lines(path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def pytrec(qrels, run, measure="P_2"):
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return {q: v[measure] for q, v in per_query.items()}


def per_query(qrels, run, measure="P@2", **kw):
    result = prfeval.evaluate(qrels, run, [measure], **kw)
    return {q: result.per_query[q][measure] for q in result.per_query}


# --------------------------------------------------------------------------------------------
# D4: integers of 2^63 or more


@pytest.mark.parametrize("layout", ["lists", "rows"])
def test_integer_ids_beyond_64_bits_are_read_exactly(tmp_path, layout) -> None:
    gold = {"q1": [BIG, 7], "q2": [BIG - 1]}
    ranked = {"q1": [BIG, 7, 2], "q2": [BIG, BIG - 1]}
    if layout == "lists":
        qrels = write_lines(tmp_path / "g.jsonl", [{"qid": q, "doc_id": d}
                                                   for q, d in gold.items()])
        run = write_lines(tmp_path / "r.jsonl", [{"qid": q, "doc_id": d}
                                                 for q, d in ranked.items()])
    else:
        qrels = write_lines(tmp_path / "g.jsonl", [
            {"qid": q, "doc_id": d, "relevance": 1} for q, ds in gold.items() for d in ds])
        run = write_lines(tmp_path / "r.jsonl", [
            {"qid": q, "doc_id": d, "score": 10.0 - i}
            for q, ds in ranked.items() for i, d in enumerate(ds)])
    expected = pytrec({q: {str(d): 1 for d in ds} for q, ds in gold.items()},
                      {q: {str(d): 10.0 - i for i, d in enumerate(ds)} for q, ds in ranked.items()})
    assert per_query(qrels, run) == pytest.approx(expected)
    assert expected == {"q1": 1.0, "q2": 0.5}  # the big ids do match


def test_integer_ids_beyond_64_bits_in_a_json_document(tmp_path) -> None:
    qrels = tmp_path / "q.json"
    qrels.write_text(f'{{"q1": {{"{BIG}": 1}}}}')
    run = tmp_path / "r.json"
    run.write_text(f'[{{"qid": "q1", "doc_id": [{BIG}, 3]}}]')
    assert per_query(str(qrels), str(run)) == {"q1": 0.5}


# --------------------------------------------------------------------------------------------
# D5: a key named twice


@pytest.mark.parametrize(
    ("name", "text", "line", "key"),
    [
        ("results.json", '{"q1": {"d1": 2.0},\n "q1": {"d2": 1.0}}', 1, "q1"),
        ("results.json", '{"q1": {"d1": 2.0},\n "q2": {"d1": 1.0,\n  "d1": 3.0}}', 2, "d1"),
        ("run.jsonl", '{"qid": "q1", "doc_id": ["d1"]}\n{"qid": "q2", "qid": "q3", '
                      '"doc_id": ["d1"]}\n', 2, "qid"),
        ("run.jsonl", '{"qid": "q1", "doc_id": [{"id": "d1", "score": 1, "score": 2}]}\n', 1,
         "score"),
        ("run.jsonl", '{"qid": "q1", "doc_id": {"d1": 1.0, "d2": 0.5, "d1": 0.1}}\n', 1, "d1"),
    ],
    ids=["json top", "json inner", "jsonl row", "jsonl item", "jsonl map"],
)
def test_a_key_named_twice_in_a_run_is_refused(tmp_path, capsys, name, text, line, key) -> None:
    run = tmp_path / name
    run.write_text(text)
    qrels = write_lines(tmp_path / "g.jsonl", [{"qid": "q1", "doc_id": ["d1"]}])
    code, out, err = run_cli(capsys, "evaluate", qrels, str(run), "-m", "P@2")
    assert code == 2 and out == "", err
    assert err.startswith(f"prfeval: {run}:{line}: duplicate key {key!r}"), err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("qrels.json", '{"q1": {"d1": 1}, "q1": {"d2": 1}}', 1),
        ("gold.jsonl", '{"qid": "q1", "doc_id": ["d1"]}\n\n{"qid": "q2", "doc_id": ["d1"], '
                       '"doc_id": ["d2"]}\n', 3),
        ("qrels.jsonl", '{"qid": "q1", "doc_id": "d1", "relevance": 1, "relevance": 0}\n', 1),
    ],
)
def test_a_key_named_twice_in_judgments_is_refused(tmp_path, name, text, line) -> None:
    qrels = tmp_path / name
    qrels.write_text(text)
    with pytest.raises(InputFormatError, match="duplicate key") as info:
        prfeval.evaluate(str(qrels), {"q1": {"d1": 1.0}}, ["P@1"])
    assert str(info.value).startswith(f"{qrels}:{line}: ")


# --------------------------------------------------------------------------------------------
# D6: a list starting with null


@pytest.mark.parametrize("items", [[None, "d1"], [None], [None, None, "d2"]])
@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_a_list_starting_with_null_is_refused_in_every_command(
    tmp_path, capsys, items, command
) -> None:
    qrels = write_lines(tmp_path / "g.jsonl", [{"qid": "q1", "doc_id": ["d1"]},
                                               {"qid": "q2", "doc_id": ["d2"]}])
    run = write_lines(tmp_path / "r.jsonl", [{"qid": "q2", "doc_id": []},
                                             {"qid": "q1", "doc_id": items},
                                             {"qid": "q2", "doc_id": ["d3", "d2"]}])
    good = write_lines(tmp_path / "b.jsonl", [{"qid": "q1", "doc_id": ["d1"]}])
    argv = [a.format(good=good, out=tmp_path / "out.html") for a in command]
    code, _, err = run_cli(capsys, argv[0], qrels, run, *argv[1:])
    assert code == 2, err
    assert err == f"prfeval: {run}:2: column 'doc_id': item 1 is null: every item needs a doc id\n"
    assert not (tmp_path / "out.html").exists()


# --------------------------------------------------------------------------------------------
# D7/D14: unused fields


UNUSED = [
    [{"a": 1}, "text", None],  # an object, then text
    [{"a": 1}, {"b": [1, "x"]}, {"a": {"deep": [True]}}],  # objects of changing shape
    [[1, 2], ["x", 3], {"k": 1}],  # lists of mixed items, then an object
    ["x", 3, [None]],  # a scalar that changes type
    [None, {"a": 1}, 2.5],  # null first, then an object
    [{"": [0, False]}, {"a": [True, 1]}, None],  # objects whose lists mix their items
]


@pytest.mark.parametrize("meta", UNUSED)
def test_unused_fields_do_not_matter(tmp_path, meta) -> None:
    gold = {"q1": ["d1", "d4"], "q2": ["d2"], "q3": ["d9"]}
    ranked = {"q1": ["d1", "d2", "d3"], "q2": ["d3", "d2"], "q3": ["d1", "d9"]}
    qrels = write_lines(tmp_path / "g.jsonl", [
        {"qid": q, "doc_id": d, "notes": m} for (q, d), m in zip(gold.items(), meta, strict=True)])
    run = write_lines(tmp_path / "r.jsonl", [
        {"meta": m, "qid": q, "doc_id": d, "other": m}
        for (q, d), m in zip(ranked.items(), meta, strict=True)])
    expected = pytrec({q: dict.fromkeys(ds, 1) for q, ds in gold.items()},
                      {q: {d: 10.0 - i for i, d in enumerate(ds)} for q, ds in ranked.items()})
    assert per_query(qrels, run) == pytest.approx(expected)


def test_a_used_field_that_changes_type_is_refused_naming_its_line(tmp_path) -> None:
    run = write_lines(tmp_path / "r.jsonl", [
        {"qid": "q1", "doc_id": ["d1"], "scores": [1.0]},
        {"qid": "q2", "doc_id": ["d1"], "scores": {"d1": 1.0}},
    ])
    with pytest.raises(InputFormatError) as info:
        prfeval.evaluate({"q1": {"d1": 1}}, run, ["P@1"], run_columns={"score": "scores"})
    assert str(info.value).startswith(f"{run}:2: 'scores' is an object here but a list on line 1")


# --------------------------------------------------------------------------------------------
# D8: bytes that are not UTF-8


@pytest.mark.parametrize("where", ["qid", "doc", "unused"])
def test_bytes_that_are_not_utf8_are_refused_naming_the_line(tmp_path, capsys, where) -> None:
    qrels = write_lines(tmp_path / "g.jsonl", [{"qid": "q1", "doc_id": ["d1"]}])
    run = tmp_path / "r.jsonl"
    bad = {"qid": b'"q\xff1"', "doc": b'"q1"', "unused": b'"q1"'}[where]
    doc = b'"d\xfe"' if where == "doc" else b'"d1"'
    extra = b', "note": "\xc3("' if where == "unused" else b""
    run.write_bytes(b'{"qid": "q1", "doc_id": ["d1"]}\n{"qid": ' + bad + b', "doc_id": ['
                    + doc + b"]" + extra + b"}\n")
    code, out, err = run_cli(capsys, "evaluate", qrels, str(run), "-m", "P@1")
    assert (code, out) == (2, "")
    assert err == f"prfeval: {run}:2: not valid UTF-8 text\n"


# --------------------------------------------------------------------------------------------
# D9: nested deeply


@pytest.mark.parametrize(
    "text",
    ["[" * 1000 + "]" * 1000, '{"a":' * 1000 + "1" + "}" * 1000,
     '{"q1": ' + "[" * 5000 + "]" * 5000 + "}"],
    ids=["lists", "objects", "in a value"],
)
@pytest.mark.parametrize("role", ["run", "qrels"])
def test_a_json_document_nested_deeply_is_refused(tmp_path, capsys, text, role) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(text + "\n")
    other = write_lines(tmp_path / "o.jsonl", [{"qid": "q1", "doc_id": ["d1"]}])
    files = [str(deep), other] if role == "qrels" else [other, str(deep)]
    code, out, err = run_cli(capsys, "evaluate", *files, "-m", "P@1")
    assert (code, out) == (2, ""), err
    assert err.startswith(f"prfeval: {deep}") and len(err.splitlines()) == 1
    assert "nested" in err


# --------------------------------------------------------------------------------------------
# D12: a line of more ids than a query may have


def test_a_line_of_too_many_ids_is_refused_before_it_is_parsed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PRFEVAL_MAX_QUERY_RESULTS", "5000")
    qrels = write_lines(tmp_path / "g.jsonl", [{"qid": "q1", "doc_id": ["d1"]}])
    ids = [f"d{i}" for i in range(5001)]
    run = write_lines(tmp_path / "r.jsonl", [{"qid": "q0", "doc_id": ["d1"]},
                                             {"qid": "q1", "note": "a,b,c", "doc_id": ids}])
    code, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", "P@1")
    assert (code, out) == (2, "")
    assert err.startswith(f"prfeval: {run}:2: a list on this line has more than the 5,000 "
                          "results one query may have")
    # One fewer is read, and so are 5,000 ids beside 5,000 scores (two lists, each in bounds).
    scores = [float(-i) for i in range(5000)]
    run = write_lines(tmp_path / "r.jsonl", [{"qid": "q1", "doc_id": ids[:5000],
                                              "scores": scores}])
    result = prfeval.evaluate(qrels, run, ["P@1"], run_columns={"score": "scores"})
    assert result.per_query["q1"]["P@1"] == 0.0  # d0 first
    escaped = write_lines(tmp_path / "e.jsonl", [{"qid": "q1", "doc_id": ["d1"],
                                                  "note": '\\",' * 6000}])
    assert prfeval.evaluate(qrels, escaped, ["P@1"]).per_query["q1"]["P@1"] == 1.0


@pytest.mark.slow
def test_a_line_of_hundreds_of_megabytes_is_refused_in_bounded_memory(tmp_path) -> None:
    """A 300 MB line of 30M ids: refused, exit 2, the process peaking well below the 2.1 GB
    a 200 MB line took (its bytes are read whole, once)."""
    run = tmp_path / "r.jsonl"
    with run.open("wb") as out:
        out.write(b'{"qid": "q1", "doc_id": [')
        chunk = b",".join(b'"d%07d"' % i for i in range(1_000_000)) + b","
        for _ in range(30):
            out.write(chunk)
        out.write(b'"last"]}\n')
    qrels = write_lines(tmp_path / "g.jsonl", [{"qid": "q1", "doc_id": ["d1"]}])
    probe = ("import resource, sys\nfrom prfeval.cli import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
             "print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    env = {**os.environ, "PRFEVAL_NATIVE": os.environ.get("PRFEVAL_NATIVE", "")}
    done = subprocess.run([sys.executable, "-c", probe, "evaluate", qrels, str(run), "-m",
                           "P@1"], capture_output=True, text=True, timeout=300, env=env)
    code, peak_kib = done.stdout.split()
    assert code == "2", done.stderr
    assert "more than the 10,000,000 results" in done.stderr
    assert int(peak_kib) < 1.25 * 2**20, peak_kib  # under 1.25 GiB
