"""What a recorded trec_eval case needs: a runner of a command, and the record of one run.

The case modules of ``tests/trec_eval`` (``trec_eval_*_cases.py``) each hold cases and the
outputs a built trec_eval binary printed on them (``tests/data/*.json``). A **runner** runs
one command line, ``run(args, stdin=b"") -> (exit status, stdout bytes, stderr bytes)``: the
binary as a process (:func:`binary_runner`), or ``prfeval trec_eval`` in the test's process
(:func:`support.cli.trec_eval_in_process`). ``tests/trec_eval/test_recorded_outputs.py``
replays every case module's cases through both.

A case module, run as a script with a built binary (``PYTHONPATH=tests python
tests/trec_eval/trec_eval_args_cases.py /path/to/trec_eval``), writes its expected outputs
again; only those outputs are committed, never the binary.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol


class Runner(Protocol):
    def __call__(self, args: list[str], stdin: bytes = b"") -> tuple[int, bytes, bytes]: ...


def binary_runner(binary: str) -> Runner:
    """A runner of the built trec_eval ``binary``, as a process."""

    def run(args: list[str], stdin: bytes = b"") -> tuple[int, bytes, bytes]:
        done = subprocess.run([binary, *args], input=stdin, capture_output=True, timeout=300,
                              check=False)  # fmt: skip
        return done.returncode, done.stdout, done.stderr

    return run


def recorded(command: Runner, args: list[str], qrels: Path, run: Path) -> dict[str, object]:
    """``command`` run on ``args`` and the two files: its status and output, with the files'
    paths replaced by QRELS and RUN so that the record holds in any folder."""
    status, stdout, stderr = command([*args, str(qrels), str(run)])
    stderr = stderr.replace(str(qrels).encode(), b"QRELS").replace(str(run).encode(), b"RUN")
    return {
        "argv": [*args, "QRELS", "RUN"],
        "status": status,
        "stderr": stderr.decode("latin-1"),
        "stdout": stdout.decode("latin-1"),
    }


def write_expected(binary: str, names: Iterable[str],
                   outcome: Callable[[Runner, str, Path], object], expected: Path) -> None:
    """Run the binary on every case and write what it printed to ``expected``."""
    run = binary_runner(binary)
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = {name: outcome(run, name, Path(tmp)) for name in names}
    expected.parent.mkdir(exist_ok=True)
    expected.write_text(json.dumps(outcomes, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(outcomes)} cases to {expected}")
