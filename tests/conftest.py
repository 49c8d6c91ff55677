"""Shared fixtures: a local Spark session per test module that asks for one; the Cranfield
demo's files, made once per session by ``prfeval demo`` as a new user runs it.

The Spark tests skip, saying why, when pyspark is not installed or no Java runtime is found
(``java`` on the PATH or ``$JAVA_HOME/bin/java``); CI installs one (``.ci/run``). The session
is ``local[2]``, tuned for small data: two shuffle partitions, no web UI, no adaptive
re-partitioning (partition counts stay as asked), Spark's own log lines silenced.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

SPARK_TEST_SETTINGS = {
    "spark.driver.memory": "1g",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.warehouse.dir": os.path.join(tempfile.gettempdir(), "prfeval-spark-warehouse"),
}


def java_runtime() -> str | None:
    """The java executable Spark would start, if there is one."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        return candidate if os.access(candidate, os.X_OK) else None
    return shutil.which("java")


@pytest.fixture(scope="module")
def spark():
    """A ``local[2]`` SparkSession for one test module, stopped after it."""
    pytest.importorskip("pyspark", reason="the Spark tests need pyspark: pip install '.[spark]'")
    if java_runtime() is None:
        pytest.skip("the Spark tests need a Java runtime (java on the PATH, or JAVA_HOME)")
    from pyspark.sql import SparkSession

    from prfeval.spark.session import local_settings

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers import this prfeval
    builder = SparkSession.builder.master("local[2]").appName("prfeval-tests")
    settings = {**local_settings(), **SPARK_TEST_SETTINGS}
    # C1-only JIT and the serial collector start the JVM faster; tests are short jobs.
    settings["spark.driver.extraJavaOptions"] += " -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # a JAVA_HOME that does not start counts as no Java
        pytest.skip(f"could not start Spark: {exc}")
    session.sparkContext.setLogLevel("FATAL")
    yield session
    session.stop()


@dataclass(frozen=True)
class DemoRun:
    """What ``prfeval demo --out FOLDER/prfeval-demo`` left: run from ``FOLDER``, the README's
    ``prfeval-demo/...`` paths resolve."""

    folder: Path
    stdout: str
    stderr: str

    @property
    def out(self) -> Path:
        return self.folder / "prfeval-demo"


@pytest.fixture(scope="session")
def cranfield_demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """``prfeval demo`` (what ``make demo`` runs) once per session, in a process of its own:
    Cranfield ranked by BM25, its files, figures and report in ``out``."""
    for module in ("bm25s", "Stemmer", "matplotlib"):
        pytest.importorskip(module, reason="the demo needs prfeval[demo]")
    folder = tmp_path_factory.mktemp("readme")
    done = subprocess.run(
        [sys.executable, "-m", "prfeval", "demo", "--out", str(folder / "prfeval-demo")],
        cwd=folder, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "COLUMNS": "80"},  # tables and notes as on an 80-column terminal
    )  # fmt: skip
    if done.returncode != 0:
        pytest.fail(f"prfeval demo exited {done.returncode}:\n{done.stderr}")
    return DemoRun(folder, done.stdout, done.stderr)
