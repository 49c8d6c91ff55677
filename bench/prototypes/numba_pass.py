"""Prototype (issue 26): one compiled pass over a TREC run's bytes, in numba.

Parses a TREC qrels file and run from their bytes (``np.frombuffer`` of an ``mmap``), gives
query and document ids integer codes with open-addressing hash tables keyed by the id's bytes,
joins every run line with its judgment, and orders each query's lines as trec_eval ranks them
(score descending, ties by doc id descending in byte order). The result holds the per-line
arrays an :class:`~prfeval._retrieval.encode.EncodedBlock` is made of.

Not wired into prfeval: ``bench/compiled_pass.py`` times it beside the Rust prototype and the
current pipeline, and checks their arrays agree.

How the work is split:

1. the run is cut into blocks of ``BLOCK`` bytes at line ends; each block is cut again into
   one chunk per thread (``prange``), which counts its lines, then parses them: the byte
   ranges of the query and doc ids, their hashes, and the score (exact for decimals of up to
   15 significant digits and small exponents, as ``int / 10**k`` of two exact doubles is
   correctly rounded; other numbers are parsed by Python's ``float`` afterwards);
2. one thread then gives the ids codes (the hash tables are shared) and joins: the judgments
   of the current query are scattered into an array indexed by doc code, so a line's grade is
   one load; a repeated doc in the same query is found the same way;
3. each query's lines are put in rank order (``prange`` over queries): runs written best
   first only have their tie groups sorted.

After each block the mapping's pages are dropped (``madvise``) so the file does not count in
the resident set.
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt
from numba import njit, prange

BLOCK = 16 << 20
UNJUDGED = np.iinfo(np.int64).min
EMPTY = np.int32(-1)

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_POW10 = np.array([10.0**i for i in range(23)])


@njit(cache=True, inline="always")
def _is_space(c: np.uint8) -> bool:
    return c == 32 or c == 9 or c == 13


@njit(cache=True)
def _hash(buf: np.ndarray, start: int, length: int) -> np.uint64:
    """FNV-1a over the id's bytes, then a multiply-xorshift finaliser for the low bits."""
    h = _FNV_OFFSET
    for i in range(start, start + length):
        h = (h ^ np.uint64(buf[i])) * _FNV_PRIME
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(32)
    return h


@njit(cache=True)
def _parse_float(buf: np.ndarray, s: int, e: int) -> tuple[float, bool]:
    """``(value, ok)``: the decimal in ``buf[s:e]``; ``ok`` False when it needs the slow path."""
    i = s
    neg = False
    if i < e and (buf[i] == 45 or buf[i] == 43):
        neg = buf[i] == 45
        i += 1
    mant = np.int64(0)
    digits = 0
    frac = 0
    seen_dot = False
    any_digit = False
    while i < e:
        c = buf[i]
        if 48 <= c <= 57:
            any_digit = True
            if mant != 0 or c != 48:
                digits += 1
            if digits > 15:
                return 0.0, False
            mant = mant * 10 + (c - 48)
            if seen_dot:
                frac += 1
            i += 1
        elif c == 46 and not seen_dot:
            seen_dot = True
            i += 1
        else:
            break
    if not any_digit:
        return 0.0, False
    exp = 0
    if i < e:
        if buf[i] != 101 and buf[i] != 69:
            return 0.0, False
        i += 1
        eneg = False
        if i < e and (buf[i] == 45 or buf[i] == 43):
            eneg = buf[i] == 45
            i += 1
        if i == e:
            return 0.0, False
        while i < e:
            c = buf[i]
            if not 48 <= c <= 57 or exp > 400:
                return 0.0, False
            exp = exp * 10 + (c - 48)
            i += 1
        if eneg:
            exp = -exp
    exp -= frac
    v = float(mant)
    if exp < 0:
        if -exp > 22:
            return 0.0, False
        v = v / _POW10[-exp]
    elif exp > 0:
        if exp > 22:
            return 0.0, False
        v = v * _POW10[exp]  # exact: mant < 2**53 and 10**exp exact, one rounding
        if mant >= (1 << 53):
            return 0.0, False
    return (-v if neg else v), True


