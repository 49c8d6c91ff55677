"""The rank measures on cases small enough to count by hand, their names and their errors.

Each expected value is worked out in the comment beside it from the measure's definition
(Buckley and Voorhees, 2004, for bpref; Yilmaz and Aslam, 2006, for infAP; Järvelin and
Kekäläinen, 2002, for nDCG) as trec_eval computes it.
"""

from __future__ import annotations

import math

import pytest

from prfeval import MeasureError, evaluate
from prfeval._measures import lookup, parse_measures


def one(qrels: dict, ranking: list[str], spec: str, **options) -> dict[str, float]:
    """Each measure of ``spec`` for one query ranked in the given order."""
    run = {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    return evaluate({"q": qrels}, run, spec, **options).per_query["q"]


# -- bpref ------------------------------------------------------------------------------------


def test_bpref_with_no_judged_non_relevant_document() -> None:
    # a and b relevant, nothing judged non-relevant (N = 0); x and y unjudged are skipped.
    # Each relevant document has no judged non-relevant above it: (1 + 1) / R = 1.
    assert one({"a": 1, "b": 1}, ["x", "a", "y", "b"], "Bpref")["Bpref"] == 1.0
    # b not retrieved adds nothing: 1 / 2.
    assert one({"a": 1, "b": 1}, ["x", "a", "y"], "Bpref")["Bpref"] == 0.5


def test_bpref_counts_judged_non_relevant_above_each_relevant() -> None:
    # R = 2, N = 3 (n1, n2, n3 judged 0). a has n1 above: 1 - min(1, 2) / min(3, 2) = 0.5;
    # b has n1, n2 above: 1 - 2/2 = 0. bpref = 0.5 / 2. A negative grade (m) is skipped.
    qrels = {"a": 1, "b": 1, "n1": 0, "n2": 0, "n3": 0, "m": -1}
    assert one(qrels, ["n1", "m", "a", "n2", "b"], "Bpref")["Bpref"] == 0.25


# -- infAP ------------------------------------------------------------------------------------


def test_infap_with_unjudged_documents() -> None:
    # Ranking c, a, x, b, d: c judged -1 (pooled, unjudged), x unjudged (not pooled), b
    # judged 0, a and d relevant (R = 2), e = 0.00001.
    #   a at j = 1: 1/2 + 1/2 * (0 + 0 + 1)/1 * (0 + e)/(0 + 0 + 2e) = 0.5 + 0.5 * 0.5 = 0.75
    #   d at j = 4: 1/5 + 4/5 * (1 + 1 + 1)/4 * (1 + e)/(1 + 1 + 2e) = 0.2 + 0.6 * 0.5 = 0.5
    # infAP = (0.75 + 0.5) / 2 = 0.625.
    qrels = {"a": 1, "b": 0, "c": -1, "d": 1, "e": 0}
    value = one(qrels, ["c", "a", "x", "b", "d"], "infAP")["infAP"]
    assert value == pytest.approx(0.625, abs=1e-12)


def test_infap_equals_ap_when_everything_is_judged() -> None:
    qrels = {"a": 1, "b": 0, "c": 1, "d": 0}
    values = one(qrels, ["b", "a", "d", "c"], "infAP AP")
    # AP = (1/2 + 2/4) / 2 = 0.5; infAP's estimate is within its epsilon of it.
    assert values["AP"] == 0.5
    assert values["infAP"] == pytest.approx(0.5, abs=1e-4)


# -- nDCG ------------------------------------------------------------------------------------


def test_ndcg_with_a_gain_map_naming_a_grade_never_used() -> None:
    # Grades a 2, c 1, d 3; gains 1 -> 3, 2 -> 9, 4 -> 4.5 (no document has grade 4), and 3
    # keeps gain 3. Ranking a, b, x, d: DCG = 9/log2(2) + 3/log2(5). The ideal ranking is
    # a (9), d (3), c (3): IDCG = 9 + 3/log2(3) + 3/log2(4).
    qrels = {"a": 2, "b": 0, "c": 1, "d": 3, "e": 0}
    want = (9 + 3 / math.log2(5)) / (9 + 3 / math.log2(3) + 3 / math.log2(4))
    for spec in ("ndcg.1=3,2=9,4=4.5", "nDCG(gains={1:3,2:9,4:4.5})"):
        assert one(qrels, ["a", "b", "x", "d"], spec)[spec] == pytest.approx(want, abs=1e-12)
    # The unused grade changes nothing: the same as without it.
    without = one(qrels, ["a", "b", "x", "d"], "nDCG(gains={1:3,2:9})")
    assert without["nDCG(gains={1:3,2:9})"] == pytest.approx(want, abs=1e-12)


def test_ndcg_at_k_and_exponential_gains() -> None:
    # Ranking a (2), x, c (1), with d (3) not retrieved. At k = 2: DCG@2 = 2, ideal 3, 2:
    # IDCG@2 = 3 + 2/log2(3). With 2^g - 1: DCG@2 = 3, IDCG@2 = 7 + 3/log2(3).
    qrels = {"a": 2, "c": 1, "d": 3}
    values = one(qrels, ["a", "x", "c"], "nDCG@2 nDCG(dcg='exp-log2')@2 NDCG@2")
    assert values["nDCG@2"] == pytest.approx(2 / (3 + 2 / math.log2(3)), abs=1e-12)
    assert values["nDCG(dcg='exp-log2')@2"] == pytest.approx(3 / (7 + 3 / math.log2(3)))
    assert values["NDCG@2"] == values["nDCG@2"]


# -- AP, RR, success, R-precision at multiples, ERR, RBP -----------------------------------------


def test_ap_rr_and_friends_by_hand() -> None:
    # Relevant r1, r2, r3 (R = 3) at ranks 1, 3 and 6 of r1 n1 r2 n2 n3 r3.
    qrels = {"r1": 1, "r2": 1, "r3": 1, "n1": 0}
    ranking = ["r1", "n1", "r2", "n2", "n3", "r3"]
    spec = "AP AP@3 MAP RR RR@1 MRR@10 Success@2 RprecMult@1 RprecMult@2 RelativeP@2 BinG"
    v = one(qrels, ranking, spec)
    assert v["AP"] == pytest.approx((1 + 2 / 3 + 3 / 6) / 3)
    assert v["AP@3"] == pytest.approx((1 + 2 / 3) / 3)
    assert v["MAP"] == v["AP"] and v["MRR@10"] == v["RR"] == 1.0 and v["RR@1"] == 1.0
    assert v["Success@2"] == 1.0
    assert v["RprecMult@1"] == pytest.approx(2 / 3)  # P@3
    assert v["RprecMult@2"] == pytest.approx(3 / 6)  # P@6
    assert v["RelativeP@2"] == 0.5  # 1 of min(2, 3)
    # binG: 1/log2(2 + 0) + 1/log2(2 + 1) + 1/log2(2 + 3) over R = 3.
    assert v["BinG"] == pytest.approx((1 + 1 / math.log2(3) + 1 / math.log2(5)) / 3)


def test_err_and_rbp_by_hand() -> None:
    # Grades 2 at rank 1 and 4 at rank 3. ERR stop probabilities (2^g - 1)/16: 3/16, 15/16.
    # ERR = 3/16 + (1 - 3/16) * (15/16) / 3. RBP(p=0.5), rel 1: 0.5 * (1 + 0.25).
    v = one({"a": 2, "c": 4}, ["a", "b", "c"], "ERR@10 ERR@2 RBP(p=0.5) RBP(p=0.5)@2")
    assert v["ERR@10"] == pytest.approx(3 / 16 + (13 / 16) * (15 / 16) / 3, abs=1e-15)
    assert v["ERR@2"] == pytest.approx(3 / 16, abs=1e-15)
    assert v["RBP(p=0.5)"] == pytest.approx(0.5 * 1.25, abs=1e-15)
    assert v["RBP(p=0.5)@2"] == pytest.approx(0.5, abs=1e-15)


def test_gmap_is_the_geometric_mean_with_trec_evals_floor() -> None:
    qrels = {"1": {"a": 1}, "2": {"b": 1}, "3": {"c": 1}}
    run = {"1": {"a": 1.0}, "2": {"x": 2.0, "b": 1.0}, "3": {"x": 1.0}}  # AP 1, 0.5, 0
    e = evaluate(qrels, run, "GMAP gm_map AP")
    want = math.exp((math.log(1) + math.log(0.5) + math.log(0.00001)) / 3)
    assert e.macro["GMAP"] == pytest.approx(want, abs=1e-15) == e.macro["gm_map"]
    assert e.per_query["2"]["GMAP"] == 0.5  # per query it is AP


def test_relstring_characters() -> None:
    # 0-9 the grade, > above 9, - unjudged, . a negative grade; a repeat counts as unjudged.
    e = evaluate(
        {"q": {"a": 2, "b": 12, "c": -1, "d": 0}},
        {"q": ["a", "b", "c", "x", "d", "a"]},
        "RelString RelString@3",
    )
    assert e.text["RelString"] == ("2>.-0-",)
    assert e.text["RelString@3"] == ("2>.",)


# -- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("MAP", "AP"), ("map@10", "AP@10"), ("MRR", "RR"), ("mrr@10", "RR@10"),
        ("NDCG@10", "nDCG@10"), ("ndcg_cut_10", "nDCG@10"), ("map_cut.20", "AP@20"),
        ("recip_rank", "RR"), ("Bpref", "Bpref"), ("infAP", "infAP"), ("Success@5", "Success@5"),
        ("SetAP", "SetAP"), ("set_map", "SetAP"), ("NumQ", "NumQ"), ("IPrec@0.5", "IPrec@0.5"),
        ("ERR@20", "ERR@20"), ("RBP(p=0.8)", "RBP"), ("RBP(p=0.9)", "RBP(p=0.9)"),
        ("nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains={0:0,1:1,2:3})@10"),
        ("nDCG(dcg='exp-log2')", "nDCG(dcg='exp-log2')"), ("ndcg.1=3,2=9", "nDCG(gains={1:3,2:9})"),
        ("utility.2,-1,0,0", "Utility(tp=2)"), ("Rprec_mult_0.20", "RprecMult@0.2"),
        ("11pt_avg", "IPrecAvg"), ("gm_bpref", "GMBpref"), ("relative_P_5", "RelativeP@5"),
    ],
)
def test_names_people_type(typed: str, name: str) -> None:
    (m,) = parse_measures(typed)
    assert m.name == name
    (again,) = parse_measures(m.name)
    assert again.name == name and again.definition is m.definition
    assert (again.k, again.recall_level, again.params) == (m.k, m.recall_level, m.params)


