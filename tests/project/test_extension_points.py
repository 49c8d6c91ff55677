"""A new measure and a new input format take the edits docs/architecture.md names, and no more.

Each test copies the package to a temporary folder, makes there exactly the edits the
architecture page lists (as text, the way a contributor would), and runs a fresh interpreter on
the copy: the new measure must then be parsed, measured, averaged, listed by
``prfeval measures``, compared and put in the docs' table; the new format must be read by the
API and the CLI by its ``--run-format`` name. (An option's edits are checked in
tests/core/test_option_table.py, on a toy option.) The values are counted by hand.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "prfeval"
ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n"
RUN = "q1 Q0 b 1 2.0 r\nq1 Q0 a 2 1.0 r\nq2 Q0 c 1 5.0 r\n"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A copy of the package (no bytecode), under ``tmp_path/src``."""
    dest = tmp_path / "src" / "prfeval"
    shutil.copytree(SRC, dest, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{path.name}: the anchor {old!r} is not there once"
    path.write_text(text.replace(old, new))


def _python(tree: Path, code: str) -> str:
    """Run ``code`` in a fresh interpreter that imports prfeval from the copy."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=tree, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_architecture_page_names_the_edits_made_here() -> None:
    """The edits below are the page's: if it changes, these tests must change with it."""
    text = " ".join(ARCHITECTURE.read_text().split())
    assert "one `MeasureDef` in the family module of `_measures/`" in text
    assert "one vectorised function of a `Counts` or of a `JudgedRanking`" in text
    assert "a reader in `_io/`" in text and "dispatched from `_io/load.py`" in text
    assert "its name in the `InputFormat` literal of `_core/options.py`" in text
    # The option recipe, which tests/core/test_options_declared_once.py performs.
    assert "one `Option` entry in its table, its field written out in the options class" in text
    assert "its key in the keywords' `TypedDict` (`OptionValues`" in text


def test_a_new_measure_is_one_definition_and_one_function(tree: Path) -> None:
    ranked = tree / "src" / "prfeval" / "_measures" / "ranked.py"
    # The function: half the reciprocal rank, from the existing vectorised view.
    _edit(
        ranked,
        "def _bpref(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:\n",
        "def _half_rr(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:\n"
        "    return reciprocal_rank(jr, level, m.k) / 2\n\n\n"
        "def _bpref(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:\n",
    )
    # The definition: one entry in the family's tuple.
    _edit(
        ranked,
        "DEFINITIONS: tuple[MeasureDef, ...] = (\n",
        "DEFINITIONS: tuple[MeasureDef, ...] = (\n"
        "    MeasureDef(\n"
        '        "HalfRR",\n'
        '        "half the reciprocal rank of the first relevant document",\n'
        '        "1 / (2 rank of the first relevant document)",\n'
        "        ranked=_half_rr,\n"
        '        cutoff="optional",\n'
        '        reads="ranks",\n'
        "        bounded=True,\n"
        "    ),\n",
    )
    out = _python(tree, """
        import json, subprocess, sys
        import prfeval
        from prfeval._report.measures import markdown_table
        e = prfeval.evaluate("qrels.txt", "run.txt", "HalfRR HalfRR@1")
        cli = [sys.executable, "-m", "prfeval"]
        listed = subprocess.run([*cli, "measures"], capture_output=True, text=True).stdout
        shown = subprocess.run(
            [*cli, "evaluate", "qrels.txt", "run.txt", "-m", "HalfRR", "--format", "json"],
            capture_output=True, text=True, check=True).stdout
        compared = subprocess.run(
            [*cli, "compare", "qrels.txt", "run.txt", "run.txt", "-m", "HalfRR",
             "--format", "json"], capture_output=True, text=True, check=True).stdout
        print(json.dumps({
            "file": prfeval.__file__,
            "per_query": {q: v["HalfRR"] for q, v in e.per_query.items()},
            "at_1": {q: v["HalfRR@1"] for q, v in e.per_query.items()},
            "macro": e.macro["HalfRR"],
            "listed": "HalfRR" in listed,
            "cli_macro": json.loads(shown)["macro"]["HalfRR"],
            "compared": "HalfRR" in compared,
            "docs": "HalfRR" in markdown_table(),
        }))
    """)
    got = json.loads(out.splitlines()[-1])
    assert got["file"].startswith(str(tree)), got["file"]
    # By hand: q1's relevant a is at rank 2 (RR 1/2, half 1/4); q2's c at rank 1 (1/2).
    assert got["per_query"] == {"q1": 0.25, "q2": 0.5}
    assert got["at_1"] == {"q1": 0.0, "q2": 0.5}
    assert got["macro"] == pytest.approx(0.375, abs=1e-15)
    assert got["cli_macro"] == pytest.approx(0.375, abs=1e-15)
    assert got["listed"] and got["compared"] and got["docs"]


def test_a_new_input_format_is_one_reader_one_dispatch_and_its_name(tree: Path) -> None:
    package = tree / "src" / "prfeval"
    # The reader, in _io/.
    (package / "_io" / "pipes.py").write_text(textwrap.dedent('''
        """A run of ``query|doc|score`` lines."""

        import pyarrow as pa
        import pyarrow.csv as pacsv

        from prfeval._io.tabular import run_from_table


        def read_pipe_run(handle):
            table = pacsv.read_csv(
                pa.py_buffer(handle.read()),
                read_options=pacsv.ReadOptions(column_names=["query_id", "doc_id", "score"]),
                parse_options=pacsv.ParseOptions(delimiter="|"),
                convert_options=pacsv.ConvertOptions(
                    column_types={"query_id": pa.string(), "doc_id": pa.string()}
                ),
            )
            return run_from_table(table, handle.name)
    '''))
    # Its dispatch, in _io/load.py.
    load = package / "_io" / "load.py"
    _edit(
        load,
        '    if kind == "trec":\n        return read_run(handle, ranks=ranks)\n',
        '    if kind == "trec":\n        return read_run(handle, ranks=ranks)\n'
        '    if kind == "pipes":\n'
        "        from prfeval._io.pipes import read_pipe_run\n\n"
        "        return read_pipe_run(handle)\n",
    )
    # Its name, in the InputFormat literal.
    options = package / "_core" / "options.py"
    text = options.read_text()
    start = text.index("InputFormat = Literal[")
    _edit(options, text[start:start + len("InputFormat = Literal[")],
          'InputFormat = Literal["pipes", ')
    (tree / "run.psv").write_text("q1|b|2.0\nq1|a|1.0\nq2|c|5.0\n")
    out = _python(tree, """
        import json, subprocess, sys
        import prfeval
        e = prfeval.evaluate("qrels.txt", "run.psv", "RR P@2", run_format="pipes")
        shown = subprocess.run(
            [sys.executable, "-m", "prfeval", "evaluate", "qrels.txt", "run.psv", "-m", "RR",
             "--run-format", "pipes", "--format", "json"],
            capture_output=True, text=True, check=True).stdout
        print(json.dumps({"rr": {q: v["RR"] for q, v in e.per_query.items()},
                          "p2": e.macro["P@2"],
                          "cli": json.loads(shown)["macro"]["RR"]}))
    """)
    got = json.loads(out.splitlines()[-1])
    # By hand: as the TREC run above: RR 1/2 and 1; P@2 = (1/2 + 1/2) / 2.
    assert got["rr"] == {"q1": 0.5, "q2": 1.0}
    assert got["p2"] == 0.5 and got["cli"] == 0.75
