"""A small ``prfeval evaluate`` loads only what it uses: each command line below runs in a
fresh interpreter (what another test imported cannot hide an import), which then reports
which of the modules a plain evaluation of TREC files does without are in ``sys.modules``.

A small evaluation is mostly start-up; these are the imports that made it slower than the
ir_measures CLI (``bench/small_start.py`` measures the time; no time is asserted here). The
last cases check that the check sees an import: the options the short route leaves to click
load click, and ``--format json`` loads ``json``. Then: ``import prfeval.cli`` (the program's
first line) leaves the start-up's imports to ``main``, which pauses the cycle collector for
them and, as the program, freezes them (``cli/_process.py``, ``start_up``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

#: What ``prfeval evaluate QRELS RUN`` on TREC files does not import: DataFrame, plotting,
#: statistics and Arrow libraries, the progress bar's, click (the short route reads the
#: command line), the standard modules of other paths, and prfeval's readers and measures
#: of other inputs.
NOT_LOADED = (
    "pyarrow", "pandas", "polars", "scipy", "sklearn", "matplotlib", "rich", "tqdm", "click",
    "concurrent.futures", "json", "tempfile", "gzip", "difflib", "shutil", "statistics",
    "prfeval._io.arrays", "prfeval._io.prefs", "prfeval._io.lists", "prfeval._io.load",
    "prfeval._retrieval.encode_lists", "prfeval._io.native_lists",
    "prfeval._measures.user", "prfeval._measures.declare", "prfeval._core.preferences",
    "prfeval._core.frames", "prfeval._trec_eval", "prfeval.cli._app",
)  # fmt: skip

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d4 1\n"
RUN = "\n".join(
    f"{q} Q0 {d} {i + 1} {s} sys"
    for q, docs in (("q1", ["d3", "d9", "d1", "d2"]), ("q2", ["d4", "d5", "d1"]))
    for i, (d, s) in enumerate(zip(docs, (0.9, 0.8, 0.7, 0.6), strict=False))
) + "\n"


def loaded_after(argv: list[str], folder: Path) -> list[str]:
    """The modules of :data:`NOT_LOADED` in ``sys.modules`` after ``prfeval ARGV`` ran (exit
    0) in a fresh interpreter, its files in ``folder``."""
    found = folder / "modules.json"
    script = textwrap.dedent(f"""
        import sys
        from prfeval.cli import main
        try:
            main({argv!r})
        except SystemExit as exit:
            assert not exit.code, exit.code
        names = [m for m in {NOT_LOADED!r} if m in sys.modules]
        open({str(found)!r}, "w").write(repr(names).replace("'", '"'))  # no json here
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=folder, timeout=300, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    return json.loads(found.read_text())


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.trec").write_text(RUN)
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize(
    "words",
    [
        [],
        ["--format", "csv"],
        ["--format", "trec", "-q"],
        ["-m", "P@10 nDCG@10 AP", "--format=table", "--verbose", "--quiet"],
        ["--measure", "AP", "-m", "P@2"],
    ],
)
def test_a_small_trec_evaluation_loads_none_of_them(files, words):
    assert loaded_after(["evaluate", "qrels.txt", "run.trec", *words], files) == []


@pytest.mark.slow
def test_a_small_json_lines_evaluation_loads_none_of_them(files):
    """A small JSON Lines run of lists beside TREC judgments is read by the compiled pass
    (its first line's keys told apart without Arrow, by Python's JSON parser): no Arrow,
    no DataFrame library; ``--run-columns`` is click's (the short route leaves it), and
    still no Arrow."""
    lines = ['{"qid": "q1", "doc_id": ["d3", "d9", "d1"], "score": [3, 2, 1]}',
             '{"qid": "q2", "doc_id": ["d4"], "score": [1.5]}']
    (files / "run.jsonl").write_text("\n".join(lines) + "\n")
    assert loaded_after(["evaluate", "qrels.txt", "run.jsonl"], files) == ["json"]
    (files / "mapped.jsonl").write_text("\n".join(lines).replace('"score"', '"s"') + "\n")
    argv = ["evaluate", "qrels.txt", "mapped.jsonl", "--run-columns", "score=s"]
    assert loaded_after(argv, files) == ["click", "json", "prfeval.cli._app"]


