"""One JSON document: BEIR's results ``{qid: {docid: score}}`` (or judgments in that shape),
or an array of records (one object per query, as DPR writes its retrieval results).

The document is read whole, by :mod:`prfeval._io.json_values`'s rules (a key named twice
refused, integers exact): an object is handed to the dict readers
(:mod:`prfeval._io.mapping`), an array of objects becomes a table with a row per object
(:mod:`prfeval._io.tabular` reads its columns, lists included). Text that is not JSON is
named by its line, as Python's parser finds it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from prfeval._core.errors import InputFormatError
from prfeval._io.json_values import DuplicateKey, duplicate_line, loads
from prfeval._io.jsonl import json_kind
from prfeval._io.jsonl_rows import records_table
from prfeval._io.source import Input, utf8_text

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["read_json_document"]


def read_json_document(handle: Input) -> dict[str, Any] | pa.Table | None:
    """The JSON object of ``handle`` (a dict), or its array of records as an Arrow table;
    ``None`` when it is JSON Lines after all (an object on each line: a ``.json`` file
    written a record a line).

    Raises
    ------
    InputFormatError
        Naming the file and line: bytes that are not UTF-8, text that is not JSON, a
        document that is neither an object nor an array of objects.
    """
    text = utf8_text(handle.read(), handle.name)
    try:
        value = loads(text)
    except DuplicateKey as duplicate:
        raise InputFormatError(
            str(duplicate), path=handle.name, line_number=duplicate_line(text)
        ) from None
    except json.JSONDecodeError as err:
        if err.msg == "Extra data" and "\n" not in text[: err.pos].strip():
            return None  # an object on the first line, and more after it: JSON Lines
        raise InputFormatError(
            f"invalid JSON: {err.msg}", path=handle.name, line_number=err.lineno
        ) from None
    except ValueError as err:  # nested too deeply for Python's parser
        raise InputFormatError(str(err), path=handle.name) from None
    if isinstance(value, dict):
        return value
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return records_table(value)
    raise InputFormatError(
        "expected a JSON object {query id: {doc id: value}} or an array of objects (one per "
        f"query), got {json_kind(value)}",
        path=handle.name,
    )
