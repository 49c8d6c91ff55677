"""The short route reads ``prfeval evaluate``'s common command lines as click reads them.

For each command line it takes, the parameters it hands to ``run_evaluate`` are those the
click command hands it (click's parse is the reference: the command's own decorators run,
only the final call is recorded); every other command line is left to click, which then
reports its mistakes in its own words. Then the two routes run whole, in-process, and must
print the same bytes, to stdout and stderr, with the same exit status, errors included.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from prfeval.cli import _evaluate_cmd, main
from prfeval.cli._app import run as click_route
from prfeval.cli._evaluate_run import run_evaluate
from prfeval.cli._short_route import read_evaluate

NAMES = tuple(inspect.signature(run_evaluate).parameters)

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d4 1\n"
RUN = "q1 Q0 d3 1 0.9 s\nq1 Q0 d9 2 0.8 s\nq1 Q0 d1 3 0.7 s\nq2 Q0 d4 1 0.5 s\nq3 Q0 d1 1 1 s\n"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


TAKEN = [
    ["evaluate", "qrels", "run"],
    ["evaluate", "qrels", "run", "-m", "P@10", "-m", "AP nDCG@2"],
    ["evaluate", "-m", "P@1", "qrels", "run"],
    ["evaluate", "qrels", "--format", "csv", "run"],
    ["evaluate", "qrels", "run", "--format=trec", "-q", "--verbose", "--quiet"],
    ["evaluate", "qrels", "run", "--measure=P@5", "--per-query", "-o", "out.txt"],
    ["evaluate", "qrels", "run", "--output=out.txt", "-q", "-q", "--format", "json"],
    ["evaluate", "qrels", "run", "--measure=", "-m", "SetF(beta=2)", "--measure", "R@1"],
]

LEFT_TO_CLICK = [
    ["evaluate", "qrels", "run", "--bounds"],
    ["evaluate", "qrels", "-"],
    ["evaluate", "qrels", "run", "--format", "csv", "--format", "json"],
    ["evaluate", "qrels", "run", "-o", "a", "--output", "b"],
    ["evaluate", "qrels", "run", "-mP@10"],
    ["evaluate", "qrels", "run", "-m"],
    ["evaluate", "qrels", "run", "-m", "-q"],
    ["evaluate", "qrels"],
    ["evaluate", "qrels", "run", "run"],
    ["evaluate", "qrels", "run", "--help"],
    ["evaluate", "qrels", "run", "--format", "xml"],
    ["evaluate", "qrels", "run", "--form", "csv"],
    ["evaluate", "--", "qrels", "run"],
    ["evaluate", "qrels", "run", "-o", "-"],
    ["evaluate", "qrels", "run", "--per-query=1"],
    ["evaluate", "qrels", "run", "-qm", "P@1"],
    ["evaluate", "qrels", "run", "-l", "2"],
    ["evaluate", "qrels", "run", "--measures-from", "x.py"],
    ["compare", "qrels", "run"],
    ["--version"],
    [],
]


def click_parameters(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """What the click command hands ``run_evaluate`` for ``argv``."""
    seen: dict[str, object] = {}
    def record(*given: object) -> None:
        seen.update(zip(NAMES, given, strict=True))

    monkeypatch.setattr(_evaluate_cmd, "run_evaluate", record)
    _evaluate_cmd.command.main(args=argv[1:], prog_name="prfeval", standalone_mode=False)
    assert seen, "the command did not run"
    return seen


@pytest.mark.parametrize("argv", TAKEN, ids=" ".join)
def test_a_command_line_taken_is_read_as_click_reads_it(folder, monkeypatch, argv):
    short = read_evaluate(argv)
    assert short is not None
    assert short.pop("quiet") == ("--quiet" in argv)
    assert short == click_parameters(argv, monkeypatch)


@pytest.mark.parametrize("argv", LEFT_TO_CLICK, ids=" ".join)
def test_any_other_command_line_is_left_to_click(folder, argv):
    assert read_evaluate(argv) is None


def both_routes(argv: list[str], capsys: pytest.CaptureFixture[str], folder: Path) -> list:
    """(exit status, stdout, stderr, the output file's text) by each route, in turn."""
    outcomes = []
    for route in (main, click_route):
        (folder / "out.txt").unlink(missing_ok=True)
        with pytest.raises(SystemExit) as info:
            route(list(argv))
        out, err = capsys.readouterr()
        written = (folder / "out.txt").read_text() if (folder / "out.txt").exists() else None
        outcomes.append((info.value.code or 0, out, err, written))
    return outcomes


@pytest.mark.parametrize(
    "argv",
    [
        *TAKEN,
        ["evaluate", "qrels", "run", "-m", "NoSuchMeasure"],  # exit 2, one line
        ["evaluate", "qrels", "missing", "-m", "P@1"],  # a missing file
        ["evaluate", "qrels", "run", "-o", "run"],  # the output would destroy an input
        ["evaluate", "qrels", "run", "-o", "no/such/folder/out.txt"],
    ],
    ids=" ".join,
)
def test_both_routes_print_the_same(folder, capsys, argv):
    assert read_evaluate(argv) is not None  # the short route is what main takes
    by_short, by_click = both_routes(argv, capsys, folder)
    assert by_short == by_click
    assert (folder / "run").read_text() == RUN  # never overwritten
