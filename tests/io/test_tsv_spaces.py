"""MS MARCO's and TREC's files named ``.tsv`` with spaces between fields (issue 45, D20).

docs/inputs.md says a file without a header may separate its fields by tabs or spaces; a
``.tsv`` with a header needs tabs, and is told so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytrec_eval

import prfeval
from support.cli import run_cli

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n"
# MS MARCO's run: qid docid rank. q1 ranks d2 then d1; q2 ranks d3.
RUN = "1 d1 2\n1 d2 1\n2 d3 1\n"


def _reference() -> dict[str, float]:
    qrels = {"1": {"d1": 1, "d2": 0}, "2": {"d3": 1}}
    run = {"1": {"d2": 2.0, "d1": 1.0}, "2": {"d3": 1.0}}
    values = pytrec_eval.RelevanceEvaluator(qrels, {"P.1", "recip_rank"}).evaluate(run)
    return {
        "P@1": sum(v["P_1"] for v in values.values()) / 2,
        "RR": sum(v["recip_rank"] for v in values.values()) / 2,
    }


@pytest.mark.parametrize("spaces", [" ", "  ", " \t"])
def test_a_space_separated_ms_marco_run_named_tsv_is_read(tmp_path: Path, spaces: str) -> None:
    qrels, run = tmp_path / "qrels.dev.tsv", tmp_path / "run.dev.tsv"
    qrels.write_text(QRELS.replace(" ", spaces))
    run.write_text(RUN.replace(" ", spaces))
    result = prfeval.evaluate(str(qrels), str(run), ["P@1", "RR"]).macro
    expected = _reference()
    assert result["P@1"] == pytest.approx(expected["P@1"])
    assert result["RR"] == pytest.approx(expected["RR"])


def test_a_tsv_header_without_tabs_is_told_so(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = tmp_path / "qrels.tsv", tmp_path / "run.tsv"
    qrels.write_text(QRELS)
    run.write_text("qid docid rank\n" + RUN)
    code, out, err = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "P@1")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"prfeval: {run}:1: the header 'qid docid rank' has no tab: a TSV's columns are "
        "separated by tabs (files without a header, TREC's and MS MARCO's, may use spaces)"
    ]


@pytest.mark.parametrize("suffix", ["csv", "tsv"])
def test_a_header_that_is_not_utf8_is_refused(tmp_path: Path, suffix: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Found by the fuzz pass: Arrow decodes a header's names only when asked (a traceback)."""
    sep = "," if suffix == "csv" else "\t"
    qrels, run = tmp_path / f"qrels.{suffix}", tmp_path / "run.trec"
    qrels.write_bytes(f"\xff{sep}docid{sep}relevance\n0{sep}0{sep}0\n".encode("latin-1"))
    run.write_text("0 Q0 0 1 1 tag\n")
    code, out, err = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "P@5")
    assert (code, out) == (2, "")
    assert err == f"prfeval: {qrels}:1: the header is not UTF-8: column names must be text\n"
