"""Curves of P, R and F_beta at every cutoff, on rankings small enough to work out by hand."""

from __future__ import annotations

import json
from fractions import Fraction as Fr

import numpy as np
import pytest

from prfeval._core.errors import UsageError
from prfeval._io import load_qrels, load_run
from prfeval._measures.interpolated import STANDARD_RECALL_LEVELS, iprec_at_recall
from prfeval._retrieval.curve_result import Cutoff
from prfeval._retrieval.curves import curve, curves_from_ranking
from prfeval._retrieval.pipeline import align
from support.hand_made import run_dict_lines
from support.random_data import distinct, judged_runs, whole

# Query A: relevant a, b, c (d judged non-relevant); ranked a x b d y -> TP 1 1 2 2 2.
# Query B: relevant e (grade 2) and f (grade 1); ranked f f g e -> the repeated f takes a
# place but counts once, so TP 1 1 1 2.
QRELS = {"A": {"a": 1, "b": 1, "c": 1, "d": 0}, "B": {"e": 2, "f": 1, "g": 0}}
RUN = {"A": ["a", "x", "b", "d", "y"], "B": ["f", "f", "g", "e"]}


def f1(tp: int, n_rel: int, k: int) -> Fr:
    """F1 from counts, by hand: 2 TP / (2 TP + FN + FP) = 2 TP / (n_rel + k)."""
    return Fr(2 * tp, n_rel + k)


def close(values: object, expected: list[Fr] | list[float]) -> None:
    assert np.asarray(values, dtype=float) == pytest.approx([float(x) for x in expected], abs=1e-15)


@pytest.fixture(scope="module")
def ab() -> object:
    return curve(QRELS, RUN)


def test_every_k_of_a_query(ab: object) -> None:
    a = ab["A"]  # type: ignore[index]
    assert a.k.tolist() == [1, 2, 3, 4, 5]
    assert a.tp.tolist() == [1, 1, 2, 2, 2]
    close(a.precision, [Fr(1), Fr(1, 2), Fr(2, 3), Fr(1, 2), Fr(2, 5)])
    close(a.recall, [Fr(1, 3), Fr(1, 3), Fr(2, 3), Fr(2, 3), Fr(2, 3)])
    close(a.f, [f1(1, 3, 1), f1(1, 3, 2), f1(2, 3, 3), f1(2, 3, 4), f1(2, 3, 5)])
    assert a.best == Cutoff(3, 2 / 3, 2 / 3, 2 / 3)
    assert (a.n_relevant, a.n_retrieved, a.n_scored) == (3, 5, None)
    assert a.relevant_not_retrieved == ("c",)
    assert a.relevant_only_unscored is None  # a ranked list has no scores


def test_repeated_document_takes_a_place_and_counts_once(ab: object) -> None:
    b = ab["B"]  # type: ignore[index]
    assert b.tp.tolist() == [1, 1, 1, 2]
    close(b.precision, [Fr(1), Fr(1, 2), Fr(1, 3), Fr(1, 2)])
    close(b.recall, [Fr(1, 2), Fr(1, 2), Fr(1, 2), Fr(1)])
    close(b.f, [f1(1, 2, 1), f1(1, 2, 2), f1(1, 2, 3), f1(2, 2, 4)])
    # F1 = 2/3 at k = 1 and at k = 4: the tie goes to the smaller k.
    assert b.best.k == 1 and b.best.f == pytest.approx(2 / 3)


def test_first_repeat_policy_removes_the_repeat() -> None:
    b = curve(QRELS, RUN, duplicates="first")["B"]
    assert b.tp.tolist() == [1, 1, 2]
    close(b.precision, [Fr(1), Fr(1, 2), Fr(2, 3)])


