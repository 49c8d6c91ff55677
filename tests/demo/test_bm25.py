"""Tests for prfeval._demo.bm25: seed 000's BM25 ranking of Cranfield, reproduced exactly."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from prfeval._core.errors import InputFormatError
from prfeval._demo.bm25 import (
    LUCENE_ENGLISH_STOPWORDS,
    Bm25Index,
    count_scored,
    rank_bm25,
    run_scores,
    tie_order,
    tokenize,
    write_run,
)
from prfeval._demo.datasets import Document, load_cranfield, write_qrels


@pytest.fixture(scope="module")
def cran():
    return load_cranfield()


@pytest.fixture(scope="module")
def ranking(cran):
    pytest.importorskip("bm25s")
    pytest.importorskip("Stemmer")
    return rank_bm25(cran.documents, cran.queries)


@pytest.fixture(scope="module")
def query2(cran, ranking):
    """Query 2's ranking as doc ids, scores and a relevant/not flag per rank."""
    relevant = {doc_id for doc_id, grade in cran.qrels["2"].items() if grade >= 1}
    doc_ids = [doc_id for doc_id, _ in ranking["2"]]
    scores = np.array([score for _, score in ranking["2"]])
    hits = np.array([doc_id in relevant for doc_id in doc_ids])
    return doc_ids, scores, hits, relevant


def test_stop_list_is_lucenes_and_bm25s():
    bm25s_stopwords = pytest.importorskip("bm25s.stopwords")
    assert len(LUCENE_ENGLISH_STOPWORDS) == 33
    assert set(bm25s_stopwords.STOPWORDS_EN) == LUCENE_ENGLISH_STOPWORDS
    assert "what" not in LUCENE_ENGLISH_STOPWORDS


def test_tokenize():
    pytest.importorskip("Stemmer")
    text = "Mach 2.5 at x/c=0.3, the BOUNDARY-layers WHAT generously flying"
    # digits and one-letter tokens kept; Porter, not Porter2 ("generous", "fli")
    assert tokenize(text) == [
        "mach",
        "2",
        "5",
        "x",
        "c",
        "0",
        "3",
        "boundari",
        "layer",
        "what",
        "gener",
        "fly",
    ]
    assert tokenize("the of and") == []


def test_query2_table(query2):
    """Seed 000, "The trade-off": k, relevant retrieved, P, R, F1 for Cranfield query 2."""
    _, _, hits, relevant = query2
    assert len(relevant) == len(hits[hits]) == 24
    expected = {
        9: (5, 0.556, 0.208, 0.303),
        10: (5, 0.500, 0.208, 0.294),
        50: (8, 0.160, 0.333, 0.216),
        200: (12, 0.060, 0.500, 0.107),
        1400: (24, 0.017, 1.000, 0.034),
    }
    for k, (tp, p, r, f1) in expected.items():
        found = int(hits[:k].sum())
        precision, recall = found / k, found / 24
        assert found == tp
        assert round(precision, 3) == p
        assert round(recall, 3) == r
        assert round(2 * precision * recall / (precision + recall), 3) == f1


def test_query2_trade_off(query2):
    _, _, hits, _ = query2
    assert hits[:3].all()  # the first three results are relevant
    found = np.cumsum(hits)
    k = np.arange(1, len(hits) + 1)
    f1 = 2 * found / (k + 24)  # F1 from counts: 2TP / (2TP + FP + FN) = 2TP / (k + R)
    assert int(np.argmax(f1)) + 1 == 9
    assert round(float(f1.max()), 3) == 0.303
    half = int(np.argmax(found >= 12)) + 1  # recall first reaches 0.5
    assert half == 173
    assert round(12 / half, 3) == 0.069


def test_query2_scored_and_unscored(query2, ranking):
    doc_ids, scores, hits, _ = query2
    assert count_scored(ranking)["2"] == int((scores > 0).sum()) == 783
    # three relevant documents share no term with the query: score 0, after every scored one
    assert int((hits & (scores == 0)).sum()) == 3
    assert np.flatnonzero(hits)[-3:].min() >= 783
    assert doc_ids[:3] == ["12", "746", "51"]
    assert scores[0] == 12.505251


def test_rankings_are_complete_and_ordered(cran, ranking):
    all_ids = {d.doc_id for d in cran.documents}
    assert list(ranking) == [q.qid for q in cran.queries]
    for docs in ranking.values():
        assert len(docs) == 1400 and {doc_id for doc_id, _ in docs} == all_ids
        scores = [score for _, score in docs]
        ids = [int(doc_id) for doc_id, _ in docs]
        for i in range(1, len(docs)):
            assert scores[i] < scores[i - 1] or (
                scores[i] == scores[i - 1] and ids[i] > ids[i - 1]  # ties: numeric id order
            )
        assert min(scores) >= 0


@pytest.fixture(scope="module")
def run_path(ranking, tmp_path_factory):
    path = tmp_path_factory.mktemp("run") / "bm25.run"
    assert write_run(path, ranking) == 225 * 1400
    return path


