"""Every CSV writer keeps ids exact: a bare carriage return is quoted, and nothing is mangled.

docs/output.md ("CSV: every value exactly as it is") takes the stance tested here: a field
with a comma, a quote, a line feed or a carriage return is quoted; an id that starts with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written as it is (ids are join
keys). Python's csv module quoted a bare ``\\r`` only when it was in the line terminator, so
``evaluate -q --format csv`` wrote ``a\\rb`` unquoted and every reader split the line there.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import run_cli

# Ids a spreadsheet would read as formulas, and ids CSV must quote.
HOSTILE = ("a\rb", "\rlead", "trail\r", "x\ny", "c\r\nd", "=1+1", "+x", "-1", "@s", "\tt",
           'q"uote', "a,b", " sp ", "plain")
ROOT = Path(__file__).resolve().parents[2]


def _write_inputs(folder: Path, ids: tuple[str, ...] = HOSTILE) -> tuple[Path, Path]:
    """JSON Lines judgments and a run whose query and doc ids are ``ids``: JSON can carry
    any character."""
    qrels, run = folder / "qrels.jsonl", folder / "run.jsonl"
    with qrels.open("w") as q, run.open("w") as r:
        for i, qid in enumerate(ids):
            q.write(json.dumps({"query_id": qid, "doc_id": ids[-1 - i], "relevance": 1}) + "\n")
            q.write(json.dumps({"query_id": qid, "doc_id": "d0", "relevance": 0}) + "\n")
            for rank, doc in enumerate((ids[-1 - i], "d0", ids[i])):
                r.write(json.dumps({"query_id": qid, "doc_id": doc, "score": 3.0 - rank}) + "\n")
    return qrels, run


def _rows(text: str) -> list[dict[str, str]]:
    """The CSV read as Python's csv module reads a file opened with newline=""."""
    return list(csv.DictReader(io.StringIO(text, newline="")))


def _pandas(text: str, column: str) -> list[str]:
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    return list(frame[column])


def _arrow(text: str, column: str) -> list[str]:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(
        pa.py_buffer(text.encode()),
        parse_options=pacsv.ParseOptions(newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(
            column_types={column: pa.string()}, strings_can_be_null=False
        ),
    )
    return table.column(column).to_pylist()


def _same_ids(text: str, column: str, want: set[str]) -> None:
    rows = _rows(text)
    got = [r[column] for r in rows]
    assert set(got) - {""} == want
    assert _pandas(text, column) == got
    assert _arrow(text, column) == got


def test_evaluate_csv_round_trips_every_query_id(capsys, tmp_path) -> None:
    qrels, run = _write_inputs(tmp_path)
    code, out, err = run_cli(capsys, "evaluate", str(qrels), str(run), "-q", "-m", "P@1 AP",
                             "--format", "csv")
    assert code == 0, err
    _same_ids(out, "query_id", set(HOSTILE))
    rows = _rows(out)
    assert sum(1 for r in rows if not r["aggregate"]) == 2 * len(HOSTILE)  # two values each
    # Exactly as given: no quote added before a formula-like id, no space stripped.
    lines = out.split("\n")
    assert "=1+1,,P@1,1.0" in lines and "+x,,P@1,1.0" in lines and "-1,,P@1,1.0" in lines
    assert "@s,,P@1,1.0" in lines and "\tt,,P@1,1.0" in lines
    assert '"a\rb",,P@1,1.0' in lines and '"\rlead",,P@1,1.0' in lines
    assert "'=1+1" not in out
    # The same values as JSON, row for value.
    code, out_json, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-q", "-m",
                                "P@1 AP", "--format", "json")
    per_query = json.loads(out_json)["per_query"]
    for r in rows:
        if r["query_id"]:
            assert float(r["value"]) == per_query[r["query_id"]][r["measure"]]


def test_explain_csv_round_trips_doc_ids(capsys, tmp_path) -> None:
    qrels, run = _write_inputs(tmp_path)
    args = ["explain", str(qrels), str(run), "--format", "csv", "-m", "P@3"]
    for qid in HOSTILE:
        args += ["--query", qid]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    _same_ids(out, "query_id", set(HOSTILE))
    _same_ids(out, "doc_id", {*HOSTILE, "d0"})


def test_curve_csv_round_trips_query_ids(capsys, tmp_path) -> None:
    qrels, run = _write_inputs(tmp_path)
    code, out, err = run_cli(capsys, "curve", str(qrels), str(run), "--format", "csv")
    assert code == 0, err
    _same_ids(out, "query_id", set(HOSTILE))


def test_compare_csv_round_trips_run_names(capsys, tmp_path) -> None:
    qrels, run = _write_inputs(tmp_path)
    # Run names are file names: these can hold a carriage return, or start with "=".
    names = ("=1+1.run", "a\rb.run", "-x.run")
    for name in names:
        (tmp_path / name).write_bytes(run.read_bytes())
    code, out, err = run_cli(capsys, "compare", str(qrels), *(str(tmp_path / n) for n in names),
                             "-m", "P@1", "--format", "csv", "--permutations", "50",
                             "--bootstrap", "50")
    assert code == 0, err
    _same_ids(out, "run", set(names))
    assert "\nP@1,=1+1.run," in out


def test_classify_csv_round_trips_class_labels(capsys, tmp_path) -> None:
    table = tmp_path / "labels.jsonl"
    labels = ("a\rb", "=SUM(A1)", "@x", "plain")
    with table.open("w") as f:
        for i in range(12):
            f.write(json.dumps({"true": labels[i % 4], "pred": labels[(i + i // 4) % 4]}) + "\n")
    code, out, err = run_cli(capsys, "classify", str(table), "--format", "csv")
    assert code == 0, err
    rows = _rows(out)
    assert {r["label"] for r in rows if r["row"] == "class"} == set(labels)
    assert _pandas(out, "label") == [r["label"] for r in rows]


def test_means_csv_keeps_system_names(capsys) -> None:
    code, out, err = run_cli(capsys, "means", "=1+1=0.5,0.5", "a\rb=0.2,0.4", "--format", "csv")
    assert code == 0, err
    assert [r["system"] for r in _rows(out)] == ["=1+1", "a\rb"]


def test_the_stance_is_documented() -> None:
    docs = (ROOT / "docs" / "output.md").read_text(encoding="utf-8")
    assert "## CSV: every value exactly as it is" in docs
    assert "`=1+1` is written `=1+1`" in docs
    assert "newlines_in_values=True" in docs  # how Arrow reads a quoted line break


def test_the_linter_refuses_a_csv_writer_of_a_report_s_own() -> None:
    """No module makes a csv.writer of its own (it would miss the \\r rule): ruff's banned-api
    rule in pyproject.toml refuses one everywhere but _report/_csv.py, and `make test` runs
    ruff. Here: the rule is configured and fires on a module that would."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install '.[test]')")
    source = "import csv\n\n\ndef write(out):\n    return csv.writer(out)\n"
    done = subprocess.run(
        [ruff, "check", "--no-cache", "--select", "TID251", "--output-format", "concise",
         "--stdin-filename", "src/prfeval/_report/evaluation.py", "-"],
        input=source, capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "TID251 `csv.writer` is banned" in done.stdout
