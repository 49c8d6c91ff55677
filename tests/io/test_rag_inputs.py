"""Their data, as it comes: a RAG pipeline's output read as it is written.

List columns as rankings (JSON Lines, Parquet, pandas, polars, Arrow, a Hugging Face
``datasets.Dataset``), gold passages as lists, sets, lists of ``{id, grade}`` objects and
maps, column maps (``run_columns=``, ``--run-columns``), and the layouts BEIR and MS MARCO
ship (BEIR's qrels TSV and results JSON, MS MARCO's three-column run and four-column qrels).

Every expected number comes from pytrec_eval (trec_eval 9.0.8) on the same data written by
hand, below, as TREC files: a ranking in list order is written with scores n, n - 1, ..., 1
(pytrec_eval orders by score); a passage repeated in a list takes a place and counts once,
so its repeat is written as a document nobody judged (``dup``); a query whose list is empty
retrieved nothing, which a TREC file cannot say, so it is ``{}`` in pytrec_eval's run. The
TREC text is parsed here with ``str.split``, never with prfeval's reader.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prfeval import evaluate, load_qrels, load_run
from prfeval._core.errors import InputFormatError, PrfevalWarning, UsageError
from support.cli import run_cli

pytrec_eval = pytest.importorskip("pytrec_eval")

#: prfeval's label -> pytrec_eval's measure.
MEASURES = {"R@5": "recall_5", "P@5": "P_5", "nDCG@10": "ndcg_cut_10", "AP": "map",
            "RR": "recip_rank"}  # fmt: skip
ASKED = " ".join(MEASURES)

# --- The data, as a RAG pipeline writes it ------------------------------------------------

#: Each question's retrieved passages, best first: q2 retrieves p2 twice, q5 nothing.
CTXS = {
    "q1": ["p3", "p9", "p1", "p4", "p7", "p2"],
    "q2": ["p2", "p5", "p2", "p8"],
    "q3": ["p6", "p1", "p3"],
    "q4": ["p9", "p8", "p7", "p6", "p5", "p4", "p3", "p2", "p1", "p0", "p10"],
}
#: The gold passages of each question (every one relevant, grade 1).
GOLD = {"q1": ["p1", "p2", "p7"], "q2": ["p5", "p8"], "q3": ["p1"], "q4": ["p0", "p10", "p4"]}

#: CTXS by hand as a TREC run: scores n, n - 1, ...; q2's second p2 is an unjudged place.
RUN_TREC = """\
q1 Q0 p3 1 6 r
q1 Q0 p9 2 5 r
q1 Q0 p1 3 4 r
q1 Q0 p4 4 3 r
q1 Q0 p7 5 2 r
q1 Q0 p2 6 1 r
q2 Q0 p2 1 4 r
q2 Q0 p5 2 3 r
q2 Q0 dup 3 2 r
q2 Q0 p8 4 1 r
q3 Q0 p6 1 3 r
q3 Q0 p1 2 2 r
q3 Q0 p3 3 1 r
q4 Q0 p9 1 11 r
q4 Q0 p8 2 10 r
q4 Q0 p7 3 9 r
q4 Q0 p6 4 8 r
q4 Q0 p5 5 7 r
q4 Q0 p4 6 6 r
q4 Q0 p3 7 5 r
q4 Q0 p2 8 4 r
q4 Q0 p1 9 3 r
q4 Q0 p0 10 2 r
q4 Q0 p10 11 1 r
"""
#: GOLD by hand as TREC qrels.
QRELS_TREC = """\
q1 0 p1 1
q1 0 p2 1
q1 0 p7 1
q2 0 p5 1
q2 0 p8 1
q3 0 p1 1
q4 0 p0 1
q4 0 p10 1
q4 0 p4 1
"""

#: Graded gold: q1's p2 and q4's p10 at grade 2.
GRADED = {"q1": {"p1": 1, "p2": 2, "p7": 1}, "q2": {"p5": 1, "p8": 1}, "q3": {"p1": 1},
          "q4": {"p0": 1, "p10": 2, "p4": 1}}  # fmt: skip
GRADED_TREC = QRELS_TREC.replace("q1 0 p2 1", "q1 0 p2 2").replace("q4 0 p10 1", "q4 0 p10 2")


def trec_run(text: str) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
    return run


def trec_qrels(text: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        q, _, d, grade = line.split()
        qrels.setdefault(q, {})[d] = int(grade)
    return qrels


def pytrec(qrels_text: str, run: dict[str, dict[str, float]],
           measures: dict[str, str] = MEASURES) -> dict[str, dict[str, float]]:  # fmt: skip
    """pytrec_eval's values, by query and prfeval label."""
    values = pytrec_eval.RelevanceEvaluator(trec_qrels(qrels_text), set(measures.values()))
    return {
        q: {label: got[name] for label, name in measures.items()}
        for q, got in values.evaluate(run).items()
    }