def _read_run(path):
    lines = path.read_text().splitlines()
    run: dict[str, dict[str, float]] = {}
    rows = []
    for line in lines:
        qid, q0, doc_id, rank, score, tag = line.split(" ")
        assert (q0, tag) == ("Q0", "prfeval-bm25")
        run.setdefault(qid, {})[doc_id] = float(score)
        rows.append((qid, doc_id, int(rank), float(score)))
    return run, rows


def test_run_file_keeps_the_ranking_under_trec_eval_order(ranking, run_path):
    _, rows = _read_run(run_path)
    by_query: dict[str, list[tuple[str, float]]] = {}
    for qid, doc_id, _, score in rows:
        by_query.setdefault(qid, []).append((doc_id, score))
    for qid, docs in ranking.items():
        written = by_query[qid]
        assert [doc_id for doc_id, _ in written] == [doc_id for doc_id, _ in docs]
        # trec_eval's order: score descending, then doc id descending (strcmp)
        trec_order = sorted(written, key=lambda x: x[0], reverse=True)
        trec_order.sort(key=lambda x: x[1], reverse=True)
        assert trec_order == written
        assert all(a[1] > b[1] for a, b in itertools.pairwise(written))
        # a unique BM25 score is written unchanged
        counts: dict[float, int] = {}
        for _, score in docs:
            counts[score] = counts.get(score, 0) + 1
        for (_, score), (_, out) in zip(docs, written, strict=True):
            if counts[score] == 1:
                assert out == score
    assert [r[2] for r in rows[:3]] == [1, 2, 3]


def test_all_queries_with_pytrec_eval(cran, run_path, tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    write_qrels(tmp_path / "cran.qrels", cran.qrels)
    run, _ = _read_run(run_path)
    qrels: dict[str, dict[str, int]] = {}
    for line in (tmp_path / "cran.qrels").read_text().splitlines():
        qid, _, doc_id, grade = line.split()
        qrels.setdefault(qid, {})[doc_id] = int(grade)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"P_10", "recall_100"}, relevance_level=1)
    results = evaluator.evaluate(run)
    assert len(results) == 225
    p10 = sum(r["P_10"] for r in results.values()) / 225
    recall100 = sum(r["recall_100"] for r in results.values()) / 225
    assert round(p10, 4) == 0.2342
    assert round(recall100, 4) == 0.7373


def test_run_scores():
    assert run_scores([3.0, 2.0, 2.0, 1.0, 0.0, 0.0]).tolist() == [3.0, 2.0, 1.5, 1.0, 0.0, -1.0]
    assert run_scores([0.0, 0.0, 0.0, 0.0]).tolist() == [0.0, -1.0, -2.0, -3.0]
    assert run_scores([5.0, 4.0, 4.0, 4.0]).tolist() == [5.0, 4.0, 3.0, 2.0]
    assert run_scores([6.5, 6.5, 1.0]).tolist() == [6.5, 3.75, 1.0]
    assert run_scores([]).tolist() == []
    # adjacent float32 values stay separable among many ties
    a = np.float32(6.0889845)
    b = np.nextafter(a, np.float32(0))
    out = run_scores([float(a)] * 1400 + [float(b)] * 1400)
    assert np.all(np.diff(out) < 0) and out[1400] == float(b)


@pytest.mark.parametrize("scores", [[1.0, 2.0], [math.nan], [math.inf, 1.0]])
def test_run_scores_rejects(scores):
    with pytest.raises(ValueError):
        run_scores(scores)


def test_write_run_rejects(tmp_path):
    with pytest.raises(InputFormatError, match="ranking of query 7: scores must be"):
        write_run(tmp_path / "r", {"7": [("a", 1.0), ("b", 2.0)]})
    with pytest.raises(ValueError, match="tag"):
        write_run(tmp_path / "r", {"7": [("a", 1.0)]}, tag="my run")
    with pytest.raises(ValueError, match="doc id"):
        write_run(tmp_path / "r", {"7": [("a b", 1.0)]})


def testtie_order():
    assert tie_order(["10", "9", "2"]).tolist() == [2, 1, 0]  # numeric: 2 < 9 < 10
    assert tie_order(["10", "9", "b"]).tolist() == [0, 1, 2]  # code point: "10" < "9" < "b"


def test_index_small_collection():
    pytest.importorskip("bm25s")
    pytest.importorskip("Stemmer")
    docs = [
        Document("10", title="wing", text="wing flutter"),
        Document("9", title="wing", text="wing flutter"),
        Document("2", title="shock", text="shock waves"),
        Document("1", title="", text=""),
    ]
    index = Bm25Index(docs)
    ranked = index.rank("wing flutter")
    # equal scores: numeric id order; unscored documents last, in numeric id order
    assert [doc_id for doc_id, _ in ranked] == ["9", "10", "1", "2"]
    assert ranked[0][1] == ranked[1][1] > 0 and ranked[2][1] == ranked[3][1] == 0
    assert index.rank("the of")[0] == ("1", 0.0)  # nothing left after stop words
    with pytest.raises(ValueError, match="unique"):
        Bm25Index([docs[0], docs[0]])
    with pytest.raises(ValueError, match="b must be"):
        Bm25Index(docs, b=1.5)