@pytest.mark.slow
def test_a_json_lines_evaluation_read_by_arrow_loads_no_dataframe_library(files):
    """Beside JSON Lines judgments (which the pass does not read) a JSON Lines run of lists
    needs Arrow (its columns are Arrow's), not pandas: its columns are told apart without
    it (``Schema.empty_table`` would import it: 0.15 s of a 0.25 s start)."""
    lines = ['{"qid": "q1", "doc_id": ["d3", "d9", "d1"], "scores": [3, 2, 1]}',
             '{"qid": "q2", "doc_id": ["d4"], "scores": [1.5]}']
    (files / "run.jsonl").write_text("\n".join(lines) + "\n")
    (files / "gold.jsonl").write_text('{"qid": "q1", "doc_id": "d9", "relevance": 1}\n')
    loaded = loaded_after(["evaluate", "gold.jsonl", "run.jsonl"], files)
    assert "pyarrow" in loaded
    assert not {"pandas", "polars", "scipy", "sklearn", "matplotlib"} & set(loaded)


@pytest.mark.slow
def test_a_result_written_to_a_file_loads_only_the_temporary_files_module(files):
    """``-o`` writes through a temporary file, replaced when complete (``_io/atomic.py``)."""
    argv = ["evaluate", "qrels.txt", "run.trec", "-m", "P@2", "-o", "out.txt"]
    assert loaded_after(argv, files) == ["tempfile", "shutil"]
    assert "P@2" in (files / "out.txt").read_text()


@pytest.mark.slow
def test_the_check_sees_click_and_json_when_they_are_used(files):
    """An option the short route leaves to click loads click; ``--format json`` loads json."""
    assert loaded_after(["evaluate", "qrels.txt", "run.trec", "--bounds"], files) == [
        "click", "prfeval.cli._app"]  # fmt: skip
    assert "json" in loaded_after(["evaluate", "qrels.txt", "run.trec", "--format", "json"], files)


def _run_script(script: str, folder: Path) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                         text=True, cwd=folder, timeout=300, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_importing_the_command_line_package_imports_no_reader_plan(files):
    """``import prfeval.cli`` (the ``prfeval`` program's first line) loads neither the reader
    plan nor what it needs: ``main`` imports them, with the cycle collector paused."""
    script = """
        import sys
        import prfeval.cli
        heavy = ["prfeval._io.plan", "prfeval._io.native_lib", "prfeval._core.options",
                 "dataclasses", "ctypes", "numpy"]
        print([m for m in heavy if m in sys.modules])
        from prfeval.cli import AHEAD_COMMANDS, AHEAD_NEVER
        from prfeval._io import plan
        assert AHEAD_COMMANDS == plan.HEAD_START_COMMANDS and AHEAD_NEVER == plan.HEAD_START_NEVER
    """
    assert _run_script(script, files) == "[]"


@pytest.mark.slow
def test_the_program_freezes_its_start_up_and_a_call_in_process_does_not(files):
    """As the program (``main()``, its words in ``sys.argv``), what the start-up imported is
    frozen out of the cycle collector's walks (:func:`gc.freeze`); ``main([...])`` called
    in-process freezes nothing of its caller's, and leaves the collector on."""
    script = """
        import gc, sys
        from prfeval.cli import main
        sys.argv = ["prfeval", "evaluate", "qrels.txt", "run.trec", "-m", "P@2"]
        seen = []
        for how in ((), (sys.argv[1:],)):
            gc.unfreeze()
            try:
                main(*how)
            except SystemExit as exit:
                assert not exit.code, exit.code
            seen.append((gc.get_freeze_count() > 0, gc.isenabled()))
        print(seen)
    """
    assert _run_script(script, files) == "[(True, True), (False, True)]"
