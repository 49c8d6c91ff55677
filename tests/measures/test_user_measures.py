"""Measures users define with @prfeval.measure: hand-computed values through evaluate,
compare, gate and power; the ranking a function sees; and the errors that name the measure."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import prfeval
from prfeval import MeasureError
from prfeval._measures import REGISTRY, forget_user_measure
from support.user_measures import LIN_DCG_2, write


@pytest.fixture
def declared():
    """Forget every measure a test declares, so no other test sees it."""
    before = set(REGISTRY)
    yield
    for name in set(REGISTRY) - before:
        forget_user_measure(name)


@pytest.fixture
def files(tmp_path, declared):
    paths = write(tmp_path)
    from prfeval._measures.declare import load_measures

    load_measures(paths["measures.py"])
    return paths


def hand(run: str) -> np.ndarray:
    return np.array([LIN_DCG_2[run][q] for q in ("q1", "q2", "q3")])


def test_evaluate_macro_and_per_query(files) -> None:
    e = prfeval.evaluate(files["qrels"], files["a.run"], "LinDCG@2 P@2")
    assert e.macro["LinDCG@2"] == pytest.approx(hand("A").mean(), rel=1e-12)
    for q, value in LIN_DCG_2["A"].items():
        assert e.per_query[q]["LinDCG@2"] == pytest.approx(value, rel=1e-12)
    assert e.macro["P@2"] == pytest.approx((1 / 2 + 1 / 2 + 2 / 2) / 3)


def test_compare_gives_the_hand_difference_and_effect_size(files) -> None:
    c = prfeval.compare(files["qrels"], {"A": files["a.run"], "B": files["b.run"]},
                        "LinDCG@2", n_permutations=200, n_bootstrap=200)
    d = hand("B") - hand("A")
    row = c.row("LinDCG@2", "B")
    assert row.delta == pytest.approx(d.mean(), rel=1e-12)
    assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    assert row.ci_low <= row.delta <= row.ci_high and 0 < row.p_value <= 1


def test_gate_and_power_read_the_hand_values(files) -> None:
    drop = hand("A").mean() - hand("B").mean()
    g = prfeval.gate(files["qrels"], files["a.run"], files["b.run"], "LinDCG@2",
                     n_permutations=200)
    assert g.verdict("LinDCG@2").drop == pytest.approx(drop, rel=1e-12)
    assert g.exit_status == (1 if drop > 0 else 0)
    p = prfeval.power(files["qrels"], {"A": files["a.run"], "B": files["b.run"]}, "LinDCG@2")
    d = hand("B") - hand("A")
    assert p.row("LinDCG@2").sd_diff == pytest.approx(d.std(ddof=1), rel=1e-12)


def test_the_ranking_a_function_sees(declared) -> None:
    seen = {}

    @prfeval.measure("Seen")
    def look(r, k):
        seen[r.query_id] = r
        assert k is None
        return float(r.gains.sum())

    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"a": 3.0, "z": 2.0, "b": 1.5, "c": 1.0}}
    e = prfeval.evaluate(qrels, run, "Seen Seen(rel=2)")
    # Score order a, z, b, c: grades 2, unjudged, 1, 0; at level 2 only a gains.
    assert e.per_query["q"]["Seen"] == 3.0 and e.per_query["q"]["Seen(rel=2)"] == 2.0
    e = prfeval.evaluate(qrels, run, "Seen")
    r = seen["q"]
    assert r.gains.tolist() == [2.0, 0.0, 1.0, 0.0]
    assert r.judged.tolist() == [True, False, True, True]
    assert (r.num_rel, r.num_ret, r.level) == (2, 4, 1)
    assert sorted(r.judged_grades.tolist()) == [0, 1, 2]
    assert r.scores.tolist() == [3.0, 2.0, 1.5, 1.0]


def test_a_repeated_document_takes_a_place_and_gains_once(declared) -> None:
    seen = {}

    @prfeval.measure("Places")
    def places(r, k):
        seen["r"] = r
        return float(r.gains.sum())

    e = prfeval.evaluate({"q": {"a": 2, "b": 1}}, {"q": ["a", "a", "b"]}, "Places")
    r = seen["r"]
    assert r.gains.tolist() == [2.0, 0.0, 1.0] and r.first.tolist() == [True, False, True]
    assert r.num_ret == 3 and e.macro["Places"] == 3.0


def test_a_cutoff_measure_needs_its_cutoff(declared) -> None:
    @prfeval.measure("TopGain", cutoff=True)
    def top(r, k):
        assert isinstance(k, int)
        return float(r.gains[:k].sum())

    assert prfeval.evaluate({"q": {"a": 1}}, {"q": ["x", "a"]}, "TopGain@1").macro == {
        "TopGain@1": 0.0}
    with pytest.raises(MeasureError):
        prfeval.parse_measures("TopGain")


def test_errors_name_the_measure(files) -> None:
    with pytest.raises(MeasureError, match=r"measure 'Raises' \(defined by raises, "
                       r"measures.py:\d+\) raised ZeroDivisionError on query 'q2': my own bug"):
        prfeval.evaluate(files["qrels"], files["a.run"], "Raises")
    with pytest.raises(MeasureError, match=r"measure 'Words' .* returned 'not a number' "
                       r"\(str\) for query 'q1': expected a number"):
        prfeval.evaluate(files["qrels"], files["a.run"], "Words")


def test_nan_is_not_a_value(declared) -> None:
    @prfeval.measure("Nan")
    def nan(r, k):
        return float("nan")

    with pytest.raises(MeasureError, match=r"'Nan' .* returned nan .* expected a finite number"):
        prfeval.evaluate({"q": {"a": 1}}, {"q": ["a"]}, "Nan")


@pytest.mark.parametrize("name", ["P", "nDCG", "map", "MAP"])
def test_a_built_in_name_is_refused(declared, name) -> None:
    with pytest.raises(MeasureError, match="built-in measure"):
        prfeval.measure(name)(lambda r, k: 0.0)


def test_a_bad_name_is_refused() -> None:
    with pytest.raises(MeasureError, match="must start with a letter"):
        prfeval.measure("2fast")


def test_redefining_replaces_and_a_measure_pickles_with_its_function(files) -> None:
    m = prfeval.parse_measures("LinDCG@2")[0]
    assert pickle.loads(pickle.dumps(m)) == m
    write_again = files  # the same file run again: the same names, replaced, no error
    from prfeval._measures.declare import load_measures

    load_measures(write_again["measures.py"])
    assert prfeval.evaluate(files["qrels"], files["a.run"], "LinDCG@2").macro[
        "LinDCG@2"] == pytest.approx(hand("A").mean())
