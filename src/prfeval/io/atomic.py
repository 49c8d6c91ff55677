"""Writing a file atomically: a temporary file beside it, renamed over it on success, so an
interrupted or failed write never leaves a half-written result."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["open_atomic", "write_atomic"]


@contextmanager
def open_atomic(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` through: a temporary file beside it, renamed over it
    when the block ends without an error, and removed when it fails."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file renamed on success."""
    with open_atomic(path) as handle:
        handle.write(text.encode("utf-8"))