def assert_agrees(result, qrels_text: str = QRELS_TREC, run_text: str = RUN_TREC,
                  empty: tuple[str, ...] = ()) -> None:  # fmt: skip
    run = trec_run(run_text)
    run.update({q: {} for q in empty})
    expected = pytrec(qrels_text, run)
    assert set(result.per_query) == set(expected)
    for q, values in expected.items():
        for label, value in values.items():
            assert result.per_query[q][label] == pytest.approx(value, abs=1e-12), (q, label)
    for label in MEASURES:  # the macro average over the same queries
        mean = sum(v[label] for v in expected.values()) / len(expected)
        assert result.macro[label] == pytest.approx(mean, abs=1e-12), label


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def rag_rows() -> list[dict]:
    return [{"question_id": q, "question": f"question {q}", "ctxs": ctxs}
            for q, ctxs in CTXS.items()]  # fmt: skip


MAPPED = {"query_id": "question_id", "doc_id": "ctxs"}


# --- List columns as rankings --------------------------------------------------------------


def test_a_list_column_jsonl_with_the_known_names(tmp_path) -> None:
    run = write_jsonl(tmp_path / "run.jsonl",
                      [{"query_id": q, "doc_id": ctxs} for q, ctxs in CTXS.items()])
    qrels = write_jsonl(tmp_path / "gold.jsonl",
                        [{"qid": q, "docid": docs} for q, docs in GOLD.items()])
    assert_agrees(evaluate(qrels, run, ASKED))


def test_the_column_map_in_python(tmp_path) -> None:
    run = write_jsonl(tmp_path / "run.jsonl", rag_rows())
    qrels = write_jsonl(tmp_path / "gold.jsonl", [{"question_id": q, "positive_ctxs": docs}
                                                   for q, docs in GOLD.items()])
    result = evaluate(qrels, run, ASKED, run_columns=MAPPED,
                      qrels_columns={"query_id": "question_id", "doc_id": "positive_ctxs"})
    assert_agrees(result)
    # load_run and load_qrels take the same maps, and give the flat rows in list order.
    table = load_run(run, run_columns=MAPPED)
    assert table.doc_ids.to_pylist()[:6] == CTXS["q1"]
    assert table.ranks[:6].tolist() == [1, 2, 3, 4, 5, 6]
    gold = load_qrels(qrels, qrels_columns="query_id=question_id,doc_id=positive_ctxs")
    assert sorted(zip(gold.query_ids.to_pylist(), gold.doc_ids.to_pylist(), strict=True)) == \
        sorted((q, d) for q, docs in GOLD.items() for d in docs)  # fmt: skip


def test_curve_compare_and_explain_take_the_maps(tmp_path) -> None:
    from prfeval import compare, curve, explain

    run = write_jsonl(tmp_path / "run.jsonl", rag_rows())
    qrels = write_jsonl(tmp_path / "gold.jsonl", [{"question_id": q, "positive_ctxs": docs}
                                                   for q, docs in GOLD.items()])
    maps = {"run_columns": MAPPED,
            "qrels_columns": {"query_id": "question_id", "doc_id": "positive_ctxs"}}
    expected = pytrec(QRELS_TREC, trec_run(RUN_TREC))
    curves = curve(qrels, run, **maps)
    for q in ("q1", "q4"):  # the rankings of 5 or more (a curve ends where its ranking does)
        values = expected[q]
        at = list(curves[q].k).index(5)
        assert curves[q].precision[at] == pytest.approx(values["P@5"], abs=1e-12), q
        assert curves[q].recall[at] == pytest.approx(values["R@5"], abs=1e-12), q
    c = compare(qrels, {"rag": run, "again": run}, ASKED, **maps)
    for name in ("rag", "again"):
        got = c.evaluations[name].per_query
        for q, values in expected.items():
            for label, value in values.items():
                assert got[q][label] == pytest.approx(value, abs=1e-12), (name, q, label)
    e = explain(qrels, run, "q2", ASKED, **maps)
    for label, value in expected["q2"].items():
        assert e.values[label] == pytest.approx(value, abs=1e-12), label


def test_the_column_map_on_the_command_line(tmp_path, capsys) -> None:
    run = write_jsonl(tmp_path / "run.jsonl", rag_rows())
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_TREC)
    code, out, err = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", ASKED, "-q",
                             "--format", "json", "--run-columns",
                             "query_id=question_id,doc_id=ctxs")  # fmt: skip
    assert code == 0, err
    got = json.loads(out)["per_query"]
    expected = pytrec(QRELS_TREC, trec_run(RUN_TREC))
    assert set(got) == set(expected)
    for q, values in expected.items():
        for label, value in values.items():
            assert got[q][label] == pytest.approx(value, abs=1e-12), (q, label)
    # Every command that reads a run takes the maps.
    for command in ("curve", "compare", "explain", "report"):
        code, out, err = run_cli(capsys, command, "--help")
        assert "--run-columns" in out and "--qrels-columns" in out, command
    code, out, err = run_cli(capsys, "explain", str(qrels), str(run), "--query", "q2",
                             "--run-columns", "query_id=question_id,doc_id=ctxs")  # fmt: skip
    assert code == 0, err
    # The Spark engine honours the maps too (tests/spark/test_spark_nested_inputs.py).


