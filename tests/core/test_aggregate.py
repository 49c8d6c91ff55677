"""Averaging over queries: macro, micro, weighted, F of means and the geometric mean, by hand.

The two-query example is seed 000's (Manning, Raghavan and Schütze 2008 style numbers):

=====  ==  ==  ==  =====  =====  =====
query  TP  FP  FN  P      R      F1
=====  ==  ==  ==  =====  =====  =====
A      16  24   4  0.400  0.800  0.533   (32 / 60)
B       1   9   1  0.100  0.500  0.167   (2 / 12)
=====  ==  ==  ==  =====  =====  =====

macro P/R/F1 = .250/.650/.350; pooled TP/FP/FN = 17/33/5 gives micro P = 17/50 = .340,
R = 17/22 = .773, F1 = 34/72 = .472; the F of the macro P and R is 2(.25)(.65)/.9 = .361.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from prfeval._core.aggregate import (
    GEOMETRIC_FLOOR,
    Summary,
    assemble,
    f_of_means,
    geometric,
    macro,
    micro,
    weighted,
)
from prfeval._core.counts import Counts, f_beta, precision, recall
from prfeval._core.measure_def import Measure, MeasureDef
from prfeval._core.partials import Partial
from prfeval._measures import parse_measures

SEED = 5e-4  # the seed prints three decimals

SEED_000 = Counts([16, 1], [24, 9], [4, 1])


def summary_of(m: Measure, values: object, counts: Counts | None) -> Summary:
    """The averages of one measure's per-query ``values`` (and tables), all in one part."""
    return assemble(Partial.of((m,), values, (counts,)))[0]


def one(name: str) -> Measure:
    (m,) = parse_measures(name)
    return m


# -- macro -----------------------------------------------------------------------------------


def test_macro_is_the_plain_mean():
    assert macro([0.4, 0.1]) == pytest.approx(0.25, abs=1e-15)
    assert macro([1, 2, 3, 6]) == 3.0


def test_macro_leaves_nan_out():
    # (0.2 + 0.6) / 2, not (0.2 + 0.6 + 0) / 3
    assert macro([0.2, float("nan"), 0.6]) == pytest.approx(0.4, abs=1e-15)


def test_macro_of_nothing_is_empty():
    assert macro([]) == 0.0
    assert macro([], empty=1.0) == 1.0
    assert math.isnan(macro([float("nan")], empty=float("nan")))
    assert macro([float("nan"), float("nan")], empty=0.5) == 0.5


# -- micro -----------------------------------------------------------------------------------


def test_micro_is_the_measure_of_the_pooled_table():
    assert micro(SEED_000, precision) == pytest.approx(17 / 50, abs=1e-15)
    assert micro(SEED_000, recall) == pytest.approx(17 / 22, abs=1e-15)
    assert micro(SEED_000, f_beta) == pytest.approx(34 / 72, abs=1e-15)
    assert micro(SEED_000, f_beta) == pytest.approx(0.472, abs=SEED)


def test_micro_differs_from_the_mean_of_ratios():
    # Query 1: TP=1 FP=0 -> P = 1.0; query 2: TP=1 FP=9 -> P = 0.1.
    # Mean of ratios: (1.0 + 0.1) / 2 = 0.55; pooled: (1 + 1) / (1 + 10) = 2/11 = 0.1818...
    c = Counts([1, 1], [0, 9], [0, 0])
    assert macro(precision(c)) == pytest.approx(0.55, abs=1e-15)
    assert micro(c, precision) == pytest.approx(2 / 11, abs=1e-15)


def test_seed_000_macro_micro_and_f_of_means():
    p, r, f = precision(SEED_000), recall(SEED_000), f_beta(SEED_000)
    assert macro(p) == pytest.approx(0.250, abs=1e-15)
    assert macro(r) == pytest.approx(0.650, abs=1e-15)
    assert macro(f) == pytest.approx((32 / 60 + 2 / 12) / 2, abs=1e-15)
    assert macro(f) == pytest.approx(0.350, abs=SEED)
    assert micro(SEED_000, precision) == pytest.approx(0.340, abs=SEED)
    assert micro(SEED_000, recall) == pytest.approx(0.773, abs=SEED)
    assert f_of_means(macro(p), macro(r)) == pytest.approx(2 * 0.25 * 0.65 / 0.9, abs=1e-15)
    assert f_of_means(macro(p), macro(r)) == pytest.approx(0.361, abs=SEED)


