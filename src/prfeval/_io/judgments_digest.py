"""A digest of what judgments mean, so that a saved evaluation says which judgments it used.

Two judgment files that mean the same (the same judged query, document and grade triples,
whatever their format, column names, row order or file name) get the same digest; any change
in a grade, a judged document or a judged query changes it. A saved baseline records it
(``digests`` in ``prfeval evaluate --format json``), and ``prfeval gate`` refuses a baseline
whose judgments differ in content from its own, naming the first query whose judgments
differ: an identical run would otherwise "regress" because the judgments changed.

The digest is computed over the judgments of the query set (``--queries``,
``--exclude-queries``), as the numbers were:

``judgments``
    SHA-256 of the triples sorted by (query, document, grade), each written
    ``query NUL document NUL grade NUL``;
``queries``
    SHA-256 of the sorted judged query ids, each followed by NUL;
``per_query``
    query id -> a 64-bit digest (16 hex digits) of that query's triples, so that a difference
    can be located to a query. It is computed for every query at once over the sorted rows
    (a polynomial hash of each row's bytes, mixed, summed per query): no Python loop per row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from prfeval._core.arrays import mix64
from prfeval._core.arrow import arrow_ints, arrow_strings, bools_of
from prfeval._core.ids import ordered_ids
from prfeval._core.tables import Qrels

__all__ = ["JudgmentsDigest", "LazyDigest", "dict_digest", "digest_from_dict",
           "judgments_digest"]

_P = np.uint64(0x100000001B3)  # FNV's 64-bit prime: the polynomial's base
_M2 = np.uint64(0x94D049BB133111EB)  # an odd constant: each row's length, spread
_P_INVERSE = np.uint64(0xCE965057AFF6957B)  # _P's inverse mod 2**64
#: Bytes of the digest's rows hashed at a time (see :func:`_row_hashes`).
_HASH_CHUNK = 1 << 20


@dataclass(frozen=True)
class JudgmentsDigest:
    """The digests of a set of judgments (see the module's docstring).

    Attributes
    ----------
    judgments
        Hex SHA-256 of every (query, document, grade) triple.
    queries
        Hex SHA-256 of the judged query ids.
    per_query
        Query id -> 16 hex digits, or ``None`` when not kept.
    """

    judgments: str
    queries: str
    per_query: dict[str, str] | None = None

    def to_dict(self, *, per_query: bool = False) -> dict[str, Any]:
        """The JSON form saved with an evaluation (per query only with ``per_query``)."""
        out: dict[str, Any] = {"judgments": self.judgments, "queries": self.queries}
        if per_query and self.per_query is not None:
            out["per_query"] = dict(self.per_query)
        return out

    def first_difference(self, other: JudgmentsDigest) -> str | None:
        """The first query (in output order) whose judgments differ between the two, or
        ``None`` when either lacks per-query digests or none differs."""
        if self.per_query is None or other.per_query is None:
            return None
        a, b = self.per_query, other.per_query
        for q in ordered_ids(set(a) | set(b)):
            if a.get(q) != b.get(q):
                return q
        return None


class LazyDigest:
    """A digest made on first use, from judgments kept until then (a JSON output asks for
    it; a table does not, and pays nothing): ``make()`` gives them as a table, or as
    ``{qid: {docid: grade}}``."""

    def __init__(self, make: Callable[[], Qrels | Mapping[Any, Mapping[Any, Any]]]) -> None:
        self._make: Callable[[], Any] | None = make
        self._digest: JudgmentsDigest | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LazyDigest) and self.get() == other.get()

    __hash__ = None  # type: ignore[assignment]  # unhashable: equal by value

    def get(self) -> JudgmentsDigest:
        """The digest (computed once)."""
        if self._digest is None and self._make is not None:
            judged = self._make()
            self._digest = (dict_digest(judged) if isinstance(judged, Mapping)
                            else judgments_digest(judged))  # fmt: skip
            self._make = None  # the judgments are no longer needed
        if self._digest is None:
            raise RuntimeError("a LazyDigest is made with its judgments")
        return self._digest


def judgments_digest(table: Qrels) -> JudgmentsDigest:
    """The :class:`JudgmentsDigest` of judgments read as a table (every reader's output)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    sorted_rows = pa.Table.from_arrays(
        [_strings(table.query_ids), _strings(table.doc_ids),
         arrow_ints(np.ascontiguousarray(table.grades, dtype=np.int64))],
        names=["q", "d", "g"],
    ).sort_by([("q", "ascending"), ("d", "ascending"), ("g", "ascending")])  # fmt: skip
    qids = sorted_rows["q"].combine_chunks()
    n = len(qids)
    # Separators as arrays: a Python string here would make pyarrow import pandas.
    lines = pc.binary_join_element_wise(
        qids, sorted_rows["d"].combine_chunks(),
        pc.cast(sorted_rows["g"], pa.string()).combine_chunks(), _repeated(b"", n),
        _repeated(b"\x00", n),
    ).cast(pa.large_string())  # fmt: skip
    data, offsets = _bytes_and_offsets(lines)
    if n:
        starts = np.flatnonzero(
            np.r_[True, ~bools_of(pc.equal(qids[1:], qids[:-1]))]
        )
    else:
        starts = np.zeros(0, dtype=np.int64)
    query_ids = [str(q) for q in qids.take(arrow_ints(starts)).to_pylist()]
    return _digest(data, offsets, starts, query_ids)


def dict_digest(qrels: Mapping[Any, Mapping[Any, Any]]) -> JudgmentsDigest:
    """The :class:`JudgmentsDigest` of judgments given as ``{qid: {docid: grade}}``, equal
    to :func:`judgments_digest` of the same judgments read as a table, without Arrow (a
    small evaluation read as dicts imports none): the triples sorted in Python, which orders
    text by code point as Arrow orders UTF-8 by byte."""
    rows = sorted((str(q), str(d), int(g)) for q, docs in qrels.items() for d, g in docs.items())
    lines = [f"{q}\x00{d}\x00{g}\x00".encode() for q, d, g in rows]
    data = np.frombuffer(b"".join(lines), dtype=np.uint8)
    offsets = np.concatenate(([0], np.cumsum([len(x) for x in lines], dtype=np.int64)))
    qids = [q for q, _, _ in rows]
    starts = np.flatnonzero([i == 0 or qids[i] != qids[i - 1] for i in range(len(qids))])
    return _digest(data, offsets.astype(np.int64), starts, [qids[i] for i in starts.tolist()])


def _digest(data: np.ndarray, offsets: np.ndarray, starts: np.ndarray, query_ids: list[str]
            ) -> JudgmentsDigest:
    """The digests of the sorted rows' bytes ``data`` (row ``i`` at ``offsets[i]``), each
    query's rows starting at ``starts``."""
    import hashlib  # only when a digest is asked for (a JSON output)

    n = len(offsets) - 1
    per_row = _row_hashes(data, offsets)
    per_query = mix64(np.add.reduceat(per_row, starts)) if n else per_row
    return JudgmentsDigest(
        judgments=hashlib.sha256(data.tobytes()).hexdigest(),
        queries=hashlib.sha256("".join(q + "\x00" for q in query_ids).encode()).hexdigest(),
        per_query=dict(zip(query_ids, (f"{int(h):016x}" for h in per_query), strict=True)),
    )


def digest_from_dict(value: Mapping[str, Any]) -> JudgmentsDigest:
    """A :class:`JudgmentsDigest` from its JSON form (fields checked by the caller)."""
    return JudgmentsDigest(value["judgments"], value["queries"], value.get("per_query"))


def _repeated(text: bytes, n: int) -> Any:
    """An Arrow string array of ``n`` copies of ``text``, made from its buffers (a Python
    list of strings would cost a second for millions of judgments)."""
    import pyarrow as pa

    small = len(text) * n < 2**31
    kind, dtype = (pa.string(), np.int32) if small else (pa.large_string(), np.int64)
    offsets = np.arange(n + 1, dtype=dtype) * len(text)
    return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(offsets), pa.py_buffer(text * n)])


