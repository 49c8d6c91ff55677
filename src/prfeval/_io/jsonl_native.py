"""The compiled check of JSON Lines text (``prf_jsonl_check`` in native/pass/src/jsonl.rs),
through ctypes: one ``#[repr(C)]`` struct of named fields (:class:`JsonlCheck`) in and out.
It gives the refusals of :func:`prfeval._io.jsonl.check_jsonl`'s numpy path in one pass
over the bytes, and says when the text is for Python's row-by-row reader."""

from __future__ import annotations

import ctypes

from prfeval._io.native_lib import compiled_unavailable, library

__all__ = ["DEEP", "MAX_DEPTH", "MORE", "NOT_UTF8", "START", "TOO_MANY", "JsonlCheck",
           "native_check"]

#: The deepest nesting of objects and lists a JSON Lines line may have: far beyond any
#: table's cells (every reader of JSON Lines checks it: :mod:`prfeval._io.jsonl`).
MAX_DEPTH = 64

#: The library's refusal codes (``jsonl.rs``).
START, MORE, DEEP, NOT_UTF8, TOO_MANY = 1, 2, 3, 4, 5


class JsonlCheck(ctypes.Structure):
    """``JsonlCheck`` in native/pass/src/jsonl.rs, field by field."""

    _fields_ = [
        ("data", ctypes.c_char_p),
        ("len", ctypes.c_size_t),
        ("max_depth", ctypes.c_uint64),
        ("max_items", ctypes.c_uint64),
        ("status", ctypes.c_int64),
        ("line", ctypes.c_uint64),
        ("for_python", ctypes.c_uint8),
    ]


def native_check(data: bytes, max_depth: int, max_items: int) -> tuple[int, int, bool] | None:
    """(refusal code or 0, its line, whether Python's reader should read the text), or
    ``None`` when the compiled pass is unavailable or failed (numpy then checks)."""
    if compiled_unavailable() is not None:
        return None
    args = JsonlCheck(data=data, len=len(data), max_depth=max_depth, max_items=max_items)
    if int(library().prf_jsonl_check(ctypes.byref(args))) < 0:
        return None
    return int(args.status), int(args.line), bool(args.for_python)
