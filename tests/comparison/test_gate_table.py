"""The gate's text and markdown verdicts: per measure the two means, the difference with its
95% interval, the worse/better/tied counts, p and p adj., the budget and the verdict; and a
measure listed with ``--max-drop M=off``, measured and shown but never failing.

Ten questions, each with one relevant passage ``r``, counted by hand (P@1):

=========  ========  =========  =====
question   baseline  candidate  diff
=========  ========  =========  =====
q1 - q3    1         0          -1     (worse: 3)
q4 - q8    1         1           0     (tied: 6, with q10)
q9         0         1          +1     (better: 1)
q10        0         0           0
=========  ========  =========  =====

Means 0.8 and 0.6, difference -0.2. The interval is checked against scipy's percentile
bootstrap of the same ten differences (its own draws: within 0.05).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import prfeval
from support.cli import run_cli

N = 10
BASE_FIRST = {f"q{i}": "r" if i <= 8 else "x" for i in range(1, N + 1)}
CAND_FIRST = {f"q{i}": "r" if 4 <= i <= 9 else "x" for i in range(1, N + 1)}
DIFFS = np.array([-1, -1, -1, 0, 0, 0, 0, 0, 1, 0], dtype=float)


def _run(first: dict[str, str]) -> str:
    lines = []
    for q, top in first.items():
        other = "x" if top == "r" else "r"
        lines += [f"{q} Q0 {top} 1 2.0 sys", f"{q} Q0 {other} 2 1.0 sys"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in {
        "qrels": "".join(f"q{i} 0 r 1\n" for i in range(1, N + 1)),
        "base": _run(BASE_FIRST),
        "cand": _run(CAND_FIRST),
    }.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        paths[name] = str(path)
    return paths


def _scipy_interval() -> tuple[float, float]:
    stats = pytest.importorskip("scipy.stats")
    res = stats.bootstrap((DIFFS,), np.mean, confidence_level=0.95, method="percentile",
                          n_resamples=20000, random_state=1)  # fmt: skip
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _row(text: str, measure: str) -> str:
    return next(line for line in text.splitlines() if line.strip().startswith(measure))


def test_the_text_table_has_means_interval_counts_p_budget_verdict(files, capsys) -> None:
    code, out, err = run_cli(capsys, "gate", files["qrels"], files["base"], files["cand"],
                             "-m", "P@1", "--max-drop", "P@1=0.1")  # fmt: skip
    assert code == 1, err
    assert "Δ [95% CI]" in out and "worse/better/tied" in out
    row = _row(out, "P@1")
    numbers = re.findall(r"[+-]?\d+\.\d{4}", row)
    assert numbers[:3] == ["0.8000", "0.6000", "-0.2000"]
    low, high = (float(x) for x in numbers[3:5])
    s_low, s_high = _scipy_interval()
    assert low == pytest.approx(s_low, abs=0.05) and high == pytest.approx(s_high, abs=0.05)
    assert " 3/1/6 " in row
    assert "0.1" in row and "FAIL" in row
    p = float(numbers[5])
    assert 0 < p <= 1


def test_the_markdown_table_has_the_same_columns(files, capsys) -> None:
    code, out, _ = run_cli(capsys, "gate", files["qrels"], files["base"], files["cand"],
                           "-m", "P@1", "--format", "markdown")  # fmt: skip
    assert code == 1
    header = next(ln for ln in out.splitlines() if ln.startswith("| measure"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "measure", "baseline", "candidate", "Δ [95% CI]", "worse/better/tied", "budget", "p",
        "p adj.", "verdict"]  # fmt: skip
    row = [c.strip() for c in re.split(r"(?<!\\)\|", _row(out, "| `P@1`"))[1:-1]]
    assert row[1:3] == ["0.8000", "0.6000"]
    assert row[3].startswith("-0.2000 \\[")
    assert row[4] == "3/1/6"
    assert row[8].startswith("**fail**")


def test_interval_and_counts_in_python_and_json(files) -> None:
    result = prfeval.gate(files["qrels"], files["base"], files["cand"], "P@1")
    v = result.verdict("P@1")
    assert (v.worse, v.better, v.same) == (3, 1, 6)
    assert v.ci_low <= -0.2 <= v.ci_high
    assert v.ci_low >= -1 and v.ci_high <= 1
    d = result.to_dict()["measures"][0]
    assert d["ci_low"] == v.ci_low and d["confidence"] == 0.95


def test_a_report_only_measure_is_shown_and_never_fails(files, capsys) -> None:
    code, out, err = run_cli(capsys, "gate", files["qrels"], files["base"], files["cand"],
                             "-m", "P@1 RR", "--max-drop", "ALL=0.5", "--max-drop",
                             "P@1=off")  # fmt: skip
    # RR: the same per-query values as P@1 here but within ALL's budget 0.5; P@1 off.
    assert code == 0, out + err
    row = _row(out, "P@1")
    assert "0.8000" in row and "0.6000" in row and " off " in row and "shown" in row
    assert "3/1/6" in row
    code, out, _ = run_cli(capsys, "gate", files["qrels"], files["base"], files["cand"],
                           "-m", "P@1", "--max-drop", "P@1=off", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["status"] == "pass"
    (m,) = report["measures"]
    assert m["report_only"] is True and m["verdict"] == "report only" and not m["failed"]
    assert m["budget"]["off"] is True and m["allowed_drop"] is None


def test_off_overrides_all_and_leaves_the_correction_family(files) -> None:
    both = prfeval.gate(files["qrels"], files["base"], files["cand"], "P@1 RR",
                        max_drop={"ALL": 0.0}, n_permutations=2000)  # fmt: skip
    assert not both.passed
    one = prfeval.gate(files["qrels"], files["base"], files["cand"], "P@1 RR",
                       max_drop={"ALL": 0.0, "RR": "off"}, n_permutations=2000)  # fmt: skip
    assert one.failed == (one.verdict("P@1"),)
    assert one.verdict("RR").verdict == "report only"
    # Holm over one test: P@1's p adj. is its p; RR's is its own p.
    assert one.verdict("P@1").p_adjusted == one.verdict("P@1").p_value
    assert one.verdict("RR").p_adjusted == one.verdict("RR").p_value
    assert both.verdict("P@1").p_value == one.verdict("P@1").p_value


def test_a_floor_on_a_report_only_measure_is_refused(files) -> None:
    with pytest.raises(prfeval.UsageError, match="shown only"):
        prfeval.gate(files["qrels"], files["base"], files["cand"], "P@1",
                     max_drop={"P@1": "off"}, minimum={"P@1": 0.5})  # fmt: skip
