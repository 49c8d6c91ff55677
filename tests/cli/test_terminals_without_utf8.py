"""On a terminal that is not UTF-8 (a Windows console's cp1252, a CI runner's ascii), every
command prints the same numbers with ASCII in place of the characters the encoding lacks,
and exits as it would on UTF-8: it used to fail with UnicodeEncodeError, and ``gate`` to
exit 1 on a passing candidate."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq3 0 d 1\n"
RUN = "q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\nq2 Q0 c 1 1 r\nq3 Q0 x 1 2 r\nq3 Q0 d 2 1 r\n"
WORSE = "q1 Q0 b 1 2 r\nq1 Q0 a 2 1 r\nq2 Q0 x 1 1 r\nq3 Q0 x 1 2 r\nq3 Q0 y 2 1 r\n"
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def prfeval(folder: Path, encoding: str, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "prfeval", *argv], cwd=folder, env=env,
                          capture_output=True, timeout=300, check=False)  # fmt: skip


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    (tmp_path / "worse").write_text(WORSE)
    saved = prfeval(tmp_path, "utf-8", "evaluate", "qrels", "run", "-m", "P@1 nDCG@10",
                    "-q", "--format", "json", "-o", "baseline.json")
    assert saved.returncode == 0, saved.stderr
    return tmp_path


@pytest.mark.process
@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
@pytest.mark.parametrize("argv", [
    ["evaluate", "qrels", "run", "-m", "P@1 nDCG@10 SetF R@2"],
    ["compare", "qrels", "run", "worse", "-m", "P@1"],
    ["curve", "qrels", "run"],
])  # fmt: skip
def test_the_same_numbers_and_status_in_any_encoding(folder, encoding, argv) -> None:
    utf8 = prfeval(folder, "utf-8", *argv)
    other = prfeval(folder, encoding, *argv)
    assert (utf8.returncode, other.returncode) == (0, 0), other.stderr
    text = other.stdout.decode(encoding)
    assert text.isascii() or encoding == "cp1252"
    assert NUMBER.findall(text) == NUMBER.findall(utf8.stdout.decode("utf-8"))
    assert b"Traceback" not in other.stderr


@pytest.mark.process
@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_gate_exits_as_on_utf8(folder, encoding, fmt) -> None:
    passing = prfeval(folder, encoding, "gate", "qrels", "baseline.json", "run", "-m", "P@1",
                      "--format", fmt)
    assert passing.returncode == 0, passing.stderr
    assert b"pass" in passing.stdout
    failing = prfeval(folder, encoding, "gate", "qrels", "baseline.json", "worse", "-m", "P@1",
                      "--format", fmt)
    assert failing.returncode == 1, failing.stderr
    assert b"Traceback" not in passing.stderr + failing.stderr
