"""The command group: a misspelt command gets the closest one suggested, as a misspelt measure
does, and usage errors read as plain sentences."""

from __future__ import annotations

import pytest

from prfeval.cli import COMMANDS
from support.cli import run_cli


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("evalute", "evaluate"),
        ("evaulate", "evaluate"),
        ("clasify", "classify"),
        ("comapre", "compare"),
        ("curves", "curve"),
        ("measure", "measures"),
        ("cl", "classify"),  # a prefix
    ],
)
def test_a_misspelt_command_gets_a_suggestion(capsys, typed: str, meant: str) -> None:
    code, out, err = run_cli(capsys, typed)
    assert code == 2 and out == ""
    assert err == (
        f"prfeval: No such command '{typed}'. Did you mean '{meant}'? "
        "Run 'prfeval --help' for help.\n"
    )


def test_nothing_close_gets_no_suggestion(capsys) -> None:
    code, _, err = run_cli(capsys, "zzzzzz")
    assert code == 2
    assert "Did you mean" not in err and "No such command 'zzzzzz'." in err


def test_every_command_resolves(capsys) -> None:
    for name in COMMANDS:
        code, out, _ = run_cli(capsys, name, "--help")
        assert code == 0 and out.startswith("Usage: prfeval " + name)


def test_usage_errors_have_no_parenthesised_hint(capsys) -> None:
    code, _, err = run_cli(capsys, "evaluate", "--bogus")
    assert code == 2
    assert "(" not in err
    assert err.endswith("Run 'prfeval evaluate --help' for help.\n")