def test_map_now_resolves_and_suggests_nothing() -> None:
    assert lookup("MAP").name == "AP"
    with pytest.raises(MeasureError) as caught:
        parse_measures("nDGC@10")
    assert "did you mean" in str(caught.value) and "nDCG" in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nDCG(dcg='exp')", "dcg must be 'log2' or 'exp-log2'"),
        ("nDCG(gains=1:3)", "gains must be a map {grade:gain,...}"),
        ("RBP(p=1.5)", r"p must be a number in \(0, 1\)"),
        ("ERR", "needs a cutoff"),
        ("ERR(max_grade=0)@10", "max_grade must be an integer >= 1"),
        ("ndcg.1=x", "grade=gain pairs"),
        ("ndcg.1=3,1=4", "two gains"),
        ("utility.1,2", "four weights"),
        ("P.10,10", "given twice"),
        ("RprecMult@-1", ">= 0"),
        ("IPrecAvg(levels=[2])", r"levels must be a list \[r,...\] of numbers in \[0, 1\]"),
        ("AP(gains={1:2})", "AP takes rel; got 'gains'"),
    ],
)
def test_bad_parameters_say_what_is_valid(spec: str, message: str) -> None:
    with pytest.raises(MeasureError, match=message):
        parse_measures(spec)


def test_relstring_orders_ties_that_other_measures_need_not() -> None:
    """Tied unjudged and non-relevant documents are interchangeable for AP (so prfeval does not
    sort them), but relstring shows them: there they are in doc id order, descending."""
    qrels = {"q": {"b": 0, "d": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}}
    e = evaluate(qrels, run, "AP RelString")
    assert e.text["RelString"] == ("-0-1",)  # c, b, a, then d
    assert e.per_query["q"]["AP"] == 0.25


def test_bounds_order_the_ties_that_unjudged_relevant_documents_make_visible() -> None:
    """With --bounds the unjudged documents become relevant in the upper values, so a tie of
    unjudged and non-relevant documents must be in doc id order there too."""
    qrels = {"q": {"b": 0, "d": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}}
    upper = evaluate(qrels, run, "AP RR", bounds=True).upper
    direct = evaluate(qrels, run, "AP RR", unjudged="relevant")
    assert upper is not None
    assert upper.macro == direct.macro
    assert direct.macro["RR"] == 1.0  # c, then b, then a: c is unjudged, taken as relevant
