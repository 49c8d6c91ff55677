"""Query id lists: one id per line (the first field), ``#`` comments and blank lines skipped."""

from __future__ import annotations

from prfeval._core.errors import InputFormatError
from prfeval._io.source import Source, display_name, read_bytes

__all__ = ["read_query_ids"]


def read_query_ids(source: Source) -> list[str]:
    """The query ids listed in ``source`` (as written by ``prfeval split``)."""
    name = display_name(source)
    try:
        text = read_bytes(source).decode("utf-8")
    except UnicodeDecodeError:
        raise InputFormatError("not valid UTF-8 text", path=name) from None
    ids = [
        line.split()[0]
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not ids:
        raise InputFormatError("no query ids in the file", path=name)
    return ids
