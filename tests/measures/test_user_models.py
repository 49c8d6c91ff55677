"""User-model measures (NERR8-11, INST, BPM, Compat, StRecall): hand-computed cases, and
agreement with ir_measures (its cwl_eval, compat and pyndeval providers) and cwl_eval itself
on random cases with graded judgments, grades above max_rel, negative grades, unjudged
documents, tied scores (C/W/L measures) and judged queries without results.

Tolerance: the references return float64 values, not printed digits; prfeval sums the same
terms in another order (and Compat by prefix sums), so values agree to 1e-12 absolute.
"""

from __future__ import annotations

import logging
import math
import random

import pytest

from prfeval import evaluate
from prfeval._io.subtopics import load_subtopic_qrels
from support.random_data import random_graded_case, random_subtopic_case

TOL = 1e-12


def one(qrels: dict, run: dict, name: str, qid: str = "q") -> float:
    return evaluate(qrels, run, name, complete=True).per_query[qid][name]


# -- hand-computed ----------------------------------------------------------------------------

# Grades 1, 2, 0 with max_rel=2: gains 0.5, 1, 0 at ranks 1, 2, 3 (then 997 of gain 0).
QRELS = {"q": {"a": 1, "b": 2, "c": 0, "z": 2}}
RUN = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}


def test_nerr8_hand() -> None:
    # C(1) = 1 - 0.5, C(2) = 1 - 1 = 0: weights 1, 0.5 over their sum 1.5.
    assert one(QRELS, RUN, "NERR8(max_rel=2)@3") == pytest.approx((0.5 + 0.5 * 1) / 1.5)
    # k = 1: C(1) = 0, the user reads rank 1 only.
    assert one(QRELS, RUN, "NERR8(max_rel=2)@1") == pytest.approx(0.5)


def test_nerr9_hand() -> None:
    # C(1) = 1/2 * (1 - 0.5) = 0.25, C(2) = 2/3 * 0 = 0.
    assert one(QRELS, RUN, "NERR9(max_rel=2)@3") == pytest.approx((0.5 + 0.25) / 1.25)


def test_nerr10_hand() -> None:
    # C(1) = phi (1 - 0.5) = 0.25 (phi = 0.5), C(2) = 0.
    assert one(QRELS, RUN, "NERR10(phi=0.5,max_rel=2)") == pytest.approx((0.5 + 0.25) / 1.25)
    # Default phi 0.9: C(1) = 0.45.
    assert one(QRELS, RUN, "NERR10(max_rel=2)") == pytest.approx((0.5 + 0.45) / 1.45)


def test_nerr11_hand() -> None:
    # T = 1: C(1) = ((1 + 2 - 1) / (1 + 2))^2 (1 - 0.5) = 4/9 * 1/2 = 2/9, C(2) = 0.
    assert one(QRELS, RUN, "NERR11(max_rel=2)") == pytest.approx((0.5 + 2 / 9) / (1 + 2 / 9))


def test_inst_hand() -> None:
    # Gain 1 at rank 1, T = 1: T_i = 0 from rank 1 on, C(i) = (i / (i + 1))^2, so the
    # weight of rank n is prod_{j<n} C(j) = 1 / n^2, to depth 1000.
    qrels, run = {"q": {"a": 2}}, {"q": {"a": 1.0, "x": 0.5}}
    want = 1.0 / sum(1.0 / n**2 for n in range(1, 1001))
    assert one(qrels, run, "INST(max_rel=2)") == pytest.approx(want, abs=TOL)


def test_bpm_hand() -> None:
    # T = 1: cumulated gain 0.5 < 1 at rank 1 (go on), 1.5 at rank 2 (stop).
    assert one(QRELS, RUN, "BPM(max_rel=2)@3") == pytest.approx(1.5 / 2)
    # k = 2: the user reads 2 documents at most; T = 3 is not reached.
    assert one(QRELS, RUN, "BPM(T=3,max_rel=2)@2") == pytest.approx(1.5 / 2)
    # k = 1: rank 1 only.
    assert one(QRELS, RUN, "BPM(T=3,max_rel=2)@1") == pytest.approx(0.5)


def test_max_rel_default_is_the_querys_largest_grade() -> None:
    # Largest grade 3: gains 1/3 and 1; C(1) = 2/3, C(2) = 0 (NERR8@5).
    qrels, run = {"q": {"a": 1, "b": 3}}, {"q": {"a": 2.0, "b": 1.0}}
    assert one(qrels, run, "NERR8@5") == pytest.approx((1 / 3 + 2 / 3) / (5 / 3))
    # max_rel = 4: gains 0.25, 0.75, then 0; C = 0.75, 0.25, 1, 1 to rank k = 5: weights
    # 1, 0.75, 0.1875, 0.1875, 0.1875 over their sum.
    want = (0.25 + 0.75 * 0.75) / (1 + 0.75 + 3 * 0.1875)
    assert one(qrels, run, "NERR8(max_rel=4)@5") == pytest.approx(want)
    # min_rel = 1: grade 1 gains 0, grade 3 gains 1 (max_rel 3); C(1) = 1, C(2) = 0.
    assert one(qrels, run, "NERR8(min_rel=1)@5") == pytest.approx(1 / 2)


