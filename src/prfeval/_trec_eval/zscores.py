"""trec_eval's z-score file (``-Z FILE``): each line ``qid measure mean stddev``.

Each line has exactly four fields separated by whitespace (C's ``isspace`` but the newline:
space, tab, vertical tab, form feed, carriage return); any other line, a blank one included,
is malformed. ``mean`` and ``stddev`` are read as C's ``atof`` reads them (``nan`` is NaN,
``abc`` is 0). The entries are kept sorted by query id, then measure name, in byte order,
as trec_eval 9.0.8 sorts them, because :meth:`ZScores.lookup` searches them as it does.

A z-score standardises a measure's value for a query against reference runs (Webber,
Moffat and Zobel, 2008, "Score standardization for inter-collection comparison of retrieval
systems"): ``z = (value - mean) / stddev``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import InputFormatError
from prfeval._trec_eval.c_numbers import atof

__all__ = ["MISSING_ZSCORE", "ZScores", "ZScoresUnreadable", "read_zscores", "to_zscores"]

#: What trec_eval prints for a value it has no (usable) mean and deviation for.
MISSING_ZSCORE = -1000000.0

#: C's isspace but the newline, which ends a line.
_SPACE = b" \t\v\f\r"


class ZScoresUnreadable(InputFormatError):
    """The z-score file cannot be read or has a malformed line: ``message`` is what
    trec_eval 9.0.8 writes on stderr for it."""

    def __init__(self, reason: str, path: str, message: str, line_number: int | None = None):
        super().__init__(reason, path=path, line_number=line_number)
        self.message = message


@dataclass(frozen=True)
class ZScores:
    """The entries of a z-score file, sorted by (query id, measure) in byte order.

    Attributes
    ----------
    query_ids
        Each distinct query id, in byte order.
    offsets
        Where each query's entries start in ``measures`` (one more entry: their end).
    measures, means, stddevs
        Every entry's measure name (as trec_eval prints it, ``P_5``), mean and deviation.
    """

    query_ids: tuple[str, ...]
    offsets: npt.NDArray[np.int64]
    measures: tuple[str, ...]
    means: npt.NDArray[np.float64]
    stddevs: npt.NDArray[np.float64]

    def lookup(
        self, query_ids: list[str], names: list[str]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """For every (query, measure name) pair, whether an entry is found, and its mean and
        deviation: arrays of shape ``(len(query_ids), len(names))``.

        The search is trec_eval 9.0.8's binary search, done for all pairs at once: over a
        query's entries it also inspects the entry just past them, so a name sorting after
        every measure of its query takes the next query's first entry when that entry has
        the same name (trec_eval does so). A query id sorting after every query of the file
        is not found (trec_eval reads past its table there, and may crash).
        """
        nq, nm = len(query_ids), len(names)
        found = np.zeros((nq, nm), dtype=bool)
        means = np.zeros((nq, nm))
        sds = np.zeros((nq, nm))
        if nq == 0 or nm == 0 or not self.query_ids:
            return found, means, sds
        group = {q: g for g, q in enumerate(self.query_ids)}
        at = np.array([group.get(q, -1) for q in query_ids], dtype=np.int64)
        known = at >= 0
        # Names as ranks in byte order, so that strcmp becomes an integer comparison.
        vocab = sorted(set(self.measures) | set(names), key=_bytes)
        rank = {n: i for i, n in enumerate(vocab)}
        entry_rank = np.array([rank[n] for n in self.measures], dtype=np.int64)
        key = np.broadcast_to(np.array([rank[n] for n in names], dtype=np.int64), (nq, nm))
        base = np.where(known, self.offsets[:-1][np.maximum(at, 0)], 0)[:, None]
        count = np.where(known, np.diff(self.offsets)[np.maximum(at, 0)], 0)[:, None]
        start = np.zeros((nq, nm), dtype=np.int64)
        end = np.broadcast_to(count, (nq, nm)).copy()  # inclusive, as trec_eval's search
        hit = np.full((nq, nm), -1, dtype=np.int64)
        active = np.broadcast_to(known[:, None], (nq, nm)).copy()
        total = len(self.measures)
        while active.any():
            current = (start + end) // 2
            index = base + current
            inside = index < total
            probe = entry_rank[np.minimum(index, total - 1)]
            equal = active & inside & (probe == key)
            hit[equal] = index[equal]
            lower = active & inside & (key < probe)
            higher = active & inside & (key > probe)
            end = np.where(lower, current - 1, end)
            start = np.where(higher, current + 1, start)
            active = (lower | higher) & (start <= end)
        found = hit >= 0
        where = np.maximum(hit, 0)
        means = np.where(found, self.means[where], 0.0)
        sds = np.where(found, self.stddevs[where], 0.0)
        return found, means, sds


def to_zscores(
    values: npt.NDArray[np.float64],
    found: npt.NDArray[np.bool_],
    means: npt.NDArray[np.float64],
    stddevs: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """``(value - mean) / stddev`` where an entry is found and its deviation is not 0 (a NaN
    deviation gives NaN); 0 where the deviation is 0 and the value equals the mean;
    :data:`MISSING_ZSCORE` everywhere else."""
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (values - means) / np.where(stddevs != 0, stddevs, 1.0)
    flat = np.where(values == means, 0.0, MISSING_ZSCORE)
    return np.where(found, np.where(stddevs != 0, scaled, flat), MISSING_ZSCORE)


def read_zscores(path: str) -> ZScores:
    """The z-score file at ``path``, read as trec_eval 9.0.8 reads it.

    Raises
    ------
    ZScoresUnreadable
        For a file that is missing, unreadable or empty (trec_eval: ``Cannot read zscores
        file``), or a line without exactly four fields (``Malformed line N``).
    """
    cannot = f"trec_eval.get_prefs: Cannot read zscores file '{path}'\n"
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ZScoresUnreadable(f"cannot read: {exc.strerror}", path, cannot) from None
    if not data:
        raise ZScoresUnreadable("empty file", path, cannot)
    if not data.endswith(b"\n"):
        data += b"\n"
    lines = data[:-1].split(b"\n")
    rows: list[tuple[bytes, bytes, float, float]] = []
    for number, line in enumerate(lines, start=1):
        # bytes.split() also splits at \x1c-\x1f, which C's isspace does not: split by hand.
        fields = [f for f in _split(line) if f]
        if len(fields) != 4:
            raise ZScoresUnreadable(
                f"expected 4 fields (query, measure, mean, stddev), got {len(fields)}",
                path,
                f"trec_eval.get_zscores: Malformed line {number}\n",
                line_number=number,
            )
        rows.append((fields[0], fields[1], atof(fields[2]), atof(fields[3])))
    rows.sort(key=lambda r: (r[0], r[1]))
    qids = [r[0] for r in rows]
    starts = [0] + [i for i in range(1, len(qids)) if qids[i] != qids[i - 1]]
    return ZScores(
        query_ids=tuple(_text(qids[i]) for i in starts),
        offsets=np.array([*starts, len(rows)], dtype=np.int64),
        measures=tuple(_text(r[1]) for r in rows),
        means=np.array([r[2] for r in rows], dtype=np.float64),
        stddevs=np.array([r[3] for r in rows], dtype=np.float64),
    )


def _split(line: bytes) -> list[bytes]:
    for space in _SPACE[1:]:
        line = line.replace(bytes([space]), b" ")
    return line.split(b" ")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")

