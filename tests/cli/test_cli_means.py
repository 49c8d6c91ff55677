"""``prfeval means``: seed 000's table of three means, in every output format."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from prfeval._core.errors import UsageError
from prfeval.cli import main
from prfeval.cli._means_cmd import parse_pair

# Seed 000, "Why a harmonic mean": name, then the table's values as printed there.
SEED_ROWS = [
    ("The example", "0.400", "0.800", "0.600", "0.566", "0.533"),
    ("Balanced", "0.500", "0.500", "0.500", "0.500", "0.500"),
    ("Retrieve everything", "0.002", "1.000", "0.501", "0.045", "0.004"),
    ("One result, relevant, of 20", "1.000", "0.050", "0.525", "0.224", "0.095"),
    ("Lopsided", "0.900", "0.100", "0.500", "0.300", "0.180"),
]
COLUMNS = ["precision", "recall", "arithmetic", "geometric", "harmonic"]


def run(argv: list[str]) -> int:
    """Run the CLI in-process; return its exit code."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0)


def test_default_table_is_the_seed_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["means"]) == 0
    out = capsys.readouterr().out
    assert "Means of precision and recall" in out
    lines = out.splitlines()
    for name, *values in SEED_ROWS:
        (line,) = [ln for ln in lines if ln.startswith(name)]
        # The name fits on one line, followed by the five numbers in order.
        assert line.split()[-5:] == values


def test_json_has_full_precision(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["means", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in records] == [row[0] for row in SEED_ROWS]
    for record, (_, *values) in zip(records, SEED_ROWS, strict=True):
        assert [f"{record[c]:.3f}" for c in COLUMNS] == values
    assert records[2]["geometric"] == pytest.approx(0.002**0.5, rel=1e-15)


def test_pairs_named_and_unnamed(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["means", "0.4,0.8", "everything=0.002,1", "-f", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["system"] is None and records[1]["system"] == "everything"
    assert records[0]["harmonic"] == pytest.approx(0.5333333333333333)
    assert records[1]["arithmetic"] == pytest.approx(0.501)


def test_table_of_unnamed_pairs_has_no_system_column(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["means", "0.9,0.1"]) == 0
    out = capsys.readouterr().out
    assert "System" not in out
    assert out.splitlines()[-1].split() == ["0.900", "0.100", "0.500", "0.300", "0.180"]


def test_csv(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["means", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["system", *COLUMNS]
    assert len(rows) == 6
    # The comma inside a seed name survives quoting.
    assert rows[4][0] == "One result, relevant, of 20"
    for row, (name, *values) in zip(rows[1:], SEED_ROWS, strict=True):
        assert row[0] == name
        assert [f"{float(v):.3f}" for v in row[1:]] == values


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("0.4", "bad pair '0.4': expected P,R"),
        ("0.4,0.5,0.6", "expected P,R"),
        ("0.4,1.2", "recall 1.2 is not in [0, 1]"),
        ("1.5,0.2", "precision 1.5 is not in [0, 1]"),
        ("x,0.5", "'x' is not a number"),
        ("nan,0.5", "precision nan is not in [0, 1]"),
        ("=0.1,0.2", "the name before '=' is empty"),
    ],
)
def test_bad_pair_is_one_line_and_exit_2(
    pair: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["means", "0.5,0.5", pair]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("prfeval: ") and captured.err.count("\n") == 1
    assert message in captured.err


def test_parse_pair() -> None:
    assert parse_pair("0.4,0.8") == (None, 0.4, 0.8)
    assert parse_pair(" A = 0.48 , 0.80 ") == ("A", 0.48, 0.80)
    assert parse_pair("a=b=1,0") == ("a=b", 1.0, 0.0)  # the last '=' splits
    with pytest.raises(UsageError):
        parse_pair("")


def _script() -> Path:
    script = Path(sys.executable).parent / "prfeval"
    if not script.exists():
        pytest.skip("the prfeval console script is not installed next to this python")
    return script


def test_installed_script() -> None:
    script = _script()
    ok = subprocess.run([script, "means"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert "Retrieve everything" in ok.stdout and "0.501" in ok.stdout

    bad = subprocess.run([script, "means", "0.4,2"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr == "prfeval: bad pair '0.4,2': recall 2 is not in [0, 1]\n"


def test_contours_betas_as_the_issue_writes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--beta 0.5 1 2` gives three panels; seed 004's F values per point (0.522/0.600/0.706)."""
    pytest.importorskip("matplotlib")
    target = tmp_path / "c.png"
    code = run(["contours", "--beta", "0.5", "1", "2", "--point", "A=0.48,0.80",
                "--plot", str(target)])
    out = capsys.readouterr().out
    assert code == 0
    assert "3 panels, F0.5, F1, F2" in out
    assert "F0.5=0.522  F1=0.600  F2=0.706" in out
    assert run(["contours", "0.5"]) == 2