def _strings(values: Any) -> Any:
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        return values.cast(pa.string()).combine_chunks()
    if isinstance(values, pa.Array):
        return values.cast(pa.string())
    return arrow_strings([str(v) for v in values])


def _bytes_and_offsets(lines: Any) -> tuple[np.ndarray, np.ndarray]:
    """The bytes of a large-string array, one row after another, and each row's offset."""
    n = len(lines)
    _, offset_buffer, data_buffer = lines.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int64)[lines.offset : lines.offset + n + 1]
    if data_buffer is None or n == 0:
        return np.zeros(0, dtype=np.uint8), np.zeros(n + 1, dtype=np.int64)
    data = np.frombuffer(data_buffer, dtype=np.uint8)[offsets[0] : offsets[-1]]
    return data, offsets - offsets[0]


def _row_hashes(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each row's polynomial hash of its bytes (wrapping mod 2**64), with its length,
    mixed: every row at once.

    Row ``r``'s sum is ``sum_i (data[o_r + i] + 1) * P**(i + 1)`` over its bytes ``i``.
    Since ``P`` is odd it has an inverse mod 2**64, so the sum is also
    ``P**(-o_r) * sum_k (data[k] + 1) * P**(k + 1)`` over the row's absolute positions
    ``k``: one product per byte by a table of powers, summed per row, then one product per
    row. The bytes are taken about :data:`_HASH_CHUNK` at a time (cut at row ends, positions
    counted from the chunk's start), so the tables and temporaries stay small.
    """
    lengths = np.diff(offsets)
    n = len(lengths)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    sums = np.empty(n, dtype=np.uint64)
    longest = int(lengths.max())
    size = max(_HASH_CHUNK, 2 * longest)
    step = size - longest  # a chunk's rows start within ``step`` bytes: it ends within size
    powers = np.cumprod(np.full(size, _P, dtype=np.uint64), dtype=np.uint64)
    inverses = np.empty(size, dtype=np.uint64)  # P**(-j), j = 0, 1, ...
    inverses[0] = 1
    np.cumprod(np.full(size - 1, _P_INVERSE, dtype=np.uint64), dtype=np.uint64,
               out=inverses[1:])
    cuts = np.unique(np.searchsorted(offsets[:-1], np.arange(0, int(offsets[-1]) + 1, step)))
    cuts = np.unique(np.concatenate(([0], cuts[cuts < n], [n])))
    with np.errstate(over="ignore"):
        for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            start, stop = int(offsets[a]), int(offsets[b])
            terms = (data[start:stop].astype(np.uint64) + np.uint64(1)) * powers[: stop - start]
            starts = offsets[a:b] - start
            nonempty = lengths[a:b] > 0
            part = np.zeros(b - a, dtype=np.uint64)
            if stop > start:
                part[nonempty] = np.add.reduceat(terms, starts[nonempty])
            sums[a:b] = part * inverses[starts]
        sums ^= lengths.astype(np.uint64) * _M2
    return mix64(sums)
