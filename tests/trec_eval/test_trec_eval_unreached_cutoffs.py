"""P and relative_P at a cutoff trec_eval 9.0.8 never reaches, counted by hand.

trec_eval sorts cutoffs with a comparison that overflows, so ``P.4294967296,2,4`` stays in
that order, and its walk down the ranking waits for rank 4294967296 first: it never reaches
2 or 4, and gives each the whole ranking's relevant count divided by the cutoff itself (P),
or by min(cutoff, R) (relative_P). These values are what the 9.0.8 binary prints on the
files here (``tests/data/trec_eval_908_args.json`` holds it on other files, as the cases
``P_past_32_bits`` and ``relative_P_past_32_bits``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import run_cli


def _values(out: str) -> dict[str, str]:
    return {m.strip(): v for m, q, v in (line.split("\t") for line in out.splitlines())
            if q == "1"}


@pytest.mark.parametrize("version", ["9", "10"])
def test_unreached_cutoffs_by_hand(
    version: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Judged a, b, c relevant and d not (R = 3); ranked a, x, b, c, y: 3 relevant in all.
    P_2 = 3 / 2 (P@2 would be 1 / 2), P_4 = 3 / 4, relative_P_2 = 3 / min(2, 3). In
    ``P.3,4294967296,1`` trec_eval's sort puts 4294967296 first too: P_1 = 3 / 1 and
    P_3 = 3 / 3 (P@3 would be 2 / 3)."""
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 1\n1 0 c 1\n1 0 d 0\n")
    (tmp_path / "run").write_text(
        "1 Q0 a 1 5 r\n1 Q0 x 2 4 r\n1 Q0 b 3 3 r\n1 Q0 c 4 2 r\n1 Q0 y 5 1 r\n"
    )
    status, out, _ = run_cli(
        capsys, "trec_eval", "--trec-eval-version", version, "-q",
        "-m", "P.4294967296,2,4", "-m", "relative_P.4294967296,2",
        str(tmp_path / "qrels"), str(tmp_path / "run"),
    )
    assert status == 0
    values = _values(out)
    assert values["P_4294967296"] == "0.0000"
    assert values["P_2"] == f"{3 / 2:.4f}"  # not P@2 = 1/2: trec_eval never stops at 2
    assert values["P_4"] == f"{3 / 4:.4f}"
    assert values["relative_P_4294967296"] == f"{3 / 3:.4f}"  # min(2^32, R) = R
    assert values["relative_P_2"] == f"{3 / 2:.4f}"
    status, out, _ = run_cli(
        capsys, "trec_eval", "--trec-eval-version", version, "-q", "-m", "P.3,4294967296,1",
        str(tmp_path / "qrels"), str(tmp_path / "run"),
    )
    values = _values(out)
    assert list(values) == ["P_4294967296", "P_1", "P_3"]  # trec_eval's order
    assert values["P_1"] == f"{3 / 1:.4f}"
    assert values["P_3"] == f"{3 / 3:.4f}"


def test_the_python_api_keeps_p_at_k() -> None:
    """Outside ``prfeval trec_eval`` P@k is TP@k / k: the cutoffs are sorted, all reached."""
    from prfeval import evaluate

    result = evaluate({"1": {"a": 1, "b": 1}}, {"1": {"a": 3.0, "x": 2.0, "b": 1.0}}, "P@2 P@3")
    assert result.macro["P@2"] == pytest.approx(1 / 2)
    assert result.macro["P@3"] == pytest.approx(2 / 3)
