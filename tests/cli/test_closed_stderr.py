"""Started with stderr closed (``2>&-``), every command still does its work and exits as it
would: notes go nowhere, results and exit statuses are unchanged (it used to exit 1 in
silence, on ``sys.stderr`` being None)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support import SMALL_RUN


def closed_stderr(*argv: str, cwd) -> subprocess.CompletedProcess[str]:
    """``python -m prfeval ARGV 2>&-``."""
    script = 'exec "$0" -m prfeval "$@" 2>&-'
    return subprocess.run(["sh", "-c", script, sys.executable, *argv], cwd=cwd,
                          capture_output=False, stdout=subprocess.PIPE, text=True,
                          timeout=300)  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["evaluate", "qrels", "run", "-m", "P@1"], 0),
        (["evaluate", "qrels", "missing"], 2),
        (["curve", "qrels", "run"], 0),
        (["compare", "qrels", "run", "run2"], 0),
        (["explain", "qrels", "run", "--query", "q1"], 0),
        (["report", "qrels", "run", "-o", "page.html", "--no-figures"], 0),
        (["trec_eval", "-m", "P.1", "qrels", "run"], 0),
    ],
)
def test_commands_with_stderr_closed(small_trec, tmp_path, argv, code) -> None:
    (tmp_path / "run2").write_text(SMALL_RUN.replace("x", "b"))
    done = closed_stderr(*argv, cwd=tmp_path)
    assert done.returncode == code
    if code == 0 and "-o" not in argv:
        assert done.stdout.strip()
    if "report" in argv:
        assert (tmp_path / "page.html").read_text().startswith("<!DOCTYPE html>")