def test_grades_above_max_rel_and_negative_grades_are_clipped() -> None:
    qrels, run = {"q": {"a": 7, "b": -2}}, {"q": {"b": 2.0, "a": 1.0}}
    # b: negative, gain 0 (C = 1); a: 7 clipped to 2, gain 1 (C = 0): weights 1, 1.
    assert one(qrels, run, "NERR8(max_rel=2)@5") == pytest.approx(0.5)


def test_compat_hand() -> None:
    # Ranking d4, d1, d3; ideal d1 (grade 2), d3 (grade 1, score 1), d2 (grade 1, unretrieved).
    # Overlaps at depths 1..3: 0, 1 ({d1}), 2 ({d1, d3}); p = 0.5, weights 1, 0.5, 0.25.
    qrels = {"q": {"d1": 2, "d2": 1, "d3": 1, "d5": 0}}
    run = {"q": {"d4": 3.0, "d1": 2.0, "d3": 1.0}}
    rbo = (0 + 0.5 * 1 / 2 + 0.25 * 2 / 3) / 1.75
    best = (1 + 0.5 * 2 / 2 + 0.25 * 3 / 3) / 1.75  # the ideal with itself: 1
    assert one(qrels, run, "Compat(persistence=0.5,normalize=False)") == pytest.approx(rbo)
    assert one(qrels, run, "Compat(persistence=0.5)") == pytest.approx(rbo / best)


def test_empty_cases_are_zero() -> None:
    names = [
        "NERR8(max_rel=2)@5", "NERR9(max_rel=2)@5", "NERR10(max_rel=2)", "NERR11(max_rel=2)",
        "INST(max_rel=2)", "BPM(max_rel=2)@5", "Compat", "NERR8@5", "INST",
    ]  # fmt: skip
    qrels = {"none": {"a": 0}, "unretrieved": {"a": 2}, "nothing": {"a": 1}}
    run = {"none": {"a": 1.0, "b": 0.5}, "unretrieved": {"b": 1.0}}
    got = evaluate(qrels, run, names, complete=True).per_query
    for q in qrels:
        for name in names:
            assert got[q][name] == 0.0, (q, name)


# -- random agreement -------------------------------------------------------------------------


def random_case(seed: int, *, ties: bool) -> tuple[dict, dict]:
    """Judgments graded -1..5 (above every max_rel tested), some queries judged but without
    results; with ``ties``, scores drawn from few values, the run's dicts listing tied
    documents in prfeval's tie order (doc id descending), the order ir_measures keeps."""
    return random_graded_case(
        seed, n_queries=20, grades=[0, 0, 0, 1, 1, 2, 3, 4, 5, -1], skip_every=6,
        id_width=2, ties=ties, tie_order=True,
    )  # fmt: skip


def per_query(provider, measures, qrels, run) -> dict[tuple[str, str], float]:
    return {(m.query_id, str(m.measure)): m.value for m in provider.iter_calc(measures, qrels, run)}


def _cwl_pairs(irm):  # type: ignore[no-untyped-def]
    return {
        "NERR8(max_rel=4)@10": irm.NERR8(max_rel=4) @ 10,
        "NERR8(max_rel=2,min_rel=1)@3": irm.NERR8(max_rel=2, min_rel=1) @ 3,
        "NERR9(max_rel=3)@5": irm.NERR9(max_rel=3) @ 5,
        "NERR9(max_rel=4)@1000": irm.NERR9(max_rel=4) @ 1000,
        "NERR10(max_rel=4)": irm.NERR10(max_rel=4),
        "NERR10(phi=0.5,max_rel=2)": irm.NERR10(p=0.5, max_rel=2),
        "NERR11(max_rel=4)": irm.NERR11(max_rel=4),
        "NERR11(T=2.5,max_rel=3)": irm.NERR11(T=2.5, max_rel=3),
        "INST(max_rel=4)": irm.INST(max_rel=4),
        "INST(T=3,max_rel=2,min_rel=1)": irm.INST(T=3.0, max_rel=2, min_rel=1),
        "BPM(max_rel=4)@10": irm.BPM(max_rel=4) @ 10,
        "BPM(T=2,max_rel=3)@7": irm.BPM(T=2.0, max_rel=3) @ 7,
    }


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_cwl_measures_match_ir_measures(seed: int, ties: bool) -> None:
    irm = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    logging.getLogger("ir_measures.cwl_eval").disabled = True  # its notes on the gain range
    qrels, run = random_case(seed, ties=ties)
    pairs = _cwl_pairs(irm)
    theirs = per_query(irm.cwl_eval, list(pairs.values()), qrels, run)
    ours = evaluate(qrels, run, list(pairs), complete=True)
    for q in qrels:
        for label, m in pairs.items():
            want = theirs.get((q, str(m)), 0.0)  # a judged query without results: 0
            assert ours.per_query[q][label] == pytest.approx(want, abs=TOL), (q, label)
    for label, m in pairs.items():
        # ir_measures averages over every judged query (those without results as 0): -c.
        want = irm.cwl_eval.calc_aggregate([m], qrels, run)[m]
        assert ours.macro[label] == pytest.approx(want, abs=TOL), label


