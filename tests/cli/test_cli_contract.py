"""Every command keeps the command line's promises (docs/robustness.md), as a process.

Issue 16, case 13 and "beyond the list": with stdout closed (``>&-``) a command says so in
one line and exits 2, before any work; with an input that does not exist, one line naming it
and exit 2; with stdin closed (``<&-``), one line; when the reader of stdout goes away
(``| head``), a quiet exit. Never a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from prfeval.cli import COMMANDS
from support import SMALL_QRELS, SMALL_RUN
from support.cli import run_cli

PY = [sys.executable, "-m", "prfeval"]

#: A working invocation of every command ({d}: a folder of inputs; {out}: a fresh folder).
INVOCATIONS = {
    "classify": ["classify", "{d}/labels.csv"],
    "compare": ["compare", "{d}/qrels.txt", "{d}/run.txt", "{d}/run2.txt", "--permutations",
                "10", "--bootstrap", "10"],
    "contours": ["contours", "--plot", "{out}/c.png"],
    "curve": ["curve", "{d}/qrels.txt", "{d}/run.txt"],
    "demo": ["demo", "--out", "{out}/demo", "--no-plots"],
    "evaluate": ["evaluate", "{d}/qrels.txt", "{d}/run.txt"],
    "explain": ["explain", "{d}/qrels.txt", "{d}/run.txt", "--query", "q1"],
    "report": ["report", "{d}/qrels.txt", "{d}/run.txt", "--no-figures", "-o",
               "{out}/report.html"],
    "means": ["means", "0.4,0.8"],
    "measures": ["measures"],
    "split": ["split", "{d}/qrels.txt", "--out", "{out}/split"],
    "trec_eval": ["trec_eval", "{d}/qrels.txt", "{d}/run.txt"],
    "gate": ["gate", "{d}/qrels.txt", "{d}/run.txt", "{d}/run2.txt", "-m", "P@1"],
    "power": ["power", "{d}/qrels.txt", "{d}/run.txt", "{d}/run2.txt", "-m", "P@1"],
    "leakage": ["leakage", "--corpus", "{d}/corpus.jsonl", "--items", "{d}/items.jsonl"],
    "overlap": ["overlap", "{d}/corpus.jsonl", "{d}/items.jsonl"],
    "run-retriever": ["run-retriever", "--retriever", "builtins:str.split", "--queries",
                      "{d}/queries.tsv"],
}  # fmt: skip
#: The argument of each command that names an input file (commands without one: None).
INPUT_ARGUMENT = {
    "classify": 1, "compare": 1, "curve": 2, "evaluate": 2, "explain": 2, "report": 2,
    "split": 1, "trec_eval": 1, "contours": None, "demo": None, "means": None,
    "measures": None, "gate": 1, "power": 1, "leakage": 2, "overlap": 1,
    "run-retriever": 4,
}  # fmt: skip


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    (d / "qrels.txt").write_text(SMALL_QRELS)
    (d / "run.txt").write_text(SMALL_RUN)
    (d / "run2.txt").write_text(SMALL_RUN)
    (d / "labels.csv").write_text("true,pred\na,a\nb,a\n")
    (d / "corpus.jsonl").write_text('{"_id": "d", "text": "a b c d"}\n')
    (d / "items.jsonl").write_text('{"_id": "q", "text": "what is x y"}\n')
    (d / "queries.tsv").write_text("q1\tcat mat\n")
    return d


def argv(name: str, inputs: Path, tmp_path: Path) -> list[str]:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    return [a.format(d=inputs, out=out) for a in INVOCATIONS[name]]


def test_every_command_is_covered() -> None:
    assert set(INVOCATIONS) == set(COMMANDS) == set(INPUT_ARGUMENT)


def _close(fd: int):  # runs in the child before exec: the command starts with ``fd`` closed
    return lambda: os.close(fd)


#: Commands whose result always goes to a file (-o): stdout closed does not matter to them.
TO_A_FILE = {"report"}


@pytest.mark.process
@pytest.mark.parametrize("name", sorted(set(INVOCATIONS) - TO_A_FILE))
def test_closed_stdout_is_one_line_and_exit_2(name, inputs, tmp_path) -> None:
    """``prfeval ... >&-`` used to end in an AttributeError traceback."""
    done = subprocess.run(
        [*PY, *argv(name, inputs, tmp_path)], stderr=subprocess.PIPE, text=True, timeout=120,
        preexec_fn=_close(1),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr == "prfeval: standard output is closed: nowhere to write the result\n"
    assert list((tmp_path / "out").iterdir()) == []  # it failed before any work


@pytest.mark.parametrize("name", sorted(n for n, i in INPUT_ARGUMENT.items() if i is not None))
def test_a_nonexistent_input_is_one_line_naming_it(name, inputs, tmp_path, capsys) -> None:
    """In this process: the message and the exit are the CLI's, not the process's (the
    tests above and below run the process)."""
    args = argv(name, inputs, tmp_path)
    missing = str(tmp_path / "no-such-file.txt")
    args[INPUT_ARGUMENT[name]] = missing
    code, out, err = run_cli(capsys, *args)
    assert code == 2, err
    assert err.startswith(f"prfeval: {missing}: ") and err.count("\n") == 1
    assert "Traceback" not in err and out == ""


@pytest.mark.process
def test_closed_stdin_is_one_line_and_exit_2(inputs) -> None:
    done = subprocess.run(
        [*PY, "evaluate", str(inputs / "qrels.txt"), "-"], capture_output=True, text=True,
        timeout=60, preexec_fn=_close(0),
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == "prfeval: <stdin>: standard input is closed\n"


@pytest.mark.process
@pytest.mark.parametrize("name", sorted(TO_A_FILE))
def test_closed_stdout_does_not_stop_a_command_that_writes_a_file(name, inputs, tmp_path) -> None:
    done = subprocess.run(
        [*PY, *argv(name, inputs, tmp_path)], stderr=subprocess.PIPE, text=True, timeout=120,
        preexec_fn=_close(1),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "out").iterdir())


@pytest.mark.process
def test_closed_stdout_with_an_output_file_still_works(inputs, tmp_path) -> None:
    target = tmp_path / "result.txt"
    done = subprocess.run(
        [*PY, "evaluate", str(inputs / "qrels.txt"), str(inputs / "run.txt"), "-o",
         str(target)],
        stderr=subprocess.PIPE, text=True, timeout=60, preexec_fn=_close(1),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert target.read_text().startswith("  measure")


@pytest.mark.process
@pytest.mark.parametrize("name", ["evaluate", "measures", "curve"])
def test_a_broken_pipe_exits_quietly(name, inputs, tmp_path) -> None:
    """``prfeval ... | head``: the reader is gone; no message, no traceback, 141 (SIGPIPE)."""
    process = subprocess.Popen(
        [*PY, *argv(name, inputs, tmp_path), *(["-q"] if name == "evaluate" else [])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    process.stdout.close()  # before the command writes anything
    _, err = process.communicate(timeout=120)
    assert process.returncode == 141, err
    assert b"Traceback" not in err and b"Exception ignored" not in err
