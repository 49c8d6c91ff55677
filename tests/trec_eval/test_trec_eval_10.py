"""``prfeval trec_eval --trec-eval-version 10`` against trec_eval 10.0, byte for byte.

The expected outputs are trec_eval 10.0's own: the ``out.test*`` files its ``make quicktest``
diffs against, and what the built binary printed on seeded random cases
(``tests/data/trec_eval_10_cases.json``, written by ``tests/trec_eval/trec_eval_10_cases.py``).
Each case runs in-process through :func:`prfeval._trec_eval.driver.main`, and its stdout, stderr
and exit status must equal 10.0's. With ``TREC_EVAL_10`` naming a built 10.0 binary, the
binary is run live on the same cases too.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from trec_eval_10_cases import EXPECTED, QUICKTEST, link_fixtures, random_cases, run_case

from prfeval._trec_eval.driver import main

CASES = json.loads(EXPECTED.read_text())
RANDOM: dict[str, dict[str, object]] = CASES["random"]
BINARY = os.environ.get("TREC_EVAL_10")
needs_binary = pytest.mark.skipif(
    not BINARY, reason="TREC_EVAL_10 names no built trec_eval 10.0 binary"
)


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


@pytest.mark.parametrize(("args", "expected"), QUICKTEST, ids=[a for a, _ in QUICKTEST])
def test_prfeval_passes_trec_eval_10_quicktest(args: str, expected: str, workdir: Path) -> None:
    out, err, status = in_process(shlex.split(args))
    assert (status, err) == (0, b"")
    assert out == (workdir / "test" / expected).read_bytes()


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_same_bytes_and_status_as_trec_eval_10(name: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    case = RANDOM[name]
    assert case == {**case, **random_cases()[name]}  # the inputs are regenerated identically
    (tmp_path / "qrels").write_text(str(case["qrels"]))
    (tmp_path / "run").write_text(str(case["run"]))
    monkeypatch.chdir(tmp_path)
    stdin = bool(case["stdin"])
    argv = [*case["args"], "qrels", "-" if stdin else "run"]  # type: ignore[misc]
    out, err, status = in_process(argv, str(case["run"]).encode() if stdin else b"")
    assert (status, err.decode(), out.decode()) == (
        case["status"], case["stderr"], case["stdout"]
    )


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


@needs_binary
@pytest.mark.parametrize("name", sorted(RANDOM))
def test_the_binary_still_prints_the_expected_outcome(name: str, tmp_path: Path) -> None:
    case = RANDOM[name]
    got = run_case([str(BINARY)], case, tmp_path)
    assert got == {k: case[k] for k in ("stdout", "stderr", "status")}