def test_macro_and_micro_at_every_k(ab: object) -> None:
    macro, micro = ab.macro, ab.micro  # type: ignore[attr-defined]
    # Averages run to the longest ranking (5); B, with 4 documents, keeps TP = 2 at k = 5
    # and its precision is 2/5 there (P@k divides by k).
    assert macro.k.tolist() == [1, 2, 3, 4, 5] == micro.k.tolist()
    close(macro.precision, [Fr(1), Fr(1, 2), Fr(1, 2), Fr(1, 2), Fr(2, 5)])
    half = Fr(1, 2)
    close(
        macro.recall,
        [
            half * (Fr(1, 3) + half),
            half * (Fr(1, 3) + half),
            half * (Fr(2, 3) + half),
            half * (Fr(2, 3) + 1),
            half * (Fr(2, 3) + 1),
        ],
    )
    close(
        macro.f,
        [
            half * (f1(1, 3, 1) + f1(1, 2, 1)),
            half * (f1(1, 3, 2) + f1(1, 2, 2)),
            half * (f1(2, 3, 3) + f1(1, 2, 3)),
            half * (f1(2, 3, 4) + f1(2, 2, 4)),
            half * (f1(2, 3, 5) + f1(2, 2, 5)),
        ],
    )
    assert macro.best.k == 4 and macro.best.f == pytest.approx(13 / 21)
    # Micro: pooled TP 2 2 3 4 4 over 2k places and 5 relevant documents.
    tp = [2, 2, 3, 4, 4]
    close(micro.precision, [Fr(t, 2 * k) for k, t in enumerate(tp, 1)])
    close(micro.recall, [Fr(t, 5) for t in tp])
    close(micro.f, [Fr(2 * t, 5 + 2 * k) for k, t in enumerate(tp, 1)])
    assert micro.best.k == 4 and micro.best.f == pytest.approx(8 / 13)
    assert macro.n_queries == micro.n_queries == 2


def test_max_k_limits_the_cutoffs_not_the_ranking() -> None:
    short = curve(QRELS, RUN, max_k=2)
    assert short["A"].k.tolist() == [1, 2] and short.macro.k.tolist() == [1, 2]
    # The recall level and interpolated precision still read the whole ranking.
    assert short["A"].recall_reached[0.5] == Cutoff(3, 2 / 3, 2 / 3, float(f1(2, 3, 3)))
    assert short["A"].interpolated_precision.tolist() == [1.0, 1.0]

    long = curve(QRELS, RUN, max_k=7)
    assert long["A"].k.size == 5  # a query's curve ends at its last document
    assert long.macro.k.tolist() == list(range(1, 8))
    # k = 6 and 7: A keeps TP 2 of 3, B keeps TP 2 of 2.
    for k in (6, 7):
        assert long.macro.precision[k - 1] == pytest.approx(2 / k)
        assert long.macro.recall[k - 1] == pytest.approx((2 / 3 + 1) / 2)
        assert long.macro.f[k - 1] == pytest.approx(float(f1(2, 3, k) + f1(2, 2, k)) / 2)
        assert long.micro.f[k - 1] == pytest.approx(8 / (5 + 2 * k))


def test_beta_weights_recall() -> None:
    a = curve(QRELS, RUN, beta=2.0)["A"]
    # F2 = 5 TP / (5 TP + 4 FN + FP) = 5 TP / (4 n_rel + k).
    close(a.f, [Fr(5 * t, 12 + k) for k, t in zip([1, 2, 3, 4, 5], [1, 1, 2, 2, 2], strict=True)])
    assert a.best.k == 3
    assert curve(QRELS, RUN, beta=0.0)["A"].f.tolist() == a.precision.tolist()


def test_relevance_level() -> None:
    b = curve(QRELS, RUN, level=2)["B"]
    assert b.n_relevant == 1 and b.tp.tolist() == [0, 0, 0, 1]
    assert b.best == Cutoff(4, 0.25, 1.0, 0.4)


def test_interpolated_precision_at_every_k(ab: object) -> None:
    # The highest precision at any rank whose recall is at least this rank's recall.
    assert ab["A"].interpolated_precision.tolist() == [1.0, 1.0, 2 / 3, 2 / 3, 2 / 3]  # type: ignore[index]
    assert ab["B"].interpolated_precision.tolist() == [1.0, 1.0, 1.0, 0.5]  # type: ignore[index]


