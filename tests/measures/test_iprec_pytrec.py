"""Interpolated precision and P/R at every k against pytrec_eval-terrier (trec_eval's code)."""

from __future__ import annotations

import numpy as np
import pytest

from prfeval._io import load_qrels, load_run
from prfeval._measures.interpolated import STANDARD_RECALL_LEVELS, iprec_at_recall
from prfeval._retrieval.curves import curve
from prfeval._retrieval.pipeline import align
from support.random_data import judged_runs

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 2, 3, 5, 10, 15, 20, 30, 50)


def random_collection(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Graded judgments (-1 to 3) and runs with many tied scores, some unjudged documents,
    a query with no relevant documents and a judged query missing from the run."""
    qrels, (run,) = judged_runs(
        seed, queries=[str(q) for q in range(60)], n_docs=120, doc="d{:03d}", judged=(1, 50),
        grades=(-1, 4), judged_only=lambda q: q % 13 == 7, retrieved=(1, 80),
        grades_of=lambda q: (-1, 1) if q % 11 == 5 else (-1, 4),  # 11th: nothing relevant
        # Few distinct scores: many ties, broken by doc id as trec_eval breaks them.
        scores=lambda rng, n: rng.integers(0, 6, n) / 2,
    )  # fmt: skip
    run["999"] = {"d000": 1.0}  # a run query without judgments
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", [1, 2])
def test_iprec_at_recall_matches_trec_eval(seed: int, level: int) -> None:
    qrels, run = random_collection(seed)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"iprec_at_recall"}, relevance_level=level
    ).evaluate(run)
    jr = align(load_qrels(qrels), load_run(run))
    got = iprec_at_recall(jr, STANDARD_RECALL_LEVELS, level=level)
    assert len(expected) == jr.n_queries
    for i, qid in enumerate(jr.query_ids):
        want = [expected[qid][f"iprec_at_recall_{r:.2f}"] for r in STANDARD_RECALL_LEVELS]
        np.testing.assert_allclose(got[i], want, rtol=0, atol=1e-9, err_msg=f"query {qid}")
    # The curves' 11 points and their macro mean (trec_eval's "all" line) agree too.
    c = curve(qrels, run, level=level)
    means = [
        np.mean([expected[q][f"iprec_at_recall_{r:.2f}"] for q in expected])
        for r in STANDARD_RECALL_LEVELS
    ]
    np.testing.assert_allclose(c.macro.iprec, means, rtol=0, atol=1e-12)


def test_iprec_at_other_levels_matches_trec_eval() -> None:
    # Levels where trec_eval's floor(r * n_rel + 0.9) differs from a plain ceiling.
    levels = (0.05, 0.21, 0.25, 0.33, 0.67, 0.75, 0.95)
    qrels, run = random_collection(3)
    name = "iprec_at_recall." + ",".join(f"{r:.2f}" for r in levels)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {name}).evaluate(run)
    jr = align(load_qrels(qrels), load_run(run))
    got = iprec_at_recall(jr, levels)
    for i, qid in enumerate(jr.query_ids):
        want = [expected[qid][f"iprec_at_recall_{r:.2f}"] for r in levels]
        np.testing.assert_allclose(got[i], want, rtol=0, atol=1e-9, err_msg=f"query {qid}")


@pytest.mark.parametrize("seed", [0, 4])
def test_every_k_matches_trec_eval_p_and_recall(seed: int) -> None:
    qrels, run = random_collection(seed)
    measures = {f"P.{','.join(map(str, CUTOFFS))}", f"recall.{','.join(map(str, CUTOFFS))}"}
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    c = curve(qrels, run, max_k=max(CUTOFFS))
    for qid in c.query_ids:
        q = c[qid]
        for k in CUTOFFS:
            if k > q.k.size:  # a query's own curve ends at its last document
                continue
            assert q.precision[k - 1] == pytest.approx(expected[qid][f"P_{k}"], abs=1e-12)
            assert q.recall[k - 1] == pytest.approx(expected[qid][f"recall_{k}"], abs=1e-12)
    # The averages run to max_k for every query: trec_eval's mean P_k and recall_k.
    for k in CUTOFFS:
        mean_p = np.mean([expected[q][f"P_{k}"] for q in expected])
        mean_r = np.mean([expected[q][f"recall_{k}"] for q in expected])
        assert c.macro.precision[k - 1] == pytest.approx(mean_p, abs=1e-12)
        assert c.macro.recall[k - 1] == pytest.approx(mean_r, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 3])
def test_registry_names_match_trec_eval(seed: int) -> None:
    """`-m iprec_at_recall` (and IPrec@r) through evaluate(): trec_eval's per-query values."""
    from prfeval import evaluate

    qrels, run = random_collection(seed)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    e = evaluate(qrels, run, "iprec_at_recall IPrec@0.3")
    for qid, values in e.per_query.items():
        for r in STANDARD_RECALL_LEVELS:
            label = f"iprec_at_recall_{r:.2f}"
            assert values[label] == pytest.approx(expected[qid][label], abs=1e-9), (qid, label)
        assert values["IPrec@0.3"] == pytest.approx(expected[qid]["iprec_at_recall_0.30"],
                                                    abs=1e-9)
    assert "IPrec@0.3" not in e.micro  # no pooled form
