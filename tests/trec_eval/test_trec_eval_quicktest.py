"""trec_eval 9.0.8's own ``make quicktest``, through ``prfeval trec_eval``, byte for byte.

``tests/data/trec_eval_quicktest`` holds the inputs of trec_eval 9.0.8's ``test/`` directory
and the outputs it ships for them (``out.test*``), which its Makefile's ``quicktest`` target
diffs against. Each line of that target is a case here, with its arguments as the Makefile
writes them (run from a folder where ``test/`` is that data). With ``TREC_EVAL`` set to a built
binary, the binary is held to the same outputs.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import trec_eval_in_process

DATA = Path(__file__).parents[1] / "data" / "trec_eval_quicktest"

#: trec_eval 9.0.8's Makefile, target quicktest: (arguments, expected output).
QUICKTEST: list[tuple[str, str]] = [
    ("test/qrels.test test/results.test", "out.test"),
    ("-m all_trec test/qrels.test test/results.test", "out.test.a"),
    ("-m all_trec -q test/qrels.test test/results.test", "out.test.aq"),
    ("-m all_trec -q -c test/qrels.test test/results.trunc", "out.test.aqc"),
    ("-m all_trec -q -c -M100 test/qrels.test test/results.trunc", "out.test.aqcM"),
    ("-m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test", "out.test.aql"),
    ("-m all_prefs -q -R prefs test/prefs.test test/prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R qrels_prefs test/qrels.test test/results.test", "out.test.qrels_prefs"),
    ("-m qrels_jg -q -R qrels_jg  test/qrels.123 test/results.test", "out.test.qrels_jg"),
    (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
        "test/qrels.test test/results.test",
        "out.test.meas_params",
    ),
    ("-q -m all_trec -Z test/zscores_file test/qrels.test test/results.test", "out.test.aqZ"),
]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A folder whose ``test/`` is the quicktest data, as the Makefile's working directory."""
    (tmp_path / "test").symlink_to(DATA, target_is_directory=True)
    return tmp_path


def _run(command: list[str], workdir: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(command, cwd=workdir, capture_output=True, timeout=300, check=False)


@pytest.mark.parametrize(("args", "expected"), QUICKTEST, ids=[e for _, e in QUICKTEST])
def test_prfeval_passes_trec_eval_quicktest(
    args: str, expected: str, workdir: Path, monkeypatch: pytest.MonkeyPatch,
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    """In this process, from the Makefile's working directory."""
    monkeypatch.chdir(workdir)
    status, stdout, stderr = trec_eval_in_process(capfdbinary)(shlex.split(args))
    assert stderr == b""
    assert status == 0
    assert stdout == (DATA / expected).read_bytes()


def test_the_quicktest_as_a_separate_process(workdir: Path) -> None:
    """Its all_trec -q line through ``python -m prfeval``, as a script would call it."""
    args, expected = QUICKTEST[2]
    got = _run([sys.executable, "-m", "prfeval", "trec_eval", *shlex.split(args)], workdir)
    assert (got.returncode, got.stderr) == (0, b"")
    assert got.stdout == (DATA / expected).read_bytes()


@pytest.mark.skipif(not os.environ.get("TREC_EVAL"), reason="TREC_EVAL names no built binary")
@pytest.mark.parametrize(("args", "expected"), QUICKTEST, ids=[e for _, e in QUICKTEST])
def test_the_binary_passes_its_quicktest(args: str, expected: str, workdir: Path) -> None:
    got = _run([os.environ["TREC_EVAL"], *shlex.split(args)], workdir)
    assert (got.returncode, got.stdout) == (0, (DATA / expected).read_bytes())
