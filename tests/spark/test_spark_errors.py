"""With ``--engine spark``, a bad input ends as it ends with the local engine: one line on
stderr naming the file (and the line), exit 2, no traceback; a missing local file is refused
before Spark reads anything; executors that cannot import prfeval are told how to get it, or are
given it.

Each bad input is read by both engines and their messages compared. For a local file,
Spark's message is the local engine's, word for word (the local reader finds the line again,
on the driver). For a folder (what Spark writes, and what a remote path stands for), it names
the file, the problem and the line by its text. One local[2] session serves the module; the
last test points its Python workers at an interpreter without prfeval, as on a cluster whose
image lacks it.
"""

from __future__ import annotations

import gzip
import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

import prfeval
import prfeval.spark
from prfeval._core.errors import InputFormatError, UsageError
from prfeval.spark._read import check_paths
from prfeval.spark._shipping import package_zip, workers_run_this_python
from support.cli import run_cli

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq3 0 d9 1\n"
RUN = "".join(f"q{i % 3 + 1} Q0 d{i} {i} {40 - i}.5 tag\n" for i in range(1, 40))


@pytest.fixture
def good(tmp_path) -> tuple[str, str]:
    """A valid TREC qrels and run."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def truncated_gzip(path: Path, text: str) -> str:
    """``text`` gzipped and cut in the middle of its compressed stream."""
    data = gzip.compress(text.encode(), mtime=0)
    path.write_bytes(data[: len(data) // 2])
    return str(path)


def many_judgments() -> str:
    return "".join(f"q{i % 50} 0 d{i} {i % 3}\n" for i in range(2000))


def local_error(qrels: str, run: str) -> str:
    """What the local engine says of these inputs."""
    with pytest.raises(InputFormatError) as caught:
        prfeval.evaluate(qrels, run, "P@5")
    return str(caught.value)


def spark_error(spark, qrels: str, run: str) -> str:
    with pytest.raises(InputFormatError) as caught:
        prfeval.spark.evaluate(qrels, run, "P@5", spark=spark)
    return str(caught.value)


# -- the issue's cases, through the command line ------------------------------------------------


def issue_case(tmp_path: Path, good: tuple[str, str], case: str) -> tuple[str, str]:
    qrels, run = good
    if case == "missing run":
        return qrels, str(tmp_path / "missing.run")
    if case == "truncated gzip qrels":
        return truncated_gzip(tmp_path / "qrels.txt.gz", many_judgments()), run
    if case == "truncated gzip run":
        return qrels, truncated_gzip(tmp_path / "run.txt.gz", RUN * 60)
    if case == "grade 1e30":
        (tmp_path / "grades.csv").write_text("query_id,doc_id,relevance\nq1,d1,1e30\n")
        return str(tmp_path / "grades.csv"), run
    assert case == "an extra field"
    (tmp_path / "extra.csv").write_text("query_id,doc_id,score\nq1,d1,1.0,extra\n")
    return qrels, str(tmp_path / "extra.csv")


ISSUE = ["missing run", "truncated gzip qrels", "truncated gzip run", "grade 1e30",
         "an extra field"]  # fmt: skip


@pytest.mark.parametrize("case", ISSUE)
def test_the_command_ends_as_the_local_engine_ends(spark, tmp_path, good, capsys, case):
    qrels, run = issue_case(tmp_path, good, case)
    # --no-stream: the local engine's streamed reading of a truncated gzip run is not at
    # issue here; its message is the same either way.
    local = run_cli(capsys, "evaluate", qrels, run, "--no-stream")
    assert local[0] == 2 and local[1] == "" and local[2].count("\n") == 1
    assert run_cli(capsys, "evaluate", qrels, run, "--engine", "spark") == local


def test_a_missing_file_is_refused_before_spark_reads_anything(spark, tmp_path, good,
                                                                monkeypatch):  # fmt: skip
    import prfeval.spark._engine

    def no_reading(*args, **kwargs):
        raise AssertionError("Spark was asked to read")

    monkeypatch.setattr(prfeval.spark._engine, "read_qrels", no_reading)
    monkeypatch.setattr(prfeval.spark._engine, "read_run", no_reading)
    qrels, run = good
    missing = str(tmp_path / "nothing.txt")
    for pair in [(qrels, missing), (missing, run)]:
        with pytest.raises(InputFormatError) as caught:
            prfeval.spark.evaluate(*pair, "P@5", spark=spark)
        assert str(caught.value) == local_error(*pair) == f"{missing}: no such file"


def test_the_command_can_check_its_inputs_before_it_starts_a_session(tmp_path, monkeypatch):
    """Where the session it would start is local: a path without a scheme is on this
    machine; on a cluster (or under a Hadoop configuration), only a file: URI is."""
    from pyspark.sql import SparkSession

    from prfeval.spark._session import check_inputs

    monkeypatch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
    monkeypatch.delenv("HADOOP_CONF_DIR", raising=False)
    monkeypatch.delenv("YARN_CONF_DIR", raising=False)
    missing = str(tmp_path / "nothing.txt")
    for master in (None, "local[2]"):
        with pytest.raises(InputFormatError, match="no such file"):
            check_inputs(master, missing)
    check_inputs("yarn", missing)  # HDFS's to say
    with pytest.raises(InputFormatError, match="no such file"):
        check_inputs("yarn", f"file://{missing}")
    monkeypatch.setenv("HADOOP_CONF_DIR", str(tmp_path))
    check_inputs("local[2]", missing)  # fs.defaultFS may be HDFS


# -- bad tables: the local engine's message, for a local file -----------------------------------

TABLES = {
    "a column named twice": ("run.tsv", "query_id\tdoc_id\tscore\tscore\nq1\td1\t1\t2\n"),
    "a JSON line that is a list": ("run.jsonl", '{"query_id": "q1", "doc_id": "d1"}\n[1, 2]\n'),
    "a JSON grade past 64 bits": (
        "qrels.jsonl",
        '{"query_id": "q1", "doc_id": "d1", "relevance": 1}\n'
        '{"query_id": "q1", "doc_id": "d2", "relevance": 1e30}\n',
    ),
}


@pytest.mark.parametrize("case", TABLES.values(), ids=TABLES.keys())
def test_a_bad_table_gets_the_local_engines_message(spark, tmp_path, good, case):
    name, text = case
    (tmp_path / name).write_text(text)
    bad = str(tmp_path / name)
    qrels, run = good
    pair = (bad, run) if name.startswith("qrels") else (qrels, bad)
    expected = local_error(*pair)
    assert expected.startswith(f"{bad}:")  # the file (and its line) named
    assert spark_error(spark, *pair) == expected


# -- in a folder (as on HDFS or S3): the file, the problem and the line's text ------------------


def in_folder(tmp_path: Path, folder: str, part: str, content: str | bytes) -> str:
    (tmp_path / folder).mkdir()
    target = tmp_path / folder / part
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content)
    return str(tmp_path / folder)


def test_a_folder_names_the_problem_and_the_line(spark, tmp_path, good):
    qrels, run = good
    grades = in_folder(tmp_path, "grades.csv", "part-0.csv", "query_id,doc_id,relevance\n"
                       "q1,d1,1\nq1,d2,1e30\n")  # fmt: skip
    assert spark_error(spark, grades, run) == (
        f"{grades}: column 'relevance' is out of range (64-bit integers): 1e30"
    )
    # A column the engine does not read (tag) is parsed all the same, to count the fields.
    extra = in_folder(tmp_path, "extra.csv", "part-0.csv", "query_id,doc_id,score,tag\n"
                      "q1,d1,1.0,a\nq1,d2,2.0,b,extra\n")  # fmt: skip
    assert spark_error(spark, qrels, extra) == (
        f"{extra}: expected 4 fields, got 5 in this line: q1,d2,2.0,b,extra"
    )
    lines = in_folder(tmp_path, "run", "part-0.txt", "q1 Q0 d2 1 3.0 tag\nq1 Q0 d1 1 2.0\n")
    assert spark_error(spark, qrels, lines) == (
        f"{lines}: expected at least 6 fields, got 5 in this run line: q1 Q0 d1 1 2.0"
    )


def test_a_truncated_gzip_part_is_named(spark, tmp_path, good):
    qrels, _ = good
    data = gzip.compress((RUN * 60).encode(), mtime=0)
    folder = in_folder(tmp_path, "gzrun", "part-0.gz", data[: len(data) // 2])
    assert spark_error(spark, qrels, folder) == (
        f"{folder}/part-0.gz: corrupt gzip data (Unexpected end of input stream)"
    )


# -- paths Spark cannot open ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("file:///nonexistent/prfeval/run.txt", "no such file"),
        ("/nonexistent/prfeval/run-*.txt", "no file matches"),
        ("hdfs:///eval/run.txt", "cannot read: Incomplete HDFS URI, no host: hdfs:///eval/run.txt"),
        ("nosuch://bucket/run.txt", 'cannot read: No FileSystem for scheme "nosuch"'),
    ],
    ids=["file URI", "glob", "HDFS without a host", "unknown scheme"],
)
def test_a_path_spark_cannot_open(spark, good, path, reason):
    assert spark_error(spark, good[0], path) == f"{path}: {reason}"


def test_local_paths_spark_would_misread(tmp_path):
    """Refused at once: Spark reads compressed files by their name, and no pipes."""
    (tmp_path / "run.txt").write_bytes(gzip.compress(RUN.encode()))
    (tmp_path / "qrels.txt.gz").write_text(QRELS)
    os.mkfifo(tmp_path / "fifo")
    for name, reason in [
        ("run.txt", "gzip data in a file whose name does not end in .gz: Spark decompresses "
                    "by name; rename it run.txt.gz"),
        ("qrels.txt.gz", "not gzip data, though its name ends in .gz: Spark decompresses by "
                         "name; rename it without .gz"),
        ("fifo", "not a regular file: Spark reads files and folders (use --engine local for "
                 "a pipe)"),
    ]:  # fmt: skip
        with pytest.raises(InputFormatError) as caught:
            check_paths(str(tmp_path / name))
        assert str(caught.value) == f"{tmp_path / name}: {reason}"
    # Spark's to say: a folder, a URI, a glob, a path on a default file system not local.
    check_paths(str(tmp_path), "hdfs://host/eval/run", "/nowhere/run-*.txt")
    check_paths("/nowhere/run.txt", default_fs="hdfs://namenode:8020")


# -- executors without prfeval -------------------------------------------------------------------


def test_the_shipped_zip_holds_the_code_not_the_data(tmp_path):
    names = zipfile.ZipFile(package_zip(tmp_path)).namelist()
    assert "prfeval/__init__.py" in names and "prfeval/spark/_partition.py" in names
    assert not any(n.startswith("prfeval/data/") or n.endswith(".pyc") for n in names)


#: The end of what Spark 4 raised (a PythonException) when its workers could not import
#: prfeval, captured from the run below.
WORKER_TRACEBACK = """An exception was thrown from the Python worker:
Traceback (most recent call last):
  File ".../pyspark/python/lib/pyspark.zip/pyspark/worker_util.py", line 75, in read_command
    command = serializer.loads(file)
              ^^^^^^^^^^^^^^^^^^^^^^
  File ".../pyspark/python/lib/pyspark.zip/pyspark/serializers.py", line 483, in loads
    return cloudpickle.loads(obj, encoding=encoding)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
