"""``prfeval trec_eval`` takes its arguments as trec_eval 9.0.8 takes them, byte for byte.

The expected outcomes are what the built 9.0.8 binary printed on each case of
``tests/trec_eval/trec_eval_args_cases.py``: measure parameters read with C's atol/atof (``P.5.5``
is
P_5, ``ndcg_cut.23.4`` is ndcg_cut_23, empty items and junk), cutoffs refused at 0 or below
or when repeated, parameters of measures and sets that take none ignored, gains checked for
their shape, yaap, a repeated document, and odd option values. Each case runs in-process
here; with ``TREC_EVAL`` set to a built binary, it is also run through the binary.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from trec_eval_args_cases import CASES, EXPECTED, binary_runner, outcome

from support.cli import trec_eval_in_process

EXPECTED_OUTCOMES = json.loads(EXPECTED.read_text())

def test_enough_cases_and_each_has_an_outcome() -> None:
    assert set(EXPECTED_OUTCOMES) == set(CASES)
    assert len(CASES) >= 60


def test_the_quicktest_line_is_trec_eval_s_own_expected_output() -> None:
    quick = Path(__file__).parents[1] / "data" / "trec_eval_quicktest" / "out.test.meas_params"
    assert EXPECTED_OUTCOMES["quicktest_meas_params"]["stdout"] == quick.read_text("latin-1")


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_bytes_and_status_as_trec_eval_908(
    name: str, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert outcome(trec_eval_in_process(capfdbinary), name, tmp_path) == EXPECTED_OUTCOMES[name]


@pytest.mark.skipif(not os.environ.get("TREC_EVAL"), reason="TREC_EVAL names no built binary")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_binary_still_prints_the_expected_outcome(name: str, tmp_path: Path) -> None:
    run = binary_runner(os.environ["TREC_EVAL"])
    assert outcome(run, name, tmp_path) == EXPECTED_OUTCOMES[name]


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
