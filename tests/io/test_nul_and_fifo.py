"""A NUL byte is refused from a regular file as it is from a pipe (text files hold none,
docs/robustness.md); ``-o FIFO`` with no reader fails at once instead of waiting for ever."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import run_cli


@pytest.fixture
def files(small_trec) -> tuple[str, str]:
    return small_trec


@pytest.mark.parametrize("which", ["qrels", "run", "run --stream", "csv run"])
def test_a_nul_byte_in_a_regular_file_is_refused(files, tmp_path, capsys, which) -> None:
    qrels, run = files
    if which == "qrels":
        qrels = str(tmp_path / "nul.qrels")
        Path(qrels).write_text("q1 0 a\x00 1\nq1 0 b 1\n")
    elif which == "csv run":
        run = str(tmp_path / "nul.csv")
        Path(run).write_text("query_id,doc_id,score\nq1,a\x00,1\n")
    else:
        run = str(tmp_path / "nul.run")
        Path(run).write_text("q1 Q0 a\x00 1 2 r\n")
    extra = ["--stream"] if which.endswith("--stream") else []
    code, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", "P@1", *extra)
    assert code == 2 and out == ""
    assert "binary data (NUL bytes); expected a text file" in err
    # The same bytes through a pipe: the same refusal.
    argv = [sys.executable, "-m", "prfeval", "evaluate", qrels, "-", "-m", "P@1"]
    piped = subprocess.run(argv, input=Path(run).read_bytes(), capture_output=True, timeout=120)
    if which != "qrels":
        assert piped.returncode == 2 and b"NUL bytes" in piped.stderr


def test_parquet_is_binary_and_read(files, tmp_path, capsys) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]}), path)
    code, out, _ = run_cli(capsys, "evaluate", files[0], str(path), "-m", "P@1")
    assert code == 0 and "1.0000" in out


def test_output_to_a_fifo_nobody_reads_fails_at_once(files, tmp_path, capsys) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    code, _, err = run_cli(capsys, "evaluate", *files, "-m", "P@1", "-o", str(fifo))
    assert code == 2 and "no process is reading this FIFO" in err


def test_output_to_a_fifo_with_a_reader(files, tmp_path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # open before prfeval: no race
    try:
        done = subprocess.run([sys.executable, "-m", "prfeval", "evaluate", *files, "-m",
                               "P@1", "-o", str(fifo)], capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        written = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert b"P@1" in written and b"1.0000" in written
