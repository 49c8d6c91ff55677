"""Numbers too large for the arithmetic they meet are refused with one line, never a
traceback: cutoffs, F weights, depths, resamples, levels and labels beyond 64 bits."""

from __future__ import annotations

import pytest

from prfeval import classify, evaluate
from prfeval._core.errors import PrfevalError
from support.cli import run_cli
from support.hand_made import write_texts

QRELS = "q1 0 d6 0\nq1 0 d9 1\n"
RUN = "".join(f"q1 Q0 d{i} {i} 1 r\n" for i in range(1, 7))
HUGE = "99999999999999999999"


@pytest.fixture
def files(tmp_path) -> tuple[str, str]:
    qrels, run = write_texts(tmp_path, {"qrels": QRELS, "run": RUN})
    return qrels, run


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "-m", f"P@{HUGE}"], "the cutoff must be at most 9,007,199,254,740,992"),
        (["evaluate", "-m", "SetF(beta=1e308)"], "beta must be a number in [0, 1e+100]"),
        (["evaluate", "-m", "SetF(alpha=1e-300)"], "alpha must be a number in [1e-200, 1]"),
        (["evaluate", "-m", "set_F.1e300"], "x = beta^2 in [0, 1e+200]"),
        (["evaluate", "-l", HUGE], "level must be at most"),
        (["evaluate", "-M", HUGE], "--max-results must be at most"),
        (["evaluate", "-N", HUGE, "-m", "Fallout"], "--collection-size must be at most"),
        (["curve", "-b", "1e308"], "--beta must be a finite number >= 0 and <= 1e+100"),
        (["explain", "--query", "q1", "--depth", HUGE], "depth must be at most"),
        (["compare", "--bootstrap", HUGE], "--bootstrap must be at most 100,000,000"),
        (["compare", "--permutations", HUGE], "--permutations must be at most 100,000,000"),
    ],
)
def test_huge_numbers_are_refused_in_one_line(files, capsys, argv, message) -> None:
    command, *options = argv
    inputs = [*files, files[1]] if command == "compare" else list(files)
    code, _, err = run_cli(capsys, command, *inputs, *options)
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_report_depth_past_64_bits(files, capsys, tmp_path) -> None:
    out = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "report", *files, "-o", str(out), "--depth", HUGE)
    assert code == 2 and "depth must be at most" in err and not out.exists()


def test_trec_eval_reads_levels_and_cutoffs_as_atol_does(files, capsys) -> None:
    """trec_eval reads -l and -M with atol: '²' is no digit (0), a huge value clamps."""
    code, out, _ = run_cli(capsys, "trec_eval", "-l", "²", "-m", "P.5", *files)
    # Level 0: d6 (judged 0) counts as relevant, and it is first in trec_eval's tie order.
    assert code == 0 and out.split() == ["P_5", "all", "0.2000"]
    code, out, _ = run_cli(capsys, "trec_eval", "-l", HUGE, "-m", "P.5", *files)
    assert code == 0 and out.split() == ["P_5", "all", "0.0000"]
    code, out, _ = run_cli(capsys, "trec_eval", "-M", HUGE, "-m", "num_ret", *files)
    assert code == 0 and out.split() == ["num_ret", "all", "6"]


def test_labels_beyond_64_bits(tmp_path, capsys) -> None:
    with pytest.raises(PrfevalError, match="integer label beyond 64 bits at position 0"):
        classify([10**30, 1], [1, 1])
    table = tmp_path / "labels.csv"
    table.write_text(f"y,p\n{HUGE},1\n1,1\n")
    code, out, err = run_cli(capsys, "classify", str(table), "--true", "y", "--pred", "p")
    assert code == 0 and HUGE in out  # read as a class name
    assert "Traceback" not in err


def test_api_cutoff_past_64_bits() -> None:
    with pytest.raises(PrfevalError, match="the cutoff must be at most"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, f"P@{HUGE}")
