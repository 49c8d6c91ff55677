"""Which documents of one corpus are copied, exactly or lightly edited, into another.

The other half of leakage: ``prfeval leakage`` finds eval questions inside a corpus; this
finds an eval set's own documents inside a corpus or the training data. For two corpora A
and B (JSON Lines, :mod:`prfeval._leakage.records`), with ``words(x)`` the words of a text
(:mod:`prfeval._leakage.words`: NFKC, lowercase, runs of letters and digits) and ``S(x)``
the set of its word 3-grams (shingles)::

    exact(a, b)   = words(a) == words(b)             (the same normalised text)
    jaccard(a, b) = |S(a) ∩ S(b)| / |S(a) ∪ S(b)|

A pair is reported when its texts are the same normalised text (**exact**), or when its
Jaccard similarity is at or above ``threshold`` (**near**; default :data:`DEFAULT_THRESHOLD`).
Every reported similarity is computed exactly, from the two shingle sets.

How, in time near linear in the input:

1. Documents of both corpora with the same words are grouped (a hash of each word sequence,
   then compared word by word with the group's first document, so a collision cannot join
   two texts). A group with documents of A and of B is an exact pair; the documents of a
   group are listed together, so a text copied a thousand times on each side is one row,
   not a million.
2. One document per group is signed with MinHash and its candidates found by banding
   (:mod:`prfeval._leakage.minhash`); a bucket crowded with templated near-duplicates pairs
   its documents in a star instead of every pair with every other.
3. Each candidate pair's Jaccard similarity is computed exactly (the two sets sorted
   together), and the pairs at or above the threshold are reported.

Edge cases: a text with no word (empty, ``null``, only punctuation) is **empty**, neither
checked nor reported; a text of one or two words has no 3-gram: it is **short**, found only
as an exact duplicate. MinHash finds a pair at the threshold with probability at least
:data:`~prfeval._leakage.minhash.RECALL`, and pairs further above it with more; what it
finds is verified, so nothing reported is a false pair.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core import checks
from prfeval._core.arrays import mix64, ranges
from prfeval._io.source import Source, display_name
from prfeval._leakage.minhash import candidates, signatures
from prfeval._leakage.records import ID_FIELDS, read_records
from prfeval._leakage.words import GRAM, gram_starts, tokenise

__all__ = ["DEFAULT_THRESHOLD", "Overlap", "OverlapPair", "find_overlap"]

IntArray = npt.NDArray[np.int64]

#: The Jaccard similarity of word 3-grams at which two documents are near-duplicates.
DEFAULT_THRESHOLD = 0.8

#: Elements per round of exact verification (a few int64 arrays of this many).
_ROUND = 1 << 22


@dataclass(frozen=True)
class OverlapPair:
    """Documents of A and documents of B that are the same text, or nearly.

    Attributes
    ----------
    kind
        ``"exact"`` (the same normalised text) or ``"near"``.
    a_ids, b_ids
        The documents of each side: one text, and its exact copies on that side.
    jaccard
        The Jaccard similarity of their word 3-grams (1 for an exact pair).
    shared, union
        ``|S(a) ∩ S(b)|`` and ``|S(a) ∪ S(b)|`` (0 and 0 for an exact pair of short texts).
    """

    kind: str
    a_ids: tuple[str, ...]
    b_ids: tuple[str, ...]
    jaccard: float
    shared: int
    union: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"kind": self.kind, "a": list(self.a_ids), "b": list(self.b_ids),
                "jaccard": self.jaccard, "shared": self.shared, "union": self.union}  # fmt: skip


@dataclass(frozen=True)
class Overlap:
    """The result of :func:`find_overlap`.

    Attributes
    ----------
    a, b
        The two corpora's names.
    n_a, n_b
        How many documents each has.
    empty_a, empty_b
        Documents with no word, not checked.
    short
        Documents (of either side) of one or two words: checked as exact duplicates only.
    threshold
        The Jaccard similarity a near pair reaches.
    pairs
        Exact pairs first, then near pairs by similarity (highest first), each in the order
        of their first A document.
    starred
        Crowded MinHash buckets paired in a star (templated text).
    """

    a: str
    b: str
    n_a: int
    n_b: int
    empty_a: int
    empty_b: int
    short: int
    threshold: float
    pairs: tuple[OverlapPair, ...] = field(default_factory=tuple)
    starred: int = 0

    @property
    def exact(self) -> tuple[OverlapPair, ...]:
        """The exact pairs."""
        return tuple(p for p in self.pairs if p.kind == "exact")

    @property
    def near(self) -> tuple[OverlapPair, ...]:
        """The near pairs."""
        return tuple(p for p in self.pairs if p.kind == "near")

    @property
    def found(self) -> bool:
        """Whether any pair was found (the command then exits 1)."""
        return bool(self.pairs)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "a": self.a, "b": self.b, "documents_a": self.n_a, "documents_b": self.n_b,
            "empty_a": self.empty_a, "empty_b": self.empty_b, "short": self.short,
            "threshold": self.threshold, "shingle_words": GRAM,
            "exact_pairs": len(self.exact), "near_pairs": len(self.near),
            "starred_buckets": self.starred,
            "pairs": [p.to_dict() for p in self.pairs],
        }  # fmt: skip


def find_overlap(
    a: Source,
    b: Source,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    text_field: str = "text",
    id_field: str | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Overlap:
    """Exact and near-duplicate documents between two corpora (see the module's notes).

    Parameters
    ----------
    a, b
        JSON Lines files (``.gz`` too; ``-`` for standard input, once), one document a line.
    threshold
        The Jaccard similarity of word 3-grams, in (0, 1], at or above which two documents
        are near-duplicates.
    text_field
        The field holding each document's text (a string or ``null``).
    id_field
        The field holding its id; default ``_id``, else ``id``.
    seed
        The MinHash seed (the same seed, the same candidates).

    Returns
    -------
    Overlap
        The pairs, exact ones first; ``.found`` when any.

    Examples
    --------
    >>> import io, json
    >>> a = io.BytesIO(b'{"id": "a1", "text": "The cat sat on the mat today"}\\n')
    >>> b = io.BytesIO(b'{"id": "b1", "text": "the CAT sat on the mat, today!"}\\n')
    >>> [(p.kind, p.a_ids, p.b_ids) for p in find_overlap(a, b).pairs]
    [('exact', ('a1',), ('b1',))]
    """
    threshold = checks.number("threshold", threshold, above=0, maximum=1)
    checks.integer("seed", seed, minimum=0)
    ids = ID_FIELDS if id_field is None else (id_field,)
    side_a = read_records(a, [text_field], id_fields=ids, progress=progress)
    side_b = read_records(b, [text_field], id_fields=ids, progress=progress)
    name_a, name_b = _name(a, "A"), _name(b, "B")
    n_a, n_b = len(side_a.ids), len(side_b.ids)
    tokens = tokenise([*side_a.texts, *side_b.texts])
    codes = np.asarray(tokens.words.dictionary_encode().indices, dtype=np.int64) if len(
        tokens.words) else np.zeros(0, dtype=np.int64)  # fmt: skip
    counts = tokens.counts
    starts = np.cumsum(counts) - counts
    is_a = np.arange(n_a + n_b) < n_a
    group = _exact_groups(codes, starts, counts)
    docs = _Docs(side_a.ids + side_b.ids, is_a, group, counts)
    pairs = _exact_pairs(docs)
    near, starred = _near_pairs(docs, codes, starts, threshold, seed)
    pairs += near
    empty = counts == 0
    return Overlap(
        name_a, name_b, n_a, n_b, int(empty[:n_a].sum()), int(empty[n_a:].sum()),
        int(((counts > 0) & (counts < GRAM)).sum()), threshold, tuple(pairs), starred,
    )  # fmt: skip


def _name(source: Source, default: str) -> str:
    return display_name(source) if isinstance(source, str) else default


def _exact_groups(codes: IntArray, starts: IntArray, counts: IntArray) -> IntArray:
    """Each document's group: the first document (in file order, A before B) with the same
    words; a document with no word is its own group."""
    n = counts.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    doc = np.repeat(np.arange(n), counts)
    position = np.arange(codes.size) - np.repeat(starts, counts)
    with np.errstate(over="ignore"):
        terms = mix64(codes.astype(np.uint64) * np.uint64(0x100000001B3)
                    + position.astype(np.uint64))  # fmt: skip
        h1 = np.zeros(n, dtype=np.uint64)
        h2 = np.zeros(n, dtype=np.uint64)
        np.add.at(h1, doc, terms)
        np.add.at(h2, doc, mix64(terms ^ np.uint64(0x5EED)))
    order = np.lexsort((np.arange(n), h2, h1, counts))
    new = np.r_[True, (np.diff(counts[order]) != 0) | (h1[order][1:] != h1[order][:-1])
                | (h2[order][1:] != h2[order][:-1])]  # fmt: skip
    first = np.empty(n, dtype=np.int64)
    first[order] = order[np.maximum.accumulate(np.where(new, np.arange(n), 0))]
    # Exact check, word by word, against the group's first document.
    differs = np.zeros(n, dtype=bool)
    mismatch = np.flatnonzero(codes[ranges(starts, counts)] != codes[ranges(starts[first],
                                                                             counts)])
    differs[doc[mismatch]] = True
    group = np.where(differs | (counts == 0), np.arange(n), first)
    return group


@dataclass(frozen=True)
class _Docs:
    """Both sides' documents: ids, side, exact group and word count, A's first."""

    ids: list[str]
    is_a: npt.NDArray[np.bool_]
    group: IntArray
    counts: IntArray

    def members(self) -> tuple[IntArray, IntArray]:
        """Every document sorted by group (file order within), and each group's offsets."""
        order = np.lexsort((np.arange(self.group.size), self.group))
        offsets = np.searchsorted(self.group[order], np.arange(self.group.size + 1))
        return order, offsets

    def listed(self, order: IntArray, offsets: IntArray, g: int, side_a: bool) -> tuple:
        chosen = order[offsets[g] : offsets[g + 1]]
        chosen = chosen[self.is_a[chosen] == side_a]
        return tuple(self.ids[i] for i in chosen.tolist())


def _exact_pairs(docs: _Docs) -> list[OverlapPair]:
    """One exact pair per group holding documents of both sides (texts with words)."""
    n = docs.group.size
    has_a = np.bincount(docs.group, weights=docs.is_a, minlength=n) > 0
    has_b = np.bincount(docs.group, weights=~docs.is_a, minlength=n) > 0
    both = np.flatnonzero(has_a & has_b & (docs.counts > 0))
    if not both.size:
        return []
    order, offsets = docs.members()
    out = []
    for g in both.tolist():  # one per group found: the report lists each
        shingles = max(int(docs.counts[g]) - GRAM + 1, 0)
        out.append(OverlapPair("exact", docs.listed(order, offsets, g, True),
                               docs.listed(order, offsets, g, False), 1.0, shingles,
                               shingles))  # fmt: skip
    return out


def _shingles(codes: IntArray, starts: IntArray, counts: IntArray, reps: IntArray
              ) -> tuple[IntArray, npt.NDArray[np.uint64]]:
    """The word 3-grams of the documents ``reps``: whose each is (an index into ``reps``)
    and its key. The key is exact (three word numbers in one integer) when the vocabulary
    allows it, else a 64-bit hash of them."""
    lengths = counts[reps]
    words = codes[ranges(starts[reps], lengths)]
    at = gram_starts(lengths)
    owner = np.repeat(np.arange(reps.size), np.maximum(lengths - GRAM + 1, 0))
    w1, w2, w3 = (words[at + i].astype(np.uint64) for i in range(GRAM))
    vocabulary = int(codes.max()) + 1 if codes.size else 1
    with np.errstate(over="ignore"):
        if vocabulary < 1 << 21:  # three numbers of 21 bits: one exact 63-bit key
            key = (w1 << np.uint64(42)) | (w2 << np.uint64(21)) | w3
        else:
            key = mix64(mix64(mix64(w1) ^ w2) ^ w3)
    return owner, key


def _near_pairs(docs: _Docs, codes: IntArray, starts: IntArray, threshold: float, seed: int
                ) -> tuple[list[OverlapPair], int]:
    """Near pairs between groups (one representative each), verified exactly."""
    n = docs.group.size
    reps = np.flatnonzero((docs.group == np.arange(n)) & (docs.counts >= GRAM))
    if not reps.size:
        return [], 0
    has_a = np.bincount(docs.group, weights=docs.is_a, minlength=n)[reps] > 0
    has_b = np.bincount(docs.group, weights=~docs.is_a, minlength=n)[reps] > 0
    if not (has_a.any() and has_b.any()):
        return [], 0
    owner, key = _shingles(codes, starts, docs.counts, reps)
    found = candidates(signatures(owner, key, reps.size, seed), has_a, has_b, threshold)
    if not found.first.size:
        return [], found.starred
    first, second, shared, union = _verified(owner, key, reps.size, found.first,
                                             found.second)  # fmt: skip
    jaccard = shared / np.maximum(union, 1)
    keep = np.flatnonzero(jaccard >= threshold - 1e-12)
    keep = keep[np.lexsort((reps[first[keep]], -jaccard[keep]))]
    order, offsets = docs.members()
    out = []
    for i in keep.tolist():  # the pairs found: the report lists each
        ga, gb = int(reps[first[i]]), int(reps[second[i]])
        out.append(OverlapPair("near", docs.listed(order, offsets, ga, True),
                               docs.listed(order, offsets, gb, False), float(jaccard[i]),
                               int(shared[i]), int(union[i])))  # fmt: skip
    return out, found.starred


def _verified(owner: IntArray, key: npt.NDArray[np.uint64], n: int, first: IntArray,
              second: IntArray) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The exact shared and union counts of each candidate pair's shingle sets."""
    # The distinct shingles of each document of a candidate pair, sorted: CSR by document.
    involved = np.zeros(n, dtype=bool)
    involved[first] = True
    involved[second] = True
    kept = involved[owner]
    owner, key = owner[kept], key[kept]
    order = np.lexsort((key, owner))
    owner, key = owner[order], key[order]
    distinct = np.r_[True, (owner[1:] != owner[:-1]) | (key[1:] != key[:-1])]
    owner, key = owner[distinct], key[distinct]
    offsets = np.searchsorted(owner, np.arange(n + 1))
    sizes = np.diff(offsets)
    shared = np.zeros(first.size, dtype=np.int64)
    cost = sizes[first] + sizes[second]
    bounds = np.searchsorted(np.cumsum(cost), np.arange(0, int(cost.sum()) + _ROUND, _ROUND))
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if hi <= lo:
            continue
        pair = np.arange(lo, hi)
        f, s = first[lo:hi], second[lo:hi]
        tag = np.r_[np.repeat(pair, sizes[f]), np.repeat(pair, sizes[s])]
        values = np.r_[key[ranges(offsets[f], sizes[f])], key[ranges(offsets[s], sizes[s])]]
        both = np.lexsort((values, tag))
        tag, values = tag[both], values[both]
        same = (tag[1:] == tag[:-1]) & (values[1:] == values[:-1])
        shared[lo:hi] = np.bincount(tag[1:][same] - lo, minlength=hi - lo)
    union = sizes[first] + sizes[second] - shared
    return first, second, shared, union

