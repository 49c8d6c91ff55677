"""EvalOptions: every bad value fails at once, naming the parameter and what it accepts.

The options are validated when the object is made, so ``prfeval.evaluate`` refuses a bad
option before it reads anything: the tests below give it files that do not exist, and the
UsageError still comes first.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import prfeval
from prfeval import InputFormatError, MeasureError, PrfevalError, UsageError
from prfeval._core.options import EvalOptions

MISSING = "/nonexistent/prfeval-test/{}"


@pytest.mark.parametrize(
    ("values", "name", "accepted"),
    [
        ({"level": "a"}, "level", "an integer"),
        ({"level": 1.5}, "level", "an integer"),
        ({"level": True}, "level", "an integer"),
        ({"order": "bogus"}, "order", "score, rank, file"),
        ({"order": 1}, "order", "score, rank, file"),
        ({"duplicates": "bogus"}, "duplicates", "keep, first, error"),
        ({"judged_only": "yes"}, "judged_only", "True or False"),
        ({"complete": 1}, "complete", "True or False"),
        ({"max_results": -1}, "max_results", "an integer >= 0"),
        ({"max_results": 2.0}, "max_results", "an integer >= 0"),
        ({"collection_size": 1.5}, "collection_size", "an integer >= 0"),
        ({"collection_size": -10}, "collection_size", "an integer >= 0"),
        ({"queries": "q1"}, "queries", "not one string"),
        ({"queries": 5}, "queries", "a collection of query ids"),
        ({"exclude_queries": b"q1"}, "exclude_queries", "not one string"),
        ({"query_set": 3}, "query_set", "a name"),
    ],
)
def test_a_bad_value_names_the_parameter(values, name, accepted):
    with pytest.raises(UsageError) as caught:
        EvalOptions(**values)
    message = str(caught.value)
    assert message.startswith(f"{name} must be"), message
    assert accepted in message
    assert repr(next(iter(values.values()))) in message  # the value given, shown
    assert isinstance(caught.value, PrfevalError)


def test_defaults():
    o = EvalOptions()
    assert (o.level, o.order, o.duplicates, o.judged_only, o.max_results, o.complete) == (
        1, None, "keep", False, None, False,
    )
    assert (o.queries, o.exclude_queries, o.query_set, o.collection_size) == (
        None, None, None, None,
    )


def test_numpy_integers_are_accepted_as_python_ints():
    o = EvalOptions(level=np.int64(2), max_results=np.int32(5), collection_size=np.uint16(900))
    assert (o.level, o.max_results, o.collection_size) == (2, 5, 900)
    assert type(o.level) is int and type(o.max_results) is int
    assert type(o.collection_size) is int
    assert EvalOptions(max_results=0).max_results == 0
    assert EvalOptions(level=0).level == 0  # grade 0 relevant too, as trec_eval -l0


def test_queries_become_a_frozenset_of_strings():
    o = EvalOptions(queries=[1, "2", np.int64(3), "2"], exclude_queries=("x",))
    assert o.queries == frozenset({"1", "2", "3"})
    assert isinstance(o.queries, frozenset)
    assert o.exclude_queries == frozenset({"x"})
    assert EvalOptions(queries=range(3)).queries == frozenset({"0", "1", "2"})
    assert EvalOptions(exclude_queries=[]).exclude_queries is None  # excluding nothing


def test_options_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        EvalOptions().level = 2  # type: ignore[misc]


# -- build -----------------------------------------------------------------------------------


def test_build_replaces_some_values():
    base = EvalOptions(level=2, complete=True)
    o = EvalOptions.build(base, max_results=10)
    assert (o.level, o.complete, o.max_results) == (2, True, 10)
    assert EvalOptions.build(base) is base
    assert EvalOptions.build() == EvalOptions()
    assert EvalOptions.build(None, order="rank").order == "rank"


def test_build_validates_the_new_values():
    with pytest.raises(UsageError, match=r"^duplicates must be one of keep, first, error"):
        EvalOptions.build(EvalOptions(), duplicates="bogus")


def test_build_suggests_a_misspelt_option():
    with pytest.raises(UsageError) as caught:
        EvalOptions.build(levle=2)
    message = str(caught.value)
    assert "unknown option 'levle'" in message
    assert "did you mean 'level'?" in message
    assert "collection_size, complete, duplicates" in message  # the known ones, listed


def test_build_with_nothing_close_lists_the_options():
    with pytest.raises(UsageError) as caught:
        EvalOptions.build(zzzz=1)
    assert "did you mean" not in str(caught.value)
    assert "max_results" in str(caught.value)


def test_build_refuses_options_that_are_not_eval_options():
    with pytest.raises(UsageError, match="options must be an EvalOptions, got a dict"):
        EvalOptions.build({"level": 2})  # type: ignore[arg-type]


# -- the query set ---------------------------------------------------------------------------


def test_wants():
    everything = EvalOptions()
    assert everything.wants("1") and everything.wants("anything")
    listed = EvalOptions(queries=["1", "2"])
    assert listed.wants("1") and not listed.wants("3")
    excluded = EvalOptions(exclude_queries=["2"])
    assert excluded.wants("1") and not excluded.wants("2")
    both = EvalOptions(queries=["1", "2", "3"], exclude_queries=["2", "9"])
    assert [q for q in ("1", "2", "3", "9") if both.wants(q)] == ["1", "3"]
    assert not EvalOptions(queries=[]).wants("1")  # an empty list selects nothing


def test_restricts_queries():
    assert not EvalOptions().restricts_queries
    assert EvalOptions(queries=["1"]).restricts_queries
    assert EvalOptions(exclude_queries=["1"]).restricts_queries
    assert not EvalOptions(exclude_queries=[]).restricts_queries


@pytest.mark.parametrize(
    ("values", "described"),
    [
        ({}, "all"),
        ({"query_set": "dev.txt"}, "all"),  # a name with no restriction: still all
        ({"queries": ["1", "2", "3"]}, "3 listed queries"),
        ({"exclude_queries": ["4", "5"]}, "excluding 2 listed queries"),
        ({"queries": ["1", "2", "3"], "exclude_queries": ["3", "4"]},
         "3 listed queries, excluding 2 listed queries"),
        ({"queries": ["1", "2"], "query_set": "dev.txt"}, "dev.txt"),
        ({"exclude_queries": ["1"], "query_set": "held-out"}, "held-out"),
    ],
)
def test_describe_query_set(values, described):
    assert EvalOptions(**values).describe_query_set() == described


def test_settings():
    o = EvalOptions(level=2, collection_size=1400, complete=True, queries=["1", "2"])
    assert o.settings() == {
        "level": 2,
        "collection_size": 1400,
        "complete": True,
        "judged_only": False,
        "unjudged": "nonrelevant",
        "unjudged_grade": None,
        "max_results": None,
        "order": None,
        "duplicates": "keep",
        "qrels_duplicates": "error",
        "query_set": "2 listed queries",
        "trec_eval_version": 9,
    }
    assumed = EvalOptions(level=2, unjudged="relevant").settings()
    assert (assumed["unjudged"], assumed["unjudged_grade"]) == ("relevant", 2)
    assert o.settings(order="score")["order"] == "score"  # the order the run defaulted to
    assert EvalOptions(order="rank").settings(order="score")["order"] == "rank"


# -- evaluate refuses a bad option before reading anything -----------------------------------


@pytest.mark.parametrize(
    ("values", "name"),
    [
        ({"duplicates": "bogus"}, "duplicates"),
        ({"level": "a"}, "level"),
        ({"max_results": -1}, "max_results"),
        ({"queries": "q1"}, "queries"),
        ({"levle": 2}, "unknown option 'levle'"),
    ],
)
def test_evaluate_refuses_a_bad_option_before_reading(values, name):
    with pytest.raises(UsageError, match=name):
        prfeval.evaluate(MISSING.format("qrels"), MISSING.format("run"), "P@5", **values)


def test_evaluate_refuses_a_bad_option_object_before_reading():
    with pytest.raises(UsageError, match="options must be an EvalOptions"):
        prfeval.evaluate(MISSING.format("qrels"), MISSING.format("run"), "P@5",
                         options={"level": 2})  # type: ignore[arg-type]


def test_evaluate_refuses_a_tn_measure_without_n_before_reading():
    with pytest.raises(UsageError, match="Accuracy needs true negatives"):
        prfeval.evaluate(MISSING.format("qrels"), MISSING.format("run"), "SetP Accuracy")


def test_evaluate_refuses_a_bad_measure_before_reading():
    with pytest.raises(MeasureError, match="unknown measure"):
        prfeval.evaluate(MISSING.format("qrels"), MISSING.format("run"), "Precison@5")


def test_with_good_options_the_missing_file_is_what_fails(tmp_path):
    # The control: with valid options, evaluate does go on to read, and the missing file
    # is the error.
    with pytest.raises(InputFormatError) as caught:
        prfeval.evaluate(MISSING.format("qrels"), MISSING.format("run"), "P@5", duplicates="first")
    assert "nonexistent" in str(caught.value)
    # And the options work on real input.
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 a 3 0.5 t\n")
    e = prfeval.evaluate(tmp_path / "q", tmp_path / "r", "NumRet SetP", duplicates="first")
    assert e.macro == {"NumRet": 2.0, "SetP": 0.5}  # the repeat of "a" removed: 1 of 2
    assert e.settings["duplicates"] == "first"


def test_a_bad_duplicates_policy_is_refused_even_when_the_run_has_no_duplicates(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    with pytest.raises(UsageError, match=r"^duplicates must be one of keep, first, error"):
        prfeval.evaluate(tmp_path / "q", tmp_path / "r", "P@5", duplicates="bogus")
    assert prfeval.evaluate(tmp_path / "q", tmp_path / "r", "SetP").macro["SetP"] == 0.5
