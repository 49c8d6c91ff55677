"""Writing a result to a file: the one writer behind ``-o``, ``--plot`` and ``split``.

What a name stands for decides how it is written:

* a regular file, or a name that does not exist yet: through a temporary file beside the
  target, renamed over it when the writing ends without an error and removed when it fails,
  so that an interrupted or failed write never leaves a half-written result. A symbolic link
  is followed, and the file it points to is replaced (the link stays a link). A new file gets
  the mode ``0666`` minus the umask, as any tool's does; a replaced file keeps its mode.
* a special file (a character device such as ``/dev/null`` or a terminal, a FIFO, a socket)
  and the names of open descriptors (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``,
  ``/proc/self/fd/N``): written directly, never renamed over, since replacing them would
  replace the device or break the pipe.
* a directory, a name ending in ``/`` and the empty name are refused
  (:class:`~prfeval._core.errors.UsageError`).

Failures name the target as it was given, never the temporary file
(:class:`~prfeval._core.errors.OutputError`).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

from prfeval._core.errors import OutputError, UsageError

__all__ = ["check_not_an_input", "check_output", "open_output", "write_atomic"]

#: Names of a descriptor this process has open: written through that descriptor.
_DESCRIPTOR = re.compile(r"/dev/(?:(stdout)|(stderr)|fd/(\d+))|/proc/self/fd/(\d+)")


def _umask() -> int:
    """The process's umask, read without changing it where the system says it."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # the portable way: set it and put it back at once
    os.umask(mask)
    return mask


def _descriptor(name: str) -> int | None:
    """The descriptor that ``name`` stands for (``/dev/stdout`` is 1), or ``None``."""
    match = _DESCRIPTOR.fullmatch(name)
    if match is None:
        return None
    stdout, stderr, fd, proc_fd = match.groups()
    return 1 if stdout else 2 if stderr else int(fd or proc_fd)


def _refuse_names(name: str) -> None:
    if name == "":
        raise UsageError("the output file name is empty")
    if name.endswith(("/", os.sep)) or (os.altsep and name.endswith(os.altsep)):
        raise UsageError(f"{name}: ends with '/': give the name of a file, not a directory")


class _Writer:
    """A binary handle whose write failures name the target, not a temporary file."""

    def __init__(self, handle: BinaryIO, name: str) -> None:
        self._handle = handle
        self._name = name

    def write(self, data: bytes) -> int:
        try:
            return self._handle.write(data)
        except BrokenPipeError:
            raise  # the reader went away: the CLI exits quietly
        except OSError as exc:
            raise OutputError(f"{self._name}: cannot write: {exc.strerror or exc}") from None

    def flush(self) -> None:
        try:
            self._handle.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"{self._name}: cannot write: {exc.strerror or exc}") from None

    def __getattr__(self, attr: str) -> object:  # seekable(), tell(), ... for savefig
        return getattr(self._handle, attr)


@contextmanager
def _direct(name: str, fd: int | None) -> Iterator[BinaryIO]:
    """Write straight into a descriptor or a special file: nothing to rename or remove."""
    try:
        if fd is not None:
            if fd == 1 and sys.stdout is not None:
                sys.stdout.flush()  # what was printed before goes first
            handle = os.fdopen(os.dup(fd), "wb")
        else:
            # No O_TRUNC and no O_CREAT: a device or a FIFO is written into, never made.
            # Not blocking at the opening: a FIFO nobody reads would wait for ever there.
            opened = os.open(name, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0))
            os.set_blocking(opened, True)  # the writes wait for the reader, as a pipe's do
            handle = os.fdopen(opened, "wb")
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO with no reader
            raise OutputError(
                f"{name}: cannot write: no process is reading this FIFO (start its reader "
                "first; prfeval does not wait for one)"
            ) from None
        raise OutputError(f"{name}: cannot write: {exc.strerror or exc}") from None
    with handle:
        writer = _Writer(handle, name)
        yield writer  # type: ignore[misc]  # _Writer has the BinaryIO methods writers call
        writer.flush()


