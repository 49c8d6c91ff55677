"""``prfeval ... | head -1``: the reader of stdout reads a little and goes away; exit 141.

The promise (docs/robustness.md, README): when the reader of standard output goes away before
the output is all written, prfeval exits 141 (128 + SIGPIPE) and prints nothing more, no
traceback. tests/cli/test_cli_contract.py closes the pipe before the command writes anything; here
the reader takes the first bytes, as ``head`` does, and closes its end while the command is
in the middle of writing, which is when the output used to be cut short without an error
and the exit status was 0: with ``PYTHONUNBUFFERED=1`` (set in many containers and CI jobs)
Python's stdout writes straight into the pipe, and the part of a write the pipe did not take
was dropped. Both settings are tested, for every command that writes a result to stdout.

The pipe is shrunk to one page (Linux's ``F_SETPIPE_SZ``), so that every output here is more
than twice what it holds: the command cannot have written it all before the reader goes.
No test depends on timing; each has a timeout, and a command that hangs is killed and fails.
"""

from __future__ import annotations

import fcntl
import os
import random
import select
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import run_cli

PY = [sys.executable, "-m", "prfeval"]
PIPE_BYTES = 4096
TIMEOUT = 120  # seconds: generous, for a loaded machine; only a hang reaches it

pytestmark = pytest.mark.skipif(
    not hasattr(fcntl, "F_SETPIPE_SZ"), reason="needs Linux's F_SETPIPE_SZ to shrink a pipe"
)

#: Every command that writes a result to stdout, with an output far larger than the pipe.
COMMANDS = {
    "evaluate -q": ["evaluate", "-q", "{d}/qrels.trec", "{d}/a.trec"],
    "trec_eval -q": ["trec_eval", "-q", "{d}/qrels.trec", "{d}/a.trec"],
    "curve": ["curve", "--format", "csv", "{d}/qrels.trec", "{d}/a.trec"],
    "explain": ["explain", "--worst", "20", "{d}/qrels.trec", "{d}/a.trec"],
    "measures": ["measures"],
    "compare": ["compare", "{d}/qrels.trec", "{d}/a.trec", "{d}/b.trec", "{d}/c.trec",
                "{d}/e.trec", "-m", "P@5 P@10 P@20 P@30 R@5 R@10 R@20 R@30 AP nDCG@10 "
                "nDCG@20 RR SetP SetR SetF",
                "--permutations", "50", "--bootstrap", "50"],
}  # fmt: skip


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 judged queries and four runs of 30 documents each, made up (seeded)."""
    d = tmp_path_factory.mktemp("pipe")
    rng = random.Random(141)
    qrels = []
    runs: dict[str, list[str]] = {name: [] for name in "abce"}
    for q in range(1, 301):
        qrels += [f"{q} 0 d{doc} {rng.randint(0, 2)}\n" for doc in rng.sample(range(60), 10)]
        for name, lines in runs.items():
            docs = rng.sample(range(60), 30)
            lines += [f"{q} Q0 d{doc} {r + 1} {30 - r} {name}\n" for r, doc in enumerate(docs)]
    (d / "qrels.trec").write_text("".join(qrels))
    for name, lines in runs.items():
        (d / f"{name}.trec").write_text("".join(lines))
    return d


def _read_a_little_and_leave(args: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run prfeval with stdout on a one-page pipe, read its first bytes, close the pipe;
    (exit status, the bytes read, stderr)."""
    read_end, write_end = os.pipe()
    try:
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        process = subprocess.Popen(
            [*PY, *args], stdout=write_end, stderr=subprocess.PIPE, env=env
        )
    finally:
        os.close(write_end)  # the child's copy is the only writer left
    try:
        ready, _, _ = select.select([read_end], [], [], TIMEOUT)
        first = os.read(read_end, 100) if ready else b""
    finally:
        os.close(read_end)  # the reader goes away, as head does after its line
    try:
        _, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"prfeval {' '.join(args)} did not end after its reader went away")
    return process.returncode, first, err


@pytest.mark.parametrize("unbuffered", [True, False], ids=["PYTHONUNBUFFERED=1", "buffered"])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_reader_going_away_mid_output_exits_141(name, unbuffered, data) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    args = [a.replace("{d}", str(data)) for a in COMMANDS[name]]
    code, first, err = _read_a_little_and_leave(args, env)
    assert first, f"prfeval {name} wrote nothing: {err.decode(errors='replace')}"
    assert code == 141, f"prfeval {name} exited {code}: {err.decode(errors='replace')}"
    assert b"Traceback" not in err and b"Exception ignored" not in err, err
    assert b"Broken pipe" not in err and b"BrokenPipeError" not in err, err


def test_the_outputs_are_larger_than_the_pipe(data, capsys) -> None:
    """The premise of the test above, checked once: every output is more than twice what the
    pipe holds (read whole here, in this process: the size is the command's, not the
    process's)."""
    for name, template in COMMANDS.items():
        args = [a.replace("{d}", str(data)) for a in template]
        code, out, err = run_cli(capsys, *args)
        assert code == 0, err
        size = len(out.encode())
        assert size > 2 * PIPE_BYTES, (name, size)
