"""One rule for ids, in Python as in files: a string or a number. A bool, a list, a dict or a
missing id (None, "", NaN) is refused by name, and an id UTF-8 cannot write (a lone
surrogate, from a bad decode) is refused too, never a traceback or a silent non-match."""

from __future__ import annotations

import pytest

import prfeval
from prfeval._core.errors import InputFormatError, UsageError

QRELS = {"q1": {"d1": 1, "1": 1}}


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"q1": [["d1"], "x"]}, r"query 'q1': doc id \['d1'\] is a list"),
        ({"q1": [{"a": 1}, "x"]}, r"query 'q1': doc id \{'a': 1\} is a dict"),
        ({"q1": [True, "d1"]}, "query 'q1': doc id True is a bool"),
        ({"q1": ["\udc80", "d1"]}, "query 'q1': doc id '\\\\udc80' is not valid Unicode"),
        ({"\udc80": ["d1"]}, "query id '\\\\udc80' is not valid Unicode"),
        ({"\udc80": {"d1": 1.0}}, "query id '\\\\udc80' is not valid Unicode"),
        ({"q1": {"d1\udc80": 1.0}}, "query 'q1': doc id 'd1\\\\udc80' is not valid Unicode"),
    ],
)
def test_a_run_id_that_is_no_id_is_refused(run: dict, message: str) -> None:
    with pytest.raises(InputFormatError, match=message):
        prfeval.evaluate(QRELS, run, "P@2")


def test_judgments_with_a_lone_surrogate_are_refused() -> None:
    with pytest.raises(InputFormatError, match="qrels dict: query id 'q\\\\udc80'"):
        prfeval.evaluate({"q\udc80": {"d1": 1}}, {"q1": {"d1": 1.0}}, "P@2")
    with pytest.raises(InputFormatError, match="qrels dict: query 'q1': doc id 'd\\\\udc80'"):
        prfeval.evaluate({"q1": {"d\udc80": 1}}, {"q1": {"d1": 1.0}}, "P@2")


def test_numbers_are_ids_as_in_a_file() -> None:
    assert prfeval.evaluate(QRELS, {"q1": [1, "d1"]}, "P@2").macro == {"P@2": 1.0}


@pytest.mark.parametrize("missing", [None, "", float("nan"), True])
def test_a_single_ranking_refuses_a_result_with_no_id(missing: object) -> None:
    with pytest.raises(UsageError, match=r"retrieved\[0\] is .*: every id is a string or a"):
        prfeval.recall_at_k([missing, "d1"], ["d1"], k=2)
    with pytest.raises(UsageError, match=r"relevant\[1\]"):
        prfeval.precision_at_k(["d1"], ["d1", missing], k=1)
