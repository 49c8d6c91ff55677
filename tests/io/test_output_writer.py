"""``-o`` and every file prfeval writes: what a name stands for decides how it is written.

Issue 16, cases 1, 2, 15 and 17: a regular file is replaced only once the result is complete
(mode 0666 minus the umask, a link followed to its target), a special file is written into
and never replaced, a directory or a name ending in ``/`` is refused, an output that is one
of the inputs is refused, SIGTERM and SIGHUP leave no temporary file, and messages name the
target, never the temporary file.

Special files are only ever ones these tests make themselves (a FIFO, a pty, a pipe): never
/dev/null or another device of the machine.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from prfeval._core.errors import OutputError, UsageError
from prfeval._io.atomic import check_not_an_input, open_output, write_atomic
from support.cli import run_cli

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\nq2 0 d5 1\nq3 0 d6 1\n"
RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d9 3 1.0 r\nq2 Q0 d4 1 2.0 r\nq2 Q0 d7 2 1.0 r\n"
EXPECTED = "P@2                   \tall\t0.5000\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def evaluate_to(capsys, files, target: str) -> tuple[int, str, str]:
    return run_cli(capsys, "evaluate", *files, "-m", "P@2", "--format", "trec", "-o", target)


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# -- case 1: what the name stands for ------------------------------------------------------


def test_regular_file_mode_is_0666_minus_the_umask(files, tmp_path, capsys) -> None:
    old = os.umask(0o022)
    try:
        code, _, _ = evaluate_to(capsys, files, str(tmp_path / "new.txt"))
        os.umask(0o077)
        code2, _, _ = evaluate_to(capsys, files, str(tmp_path / "private.txt"))
    finally:
        os.umask(old)
    assert code == code2 == 0
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644  # was 0600
    assert stat.S_IMODE((tmp_path / "private.txt").stat().st_mode) == 0o600
    assert (tmp_path / "new.txt").read_text() == EXPECTED


def test_a_replaced_file_keeps_its_mode(files, tmp_path, capsys) -> None:
    target = tmp_path / "kept.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    assert evaluate_to(capsys, files, str(target))[0] == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.read_text() == EXPECTED


def test_symlink_is_followed_and_stays_a_link(files, tmp_path, capsys) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real.name)
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to("made.txt")
    assert evaluate_to(capsys, files, str(link))[0] == 0
    assert evaluate_to(capsys, files, str(dangling))[0] == 0
    assert link.is_symlink() and dangling.is_symlink()
    assert real.read_text() == EXPECTED
    assert (tmp_path / "made.txt").read_text() == EXPECTED
    assert leftovers(tmp_path) == []


def test_fifo_is_written_into_not_replaced(files, tmp_path, capsys) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    # The reading end is open before prfeval runs, so that nothing depends on a thread
    # opening it in time (a reader started on a thread lost that race on a busy machine).
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        code, _, _ = evaluate_to(capsys, files, str(fifo))
        got = b""
        while chunk := os.read(reader, 1 << 16):  # the writer has closed: read to the end
            got += chunk
    finally:
        os.close(reader)
    assert code == 0
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still a FIFO, not a regular file
    assert got == EXPECTED.encode()


def test_terminal_is_written_into_not_replaced(files, tmp_path) -> None:
    """A pty the test opens stands for /dev/tty, /dev/null and every character device."""
    master, slave = os.openpty()
    try:
        name = os.ttyname(slave)
        done = subprocess.run(
            [sys.executable, "-m", "prfeval", "evaluate", *files, "-m", "P@2", "--format",
             "trec", "-o", name],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert os.read(master, 1000).replace(b"\r\n", b"\n") == EXPECTED.encode()
        assert stat.S_ISCHR(os.stat(name).st_mode)
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize("form", ["/dev/fd/{fd}", "/proc/self/fd/{fd}"])
def test_descriptor_names_write_through_the_descriptor(files, form, tmp_path) -> None:
    """/dev/stdout is /dev/fd/1: the descriptor is written, whatever it is (here a pipe)."""
    if not Path(form.format(fd=0)).parent.exists():
        pytest.skip(f"no {Path(form).parent} here")
    read_end, write_end = os.pipe()
    done = subprocess.run(
        [sys.executable, "-m", "prfeval", "evaluate", *files, "-m", "P@2", "--format", "trec",
         "-o", form.format(fd=write_end)],
        capture_output=True, text=True, timeout=60, pass_fds=(write_end,),
    )  # fmt: skip
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        assert pipe.read() == EXPECTED.encode()
    assert done.returncode == 0, done.stderr


def test_dev_stdout_into_a_file_opened_for_appending(files, tmp_path) -> None:
    """``-o /dev/stdout >> log``: written through stdout, so the log is appended to."""
    log = tmp_path / "log.txt"
    log.write_text("before\n")
    with log.open("a") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "prfeval", "evaluate", *files, "-m", "P@2", "--format",
             "trec", "-o", "/dev/stdout"],
            stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "before\n" + EXPECTED


@pytest.mark.parametrize("kind", ["directory", "trailing slash", "missing folder/"])
def test_directories_are_refused(files, tmp_path, capsys, kind) -> None:
    (tmp_path / "adir").mkdir()
    target = {
        "directory": str(tmp_path / "adir"),
        "trailing slash": str(tmp_path / "adir") + "/",
        "missing folder/": str(tmp_path / "nowhere") + "/",
    }[kind]
    code, out, err = evaluate_to(capsys, files, target)
    assert code == 2 and out == ""
    assert err.startswith(f"prfeval: {target}: ") and err.count("\n") == 1
    assert (tmp_path / "adir").is_dir() and list((tmp_path / "adir").iterdir()) == []


def test_split_and_plots_write_through_the_same_writer(files, tmp_path, capsys) -> None:
    old = os.umask(0o022)
    try:
        out = tmp_path / "split"
        code, _, err = run_cli(capsys, "split", files[0], "--out", str(out))
        assert code == 0, err
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()}
        assert modes and set(modes.values()) == {0o644}, modes
        pytest.importorskip("matplotlib")
        figure = tmp_path / "f.svg"
        code, _, err = run_cli(capsys, "contours", "--plot", str(figure))
        assert code == 0, err
        assert stat.S_IMODE(figure.stat().st_mode) == 0o644
    finally:
        os.umask(old)


def test_the_writer_in_the_api() -> None:
    with pytest.raises(UsageError, match="empty"):
        write_atomic("", "x")
    with pytest.raises(UsageError, match="ends with '/'"), open_output("somewhere/"):
        pass


# -- case 17: messages name the target -----------------------------------------------------


@pytest.mark.parametrize("target", ["", "/proc/x", "/proc/self/nowhere/x"])
def test_messages_name_the_target_not_a_temporary_file(files, capsys, target) -> None:
    code, _, err = evaluate_to(capsys, files, target)
    assert code == 2
    assert ".tmp" not in err
    last = err.splitlines()[-1]  # /proc/x fails only when written: after the notes
    assert last.startswith(f"prfeval: {target}: ") if target else "empty" in last


def test_write_failure_names_the_target(tmp_path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):  # root writes anywhere: use a folder that is a file
            target = str(tmp_path / "afile" / "x.txt")
            (tmp_path / "afile").write_text("")
        else:
            target = str(locked / "x.txt")
        with pytest.raises(OutputError) as info:
            write_atomic(target, "x")
        assert str(info.value).startswith(f"{target}: cannot write")
    finally:
        locked.chmod(0o700)


# -- case 2: an output that is an input ----------------------------------------------------


def test_output_onto_an_input_is_refused_and_the_input_survives(files, tmp_path, capsys) -> None:
    qrels, run = files
    (tmp_path / "alias.txt").symlink_to("run.txt")
    for target in (run, qrels, str(tmp_path / "alias.txt"), str(tmp_path / "." / "run.txt")):
        code, out, err = evaluate_to(capsys, files, target)
        assert code == 2 and out == "", target
        assert "is also an input" in err and err.count("\n") == 1
    assert Path(run).read_text() == RUN and Path(qrels).read_text() == QRELS


def test_output_onto_stdin_is_refused(files, tmp_path) -> None:
    qrels, run = files
    with open(run, "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "prfeval", "evaluate", qrels, "-", "-o", run],
            stdin=stdin, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 2
    assert "standard input" in done.stderr
    assert Path(run).read_text() == RUN


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "{qrels}", "{run}", "-o", "{run}"],
        ["evaluate", "{qrels}", "{run}", "--queries", "{ids}", "-o", "{ids}"],
        ["curve", "{qrels}", "{run}", "-o", "{run}"],
        ["curve", "{qrels}", "{run}", "--plot", "{qrels}"],
        ["compare", "{qrels}", "{run}", "{run2}", "-o", "{run2}"],
        ["compare", "{qrels}", "{run}", "{run2}", "--plot", "{run}"],
        ["classify", "{labels}", "-o", "{labels}"],
        ["classify", "{labels}", "--score", "score", "--plot", "{labels}"],
        ["split", "{split_qrels}", "--out", "{split_dir}"],
        ["explain", "{qrels}", "{run}", "--query", "q1", "-o", "{run}"],
        ["report", "{qrels}", "{run}", "--no-figures", "-o", "{qrels}"],
        ["report", "--classify", "{labels}", "--no-figures", "-o", "{labels}"],
    ],
)
def test_every_command_refuses_to_overwrite_an_input(tmp_path, capsys, argv) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "run2.txt").write_text(RUN)
    (tmp_path / "ids.txt").write_text("q1\nq2\n")
    (tmp_path / "labels.csv").write_text("true,pred,score\na,a,0.9\nb,a,0.2\n")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "dev.qrels").write_text(QRELS)
    names = {
        "qrels": tmp_path / "qrels.txt", "run": tmp_path / "run.txt",
        "run2": tmp_path / "run2.txt", "ids": tmp_path / "ids.txt",
        "labels": tmp_path / "labels.csv", "split_qrels": tmp_path / "s" / "dev.qrels",
        "split_dir": tmp_path / "s",
    }  # fmt: skip
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code, _, err = run_cli(capsys, *(a.format(**names) for a in argv))
    assert code == 2, err
    assert "is also an input" in err and err.count("\n") == 1
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_check_not_an_input_in_the_api(tmp_path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("x")
    check_not_an_input([tmp_path / "b.txt", None, "-"], [a, None])
    with pytest.raises(UsageError, match="is also an input"):
        check_not_an_input([a], [str(a)])


# -- case 15: signals while writing --------------------------------------------------------

SIGNAL_SCRIPT = r"""
import os, signal, sys
# As at a terminal: a shell's background job (nohup, &) starts with SIGINT ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)
import prfeval.cli._output as output
from prfeval._io.atomic import open_output