@njit(cache=True)
def _chunk_ends(buf: np.ndarray, start: int, end: int, parts: int) -> np.ndarray:
    """``parts + 1`` cut points in ``[start, end]``, each just after a newline."""
    cuts = np.empty(parts + 1, dtype=np.int64)
    cuts[0] = start
    cuts[parts] = end
    step = (end - start) // parts
    for p in range(1, parts):
        c = max(start + p * step, cuts[p - 1])
        while c < end and buf[c - 1] != 10:
            c += 1
        cuts[p] = c
    return cuts


@njit(cache=True)
def _count_lines(buf: np.ndarray, s: int, e: int) -> int:
    n = 0
    for i in range(s, e):
        if buf[i] == 10:
            n += 1
    if e > s and buf[e - 1] != 10:
        n += 1
    return n


@njit(cache=True)
def _parse_chunk(
    buf, s, e, n_fields, id_fields, num_field, out_at, starts, lens, hashes, nums, slow, line0,
    lineno, bad
):
    """Parse lines of ``buf[s:e]`` into rows from ``out_at``; returns the rows written.

    ``id_fields`` (two field numbers) are hashed; field ``num_field`` is parsed as a number.
    Blank lines and lines starting with ``#`` are skipped. ``bad[0]`` gets the first line
    (1-based, counted from ``line0``) with the wrong number of fields, ``bad[1]`` its field
    count.
    """
    row = out_at
    i = s
    line = line0
    while i < e:
        line += 1
        j = i
        while j < e and buf[j] != 10:
            j += 1
        k = i
        while k < j and _is_space(buf[k]):
            k += 1
        if k == j or buf[i] == 35:  # blank or comment
            i = j + 1
            continue
        field = 0
        while k < j:
            f0 = k
            while k < j and not _is_space(buf[k]):
                k += 1
            if field == id_fields[0]:
                starts[row, 0] = f0
                lens[row, 0] = k - f0
                hashes[row, 0] = _hash(buf, f0, k - f0)
            elif field == id_fields[1]:
                starts[row, 1] = f0
                lens[row, 1] = k - f0
                hashes[row, 1] = _hash(buf, f0, k - f0)
            elif field == num_field:
                v, ok = _parse_float(buf, f0, k)
                nums[row] = v
                slow[row] = not ok
            field += 1
            while k < j and _is_space(buf[k]):
                k += 1
        if field != n_fields and bad[0] == 0:
            bad[0] = line
            bad[1] = field
        lineno[row] = line
        row += 1
        i = j + 1
    return row - out_at


@njit(cache=True, parallel=True)
def _parse_block(buf, start, end, parts, n_fields, id_fields, num_field, line0):
    """Parse ``buf[start:end]`` (whole lines) on ``parts`` threads."""
    cuts = _chunk_ends(buf, start, end, parts)
    counts = np.zeros(parts, dtype=np.int64)
    newlines = np.zeros(parts, dtype=np.int64)
    for p in prange(parts):
        counts[p] = _count_lines(buf, cuts[p], cuts[p + 1])
        newlines[p] = counts[p]
    n = counts.sum()
    at = np.zeros(parts + 1, dtype=np.int64)
    for p in range(parts):
        at[p + 1] = at[p] + counts[p]
    starts = np.empty((n, 2), dtype=np.int64)
    lens = np.empty((n, 2), dtype=np.int32)
    hashes = np.empty((n, 2), dtype=np.uint64)
    nums = np.zeros(n, dtype=np.float64)
    slow = np.zeros(n, dtype=np.bool_)
    lineno = np.empty(n, dtype=np.int64)
    bads = np.zeros((parts, 2), dtype=np.int64)
    rows = np.zeros(parts, dtype=np.int64)
    for p in prange(parts):
        first = line0
        for r in range(p):
            first += newlines[r]
        rows[p] = _parse_chunk(
            buf, cuts[p], cuts[p + 1], n_fields, id_fields, num_field, at[p], starts, lens,
            hashes, nums, slow, first, lineno, bads[p]
        )
    # Compact (comment and blank lines were counted but not written).
    w = 0
    bad_line = 0
    bad_fields = 0
    for p in range(parts):
        if bads[p, 0] and not bad_line:
            bad_line = bads[p, 0]
            bad_fields = bads[p, 1]
        for r in range(at[p], at[p] + rows[p]):
            if w != r:
                starts[w] = starts[r]
                lens[w] = lens[r]
                hashes[w] = hashes[r]
                nums[w] = nums[r]
                slow[w] = slow[r]
                lineno[w] = lineno[r]
            w += 1
    return starts[:w], lens[:w], hashes[:w], nums[:w], slow[:w], lineno[:w], bad_line, bad_fields