# -- weighted and F of means -----------------------------------------------------------------


def test_weighted_by_support():
    # (0.4 * 20 + 0.1 * 2) / 22 = 8.2 / 22
    assert weighted([0.4, 0.1], [20, 2]) == pytest.approx(8.2 / 22, abs=1e-15)
    # NaN units and their weights are left out: (0.5 * 1 + 1.0 * 3) / 4
    assert weighted([0.5, float("nan"), 1.0], [1, 100, 3]) == pytest.approx(3.5 / 4, abs=1e-15)


def test_weighted_with_no_weight_is_empty():
    assert weighted([0.3, 0.7], [0, 0]) == 0.0
    assert weighted([0.3, 0.7], [0, 0], empty=1.0) == 1.0
    assert weighted([float("nan")], [5], empty=0.25) == 0.25


def test_f_of_means_with_beta():
    # F2 of P = 0.25, R = 0.65: 5 * 0.25 * 0.65 / (4 * 0.25 + 0.65) = 0.8125 / 1.65
    assert f_of_means(0.25, 0.65, beta=2.0) == pytest.approx(0.8125 / 1.65, abs=1e-15)
    assert f_of_means(0.25, 0.65, beta=0.0) == pytest.approx(0.25, abs=1e-15)
    assert f_of_means(0.0, 0.0) == 0.0


# -- geometric -------------------------------------------------------------------------------


def test_geometric_mean_by_hand():
    # exp((log 0.5 + log 0.125) / 2) = sqrt(0.0625) = 0.25
    assert geometric([0.5, 0.125]) == pytest.approx(0.25, abs=1e-15)
    assert geometric([0.2, 0.2, 0.2]) == pytest.approx(0.2, abs=1e-15)


def test_geometric_floor_replaces_a_zero():
    assert GEOMETRIC_FLOOR == 0.00001  # trec_eval's MIN_GEO_MEAN
    # exp((log 0.4 + log 1e-5) / 2) = sqrt(4e-6) = 0.002
    assert geometric([0.4, 0.0]) == pytest.approx(0.002, rel=1e-12)
    assert geometric([0.4, 0.0]) == pytest.approx(
        math.exp((math.log(0.4) + math.log(1e-5)) / 2), rel=1e-12
    )
    # a value below the floor is raised to it too
    assert geometric([1e-9, 1.0]) == pytest.approx(math.sqrt(1e-5), rel=1e-12)
    assert geometric([0.0, 0.0]) == pytest.approx(1e-5, rel=1e-12)


def test_geometric_leaves_nan_out_and_is_zero_when_empty():
    assert geometric([0.5, float("nan"), 0.125]) == pytest.approx(0.25, abs=1e-15)
    assert geometric([]) == 0.0
    assert geometric([0.25, 0.0], floor=0.01) == pytest.approx(0.05, rel=1e-12)


# -- assemble --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["NumRet", "NumRel", "NumRelRet", "TP", "FP", "FN"])
def test_totals_are_sums_macro_and_micro_alike(name):
    # The per-query values here are the counts of the table: the sum is 40 + 10 = 50 for
    # NumRet, and so on; a total has no F of means.
    values = {"NumRet": [40, 10], "NumRel": [20, 2], "NumRelRet": [16, 1],
              "TP": [16, 1], "FP": [24, 9], "FN": [4, 1]}[name]
    s = summary_of(one(name), values, SEED_000)
    assert s == Summary(float(sum(values)), float(sum(values)), None)


