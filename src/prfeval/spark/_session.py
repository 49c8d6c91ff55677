"""The Spark session the command line evaluates in: spark-submit's, or one it starts.

Library calls use the caller's session (the DataFrames' own, or the active one) and change
nothing in it. The command line has none, so :func:`cli_session` makes one: the session
spark-submit set up when it launched prfeval, or else a new one at ``--spark-master``
(``local[*]`` by default). A local session is made quiet (no progress bars, no web UI, Spark's
own log lines only when fatal), so that prfeval's output is all a user sees, and its Python
workers run this interpreter, the one prfeval is installed in (``PYSPARK_PYTHON``, unless it
is set already: pyspark reads it from the environment). A session whose workers may run
another interpreter (a cluster, or another ``PYSPARK_PYTHON``) is given the driver's prfeval
(:func:`~prfeval.spark._shipping.ship`).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import TYPE_CHECKING, Any

from prfeval._core.errors import InputFormatError, PrfevalError
from prfeval._core.extras import require

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from prfeval.spark._failures import LocalFile

__all__ = [
    "LOCAL_MASTER",
    "LOG4J_QUIET",
    "check_inputs",
    "cli_session",
    "default_filesystem",
    "local_settings",
    "no_pandas_warning",
    "require_pyspark",
    "spark_errors",
    "spark_submitted",
]

#: The master the command line starts when spark-submit gave it none.
LOCAL_MASTER = "local[*]"

#: A log4j2 configuration that lets only fatal messages through, shipped with the package.
LOG4J_QUIET = "log4j2-quiet.properties"


def require_pyspark() -> None:
    """Raise a :class:`~prfeval._core.errors.UsageError` saying how to install pyspark when it
    is missing (it is an optional extra)."""
    require("pyspark", "spark", "the Spark engine (with Java 17 or newer)")


@contextmanager
def no_pandas_warning() -> Iterator[None]:
    """Keep out pyspark's warning that it does not fully support pandas 3: it concerns the
    pandas APIs, which prfeval does not use (only Arrow), and would reach the user's output."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="PySpark does not yet fully support pandas", category=FutureWarning
        )
        yield


@contextmanager
def spark_errors(files: tuple[LocalFile, ...] = ()) -> Iterator[None]:
    """Spark's failures that stand for a prfeval error raised as that error, on the driver
    (:func:`~prfeval.spark._failures.translated`), an error about one of the local ``files``
    as the local reader words it (:func:`~prfeval.spark._failures.located`: a bad line named
    by its number), and pyspark's warning about pandas 3 kept out."""
    from prfeval.spark._failures import located, translated

    with no_pandas_warning():
        try:
            yield
        except InputFormatError as exc:
            error = located(exc, files)
            if error is exc:
                raise
            raise error from None
        except PrfevalError:
            raise
        except Exception as exc:
            mapped = translated(exc, files)
            if mapped is None:
                raise
            raise mapped from None


def default_filesystem(spark: SparkSession) -> str | None:
    """The file system a path without a scheme is on (Hadoop's ``fs.defaultFS``:
    ``file:///`` unless configured), or ``None`` when the session cannot tell."""
    try:
        return str(spark.sparkContext._jsc.hadoopConfiguration().get("fs.defaultFS"))
    except Exception:  # a session without a JVM of its own (Spark Connect): unknown
        return None


def check_inputs(master: str | None, *sources: Any) -> None:
    """The command's inputs checked before :func:`cli_session` starts a session (which takes
    seconds): a missing local file is refused at once
    (:func:`~prfeval.spark._read.check_paths`). Paths without a scheme are on this machine
    when the session is a local one prfeval starts with no Hadoop configuration in the
    environment, or the active session's file system says so; otherwise (spark-submit's
    session, a cluster) :func:`prfeval.spark.evaluate` checks them with the session's."""
    require_pyspark()
    from pyspark.sql import SparkSession

    from prfeval.spark._failures import LOCAL_FS
    from prfeval.spark._read import check_paths

    active = SparkSession.getActiveSession()
    if active is not None:
        check_paths(*sources, default_fs=default_filesystem(active))
        return
    if master is None and spark_submitted():
        return
    local = (master or LOCAL_MASTER).startswith("local")
    hadoop = os.environ.get("HADOOP_CONF_DIR") or os.environ.get("YARN_CONF_DIR")
    check_paths(*sources, default_fs=LOCAL_FS if local and not hadoop else None)


def spark_submitted() -> bool:
    """Whether spark-submit launched this Python process (it hands over its JVM's port)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def local_settings() -> dict[str, str]:
    """Settings for a local session that prints nothing of its own on the terminal."""
    log4j = resources.files("prfeval.spark").joinpath(LOG4J_QUIET)
    return {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.catalogImplementation": "in-memory",
        "spark.driver.extraJavaOptions": f"-Dlog4j.configurationFile=file:{log4j}",
    }


def cli_session(master: str | None = None, settings: dict[str, Any] | None = None) -> SparkSession:
    """The session for ``prfeval evaluate --engine spark``.

    An active session is used as it is. Under spark-submit, the session is built from the
    settings spark-submit passed (its ``--master``, unless ``master`` is given). Otherwise a
    new session is started at ``master`` (default :data:`LOCAL_MASTER`), with
    :func:`local_settings` for a local master. ``settings`` are added to the builder. The
    session it builds is given the driver's prfeval unless its workers run this interpreter
    (:func:`~prfeval.spark._shipping.workers_run_this_python`).
    """
    require_pyspark()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName("prfeval")
    if master is None and not spark_submitted():
        master = LOCAL_MASTER
    if master is not None:
        builder = builder.master(master)
        if master.startswith("local"):
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no hostname lookup
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            for key, value in local_settings().items():
                builder = builder.config(key, value)
    for key, value in (settings or {}).items():
        builder = builder.config(key, value)
    with no_pandas_warning():
        session = builder.getOrCreate()
    from prfeval.spark._shipping import ship, workers_run_this_python

    if not workers_run_this_python(session):
        ship(session)
    return session