def test_eleven_point_iprec_by_hand(ab: object) -> None:
    # Query A, n_rel = 3, two retrieved: trec_eval asks for floor(r * 3 + 0.9) relevant
    # documents: 0 at r = 0, 1 up to 0.3, 2 from 0.4 to 0.7 (0.7 * 3 + 0.9 rounds below 3
    # in doubles), 3 from 0.8 (never reached: 0).
    expected_a = [1, 1, 1, 1, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 0, 0, 0]
    assert ab["A"].iprec.tolist() == pytest.approx(expected_a, abs=0)  # type: ignore[index]
    # Query B: 1 relevant needed up to r = 0.5 (0.5 * 2 + 0.9 = 1.9), 2 from 0.6.
    expected_b = [1, 1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5]
    assert ab["B"].iprec.tolist() == pytest.approx(expected_b, abs=0)  # type: ignore[index]
    assert ab.macro.iprec.tolist() == pytest.approx(  # type: ignore[attr-defined]
        [(x + y) / 2 for x, y in zip(expected_a, expected_b, strict=True)]
    )
    assert ab.micro.iprec is None  # type: ignore[attr-defined]
    jr = align(load_qrels(QRELS), load_run(RUN))
    table = iprec_at_recall(jr, STANDARD_RECALL_LEVELS)
    assert table.shape == (2, 11) and table[0].tolist() == ab["A"].iprec.tolist()  # type: ignore[index]
    assert iprec_at_recall(jr, [0.25], level=2)[:, 0].tolist() == [0.0, 0.25]


def test_scored_run_extras() -> None:
    # Score order a(2) d(1) e(0) b(0) c(-1): ties by doc id descending put e before b.
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "z": 1, "d": 0}}
    run = {"q": {"a": 2.0, "b": 0.0, "c": -1.0, "d": 1.0, "e": 0.0}}
    q = curve(qrels, run, recall_levels=(0.5, 0.25, 1.0))["q"]
    assert q.tp.tolist() == [1, 1, 1, 2, 3]
    assert q.n_scored == 2
    assert q.relevant_only_unscored == ("b", "c")  # in rank order
    assert q.relevant_not_retrieved == ("z",)
    assert q.recall_reached[0.5] == Cutoff(4, 0.5, 0.5, float(f1(2, 4, 4)))
    assert q.recall_reached[0.25] == Cutoff(1, 1.0, 0.25, float(f1(1, 4, 1)))
    assert q.recall_reached[1.0] is None


def test_a_relevant_document_scored_once_is_not_unscored() -> None:
    # In file order, a repeat of "b" scored 0 follows its scored occurrence.
    import pyarrow as pa

    from prfeval._core.tables import Run

    rows = Run(
        query_ids=pa.array(["q", "q", "q"]),
        doc_ids=pa.array(["x", "b", "b"]),
        scores=np.array([0.0, 0.0, 3.0]),
    )
    q = curve({"q": {"b": 1}}, rows, order="file")["q"]
    assert q.relevant_only_unscored == () and q.n_scored == 1


def test_empty_ranking_with_complete() -> None:
    qrels = {**QRELS, "C": {"h": 1}}
    c = curve(qrels, RUN, complete=True)
    empty = c["C"]
    assert empty.k.size == empty.precision.size == 0
    assert empty.best == Cutoff(0, 0.0, 0.0, 0.0)
    assert empty.recall_reached[0.5] is None
    assert empty.iprec.tolist() == [0.0] * 11
    assert empty.relevant_not_retrieved == ("h",)
    # It counts 0 in the averages: A and B's sums over three queries.
    assert c.macro.precision[0] == pytest.approx(2 / 3)
    assert c.macro.recall[0] == pytest.approx((1 / 3 + 1 / 2) / 3)
    assert c.micro.recall[0] == pytest.approx(2 / 6)


def test_no_relevant_documents() -> None:
    q = curve({"q": {"x": 0}}, {"q": ["x", "y"]}, recall_levels=(0.1,))["q"]
    assert q.recall.tolist() == [0.0, 0.0] and q.f.tolist() == [0.0, 0.0]
    assert q.precision.tolist() == [0.0, 0.0]
    assert q.best == Cutoff(1, 0.0, 0.0, 0.0)  # F is 0 throughout: the first k
    assert q.recall_reached[0.1] is None
    assert q.iprec.tolist() == [0.0] * 11


def test_empty_run() -> None:
    from prfeval._core.errors import PrfevalWarning

    with pytest.warns(PrfevalWarning, match="is empty"):
        c = curve(QRELS, {})
    assert len(c) == 0 and c.macro.k.size == 0 and c.macro.best.k == 0
    assert c.settings["empty_run"] is True


