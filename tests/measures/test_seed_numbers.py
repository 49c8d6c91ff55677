"""Every worked number of seeds 000, 002 and 004 that ``evaluate`` covers, on hand-built data.

The expected values are the seeds' printed numbers (to their printed precision) or exact
fractions of hand counts; nothing is taken from prfeval's own output.
"""

from __future__ import annotations

import pytest

from prfeval import (
    Counts,
    accuracy,
    e_measure,
    evaluate,
    f_at_k,
    f_beta,
    fallout,
    precision,
    precision_at_k,
    recall,
    recall_at_k,
)

SEED = 5e-4  # the seeds print three decimals
PCT = 5e-4  # and percentages to one decimal (0.1% = 1e-3 / 2)


def make_query(
    qid: str, *, retrieved: int, hits: int, relevant: int
) -> tuple[dict[str, int], list[str]]:
    """Judgments and a ranking: ``hits`` of ``relevant`` relevant docs in ``retrieved``."""
    rel_docs = [f"{qid}-r{i}" for i in range(relevant)]
    ranking = rel_docs[:hits] + [f"{qid}-n{i}" for i in range(retrieved - hits)]
    judgments = dict.fromkeys(rel_docs, 1)
    judgments.update(dict.fromkeys((d for d in ranking if "-n" in d), 0))
    return judgments, ranking


# -- Seed 000: the example query (10,000 docs, 20 relevant, 40 retrieved, 16 relevant) ------


@pytest.fixture(scope="module")
def seed_000_example():
    judgments, ranking = make_query("A", retrieved=40, hits=16, relevant=20)
    return {"A": judgments}, {"A": ranking}


def test_seed_000_precision_recall_f(seed_000_example) -> None:
    """P = 0.4, R = 0.8, F1 = 0.533, F0.5 = 0.444, F2 = 0.667, E = 1 - F (seed 000)."""
    qrels, run = seed_000_example
    spec = "SetP SetR SetF SetF(beta=0.5) SetF(beta=2) SetE SetE(beta=2) TP FP FN"
    e = evaluate(qrels, run, spec)
    v = e.per_query["A"]
    assert v["SetP"] == pytest.approx(0.4, abs=1e-12)
    assert v["SetR"] == pytest.approx(0.8, abs=1e-12)
    assert v["SetF"] == pytest.approx(0.533, abs=SEED)
    assert v["SetF"] == pytest.approx(32 / 60, abs=1e-12)
    assert v["SetF(beta=0.5)"] == pytest.approx(0.444, abs=SEED)
    assert v["SetF(beta=2)"] == pytest.approx(0.667, abs=SEED)
    assert v["SetF(beta=2)"] == pytest.approx(80 / (80 + 16 + 24), abs=1e-12)
    assert v["SetE"] == pytest.approx(1 - 32 / 60, abs=1e-12)
    assert v["SetE(beta=2)"] == pytest.approx(1 - 80 / 120, abs=1e-12)
    assert (v["TP"], v["FP"], v["FN"]) == (16, 24, 4)


def test_seed_000_alpha_form(seed_000_example) -> None:
    """beta^2 = (1 - alpha) / alpha: alpha = 0.2 is F2 and alpha = 0.5 is F1 (seed 000)."""
    qrels, run = seed_000_example
    v = evaluate(qrels, run, "SetF(alpha=0.2) SetF(alpha=0.5) SetF(alpha=0.8)").per_query["A"]
    assert v["SetF(alpha=0.2)"] == pytest.approx(80 / 120, abs=1e-12)
    assert v["SetF(alpha=0.5)"] == pytest.approx(32 / 60, abs=1e-12)
    assert v["SetF(alpha=0.8)"] == pytest.approx(0.444, abs=SEED)  # beta = 0.5
    # The harmonic form 1 / (a/P + (1 - a)/R) directly.
    assert v["SetF(alpha=0.2)"] == pytest.approx(1 / (0.2 / 0.4 + 0.8 / 0.8), abs=1e-12)


