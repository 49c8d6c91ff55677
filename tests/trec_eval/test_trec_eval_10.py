"""``prfeval trec_eval --trec-eval-version 10`` against trec_eval 10.0, byte for byte.

The expected outputs are trec_eval 10.0's own: the ``out.test*`` files its ``make quicktest``
diffs against, each line run in-process through :func:`prfeval._trec_eval.driver.main`. The
seeded random cases the built binary printed (``tests/data/trec_eval_10_cases.json``,
written by ``tests/trec_eval/trec_eval_10_cases.py``) are replayed byte for byte by
``test_recorded_outputs.py``; here, what they must reach of 10.0's changes.
"""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import pytest
from trec_eval_10_cases import EXPECTED, QUICKTEST, link_fixtures, random_cases

from prfeval._trec_eval.driver import main

CASES = json.loads(EXPECTED.read_text())
RANDOM: dict[str, dict[str, object]] = CASES["random"]


def in_process(argv: list[str], stdin: bytes = b"") -> tuple[bytes, bytes, int]:
    """stdout, stderr and status of ``prfeval trec_eval --trec-eval-version 10 argv``."""
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    streams = (
        io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", newline="\n", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", newline="\n", write_through=True),
    )
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        status = main(["--trec-eval-version", "10", *argv])
        for s in streams[1:]:
            s.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    got = out.getvalue(), err.getvalue(), status
    for s in streams:
        s.detach()  # leave the buffers to the garbage collector, unclosed
    return got


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    link_fixtures(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_quicktest_line_has_a_case() -> None:
    assert [c["args"] for c in CASES["quicktest"]] == [a for a, _ in QUICKTEST]
    assert set(RANDOM) == set(random_cases())
    for name, case in random_cases().items():  # the inputs are regenerated identically
        assert {k: RANDOM[name][k] for k in case} == case


@pytest.mark.parametrize(("args", "expected"), QUICKTEST, ids=[a for a, _ in QUICKTEST])
def test_prfeval_passes_trec_eval_10_quicktest(args: str, expected: str, workdir: Path) -> None:
    out, err, status = in_process(shlex.split(args))
    assert (status, err) == (0, b"")
    assert out == (workdir / "test" / expected).read_bytes()


def test_cases_cover_each_difference_of_10() -> None:
    """The random cases reach what 10.0 changed: its new measures, comments, stdin, the
    stop at a judged query without results, and -c's rows for such queries."""
    outputs = "".join(str(c["stdout"]) for c in RANDOM.values())
    for row in ("rbp  ", "rbp_resid", "unj_5", "unj_8", "iprec_at_recall_0.33", "Rprec_mult_",
                "dcg  ", "ideal_dcg", "dcg_1=3,2=9,3=0.5"):
        assert row in outputs
    assert any("# note" in str(c["run"]) for c in RANDOM.values())
    assert any("# note" in str(c["qrels"]) for c in RANDOM.values())
    assert any(c["stdin"] for c in RANDOM.values())
    assert any("not found in qrels" in str(c["stderr"]) for c in RANDOM.values())
    assert any("\tq_missing\t" in str(c["stdout"]) for c in RANDOM.values())


