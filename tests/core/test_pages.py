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
