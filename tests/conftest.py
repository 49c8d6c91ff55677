"""Shared fixtures: a local Spark session per test module that asks for one.

The Spark tests skip, saying why, when pyspark is not installed or no Java runtime is found
(``java`` on the PATH or ``$JAVA_HOME/bin/java``); CI installs one (``.ci/run``). The session
is ``local[2]``, tuned for small data: two shuffle partitions, no web UI, no adaptive
re-partitioning (partition counts stay as asked), Spark's own log lines silenced.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

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