def test_a_repeated_passage_takes_a_place_and_counts_once(tmp_path) -> None:
    """As a flat run's repeat does: the same rule, reported the same way."""
    run = write_jsonl(tmp_path / "run.jsonl", rag_rows())
    result = evaluate(GOLD, run, ASKED, run_columns=MAPPED)
    assert_agrees(result)
    assert result.accounting.duplicates == 1
    with pytest.raises(InputFormatError, match=r"run\.jsonl:2: .*repeated"):
        evaluate(GOLD, run, ASKED, run_columns=MAPPED, duplicates="error")


def test_an_empty_list_is_a_query_that_retrieved_nothing(tmp_path) -> None:
    rows = [*rag_rows(), {"question_id": "q5", "ctxs": []}]
    run = write_jsonl(tmp_path / "run.jsonl", rows)
    gold = {**GOLD, "q5": ["p1"]}
    assert_agrees(evaluate(gold, run, ASKED, run_columns=MAPPED),
                  QRELS_TREC + "q5 0 p1 1\n", empty=("q5",))  # fmt: skip


def test_a_parallel_list_of_scores_ranks_by_score(tmp_path) -> None:
    """The scores order the passages, not the list; ties as trec_eval breaks them."""
    rows = [
        {"question_id": "q1", "ctxs": ["p3", "p1", "p2", "p7"], "scores": [0.2, 0.9, 0.5, 0.5]},
        {"question_id": "q2", "ctxs": ["p8", "p5"], "scores": [1.5, 2.5]},
    ]
    run = write_jsonl(tmp_path / "run.jsonl", rows)
    by_hand = """\
q1 Q0 p3 4 0.2 r
q1 Q0 p1 1 0.9 r
q1 Q0 p2 2 0.5 r
q1 Q0 p7 3 0.5 r
q2 Q0 p8 2 1.5 r
q2 Q0 p5 1 2.5 r
"""
    qrels = "".join(ln + "\n" for ln in QRELS_TREC.splitlines() if ln.startswith(("q1", "q2")))
    result = evaluate({q: GOLD[q] for q in ("q1", "q2")}, run, ASKED, run_columns=MAPPED)
    assert_agrees(result, qrels, by_hand)


def test_a_list_of_objects_with_scores_as_dpr_writes_them(tmp_path) -> None:
    """DPR's retrieval results: ``ctxs`` a list of {id, title, text, score}, the scores as
    text; and, in a ``.json`` file, an array of such records."""
    records = [
        {"question": "who?", "answers": ["x"],
         "ctxs": [{"id": "p3", "title": "t", "text": "...", "score": "80.5"},
                  {"id": "p1", "title": "t", "text": "...", "score": "81.25"},
                  {"id": "p2", "title": "t", "text": "...", "score": "12"}]},
        {"question": "what?", "answers": ["y"],
         "ctxs": [{"id": "p8", "title": "t", "text": "...", "score": "3"}]},
    ]  # fmt: skip
    by_hand = "q1 Q0 p3 2 80.5 r\nq1 Q0 p1 1 81.25 r\nq1 Q0 p2 3 12 r\nq2 Q0 p8 1 3 r\n"
    for i, record in enumerate(records, 1):
        record["question"] = f"q{i}"
    jsonl = write_jsonl(tmp_path / "dpr.jsonl", records)
    array = tmp_path / "dpr.json"
    array.write_text(json.dumps(records, indent=2))
    qrels = "".join(ln + "\n" for ln in QRELS_TREC.splitlines() if ln.startswith(("q1", "q2")))
    gold = {q: GOLD[q] for q in ("q1", "q2")}
    for path in (jsonl, array):
        result = evaluate(gold, path, ASKED, run_columns={"query_id": "question",
                                                          "doc_id": "ctxs"})
        assert_agrees(result, qrels, by_hand)


# --- Gold as lists, sets, objects and maps -------------------------------------------------


def test_python_lists_and_sets_are_qrels() -> None:
    as_lists = {q: list(docs) for q, docs in GOLD.items()}
    as_sets = {q: set(docs) for q, docs in GOLD.items()}
    for gold in (as_lists, as_sets):
        assert_agrees(evaluate(gold, CTXS, ASKED))
    table = load_qrels(as_sets)
    assert table.grades.tolist() == [1] * sum(map(len, GOLD.values()))
    with pytest.raises(InputFormatError, match="expected a dict of doc id -> grade, or a list"):
        load_qrels({"q1": "p1"})  # one string is not a list of its letters


