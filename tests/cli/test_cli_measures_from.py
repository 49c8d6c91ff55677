"""--measures-from FILE.py (or a module) on evaluate, compare, gate, power and report: a
user's measure through each command, with hand-computed values; its errors exit 2 in one
line naming the measure."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from prfeval._measures import REGISTRY, forget_user_measure
from support.cli import run_cli
from support.user_measures import LIN_DCG_2, write


@pytest.fixture
def files(tmp_path):
    before = set(REGISTRY)
    yield write(tmp_path)
    for name in set(REGISTRY) - before:
        forget_user_measure(name)


def mean(run: str) -> float:
    return sum(LIN_DCG_2[run].values()) / 3


def test_evaluate(files, capsys) -> None:
    code, out, err = run_cli(capsys, "evaluate", files["qrels"], files["a.run"], "-m",
                             "LinDCG@2", "--measures-from", files["measures.py"], "--format",
                             "json", "-q")
    assert code == 0, err
    result = json.loads(out)
    assert result["macro"]["LinDCG@2"] == pytest.approx(mean("A"), rel=1e-12)
    assert result["per_query"]["q3"]["LinDCG@2"] == pytest.approx(LIN_DCG_2["A"]["q3"])


def test_compare_and_power(files, capsys) -> None:
    common = [files["qrels"], files["a.run"], files["b.run"], "-m", "LinDCG@2",
              "--measures-from", files["measures.py"], "--format", "json"]
    code, out, err = run_cli(capsys, "compare", *common, "--permutations", "100",
                             "--bootstrap", "100")
    assert code == 0, err
    (row,) = [r for r in json.loads(out)["rows"] if not r["is_baseline"]]
    assert row["delta"] == pytest.approx(mean("B") - mean("A"), rel=1e-12)
    d = [LIN_DCG_2["B"][q] - LIN_DCG_2["A"][q] for q in ("q1", "q2", "q3")]
    m = sum(d) / 3
    sd = math.sqrt(sum((x - m) ** 2 for x in d) / 2)
    assert row["effect_size"] == pytest.approx(m / sd, rel=1e-12)
    code, out, err = run_cli(capsys, "power", *common)
    assert code == 0, err
    (sized,) = json.loads(out)
    assert (sized["n"], sized["mean_diff"]) == (3, pytest.approx(m, rel=1e-12))
    assert sized["sd_diff"] == pytest.approx(sd, rel=1e-12)


def test_gate(files, capsys) -> None:
    code, out, err = run_cli(capsys, "gate", files["qrels"], files["a.run"], files["b.run"],
                             "-m", "LinDCG@2", "--measures-from", files["measures.py"],
                             "--format", "json", "--permutations", "100")
    drop = mean("A") - mean("B")
    (verdict,) = json.loads(out)["measures"]
    assert verdict["drop"] == pytest.approx(drop, rel=1e-12)
    assert code == (1 if drop > 0 else 0), err


def test_report(files, capsys, tmp_path) -> None:
    page = tmp_path / "report.html"
    code, _, err = run_cli(capsys, "report", files["qrels"], files["a.run"], files["b.run"],
                           "-m", "LinDCG@2 P@2", "--measures-from", files["measures.py"],
                           "--no-figures", "-o", str(page))
    assert code == 0, err
    assert "LinDCG@2" in page.read_text()


def test_a_module_name(files, capsys, monkeypatch, tmp_path) -> None:
    package = tmp_path / "mymeasures_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ranking.py").write_text((tmp_path / "measures.py").read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run_cli(capsys, "evaluate", files["qrels"], files["a.run"], "-m",
                             "LinDCG@2", "--measures-from", "mymeasures_pkg.ranking",
                             "--format", "json")
    assert code == 0, err
    assert json.loads(out)["macro"]["LinDCG@2"] == pytest.approx(mean("A"), rel=1e-12)
    sys.modules.pop("mymeasures_pkg.ranking", None)
    sys.modules.pop("mymeasures_pkg", None)


@pytest.mark.parametrize(("measure", "words"), [
    ("Raises", "prfeval: measure 'Raises' (defined by raises, measures.py:"),
    ("Words", "prfeval: measure 'Words' (defined by words, measures.py:"),
])
def test_a_failing_measure_exits_2_in_one_line(files, capsys, measure, words) -> None:
    code, _, err = run_cli(capsys, "evaluate", files["qrels"], files["a.run"], "-m", measure,
                           "--measures-from", files["measures.py"])
    assert code == 2 and err.startswith(words) and len(err.strip().splitlines()) == 1


def test_a_built_in_name_exits_2(files, capsys, tmp_path) -> None:
    clash = tmp_path / "clash.py"
    clash.write_text("import prfeval\n\n@prfeval.measure('nDCG')\ndef f(r, k):\n    return 0.0\n")
    code, _, err = run_cli(capsys, "evaluate", files["qrels"], files["a.run"], "-m", "P@2",
                           "--measures-from", str(clash))
    assert code == 2 and "measure 'nDCG': the name is the built-in measure nDCG's" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("source", ["missing.py", "no_such_module_of_measures"])
def test_a_missing_file_or_module_exits_2(files, capsys, source) -> None:
    code, _, err = run_cli(capsys, "evaluate", files["qrels"], files["a.run"],
                           "--measures-from", source)
    assert code == 2 and f"--measures-from {source}" in err


def test_a_file_that_fails_to_run_exits_2(files, capsys, tmp_path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import prfeval\nraise RuntimeError('half-written')\n")
    code, _, err = run_cli(capsys, "evaluate", files["qrels"], files["a.run"],
                           "--measures-from", str(broken))
    assert code == 2 and "RuntimeError: half-written" in err and "Traceback" not in err


def test_the_measures_file_is_an_input_never_overwritten(files, capsys) -> None:
    before = Path(files["measures.py"]).read_text()
    code, _, err = run_cli(capsys, "evaluate", files["qrels"], files["a.run"], "-m",
                           "LinDCG@2", "--measures-from", files["measures.py"], "-o",
                           files["measures.py"])
    assert code == 2 and "measures.py" in err
    assert Path(files["measures.py"]).read_text() == before