def test_query_selection_and_errors() -> None:
    only_b = curve(QRELS, RUN, queries=["B"])
    assert only_b.query_ids == ("B",) and only_b.macro.n_queries == 1
    assert curve(QRELS, RUN, exclude_queries=["B"]).query_ids == ("A",)
    with pytest.raises(UsageError, match="'Z' was not evaluated"):
        only_b["Z"]
    for bad in (
        {"beta": -1.0},
        {"max_k": 0},
        {"recall_levels": (0.0,)},
        {"recall_levels": (1.5,)},
        {"iprec_levels": (-0.1,)},
        {"collection_size": 3},
    ):
        with pytest.raises(UsageError):
            curve(QRELS, RUN, **bad)  # type: ignore[arg-type]


def test_json_shape(ab: object) -> None:
    d = json.loads(json.dumps(ab.to_dict()))  # type: ignore[attr-defined]
    assert set(d) >= {"queries", "macro", "micro", "beta"}
    assert d["beta"] == 1.0
    a = d["queries"]["A"]
    assert a["k"] == [1, 2, 3, 4, 5] and len(a["precision"]) == len(a["f"]) == 5
    assert a["best"] == {"k": 3, "precision": 2 / 3, "recall": 2 / 3, "f": 2 / 3}
    assert a["recall_reached"]["0.50"]["k"] == 3
    assert list(a["iprec"]) == [f"{i / 10:.2f}" for i in range(11)]
    assert a["relevant_not_retrieved"] == ["c"] and a["n_scored"] is None
    for average in ("macro", "micro"):
        assert set(d[average]) >= {"k", "precision", "recall", "f", "best"}
    assert d["macro"]["best"]["k"] == 4
    assert list(ab.to_dict(["B"])["queries"]) == ["B"]  # type: ignore[attr-defined]


def test_frames(ab: object) -> None:
    pytest.importorskip("pandas")
    frame = ab.to_frame()  # type: ignore[attr-defined]
    assert list(frame.columns[:6]) == ["query_id", "k", "tp", "precision", "recall", "f"]
    assert len(frame) == 9
    assert frame[frame.query_id == "B"].k.tolist() == [1, 2, 3, 4]
    assert frame.precision.tolist()[:3] == pytest.approx([1, 0.5, 2 / 3])
    averages = ab.averages_frame()  # type: ignore[attr-defined]
    assert averages.k.tolist() == [1, 2, 3, 4, 5]
    assert averages.micro_f.iloc[3] == pytest.approx(8 / 13)


def test_from_an_aligned_ranking_and_prevalence() -> None:
    jr = align(load_qrels(QRELS), load_run(RUN))
    c = curves_from_ranking(jr, collection_size=10, name="mine")
    assert c.name == "mine" and c["A"].f.tolist() == curve(QRELS, RUN)["A"].f.tolist()
    assert c.prevalence("A") == pytest.approx(0.3)
    assert c.prevalence() == pytest.approx((0.3 + 0.2) / 2)
    assert curve(QRELS, RUN).prevalence("A") is None


def test_seed_000_example_query() -> None:
    # Seed 000: 20 relevant of 10,000; 40 retrieved, 16 relevant among them. The 16 relevant
    # come first here, so the curve is known everywhere.
    relevant = [f"r{i:02d}" for i in range(20)]
    ranking = relevant[:16] + [f"n{i:02d}" for i in range(24)]
    q = curve({"q": dict.fromkeys(relevant, 1)}, {"q": ranking})["q"]
    assert (q.precision[-1], q.recall[-1]) == (0.4, 0.8)
    assert q.f[-1] == pytest.approx(32 / 60)
    assert (q.best.k, q.best.precision, q.best.recall) == (16, 1.0, 0.8)
    assert q.best.f == pytest.approx(32 / 36)
    assert curve({"q": dict.fromkeys(relevant, 1)}, {"q": ranking}, beta=2)["q"].f[-1] == (
        pytest.approx(80 / 120)
    )


