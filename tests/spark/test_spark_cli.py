"""``prfeval evaluate --engine spark`` prints what the local engine prints, byte for byte, in
every format, with and without per-query values, under the options that change the output;
its errors are prfeval's one-line errors. The in-process runs use the module's local[2]
session (the command takes the active one); one run starts its own, as a user's would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyspark")

from prfeval._report.evaluation import FORMATS
from support.cli import run_cli

PRFEVAL = Path(sys.executable).with_name("prfeval")
MEASURES = "P@5 P@10 R@10 SetP SetR SetF F@10 NumRet Rprec IPrec@0.5 Judged@10"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[str, str]:
    """A seeded TREC qrels and run: graded and negative judgments, score ties, a repeated
    document, queries only judged (q0-q2) and only run (q30, q31)."""
    rng = np.random.default_rng(15)
    folder = tmp_path_factory.mktemp("cli")
    qrels, run = [], []
    for q in range(30):
        for d in rng.choice(80, 12, replace=False):
            qrels.append(f"q{q} 0 d{d} {rng.choice([-1, 0, 1, 2])}")
    for q in range(3, 32):
        docs = [int(d) for d in rng.choice(80, 25, replace=False)] + [7]
        for rank, d in enumerate(docs, 1):
            run.append(f"q{q} Q0 d{d} {rank} {rng.integers(0, 8) / 4} tag")
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (folder / "run.txt").write_text("\n".join(run) + "\n")
    return str(folder / "qrels.txt"), str(folder / "run.txt")


@pytest.mark.parametrize("per_query", [False, True], ids=["averages", "per-query"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_prints_what_the_local_engine_prints(spark, files, capsys, fmt, per_query):
    argv = ["evaluate", *files, "-m", MEASURES, "--format", fmt, *(["-q"] if per_query else [])]
    local = run_cli(capsys, *argv)
    on_spark = run_cli(capsys, *argv, "--engine", "spark")
    assert local[0] == 0
    assert on_spark == local


OPTIONS = {
    "complete": ["-c"],
    "level 2": ["-l", "2"],
    "judged only, -M": ["-J", "-M", "10"],
    "unjudged relevant": ["--unjudged", "relevant"],
    "bounds": ["--bounds"],
    "duplicates first, rank order": ["--duplicates", "first", "--order", "rank"],
}


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_options_print_what_the_local_engine_prints(spark, files, capsys, options):
    for fmt in ("table", "json"):
        argv = ["evaluate", *files, "-m", MEASURES, "--format", fmt, *options]
        local = run_cli(capsys, *argv)
        assert run_cli(capsys, *argv, "--engine", "spark") == local


def test_query_set_files(spark, files, capsys, tmp_path):
    (tmp_path / "dev.txt").write_text("q3\nq4\nq5\nq30\nq0\n")
    argv = ["evaluate", *files, "-m", MEASURES, "--queries", str(tmp_path / "dev.txt"), "-q"]
    local = run_cli(capsys, *argv)
    assert run_cli(capsys, *argv, "--engine", "spark") == local


def test_errors_are_one_line(spark, files, capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 1\n")
    code, out, err = run_cli(capsys, "evaluate", files[0], str(bad), "--engine", "spark")
    assert (code, out) == (2, "")
    assert err == f"prfeval: {bad}:2: expected at least 6 fields, got 4\n"  # as --engine local
    code, out, err = run_cli(capsys, "evaluate", *files, "--duplicates", "error",
                             "--engine", "spark")
    assert code == 2 and err.startswith(f"prfeval: {files[1]}: document 'd7' repeated")
    for extra, fragment in [
        (["--engine", "spark", "--stream"], "--stream/--no-stream is for the local engine"),
        (["--spark-master", "local[1]"], "--spark-master is for --engine spark"),
    ]:
        code, out, err = run_cli(capsys, "evaluate", *files, *extra)
        assert code == 2 and fragment in err and err.count("\n") == 1
    code, _, err = run_cli(capsys, "evaluate", files[0], "-", "--engine", "spark")
    assert code == 2 and "not stdin" in err


def test_the_command_starts_its_own_session(files):
    """The installed command, in a fresh process: a session of its own at --spark-master."""
    argv = ["evaluate", *files, "-m", MEASURES, "--format", "csv", "-q"]
    local = subprocess.run([str(PRFEVAL), *argv], capture_output=True, text=True, timeout=120)
    # A JVM tuned to start fast (C1 only) for a test this short.
    env = {**os.environ, "JAVA_TOOL_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
    spark = subprocess.run(
        [str(PRFEVAL), *argv, "--engine", "spark", "--spark-master", "local[1]"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert spark.returncode == 0, spark.stderr
    assert spark.stdout == local.stdout
    # Spark's own log lines are silenced; what is left is the JVM's (its options, and that
    # it uses an incubator module) and prfeval's notes.
    jvm = ("WARNING: Using incubator modules", "Picked up JAVA_TOOL_OPTIONS")
    assert [x for x in spark.stderr.splitlines() if not x.startswith(jvm)] == (
        local.stderr.splitlines()
    )