ModuleNotFoundError: No module named '{module}'
"""


def test_workers_that_cannot_import_a_module_are_told_to_install_it():
    from prfeval.spark._failures import translated

    error = translated(RuntimeError(WORKER_TRACEBACK.format(module="numpy")))
    assert isinstance(error, UsageError)
    assert str(error) == (
        "the Spark workers cannot import numpy, which prfeval needs there: install it on every "
        "worker (in the image, or in an environment shipped with --archives); see docs/spark.md"
    )
    error = translated(RuntimeError(WORKER_TRACEBACK.format(module="prfeval")))
    assert isinstance(error, UsageError) and "prfeval.spark.ship(spark)" in str(error)


@pytest.fixture
def python_without_prfeval(tmp_path) -> str:
    """An interpreter with pyspark, numpy and pyarrow but not prfeval: a fresh venv that
    sees this one's site-packages (whose editable install of prfeval it does not load)."""
    env = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True,
                   timeout=120)  # fmt: skip
    python = env / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    Path(purelib, "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    probe = "import pyspark, numpy, pyarrow\ntry:\n import prfeval\nexcept ImportError:\n exit(3)"
    if subprocess.run([python, "-c", probe], timeout=60).returncode != 3:
        pytest.skip("no interpreter without prfeval: it is installed in site-packages")
    return str(python)


def test_workers_without_prfeval_are_told_how_then_given_it(spark, good, capsys,
                                                            python_without_prfeval):  # fmt: skip
    """Last in the module: the session keeps the shipped zip."""
    context = spark.sparkContext
    saved = context.pythonExec
    assert workers_run_this_python(spark)
    context.pythonExec = python_without_prfeval  # the workers' interpreter, from now on
    try:
        assert not workers_run_this_python(spark)
        # (In Python: the same message, as a UsageError.)
        assert run_cli(capsys, "evaluate", *good, "--engine", "spark") == (
            2, "", "prfeval: the Spark workers cannot import prfeval: install prfeval on every "
            "worker (in the image, or in an environment shipped with --archives), or ship the "
            "driver's prfeval to them with prfeval.spark.ship(spark); see docs/spark.md\n",
        )  # fmt: skip
        prfeval.spark.ship(spark)
        prfeval.spark.ship(spark)  # once is enough: the second does nothing
        result = prfeval.spark.evaluate(*good, "P@5 SetF AP", spark=spark)
    finally:
        context.pythonExec = saved
    local = prfeval.evaluate(*good, "P@5 SetF AP")
    assert (result.macro, result.micro) == (local.macro, local.micro)


def test_the_cli_names_a_missing_file_before_it_starts_spark(tmp_path, good, capsys,
                                                             monkeypatch):
    """No session is started for an input that is not there: the JVM's start is seconds."""
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    import prfeval.spark._session as session

    def no_session(*args, **kwargs):
        raise AssertionError("a Spark session was started for a missing file")

    monkeypatch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
    monkeypatch.setattr(session, "cli_session", no_session)
    code, out, err = run_cli(capsys, "evaluate", "--engine", "spark", good[0],
                             str(tmp_path / "missing.run"))  # fmt: skip
    assert code == 2 and out == ""
    assert err.strip() == f"prfeval: {tmp_path / 'missing.run'}: no such file"


def test_diversity_measures_are_refused_before_a_session_starts(tmp_path):
    """The Spark engine's blocks carry graded judgments, not subtopic judgments: a diversity
    measure is refused, naming it, before any Spark work (no session is made here)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    run = tmp_path / "run.txt"
    run.write_text(RUN)
    with pytest.raises(UsageError, match=r"no subtopic judgments; measure alpha_nDCG@10"):
        prfeval.spark.evaluate(str(qrels), str(run), ["P@5", "alpha_nDCG@10"])