def test_seed_000_accuracy_against_retrieving_nothing(seed_000_example) -> None:
    """Accuracy 0.9972 (TN 9,956) vs 0.998 for retrieving nothing, in 10,000 docs (seed 000)."""
    qrels, run = seed_000_example
    e = evaluate(qrels, run, "Accuracy TN", collection_size=10_000)
    assert e.per_query["A"]["TN"] == 9956
    assert e.per_query["A"]["Accuracy"] == pytest.approx(0.9972, abs=1e-12)
    # Retrieving nothing: query A judged but absent from the run, scored as empty by -c.
    other_j, other_r = make_query("B", retrieved=1, hits=1, relevant=1)
    nothing = evaluate(
        {**qrels, "B": other_j},
        {"B": other_r},
        "Accuracy TN FN",
        collection_size=10_000,
        complete=True,
    ).per_query["A"]
    assert (nothing["FN"], nothing["TN"]) == (20, 9980)
    assert nothing["Accuracy"] == pytest.approx(0.998, abs=1e-12)
    assert nothing["Accuracy"] > e.per_query["A"]["Accuracy"]


def test_seed_000_counts_functions() -> None:
    """The same numbers from prfeval._core.counts on the contingency table itself (seed 000)."""
    c = Counts.from_totals(tp=16, retrieved=40, relevant=20, collection_size=10_000)
    assert (c.tp[0], c.fp[0], c.fn[0], c.tn[0]) == (16, 24, 4, 9956)
    assert precision(c)[0] == pytest.approx(0.4)
    assert recall(c)[0] == pytest.approx(0.8)
    assert f_beta(c)[0] == pytest.approx(0.533, abs=SEED)
    assert f_beta(c, 0.5)[0] == pytest.approx(0.444, abs=SEED)
    assert f_beta(c, 2)[0] == pytest.approx(0.667, abs=SEED)
    assert e_measure(c)[0] == pytest.approx(1 - 32 / 60)
    assert accuracy(c)[0] == pytest.approx(0.9972)
    nothing = Counts.from_totals(tp=0, retrieved=0, relevant=20, collection_size=10_000)
    assert accuracy(nothing)[0] == pytest.approx(0.998)
    everything = Counts.from_totals(tp=20, retrieved=10_000, relevant=20)
    assert precision(everything)[0] == pytest.approx(0.002)
    assert f_beta(everything)[0] == pytest.approx(0.004, abs=SEED)
    one = Counts.from_totals(tp=1, retrieved=1, relevant=20)
    assert f_beta(one)[0] == pytest.approx(0.095, abs=SEED)


def test_seed_000_two_query_averages(seed_000_example) -> None:
    """Macro .250/.650/.350, micro .340/.773/.472 (pooled 17/33/5), F of means .361 (seed 000)."""
    qrels, run = seed_000_example
    b_j, b_r = make_query("B", retrieved=10, hits=1, relevant=2)
    e = evaluate({**qrels, "B": b_j}, {**run, "B": b_r}, "SetP SetR SetF TP FP FN")
    assert e.per_query["B"]["SetP"] == pytest.approx(0.100, abs=SEED)
    assert e.per_query["B"]["SetR"] == pytest.approx(0.500, abs=SEED)
    assert e.per_query["B"]["SetF"] == pytest.approx(0.167, abs=SEED)
    assert (e.macro["SetP"], e.macro["SetR"]) == (pytest.approx(0.25), pytest.approx(0.65))
    assert e.macro["SetF"] == pytest.approx(0.350, abs=SEED)
    assert (e.micro["TP"], e.micro["FP"], e.micro["FN"]) == (17, 33, 5)
    assert e.micro["SetP"] == pytest.approx(0.340, abs=SEED)
    assert e.micro["SetR"] == pytest.approx(0.773, abs=SEED)
    assert e.micro["SetF"] == pytest.approx(0.472, abs=SEED)
    assert e.f_of_means["SetF"] == pytest.approx(0.361, abs=SEED)
    assert e.f_of_means["SetF"] == pytest.approx(2 * 0.25 * 0.65 / 0.9, abs=1e-12)


# Seed 000, Cranfield query 2: (k, relevant in top k, P, R, F1) with 24 relevant of 1,400.
CRANFIELD_Q2 = [
    (9, 5, 0.556, 0.208, 0.303),
    (10, 5, 0.500, 0.208, 0.294),
    (50, 8, 0.160, 0.333, 0.216),
    (200, 12, 0.060, 0.500, 0.107),
    (1400, 24, 0.017, 1.000, 0.034),
]


