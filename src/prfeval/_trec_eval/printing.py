"""trec_eval's output, byte for byte: ``prfeval trec_eval`` and ``evaluate --format trec``.

trec_eval prints one row per value: the measure's printed name padded to 22 characters, a
tab, the query id (``all`` for the summary), a tab and the value, as C's
``printf("%-22s\\t%s\\t%6.4f\\n")``: 4 decimals for measures, ``%ld`` for counts, the text
itself for ``runid`` and in quotes for ``relstring``. An undefined value (0/0) is printed as
glibc prints it, ``-nan``. With ``-q`` the rows of each query come first, queries in byte
order of their ids, then the summary.

The summary values are trec_eval's: added in query order and divided by the number of
queries, which with ``-c`` is every judged query (those without results add 0); a geometric
mean counts a missing query at the floor 0.00001. They, and the values of the ``-q`` rows, are
computed by :mod:`prfeval._trec_eval.summary` (the one assembler of results,
:func:`~prfeval._core.aggregate.assemble`); this module only formats them. What is
particular to a measure comes from its declaration (:class:`~prfeval._core.trec_names.TrecName`),
never from its name: which rows it has, a summary that is not an average (``summary_value``),
quotes around its text (``quoted``) and trec_eval 10.0's value for a judged query without
results (``placeholder``); counts (``aggregation="sum"``) are printed ``%ld``. The measures and
their order (trec_eval's table, from each declaration's ``place``) are the caller's.

The rows of ``-q`` (a hundred a query with ``-m all_trec``) are written a block of queries at
a time, as arrays of bytes: each field of every row is laid out in a matrix, padded with NUL
bytes, and one pass drops the padding. A value is printed ``%6.4f`` from its integer count of
ten-thousandths (``rint``), which is what printf prints unless the value lies within rounding
error of a half: those, like undefined and huge values, are printed by Python's own
correctly rounded formatting, as is every value of the summary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from prfeval._core.measure_def import Measure
from prfeval._core.trec_names import TrecName
from prfeval._report.trec_rows import trec_line, trec_number
from prfeval._trec_eval.summary import (
    PrintedValues,
    TrecPrinting,
    evaluated_queries,
    trec_eval_summary,
)

if TYPE_CHECKING:
    from prfeval._retrieval.evaluate import Evaluation

__all__ = [
    "format_trec_eval",
    "trec_eval_blocks",
    "trec_line",
    "trec_number",
    "trec_numbers",
]

Bytes = npt.NDArray[np.uint8]
Values = Callable[[Measure, Sequence[int]], npt.NDArray[np.float64]]

#: Rows of ``-q`` laid out at once: about 10 MiB of bytes at a time.
BLOCK_ROWS = 1 << 18
#: Ten-thousandths below this are exact integers in a double, with room to spare.
_EXACT_UNITS = 2.0**52


def trec_numbers(values: npt.ArrayLike, *, integer: bool = False) -> list[str]:
    """:func:`trec_number` of every value, computed on the whole array at once.

    >>> trec_numbers([0.21875, 1 / 3, -0.0, float("nan"), 12.5], integer=False)
    ['0.2188', '0.3333', '-0.0000', '  -nan', '12.5000']
    >>> trec_numbers([3.0, -2.0, 10.0], integer=True)
    ['3', '-2', '10']
    """
    cells = _number_cells(np.asarray(values, dtype=np.float64).ravel(), integer=integer)
    return [row.tobytes().rstrip(b"\0").replace(b"\0", b"").decode() for row in cells]


def format_trec_eval(
    e: Evaluation,
    entries: Sequence[tuple[Measure, TrecName]],
    printing: TrecPrinting,
) -> str:
    """``e`` as trec_eval prints it, for the measures of ``entries`` in that order: the text
    of :func:`trec_eval_blocks`, whole."""
    return "".join(trec_eval_blocks(e, entries, printing))


def trec_eval_blocks(
    e: Evaluation,
    entries: Sequence[tuple[Measure, TrecName]],
    printing: TrecPrinting,
) -> Iterator[str]:
    """``e`` as trec_eval prints it, in blocks of whole rows, to be written in turn.

    Parameters
    ----------
    e
        Evaluated with ``complete`` when trec_eval's ``-c`` was given (so that every judged
        query is in it), with the measures of ``entries``.
    entries
        Each measure with the trec_eval name it was asked as (which says whether the
        measure has per-query rows and a summary row).
    printing
        What trec_eval's flags say of the rows: ``-q``, ``-n``, ``-c`` (and whose), the
        recounted num_rel and ``-D``'s query (:class:`TrecPrinting`).
    """
    missing = set(e.accounting.missing_from_run) if printing.complete else set()
    shown = evaluated_queries(e, printing)
    values_of = PrintedValues(e, entries, printing)

    if printing.per_query:
        columns = [(m, t) for m, t in entries if t.per_query]
        if columns and shown:
            step = max(1, BLOCK_ROWS // len(columns))
            for start in range(0, len(shown), step):
                block = shown[start : start + step]
                yield _query_rows(e, columns, block, missing, values_of)
    if printing.summary:
        rows = trec_eval_summary(e, entries, printing)
        lines = [
            trec_line(m.trec_label, "all", value if isinstance(value, str)
                      else trec_number(value, integer=m.definition.is_total))
            for m, value in rows
        ]  # fmt: skip
        yield "".join(line + "\n" for line in lines)


def _query_rows(
    e: Evaluation,
    entries: list[tuple[Measure, TrecName]],
    block: list[int],
    missing: set[str],
    values_of: Values,
) -> str:
    """The ``-q`` rows of the queries ``block`` (indices, in print order), query by query,
    each query's rows in the order of ``entries``."""
    qids = e.query_ids
    ids = [qids[i] for i in block]
    columns = [m for m, _ in entries]
    texts: dict[int, list[str]] = {}
    for j, (m, t) in enumerate(entries):
        if m.definition.is_text:
            column = e.text[str(m)]
            quote = "'" if t.quoted else ""
            texts[j] = [
                quote + (column[i] if qids[i] not in missing else "") + quote for i in block
            ]
    names = [f"{m.trec_label:<22}\t" for m in columns]
    if any("\0" in s for s in (*names, *ids, *(t for c in texts.values() for t in c))):
        return _query_rows_slowly(columns, ids, names, texts, block, values_of)
    cells: dict[int, Bytes] = {}
    for integer in (False, True):
        at = [
            j
            for j, m in enumerate(columns)
            if not m.definition.is_text and m.definition.is_total == integer
        ]
        if at:
            grid = np.stack([values_of(columns[j], block) for j in at], axis=1)
            laid = _number_cells(grid, integer=integer)
            for k, j in enumerate(at):
                cells[j] = laid[:, k]
    for j, strings in texts.items():
        cells[j] = _byte_matrix(strings)
    width = max(c.shape[-1] for c in cells.values())
    heads = _byte_matrix(names)
    lead = _byte_matrix([q + "\t" for q in ids])
    wa, wb = heads.shape[1], lead.shape[1]
    rows = np.zeros((len(block), len(columns), wa + wb + width + 1), dtype=np.uint8)
    rows[:, :, :wa] = heads[None]
    rows[:, :, wa : wa + wb] = lead[:, None]
    for j, c in cells.items():
        rows[:, j, wa + wb : wa + wb + c.shape[-1]] = c
    rows[:, :, -1] = ord("\n")
    return rows.tobytes().replace(b"\0", b"").decode("utf-8")


