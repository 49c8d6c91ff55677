"""docs/sizing.md's worked example, performed on the demo's Cranfield runs, and
docs/measures.md's "Your own measure", performed as it says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import prfeval
from prfeval._measures import REGISTRY, forget_user_measure
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
SIZING = (ROOT / "docs" / "sizing.md").read_text()
MEASURES = (ROOT / "docs" / "measures.md").read_text()


def test_the_sizing_example_is_the_demos_output(cranfield_demo, capsys) -> None:
    pytest.importorskip("scipy")
    out = cranfield_demo.out
    code, printed, err = run_cli(
        capsys, "power", str(out / "qrels.trec"), f"run={out / 'run.trec'}",
        f"run2={out / 'run2.trec'}", "-m", "nDCG@10 P@10 AP", "--delta", "0.01",
    )
    assert code == 0, err
    for line in printed.splitlines():
        if re.match(r"\s+(nDCG@10|P@10|AP)\s+225", line):
            assert line in SIZING, line
    assert "225 queries are too few to detect a drop of 0.01" in " ".join(SIZING.split())


def test_the_planning_lines_print_what_the_page_says() -> None:
    pytest.importorskip("scipy")
    assert [round(prfeval.detectable_diff(0.07, n), 4) for n in (25, 50, 100, 225, 500)] == [
        0.0409, 0.0283, 0.0198, 0.0131, 0.0088]
    assert (prfeval.queries_needed(0.07, 0.02), prfeval.queries_needed(0.07, 0.01)) == (99, 387)
    assert "[0.0409, 0.0283, 0.0198, 0.0131, 0.0088]" in SIZING and "(99, 387)" in SIZING


def test_your_own_measure_as_the_docs_say(tmp_path, capsys) -> None:
    section = MEASURES.split("## Your own measure")[1].split("\n## ")[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    (tmp_path / "my_measures.py").write_text(code)
    qrels = "1 0 a 2\n1 0 b 1\n2 0 c 1\n"
    run = "1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 b 3 1 r\n2 Q0 y 1 2 r\n2 Q0 c 2 1 r\n"
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.txt").write_text(run)
    before = set(REGISTRY)
    try:
        status, out, err = run_cli(
            capsys, "evaluate", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), "-m",
            "LinDCG@10 nDCG@10", "--measures-from", str(tmp_path / "my_measures.py"), "-q",
            "--format", "json",
        )
        assert status == 0, err

        per_query = json.loads(out)["per_query"]
        # By hand: query 1 gains 2, 0, 1 at ranks 1-3; query 2 gains 0, 1.
        assert per_query["1"]["LinDCG@10"] == pytest.approx(2 + 1 / np.log2(4))
        assert per_query["2"]["LinDCG@10"] == pytest.approx(1 / np.log2(3))
    finally:
        for name in set(REGISTRY) - before:
            forget_user_measure(name)
