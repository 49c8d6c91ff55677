"""Every trec_eval measure against pytrec_eval-terrier (trec_eval 9.0.8's own code).

Seeded random judgments and runs exercise what trec_eval is particular about: ties broken by
doc id descending, scores that tie only in single precision, graded and negative judgments
(trec_eval's "pooled but unjudged"), unjudged documents, queries missing on either side,
queries with no relevant document, one-document rankings, relevance levels 1 to 3, ``-J``
(which can leave a ranking empty: IPrec@0 is then 0/0), ``-M`` and gain maps with unused,
fractional, zero, negative and unjudged (-1) levels. Each query's value and each average of
every key pytrec_eval reports must match; nothing is compared with prfeval's own output.
"""

from __future__ import annotations

import math

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")
pytrec_eval_ext = pytest.importorskip("pytrec_eval_ext")

from prfeval import evaluate  # noqa: E402
from support.random_data import trec_edge_case  # noqa: E402
from support.trec_cases import ALL_TREC, pytrec, trec_order  # noqa: E402

TOL = 1e-9
GAIN_MEASURES = ("ndcg", "ndcg_rel", "Rndcg", "G")


def same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= TOL


def check(qrels, run, *, level=1, judged_only=False, max_results=None, gains=""):
    """Compare every value of every query, and every average, with pytrec_eval."""
    ours_names = [f"{m}.{gains}" if gains and m in GAIN_MEASURES else m for m in ALL_TREC]
    theirs_run = run
    if max_results is not None:  # pytrec_eval has no -M: cut the rankings as trec_eval does
        theirs_run = {q: {d: s[d] for d in trec_order(s)[:max_results]} for q, s in run.items()}
    expected = pytrec(qrels, theirs_run, ours_names, level, judged_only)
    result = evaluate(
        qrels, run, ours_names, level=level, judged_only=judged_only, max_results=max_results
    )
    got = result.per_query
    assert set(got) == set(expected)
    compared = 0
    for q, values in expected.items():
        for key, value in values.items():
            if key in ("runid", "relstring"):
                continue
            label = f"{key}.{gains}" if gains and key in GAIN_MEASURES else key
            ours = got[q][label]
            if key.startswith("gm_"):  # pytrec_eval reports the log of each value
                ours = math.log(max(ours, 0.00001))
            assert same(ours, value), (q, key, ours, value)
            compared += 1
    keys = {k for v in expected.values() for k in v} - {"runid", "relstring"}
    for key in keys:
        label = f"{key}.{gains}" if gains and key in GAIN_MEASURES else key
        per_query = [expected[q][key] for q in expected]
        want = pytrec_eval.compute_aggregated_measure(key, per_query)
        assert same(result.macro[label], want), (key, result.macro[label], want)
    return compared


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("level", [1, 2, 3])
def test_every_measure_per_query_and_averaged(seed: int, level: int) -> None:
    qrels, run = trec_edge_case(seed)
    assert check(qrels, run, level=level) > 1000


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", [1, 2])
def test_judged_only(seed: int, level: int) -> None:
    """-J drops unjudged and negatively judged documents; a ranking may end up empty."""
    qrels, run = trec_edge_case(100 + seed)
    check(qrels, run, level=level, judged_only=True)


def test_judged_only_can_empty_a_ranking_and_trec_eval_says_nan() -> None:
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    run = {"1": {"x": 1.0, "y": 2.0}, "2": {"c": 1.0}}
    check(qrels, run, judged_only=True)
    e = evaluate(qrels, run, "iprec_at_recall.0 11pt_avg", judged_only=True)
    assert math.isnan(e.per_query["1"]["iprec_at_recall.0"])
    assert math.isnan(e.macro["11pt_avg"])  # as trec_eval: one undefined query, -nan


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [0, 1, 3, 10])
def test_max_results(seed: int, depth: int) -> None:
    qrels, run = trec_edge_case(200 + seed)
    check(qrels, run, max_results=depth)


@pytest.mark.parametrize("seed", range(4))
def test_max_results_then_judged_only(seed: int) -> None:
    """-M cuts ties before -J thins them: which tied documents survive the cut shows."""
    qrels, run = trec_edge_case(250 + seed)
    for depth in (2, 5):
        cut = {q: {d: s[d] for d in trec_order(s)[:depth]} for q, s in run.items()}
        expected = pytrec(qrels, cut, ["num_ret", "P.5", "map", "set_P"], 1, True)
        got = evaluate(
            qrels, run, "num_ret P_5 map set_P", judged_only=True, max_results=depth
        ).per_query
        for q, values in expected.items():
            for key, value in values.items():
                assert same(got[q][key], value), (q, key, depth)


@pytest.mark.parametrize(
    "gains",
    [
        "1=3,2=9,4=4.5",  # trec_eval's own example; level 4 unused in most queries
        "1=0.5,2=0.7",  # fractional: trec_eval's sort drops levels from the ideal
        "1=0.5,2=0.7,3=0.9",
        "0=0.2,7=100",  # a gain for non-relevant, a grade never used
        "-1=1,2=5",  # unjudged documents gain 1
        "-2=1,1=2.5,3=0",  # negatively judged gain 1, a zero gain
        "2=-1,1=3",  # a negative gain
    ],
)
@pytest.mark.parametrize("seed", range(3))
def test_gain_maps(gains: str, seed: int) -> None:
    qrels, run = trec_edge_case(300 + seed)
    check(qrels, run, gains=gains)
    check(qrels, run, gains=gains, level=2, judged_only=True)


def test_scores_equal_in_single_precision_tie() -> None:
    """trec_eval 9 keeps scores as C floats: 1.00000001 and 1.0 tie, and d2 > d1 wins."""
    qrels = {"q": {"d1": 1}}
    tied = {"q": {"d1": 1.00000001, "d2": 1.0}}
    apart = {"q": {"d1": 1.000001, "d2": 1.0}}
    for run, rr in ((tied, 0.5), (apart, 1.0)):
        assert pytrec(qrels, run, ["recip_rank"])["q"]["recip_rank"] == rr
        assert evaluate(qrels, run, "RR").macro["RR"] == rr
    # trec_eval 10 keeps doubles: no tie.
    assert evaluate(qrels, tied, "RR", trec_eval_version=10).macro["RR"] == 1.0


def test_pytrec_wrapper_names_agree() -> None:
    """The measure names pytrec_eval's Python wrapper takes (P_5, ndcg_cut_10, ...)."""
    qrels, run = trec_edge_case(7)
    names = ["P_5", "ndcg_cut_10", "map_cut_100", "recall_20", "success_5", "map", "ndcg"]
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
    got = evaluate(qrels, run, names).per_query
    for q, values in expected.items():
        for key, value in values.items():
            assert same(got[q][key], value), (q, key)
