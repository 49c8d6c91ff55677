"""What the CLI tests share: running ``prfeval`` in-process."""

from __future__ import annotations

import io
import sys

import pytest

from prfeval.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``prfeval`` in-process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    out, err = capsys.readouterr()
    code = info.value.code
    return (0 if code is None else int(code)), out, err


def exit_code(argv: list[str]) -> int:
    """Run ``prfeval`` in-process: its exit code (the output stays with capsys)."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    return int(info.value.code or 0)


def trec_eval_in_process(capfd: pytest.CaptureFixture[bytes], *, version: str = "9.0.8"):
    """A runner of ``prfeval trec_eval`` in this process, shaped as a binary's runner
    (:class:`support.recordings.Runner`): ``run(args, stdin=b"") -> (exit status, stdout,
    stderr)``, the bytes written to the file descriptors as a separate process writes them (no
    decoding, so ids that are not UTF-8 stay as read). ``version="10"`` runs it as trec_eval
    10.0 (``--trec-eval-version 10`` first). Ask for ``capfdbinary``."""
    first = ["--trec-eval-version", "10"] if version == "10" else []

    def run(args: list[str], stdin: bytes = b"") -> tuple[int, bytes, bytes]:
        capfd.readouterr()  # what came before is not this command's
        saved = sys.stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        try:
            with pytest.raises(SystemExit) as info:
                main(["trec_eval", *first, *args])
        finally:
            sys.stdin.detach()
            sys.stdin = saved
        sys.stdout.flush()
        out, err = capfd.readouterr()
        return int(info.value.code or 0), out, err

    return run
