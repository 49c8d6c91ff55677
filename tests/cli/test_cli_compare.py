"""``prfeval compare`` and ``prfeval split`` end to end: formats, marks, errors, query sets."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from prfeval.cli._shared import resolve_baseline, run_names
from support.cli import exit_code

FAST = ["--permutations", "499", "--bootstrap", "499"]


run = exit_code  # the CLI in-process: its exit code


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """12 queries with one relevant document each. ``good`` ranks it first everywhere,
    ``bad`` never retrieves it, ``partial`` lacks queries 11 and 12 and ranks it second."""
    qrels = "".join(f"{q} 0 r{q} 1\n{q} 0 n{q} 0\n" for q in range(1, 13))
    good = "".join(f"{q} Q0 r{q} 1 2.0 good\n{q} Q0 n{q} 2 1.0 good\n" for q in range(1, 13))
    bad = "".join(f"{q} Q0 n{q} 1 2.0 bad\n{q} Q0 x{q} 2 1.0 bad\n" for q in range(1, 13))
    partial = "".join(f"{q} Q0 n{q} 1 2.0 p\n{q} Q0 r{q} 2 1.0 p\n" for q in range(1, 11))
    paths = {}
    for name, text in (
        ("qrels", qrels),
        ("bad.run", bad),
        ("good.run", good),
        ("partial.run", partial),
    ):
        path = tmp_path / name
        path.write_text(text)
        paths[name] = str(path)
    return paths


def test_table_names_runs_and_marks_significance(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", files["qrels"], files["bad.run"], files["good.run"], "-m", "P@1", *FAST]
    assert run(argv) == 0
    out = capsys.readouterr().out
    (line,) = [ln for ln in out.splitlines() if ln.strip().startswith("good.run")]
    # macro 1, micro 1, delta +1, CI [+1, +1], p = 1/500 (all 12 differences +1), 12 wins;
    # the effect size is undefined (n/a): the differences do not vary.
    assert line.split() == [
        "good.run",
        "1.0000",
        "1.0000",
        "+1.0000",
        "[+1.0000,",
        "+1.0000]",
        "n/a",
        "0.0020",
        "0.0020",
        "†",
        "12/0/0",
    ]
    assert "bad.run (baseline)" in out
    assert "Queries compared: 12" in out


def test_markdown_and_latex_contain_the_marks(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["compare", files["qrels"], files["bad.run"], files["good.run"], "-m", "P@1 R@2", *FAST]
    assert run([*base, "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "| good.run | **1.0000**† | **1.0000**† |" in md
    assert "†: significantly different from the baseline bad.run at alpha = 0.05" in md
    assert "Holm-corrected over 2 tests" in md
    assert run([*base, "--format", "latex", "--correction", "bonferroni"]) == 0
    tex = capsys.readouterr().out
    assert r"good.run & \textbf{1.0000}$^{\dagger}$ & \textbf{1.0000}$^{\dagger}$ \\" in tex
    assert "Bonferroni-corrected" in tex and r"\begin{tabular}{lrr}" in tex


def test_json_csv_and_missing_queries(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["compare", files["qrels"], files["good.run"], files["partial.run"], "-m", "P@1 R@2"]
    assert run([*base, *FAST, "--format", "json", "-q"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["queries"]["missing"]["partial.run"] == ["11", "12"]
    assert data["per_query"]["partial.run"]["R@2"]["12"] == 0.0
    assert "partial.run has no results for 2 queries compared here" in captured.err
    # R@2: good finds every relevant document; partial 10 of 12 (queries 11, 12 score 0).
    row = next(r for r in data["rows"] if r["run"] == "partial.run" and r["measure"] == "R@2")
    assert row["macro"] == pytest.approx(10 / 12)
    assert (row["wins"], row["ties"], row["losses"]) == (0, 10, 2)
    assert run([*base, *FAST, "--format", "csv", "--missing", "drop"]) == 0
    records = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["measure"], r["run"]) for r in records] == [
        ("P@1", "good.run"),
        ("P@1", "partial.run"),
        ("R@2", "good.run"),
        ("R@2", "partial.run"),
    ]
    assert float(records[3]["macro"]) == 1.0  # only queries 1-10, which partial answers
    assert records[0]["p_value"] == ""


def test_query_list_output_file_and_plot(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = tmp_path / "heldout.queries"
    listed.write_text("# held out\n3\n4\n5\n")
    out = tmp_path / "report.md"
    plot = tmp_path / "diff.png"
    argv = [
        "compare",
        files["qrels"],
        files["bad.run"],
        files["good.run"],
        "-m",
        "P@1",
        "--queries",
        str(listed),
        "--format",
        "markdown",
        "-o",
        str(out),
        "--plot",
        str(plot),
        *FAST,
    ]
    assert run(argv) == 0
    text = out.read_text()
    assert f"Query set: the 3 queries listed in {listed}." in text
    assert "Macro averages over 3 queries" in text
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["missing.run"], "missing.run: no such file"),
        (["--baseline", "nope"], "--baseline 'nope' is not one of the runs"),
        (["-m", "P@x"], "cutoff must be an integer"),
        (["--plot", "x.pdf"], "use a .png or .svg file name"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    files: dict[str, str], capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    argv = ["compare", files["qrels"], files["bad.run"], files["good.run"], *extra, *FAST]
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("prfeval: ") and message in err


def test_one_run_is_refused(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compare", files["qrels"], files["bad.run"]]) == 2
    assert capsys.readouterr().err == "prfeval: compare needs at least two runs, got 1\n"


def test_run_names() -> None:
    assert run_names(("runs/a.txt", "runs/b.txt")) == ["a.txt", "b.txt"]
    assert run_names(("x/a.txt", "y/a.txt")) == ["x/a.txt", "y/a.txt"]
    assert run_names(("a.txt", "a.txt")) == ["a.txt", "a.txt#2"]
    names = run_names(("x/a.txt", "y/b.txt"))
    assert resolve_baseline("y/b.txt", ("x/a.txt", "y/b.txt"), names) == "b.txt"
    assert resolve_baseline(None, ("x/a.txt", "y/b.txt"), names) == "a.txt"


def test_split_command_then_evaluate_on_heldout(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "split"
    argv = [
        "split",
        files["qrels"],
        "--holdout",
        "0.5",
        "--seed",
        "4",
        "--out",
        str(out),
        "--format",
        "json",
    ]
    assert run(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n_dev"] + summary["n_heldout"] == 12
    held = [ln for ln in (out / "heldout.queries").read_text().splitlines() if ln[0] != "#"]
    assert len(held) == summary["n_heldout"] > 0
    argv = [
        "compare",
        files["qrels"],
        files["bad.run"],
        files["good.run"],
        "-m",
        "P@1",
        "--queries",
        str(out / "heldout.queries"),
        "--format",
        "json",
        *FAST,
    ]
    assert run(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(data["queries"]["compared"], key=int) == sorted(held, key=int)
    assert run(["split", files["qrels"], "--holdout", "2", "--out", str(out)]) == 2
