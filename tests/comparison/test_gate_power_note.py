"""gate's note on budgets smaller than the drop the query set can detect: present exactly
when the budget is under the detectable difference (statsmodels' power function's root),
and the decision and exit status unchanged."""

from __future__ import annotations

import json

import numpy as np
import pytest

from prfeval import gate
from support.cli import run_cli

statsmodels_power = pytest.importorskip("statsmodels.stats.power")
optimize = pytest.importorskip("scipy.optimize")

N = 12
QRELS = {f"q{q}": {"r": 1} for q in range(N)}
BASE = {f"q{q}": ["r", "x"] for q in range(N)}
# The candidate loses the relevant document on q0, q1, q2 and keeps it elsewhere: P@1
# differences -1, -1, -1, then 0 (nine times).
CAND = {**BASE, **{f"q{q}": ["x", "r"] for q in range(3)}}
DIFFS = np.array([-1.0] * 3 + [0.0] * (N - 3))


def detectable(alpha: float) -> float:
    sd = DIFFS.std(ddof=1)
    power = statsmodels_power.TTestPower().power
    root = optimize.brentq(lambda d: power(d, N, alpha) - 0.8, 1e-6, 5.0, xtol=1e-14)
    return float(sd * root)


def power_notes(result) -> list[str]:
    return [n for n in result.notes if "too few to detect" in n]


@pytest.mark.parametrize("alpha", [None, 0.01])
def test_note_exactly_when_the_budget_is_under_the_detectable_drop(alpha) -> None:
    mdd = detectable(0.05 if alpha is None else alpha)
    under = gate(QRELS, BASE, CAND, "P@1", max_drop={"P@1": mdd * 0.99}, alpha=alpha,
                 n_permutations=200)
    over = gate(QRELS, BASE, CAND, "P@1", max_drop={"P@1": mdd * 1.01}, alpha=alpha,
                n_permutations=200)
    (note,) = power_notes(under)
    assert note.startswith(f"P@1: {N} queries are too few to detect a drop of")
    assert f"is {mdd:.4f}" in note
    assert power_notes(over) == []
    # The mean drop, 0.25, is under both budgets (sd 0.452, so the detectable drop is
    # above 0.36): both pass, note or not.
    assert mdd > 0.36 and under.exit_status == over.exit_status == 0


def test_note_names_the_queries_a_drop_of_the_budget_needs() -> None:
    result = gate(QRELS, BASE, CAND, "P@1", max_drop={"P@1": 0.1}, n_permutations=200)
    sd = DIFFS.std(ddof=1)
    power = statsmodels_power.TTestPower().power
    needed = next(n for n in range(2, 10_000) if power(0.1 / sd, n, 0.05) >= 0.8)
    (note,) = power_notes(result)
    assert f"needs {needed:,} queries" in note
    assert result.exit_status == 1  # a drop of 0.25 over 0.1: fails, as without the note


def test_a_zero_budget_is_under_every_detectable_drop_and_says_which() -> None:
    result = gate(QRELS, BASE, CAND, "P@1", n_permutations=200)  # the default budget, 0
    (note,) = [n for n in result.notes if "a budget of 0" in n]
    assert note.startswith("P@1: a budget of 0 fails on any drop, noise included")
    assert f"is {detectable(0.05):.4f}" in note
    assert result.exit_status == 1  # the verdict is the budget's, note or not


def test_no_note_for_a_relative_budget_above_the_detectable_drop() -> None:
    # A percentage is converted with the baseline's mean (1.0 here): 99% is 0.99.
    assert power_notes(gate(QRELS, BASE, CAND, "P@1", max_drop={"P@1": "99%"},
                            n_permutations=200)) == []
    mdd = detectable(0.05)
    pct = f"{mdd * 100 * 0.99}%"
    assert len(power_notes(gate(QRELS, BASE, CAND, "P@1", max_drop={"P@1": pct},
                                n_permutations=200))) == 1


def test_cli_text_carries_the_note_and_the_exit_status_is_the_verdicts(tmp_path, capsys):
    qrels = "".join(f"q{q} 0 r 1\n" for q in range(N))
    base = "".join(f"q{q} Q0 r 1 2 b\nq{q} Q0 x 2 1 b\n" for q in range(N))
    cand = "".join(
        f"q{q} Q0 {'x' if q < 3 else 'r'} 1 2 c\nq{q} Q0 {'r' if q < 3 else 'x'} 2 1 c\n"
        for q in range(N)
    )
    for name, text in (("qrels", qrels), ("base", base), ("cand", cand)):
        (tmp_path / name).write_text(text)
    args = ["gate", str(tmp_path / "qrels"), str(tmp_path / "base"), str(tmp_path / "cand"),
            "-m", "P@1", "--permutations", "200"]
    code, out, _ = run_cli(capsys, *args, "--max-drop", "P@1=0.3")
    assert code == 0 and "too few to detect a drop of 0.3" in " ".join(out.split())
    code, out, _ = run_cli(capsys, *args, "--max-drop", "P@1=0.9")
    assert code == 0 and "too few to detect" not in out
    code, out, _ = run_cli(capsys, *args, "--max-drop", "P@1=0.3", "--format", "json")
    assert code == 0 and json.loads(out)["status"] == "pass"
