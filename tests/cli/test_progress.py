"""The progress bar: on stderr only, only when stderr is a terminal, never on stdout."""

from __future__ import annotations

import sys
import time

import pytest

from prfeval.cli._output import progress_bar


def test_no_bar_when_stderr_is_not_a_terminal(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    with progress_bar("reading", delay=0) as update:
        assert update is None
        time.sleep(0.05)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(("unit", "shown"), [("bytes", "reading"), ("runs", "2/3")])
def test_bar_on_stderr_only(capsys, monkeypatch, unit: str, shown: str) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with progress_bar("reading", unit=unit, delay=0) as update:
        assert update is not None
        time.sleep(0.2)  # past the delay: the bar is live
        update(2, 3)
        time.sleep(0.2)
    out, err = capsys.readouterr()
    assert out == ""
    assert "reading" in err and shown in err


def test_quick_work_shows_no_bar(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with progress_bar("reading", delay=5.0) as update:
        assert update is not None
        update(1, 2)
    assert capsys.readouterr() == ("", "")