# --------------------------------------------------------------------------------------------
# The id tables: open addressing, linear probing, keys' bytes kept in an arena.


@njit(cache=True)
def _new_table(cap: int, arena_bytes: int):
    slots = np.full(cap, EMPTY, dtype=np.int32)
    key_hash = np.empty(cap // 2 + 1, dtype=np.uint64)
    key_off = np.empty(cap // 2 + 2, dtype=np.int64)
    key_off[0] = 0
    arena = np.empty(arena_bytes, dtype=np.uint8)
    return slots, key_hash, key_off, arena


@njit(cache=True)
def _grow(slots, key_hash, key_off, arena, n, need_bytes):
    """The table with room for another key of ``need_bytes`` bytes."""
    if 2 * (n + 1) > slots.size:
        cap = slots.size * 2
        new_slots = np.full(cap, EMPTY, dtype=np.int32)
        mask = np.uint64(cap - 1)
        for c in range(n):
            at = key_hash[c] & mask
            while new_slots[at] != EMPTY:
                at = (at + np.uint64(1)) & mask
            new_slots[at] = c
        slots = new_slots
        kh = np.empty(cap // 2 + 1, dtype=np.uint64)
        kh[:n] = key_hash[:n]
        key_hash = kh
        ko = np.empty(cap // 2 + 2, dtype=np.int64)
        ko[: n + 1] = key_off[: n + 1]
        key_off = ko
    if key_off[n] + need_bytes > arena.size:
        a = np.empty(max(arena.size * 2, key_off[n] + need_bytes), dtype=np.uint8)
        a[: key_off[n]] = arena[: key_off[n]]
        arena = a
    return slots, key_hash, key_off, arena


@njit(cache=True, inline="always")
def _same(buf, s, length, arena, key_off, c) -> bool:
    o = key_off[c]
    if key_off[c + 1] - o != length:
        return False
    for i in range(length):  # noqa: SIM110 (a loop numba compiles to a plain compare)
        if arena[o + i] != buf[s + i]:
            return False
    return True


@njit(cache=True)
def _encode_ids(buf, starts, lens, hashes, col, state, n, codes):
    """Codes of column ``col`` of the parsed rows (new ids get the next code); returns the
    table state and the new key count."""
    slots, key_hash, key_off, arena = state
    prev_s = np.int64(-1)
    prev_len = np.int32(-1)
    prev_code = np.int32(-1)
    for r in range(starts.shape[0]):
        s = starts[r, col]
        length = lens[r, col]
        h = hashes[r, col]
        # Consecutive lines usually share their query: compare with the line above first.
        if prev_len == length and prev_code >= 0:
            same = True
            for i in range(length):
                if buf[prev_s + i] != buf[s + i]:
                    same = False
                    break
            if same:
                codes[r] = prev_code
                continue
        mask = np.uint64(slots.size - 1)
        at = h & mask
        code = np.int32(-1)
        while True:
            c = slots[at]
            if c == EMPTY:
                break
            if key_hash[c] == h and _same(buf, s, length, arena, key_off, c):
                code = c
                break
            at = (at + np.uint64(1)) & mask
        if code < 0:
            if 2 * (n + 1) > slots.size or key_off[n] + length > arena.size:
                slots, key_hash, key_off, arena = _grow(
                    slots, key_hash, key_off, arena, n, length
                )
                mask = np.uint64(slots.size - 1)
                at = h & mask
                while slots[at] != EMPTY:
                    at = (at + np.uint64(1)) & mask
            code = np.int32(n)
            slots[at] = code
            key_hash[n] = h
            o = key_off[n]
            for i in range(length):
                arena[o + i] = buf[s + i]
            key_off[n + 1] = o + length
            n += 1
        codes[r] = code
        prev_s, prev_len, prev_code = s, length, code
    return (slots, key_hash, key_off, arena), n


# --------------------------------------------------------------------------------------------
# The join, and the rank order.


@njit(cache=True)
def _join(run_q, run_d, n_q, n_d, qrels_q, qrels_d, qrels_g):
    """Per run line: found, grade, repeated; and whether each query's lines are contiguous.

    The judgments are grouped by query (CSR); for each block of a query's lines, its
    judgments are scattered into ``grade_of`` (indexed by doc code, stamped with the block
    number so nothing is cleared), and so are the docs seen so far, to find repeats.
    """
    n = run_q.size
    jcount = np.zeros(n_q + 1, dtype=np.int64)
    for i in range(qrels_q.size):
        jcount[qrels_q[i] + 1] += 1
    for q in range(n_q):
        jcount[q + 1] += jcount[q]
    jrow = np.empty(qrels_q.size, dtype=np.int64)
    fill = jcount[:-1].copy()
    for i in range(qrels_q.size):
        q = qrels_q[i]
        jrow[fill[q]] = i
        fill[q] += 1
    stamp = np.full(n_d, -1, dtype=np.int32)
    grade_of = np.empty(n_d, dtype=np.int64)
    seen = np.full(n_d, -1, dtype=np.int32)
    first_row = np.empty(n_d, dtype=np.int32)
    found = np.zeros(n, dtype=np.bool_)
    grade = np.full(n, UNJUDGED, dtype=np.int64)
    repeated = np.zeros(n, dtype=np.bool_)
    block_seen = np.zeros(n_q, dtype=np.bool_)
    grouped = True
    dup_judgment = -1
    block = -1
    for r in range(n):
        q = run_q[r]
        if r == 0 or q != run_q[r - 1]:
            block += 1
            if block_seen[q]:
                grouped = False
            block_seen[q] = True
            for k in range(jcount[q], jcount[q + 1]):
                i = jrow[k]
                d = qrels_d[i]
                if stamp[d] == block and dup_judgment < 0:
                    dup_judgment = i
                stamp[d] = block
                grade_of[d] = qrels_g[i]
        d = run_d[r]
        if stamp[d] == block:
            found[r] = True
            grade[r] = grade_of[d]
        if seen[d] == block:
            repeated[r] = True
            repeated[first_row[d]] = True
        else:
            seen[d] = block
            first_row[d] = r
    return found, grade, repeated, grouped, dup_judgment, jcount


@njit(cache=True, inline="always")
def _doc_after(arena, key_off, a, b) -> bool:
    """Whether doc code ``a`` comes before ``b`` in trec_eval's tie order (id descending)."""
    oa, ob = key_off[a], key_off[b]
    la, lb = key_off[a + 1] - oa, key_off[b + 1] - ob
    for i in range(min(la, lb)):
        x, y = arena[oa + i], arena[ob + i]
        if x != y:
            return x > y
    return la > lb


@njit(cache=True, inline="always")
def _before(scores, docs, arena, key_off, i, j) -> bool:
    if scores[i] != scores[j]:
        return scores[i] > scores[j]
    return _doc_after(arena, key_off, docs[i], docs[j])


@njit(cache=True)
def _sort_rows(rows, lo, hi, scores, docs, arena, key_off):
    """Sort ``rows[lo:hi]`` into rank order: insertion sort when short, else heapsort."""
    n = hi - lo
    if n <= 24:
        for i in range(lo + 1, hi):
            x = rows[i]
            j = i - 1
            while j >= lo and _before(scores, docs, arena, key_off, x, rows[j]):
                rows[j + 1] = rows[j]
                j -= 1
            rows[j + 1] = x
        return
    # Heapsort with the last in rank order at the root (a max-heap of "after").
    for start in range(n // 2 - 1, -1, -1):
        _sift(rows, lo, start, n, scores, docs, arena, key_off)
    for end in range(n - 1, 0, -1):
        rows[lo], rows[lo + end] = rows[lo + end], rows[lo]
        _sift(rows, lo, 0, end, scores, docs, arena, key_off)


@njit(cache=True)
def _sift(rows, lo, root, n, scores, docs, arena, key_off):
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and _before(
            scores, docs, arena, key_off, rows[lo + child], rows[lo + child + 1]
        ):
            child += 1
        if _before(scores, docs, arena, key_off, rows[lo + root], rows[lo + child]):
            rows[lo + root], rows[lo + child] = rows[lo + child], rows[lo + root]
            root = child
        else:
            return


@njit(cache=True, parallel=True)
def _rank_order(run_q, scores, docs, n_q, arena, key_off):
    """Row indices grouped by query code (ascending), each query in rank order.

    A query whose lines are already in score order only has its tie groups sorted."""
    n = run_q.size
    qstart = np.zeros(n_q + 1, dtype=np.int64)
    for r in range(n):
        qstart[run_q[r] + 1] += 1
    for q in range(n_q):
        qstart[q + 1] += qstart[q]
    rows = np.empty(n, dtype=np.int32)
    fill = qstart[:-1].copy()
    for r in range(n):
        q = run_q[r]
        rows[fill[q]] = r
        fill[q] += 1
    for q in prange(n_q):
        lo, hi = qstart[q], qstart[q + 1]
        in_order = True
        for i in range(lo + 1, hi):
            if scores[rows[i]] > scores[rows[i - 1]]:
                in_order = False
                break
        if not in_order:
            _sort_rows(rows, lo, hi, scores, docs, arena, key_off)
            continue
        g = lo
        while g < hi:
            e = g + 1
            while e < hi and scores[rows[e]] == scores[rows[g]]:
                e += 1
            if e - g > 1:
                _sort_rows(rows, g, e, scores, docs, arena, key_off)
            g = e
    return rows, qstart


# --------------------------------------------------------------------------------------------
# The driver


@dataclass
class Pass:
    """What the pass builds: per run line (file order) its query and doc codes, score, grade
    and flags; per judgment its codes and grade; the rank order; the id tables."""

    run_q: npt.NDArray[np.int32]
    run_d: npt.NDArray[np.int32]
    scores: npt.NDArray[np.float64]
    found: npt.NDArray[np.bool_]
    grade: npt.NDArray[np.int64]
    repeated: npt.NDArray[np.bool_]
    qrels_q: npt.NDArray[np.int32]
    qrels_d: npt.NDArray[np.int32]
    qrels_g: npt.NDArray[np.int64]
    order: npt.NDArray[np.int32]
    qstart: npt.NDArray[np.int64]
    grouped: bool
    query_ids: list[str]
    doc_key_off: npt.NDArray[np.int64]
    doc_arena: npt.NDArray[np.uint8]

    def doc_id(self, code: int) -> str:
        o = self.doc_key_off
        return bytes(self.doc_arena[o[code] : o[code + 1]]).decode()


class PassError(ValueError):
    """A line the pass cannot read: the file, the line and the problem."""


def _map(path: str) -> tuple[mmap.mmap | None, np.ndarray]:
    size = os.path.getsize(path)
    if size == 0:
        return None, np.zeros(0, dtype=np.uint8)
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    return m, np.frombuffer(m, dtype=np.uint8)


def _read(path, state_q, n_q, state_d, n_d, *, n_fields, id_fields, num_field, parts):
    """Parse and encode one file in blocks; returns the per-line arrays and the tables."""
    m, buf = _map(path)
    q_parts, d_parts, v_parts = [], [], []
    line0 = 0
    pos = 0
    size = buf.size
    ids = np.array(id_fields, dtype=np.int64)
    try:
        while pos < size:
            end = min(pos + BLOCK, size)
            while end < size and buf[end - 1] != 10:  # to the next line end
                nl = buf[end : min(end + 4096, size)].tobytes().find(b"\n")
                end = size if nl < 0 else end + nl + 1
            starts, lens, hashes, nums, slow, lineno, bad, nf = _parse_block(
                buf, pos, end, parts, n_fields, ids, num_field, line0
            )
            if bad:
                raise PassError(f"{path}:{bad}: {nf} fields, expected {n_fields}")
            if slow.any():  # numbers outside the fast path: Python's parser, rare
                for r in np.flatnonzero(slow):
                    line = int(lineno[r])
                    text = bytes(buf[pos:end]).split(b"\n")[line - line0 - 1].split()
                    try:
                        nums[r] = float(text[num_field])
                    except ValueError:
                        msg = f"{path}:{line}: not a number: {text[num_field]!r}"
                        raise PassError(msg) from None
            line0 += int(np.count_nonzero(buf[pos:end] == 10))
            qc = np.empty(starts.shape[0], dtype=np.int32)
            dc = np.empty(starts.shape[0], dtype=np.int32)
            state_q, n_q = _encode_ids(buf, starts, lens, hashes, 0, state_q, n_q, qc)
            state_d, n_d = _encode_ids(buf, starts, lens, hashes, 1, state_d, n_d, dc)
            q_parts.append(qc)
            d_parts.append(dc)
            v_parts.append(nums)
            if m is not None:  # the block's pages leave the resident set
                a = pos - pos % mmap.PAGESIZE
                m.madvise(mmap.MADV_DONTNEED, a, end - a)
            pos = end
    finally:
        del buf
        if m is not None:
            m.close()

    def cat(parts_: list[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(parts_) if parts_ else np.zeros(0, dtype=dtype)

    q, d, v = cat(q_parts, np.int32), cat(d_parts, np.int32), cat(v_parts, np.float64)
    return q, d, v, state_q, n_q, state_d, n_d


def run_pass(qrels_path: str, run_path: str, *, threads: int = 2) -> Pass:
    """Parse, encode, join and order a TREC qrels file and run."""
    nb.set_num_threads(threads)
    state_q = _new_table(1 << 14, 1 << 16)
    state_d = _new_table(1 << 20, 1 << 23)
    # The judgments first: then the run's join finds every judged doc already coded.
    qq, qd, qg, state_q, n_q, state_d, n_d = _read(
        qrels_path, state_q, 0, state_d, 0, n_fields=4, id_fields=(0, 2), num_field=3,
        parts=threads,
    )
    if qg.size and not np.array_equal(qg, np.rint(qg)):
        raise PassError(f"{qrels_path}: a grade is not an integer")
    qrels_g = qg.astype(np.int64)
    rq, rd, scores, state_q, n_q, state_d, n_d = _read(
        run_path, state_q, n_q, state_d, n_d, n_fields=6, id_fields=(0, 2), num_field=4,
        parts=threads,
    )
    found, grade, repeated, grouped, dup, _ = _join(rq, rd, n_q, n_d, qq, qd, qrels_g)
    if dup >= 0:
        raise PassError(f"{qrels_path}: judgment {dup + 1} repeated")
    _, _, doc_off, doc_arena = state_d
    order, qstart = _rank_order(rq, scores, rd, n_q, doc_arena, doc_off)
    _, _, q_off, q_arena = state_q
    query_ids = [bytes(q_arena[q_off[c] : q_off[c + 1]]).decode() for c in range(n_q)]
    return Pass(
        run_q=rq, run_d=rd, scores=scores, found=found, grade=grade, repeated=repeated,
        qrels_q=qq, qrels_d=qd, qrels_g=qrels_g, order=order, qstart=qstart,
        grouped=bool(grouped), query_ids=query_ids, doc_key_off=doc_off[: n_d + 1],
        doc_arena=doc_arena,
    )


if __name__ == "__main__":
    import sys
    import time

    t0 = time.perf_counter()
    p = run_pass(sys.argv[1], sys.argv[2], threads=int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    print(f"{time.perf_counter() - t0:.3f} s, {p.run_q.size} lines, {len(p.query_ids)} queries")