def test_graded_gold_as_objects_and_maps(tmp_path) -> None:
    objects = write_jsonl(tmp_path / "objects.jsonl", [
        {"qid": q, "rels": [{"id": d, "grade": g} for d, g in docs.items()]}
        for q, docs in GRADED.items()
    ])  # fmt: skip
    maps = write_jsonl(tmp_path / "maps.jsonl",
                       [{"qid": q, "rels": docs} for q, docs in GRADED.items()])
    parallel = write_jsonl(tmp_path / "parallel.jsonl", [
        {"qid": q, "rels": list(docs), "grade": list(docs.values())}
        for q, docs in GRADED.items()
    ])  # fmt: skip
    for path in (objects, maps, parallel):
        result = evaluate(path, CTXS, ASKED, qrels_columns={"doc_id": "rels"})
        assert_agrees(result, GRADED_TREC)


def test_a_map_column_in_parquet_and_one_grade_a_row(tmp_path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    kind = pa.map_(pa.string(), pa.int64())
    table = pa.table({"qid": list(GRADED),
                      "rels": pa.array([list(d.items()) for d in GRADED.values()], kind)})
    pq.write_table(table, tmp_path / "gold.parquet")
    result = evaluate(tmp_path / "gold.parquet", CTXS, ASKED, qrels_columns="doc_id=rels")
    assert_agrees(result, GRADED_TREC)
    # A grade per row is every listed document's.
    rows = [{"qid": "q1", "docs": ["p1", "p7"], "grade": 1}, {"qid": "q1", "docs": ["p2"],
            "grade": 2}, {"qid": "q2", "docs": ["p5", "p8"], "grade": 1},
            {"qid": "q3", "docs": ["p1"], "grade": 1},
            {"qid": "q4", "docs": ["p0", "p4"], "grade": 1},
            {"qid": "q4", "docs": ["p10"], "grade": 2}]  # fmt: skip
    gold = write_jsonl(tmp_path / "gold.jsonl", rows)
    assert_agrees(evaluate(gold, CTXS, ASKED, qrels_columns="doc_id=docs"), GRADED_TREC)


def test_a_gold_file_without_a_relevance_column(tmp_path) -> None:
    flat = tmp_path / "gold.csv"
    flat.write_text("qid,docid\n" + "".join(f"{q},{d}\n" for q, ds in GOLD.items() for d in ds))
    assert_agrees(evaluate(flat, CTXS, ASKED))


# --- Tables in memory and Parquet ----------------------------------------------------------


def _columns() -> dict[str, list]:
    return {"question_id": list(CTXS), "ctxs": list(CTXS.values())}


def test_list_columns_in_pandas_polars_arrow_and_parquet(tmp_path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow = pa.table(_columns())
    pq.write_table(arrow, tmp_path / "run.parquet")
    gold_arrow = pa.table({"qid": list(GOLD), "docid": list(GOLD.values())})
    inputs = {"arrow": arrow, "parquet": tmp_path / "run.parquet",
              "large lists": arrow.cast(pa.schema([("question_id", pa.string()),
                                                   ("ctxs", pa.large_list(pa.string()))]))}
    pd = pytest.importorskip("pandas")
    inputs["pandas"] = pd.DataFrame(_columns())
    pl = pytest.importorskip("polars")
    inputs["polars"] = pl.DataFrame(_columns())
    inputs["polars lazy"] = pl.DataFrame(_columns()).lazy()
    for name, run in inputs.items():
        result = evaluate(gold_arrow, run, ASKED, run_columns=MAPPED)
        assert_agrees(result)
        assert result.accounting.duplicates == 1, name
    gold_frame = pd.DataFrame({"qid": list(GOLD), "docid": [set(d) for d in GOLD.values()]})
    assert_agrees(evaluate(gold_frame.assign(docid=gold_frame.docid.map(sorted)), CTXS, ASKED))


def test_a_hugging_face_dataset() -> None:
    datasets = pytest.importorskip(
        "datasets", reason="Hugging Face datasets is not installed (pip install datasets)"
    )
    run = datasets.Dataset.from_dict(_columns())
    gold = datasets.Dataset.from_dict({"qid": list(GOLD), "positive_ctxs": list(GOLD.values())})
    result = evaluate(gold, run, ASKED, run_columns=MAPPED,
                      qrels_columns={"doc_id": "positive_ctxs"})
    assert_agrees(result)
    # ds.data.table and ds.with_format("arrow") are read as the Arrow tables they hold.
    assert_agrees(evaluate(gold.data.table.rename_columns(["qid", "docid"]),
                           run.with_format("arrow")[:], ASKED, run_columns=MAPPED))
    # A selection of rows (an index over the shared table) is read as selected.
    picked = run.select([0, 2])
    result = evaluate(gold, picked, ASKED, run_columns=MAPPED, qrels_columns="doc_id=positive_ctxs")
    assert set(result.per_query) == {"q1", "q3"}
    split = datasets.DatasetDict({"test": run})
    with pytest.raises(InputFormatError, match=r"DatasetDict of splits \(test\): give one"):
        load_run(split)


# --- BEIR and MS MARCO, sniffed ----------------------------------------------------------


def test_beir_qrels_tsv_and_results_json(tmp_path) -> None:
    """BEIR's ``qrels/test.tsv`` (``query-id corpus-id score``, the score a grade) and its
    results ``{qid: {docid: score}}`` in a ``.json`` file, found by their header and name;
    from standard input, by their content."""
    qrels = tmp_path / "test.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{g}\n" for q, docs in GRADED.items() for d, g in docs.items()))
    results = {"q1": {"p3": 12.5, "p1": 11.0, "p2": 10.5, "p9": 3.25},
               "q2": {"p5": 0.5, "p8": 0.75, "p1": 0.1}}  # fmt: skip
    by_hand = """\
q1 Q0 p3 1 12.5 r
q1 Q0 p1 2 11.0 r
q1 Q0 p2 3 10.5 r
q1 Q0 p9 4 3.25 r
q2 Q0 p5 2 0.5 r
q2 Q0 p8 1 0.75 r
q2 Q0 p1 3 0.1 r
"""
    graded = "".join(ln + "\n" for ln in GRADED_TREC.splitlines() if ln.startswith(("q1", "q2")))
    one_line = tmp_path / "results.json"
    one_line.write_text(json.dumps(results))
    pretty = tmp_path / "results.pretty.json"
    pretty.write_text(json.dumps(results, indent=2))
    sub = {q: GRADED[q] for q in ("q1", "q2")}
    for run in (one_line, pretty):
        assert_agrees(evaluate(sub, run, ASKED), graded, by_hand)
    assert_agrees(evaluate(qrels, one_line, ASKED, queries=["q1", "q2"]), graded, by_hand)
    for run in (one_line, pretty):  # no name to go by: bytes, as standard input is read
        assert_agrees(evaluate(qrels.read_bytes(), run.read_bytes(), ASKED,
                               queries=["q1", "q2"]), graded, by_hand)  # fmt: skip