def test_a_count_measure_gets_micro_from_pooled_counts():
    m = one("SetP")
    s = summary_of(m, [0.4, 0.1], SEED_000)
    assert s.macro == pytest.approx(0.25, abs=1e-15)
    assert s.micro == pytest.approx(17 / 50, abs=1e-15)
    assert s.of_means is None
    s = summary_of(one("SetR"), [0.8, 0.5], SEED_000)
    assert (s.macro, s.micro) == (pytest.approx(0.65), pytest.approx(17 / 22))


def test_micro_comes_from_the_counts_not_the_values():
    # The values say mean 0.9, but the pooled table is TP 2 of 11 retrieved.
    s = summary_of(one("SetP"), [0.9, 0.9], Counts([1, 1], [0, 9], [0, 0]))
    assert s.macro == pytest.approx(0.9)
    assert s.micro == pytest.approx(2 / 11, abs=1e-15)


def test_setf_gets_the_f_of_means():
    s = summary_of(one("SetF"), [32 / 60, 2 / 12], SEED_000)
    assert s.macro == pytest.approx(0.350, abs=SEED)
    assert s.micro == pytest.approx(34 / 72, abs=1e-15)
    assert s.of_means == pytest.approx(2 * 0.25 * 0.65 / 0.9, abs=1e-15)


def test_setf_beta_two_of_means():
    # F2 of P = .25, R = .65 (macro of the two tables); micro F2 = 5*17 / (5*17 + 4*5 + 33).
    s = summary_of(one("SetF(beta=2)"), [0.0, 0.0], SEED_000)
    assert s.of_means == pytest.approx(0.8125 / 1.65, abs=1e-15)
    assert s.micro == pytest.approx(85 / (85 + 20 + 33), abs=1e-15)


def test_sete_of_means_is_one_minus_the_f_of_means():
    s = summary_of(one("SetE"), [1 - 32 / 60, 1 - 2 / 12], SEED_000)
    assert s.macro == pytest.approx(1 - 0.35, abs=1e-12)
    assert s.micro == pytest.approx(1 - 34 / 72, abs=1e-15)
    assert s.of_means == pytest.approx(1 - 2 * 0.25 * 0.65 / 0.9, abs=1e-15)


def test_f_at_k_of_means_reads_the_top_k_tables():
    # P@10 tables: query 1 TP=4 of 10 (R: 4 of 5), query 2 TP=1 of 10 (R: 1 of 4).
    # macro P = 0.25, macro R = (0.8 + 0.25)/2 = 0.525, F = 2 * 0.25 * 0.525 / 0.775.
    c = Counts([4, 1], [6, 9], [1, 3])
    s = summary_of(one("F@10"), [8 / 15, 1 / 7], c)
    assert s.of_means == pytest.approx(2 * 0.25 * 0.525 / 0.775, abs=1e-15)
    assert s.micro == pytest.approx(10 / (10 + 4 + 15), abs=1e-15)


def test_a_ranked_measure_gets_macro_only():
    m = one("IPrec@0.5")
    assert summary_of(m, [0.5, 0.25, 1.0], None) == Summary(pytest.approx(1.75 / 3))
    s = summary_of(m, [0.5, 0.25, 1.0], Counts([1, 1, 1], [0, 0, 0], [0, 0, 0]))
    assert s.micro is None and s.of_means is None


def test_a_gmean_measure_is_averaged_geometrically():
    d = MeasureDef(
        "GmP",
        "precision, averaged geometrically",
        "TP / (TP + FP)",
        counts=lambda c, m, zd: precision(c, zero_division=zd),
        aggregation="gmean",
    )
    s = summary_of(Measure(d), [0.4, 0.0], SEED_000)
    assert s.macro == pytest.approx(0.002, rel=1e-12)  # sqrt(0.4 * 1e-5)
    assert s.micro == pytest.approx(17 / 50, abs=1e-15)


def test_summarise_of_no_queries():
    s = summary_of(one("SetP"), np.zeros(0), Counts(np.zeros(0), np.zeros(0), np.zeros(0)))
    assert s.macro == 0.0
    assert s.micro == 0.0
    assert summary_of(one("NumRet"), [], None) == Summary(0.0, 0.0)
