"""Spark's failures as prfeval's one-line errors, naming the file and, where it can, the line.

Spark reports a bad input in its own words, at a moment of its own: a missing path when a
DataFrame is made (``PATH_NOT_FOUND``), a corrupt gzip file when a task reads it
(``FAILED_READ_FILE``, under a Java stack trace), executors that cannot import prfeval when
they unpickle the kernel (``ModuleNotFoundError`` in a Python traceback), and a bad value or
line wherever prfeval's own checks raised it (marked by
:func:`~prfeval.spark._partition.error_text`). :func:`translated` turns each into the
:class:`~prfeval._core.errors.PrfevalError` the local engine raises for the same problem, with
its wording; :func:`reading` does it for the reads that fail as the DataFrame is made.

An executor sees lines or rows, not where they were in the file, so Spark's message names a
bad line by its text. When the input is one local file of moderate size
(:data:`LOCATE_BYTES`), :func:`located` gives the local engine's own message instead: the
local reader reads the file once more, on the driver, only then (the second pass the local
table readers make to find a line), and its error names the line by its number, word for word
as ``--engine local`` does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

from prfeval._core.errors import InputFormatError, PrfevalError, UsageError
from prfeval.spark._partition import error_from

__all__ = [
    "LOCAL_FS",
    "LOCATE_BYTES",
    "LocalFile",
    "has_glob",
    "local_path",
    "located",
    "reading",
    "translated",
    "worker_import_error",
]

#: The largest local file (as stored) the local reader reads again to give a bad line's
#: number; a gzipped one may hold eight times as much text.
LOCATE_BYTES = 256 << 20
_GZIP_LOCATE_BYTES = LOCATE_BYTES // 8

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")
_GLOB = re.compile(r"[*?\[{]")
_PATH_NOT_FOUND = re.compile(r"\[PATH_NOT_FOUND\][^:]*: (\S+?)\.?(?:\s+SQLSTATE|\s*$)")
_FAILED_READ = re.compile(
    r"\[FAILED_READ_FILE[.\w]*\] Encountered error while reading file (\S+?)\.\s"
)
_CAUSE = re.compile(r"^Caused by: ([\w.$]+)(?:: (.*))?$", re.MULTILINE)
_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")
_JAVA_ERROR = re.compile(r"^: ([\w.$]+)(?:: (.*))?$", re.MULTILINE)
_ERROR_CLASS = re.compile(r"^\[[A-Z_.]+\]\s*|\s*SQLSTATE: \w+\s*$")


#: Hadoop's default file system when nothing configures another.
LOCAL_FS = "file:///"


def local_path(path: str, default_fs: str | None = LOCAL_FS) -> str | None:
    """The path on this machine that ``path`` names: a ``file:`` URI's path, or ``path``
    itself when it has no scheme and the default file system (Hadoop's ``fs.defaultFS``,
    ``None`` if unknown) is the local one; ``None`` for any other path (``hdfs://``,
    ``s3a://``, ``/eval/run`` on a cluster whose default file system is HDFS)."""
    if not _SCHEME.match(path):
        return path if default_fs is not None and default_fs.startswith("file:") else None
    parsed = urlparse(path)
    if parsed.scheme.lower() == "file" and parsed.netloc in ("", "localhost"):
        return unquote(parsed.path)
    return None


def has_glob(path: str) -> bool:
    """Whether Spark would read ``path`` as a glob pattern."""
    return bool(_GLOB.search(path))


@dataclass(frozen=True)
class LocalFile:
    """An input the driver can read as the local engine reads it: one regular file.

    Attributes
    ----------
    name
        How messages name it (the path as given).
    path
        Where it is on this machine.
    side
        ``"qrels"`` or ``"run"``.
    kind
        The format Spark reads it as: ``"trec"``, ``"csv"``, ``"tsv"``, ``"jsonl"``,
        ``"parquet"``.
    ranks
        Whether the run's rank column is read (``order="rank"``).
    """

    name: str
    path: str
    side: str
    kind: str
    ranks: bool = False

    def local_error(self) -> InputFormatError | None:
        """The error the local reader finds in the file, named as Spark's input is; ``None``
        if it reads the file (or the file is too large to read again)."""
        from prfeval._io.load import load_qrels, load_run

        try:
            info = os.stat(self.path)
            with open(self.path, "rb") as f:
                gzipped = f.read(2) == b"\x1f\x8b"
        except OSError:
            return None
        if info.st_size > (_GZIP_LOCATE_BYTES if gzipped else LOCATE_BYTES):
            return None
        try:
            if self.side == "qrels":
                load_qrels(self.path, format=self.kind)
            else:
                load_run(self.path, format=self.kind, ranks=self.ranks)
        except InputFormatError as exc:
            if exc.path != self.path:
                return None  # not about this file (cannot happen: it is read alone)
            return InputFormatError(
                exc.reason,
                path=self.name,
                line_number=exc.line_number,
                line=exc.line,
                row_number=exc.row_number,
            )
        return None


def located(error: InputFormatError, files: Iterable[LocalFile]) -> InputFormatError:
    """``error`` (about a file, found by Spark), or the local reader's error in that file
    when it is one of the local ``files``: the same problem, named by its line number."""
    if error.line_number is not None or error.row_number is not None:
        return error
    for file in files:
        if file.name == error.path:
            return file.local_error() or error
    return error


def worker_import_error(module: str) -> UsageError:
    """What to do when the executors' Python cannot import ``module``."""
    if module.split(".")[0] == "prfeval":
        return UsageError(
            f"the Spark workers cannot import {module}: install prfeval on every worker "
            "(in the image, or in an environment shipped with --archives), or ship the "
            "driver's prfeval to them with prfeval.spark.ship(spark); see docs/spark.md"
        )
    return UsageError(
        f"the Spark workers cannot import {module}, which prfeval needs there: install it on "
        "every worker (in the image, or in an environment shipped with --archives); "
        "see docs/spark.md"
    )


def _file_name(uri: str, files: Iterable[LocalFile]) -> str:
    """How to name the file Spark names by ``uri``: as the user named the input, when it
    is one; else its local path (relative to the working directory, when it is in it), or
    the URI."""
    path = local_path(uri)
    if path is None:
        return uri
    for file in files:
        if os.path.abspath(file.path) == os.path.abspath(path):
            return file.name
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def _read_failure(text: str, files: tuple[LocalFile, ...]) -> InputFormatError | None:
    """A task's failure to read a file: corrupt gzip data, or Hadoop's reason."""
    found = _FAILED_READ.search(text)
    if found is None:
        return None
    uri = found.group(1)
    causes = _CAUSE.findall(text[found.end() :])
    reason = (causes[-1][1] or causes[-1][0].rpartition(".")[2]) if causes else ""
    name = _file_name(uri, files)
    if uri.endswith(".gz") or any("zip" in cls.lower() for cls, _ in causes):
        error = InputFormatError(f"corrupt gzip data ({reason})", path=name)
    else:
        error = InputFormatError(f"cannot read: {reason or 'unknown error'}", path=name)
    return located(error, files)


def translated(exc: BaseException, files: Iterable[LocalFile] = ()) -> PrfevalError | None:
    """The prfeval error ``exc`` (an exception from Spark) stands for, if it is one.

    A marked prfeval error, a task's failure to read a file and executors that cannot
    import a module; an error about a line of one of the local ``files`` is located there
    (:func:`located`).
    """
    text = str(exc)
    files = tuple(files)
    marked = error_from(text)
    if marked is not None:
        if isinstance(marked, InputFormatError):
            return located(marked, files)
        return marked
    failed = _read_failure(text, files)
    if failed is not None:
        return failed
    missing = _NO_MODULE.search(text)
    if missing is not None and "Python worker" in text:
        return worker_import_error(missing.group(1))
    return None


def _reason(text: str) -> str:
    """Spark's or Hadoop's message in ``text``, without error class, SQL state or trace."""
    java = _JAVA_ERROR.search(text)
    if java is not None:
        message = java.group(2) or java.group(1).rpartition(".")[2]
        # A wrapped exception repeats its cause's class: keep the cause's words.
        while (inner := re.match(r"^([\w.$]+(?:Exception|Error)): (.*)$", message)) is not None:
            message = inner.group(2)
        text = message
    return _ERROR_CLASS.sub("", text.strip().splitlines()[0] if text.strip() else "").strip()


@contextmanager
def reading(name: str) -> Iterator[None]:
    """Spark's failure to open the input ``name`` (as a DataFrame is made from it) raised as
    an :class:`~prfeval._core.errors.InputFormatError` naming it: ``no such file``, or
    ``cannot read:`` and Spark's or Hadoop's reason in one line."""
    try:
        yield
    except PrfevalError:
        raise
    except Exception as exc:
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException

        if not isinstance(exc, PySparkException | Py4JError):
            raise
        text = str(exc)
        error = translated(exc)
        if error is not None:
            raise error from None
        if _PATH_NOT_FOUND.search(text):
            reason = "no file matches" if has_glob(name) else "no such file"
            raise InputFormatError(reason, path=name) from None
        raise InputFormatError(f"cannot read: {_reason(text)}", path=name) from None