def test_ms_marco_run_and_qrels(tmp_path) -> None:
    """MS MARCO's ``run.tsv`` (``qid docid rank``, rank 1 first, no header) and
    ``qrels.dev.tsv`` (``qid 0 docid rel``), as they are named and without their names."""
    qrels = tmp_path / "qrels.dev.small.tsv"
    qrels.write_text(QRELS_TREC.replace(" ", "\t"))
    # The rank orders, whatever the line order: q1's lines shuffled.
    lines = [f"{q}\t{d}\t{i}\n" for q, ctxs in CTXS.items() for i, d in enumerate(ctxs, 1)
             if q != "q2"]  # fmt: skip
    lines[:6] = lines[:6][::-1]
    by_hand = "".join(ln + "\n" for ln in RUN_TREC.splitlines() if not ln.startswith("q2"))
    gold = "".join(ln + "\n" for ln in QRELS_TREC.splitlines() if not ln.startswith("q2"))
    run = tmp_path / "run.msmarco-passage.dev.small.tsv"
    run.write_text("".join(lines))
    other = tmp_path / "run.txt"
    other.write_text("".join(lines).replace("\t", " "))
    for r in (run, other, run.read_bytes()):
        result = evaluate(qrels, r, ASKED, queries=["q1", "q3", "q4"])
        assert_agrees(result, gold, by_hand)
    assert load_run(run).default_order == "rank"
    assert len(load_qrels(qrels)) == len(QRELS_TREC.splitlines())  # TREC's four columns


def test_a_large_ms_marco_run_is_read_whole_not_streamed(tmp_path) -> None:
    """Only TREC's six columns stream: the three-column run is read whole, without a
    warning that streaming failed (warnings are errors in these tests)."""
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{q}\t{d}\t{i}\n" for q, ctxs in CTXS.items() if q != "q2"
                           for i, d in enumerate(ctxs, 1)))  # fmt: skip
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_TREC)
    by_hand = "".join(ln + "\n" for ln in RUN_TREC.splitlines() if not ln.startswith("q2"))
    gold = "".join(ln + "\n" for ln in QRELS_TREC.splitlines() if not ln.startswith("q2"))
    assert_agrees(evaluate(qrels, run, ASKED, queries=["q1", "q3", "q4"], stream=None),
                  gold, by_hand)  # fmt: skip


