"""``prfeval.Evaluator`` owns what it is given: a score buffer the caller reuses for the next
question does not rewrite a ranking already added, ``add_many`` adds all its questions or
none, and an id UTF-8 cannot write is refused by name, never a traceback later."""

from __future__ import annotations

import numpy as np
import pytest

import prfeval
from prfeval import Evaluator
from prfeval._core.errors import InputFormatError, UsageError

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}, "q3": {"e": 1}}


def test_a_reused_score_buffer_does_not_rewrite_an_added_ranking() -> None:
    ev = Evaluator(QRELS, "P@1", block_results=10_000)  # nothing measured before result()
    buffer = np.array([2.0, 1.0])
    ev.add("q1", ["a", "b"], buffer)  # a first: P@1 = 1
    buffer[:] = [1.0, 2.0]  # the caller's next question reuses the buffer
    ev.add("q2", ["c", "d"], buffer)  # d first: P@1 = 0
    by_hand = {"q1": 1.0, "q2": 0.0}
    got = ev.result()
    assert {q: got.per_query[q]["P@1"] for q in by_hand} == by_hand
    batch = prfeval.evaluate(QRELS, {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "d": 2.0}},
                             "P@1")
    assert got.macro == batch.macro


@pytest.mark.parametrize("block_results", [1, 10_000])
def test_add_many_adds_every_question_or_none(block_results: int) -> None:
    ev = Evaluator(QRELS, "P@1 R@2", block_results=block_results)
    ev.add("q1", ["a", "b"], [2.0, 1.0])
    with pytest.raises(InputFormatError, match=r"query 'q3', doc 'e'.*finite score"):
        ev.add_many({"q2": {"c": 1.0}, "q3": {"e": float("nan")}})
    assert len(ev) == 1  # q2 was put back with q3
    ev.add_many({"q2": {"c": 1.0}, "q3": {"e": 1.0}})  # the retry adds both, none twice
    got = ev.result()
    batch = prfeval.evaluate(
        QRELS, {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}, "q3": {"e": 1.0}}, "P@1 R@2")
    assert got.macro == batch.macro == {"P@1": 1.0, "R@2": 1.0}


def test_add_many_refused_under_duplicates_error_puts_back_the_measured_block() -> None:
    ev = Evaluator(QRELS, "P@1", block_results=1, duplicates="error")
    with pytest.raises(InputFormatError, match="'a'"):
        ev.add_many({"q2": ["c"], "q1": ["a", "a"]})  # q2 measured at once, then q1 refused
    assert len(ev) == 0
    ev.add_many({"q2": ["c"], "q1": ["a", "b"]})
    assert ev.result().macro == {"P@1": 1.0}


@pytest.mark.parametrize(
    ("query", "ids", "message"),
    [
        ("q\udc80", ["a"], "query id 'q\\\\udc80' is not valid Unicode"),
        ("q1", ["a", "b\udc80"], "the id of result 2 is not valid Unicode"),
        ("q1", ["a", ["b"]], "the id of result 2 is a list"),
        ("q1", ["a", {"b": 1}], "the id of result 2 is a dict"),
        ("q1", [True, "a"], "the id of result 1 is a bool"),
    ],
)
def test_an_id_that_is_no_text_is_refused_by_name(query: str, ids: list, message: str) -> None:
    ev = Evaluator(QRELS, "P@1")
    with pytest.raises(InputFormatError, match=message):
        ev.add(query, ids)
    assert len(ev) == 0


def test_integer_ids_are_their_digits() -> None:
    ev = Evaluator({"q1": {"7": 1}}, "P@1")
    ev.add("q1", [np.int64(7), 8])
    assert ev.result().macro == {"P@1": 1.0}


def test_a_query_id_must_be_text() -> None:
    with pytest.raises(UsageError, match="query_id must be a non-empty string"):
        Evaluator(QRELS, "P@1").add(1, ["a"])  # type: ignore[arg-type]
