"""``prfeval trec_eval --trec-eval-version 10 -l -1`` (any level) as trec_eval 10.0 counts
(the recorded cases of ``tests/trec_eval/trec_eval_10_level_cases.py`` are replayed byte for
byte by ``test_recorded_outputs.py``): what the recordings reach, and rbp after yaap counted
by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trec_eval_10_level_cases import CASES, EXPECTED

from support.cli import run_cli

EXPECTED_OUTCOMES = json.loads(EXPECTED.read_text())


def test_the_binary_answered_every_case_and_reached_rbp() -> None:
    assert all(o["status"] == 0 and o["stdout"] for o in EXPECTED_OUTCOMES.values())
    # 10.0 prints rbp and rbp_resid in all_trec: the cases reach them.
    with_all_trec = [o for o in EXPECTED_OUTCOMES.values() if "all_trec" in o["argv"]]
    assert len(with_all_trec) == len(CASES) - 2  # all but trec_eval's judgment-group cases
    assert all("rbp_resid" in o["stdout"] for o in with_all_trec)


def _rbp(out: str) -> str:
    return next(line.split("\t")[2] for line in out.splitlines() if line.startswith("rbp "))


def test_rbp_after_yaap_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One query, judged a, b, c 1 and d 0, ranked a, b, c, d. rbp alone: the top grade is 1,
    no scaling, (1 - 0.9)(1 + 0.9 + 0.81) = 0.2710. With yaap asked too, 10.0's rbp starts
    the top of its scaling at yaap's S = 1/1 + 2/2 + 3/3 = 3 and divides the gains by 3:
    0.0903. At -l 2 nothing is relevant to yaap (S = 0): 0.2710 again. (What the 10.0
    binary prints on these.)"""
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 1\n1 0 c 1\n1 0 d 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 4 r\n1 Q0 b 2 3 r\n1 Q0 c 3 2 r\n1 Q0 d 4 1 r\n")
    files = (str(tmp_path / "qrels"), str(tmp_path / "run"))
    alone = 0.1 * (1 + 0.9 + 0.81)
    for extra, expected in (([], alone), (["-m", "yaap"], alone / 3),
                            (["-m", "yaap", "-l", "2"], alone)):
        status, out, _ = run_cli(
            capsys, "trec_eval", "--trec-eval-version", "10", "-m", "rbp", *extra, *files
        )
        assert status == 0
        assert _rbp(out) == f"{expected:.4f}"
