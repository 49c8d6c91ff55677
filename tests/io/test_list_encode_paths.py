"""A run read from lists is encoded by the compiled pass (``prf_encode_lists``) or by the
table encoder (``PRFEVAL_NATIVE=0``): the same block, field by field, and pytrec_eval's
values either way, on seeded data with repeats within a row, empty gold rows, graded gold,
a query on two rows, and ids short enough for integer keys or not."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

import prfeval
from prfeval._core.ranking import UNJUDGED
from prfeval._io import native_lib
from prfeval._io.load import load_qrels, load_run
from prfeval._io.native_lists import native_encode_lists
from prfeval._retrieval import encode

pytrec_eval = pytest.importorskip("pytrec_eval")

needs_library = pytest.mark.skipif(
    native_lib.library_error() is not None, reason="the compiled pass is not built"
)

MEASURES = {"P@5": "P_5", "ndcg_cut_10": "ndcg_cut_10", "map": "map", "recall@10": "recall_10"}


def _data(
    seed: int, long_ids: bool, ints: bool = False, split: bool = True
) -> tuple[pa.Table, pa.Table]:
    """A run (a row a query, its docs a list with scores, some repeated in the row, one row
    empty, and with ``split`` one query on two rows apart) and graded gold (some rows
    empty)."""
    rng = np.random.default_rng(seed)
    n_q, pool = 40, 60

    def doc(i: int) -> object:
        if ints:
            return int(i)
        return f"passage-{i:04d}-of-the-corpus" if long_ids else f"p{i}"

    queries, lists, scores = [], [], []
    for q in range(n_q):
        k = int(rng.integers(0, 15)) if q != 3 else 0
        ids = [doc(int(i)) for i in rng.integers(0, pool, size=k)]
        queries.append(f"q{q}")
        lists.append(ids)
        scores.append([float(s) for s in np.round(rng.random(k) * 10, 1)])
    if split:
        queries.append("q5")  # a second row of query q5
        lists.append([doc(pool + 1), doc(pool + 2)])
        scores.append([0.5, 0.25])
    run = pa.table({"qid": queries, "doc_id": lists, "scores": scores})
    gold_q, gold_docs = [], []
    for q in range(n_q + 5):  # q40..q44: judged, not in the run
        k = 0 if q % 7 == 0 else int(rng.integers(1, 8))
        picked = list(dict.fromkeys(int(i) for i in rng.integers(0, pool, size=k)))
        gold_q.append(f"q{q}")
        gold_docs.append([{"id": doc(i), "grade": int(rng.integers(0, 4))} for i in picked])
    gold = pa.table({"qid": gold_q, "doc_id": gold_docs})
    return run, gold


def _blocks(run: pa.Table, gold: pa.Table, monkeypatch: pytest.MonkeyPatch,
            **options: object) -> list[object]:
    blocks = []
    for native in ("1", "0"):
        monkeypatch.setenv("PRFEVAL_NATIVE", native)
        qrels = load_qrels(gold)
        columns = {"score": "scores"} if "scores" in run.column_names else None
        listed = load_run(run, run_columns=columns)
        blocks.append(encode.encode_tables(qrels, listed, **options))
    return blocks


def _same(compiled: object, fallback: object) -> None:
    for name in ("slot", "doc", "repeated", "judged_offsets", "judged_grades", "judged_docs",
                 "repeated_judgments"):
        np.testing.assert_array_equal(getattr(compiled, name), getattr(fallback, name), name)
    # Query codes are labels (a query with only empty rows is numbered where its row is, or
    # after the judgments'): the same rows share one, code for code.
    pairs = np.unique(np.stack([compiled.query_code, fallback.query_code]), axis=1)
    assert pairs.shape[1] == np.unique(compiled.query_code).size
    assert pairs.shape[1] == np.unique(fallback.query_code).size
    grade = np.where(fallback.found, fallback.grade, UNJUDGED)
    np.testing.assert_array_equal(compiled.grade, grade)
    assert compiled.found is None
    assert list(compiled.query_ids) == list(fallback.query_ids)
    assert compiled.doc_vocab.to_pylist() == fallback.doc_vocab.to_pylist()
    assert compiled.n_docs == fallback.n_docs
    for name in ("missing_from_run", "not_in_qrels", "unevaluated_rows",
                 "repeated_judgments_total"):
        assert getattr(compiled, name) == getattr(fallback, name), name
    if fallback.present is None:
        assert compiled.present is None
    else:
        np.testing.assert_array_equal(compiled.present, fallback.present)


@needs_library
@pytest.mark.parametrize("long_ids", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("complete", [False, True])
def test_compiled_and_table_encoders_give_the_same_block(
    seed: int, long_ids: bool, complete: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, gold = _data(seed, long_ids)
    compiled, fallback = _blocks(run, gold, monkeypatch, complete=complete)
    _same(compiled, fallback)
    assert compiled.repeated.any()  # the data holds repeats within a row


@needs_library
def test_integer_ids_and_a_query_set(monkeypatch: pytest.MonkeyPatch) -> None:
    run, gold = _data(7, False, ints=True)
    compiled, fallback = _blocks(run, gold, monkeypatch)
    _same(compiled, fallback)
    monkeypatch.setenv("PRFEVAL_NATIVE", "1")
    chosen = prfeval.evaluate(gold, run, ["map"], run_columns={"score": "scores"},
                              queries=["q1", "q2", "q5"])
    monkeypatch.setenv("PRFEVAL_NATIVE", "0")
    plain = prfeval.evaluate(gold, run, ["map"], run_columns={"score": "scores"},
                             queries=["q1", "q2", "q5"])
    assert chosen.per_query == plain.per_query


@needs_library
@pytest.mark.parametrize("policy", ["max", "last"])
def test_repeated_judgments_are_kept_once_by_the_policy(
    policy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = pa.table({"qid": ["a", "b"], "doc_id": [["x", "y", "x"], ["y"]]})
    gold = pa.table({"qid": ["a", "a", "a", "b"], "doc_id": ["x", "x", "y", "y"],
                     "grade": [2, 1, 1, 3]})
    compiled, fallback = _blocks(run, gold, monkeypatch, qrels_duplicates=policy)
    _same(compiled, fallback)
    assert compiled.repeated_judgments_total == 1


@needs_library
def test_refusals_are_the_table_encoders(monkeypatch: pytest.MonkeyPatch) -> None:
    """A judgment repeated under the default policy, and a query past the results limit:
    the compiled pass refuses, and the table encoder names them in its own words."""
    run = pa.table({"qid": ["a"], "doc_id": [["x", "y", "z"]]})
    gold = pa.table({"qid": ["a", "a"], "doc_id": ["x", "x"], "grade": [1, 2]})
    messages = []
    for native in ("1", "0"):
        monkeypatch.setenv("PRFEVAL_NATIVE", native)
        with pytest.raises(prfeval.InputFormatError) as caught:
            encode.encode_tables(load_qrels(gold), load_run(run))
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and "judgment repeated" in messages[0]
    monkeypatch.setenv("PRFEVAL_MAX_QUERY_RESULTS", "2")
    gold = pa.table({"qid": ["a"], "doc_id": ["x"], "grade": [1]})
    for native in ("1", "0"):
        monkeypatch.setenv("PRFEVAL_NATIVE", native)
        with pytest.raises(prfeval.InputFormatError, match="more than the 2"):
            encode.encode_tables(load_qrels(gold), load_run(run))


def _pytrec(run: pa.Table, gold: pa.Table) -> dict[str, float]:
    qrels: dict[str, dict[str, int]] = {}
    for q, items in zip(gold["qid"].to_pylist(), gold["doc_id"].to_pylist(), strict=True):
        qrels.setdefault(q, {}).update({str(i["id"]): i["grade"] for i in items})
    ranked: dict[str, dict[str, float]] = {}
    for q, ids, scores in zip(run["qid"].to_pylist(), run["doc_id"].to_pylist(),
                              run["scores"].to_pylist(), strict=True):
        row = ranked.setdefault(q, {})
        for i, s in zip(ids, scores, strict=True):
            row.setdefault(str(i), s)  # a repeated id counts once, at its first place
    judged = {q: d for q, d in qrels.items() if d}
    out = pytrec_eval.RelevanceEvaluator(judged, set(MEASURES.values())).evaluate(ranked)
    return {m: sum(v[t] for v in out.values()) / len(out) for m, t in MEASURES.items()}


@pytest.mark.parametrize("native", ["1", "0"])
@pytest.mark.parametrize("long_ids", [False, True])
@pytest.mark.parametrize("split", [False, True])
def test_values_are_pytrec_evals(
    native: str, long_ids: bool, split: bool, monkeypatch: pytest.MonkeyPatch,
    tmp_path: object,
) -> None:
    """Through files, as users give them: JSON Lines and Parquet; scores rounded to a
    tenth, so that ties are ranked by doc id (the compiled pass ranks a run whose queries'
    rows follow one another; one with a query's rows apart is ranked by the aligner)."""
    import pyarrow.parquet as pq

    run, gold = _data(11, long_ids, split=split)
    # Repeats within a row: pytrec_eval's dict keeps one, as prfeval's duplicates="first"
    # does (its first place); give a repeat its first score, which the dict keeps.
    fixed = []
    for ids, scores in zip(run["doc_id"].to_pylist(), run["scores"].to_pylist(), strict=True):
        first = {}
        fixed.append([first.setdefault(i, s) for i, s in zip(ids, scores, strict=True)])
    run = run.set_column(2, "scores", pa.array(fixed, pa.list_(pa.float64())))
    want = _pytrec(run, gold)
    monkeypatch.setenv("PRFEVAL_NATIVE", native)
    calls = []
    from prfeval._retrieval import encode_lists

    def counted(*args: object) -> object:
        found = native_encode_lists(*args)
        calls.append(found is not None and (found.rank_rows is None) == split)
        return found

    monkeypatch.setattr(encode_lists, "native_encode_lists", counted)
    for suffix in ("jsonl", "parquet"):
        paths = {}
        for name, table in (("run", run), ("gold", gold)):
            path = tmp_path / f"{name}.{suffix}"  # type: ignore[operator]
            if suffix == "parquet":
                pq.write_table(table, path)
            else:
                path.write_text("".join(json.dumps(r) + "\n" for r in table.to_pylist()))
            paths[name] = str(path)
        got = prfeval.evaluate(paths["gold"], paths["run"], list(MEASURES),
                               run_columns={"score": "scores"}, duplicates="first")
        for m in MEASURES:
            assert got.macro[m] == pytest.approx(want[m], abs=1e-12), (suffix, m)
    compiled = native == "1" and native_lib.library_error() is None
    # Each file's run went through the compiled encode, ranked there unless split.
    assert calls == [compiled, compiled]


@needs_library
@pytest.mark.parametrize("version", [9, 10])
def test_scores_tie_as_the_trec_eval_version_says(
    version: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1.0 + 1e-9 and 1.0 tie in single precision (trec_eval 9: the greater doc id, z,
    ranks first) and not in double (10: x, of the higher score, does)."""
    run = pa.table({"qid": ["a"], "doc_id": [["z", "x"]], "scores": [[1.0, 1.0 + 1e-9]]})
    gold = pa.table({"qid": ["a"], "doc_id": ["x"], "grade": [1]})
    want = 0.5 if version == 9 else 1.0
    for native in ("1", "0"):
        monkeypatch.setenv("PRFEVAL_NATIVE", native)
        got = prfeval.evaluate(gold, run, ["recip_rank"], run_columns={"score": "scores"},
                               trec_eval_version=version)
        assert got.per_query["a"]["recip_rank"] == want