# --- The demo's RAG-shaped files (the README's "Your data as it comes") --------------------


def test_the_demos_rag_files_are_its_run_and_judgments(cranfield_demo) -> None:
    """``rag.jsonl`` is ``run.trec``'s top 10 as lists, ``gold.jsonl`` the relevant
    documents of ``qrels.trec`` as lists: pytrec_eval on the TREC files, cut at 10."""
    out = cranfield_demo.out
    run: dict[str, dict[str, float]] = {}
    for line in (out / "run.trec").read_text().splitlines():
        q, _, d, rank, score, _ = line.split()
        if int(rank) <= 10:
            run.setdefault(q, {})[d] = float(score)
    qrels_text = (out / "qrels.trec").read_text()
    binary = "".join(f"{q} 0 {d} 1\n" for q, _, d, g in map(str.split, qrels_text.splitlines())
                     if int(g) >= 1)  # fmt: skip
    mapped = {"query_id": "question_id", "doc_id": "ctxs"}
    for qrels, expected_text in ((out / "qrels.trec", qrels_text), (out / "gold.jsonl", binary)):
        result = evaluate(qrels, out / "rag.jsonl", ASKED, run_columns=mapped)
        expected = pytrec(expected_text, run)
        assert len(result.per_query) == len(expected) == 225
        for q, values in expected.items():
            for label, value in values.items():
                assert result.per_query[q][label] == pytest.approx(value, abs=1e-12), (q, label)


def _top(run_trec: str, depth: int) -> dict[str, dict[str, float]]:
    """A TREC run's lines of rank <= depth, parsed with str.split."""
    run: dict[str, dict[str, float]] = {}
    for line in run_trec.splitlines():
        q, _, d, rank, score, _ = line.split()
        if int(rank) <= depth:
            run.setdefault(q, {})[d] = float(score)
    return run


def test_the_demos_beir_and_ms_marco_files_are_its_run_and_judgments(cranfield_demo) -> None:
    """BEIR's qrels TSV and results JSON and MS MARCO's run and qrels, as the demo writes
    them, rewritten here as TREC text: prfeval on the files gives pytrec_eval's values on the
    rewrite. The rewrites are ``run.trec``'s top 100 and ``qrels.trec``'s judgments (MS
    MARCO's: the relevant ones, at 1), so R@100 and RR@10, and on BEIR's graded judgments
    nDCG@10, are the whole run's, as the README says (RR@10: pytrec_eval's recip_rank of the
    run cut at 10; MS MARCO's binary judgments give another nDCG@10, which it does not ask)."""
    out = cranfield_demo.out
    qrels_text = (out / "qrels.trec").read_text()
    run_text = (out / "run.trec").read_text()
    # BEIR: a header, then query-id, corpus-id, score (the grade); results {qid: {docid: score}}.
    header, *rows = (out / "beir-qrels.tsv").read_text().splitlines()
    assert header.split("\t") == ["query-id", "corpus-id", "score"]
    beir_qrels = "".join(f"{q} 0 {d} {g}\n" for q, d, g in (r.split("\t") for r in rows))
    results = json.loads((out / "beir-results.json").read_text())
    beir_run = "".join(f"{q} Q0 {d} {i} {score!r} beir\n" for q, docs in results.items()
                       for i, (d, score) in enumerate(docs.items(), 1))  # fmt: skip
    # MS MARCO: qid, docid, rank (rank 1 first), written with scores 1000 - rank; the qrels
    # are TREC's four columns already, tab separated.
    fields = [r.split("\t") for r in (out / "msmarco-run.tsv").read_text().splitlines()]
    assert all(len(f) == 3 for f in fields)
    ms_run = "".join(f"{q} Q0 {d} {r} {1000 - int(r)} msmarco\n" for q, d, r in fields)
    judged = [r.split("\t") for r in (out / "msmarco-qrels.tsv").read_text().splitlines()]
    assert all(len(f) == 4 and f[1] == "0" for f in judged)
    ms_qrels = "".join(f"{q} 0 {d} {g}\n" for q, _, d, g in judged)

    # The same data as the demo's TREC files: every judgment, and run.trec's top 100 in order.
    assert trec_qrels(beir_qrels) == trec_qrels(qrels_text)
    assert trec_qrels(ms_qrels) == {
        q: {d: 1 for d, g in docs.items() if g >= 1} for q, docs in trec_qrels(qrels_text).items()
    }
    top100 = _top(run_text, 100)
    assert trec_run(beir_run) == top100
    ranked = {q: sorted(docs, key=docs.__getitem__, reverse=True) for q, docs in top100.items()}
    assert {q: [d for d, _ in sorted(docs.items(), key=lambda kv: -kv[1])]
            for q, docs in trec_run(ms_run).items()} == ranked  # fmt: skip

    measures = {**MEASURES, "R@100": "recall_100"}
    asked = " ".join(measures)
    layouts = {  # each file pair, its TREC rewrite, and what it shares with the whole run
        "BEIR": (out / "beir-qrels.tsv", out / "beir-results.json", beir_qrels, beir_run,
                 ("nDCG@10", "R@100", "RR@10")),
        "MS MARCO": (out / "msmarco-qrels.tsv", out / "msmarco-run.tsv", ms_qrels, ms_run,
                     ("R@100", "RR@10")),
    }  # fmt: skip
    whole = pytrec(qrels_text, trec_run(run_text), {"nDCG@10": "ndcg_cut_10",
                                                    "R@100": "recall_100"})  # fmt: skip
    cut10 = pytrec(qrels_text, _top(run_text, 10), {"RR@10": "recip_rank"})
    for name, (qrels, run, qrels_rewrite, run_rewrite, shared) in layouts.items():
        result = evaluate(qrels, run, f"{asked} RR@10")
        expected = pytrec(qrels_rewrite, trec_run(run_rewrite), measures)
        assert set(result.per_query) == set(expected) == set(whole), name
        assert len(expected) == 225
        for q, values in expected.items():
            got = result.per_query[q]
            for label, value in values.items():
                assert got[label] == pytest.approx(value, abs=1e-12), (name, q, label)
            for label in shared:
                value = {**whole[q], **cut10[q]}[label]
                assert got[label] == pytest.approx(value, abs=1e-12), (name, q, label)


