"""The SHA-256 digest of an input file, so that a report names exactly what it measured.

A regular file is hashed as stored (``sha256sum`` gives the same digest, a ``.gz`` file's
included) and read again afterwards by whoever measures it, so a large run can still be
streamed. Anything else (standard input, a pipe, a FIFO) can be read only once: its bytes are
read whole here, hashed, and kept in an :class:`~prfeval._io.source.Input` that serves every
later reading, under the input's own name (``<stdin>``), so that messages name it as usual.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from prfeval._core.errors import InputFormatError
from prfeval._io.source import Input, display_name, open_input

__all__ = ["Digested", "digested"]


@dataclass(frozen=True)
class Digested:
    """An input file, hashed.

    Attributes
    ----------
    source
        What to read it from now: the path of a regular file, or an :class:`Input` holding
        the bytes of anything else.
    name
        How messages name it (its path as given, ``<stdin>``).
    sha256
        The hex SHA-256 digest of its bytes as stored (before any gunzip).
    size
        Its size in bytes, as stored.
    regular
        Whether it is a regular file.
    """

    source: str | Input
    name: str
    sha256: str
    size: int
    regular: bool


def digested(source: str | Path) -> Digested:
    """Hash the input named ``source`` (``-``: standard input).

    Raises
    ------
    InputFormatError
        For a missing or unreadable file, a directory or a closed standard input, as the
        readers word it.
    """
    name = display_name(source)
    if str(source) == "-":
        if sys.stdin is None:  # started with stdin closed (<&-)
            raise InputFormatError("standard input is closed", path=name)
        return _kept(sys.stdin.buffer.read(), name)
    try:
        mode = os.stat(source).st_mode
    except OSError:
        mode = None
    if mode is None or stat.S_ISDIR(mode):
        with open_input(source):  # raises the readers' own message (no such file, ...)
            pass
    if mode is not None and stat.S_ISREG(mode):
        with open_input(source):  # permission denied is the readers' message too
            pass
        digest = hashlib.sha256()
        size = 0
        with open(source, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
        return Digested(str(source), name, digest.hexdigest(), size, True)
    with open(source, "rb") as handle:  # a FIFO or a device: opened once, read once
        return _kept(handle.read(), name)


def _kept(data: bytes, name: str) -> Digested:
    handle = Input(data)
    handle.name = name  # messages name the input, not "<bytes>"
    return Digested(handle, name, hashlib.sha256(data).hexdigest(), len(data), False)
