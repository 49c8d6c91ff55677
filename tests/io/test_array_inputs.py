"""2-D arrays as a run (FAISS's ``I``, score matrices, tensors) against pytrec_eval and
scikit-learn's ``ndcg_score``, on seeded random data with padding, repeats within a row,
empty gold rows, graded gold and string ids; and their bad input."""

from __future__ import annotations

import numpy as np
import pytest

import prfeval
from prfeval._core.errors import InputFormatError, PrfevalError, UsageError

pytrec_eval = pytest.importorskip("pytrec_eval")

#: pytrec_eval's names and prfeval's, measure for measure.
MEASURES = {
    "P_5": "P@5",
    "P_10": "P@10",
    "recall_10": "R@10",
    "map": "AP",
    "ndcg": "nDCG",
    "ndcg_cut_10": "nDCG@10",
    "recip_rank": "RR",
    "num_rel_ret": "NumRelRet",
    "bpref": "bpref",
}
TREC_MEASURES = {"P", "recall", "map", "ndcg", "ndcg_cut", "recip_rank", "num_rel_ret", "bpref"}


def random_case(seed: int, n: int = 80, k: int = 25, n_docs: int = 60):
    """A FAISS-like id array (-1 padding at the end and in the middle, repeats within rows,
    a row of padding only) and graded gold per row (some rows empty)."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, n_docs, size=(n, k))
    pad = rng.random((n, k)) < 0.15
    ids[pad] = -1
    ids[3] = -1  # retrieved nothing
    ids[:, -3:] = np.where(rng.random((n, 3)) < 0.5, -1, ids[:, -3:])
    gold: list[dict[int, int]] = []
    for i in range(n):
        if i % 11 == 5:
            gold.append({})  # no judgments: left out, as pytrec_eval leaves {qid: {}} out
            continue
        docs = rng.choice(n_docs, size=int(rng.integers(1, 12)), replace=False)
        # Grades 0 to 3; some of the judged documents are retrieved, some not.
        grades = rng.integers(0, 4, docs.size)
        gold.append({int(d): int(g) for d, g in zip(docs, grades, strict=True)})
    return ids, gold


def oracle_run(ids: np.ndarray, qname, dname) -> dict[str, dict[str, float]]:
    """The ranked lists as pytrec_eval takes them: padding skipped (the next id moves up),
    a repeat of a doc in a row an unjudged place of its own (it counts once), scores
    descending in list order."""
    run: dict[str, dict[str, float]] = {}
    for i, row in enumerate(ids.tolist()):
        ranked = [d for d in row if d >= 0]
        seen: set[int] = set()
        docs: dict[str, float] = {}
        for place, d in enumerate(ranked):
            name = dname(d) if d not in seen else f"repeat-{i}-{place}"
            seen.add(d)
            docs[name] = float(len(ranked) - place)
        run[qname(i)] = docs
    return run


def pytrec_values(qrels, run) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES)
    return evaluator.evaluate(run)


def check_equal(result, expected: dict[str, dict[str, float]]) -> None:
    assert set(result.query_ids) == set(expected)
    per_query = result.per_query
    for q, values in expected.items():
        for trec, ours in MEASURES.items():
            assert per_query[q][ours] == pytest.approx(values[trec], abs=1e-12), (q, trec)
    for trec, ours in MEASURES.items():
        per = [values[trec] for values in expected.values()]
        total = np.sum(per) if trec == "num_rel_ret" else np.mean(per)  # trec_eval sums it
        assert result.macro[ours] == pytest.approx(total, abs=1e-12), trec


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_faiss_ids_with_gold_per_row_equal_pytrec_eval(seed):
    ids, gold = random_case(seed)
    qrels = {str(i): {str(d): g for d, g in row.items()} for i, row in enumerate(gold) if row}
    expected = pytrec_values(qrels, oracle_run(ids, str, str))
    result = prfeval.evaluate(gold, ids, list(MEASURES.values()))
    check_equal(result, expected)
    empty_gold = tuple(str(i) for i, row in enumerate(gold) if not row)
    assert result.accounting.not_in_qrels == empty_gold
    # A row of padding only was evaluated, with every measure 0.
    assert result.per_query["3"]["nDCG"] == 0 or not gold[3]


def test_gold_as_dict_by_row_and_as_relevant_sets():
    ids, gold = random_case(7)
    binary = [{d for d, g in row.items() if g >= 1} for row in gold]
    qrels = {str(i): {str(d): 1 for d in row} for i, row in enumerate(binary) if row}
    expected = pytrec_values(qrels, oracle_run(ids, str, str))
    check_equal(prfeval.evaluate(binary, ids, list(MEASURES.values())), expected)
    by_row = {i: sorted(row) for i, row in enumerate(binary) if row}
    check_equal(prfeval.evaluate(by_row, ids, list(MEASURES.values())), expected)
    graded = {i: row for i, row in enumerate(gold)}
    graded_qrels = {str(i): {str(d): g for d, g in row.items()} for i, row in enumerate(gold)
                    if row}
    check_equal(prfeval.evaluate(graded, ids, list(MEASURES.values())),
                pytrec_values(graded_qrels, oracle_run(ids, str, str)))


@pytest.mark.parametrize("native", ["1", "0"])
def test_doc_ints_beyond_int32_equal_pytrec_eval(monkeypatch, native):
    """Doc ints past 2**31 (a large index's ids) are joined as int64, by either join, and
    give pytrec_eval's values as small ones do."""
    monkeypatch.setenv("PRFEVAL_NATIVE", native)
    ids, gold = random_case(5)
    base = 2**33
    big = np.where(ids >= 0, ids + base, -1)
    big_gold = [{d + base: g for d, g in row.items()} for row in gold]
    qrels = {str(i): {str(d): g for d, g in row.items()} for i, row in enumerate(big_gold)
             if row}
    expected = pytrec_values(qrels, oracle_run(big, str, str))
    check_equal(prfeval.evaluate(big_gold, big, list(MEASURES.values())), expected)


def test_the_join_writes_slots_and_doc_ints_as_int32_where_they_fit():
    """Where every slot and doc int fits int32, the block's per-cell codes are int32 and
    no per-cell "judged" flag is written (the grade says it): the memory a large array's
    evaluation touches. Past int32, int64."""
    from prfeval._core.options import EvalOptions
    from prfeval._io.arrays import array_block, array_run

    ids, gold = random_case(6)
    small = array_block(gold, array_run(ids), EvalOptions())
    assert small["slot"].dtype == small["doc"].dtype == np.int32
    assert small["found"] is None
    # The rows' cells in slot order, with each slot's bounds from the rows' counts.
    bounds = np.searchsorted(small["slot"], np.arange(len(small["query_ids"]) + 1))
    np.testing.assert_array_equal(small["slot_offsets"], bounds)
    big = np.where(ids >= 0, ids + 2**31, -1)
    shifted = [{d + 2**31: g for d, g in row.items()} for row in gold]
    wide = array_block(shifted, array_run(big), EvalOptions())
    assert wide["slot"].dtype == wide["doc"].dtype == np.int64
    np.testing.assert_array_equal(wide["doc"] - 2**31, small["doc"])
    for field in ("slot", "grade", "repeated"):
        np.testing.assert_array_equal(wide[field], small[field], field)


def test_string_ids_join_string_qrels():
    """query_ids= and doc_ids= name rows and doc ints: BEIR-style string judgments join,
    judged queries that are not rows and rows without judgments are left out and counted."""
    ids, gold = random_case(3, n_docs=60)
    doc_ids = [f"doc-{j:03d}" for j in range(60)]
    query_ids = [f"q{i}" for i in range(len(ids))]
    qrels = {query_ids[i]: {doc_ids[d]: g for d, g in row.items()}
             for i, row in enumerate(gold) if row}
    qrels["q-not-a-row"] = {"doc-001": 1, "elsewhere": 2}
    qrels[query_ids[0]]["not-in-the-corpus"] = 3  # judged, never retrievable
    expected = pytrec_values(qrels, oracle_run(ids, query_ids.__getitem__, doc_ids.__getitem__))
    result = prfeval.evaluate(qrels, ids, list(MEASURES.values()), query_ids=query_ids,
                              doc_ids=doc_ids)
    check_equal(result, expected)
    assert result.accounting.missing_from_run == ("q-not-a-row",)
    assert set(result.accounting.not_in_qrels) == {query_ids[i] for i, r in enumerate(gold)
                                                   if not r}


def test_complete_evaluates_judged_queries_that_are_not_rows():
    ids = np.array([[0, 1], [2, -1]])
    qrels = {"a": {"d0": 1}, "b": {"d2": 1}, "c": {"d5": 1}}
    result = prfeval.evaluate(qrels, ids, "P@1 R@2", query_ids=["a", "b"],
                              doc_ids=["d0", "d1", "d2"], complete=True)
    assert result.query_ids == ("a", "b", "c")
    assert result.macro["P@1"] == pytest.approx(2 / 3)  # hand count: 1, 1, 0


def test_score_matrix_equals_sklearn_ndcg_score():
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(11)
    y_true = rng.integers(0, 4, size=(40, 30))
    y_true[5] = 0  # every cell is a judgment: an all-zero row scores 0, counted
    y_score = rng.permuted(np.tile(np.arange(30, dtype=np.float64), (40, 1)), axis=1)  # no ties
    result = prfeval.evaluate(y_true, y_score, "nDCG nDCG@5 nDCG@10")
    assert result.macro["nDCG"] == pytest.approx(ndcg_score(y_true, y_score), abs=1e-12)
    assert result.macro["nDCG@5"] == pytest.approx(ndcg_score(y_true, y_score, k=5), abs=1e-12)
    assert result.macro["nDCG@10"] == pytest.approx(ndcg_score(y_true, y_score, k=10),
                                                    abs=1e-12)
    assert result.accounting.evaluated == 40
    # Float grades that are integers read as grades; a float score matrix with gold per row.
    assert prfeval.evaluate(y_true.astype(float), y_score, "nDCG").macro["nDCG"] == (
        result.macro["nDCG"])


def test_score_matrix_with_gold_per_row_equals_pytrec_eval():
    rng = np.random.default_rng(5)
    scores = rng.random((30, 20))
    gold = [{int(d): int(rng.integers(1, 3)) for d in rng.choice(20, 3, replace=False)}
            for _ in range(30)]
    qrels = {str(i): {str(d): g for d, g in row.items()} for i, row in enumerate(gold)}
    run = {str(i): {str(j): float(s) for j, s in enumerate(row)} for i, row in
           enumerate(scores)}
    check_equal(prfeval.evaluate(gold, scores, list(MEASURES.values())),
                pytrec_values(qrels, run))


def test_score_ties_follow_doc_id_descending_bytes():
    """Tied scores rank by doc id descending in bytes, as trec_eval: "9" before "10"."""
    scores = np.zeros((1, 11))
    result = prfeval.evaluate([[10]], scores, "RR P@1")
    # Hand count: "9", "8", ..., "2", then "10", "1", "0": "10" is ninth.
    assert result.macro["RR"] == pytest.approx(1 / 9)


class OnlyArray:
    """An object exposing only ``__array__`` (as a tensor library's array does)."""

    def __init__(self, values: np.ndarray) -> None:
        self._values = values

    def __array__(self, dtype=None, copy=None):
        return self._values


def test_array_protocols_read_as_numpy():
    ids, gold = random_case(4)
    expected = prfeval.evaluate(gold, ids, "AP nDCG").macro
    assert prfeval.evaluate(gold, OnlyArray(ids), "AP nDCG").macro == expected

    class OnlyDlpack:
        def __init__(self, values):
            self._values = values

        def __dlpack__(self, **kwargs):
            return self._values.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self._values.__dlpack_device__()

    assert prfeval.evaluate(gold, OnlyDlpack(ids), "AP nDCG").macro == expected


def test_numpy_and_compiled_joins_agree(monkeypatch):
    ids, gold = random_case(9, n=200, k=40)
    compiled = prfeval.evaluate(gold, ids, list(MEASURES.values()))
    monkeypatch.setenv("PRFEVAL_NATIVE", "0")
    plain = prfeval.evaluate(gold, ids, list(MEASURES.values()))
    assert compiled.macro == plain.macro
    np.testing.assert_array_equal(compiled.values, plain.values)


@pytest.mark.parametrize(
    ("gold", "run", "kwargs", "error", "words"),
    [
        ([[1]], np.arange(4), {}, InputFormatError, "2-D array"),
        ([[1]], np.zeros((1, 2, 2), dtype=int), {}, InputFormatError, "3-D"),
        ([[1], [2]], np.array([[1, 2]]), {}, InputFormatError, "2 entries for the run's 1 rows"),
        ([[1]], np.array([[0, 5]]), {"doc_ids": ["a", "b"]}, InputFormatError,
         "row 0, column 1: doc int 5 is outside doc_ids"),
        ([[1]], np.array([[0.5, np.nan]]), {}, InputFormatError, "row 0, column 1"),
        (np.array([[1.5, 0]]), np.array([[0.5, 0.2]]), {}, InputFormatError, "not an integer"),
        ([[1]], np.array([[True, False]]), {}, InputFormatError, "dtype bool"),
        ([[1]], np.array([[1, 2]]), {"query_ids": ["a", "b"]}, UsageError, "2 ids for the"),
        ([[1]], np.array([[1, 2]]), {"doc_ids": ["a", "a", "b"]}, UsageError, "given twice"),
        ([["x"]], np.array([[1, 2]]), {}, InputFormatError, "expected doc ints"),
        ({7: [1]}, np.array([[1, 2]]), {}, InputFormatError, "row 7 is not a row"),
        ([[1, 1]], np.array([[1, 2]]), {}, InputFormatError, "judged twice"),
        ({"a": {"b": 1}}, {"a": {"b": 1.0}}, {"query_ids": ["a"]}, UsageError, "run array"),
        ([[1]], np.array([[2**61, 1]]), {}, UsageError, "number the documents 0, 1"),
    ],
)
def test_bad_input_is_a_clear_error(gold, run, kwargs, error, words):
    with pytest.raises(error, match=words) as caught:
        prfeval.evaluate(gold, run, "P@1", **kwargs)
    assert isinstance(caught.value, PrfevalError)


def test_tables_of_a_run_array_equal_pytrec_eval():
    """The same input as tables (for the readers of document ids: curves, explain)."""
    from prfeval._core.options import EvalOptions
    from prfeval._measures import parse_measures
    from prfeval._retrieval.kernel import measure_queries
    from prfeval._retrieval.pipeline import align

    ids, gold = random_case(6)
    qrels = {str(i): {str(d): g for d, g in row.items()} for i, row in enumerate(gold) if row}
    expected = pytrec_values(qrels, oracle_run(ids, str, str))
    ranking = align(gold, ids, EvalOptions.build())
    assert ranking.doc_vocab is not None  # document ids, as curves and explain read them
    measures = parse_measures(list(MEASURES.values()))
    measured = measure_queries(ranking, measures, level=1, collection_size=None)
    values = dict(zip(map(str, measured.query_ids), measured.values.T.tolist(), strict=True))
    assert set(values) == set(expected)
    for q, row in values.items():
        for (trec, _), value in zip(MEASURES.items(), row, strict=True):
            assert value == pytest.approx(expected[q][trec], abs=1e-12), (q, trec)


def test_query_ids_name_the_rows_of_gold_per_row():
    ids = np.array([[0, 1, -1], [2, 2, 1]])
    result = prfeval.evaluate([[1], {2: 3}], ids, "P@2 RR", query_ids=["b", "a"])
    assert result.query_ids == ("a", "b")
    # Hand count: "a" ranks 2 (relevant), 2 (a repeat), 1: P@2 = 1/2, RR = 1;
    # "b" ranks 0, 1 (relevant): P@2 = 1/2, RR = 1/2.
    assert result.per_query["a"] == {"P@2": 0.5, "RR": 1.0}
    assert result.per_query["b"] == {"P@2": 0.5, "RR": 0.5}