@pytest.mark.parametrize("seed", range(3))
def test_cwl_measures_match_cwl_eval_itself(seed: int) -> None:
    """cwl_eval's own metric classes on the gain vector, scaled here as cwl_eval documents."""
    pytest.importorskip("cwl")
    from cwl.ruler.cwl_ruler import (
        BPMCWLMetric,
        INSTCWLMetric,
        NERReq8CWLMetric,
        NERReq9CWLMetric,
        NERReq10CWLMetric,
        NERReq11CWLMetric,
    )
    from cwl.ruler.ranking import Ranking

    qrels, run = random_case(100 + seed, ties=False)
    names = {
        "NERR8(max_rel=4)@6": NERReq8CWLMetric(6),
        "NERR9(max_rel=4)@6": NERReq9CWLMetric(6),
        "NERR10(phi=0.7,max_rel=4)": NERReq10CWLMetric(0.7),
        "NERR11(T=2,max_rel=4)": NERReq11CWLMetric(2.0),
        "INST(T=2,max_rel=4)": INSTCWLMetric(2.0),
        "BPM(T=1.5,max_rel=4)@8": BPMCWLMetric(1.5, 8),
    }
    ours = evaluate(qrels, run, list(names)).per_query
    for q, docs in run.items():
        ranked = sorted(docs, key=lambda d: -docs[d])
        gains = [min(max(qrels[q].get(d, 0), 0), 4) / 4 for d in ranked]
        for label, metric in names.items():
            want = metric.measure(Ranking(q, gains, [math.nan] * len(gains)))
            assert ours[q][label] == pytest.approx(want, abs=TOL), (q, label)


@pytest.mark.parametrize("seed", range(6))
def test_compat_matches_ir_measures(seed: int) -> None:
    """Distinct scores only: ir_measures orders tied scores by doc id ascending, prfeval by
    its tie rule (doc id descending)."""
    irm = pytest.importorskip("ir_measures")
    qrels, run = random_case(200 + seed, ties=False)
    if seed % 2:  # scores about 0, some below: unretrieved documents (score 0) come between
        run = {q: {d: s - 30.0 for d, s in r.items()} for q, r in run.items()}
    pairs = {
        "Compat": irm.Compat(),
        "Compat(persistence=0.8)": irm.Compat(p=0.8),
        "Compat(normalize=False)": irm.Compat(normalize=False),
        "Compat(persistence=0.5,normalize=False)": irm.Compat(p=0.5, normalize=False),
    }
    theirs = per_query(irm.compat, list(pairs.values()), qrels, run)
    ours = evaluate(qrels, run, list(pairs), complete=True)
    for q in qrels:
        for label, m in pairs.items():
            want = theirs.get((q, str(m)), 0.0)
            assert ours.per_query[q][label] == pytest.approx(want, abs=TOL), (q, label)


@pytest.mark.parametrize("seed", range(10))
def test_strecall_matches_ir_measures(seed: int) -> None:
    irm = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    qrels, run = random_subtopic_case(random.Random(300 + seed), max_queries=5)
    irq = [irm.Qrel(q, d, g, s) for q, s, d, g in qrels]
    irr = [irm.ScoredDoc(q, d, sc) for q in run for d, sc in run[q].items()]
    text = "".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels).encode()
    for k in (1, 5, 10, 20):
        ref = {m.query_id: m.value for m in irm.pyndeval.iter_calc([irm.StRecall @ k], irq, irr)}
        got = evaluate(load_subtopic_qrels(text), run, f"StRecall@{k}").per_query
        assert ref
        for q, v in ref.items():
            assert got[q][f"StRecall@{k}"] == pytest.approx(v, abs=TOL), (k, q)


def test_many_queries_span_several_tables() -> None:
    """More queries than one table of queries holds: each still matches ir_measures."""
    irm = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    logging.getLogger("ir_measures.cwl_eval").disabled = True
    rng = random.Random(7)
    qrels = {
        f"q{i:04d}": {f"d{j}": rng.choice([0, 1, 2, 3]) for j in range(5)} for i in range(1100)
    }
    run = {q: {f"d{j}": float(10 - j) for j in rng.sample(range(8), 4)} for q in qrels}
    m = irm.NERR10(max_rel=3)
    theirs = per_query(irm.cwl_eval, [m], qrels, run)
    ours = evaluate(qrels, run, "NERR10(max_rel=3)").per_query
    for q in qrels:
        assert ours[q]["NERR10(max_rel=3)"] == pytest.approx(theirs[(q, str(m))], abs=TOL), q
