"""What the CLI tests share: running ``prfeval`` in-process."""

from __future__ import annotations

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


def trec_eval_in_process(capsys: pytest.CaptureFixture[str]):
    """A runner of ``prfeval trec_eval`` in this process, shaped as a binary's runner:
    ``run(args) -> (exit status, stdout, stderr)``, the outputs as bytes."""

    def run(args: list[str]) -> tuple[int, bytes, bytes]:
        status, out, err = run_cli(capsys, "trec_eval", *args)
        return status, out.encode("latin-1"), err.encode("latin-1")

    return run