# --- Bad input: one line naming the file, the line and the field -------------------------

BAD = {
    "a number where an id belongs": (
        ['{"question_id": "q1", "ctxs": ["p3", "p9"]}', '{"question_id": "q2", "ctxs": ["p2", 7]}'],
        r"run\.jsonl:2: 'ctxs': item 2 is a number, but item 1 on line 1 is a string",
    ),
    "numbers where ids belong": (
        ['{"question_id": "q1", "ctxs": [0.5, 0.25]}'],
        r"run\.jsonl:1: column 'ctxs' holds numbers with a fraction \(double\) where doc ids "
        r"belong",
    ),
    "a null inside the list": (
        ['{"question_id": "q1", "ctxs": ["p3"]}', '{"question_id": "q2", "ctxs": ["p2", null]}'],
        r"run\.jsonl:2: column 'ctxs': item 2 is null: every item needs a doc id",
    ),
    "a null list": (
        ['{"question_id": "q1", "ctxs": ["p3"]}', '{"question_id": "q2", "ctxs": null}'],
        r"run\.jsonl:2: column 'ctxs' is missing \(null\): expected a list of doc ids",
    ),
    "scores of another length": (
        ['{"question_id": "q1", "ctxs": ["p3"], "scores": [1.0]}', "",
         '{"question_id": "q2", "ctxs": ["p2", "p5", "p6", "p1"], "scores": [3, 2, 1]}'],
        r"run\.jsonl:3: 'scores' has 3 values but 'ctxs' has 4",
    ),
    "one score for a list": (
        ['{"question_id": "q1", "ctxs": ["p3", "p1"], "scores": 0.5}'],
        r"run\.jsonl:1: column 'scores' holds one value a row, but 'ctxs' holds lists",
    ),
    "a score that is no number": (
        ['{"question_id": "q1", "ctxs": ["p3", "p1"], "scores": [1, 2]}',
         '{"question_id": "q2", "ctxs": ["p2", "p1"], "scores": ["0.5", "high"]}'],
        r"run\.jsonl:2: ",
    ),
    "a mapped column that is not there": (
        ['{"question_id": "q1", "passages": ["p3"]}'],
        r"run\.jsonl: no column 'ctxs' \(given for doc_id by the column map\); the columns "
        r"are 'question_id', 'passages'",
    ),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_input_is_one_line_naming_the_file_line_and_field(
    case: str, tmp_path, capsys, monkeypatch
) -> None:
    lines, message = BAD[case]
    run = tmp_path / "run.jsonl"
    run.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputFormatError, match=message):
        evaluate(GOLD, run, ASKED, run_columns=MAPPED)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_TREC)
    monkeypatch.chdir(tmp_path)  # the command names the files as given: relative
    code, out, err = run_cli(
        capsys, "evaluate", "qrels.txt", "run.jsonl",
        "--run-columns", "query_id=question_id,doc_id=ctxs",
    )  # fmt: skip
    assert code == 2, err
    assert out == ""
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith("prfeval: ")
    assert re.search(message, line), line


