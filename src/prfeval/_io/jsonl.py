"""The shape of JSON Lines text, checked before Arrow's JSON reader sees it.

Arrow's reader (pyarrow 26) crashes the process on some text that is not one object a line:
a line starting with ``null`` and more after it (``null {...}``, ``null null``) ends in a
segmentation fault, a line nested 20,000 deep too, and one nested 10,000 deep takes most of a
minute. Two objects on one line are read as two rows, which puts every later error on the
wrong line. It misreads other text (:mod:`prfeval._io.jsonl_rows` says what). So the text is
checked first (:func:`check_jsonl`), by the compiled pass in one pass over the bytes
(``prf_jsonl_check``, :mod:`prfeval._io.jsonl_native`) or, without it, vectorised over the
bytes and a block of lines at a time, with the same refusals:

* the text is UTF-8;
* no list (or object) directly inside a line's object has more items than one query may
  have results (:func:`~prfeval._core.checks.max_results`): counted before anything
  parses the line, in bounded memory;
* each line holds one JSON object: its first character (after spaces, and a byte-order
  mark on the first line) is ``{``, and nothing but spaces follows the brace that closes it;
* its brackets nest at most :data:`MAX_DEPTH` deep.

Quotes escaped by an odd run of backslashes do not end a string, and brackets inside strings
do not count. Text that passes can still be bad JSON (a missing comma): Arrow fails on it,
and Python's parser, reading it row by row, names the line and what is wrong.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import ranges
from prfeval._core.checks import max_results
from prfeval._core.errors import InputFormatError
from prfeval._io.jsonl_native import DEEP, MAX_DEPTH, NOT_UTF8, START, TOO_MANY, native_check
from prfeval._io.source import utf8_text

__all__ = ["MAX_DEPTH", "check_jsonl", "json_kind"]

#: Lines are checked a block at a time, so the work arrays stay a few times this size.
_BLOCK_BYTES = 1 << 20
#: A long line's items are counted a block of this many bytes at a time.
_COUNT_BYTES = 1 << 22

_SPACE = np.zeros(256, dtype=bool)
_SPACE[[ord(" "), ord("\t"), ord("\r"), 0xEF, 0xBB, 0xBF]] = True  # a byte-order mark too


def check_jsonl(data: bytes, path: str) -> bool:
    """Raise :class:`~prfeval._core.errors.InputFormatError` naming the first line of
    ``data`` that is not UTF-8 text, that holds a list (or object) of more items than one
    query may have results, that is not one JSON object, or that nests deeper than
    :data:`MAX_DEPTH`; else say whether the text is for Python's row-by-row reader
    (:mod:`prfeval._io.jsonl_rows`) rather than Arrow's, which would misread it: a key
    named twice, an integer beyond 64 bits, a list whose first item is ``null``, a map on
    the first line, text that is not JSON.

    The compiled check (:mod:`prfeval._io.jsonl_native`) does it in one pass over the bytes;
    without it, numpy and Python's parser do (:func:`_check_numpy`), with the same
    refusals (a test compares them).
    """
    found = native_check(data if isinstance(data, bytes) else bytes(data), MAX_DEPTH,
                         max_results())
    if found is None:
        _check_numpy(data, path)
        return _not_for_arrow(data)
    status, line, for_python = found
    if status == 0:
        return for_python
    if status == TOO_MANY:
        raise _too_many(path, line)
    if status == NOT_UTF8:
        raise InputFormatError("not valid UTF-8 text", path=path, line_number=line)
    if status == DEEP:
        reason = f"nested deeper than {MAX_DEPTH} levels"
    else:
        text = data.split(b"\n", line)[line - 1].decode("utf-8", "replace").lstrip("\ufeff")
        reason = _described("start" if status == START else "more", text)
    raise InputFormatError(reason, path=path, line_number=line)


def _too_many(path: str, line: int) -> InputFormatError:
    limit = max_results()
    return InputFormatError(
        f"a list on this line has more than the {limit:,} results one query may have "
        "(each query is ranked in memory, about 250 bytes a result; "
        "PRFEVAL_MAX_QUERY_RESULTS raises the limit)",
        path=path,
        line_number=line,
    )


def _not_for_arrow(data: bytes) -> bool:
    """Whether Arrow's reader would misread ``data`` (see :func:`check_jsonl`), as far as
    cheap searches of the bytes tell: a map on the first line, ``[null``, a run of 19
    digits or more (an integer that may not fit 64 bits). A key named twice and text that
    is not JSON make Arrow fail, and its failure sends the text to Python's reader too."""
    if _objects_on_first_line(data):
        return True
    if b"null" in data and re.search(rb"\[\s*null", data) is not None:
        return True
    return b"0" * 19 in data.translate(_DIGITS)


#: Bytes as ``0`` for a digit, a space for anything else (to find long runs of digits).
_DIGITS = bytes(ord("0") if 48 <= i <= 57 else ord(" ") for i in range(256))


def _objects_on_first_line(data: bytes) -> bool:
    """Whether the first line holding something has an object as a value (a map
    ``{doc id: grade}``), which Arrow would read as a struct with a field per doc id."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        text = data[start:end].decode("utf-8-sig", errors="replace").strip()
        if text:
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):
                return False  # Arrow's failure sends it to Python's reader
            return isinstance(value, dict) and any(isinstance(v, dict) for v in value.values())
        start = end + 1
    return False


def _check_numpy(data: bytes, path: str) -> None:
    """:func:`check_jsonl`'s refusals, by numpy and Python's parser.

    A line that starts with ``{``, ends with ``}`` and holds no other bracket is one object,
    whatever its strings hold; most lines are such, and a file of only such lines is found
    by counting brackets. A line with lists or objects inside (a ranking as a list) is
    vouched for by Python's JSON parser, which reads it far faster than the bytes can be
    walked here, when it parses as one object nested at most :data:`MAX_DEPTH` deep. Only
    the other lines are read byte by byte, to say what is wrong with them.
    """
    b = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(b == ord("\n"))
    starts = np.concatenate(([0], ends + 1))
    stops = np.append(ends, b.size)
    held = stops > starts
    starts, stops = starts[held], stops[held]
    if not data.isascii():
        utf8_text(data, path)  # names the line of the first byte that is not UTF-8
    _within_limit(data, starts, stops, ends, path)
    plain = (b[starts] == ord("{")) & (b[stops - 1] == ord("}"))
    opens = data.count(b"{") + data.count(b"[")
    closes = data.count(b"}") + data.count(b"]")
    if plain.all() and opens == closes == starts.size:
        return  # one bracket pair a line, at its ends: one object each
    suspect = ~plain
    if opens != starts.size or closes != starts.size:
        positions = (np.flatnonzero((b == ord("{")) | (b == ord("["))),
                     np.flatnonzero((b == ord("}")) | (b == ord("]"))))
        for at in positions:
            suspect |= np.searchsorted(at, stops) - np.searchsorted(at, starts) != 1
    lines = np.flatnonzero(suspect)
    opening = np.flatnonzero((b == ord("{")) | (b == ord("[")))
    brackets = (np.searchsorted(opening, stops) - np.searchsorted(opening, starts))[lines]
    lines = lines[~_vouched(data, starts[lines], stops[lines], brackets)]
    lengths = (stops - starts)[lines]
    # The suspect lines, a block at a time, each ending in a line break.
    block_of = np.cumsum(lengths + 1) // _BLOCK_BYTES
    for block in np.unique(block_of):
        chosen = lines[block_of == block]
        sizes = lengths[block_of == block]
        placed = np.cumsum(sizes + 1) - (sizes + 1)
        text = np.full(int((sizes + 1).sum()), ord("\n"), dtype=np.uint8)
        text[ranges(placed, sizes)] = b[ranges(starts[chosen], sizes)]
        problem = _first_problem(text)
        if problem is not None:
            offset, reason = problem
            line = int(chosen[np.searchsorted(placed, offset, side="right") - 1])
            shown = data[starts[line]:stops[line]].decode("utf-8", "replace")
            raise InputFormatError(
                _described(reason, shown.lstrip("\ufeff")),
                path=path,
                line_number=int(np.searchsorted(ends, starts[line])) + 1,
            )


def _within_limit(
    data: bytes, starts: npt.NDArray[np.int64], stops: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64], path: str,
) -> None:
    """Refuse a line with a list (or an object) of more items than one query may have
    results (:func:`~prfeval._core.checks.max_results`), before anything parses it: a line
    of a billion ids would fill memory first. Items are counted in bounded memory, a block
    of the line at a time, only on a line long enough to hold that many (two bytes an
    item, with its comma)."""
    limit = max_results()
    for line in np.flatnonzero(stops - starts > 2 * limit).tolist():
        start, stop = int(starts[line]), int(stops[line])
        if data.count(b",", start, stop) < limit:
            continue  # fewer commas than the limit: no list can exceed it
        if _most_items(data, start, stop) > limit:
            raise _too_many(path, int(np.searchsorted(ends, start)) + 1)


def _most_items(data: bytes, start: int, stop: int) -> int:
    """The most items any one list or object directly inside the line's object has (a
    ranking's ids, a map's entries): commas outside strings at depth 2, counted per
    container, a block of :data:`_COUNT_BYTES` at a time (whether in a string, the run of
    backslashes and the depth carried from block to block)."""
    inside, run, depth, containers = False, 0, 0, 0
    counts = np.zeros(0, dtype=np.int64)
    for at in range(start, stop, _COUNT_BYTES):
        b = np.frombuffer(data, dtype=np.uint8, count=min(_COUNT_BYTES, stop - at), offset=at)
        quote = b == ord('"')
        backslash = b == ord("\\")
        if run or backslash.any():  # a quote after an odd run of backslashes is escaped
            index = np.arange(b.size)
            last_plain = np.maximum.accumulate(np.where(backslash, -1 - run, index))
            before = np.empty(b.size, dtype=np.int64)
            before[0] = run
            before[1:] = index[:-1] - last_plain[:-1]
            quote &= before % 2 == 0
            run = int(b.size - 1 - last_plain[-1]) if backslash[-1] else 0
        flips = np.cumsum(quote, dtype=np.int64)
        outside = ((flips % 2 == 1) == inside) & ~quote
        inside = inside != bool(flips[-1] % 2)
        step = np.zeros(b.size, dtype=np.int64)
        step[outside & ((b == ord("{")) | (b == ord("[")))] = 1
        step[outside & ((b == ord("}")) | (b == ord("]")))] = -1
        level = np.cumsum(step) + depth
        opened = np.flatnonzero((step == 1) & (level == 2))
        commas = np.flatnonzero(outside & (b == ord(",")) & (level == 2))
        owner = containers - 1 + np.searchsorted(opened, commas, side="right")
        containers += opened.size
        counts = np.concatenate((counts, np.zeros(containers - counts.size, dtype=np.int64)))
        np.add.at(counts, owner, 1)
        depth = int(level[-1])
    return int(counts.max()) + 1 if counts.size else 0


def _vouched(
    data: bytes, starts: npt.NDArray[np.int64], stops: npt.NDArray[np.int64],
    brackets: npt.NDArray[np.int64],
) -> npt.NDArray[np.bool_]:
    """Which of the lines ``data[starts[i]:stops[i]]`` Python's JSON parser reads as one
    object nested at most :data:`MAX_DEPTH` deep (a line opening fewer brackets than that,
    inside strings or not, cannot nest deeper). The others are for :func:`_first_problem`."""
    good = np.zeros(starts.size, dtype=bool)
    for i, (start, stop) in enumerate(zip(starts.tolist(), stops.tolist(), strict=True)):
        try:
            value = json.loads(data[start:stop])
        except (ValueError, RecursionError):  # not JSON, not UTF-8, too deep to parse
            continue
        good[i] = isinstance(value, dict) and (
            brackets[i] <= MAX_DEPTH or _depth(value) <= MAX_DEPTH
        )
    return good


def _depth(value: Any) -> int:
    """How deep objects and lists nest in a parsed JSON value (an object alone: 1)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def json_kind(value: Any) -> str:
    """What a JSON value is, in words: ``null``, ``a number``, ``a list``, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _described(reason: str, text: str) -> str:
    """The message for a line found bad for ``reason`` (``start``, ``more`` or a sentence)."""
    shown = repr(text[:40]) + ("..." if len(text) > 40 else "")
    if reason == "start":
        try:
            return f"expected a JSON object per line, got {json_kind(json.loads(text))}"
        except (ValueError, RecursionError):
            return f"expected one JSON object per line; the line starts {shown}"
    if reason == "more":
        return f"expected one JSON object per line, but more follows the first: {shown}"
    return reason


def _first_problem(b: npt.NDArray[np.uint8]) -> tuple[int, str] | None:
    """(offset of the line, reason) of the first bad line of whole lines ``b``, or None."""
    n = b.size
    newline = b == ord("\n")
    # Each byte's line, and where that line starts.
    line_of = np.cumsum(newline) - newline
    line_start = np.flatnonzero(np.concatenate(([True], newline[:-1])))
    # Quotes that delimit strings: not escaped by an odd run of backslashes before them.
    backslash = b == ord("\\")
    index = np.arange(n)
    last_plain = np.maximum.accumulate(np.where(backslash, -1, index))
    run_before = np.empty(n, dtype=np.int64)
    run_before[0] = 0
    run_before[1:] = index[:-1] - last_plain[:-1]
    quote = (b == ord('"')) & (run_before % 2 == 0)
    # Inside a string: an odd number of quotes since the line began (a string cannot hold a
    # raw line break, so each line starts outside one). The quote itself counts as inside.
    quotes = np.cumsum(quote)
    before_line = np.concatenate(([0], quotes))[line_start]
    inside = ((quotes - before_line[line_of]) % 2 == 1) | quote
    outside = ~inside
    step = np.zeros(n, dtype=np.int64)
    step[outside & ((b == ord("{")) | (b == ord("[")))] = 1
    step[outside & ((b == ord("}")) | (b == ord("]")))] = -1
    depth = np.cumsum(step)
    depth -= np.concatenate(([0], depth))[line_start][line_of]
    bad_lines: dict[int, str] = {}
    # The first character of each line that holds something must open an object.
    content = ~_SPACE[b] & ~newline
    held = np.flatnonzero(content)
    lines_held = line_of[held]
    firsts = held[np.concatenate(([True], lines_held[1:] != lines_held[:-1]))] if held.size \
        else held
    for i in firsts[b[firsts] != ord("{")][:1]:
        bad_lines[int(line_of[i])] = "start"
    # Nothing after the brace that brings the depth back to 0 (outside strings).
    closes = np.flatnonzero(outside & (step == -1) & (depth == 0))
    if closes.size:
        after = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(content, out=after[1:])
        line_end = np.append(line_start[1:], n)
        lines = line_of[closes]
        more = after[line_end[lines]] - after[closes + 1]
        for j in np.flatnonzero(more > 0)[:1]:
            bad_lines.setdefault(int(lines[j]), "more")
    deep = np.flatnonzero(depth > MAX_DEPTH)
    if deep.size:
        bad_lines.setdefault(int(line_of[deep[0]]), f"nested deeper than {MAX_DEPTH} levels")
    if not bad_lines:
        return None
    worst = min(bad_lines)
    return int(line_start[worst]), bad_lines[worst]
