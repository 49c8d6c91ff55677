"""Ids to integer codes: Arrow's hash-based dictionary encoding, done once per input.

Comparing, joining and sorting ids as strings is the slowest work there is on a large run, so
ids become integer codes as they are read, with one hash table shared by the run and its
judgments (so a document has one code in both), and every later step compares integers. By
default the codes follow the byte order of the ids, so ordering by code is ordering by id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrow import arrow_ints, arrow_strings, bools_of, ints_or, numpy_of

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["byte_order_keys", "factorize", "ranks_by_doc_descending", "run_starts"]

IntArray = npt.NDArray[np.int64]

# Below this many bytes (ids and offsets) the chunks of ids fit one string array.
_ONE_ARRAY_BYTES = 2**31 - 2**20


def factorize(
    arrays: list[Any], *, sort: bool = True, runs: bool = False
) -> tuple[list[IntArray], pa.Array]:
    """Integer codes for the ids in ``arrays``, shared across them, in byte order of the ids.

    The arrays (Arrow arrays or chunked arrays of strings) are encoded as one chunked array
    with Arrow's hash-based dictionary encoding, without first copying them into one buffer.
    The dictionary is then sorted once, so that comparing codes compares ids; with
    ``sort=False`` codes are in order of first appearance.

    ``runs=True`` says the ids come in runs of equal values (a query column): only the first
    id of each run is hashed, found by comparing neighbours, which is several times cheaper.
    When the first array is already dictionary encoded (a streamed block's ids), its
    dictionary is used as it is: arrays over the same dictionary take their indices as codes,
    and only the ids of other arrays are matched with it.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    lengths = [len(a) for a in arrays]
    first = arrays[0] if arrays else None
    if first is not None and pa.types.is_dictionary(first.type) and len(first):
        if all(_same_dictionary(first, a) for a in arrays[1:] if len(a)):
            # Encoded together already (a streamed block's docs): the codes are the indices.
            codes = np.concatenate([ints_or(a.indices, -1) for a in arrays if len(a)])
            return _codes_in_order(codes, first.dictionary, lengths, sort=sort)
        return _factorize_onto(first, arrays[1:], sort=sort)
    chunks = [
        c if c.type == pa.string() else c.cast(pa.string())
        for a in arrays
        for c in (a.chunks if isinstance(a, pa.ChunkedArray) else [a])
        if len(c)
    ]
    if not chunks:
        return [np.zeros(n, dtype=np.int64) for n in lengths], arrow_strings([])
    # One string array holds at most 2 GiB of ids (32-bit offsets): larger inputs are hashed
    # chunk by chunk, as below.
    if not runs and sum(c.nbytes for c in chunks) < _ONE_ARRAY_BYTES:
        # The same codes as hashing the ids (and sorting the distinct ones) gives, from
        # integers, when the ids allow it: a sort of them for byte order (a third of the time
        # for 1.5M ids of 10 bytes), a hash of them for the order of first appearance.
        ids = pa.concat_arrays(chunks) if len(chunks) > 1 else chunks[0]
        keys = byte_order_keys(ids)
        if keys is not None:
            codes, dictionary = _codes_of_keys(ids, keys, sort=sort)
            return list(np.split(codes, np.cumsum(lengths)[:-1])), dictionary
    run_lengths = None
    if runs:
        firsts, lengths_of = [], []
        for c in chunks:
            starts = run_starts(c)
            if starts.size * 2 > len(c):  # not in runs after all: hash every id
                firsts.append(c)
                lengths_of.append(np.ones(len(c), dtype=np.int64))
            else:
                firsts.append(c.take(arrow_ints(starts)))
                lengths_of.append(np.diff(np.append(starts, len(c))))
        chunks, run_lengths = firsts, np.concatenate(lengths_of)
    encoded = pc.dictionary_encode(pa.chunked_array(chunks, type=pa.string()))
    dictionary = encoded.chunk(encoded.num_chunks - 1).dictionary
    if any(len(c.dictionary) != len(dictionary) for c in encoded.chunks):
        encoded = encoded.unify_dictionaries()  # not one shared memo table: make it so
        dictionary = encoded.chunk(0).dictionary
    indices = np.concatenate([numpy_of(c.indices) for c in encoded.chunks])
    if run_lengths is not None:
        indices = np.repeat(indices, run_lengths)
    return _codes_in_order(indices.astype(np.int64), dictionary, lengths, sort=sort)


def byte_order_keys(ids: pa.Array) -> npt.NDArray[np.uint64] | None:
    """Each id (of a string array) as one integer in the ids' byte order, when that can be
    had: past the bytes every id shares at its start, at most 8 bytes are left of any id,
    and no id holds a NUL byte. The rest of each id, zero-padded to 8 bytes and read
    big-endian, then orders as the ids do (a shorter id before any longer one it begins) and
    tells them apart. ``None`` otherwise (ids of 20 bytes with nothing in common, say).

    Numeric ids of up to 8 digits, or ids such as ``doc0012345`` whose differences lie in
    their last 8 bytes, take this way, which sorts integers instead of hashing strings."""
    import pyarrow as pa

    if not len(ids):
        return None
    large = pa.types.is_large_string(ids.type) or pa.types.is_large_binary(ids.type)
    offsets = np.frombuffer(ids.buffers()[1], dtype=np.int64 if large else np.int32)
    offsets = offsets[ids.offset : ids.offset + len(ids) + 1].astype(np.int64)
    data = np.frombuffer(ids.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    starts, lengths = offsets[:-1] - offsets[0], np.diff(offsets)
    if ids.null_count or (data == 0).any():
        return None
    shared, width = 0, int(lengths.max())
    if width and int(lengths.min()) == width:  # ids of one length: a row each, in place
        rows = data.reshape(-1, width)
        shared = max(0, width - 8)
        if not (rows[:, :shared] == rows[0, :shared]).all():
            return None
        rest = np.zeros((rows.shape[0], 8), dtype=np.uint8)
        rest[:, : width - shared] = rows[:, shared:]
        return rest.view(">u8").reshape(-1).astype(np.uint64)
    while width - shared > 8:  # the shared start has to make up the difference
        if int(lengths.min()) <= shared or not (data[starts + shared] == data[shared]).all():
            return None
        shared += 1
    keys = np.zeros(len(ids), dtype=np.uint64)
    ends = starts + lengths
    for at in range(shared, shared + 8):  # a byte at a time, most significant first
        inside = starts + at < ends
        byte = np.zeros(keys.size, dtype=np.uint64)
        byte[inside] = data[(starts + at)[inside]]
        keys = (keys << np.uint64(8)) | byte
    return keys


def _codes_of_keys(
    ids: pa.Array, keys: npt.NDArray[np.uint64], *, sort: bool
) -> tuple[IntArray, pa.Array]:
    """The codes of ``ids`` from their :func:`byte_order_keys`, and the distinct ids
    (strings): in byte order, by sorting the keys (numpy's unique hashes, and its search
    misses the cache: both slower); else in order of first appearance, by hashing them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if sort:
        order = np.argsort(keys)
        ordered = keys[order]
        new = np.empty(ordered.size, dtype=bool)
        new[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        codes = np.empty(keys.size, dtype=np.int64)
        codes[order] = np.cumsum(new) - 1  # each id's key's place among the distinct
        first = order[new]  # any id of a key stands for it: they are the same id
    else:
        # (As int64: the same bits, one to one; built from the buffer, without pandas.)
        encoded = pc.dictionary_encode(arrow_ints(keys.view(np.int64)))
        codes = numpy_of(encoded.indices).astype(np.int64)
        # A code appears first where the codes so far reach a new maximum.
        seen = np.maximum.accumulate(codes)
        first = np.flatnonzero(np.diff(seen, prepend=-1) > 0)
    distinct = ids.take(arrow_ints(first))
    return codes, distinct if distinct.type == pa.string() else distinct.cast(pa.string())


def _same_dictionary(a: Any, b: Any) -> bool:
    """Whether ``b`` is dictionary encoded over the very same dictionary (buffers) as ``a``."""
    import pyarrow as pa

    if not pa.types.is_dictionary(b.type):
        return False

    def addresses(array: Any) -> list[int | None]:
        return [None if x is None else x.address for x in array.dictionary.buffers()]

    return len(a.dictionary) == len(b.dictionary) and addresses(a) == addresses(b)


def _factorize_onto(
    encoded: pa.Array, others: list[Any], *, sort: bool
) -> tuple[list[IntArray], pa.Array]:
    """:func:`factorize` when the first array is dictionary encoded (its values distinct).

    The other arrays (a block's judged doc ids: fewer) are encoded on their own, and their
    dictionary is matched with the first one's by one lookup in the smaller hash table. Ids
    the first dictionary lacks get codes after it.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    dictionary = encoded.dictionary
    codes = [numpy_of(encoded.indices).astype(np.int64)]
    rest, rest_vocab = factorize(others, sort=False)
    if len(rest_vocab):
        # For each id of the first dictionary, its place in rest_vocab (or null).
        match = pc.index_in(dictionary, value_set=rest_vocab)
        matched = ints_or(match, -1)
        where = np.full(len(rest_vocab), -1, dtype=np.int64)
        hit = matched >= 0
        where[matched[hit]] = np.flatnonzero(hit)
        new = np.flatnonzero(where < 0)
        where[new] = len(dictionary) + np.arange(new.size)
        rest = [where[r] for r in rest]
        if new.size:
            dictionary = pa.concat_arrays(
                [dictionary.cast(pa.string()), rest_vocab.take(arrow_ints(new))]
            )
    codes += rest
    return _codes_in_order(
        np.concatenate(codes), dictionary, [c.size for c in codes], sort=sort
    )


def _codes_in_order(
    codes: IntArray, dictionary: pa.Array, lengths: list[int], *, sort: bool
) -> tuple[list[IntArray], pa.Array]:
    """Split ``codes`` into the input arrays; with ``sort``, renumber in byte order first."""
    import pyarrow.compute as pc

    if sort:
        order = numpy_of(pc.sort_indices(dictionary))
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size, dtype=np.int64)
        codes = rank[codes]
        dictionary = dictionary.take(arrow_ints(order))
    return list(np.split(codes, np.cumsum(lengths)[:-1])), dictionary


def run_starts(ids: pa.Array) -> IntArray:
    """Where each run of equal consecutive ids starts (the first is 0)."""
    import pyarrow.compute as pc

    n = len(ids)
    if n < 2:
        return np.zeros(min(n, 1), dtype=np.int64)
    change = bools_of(pc.not_equal(ids.slice(1), ids.slice(0, n - 1)))
    return np.concatenate(([0], np.flatnonzero(change) + 1))


def ranks_by_doc_descending(vocab: pa.Array, codes: IntArray) -> IntArray:
    """Each of ``codes``'s place when they are sorted by id descending (bytes), stably.

    Used when only some documents need ordering (the tied ones), so that a streamed block
    need not sort its whole vocabulary. A repeated id keeps its order of appearance.
    """
    import pyarrow.compute as pc

    order = numpy_of(pc.array_sort_indices(vocab.take(arrow_ints(codes)), order="descending"))
    ranks = np.empty(codes.size, dtype=np.int64)
    ranks[order] = np.arange(codes.size, dtype=np.int64)
    return ranks
