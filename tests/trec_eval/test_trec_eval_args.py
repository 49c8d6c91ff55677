"""``prfeval trec_eval`` takes its arguments as trec_eval 9.0.8 takes them: what the cases of
``tests/trec_eval/trec_eval_args_cases.py`` hold beyond their replay (which
``test_recorded_outputs.py`` does, byte for byte), and yaap counted by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trec_eval_args_cases import CASES, EXPECTED

EXPECTED_OUTCOMES = json.loads(EXPECTED.read_text())


def test_enough_cases() -> None:
    assert len(CASES) >= 60


def test_the_quicktest_line_is_trec_eval_s_own_expected_output() -> None:
    quick = Path(__file__).parents[1] / "data" / "trec_eval_quicktest" / "out.test.meas_params"
    assert EXPECTED_OUTCOMES["quicktest_meas_params"]["stdout"] == quick.read_text("latin-1")


def test_yaap_by_hand() -> None:
    """Robertson's (2012) yaap = ln((1 + S) / (1 + R - S)), S = AP * R, counted by hand."""
    import math

    from prfeval import evaluate

    qrels = {"a": {"d1": 1, "d2": 0, "d3": 2, "d9": 1}, "b": {"x": 0}, "c": {"y": 1}}
    run = {"a": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "b": {"x": 1.0}, "c": {"z": 1.0}}
    e = evaluate(qrels, run, "YAAP AP")
    got = dict(zip(e.query_ids, e.values[e.labels.index("YAAP")], strict=True))
    s = 1 / 1 + 2 / 3  # relevant at ranks 1 and 3 of R = 3
    assert got["a"] == pytest.approx(math.log((1 + s) / (1 + 3 - s)), abs=1e-15)
    assert got["b"] == 0.0  # no relevant documents: ln(1 / 1)
    assert got["c"] == pytest.approx(math.log(1 / 2))  # R = 1, none retrieved