def test_a_bad_gold_list_names_its_line(tmp_path) -> None:
    gold = write_jsonl(tmp_path / "gold.jsonl", [{"qid": "q1", "docid": ["p1"]},
                                                 {"qid": "q2", "docid": ["p5", None]}])
    with pytest.raises(InputFormatError, match=r"gold\.jsonl:2: column 'docid': item 2 is null"):
        evaluate(gold, CTXS, ASKED)
    graded = write_jsonl(tmp_path / "graded.jsonl", [{"qid": "q1", "docid": ["p1", "p2"],
                                                      "grade": [1]}])  # fmt: skip
    with pytest.raises(InputFormatError, match=r"graded\.jsonl:1: 'grade' has 1 value but "
                                               r"'docid' has 2"):
        evaluate(graded, CTXS, ASKED)
    grades = write_jsonl(tmp_path / "maps.jsonl", [{"qid": "q1", "rels": {"p1": 1}},
                                                   {"qid": "q2", "rels": {"p5": 1.5}}])
    with pytest.raises(InputFormatError, match=r"maps\.jsonl:2: column 'rels \(values\)' is "
                                               r"not an integer: 1\.5"):
        evaluate(grades, CTXS, ASKED, qrels_columns={"doc_id": "rels"})


def test_a_column_map_is_checked_before_anything_is_read(tmp_path, capsys) -> None:
    with pytest.raises(UsageError, match=r"run_columns: unknown key 'qid'; the keys are "
                                         r"query_id, doc_id, score, rank"):
        evaluate(GOLD, tmp_path / "missing.jsonl", ASKED, run_columns={"qid": "question_id"})
    with pytest.raises(UsageError, match=r"qrels_columns: unknown key 'score'; the keys are "
                                         r"query_id, doc_id, relevance"):
        load_qrels(GOLD, qrels_columns={"score": "x"})
    with pytest.raises(UsageError, match="column 'x' is given for query_id and doc_id"):
        evaluate(GOLD, CTXS, ASKED, run_columns={"query_id": "x", "doc_id": "x"})
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_TREC)
    for flag, value, message in (
        ("--run-columns", "qid=question_id", "prfeval: --run-columns: unknown key 'qid'; the "
         "keys are query_id, doc_id, score, rank\n"),
        ("--qrels-columns", "doc=x", "prfeval: --qrels-columns: unknown key 'doc'; the keys "
         "are query_id, doc_id, relevance\n"),
        ("--run-columns", "ctxs", "prfeval: --run-columns: expected KEY=NAME items separated "
         "by commas, got 'ctxs' (KEY is one of query_id, doc_id, score, rank)\n"),
    ):  # fmt: skip
        code, out, err = run_cli(capsys, "evaluate", str(qrels), str(qrels), flag, value)
        assert (code, out, err) == (2, "", message)


# --- Any nested JSON ends in a table or one located error -------------------------------

_ITEMS = ["p1", "p2", "", 3, None, 1.5, True, {"id": "p1", "score": "2"}, {"title": "x"}]
_VALUES = [None, "q1", "q2", "", 2, 0.5, [], ["p1", "p1"], ["p1", 2], [None], {"p1": 2},
           {"p1": "x"}, {}]  # fmt: skip


def test_any_nested_json_is_read_or_refused_with_its_line(tmp_path) -> None:
    """Lists, objects and maps of odd items in every role, as JSON Lines and as a JSON
    document: a result, or an InputFormatError naming the file, and the line where the
    problem is on one (never another exception)."""
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    keys = st.sampled_from(["qid", "question_id", "ctxs", "doc_id", "scores", "grade", "rank"])
    value = st.one_of(st.sampled_from(_VALUES), st.lists(st.sampled_from(_ITEMS), max_size=3))
    rows = st.lists(st.dictionaries(keys, value, max_size=5), max_size=4)
    whole_file = re.compile(r"^(no (query id|doc id|relevance|score|rank) column|no column |"
                            r"ambiguous: |"
                            r"no relevance column, and a rank|no judgments|empty file|"
                            r"expected a JSON object|query '|a query id is|mixes ranked|"
                            r"column '.*' (must be numeric|holds|maps doc ids))")  # fmt: skip

    @hypothesis.settings(max_examples=150, deadline=None, database=None, derandomize=True,
                         suppress_health_check=[hypothesis.HealthCheck.too_slow,
                                                hypothesis.HealthCheck.function_scoped_fixture])
    @hypothesis.given(rows, st.sampled_from(["run.jsonl", "run.json"]))
    def check(lines: list[dict], name: str) -> None:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in lines))
        for read in (load_qrels, load_run, lambda p: load_run(p, run_columns=MAPPED),
                     lambda p: evaluate(p, p, "P@5 NumRet")):  # fmt: skip
            try:
                read(path)
            except InputFormatError as exc:
                assert str(exc).startswith(str(path)), str(exc)
                located = exc.line_number is not None or exc.row_number is not None
                assert located or whole_file.match(exc.reason), str(exc)
            except (UsageError, PrfevalWarning):  # nothing to measure, an empty run
                pass

    check()