def interrupted_write(path, text):
    with open_output(path) as handle:
        handle.write(b"x" * 1_000_000)  # the temporary file exists, half written
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        handle.write(text.encode())

output.write_atomic = interrupted_write
from prfeval.cli import main
main(["evaluate", sys.argv[2], sys.argv[3], "-o", sys.argv[4]])
"""


@pytest.mark.process
@pytest.mark.parametrize(("name", "code"), [("SIGTERM", 143), ("SIGHUP", 129), ("SIGINT", 130)])
def test_a_signal_while_writing_leaves_no_temporary_file(files, tmp_path, name, code) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "result.txt"
    target.write_text("previous\n")
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_SCRIPT, name, *files, str(target)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    assert sorted(p.name for p in out_dir.iterdir()) == ["result.txt"]
    assert target.read_text() == "previous\n"
    # One line (after Ctrl-C, click first ends the line the terminal shows ^C on).
    assert "Traceback" not in done.stderr and done.stderr.strip().count("\n") == 0


@pytest.mark.process
def test_sigterm_while_waiting_for_input(files, tmp_path) -> None:
    """Blocked reading a FIFO nobody finishes writing: SIGTERM still ends it, with 143."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    process = subprocess.Popen(
        [sys.executable, "-m", "prfeval", "evaluate", files[0], str(fifo)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    with open(fifo, "w") as writer:  # opened: the reader is now inside read()
        writer.write("q1 Q0 d1 1 3.0 r\n")
        writer.flush()
        import time

        time.sleep(0.5)
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    assert "Traceback" not in err
