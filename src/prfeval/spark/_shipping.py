"""Giving the executors the driver's prfeval: a zip of the package on their Python path.

The executors import prfeval to run the kernel. :func:`ship` zips the package the driver
imported (its code; not the demo's data sets) and adds it to the session with
``SparkContext.addPyFile``: every task then finds it first on its Python path, so the
executors run the driver's very version, whatever their image holds (what the driver
pickles, the plan and the measures, unpickles there as it was made). They still need
prfeval's dependencies there: numpy and pyarrow (which pyspark's Arrow functions need
anyway).

The command line ships prfeval unless the workers run the driver's own interpreter
(:func:`workers_run_this_python`: a local master whose workers run ``sys.executable``). A
library call changes nothing in the caller's session: ``prfeval.spark.ship(spark)`` is the
caller's to make, and the error for executors without prfeval says so.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from prfeval._core.errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["package_zip", "ship", "workers_run_this_python"]

#: The folders of the package the executors never read (the demo's data sets).
_LEFT_OUT = frozenset({"data", "__pycache__"})

#: Application id -> the zip shipped to it (once per SparkContext).
_SHIPPED: dict[str, str] = {}


def package_zip(folder: str | os.PathLike[str]) -> Path:
    """A zip of the prfeval package the driver runs, as ``prfeval/...`` in ``folder``.

    Raises
    ------
    UsageError
        When prfeval is not installed as a folder of files (it cannot be zipped again).
    """
    package = Path(__file__).resolve().parent.parent  # prfeval/spark/_shipping.py
    if not package.is_dir() or not (package / "__init__.py").is_file():
        raise UsageError(
            f"cannot ship prfeval to the Spark workers from {package}: install it on them"
        )
    target = Path(folder) / f"prfeval-{_version()}.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for root, dirs, files in os.walk(package):
            if Path(root) == package:
                dirs[:] = [d for d in dirs if d not in _LEFT_OUT]
            else:
                dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in sorted(files):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = Path(root) / name
                archive.write(path, Path("prfeval") / path.relative_to(package))
    return target


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("prfeval")
    except PackageNotFoundError:
        return "dev"


def ship(spark: SparkSession) -> None:
    """Give the executors of ``spark`` the driver's prfeval (a zip of the package, added
    with ``SparkContext.addPyFile``), once per Spark application.

    Use it when the executors do not have prfeval (or have another version of it); they
    still need numpy and pyarrow. The zip is written in a temporary folder, removed when
    the driver exits.
    """
    context = spark.sparkContext
    app = context.applicationId
    if app in _SHIPPED:
        return
    folder = tempfile.mkdtemp(prefix="prfeval-ship-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    target = package_zip(folder)
    context.addPyFile(str(target))
    _SHIPPED[app] = str(target)


def workers_run_this_python(spark: SparkSession) -> bool:
    """Whether the Python workers of ``spark`` are certain to import the driver's prfeval:
    the master is local and they run this very interpreter (``spark.pyspark.python`` or
    ``PYSPARK_PYTHON``, as a path; a name on the PATH or a symbolic link to another
    interpreter counts as another)."""
    context = spark.sparkContext
    if not (context.master or "").startswith("local"):
        return False
    workers = context.pythonExec or ""
    return os.path.isabs(workers) and os.path.abspath(workers) == os.path.abspath(sys.executable)
