"""numpy's huge-page advice is off while an evaluation runs and as it was after it."""

from __future__ import annotations

import pytest

from prfeval._core import pages


def test_the_advice_is_off_inside_and_restored_after(monkeypatch: pytest.MonkeyPatch) -> None:
    switch = pages._setter()
    if switch is None:
        pytest.skip("this numpy has no switch of its huge-page advice")
    seen = []
    before = switch(True)
    try:
        with pages.plain_pages():
            seen.append(switch(False))  # what it was inside: off
            with pages.plain_pages():
                pass
            seen.append(switch(False))  # a nested block restores what it found: off
        seen.append(switch(True))  # after: on again
    finally:
        switch(before)
    assert seen == [False, False, True]


def test_an_evaluation_runs_inside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import prfeval

    calls = []
    real = pages.plain_pages

    def counted():  # type: ignore[no-untyped-def]
        calls.append(1)
        return real()

    monkeypatch.setattr("prfeval._retrieval.pipeline.plain_pages", counted)
    result = prfeval.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}}, ["P@2"])
    assert result.macro["P@2"] == 0.5
    assert calls == [1]


def _kept(env: dict[str, str]) -> str:
    import os
    import subprocess
    import sys

    code = "from prfeval._core.pages import keep_freed_memory; print(keep_freed_memory())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, check=True, timeout=60)
    return done.stdout.strip()


def test_freed_memory_is_kept_where_glibc_is_and_the_caller_did_not_tune_it() -> None:
    import platform
    import sys

    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        pytest.skip("mallopt is glibc's")
    assert _kept({}) == "True"
    assert _kept({"MALLOC_TRIM_THRESHOLD_": "1000000"}) == "False"  # the caller's own


def test_only_the_commands_own_process_keeps_freed_memory(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import prfeval.cli

    calls: list[int] = []
    monkeypatch.setattr(prfeval.cli, "keep_freed_memory", lambda: calls.append(1) or True)
    monkeypatch.setattr("gc.freeze", lambda: None)  # the program's start-up, not pytest's
    monkeypatch.setattr("sys.argv", ["prfeval", "--version"])
    for argv in (["--version"], None):  # a caller's main([...]), then the command's
        with pytest.raises(SystemExit):
            prfeval.cli.main(argv)
    assert calls == [1]
    capsys.readouterr()
