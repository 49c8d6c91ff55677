"""MinHash signatures and banding: candidate pairs of near-duplicate documents, sub-quadratic.

For shingle sets ``S`` and ``T``, the probability that one random hash function has its
minimum over ``S`` and over ``T`` at the same shingle is their Jaccard similarity
``|S ∩ T| / |S ∪ T|`` (Broder 1997). Signatures here are **one permutation hashing** with
densification (Li, Owen and Zhang 2012; Shrivastava 2017): each shingle is hashed once, its
hash's top bits choose one of :data:`BINS` bins and its low bits are the value; a document's
signature is the minimum value in each bin, and a bin no shingle fell into borrows the value
of the next non-empty bin (circularly), marked with the distance. So a document of ``n``
shingles costs ``O(n + BINS)``, not ``O(n * BINS)`` as with one hash function per position.

**Banding** (Indyk and Motwani 1998; Leskovec, Rajaraman and Ullman, *Mining of Massive
Datasets*, ch. 3): the signature is cut into ``b`` bands of ``r`` values, and two documents
are candidates when any band is equal in both: probability ``1 - (1 - s^r)^b`` for Jaccard
``s``. :func:`bands_for` picks ``r`` so that a pair at the threshold is a candidate with
probability at least :data:`RECALL`; every candidate is then verified exactly by the caller.

A bucket (documents with one band equal) holding many documents of both sides (templated
text, near-duplicates of near-duplicates) would give a number of candidates quadratic in its
size; a bucket with more than :data:`BUCKET_PAIRS` pairs instead pairs each of its documents
with the bucket's first document of the other side, so that each such document is still
checked against one of its near-duplicates, in linear work.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import mix64, ranges

__all__ = ["BINS", "BUCKET_PAIRS", "RECALL", "Candidates", "bands_for", "candidates",
           "signatures"]  # fmt: skip

IntArray = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

#: Values in a signature (a power of 2: the hash's top 7 bits choose the bin).
BINS = 128
#: The least probability that a pair exactly at the threshold becomes a candidate.
RECALL = 0.999
#: A bucket with more (side A, side B) pairs than this pairs its documents in a star.
BUCKET_PAIRS = 64

_BIN_BITS = 7
_LOW = np.uint64((1 << (64 - _BIN_BITS)) - 1)
_EMPTY = np.uint64(2**64 - 1)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def bands_for(threshold: float) -> tuple[int, int]:
    """``(bands, rows)`` with ``bands * rows <= BINS``: the most rows per band (the fewest
    chance candidates) for which a pair of Jaccard ``threshold`` is a candidate with
    probability at least :data:`RECALL`."""
    best = (BINS, 1)
    for rows in range(1, BINS + 1):
        bands = BINS // rows
        if 1 - (1 - threshold**rows) ** bands >= RECALL:
            best = (bands, rows)
    return best


def signatures(doc_of: IntArray, keys: U64, n_docs: int, seed: int = 0) -> U64:
    """The signature of each document (shape ``(n_docs, BINS)``) from its shingles'
    ``keys`` (64-bit, any order; ``doc_of`` says whose each is). A document with no shingle
    has an all-empty row (never a candidate)."""
    with np.errstate(over="ignore"):
        h = mix64(keys ^ (np.uint64(seed) * _GOLDEN))
    flat = doc_of.astype(np.int64) * BINS + (h >> np.uint64(64 - _BIN_BITS)).astype(np.int64)
    sig = np.full(n_docs * BINS, _EMPTY, dtype=np.uint64)
    np.minimum.at(sig, flat, h & _LOW)
    return _densified(sig.reshape(n_docs, BINS))


def _densified(sig: U64) -> U64:
    """Each empty bin given the next non-empty bin's value (circularly), plus its distance
    times a constant, so that two documents agree on it only if they agree on that bin."""
    empty = sig == _EMPTY
    if not empty.any():
        return sig
    n, k = sig.shape
    position = np.arange(2 * k)
    doubled = np.concatenate([sig, sig], axis=1)
    filled = np.where(np.concatenate([~empty, ~empty], axis=1), position, 2 * k)
    # The next non-empty position at or after each place: a running minimum from the right.
    nxt = np.minimum.accumulate(filled[:, ::-1], axis=1)[:, ::-1][:, :k]
    has_any = nxt[:, 0] < 2 * k
    rows = np.arange(n)[:, None]
    source = np.minimum(nxt, 2 * k - 1)
    distance = (source - position[:k]).astype(np.uint64)
    with np.errstate(over="ignore"):
        borrowed = doubled[rows, source] + distance * _GOLDEN
    out = np.where(empty, borrowed, sig)
    out[~has_any] = _EMPTY
    return out


@dataclass(frozen=True)
class Candidates:
    """Candidate pairs ``(first[i], second[i])`` (``first`` has side A documents, ``second``
    side B's), each once; ``starred``: buckets paired in a star (see the module's notes)."""

    first: IntArray
    second: IntArray
    starred: int


def candidates(
    sig: U64, has_a: npt.NDArray[np.bool_], has_b: npt.NDArray[np.bool_], threshold: float
) -> Candidates:
    """The pairs of documents (one with side A members, one with side B members) that share
    a band of their signatures."""
    n = sig.shape[0]
    bands, rows = bands_for(threshold)
    live = np.flatnonzero(sig[:, 0] != _EMPTY)
    pairs: list[IntArray] = []
    starred = 0
    for band in range(bands):
        block = sig[live, band * rows : (band + 1) * rows]
        with np.errstate(over="ignore"):
            key = np.zeros(live.size, dtype=np.uint64)
            for column in range(rows):
                key = mix64(key * _GOLDEN + block[:, column])
        order = np.argsort(key, kind="stable")
        docs, sorted_key = live[order], key[order]
        starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
        sizes = np.diff(np.r_[starts, docs.size])
        shared = sizes > 1
        starts, sizes = starts[shared], sizes[shared]
        if not starts.size:
            continue
        # Each bucket's count of A and B documents, to tell the small from the crowded.
        member_bucket = np.repeat(np.arange(starts.size), sizes)
        members = docs[ranges(starts, sizes)]
        n_a = np.bincount(member_bucket, weights=has_a[members], minlength=starts.size)
        n_b = np.bincount(member_bucket, weights=has_b[members], minlength=starts.size)
        small = n_a * n_b <= BUCKET_PAIRS
        starred += int((~small & (n_a > 0) & (n_b > 0)).sum())
        # Small buckets: every ordered pair of their members.
        s_starts, s_sizes = starts[small], sizes[small]
        if s_starts.size:
            each = ranges(s_starts, s_sizes)
            left = np.repeat(each, np.repeat(s_sizes, s_sizes))
            right = ranges(np.repeat(s_starts, s_sizes), np.repeat(s_sizes, s_sizes))
            pairs.append(_kept(docs[left], docs[right], has_a, has_b, n))
        # Crowded buckets: each member with the bucket's first A and first B document.
        c_starts, c_sizes = starts[~small], sizes[~small]
        if c_starts.size:
            each = docs[ranges(c_starts, c_sizes)]
            bucket = np.repeat(np.arange(c_starts.size), c_sizes)
            first_a = _first_where(each, bucket, has_a[each], c_starts.size)
            first_b = _first_where(each, bucket, has_b[each], c_starts.size)
            pairs.append(_kept(each, first_b[bucket], has_a, has_b, n))
            pairs.append(_kept(first_a[bucket], each, has_a, has_b, n))
    if not pairs:
        none = np.zeros(0, dtype=np.int64)
        return Candidates(none, none, starred)
    unique = np.unique(np.concatenate(pairs))
    return Candidates(unique // n, unique % n, starred)


def _first_where(
    each: IntArray, bucket: IntArray, where: npt.NDArray[np.bool_], n_buckets: int
) -> IntArray:
    """The first document of each bucket for which ``where`` holds (-1: none)."""
    first = np.full(n_buckets, -1, dtype=np.int64)
    at = np.flatnonzero(where)
    # Reversed, so the first member of each bucket is written last.
    first[bucket[at][::-1]] = each[at][::-1]
    return first


def _kept(
    left: IntArray, right: IntArray, has_a: npt.NDArray[np.bool_],
    has_b: npt.NDArray[np.bool_], n: int,
) -> IntArray:
    """The pairs ``left * n + right`` with ``left`` holding an A document and ``right`` a B
    document, and two different documents."""
    ok = (left >= 0) & (right >= 0) & (left != right)
    left, right = left[ok], right[ok]
    ok = has_a[left] & has_b[right]
    return left[ok] * n + right[ok]