def test_seed_000_cranfield_cutoff_table() -> None:
    """P@k, R@k, F@k at k = 9, 10, 50, 200, 1400 on a ranking with the query's hit profile.

    Relevant at ranks 1-3 (the first three results are relevant), 5, 9, 20, 30, 40, 100, 120,
    150, 173 (the twelfth at 173: P@173 = 0.069) and the last 12 after rank 783 (seed 000).
    """
    hits = {1, 2, 3, 5, 9, 20, 30, 40, 100, 120, 150, 173, *range(1389, 1401)}
    ranking = [f"r{i}" if i in hits else f"n{i}" for i in range(1, 1401)]
    qrels = {"2": {d: 1 for d in ranking if d.startswith("r")}}
    spec = " ".join(f"P@{k} R@{k} F@{k}" for k, *_ in CRANFIELD_Q2) + " P@173"
    v = evaluate(qrels, {"2": ranking}, spec).per_query["2"]
    for k, _, p, r, f1 in CRANFIELD_Q2:
        assert v[f"P@{k}"] == pytest.approx(p, abs=SEED), k
        assert v[f"R@{k}"] == pytest.approx(r, abs=SEED), k
        assert v[f"F@{k}"] == pytest.approx(f1, abs=SEED), k
    assert v["P@173"] == pytest.approx(0.069, abs=SEED)


# -- Seed 004: System A and B in the 50-book collection --------------------------------------

SYSTEMS_004 = {  # name: (TP, FP, FN, TN, P, R, fallout, F0.5, F1, F2)
    "A": (12, 13, 3, 22, 0.48, 0.80, 0.371, 0.522, 0.600, 0.706),
    "B": (6, 2, 9, 33, 0.75, 0.40, 0.057, 0.638, 0.522, 0.441),
}


@pytest.mark.parametrize("system", sorted(SYSTEMS_004))
def test_seed_004_contingency_and_measures(system: str) -> None:
    """TP/FP/FN/TN, P, R, fallout 37.1% / 5.7% and the F_beta table (seed 004)."""
    tp, fp, fn, tn, p, r, fo, f05, f1, f2 = SYSTEMS_004[system]
    judgments, ranking = make_query("cs", retrieved=tp + fp, hits=tp, relevant=tp + fn)
    spec = "TP FP FN TN SetP SetR Fallout SetF(beta=0.5) SetF SetF(beta=2)"
    v = evaluate({"cs": judgments}, {"cs": ranking}, spec, collection_size=50).per_query["cs"]
    assert (v["TP"], v["FP"], v["FN"], v["TN"]) == (tp, fp, fn, tn)
    assert v["SetP"] == pytest.approx(p, abs=1e-12)
    assert v["SetR"] == pytest.approx(r, abs=1e-12)
    assert v["Fallout"] == pytest.approx(fo, abs=PCT)
    assert v["Fallout"] == pytest.approx(fp / 35, abs=1e-12)
    assert v["SetF(beta=0.5)"] == pytest.approx(f05, abs=SEED)
    assert v["SetF"] == pytest.approx(f1, abs=SEED)
    assert v["SetF(beta=2)"] == pytest.approx(f2, abs=SEED)
    c = Counts(tp, fp, fn, tn)
    assert fallout(c)[0] == pytest.approx(fp / 35)


NEEDS_004 = {  # system: [(relevant, retrieved, found)] for CS foundations, plays, novels
    "A": [(15, 25, 12), (5, 6, 4), (1, 3, 0)],
    "B": [(15, 8, 6), (5, 4, 3), (1, 1, 1)],
}


@pytest.mark.parametrize(
    ("system", "macro_r", "micro_r"), [("A", 0.533, 0.762), ("B", 0.667, 0.476)]
)
def test_seed_004_macro_and_micro_recall(system: str, macro_r: float, micro_r: float) -> None:
    """Three needs: macro recall 53.3% vs micro 76.2% for A, 66.7% vs 47.6% for B (seed 004)."""
    qrels, run = {}, {}
    for i, (rel, ret, found) in enumerate(NEEDS_004[system]):
        qrels[f"n{i}"], run[f"n{i}"] = make_query(f"n{i}", retrieved=ret, hits=found, relevant=rel)
    e = evaluate(qrels, run, "SetR NumRelRet NumRel")
    assert e.macro["SetR"] == pytest.approx(macro_r, abs=PCT)
    assert e.micro["SetR"] == pytest.approx(micro_r, abs=PCT)
    tp = sum(found for *_, found in NEEDS_004[system])
    assert (e.macro["NumRelRet"], e.macro["NumRel"]) == (tp, 21)
    assert e.micro["SetR"] == pytest.approx(tp / 21, abs=1e-12)