def _query_rows_slowly(
    columns: list[Measure],
    ids: list[str],
    names: list[str],
    texts: dict[int, list[str]],
    block: list[int],
    values_of: Values,
) -> str:
    """The rows of :func:`_query_rows` one by one, for ids holding a NUL byte (which the
    byte layout uses as its padding)."""
    shown: dict[int, list[str]] = dict(texts)
    for j, m in enumerate(columns):
        if j not in shown:
            values = values_of(m, block)
            shown[j] = [trec_number(float(v), integer=m.definition.is_total) for v in values]
    return "".join(
        f"{names[j]}{q}\t{shown[j][r]}\n" for r, q in enumerate(ids) for j in range(len(columns))
    )


def _byte_matrix(strings: Sequence[str]) -> Bytes:
    """The UTF-8 bytes of each string, one row each, padded with NUL bytes."""
    packed = np.array([s.encode("utf-8") for s in strings], dtype=bytes)
    return packed.view(np.uint8).reshape(len(strings), packed.dtype.itemsize)


def _digits(n: npt.NDArray[np.int64], width: int, *, zeros: bool = False) -> Bytes:
    """Non-negative integers in decimal, right-aligned in ``width`` bytes; leading zeros
    are NUL bytes (but a last digit) unless ``zeros``."""
    out = np.empty((*n.shape, width), dtype=np.uint8)
    rest = n
    for k in range(width - 1, -1, -1):
        rest, digit = np.divmod(rest, 10)
        out[..., k] = digit
    if not zeros and width > 1:
        leading = np.cumsum(out[..., :-1] != 0, axis=-1) == 0
        out += ord("0")
        out[..., :-1][leading] = 0
    else:
        out += ord("0")
    return out


def _number_cells(values: npt.NDArray[np.float64], *, integer: bool) -> Bytes:
    """:func:`trec_number` of every value as ASCII bytes padded with NUL bytes, in an array of
    shape ``values.shape + (width,)``."""
    if integer:
        exact = np.isfinite(values) & (np.abs(values) < 2.0**62)
        whole = np.abs(np.trunc(np.where(exact, values, 0.0))).astype(np.int64)
        n_int = len(str(int(whole.max()))) if whole.size else 1
        cells = np.zeros((*values.shape, n_int + 1), dtype=np.uint8)
        cells[..., 0] = np.where(np.trunc(np.where(exact, values, 0.0)) < 0, ord("-"), 0)
        cells[..., 1:] = _digits(whole, n_int)
    else:
        units = np.abs(values) * 10000.0
        exact = np.isfinite(units) & (units < _EXACT_UNITS)
        units = np.where(exact, units, 0.0)
        # rint rounds the product as printf rounds the exact value, except within the
        # product's rounding error (a few parts in 2^53) of a half: those go to Python.
        exact &= np.abs(units - np.floor(units) - 0.5) > units * 2.0**-50
        counted = np.rint(units).astype(np.int64)
        whole, part = np.divmod(counted, 10000)
        n_int = len(str(int(whole.max()))) if whole.size else 1
        cells = np.zeros((*values.shape, n_int + 6), dtype=np.uint8)
        cells[..., 0] = np.where(np.signbit(values), ord("-"), 0)
        cells[..., 1 : 1 + n_int] = _digits(whole, n_int)
        cells[..., 1 + n_int] = ord(".")
        cells[..., 2 + n_int :] = _digits(part, 4, zeros=True)
    inexact = np.argwhere(~exact)
    if inexact.size:
        shown = [
            trec_number(float(values[tuple(at)]), integer=integer).encode() for at in inexact
        ]
        longest = max(map(len, shown))
        if longest > cells.shape[-1]:
            grown = np.zeros((*values.shape, longest), dtype=np.uint8)
            grown[..., : cells.shape[-1]] = cells
            cells = grown
        for at, text in zip(inexact, shown, strict=True):
            cell = cells[tuple(at)]
            cell[:] = 0
            cell[: len(text)] = np.frombuffer(text, dtype=np.uint8)
    return cells
