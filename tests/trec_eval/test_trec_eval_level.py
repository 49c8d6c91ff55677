"""``prfeval trec_eval -l -1`` (any level below 0) counts as trec_eval 9.0.8 counts (the
recorded cases of ``tests/trec_eval/trec_eval_level_cases.py`` are replayed byte for byte by
``test_recorded_outputs.py``): a case counted by hand, and ``prfeval evaluate`` and the
Python API still refusing such a level.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trec_eval_level_cases import EXPECTED

from support.cli import run_cli

EXPECTED_OUTCOMES = json.loads(EXPECTED.read_text())


def test_the_binary_answered_every_case() -> None:
    # The binary gave an answer on each (no crash, no stop): the cases compare numbers.
    assert all(o["status"] == 0 and o["stdout"] for o in EXPECTED_OUTCOMES.values())


def _rows(text: str) -> dict[tuple[str, str], str]:
    return {(m.strip(), q): v for m, q, v in (line.split("\t") for line in text.splitlines())}


def test_minus_one_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One query, counted by hand. Judged: a 1, b 0, c -1, d 2 (R = 3: grades >= 0). Ranked:
    z (not judged), a, c (judged -1), b, w (not judged). trec_eval's values are -1, 1, -2,
    0, -1: at -l -1 the ranks count z, a, b and w relevant (c, at -2, is not), while
    num_rel_ret counts only a and b, judged with a grade of 0 or more."""
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c -1\n1 0 d 2\n")
    run.write_text("1 Q0 z 1 5 r\n1 Q0 a 2 4 r\n1 Q0 c 3 3 r\n1 Q0 b 4 2 r\n1 Q0 w 5 1 r\n")
    args = ["-q", "-l", "-1", "-m", "num_rel", "-m", "num_rel_ret", "-m", "P.2,5", "-m", "map",
            "-m", "recip_rank", "-m", "set_P", "-m", "Rprec", "-m", "relstring"]
    status, out, _ = run_cli(capsys, "trec_eval", *args, str(qrels), str(run))
    assert status == 0
    rows = _rows(out)
    assert rows[("num_rel", "1")].strip() == "3"
    assert rows[("num_rel_ret", "1")].strip() == "2"
    assert rows[("P_2", "1")] == "1.0000"  # z and a
    assert rows[("P_5", "1")] == f"{4 / 5:.4f}"
    # AP: relevant at ranks 1, 2, 4, 5 -> (1/1 + 2/2 + 3/4 + 4/5) / R, R = 3 (above 1).
    assert rows[("map", "1")] == f"{(1 + 1 + 3 / 4 + 4 / 5) / 3:.4f}"
    assert rows[("recip_rank", "1")] == "1.0000"
    assert rows[("set_P", "1")] == f"{2 / 5:.4f}"  # num_rel_ret / num_ret
    assert rows[("Rprec", "1")] == f"{2 / 3:.4f}"  # z, a, c in the top R = 3: z and a
    assert rows[("relstring", "1")] == "'-1.0-'"
    # At -2, c (a negative grade) is relevant in the ranks too; the counts do not change.
    status, out, _ = run_cli(capsys, "trec_eval", *args, "-l", "-2", str(qrels), str(run))
    rows = _rows(out)
    assert rows[("P_5", "1")] == "1.0000"
    assert rows[("num_rel_ret", "1")].strip() == "2"


def test_evaluate_still_refuses_a_negative_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prfeval import evaluate
    from prfeval._core.errors import UsageError

    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": 2.0, "x": 1.0}}
    with pytest.raises(UsageError, match="level must be an integer >= 0"):
        evaluate(qrels, run, "P@2", level=-1)
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2 r\n1 Q0 x 2 1 r\n")
    status, _, err = run_cli(
        capsys, "evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-l", "-1"
    )
    assert status == 2
    assert "level must be an integer >= 0" in err
