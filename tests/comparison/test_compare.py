"""``compare``: seed 004's macro/micro disagreement, wins/ties/losses and the query treatment.

Expected values are hand counts from the seeds' tables and from tiny runs built here.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from prfeval._comparison.compare import compare
from prfeval._comparison.results import Comparison
from prfeval._comparison.stats import holm, randomization_test
from prfeval._core.errors import UsageError
from prfeval._report.comparison_tables import latex, markdown

FAST = {"n_permutations": 999, "n_bootstrap": 999}

# Seed 004, "Averaging Across Needs": relevant books per need, and for each system the books
# retrieved / relevant ones found.
#   need            relevant   A: retrieved / found   B: retrieved / found
#   CS foundations  15         25 / 12                8 / 6
#   Stage plays     5          6 / 4                  4 / 3
#   Russian novels  1          3 / 0                  1 / 1
SEED_004 = {
    "cs": (15, (25, 12), (8, 6)),
    "plays": (5, (6, 4), (4, 3)),
    "russian": (1, (3, 0), (1, 1)),
}


def seed_004() -> tuple[dict, dict, dict]:
    qrels, a, b = {}, {}, {}
    for need, (n_rel, (ret_a, found_a), (ret_b, found_b)) in SEED_004.items():
        relevant = [f"{need}-rel{i}" for i in range(n_rel)]
        qrels[need] = dict.fromkeys(relevant, 1)
        a[need] = relevant[:found_a] + [f"{need}-a-other{i}" for i in range(ret_a - found_a)]
        b[need] = relevant[:found_b] + [f"{need}-b-other{i}" for i in range(ret_b - found_b)]
    return qrels, a, b


def test_seed_004_macro_micro_disagreement_on_recall_is_flagged() -> None:
    qrels, a, b = seed_004()
    c = compare(qrels, {"System A": a, "System B": b}, "SetR SetP SetF", **FAST)
    ra, rb = c.row("SetR", "System A"), c.row("SetR", "System B")
    # The seed's numbers: macro 53.3% vs 66.7%, micro 16/21 = 76.2% vs 10/21 = 47.6%.
    assert ra.macro == pytest.approx((0.8 + 0.8 + 0.0) / 3)
    assert rb.macro == pytest.approx((0.4 + 0.6 + 1.0) / 3)
    assert ra.micro == pytest.approx(16 / 21)
    assert rb.micro == pytest.approx(10 / 21)
    assert round(ra.macro, 3) == 0.533 and round(rb.macro, 3) == 0.667
    assert round(ra.micro, 3) == 0.762 and round(rb.micro, 3) == 0.476

    (d,) = c.disagreements  # precision and F agree: B wins both ways
    assert d.measure == "SetR"
    assert d.macro_better == "System B" and d.micro_better == "System A"
    assert d.describe() == (
        "SetR: macro prefers System B (0.667 vs 0.533), micro prefers System A (0.762 vs 0.476)"
    )
    assert "SetR: macro prefers System B" in markdown(c)
    assert "micro prefers System A" in latex(c)
    assert c.to_dict()["disagreements"][0]["micro_better"] == "System A"


def test_measures_without_a_micro_average_never_disagree() -> None:
    # AP and nDCG have no micro average (NaN): macro alone cannot disagree with it.
    qrels, a, b = seed_004()
    for runs in ({"System A": a, "System B": b}, {"System B": b, "System A": a}):
        c = compare(qrels, runs, "SetR AP nDCG@10", **FAST)
        assert math.isnan(c.row("AP", "System A").micro)
        assert c.row("AP", "System A").macro != c.row("AP", "System B").macro
        assert [d.measure for d in c.disagreements] == ["SetR"]


def test_seed_004_wins_ties_losses_by_hand() -> None:
    qrels, a, b = seed_004()
    c = compare(qrels, {"A": a, "B": b}, "SetR SetP SetE", **FAST)
    # Recall B - A per need: 0.4 - 0.8, 0.6 - 0.8, 1 - 0: one win, two losses.
    r = c.row("SetR", "B")
    assert (r.wins, r.ties, r.losses) == (1, 0, 2)
    assert r.delta == pytest.approx((-0.4 - 0.2 + 1.0) / 3)
    assert c.differences("SetR", "B") == pytest.approx([-0.4, -0.2, 1.0])
    assert r.top_movers[0] == ("russian", pytest.approx(1.0))
    # Precision 6/8, 3/4, 1/1 against 12/25, 4/6, 0/3: B better on all three.
    p = c.row("SetP", "B")
    assert (p.wins, p.ties, p.losses) == (3, 0, 0)
    # E = 1 - F, lower is better: B's E is lower only for the Russian novels.
    e = c.row("SetE", "B")
    assert (e.wins, e.ties, e.losses) == (1, 0, 2)
    assert e.delta < 0  # B's mean E is lower (better)
    baseline = c.row("SetR", "A")
    assert baseline.is_baseline and baseline.wins is None and baseline.delta == 0


def test_p_values_are_the_paired_test_of_the_hand_differences_and_holm_adjusted() -> None:
    qrels, a, b = seed_004()
    c = compare(qrels, {"A": a, "B": b}, "SetR SetP", n_permutations=2000, n_bootstrap=500, seed=4)
    d_recall = np.array([0.4 - 0.8, 0.6 - 0.8, 1.0 - 0.0])
    d_precision = np.array([6 / 8 - 12 / 25, 3 / 4 - 4 / 6, 1.0 - 0.0])
    p = [float(randomization_test(d, n_permutations=2000, seed=4)) for d in (d_recall, d_precision)]
    assert c.row("SetR", "B").p_value == pytest.approx(p[0])
    assert c.row("SetP", "B").p_value == pytest.approx(p[1])
    # Every |sum of +-d| for recall is >= 0.4: the exact p-value is 1.
    assert p[0] == 1.0
    adjusted = holm(p)
    assert c.row("SetR", "B").p_adjusted == pytest.approx(adjusted[0])
    assert c.row("SetP", "B").p_adjusted == pytest.approx(adjusted[1])
    assert c.settings["n_tests"] == 2


# Queries: q1 judged, answered by A only; q4 by B only; q5 by nobody; q9 by B, unjudged.
QRELS = {
    "q1": {"a": 1, "b": 1},
    "q2": {"c": 1},
    "q3": {"d": 1, "e": 0},
    "q4": {"f": 1},
    "q5": {"g": 1},
}
RUN_A = {"q1": ["a", "x"], "q2": ["c"], "q3": ["e", "d"]}
RUN_B = {"q2": ["y", "c"], "q3": ["d"], "q4": ["f"], "q9": ["z"]}


def test_missing_zero_scores_absent_queries_as_empty_and_says_so() -> None:
    c = compare(QRELS, {"A": RUN_A, "B": RUN_B}, "P@1 SetR", **FAST)
    q = c.queries
    assert c.query_ids == ("q1", "q2", "q3", "q4") and q.policy == "zero"
    assert q.missing == {"A": ("q4",), "B": ("q1",)}
    assert q.unanswered == ("q5",)
    assert q.not_in_qrels == {"A": (), "B": ("q9",)}
    # P@1: A = 1, 1, 0, 0 (q4 missing); B = 0 (q1 missing), 0, 1, 1.
    assert c.row("P@1", "A").macro == pytest.approx(0.5)
    assert c.row("P@1", "B").macro == pytest.approx(0.5)
    p1 = c.row("P@1", "B")
    assert (p1.wins, p1.ties, p1.losses) == (2, 0, 2)
    # SetR: A = 1/2, 1, 1, 0; B = 0, 1, 1, 1. Micro: 3 of 5 relevant for both.
    r = c.row("SetR", "B")
    assert c.row("SetR", "A").macro == pytest.approx(0.625)
    assert r.macro == pytest.approx(0.75)
    assert r.micro == pytest.approx(0.6) and c.row("SetR", "A").micro == pytest.approx(0.6)
    assert (r.wins, r.ties, r.losses) == (1, 2, 1)
    text = "\n".join(q.describe())
    assert "A has no results for 1 query compared here, scored as empty rankings (0): 'q4'" \
        in text
    assert "B answered 1 query with no judgments (left out): 'q9'" in text
    assert "1 judged query no run answered, left out: 'q5'" in text


def test_missing_drop_keeps_queries_every_run_answered() -> None:
    c = compare(QRELS, {"A": RUN_A, "B": RUN_B}, "P@1", missing="drop", **FAST)
    assert c.query_ids == ("q2", "q3")
    assert c.queries.dropped == ("q1", "q4")
    assert c.queries.missing == {"A": (), "B": ()}
    r = c.row("P@1", "B")
    assert (r.wins, r.ties, r.losses) == (1, 0, 1)
    left_out = "2 queries left out because not every run answered them: 'q1', 'q4'"
    assert left_out in c.queries.describe()


def test_complete_includes_queries_no_run_answered() -> None:
    c = compare(QRELS, {"A": RUN_A, "B": RUN_B}, "SetR", complete=True, **FAST)
    assert c.query_ids == ("q1", "q2", "q3", "q4", "q5")
    assert c.row("SetR", "A").macro == pytest.approx(2.5 / 5)
    assert c.row("SetR", "B").macro == pytest.approx(3.0 / 5)
    assert c.row("SetR", "B").ties == 3
    with pytest.raises(UsageError, match="contradicts"):
        compare(QRELS, {"A": RUN_A, "B": RUN_B}, "SetR", complete=True, missing="drop")


def test_queries_option_restricts_and_is_named() -> None:
    c = compare(
        QRELS,
        {"A": RUN_A, "B": RUN_B},
        "P@1",
        queries=["q2", "q3", "q7"],
        query_set="heldout.queries",
        **FAST,
    )
    assert c.query_ids == ("q2", "q3")
    assert c.queries.unjudged_listed == ("q7",)
    assert c.queries.not_in_qrels == {"A": (), "B": ()}  # q9 is not in the list
    assert c.settings["query_set"] == "heldout.queries"
    assert "Query set: heldout.queries." in c.queries.describe()
    c2 = compare(QRELS, {"A": RUN_A, "B": RUN_B}, "P@1", exclude_queries=["q1"], **FAST)
    assert c2.query_ids == ("q2", "q3", "q4")


def clear_winner() -> tuple[dict, dict, dict]:
    """12 queries; B ranks the relevant document first everywhere, A never retrieves it."""
    qrels = {f"{i}": {f"r{i}": 1} for i in range(1, 13)}
    a = {f"{i}": [f"n{i}", f"m{i}"] for i in range(1, 13)}
    b = {f"{i}": [f"r{i}", f"n{i}"] for i in range(1, 13)}
    return qrels, a, b


def test_significant_difference_marked_in_markdown_and_latex() -> None:
    qrels, a, b = clear_winner()
    c = compare(qrels, {"base": a, "new_run": b}, "P@1 R@2", n_permutations=999, n_bootstrap=999)
    r = c.row("P@1", "new_run")
    # All 12 differences are +1: only the observed signs are as extreme, p = 1 / (B + 1).
    assert r.p_value == pytest.approx(1 / 1000)
    assert r.p_adjusted == pytest.approx(2 / 1000)  # Holm over two tests, both p = 1/1000
    assert r.significant and (r.ci_low, r.ci_high) == (1.0, 1.0)
    assert (r.wins, r.ties, r.losses) == (12, 0, 0)
    md = markdown(c)
    assert "| new_run | **1.0000**† | **1.0000**† |" in md
    assert "| base (baseline) | 0.0000 | 0.0000 |" in md
    tex = latex(c)
    assert r"new\_run & \textbf{1.0000}$^{\dagger}$ & \textbf{1.0000}$^{\dagger}$ \\" in tex
    assert r"\toprule" in tex and r"\end{table}" in tex
    # Query ids are numeric: ordered as numbers.
    assert c.query_ids[:3] == ("1", "2", "3") and c.query_ids[-1] == "12"


def test_not_significant_after_correction() -> None:
    qrels, a, b = clear_winner()
    # Three queries only: even all-positive differences cannot reach 0.05 (exact p = 2/8).
    small = {k: qrels[k] for k in ("1", "2", "3")}
    c = compare(small, {"A": a, "B": b}, "P@1", **FAST)
    r = c.row("P@1", "B")
    assert r.p_value > 0.2 and not r.significant
    assert "†" not in markdown(c).split("\n\n")[0]


def test_baseline_choice_and_three_runs() -> None:
    qrels, a, b = seed_004()
    c = compare(qrels, {"A": a, "B": b, "A again": a}, "SetR", baseline="B", **FAST)
    assert c.baseline == "B"
    # A - B per need: 0.4, 0.2, -1.0, mean -0.4/3.
    assert c.row("SetR", "A").delta == pytest.approx(-0.4 / 3)
    assert c.row("SetR", "A again").p_value == c.row("SetR", "A").p_value
    # Two disagreements with B (A and its copy); A and its copy agree exactly.
    assert {(d.run_a, d.run_b) for d in c.disagreements} == {("A", "B"), ("B", "A again")}
    assert c.settings["n_tests"] == 2


def test_reproducible_and_independent_of_other_measures() -> None:
    rng = np.random.default_rng(3)
    qrels = {str(q): {f"d{i}": int(rng.integers(0, 2)) for i in range(20)} for q in range(30)}
    runs = {
        name: {q: {f"d{i}": float(s) for i, s in enumerate(rng.normal(size=20))} for q in qrels}
        for name in ("x", "y")
    }
    one = compare(qrels, runs, "P@5", seed=7, **FAST)
    again = compare(qrels, runs, "P@5", seed=7, **FAST)
    more = compare(qrels, runs, "R@10 P@5 SetF", seed=7, **FAST)
    assert one.rows == again.rows
    r1, r2 = one.row("P@5", "y"), more.row("P@5", "y")
    assert r1.p_value == r2.p_value
    # Same resamples; the means of more columns may differ in the last bit only.
    assert (r1.ci_low, r1.ci_high) == pytest.approx((r2.ci_low, r2.ci_high), abs=1e-12)
    assert math.isfinite(r1.p_value)


def test_views_frame_dict_per_query() -> None:
    qrels, a, b = seed_004()
    c = compare(qrels, {"A": a, "B": b}, "SetR NumRet", **FAST)
    assert isinstance(c, Comparison)
    frame = c.to_frame()
    assert list(frame[["measure", "run"]].itertuples(index=False, name=None)) == [
        ("SetR", "A"),
        ("SetR", "B"),
        ("NumRet", "A"),
        ("NumRet", "B"),
    ]
    # Counts are totals (25 + 6 + 3 and 8 + 4 + 1), with no test.
    numret = frame[frame.measure == "NumRet"]
    assert numret.macro.tolist() == [34.0, 13.0]
    assert numret.p_value.isna().all()
    long = c.per_query_frame()
    assert len(long) == 2 * 2 * 3
    row = long[(long.run == "B") & (long.measure == "SetR") & (long.query_id == "cs")]
    assert row.value.item() == pytest.approx(0.4) and row.difference.item() == pytest.approx(-0.4)
    data = json.loads(json.dumps(c.to_dict(per_query=True), allow_nan=False))
    assert data["per_query"]["A"]["SetR"]["plays"] == pytest.approx(0.8)
    assert data["rows"][0]["p_value"] is None  # the baseline is not tested


def test_bad_input() -> None:
    qrels, a, b = seed_004()
    with pytest.raises(UsageError, match="at least two runs"):
        compare(qrels, {"A": a})
    with pytest.raises(UsageError, match="baseline"):
        compare(qrels, {"A": a, "B": b}, baseline="C")
    # checked as every choice is (_core.checks.choice), in compare as in gate
    with pytest.raises(UsageError, match=r"^test must be one of randomization, ttest"):
        compare(qrels, {"A": a, "B": b}, test="sign")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="mapping"):
        compare(qrels, [a, b])  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="every run"):
        compare(QRELS, {"A": {"q1": ["a"]}, "B": {"q2": ["c"]}}, missing="drop")
    with pytest.raises(UsageError, match="alpha"):
        compare(qrels, {"A": a, "B": b}, alpha=1.5)