def check_output(path: str | os.PathLike[str]) -> None:
    """Refuse, before any work, an output :func:`open_output` would refuse: an empty name, a
    name ending in ``/``, a directory, a file in a folder that does not exist."""
    name = os.fspath(path)
    _refuse_names(name)
    if _descriptor(name) is not None:
        return
    if os.path.isdir(name):
        raise UsageError(f"{name}: is a directory: give the name of a file")
    if not os.path.exists(name) and not Path(os.path.realpath(name)).parent.is_dir():
        raise OutputError(f"{name}: cannot write: the folder {Path(name).parent} does not exist")


@contextmanager
def open_output(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary stream to write a result to ``path`` through (see the module's notes).

    Raises
    ------
    UsageError
        For an empty name, a name ending in ``/`` or a directory.
    OutputError
        When the file cannot be written (its folder is missing, permission denied, ...).
    """
    name = os.fspath(path)
    _refuse_names(name)
    fd = _descriptor(name)
    if fd is not None:
        with _direct(name, fd) as handle:
            yield handle
        return
    try:
        info: os.stat_result | None = os.stat(name)  # follows symbolic links
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OutputError(f"{name}: cannot write: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{name}: is a directory: give the name of a file")
    if info is not None and not stat.S_ISREG(info.st_mode):
        with _direct(name, None) as handle:
            yield handle
        return
    # The file a symbolic link points to, even a link to a file not made yet: it is the one
    # replaced, beside which the temporary file must be, and the link stays.
    target = Path(os.path.realpath(name))
    if not target.parent.is_dir():
        raise OutputError(f"{name}: cannot write: the folder {Path(name).parent} does not exist")
    try:
        import tempfile  # only for a file written (a result to stdout needs none)

        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"{name}: cannot write: {exc.strerror or exc}") from None
    try:
        # mkstemp makes the file 0600; a result file is 0666 minus the umask, as any tool's.
        os.fchmod(fd, stat.S_IMODE(info.st_mode) if info else 0o666 & ~_umask())
        if info is not None and hasattr(os, "fchown"):
            with suppress(OSError):  # root replacing someone's file keeps it theirs
                os.fchown(fd, info.st_uid, info.st_gid)
        with os.fdopen(fd, "wb") as raw:
            writer = _Writer(raw, name)
            yield writer  # type: ignore[misc]  # _Writer has the BinaryIO methods writers call
            writer.flush()
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise OutputError(f"{name}: cannot write: {exc.strerror or exc}") from None
    except BaseException:  # an error, Ctrl-C, SIGTERM: nothing half written is left
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` with :func:`open_output`."""
    with open_output(path) as handle:
        handle.write(text.encode("utf-8"))


def _identity(name: str) -> tuple[int, int] | None:
    """(device, inode) of an existing file, or ``None``; ``-`` is standard input."""
    try:
        if name == "-":
            if sys.stdin is None:
                return None
            info = os.fstat(sys.stdin.fileno())
        else:
            info = os.stat(name)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None  # writing into a device or a pipe destroys no input
    return info.st_dev, info.st_ino


def check_not_an_input(
    outputs: Iterable[str | os.PathLike[str] | None],
    inputs: Iterable[str | os.PathLike[str] | None],
) -> None:
    """Refuse to write a result over one of the inputs (the same file, by any name).

    Files are compared as :func:`os.path.samefile` does (device and inode), so a link or a
    relative path is caught too; ``-`` among the inputs is standard input, which may be a
    file (``< run.txt``).

    Raises
    ------
    UsageError
        Naming both the output and the input it would overwrite.
    """
    known: dict[tuple[int, int], str] = {}
    for given in inputs:
        if given is None:
            continue
        name = os.fspath(given)
        identity = _identity(name)
        if identity is not None:
            known.setdefault(identity, name)
    for given in outputs:
        if given is None or os.fspath(given) == "-":
            continue
        name = os.fspath(given)
        identity = _identity(name)
        if identity in known:
            source = known[identity]
            what = "standard input" if source == "-" else source
            raise UsageError(
                f"{name}: is also an input ({what}); writing there would destroy it: "
                "give another output file"
            )
