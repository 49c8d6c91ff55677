"""Getting the bytes of an input: a path, ``-`` for stdin, ``.gz`` decompressed transparently."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path
from typing import IO

from prfeval.core.errors import InputFormatError

__all__ = ["display_name", "read_bytes"]

Source = str | Path | bytes | IO[bytes]


def display_name(source: Source) -> str:
    """How an input is named in messages: its path, ``<stdin>`` or ``<bytes>``."""
    if isinstance(source, bytes):
        return "<bytes>"
    if isinstance(source, str | Path):
        return "<stdin>" if str(source) == "-" else str(source)
    return str(getattr(source, "name", "<stream>"))


def read_bytes(source: Source) -> bytes:
    """The whole content of ``source``; gzip is recognised by its magic bytes.

    Raises :class:`InputFormatError` for a missing, unreadable or binary input.
    """
    name = display_name(source)
    try:
        if isinstance(source, bytes):
            data = source
        elif isinstance(source, str | Path):
            data = sys.stdin.buffer.read() if str(source) == "-" else Path(source).read_bytes()
        else:
            data = source.read()
    except FileNotFoundError:
        raise InputFormatError("no such file", path=name) from None
    except IsADirectoryError:
        raise InputFormatError("is a directory, expected a file", path=name) from None
    except PermissionError:
        raise InputFormatError("permission denied", path=name) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputFormatError(f"corrupt gzip data ({exc})", path=name) from None
    if b"\x00" in data:
        raise InputFormatError("binary data (NUL bytes); expected a text file", path=name)
    return data