def test_vectorised_pass_scales() -> None:
    # 500 queries of 1,000 documents: one vectorised pass, no per-document Python loop (about
    # 0.2 s; no bound on the time, which a busy machine would make flaky: bench/ times it).
    import pyarrow as pa

    from prfeval._core.ranking import RankingNeeds
    from prfeval._core.tables import Run

    # Ten queries drawn, each judging 30 relevant documents of 5,000 and ranking 1,000 of
    # them, stand for all 500 (query i is query i % 10 again): the pass does not care, and
    # half a million ids made one by one in Python took longer than the pass itself.
    n_q, depth, drawn = 500, 1000, 10
    some, (ranked,) = judged_runs(7, queries=[str(q) for q in range(drawn)], n_docs=5000,
                                  judged=30, grades=[1], retrieved=depth, scores=distinct())
    qrels = {str(q): some[str(q % drawn)] for q in range(n_q)}
    run = {q: list(docs) for q, docs in ranked.items()}  # ranked lists, in the order drawn
    docs = pa.array([d for ranking in run.values() for d in ranking])
    run_t = Run(  # the rows of 500 queries, taken from the ten rankings
        query_ids=pa.array(list(qrels)).take(pa.array(np.repeat(np.arange(n_q), depth))),
        doc_ids=docs.take(pa.array(np.tile(np.arange(drawn * depth), n_q // drawn))),
        scores=None,
        default_order="file",
    )
    jr = align(load_qrels(qrels), run_t, needs=RankingNeeds(None, doc_ids=True))  # as curve()
    c = curves_from_ranking(jr)
    assert c.macro.k.size == depth and len(c) == n_q
    for q in ("0", "497"):  # a ranking drawn, and one taken again
        rel = set(qrels[q])
        tp = np.cumsum([d in rel for d in run[str(int(q) % drawn)]])
        assert c[q].tp.tolist() == tp.tolist()


@pytest.mark.parametrize("seed", range(4))
def test_curves_without_the_full_doc_order_name_the_same_documents(seed):
    # curve() aligns for "every rank's grade and the documents' ids", leaving tie groups of
    # one grade in file order; its lists of ids must still come out as under the full order:
    # never-retrieved relevant documents by id, unscored ones in trec_eval's rank order.
    from prfeval._core.ranking import RankingNeeds

    # Scores -1 to 2: ties, and scores <= 0.
    qrels, (run,) = judged_runs(seed, queries=[f"q{q}" for q in range(8)], n_docs=60,
                                judged=25, grades=(0, 3), retrieved=(5, 40), scores=whole(-1, 3))
    text = ("\n".join(run_dict_lines(run)) + "\n").encode()
    full = curves_from_ranking(align(load_qrels(qrels), load_run(text)))
    part = curves_from_ranking(
        align(load_qrels(qrels), load_run(text), needs=RankingNeeds(None, doc_ids=True))
    )
    assert full.query_ids == part.query_ids
    for q in full.query_ids:
        a, b = full.summaries[q], part.summaries[q]
        assert a.relevant_not_retrieved == b.relevant_not_retrieved
        assert a.relevant_only_unscored == b.relevant_only_unscored
        assert a.best == b.best and a.n_scored == b.n_scored
        np.testing.assert_array_equal(full[q].precision, part[q].precision)
    assert any(full.summaries[q].relevant_only_unscored for q in full.query_ids)


def test_averages_only_sink_keeps_the_averages_and_the_relevant_counts() -> None:
    # A report's curves: the same averages without a summary per query. The relevant counts
    # by hand: A has a, b, c; B has e and f.
    from prfeval._retrieval.curve_sink import CurveSink

    jr = align(load_qrels(QRELS), load_run(RUN))
    full, lean = CurveSink(collection_size=10), CurveSink(collection_size=10, summaries=False)
    full.add(jr)
    lean.add(jr)
    kept = full.result(name="r", accounting=jr.accounting, settings={})
    averages = lean.result(name="r", accounting=jr.accounting, settings={})
    assert averages.query_ids == kept.query_ids == ("A", "B")
    assert averages.summaries == {} and averages.queries == {}
    assert averages.relevant_counts.tolist() == [3, 2]
    for a, b in ((averages.macro, kept.macro), (averages.micro, kept.micro)):
        np.testing.assert_array_equal(a.f, b.f)
        np.testing.assert_array_equal(a.recall, b.recall)
    assert averages.prevalence() == pytest.approx((0.3 + 0.2) / 2)
    assert averages.prevalence("B") == pytest.approx(0.2)
    with pytest.raises(UsageError, match="query 'Z'"):
        averages.prevalence("Z")
