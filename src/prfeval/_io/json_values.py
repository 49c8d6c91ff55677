"""JSON text read by prfeval's rules, wherever Python's parser reads it (a ``.json`` document,
a line of JSON Lines): a right value or a clear refusal.

* **Duplicate keys** (``{"q1": {...}, "q1": {...}}``) are refused, naming the key: Python's
  parser (and RFC 8259, which leaves them undefined) would keep the last and drop the rest.
* **Integers are exact.** One that fits a signed 64-bit integer is an ``int``; a larger one
  (``18446744073709551615``, ids of 2^63 or more) is kept as its decimal text
  (:class:`BigInt`, a ``str``), never rounded to a double: as an id it is its text, which is
  what a string id of the same digits is too.
* **Depth**: a value nested deeper than Python's recursion allows is a refusal, not a
  ``RecursionError``.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
from typing import Any

__all__ = ["BigInt", "DuplicateKey", "duplicate_line", "loads"]

_INT64_MAX = (1 << 63) - 1


class BigInt(str):
    """An integer of a JSON text beyond a signed 64-bit integer, kept as its decimal text."""

    __slots__ = ()


class DuplicateKey(ValueError):
    """A JSON object names ``key`` twice."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r} in a JSON object: which value is meant is "
                         "not for prfeval to guess")
        self.key = key
        #: Where the object holding it starts in the text (found by :func:`duplicate_line`).
        self.at: int | None = None


def _checked_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict; :class:`DuplicateKey` if a key comes twice."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return value


def _exact_int(text: str) -> int | str:
    number = int(text)
    return number if -_INT64_MAX - 1 <= number <= _INT64_MAX else BigInt(text)


_DECODER = json.JSONDecoder(object_pairs_hook=_checked_pairs, parse_int=_exact_int)


def loads(text: str | bytes) -> Any:
    """``text`` parsed by the rules above.

    Raises
    ------
    DuplicateKey
        An object names a key twice.
    ValueError
        Not JSON (:class:`json.JSONDecodeError`), bytes that are not UTF-8
        (:class:`UnicodeDecodeError`), or nested too deeply for Python's parser (raised as
        a ``ValueError`` saying so).
    """
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return _DECODER.decode(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def duplicate_line(text: str) -> int | None:
    """The line of ``text`` on which the first object naming a key twice starts, or
    ``None``: found by Python's pure-Python scanner (slower, and asked only once a
    duplicate is known to be there), which says where each object starts."""
    decoder = json.JSONDecoder(object_pairs_hook=_checked_pairs, parse_int=_exact_int)

    def parse_object(s_and_end: tuple[str, int], *rest: Any) -> Any:
        try:
            # The standard decoder's own object parser (not in typeshed's stubs).
            return json.decoder.JSONObject(s_and_end, *rest)  # type: ignore[attr-defined]
        except DuplicateKey as duplicate:
            if duplicate.at is None:
                duplicate.at = s_and_end[1]
            raise

    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    try:
        decoder.decode(text)
    except DuplicateKey as duplicate:
        at = duplicate.at or 0
        return text.count("\n", 0, at) + 1
    except (ValueError, RecursionError):
        return None
    return None