# -- Seed 002: recall at k for one ranked list ---------------------------------------------

D4 = ["d4", "d1", "d7", "d2"]
SEED_002 = [  # (case, retrieved, relevant, k, recall, distinct relevant hits in top k)
    ("worked example", D4, ["d1", "d2", "d3"], 2, 1 / 3, 1),
    ("second example", ["a", "b", "c"], ["a", "c"], 2, 0.5, 1),
    ("retrieved twice", ["a", "a"], ["a", "b"], 2, 0.5, 1),
    ("no relevant ids", ["a"], [], 1, 0.0, 0),
    ("relevant listed twice", D4, ["d1", "d1", "d2", "d3"], 2, 1 / 3, 1),
    ("k is 0", D4, ["d1", "d2", "d3"], 0, 0.0, 0),
    ("k raised to 4", D4, ["d1", "d2", "d3"], 4, 2 / 3, 2),
    ("k larger than the list", D4, ["d1", "d2", "d3"], 10, 2 / 3, 2),
    ("listed twice and one missing", ["a", "c"], ["a", "a", "b"], 2, 0.5, 1),
    ("repeat uses up a place", ["a", "a", "b"], ["a", "b"], 2, 0.5, 1),
    ("repeat uses up a place, k=3", ["a", "a", "b"], ["a", "b"], 3, 1.0, 2),
]
IDS_002 = [case[0] for case in SEED_002]


@pytest.mark.parametrize(("case", "retrieved", "relevant", "k", "r", "hits"), SEED_002, ids=IDS_002)
def test_seed_002_topk_functions(
    case: str, retrieved: list[str], relevant: list[str], k: int, r: float, hits: int
) -> None:
    """recall_at_k is the seed's answer; precision_at_k = hits / k (0 at k = 0); F from them."""
    assert recall_at_k(retrieved, relevant, k) == pytest.approx(r, abs=1e-12)
    p = hits / k if k else 0.0
    assert precision_at_k(retrieved, relevant, k) == pytest.approx(p, abs=1e-12)
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    assert f_at_k(retrieved, relevant, k) == pytest.approx(f1, abs=1e-12)
    f2 = 5 * p * r / (4 * p + r) if p + r else 0.0
    assert f_at_k(retrieved, relevant, k, beta=2) == pytest.approx(f2, abs=1e-12)


def test_seed_002_printed_outputs() -> None:
    """The four Input/Output pairs exactly as printed: 0.333333, 0.5, 0.5, 0 (seed 002)."""
    assert round(recall_at_k(D4, ["d1", "d2", "d3"], 2), 6) == 0.333333
    assert recall_at_k(["a", "b", "c"], ["a", "c"], 2) == 0.5
    assert recall_at_k(["a", "a"], ["a", "b"], 2) == 0.5
    assert recall_at_k(["a"], [], 1) == 0


@pytest.mark.parametrize(("case", "retrieved", "relevant", "k", "r", "hits"), SEED_002, ids=IDS_002)
def test_seed_002_through_evaluate(
    case: str, retrieved: list[str], relevant: list[str], k: int, r: float, hits: int
) -> None:
    """The same cases as ranked lists through evaluate(): a repeat takes a place, counts once."""
    judgments = dict.fromkeys(relevant, 1) or {"unrelated": 0}
    e = evaluate({"q": judgments}, {"q": retrieved}, f"R@{k} P@{k} F@{k}")
    v = e.per_query["q"]
    assert v[f"R@{k}"] == pytest.approx(r, abs=1e-12)
    p = hits / k if k else 0.0
    assert v[f"P@{k}"] == pytest.approx(p, abs=1e-12)
    assert v[f"F@{k}"] == pytest.approx(2 * p * r / (p + r) if p + r else 0.0, abs=1e-12)


def test_seed_002_repeats_reported_and_policies() -> None:
    """A repeated result is counted as a duplicate; "first" removes it, so the next doc moves up."""
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": ["a", "a", "b"]}
    keep = evaluate(qrels, run, "R@2 NumRet")
    assert keep.accounting.duplicates == 1
    assert keep.per_query["q"] == {"R@2": 0.5, "NumRet": 3}
    first = evaluate(qrels, run, "R@2 NumRet", duplicates="first")
    assert first.per_query["q"] == {"R@2": 1.0, "NumRet": 2}
