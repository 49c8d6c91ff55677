"""Progress bars: on stderr only, when stderr is a terminal (a pseudo-terminal here) or when
asked for, never with ``--quiet`` or ``progress=False``, never when stderr is not a terminal,
and never on stdout; the numbers are the same with or without a bar. The bars' delay is set
to 0 so that a bar shows at once: no test waits for a clock."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import textwrap

import pytest
import pytrec_eval

import prfeval
from prfeval._core import progress as progress_module
from prfeval._core.progress import reporter
from prfeval.cli._output import progress_bar
from support.random_data import Noisy, distinct, judged_runs


@pytest.fixture
def no_delay(monkeypatch):
    monkeypatch.setattr(progress_module, "DELAY", 0.0)


def test_no_bar_when_stderr_is_not_a_terminal(capsys, monkeypatch, no_delay) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    with progress_bar("reading", total=3) as update:
        update(2, 3)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(("unit", "shown"), [("bytes", "reading"), ("runs", "2/3")])
def test_bar_on_stderr_only(capsys, monkeypatch, no_delay, unit: str, shown: str) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with progress_bar("reading", unit=unit, total=3) as update:
        update(2, 3)
    out, err = capsys.readouterr()
    assert out == ""
    assert "reading" in err and (shown in err or unit == "bytes")


def test_a_function_is_called_and_false_draws_nothing(capsys, no_delay) -> None:
    seen = []
    with reporter(lambda done, total: seen.append((done, total)), "x") as update:
        assert update is not None
        update(1, 2)
    with reporter(False, "x") as update:
        assert update is None
    assert seen == [(1, 2)] and capsys.readouterr() == ("", "")


def _case():
    qrels, (a, b) = judged_runs(8, queries=[f"q{i}" for i in range(6)], n_docs=20, judged=14,
                                grades=(0, 2), retrieved=12, scores=distinct(),
                                also=[Noisy(sd=6.0, decimals=3)])  # fmt: skip
    return qrels, a, b


def test_compare_in_python_draws_a_bar_when_asked_and_not_with_false(capsys, no_delay) -> None:
    qrels, a, b = _case()
    shown = prfeval.compare(qrels, {"a": a, "b": b}, "P@5 AP", n_permutations=300,
                            progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "comparing" in err and "3/3" in err  # two runs read, then the draws
    hidden = prfeval.compare(qrels, {"a": a, "b": b}, "P@5 AP", n_permutations=300,
                             progress=False)
    assert capsys.readouterr() == ("", "")
    assert shown.to_dict() == hidden.to_dict()
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"P_5"}).evaluate(b)
    assert shown.row("P@5", "b").macro == pytest.approx(
        sum(v["P_5"] for v in ref.values()) / len(ref), abs=1e-12)


def test_progress_must_be_a_bool_none_or_a_function() -> None:
    qrels, a, _ = _case()
    with pytest.raises(prfeval.UsageError, match="progress must be True, False, None"):
        prfeval.evaluate(qrels, a, "P@5", progress="yes")


def _in_a_terminal(tmp_path, argv: list[str]) -> tuple[int, bytes, bytes]:
    """``prfeval argv`` with stderr on a pseudo-terminal and stdout on a pipe: (exit status,
    stdout, what the terminal got)."""
    script = textwrap.dedent(f"""
        import prfeval._core.progress as p
        p.DELAY = 0.0
        from prfeval.cli import main
        main({argv!r})
        """)
    master, slave = pty.openpty()
    # A new pseudo-terminal is 0 columns wide; a real one has a size.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        done = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=slave,
                                stdin=subprocess.DEVNULL)  # fmt: skip
        os.close(slave)
        slave = -1
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other end closed: the process is done with the terminal
                break
            if not chunk:
                break
            seen += chunk
        out = done.stdout.read() if done.stdout is not None else b""
        status = done.wait(timeout=300)
    finally:
        os.close(master)
        if slave != -1:
            os.close(slave)
    return status, out, seen


@pytest.mark.slow
@pytest.mark.process
def test_compare_on_a_terminal_shows_a_bar_and_quiet_shows_none(tmp_path) -> None:
    qrels, a, b = _case()
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, gs in qrels.items()
                                            for d, g in gs.items()))
    for name, run in (("a", a), ("b", b)):
        (tmp_path / name).write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, ds in run.items()
                                             for d, s in ds.items()))
    argv = ["compare", "qrels", "a", "b", "-m", "P@5 AP", "--permutations", "300"]
    status, out, terminal = _in_a_terminal(tmp_path, argv)
    assert status == 0 and b"comparing" in terminal and b"comparing" not in out
    status_q, out_q, terminal_q = _in_a_terminal(tmp_path, [*argv, "--quiet"])
    assert status_q == 0 and terminal_q == b""
    assert out_q == out  # the same numbers, byte for byte
    piped = subprocess.run([sys.executable, "-m", "prfeval", *argv], cwd=tmp_path,
                           capture_output=True, check=False, timeout=300)  # fmt: skip
    assert piped.returncode == 0 and piped.stderr == b"" and piped.stdout == out
