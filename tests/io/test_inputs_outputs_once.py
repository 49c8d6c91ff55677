"""Each input is read once, and each output has a file of its own.

``curve QRELS RUN_A RUN_B`` read QRELS once per run, so a FIFO hung and standard input gave
"no judgments" the second time; ``-o X --plot X`` wrote one result over the other and exited
0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from support.cli import run_cli
from support.hand_made import write_texts

QRELS = "q1 0 a 1\nq1 0 b 1\nq2 0 c 1\n"
RUN_A = "q1 Q0 a 1 3 A\nq1 Q0 x 2 2 A\nq2 Q0 c 1 1 A\n"
RUN_B = "q1 Q0 x 1 3 B\nq1 Q0 b 2 2 B\nq2 Q0 y 1 1 B\n"


@pytest.fixture
def runs(tmp_path) -> tuple[str, str]:
    a, b = write_texts(tmp_path, {"a.run": RUN_A, "b.run": RUN_B})
    return a, b


def prfeval(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "prfeval", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_curve_of_two_runs_reads_judgments_from_stdin_once(runs, tmp_path) -> None:
    (tmp_path / "qrels").write_text(QRELS)
    want = prfeval("curve", str(tmp_path / "qrels"), *runs, "--format", "json")
    got = prfeval("curve", "-", *runs, "--format", "json", stdin=QRELS)
    assert want.returncode == 0 and got.returncode == 0, got.stderr
    from_stdin, from_file = json.loads(got.stdout)["runs"], json.loads(want.stdout)["runs"]
    for name in ("a.run", "b.run"):
        from_file[name].pop("settings", None), from_stdin[name].pop("settings", None)
    assert from_stdin == from_file
    # B finds b (1 of 2 relevant) for q1 at k = 2, and nothing for q2.
    assert from_stdin["b.run"]["queries"]["q1"]["tp"][:2] == [0, 1]


def test_curve_of_two_runs_reads_a_fifo_of_judgments(runs, tmp_path) -> None:
    fifo = tmp_path / "qrels.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as f:  # blocks until prfeval opens it, once
            f.write(QRELS)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = prfeval("curve", str(fifo), *runs)
    writer.join(timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Run a.run" in done.stdout and "Run b.run" in done.stdout


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        ("curve", []),
        ("compare", ["B"]),
    ],
)
def test_one_file_for_two_outputs_is_refused(runs, tmp_path, capsys, command, extra) -> None:
    (tmp_path / "qrels").write_text(QRELS)
    target = tmp_path / "out.svg"
    argv = [command, str(tmp_path / "qrels"), *runs] if extra else [
        command, str(tmp_path / "qrels"), runs[0]
    ]
    for other in (str(target), os.path.relpath(target)):
        code, out, err = run_cli(capsys, *argv, "-o", str(target), "--plot", other)
        assert code == 2 and out == ""
        assert "named for two outputs" in err and "each result needs a file of its own" in err
        assert not target.exists()
    target.write_text("")
    link = tmp_path / "link.svg"
    link.symlink_to(target)
    code, _, err = run_cli(capsys, *argv, "-o", str(link), "--plot", str(target))
    assert code == 2 and "named for two outputs" in err


def test_classify_with_one_file_for_table_and_plot(tmp_path, capsys) -> None:
    table = tmp_path / "labels.csv"
    table.write_text("y,p,s\n1,1,0.9\n0,1,0.6\n0,0,0.2\n1,0,0.4\n")
    target = tmp_path / "out.svg"
    code, _, err = run_cli(capsys, "classify", str(table), "--true", "y", "--pred", "p",
                           "--score", "s", "-o", str(target), "--plot", str(target))
    assert code == 2 and "named for two outputs" in err and not target.exists()


@pytest.mark.parametrize("command", ["evaluate", "curve", "compare"])
def test_a_fifo_named_as_two_inputs_is_refused_at_once(tmp_path, command) -> None:
    """A FIFO can be read once: named as the judgments and a run, the second reading would
    wait for ever. Refused before anything is opened (no writer ever comes here)."""
    fifo = tmp_path / "both.fifo"
    os.mkfifo(fifo)
    done = prfeval(command, str(fifo), str(fifo), *([str(fifo)] if command == "compare" else []))
    assert done.returncode == 2
    assert "is not a regular file and is given twice" in done.stderr
