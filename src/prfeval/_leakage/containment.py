"""Which eval items a corpus contains: word 3-gram containment, exact.

For an eval text ``q`` (an item's question, or its answer) and a corpus document ``d``, with
``G(x)`` the set of word 3-grams of ``x`` (:mod:`prfeval._leakage.words`)::

    containment(q, d) = |G(q) ∩ G(d)| / |G(q)|

the share of the question's 3-grams found in the document. It is not Jaccard's
``|G(q) ∩ G(d)| / |G(q) ∪ G(d)|``: a 12-word question copied into a 300-word document has a
Jaccard similarity near 0.03 and a containment of 1 (Broder 1997 defines both). A text
**leaks** when ``max_d containment(q, d) >= threshold``; its **best document** is the one
sharing the most 3-grams, the first in the corpus file among equals. An **item** leaks when
any of its checked fields does.

Edge cases, each counted in the result:

- a text of fewer than 3 words has no 3-gram: it is **short**, and not checked (a question
  of one or two words is in countless documents and says nothing about leakage);
- a text with no word at all (``""``, ``null``, only punctuation) is **empty**, not checked;
- a document's fields (``--corpus-field``) each give their own 3-grams, and the document's
  set is their union: no 3-gram spans two fields.

How it is computed, exactly and without a Python loop per 3-gram:

1. The items' words are numbered (an Arrow dictionary), and each item 3-gram gets an exact
   integer id from its three word numbers: no hashing, so no collision can make two 3-grams
   one, and no candidate needs checking against the strings afterwards.
2. The corpus is read a block at a time; each block's words are looked up among the items'
   words (Arrow's hash lookup, ``index_in``), and each position whose three words can stand
   there in some item 3-gram is looked up among the item 3-grams (``index_in`` again). Only
   the pairs (document, item 3-gram) are kept: an inverted index of the items' 3-grams, never
   of the whole corpus, so that rare and common 3-grams alike are all there.
3. Candidates by **prefix filtering** (Chaudhuri, Ganti and Kaushik 2006; Bayardo, Ma and
   Srikant 2007): a text of ``n`` distinct 3-grams leaks into ``d`` only if ``d`` shares at
   least ``m`` of them, ``m`` the least count with ``m / n >= threshold``; then ``d`` holds at
   least one of the text's ``n - m + 1`` rarest 3-grams (fewest documents). Only those
   3-grams' documents are candidates; each candidate's shared count is then completed over
   the text's other, commoner 3-grams by exact lookups. So a common 3-gram costs a lookup per
   candidate instead of a pass over its documents, and the count of every document that
   reaches ``m`` is exact: the leaks, their best documents and their containments are the
   exhaustive computation's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core import checks
from prfeval._core.arrays import offsets_of, ranges
from prfeval._core.errors import InputFormatError, UsageError
from prfeval._io.source import Source, display_name
from prfeval._leakage.records import read_records, record_blocks
from prfeval._leakage.words import GRAM, gram_starts, tokenise

__all__ = ["DEFAULT_THRESHOLD", "ROUND_SIZE", "FieldSummary", "Leak", "Leakage", "find_leaks"]

IntArray = npt.NDArray[np.int64]

#: The containment at which a text leaks, unless told otherwise.
DEFAULT_THRESHOLD = 0.6

#: About how many elements the work arrays of one round of candidate counting hold (a few
#: arrays of this many int64: some 100 MB); more texts than fit are counted in more rounds.
ROUND_SIZE = 1 << 22


@dataclass(frozen=True)
class Leak:
    """One eval text found in the corpus.

    Attributes
    ----------
    item_id, field
        The item (its ``_id`` or ``id``) and the field whose text leaks.
    doc_id
        The best document: the one sharing the most 3-grams (the first in the corpus
        file among equals).
    shared
        ``|G(q) ∩ G(d)|`` for that document.
    grams
        ``|G(q)|``, the text's distinct 3-grams.
    containment
        ``shared / grams``.
    item_line, doc_line
        Where the item and the document are in their files (1-based).
    """

    item_id: str
    field: str
    doc_id: str
    shared: int
    grams: int
    containment: float
    item_line: int
    doc_line: int


@dataclass(frozen=True)
class FieldSummary:
    """The texts of one item field: checked (3 words or more), short (1 or 2 words), empty
    (no word, or ``null``), and leaking."""

    field: str
    checked: int
    short: int
    empty: int
    leaking: int


@dataclass(frozen=True)
class Leakage:
    """The result of :func:`find_leaks`.

    Attributes
    ----------
    leaks
        Every leaking text, by containment (highest first), then in the items' file order,
        then in the order of ``fields``.
    fields
        One :class:`FieldSummary` per item field checked.
    corpus_fields
        The document fields whose 3-grams were read.
    threshold
        The containment at which a text leaks.
    corpus, items
        The files' names.
    documents, n_items
        How many documents and items the files hold.
    """

    leaks: tuple[Leak, ...]
    fields: tuple[FieldSummary, ...]
    corpus_fields: tuple[str, ...]
    threshold: float
    corpus: str
    items: str
    documents: int
    n_items: int

    @property
    def leaking_items(self) -> int:
        """Items with at least one leaking text."""
        return len({leak.item_id for leak in self.leaks})

    @property
    def texts_checked(self) -> int:
        return sum(f.checked for f in self.fields)

    @property
    def short(self) -> int:
        return sum(f.short for f in self.fields)

    @property
    def empty(self) -> int:
        return sum(f.empty for f in self.fields)

    def to_dict(self) -> dict[str, Any]:
        """Everything, as plain JSON-ready values."""
        return {
            "method": "word 3-gram containment, exact",
            "gram": GRAM,
            "threshold": self.threshold,
            "corpus": self.corpus,
            "items": self.items,
            "corpus_fields": list(self.corpus_fields),
            "fields": [f.field for f in self.fields],
            "documents": self.documents,
            "items_checked": self.n_items,
            "texts_checked": self.texts_checked,
            "leaking_items": self.leaking_items,
            "leaking_texts": len(self.leaks),
            "skipped_short": self.short,
            "skipped_empty": self.empty,
            "by_field": [vars(f) for f in self.fields],
            "leaks": [vars(leak) for leak in self.leaks],
        }


def _field_names(name: str, value: Any) -> tuple[str, ...]:
    """Field names: one string, or a non-empty collection of distinct strings."""
    names = (value,) if isinstance(value, str) else value
    if not isinstance(names, Sequence) or not names:
        raise UsageError(f"{name} must be a field name or a list of them, got {value!r}")
    for field in names:
        if not isinstance(field, str) or not field:
            raise UsageError(f"{name} must hold non-empty strings, got {field!r}")
    repeated = sorted({f for f in names if list(names).count(f) > 1})
    if repeated:
        raise UsageError(f"{name}: {repeated[0]!r} is given twice")
    return tuple(names)


def _least_shared(n: IntArray, threshold: float) -> IntArray:
    """For each count ``n >= 1`` of 3-grams, the least ``m`` with ``m / n >= threshold``,
    as the containment itself is computed (so a text leaks exactly when it shares ``m``).

    ``ceil(threshold * n)`` is off by one where the product rounds past an integer:
    ``0.28 * 25`` is ``7.000000000000001``, yet ``7 / 25`` is ``0.28``; one step each way
    puts it right.
    """
    size = n.astype(np.float64)
    m = np.clip(np.ceil(threshold * size), 1, size)
    lower = (m > 1) & ((m - 1) / size >= threshold)
    m[lower] -= 1
    m[m / size < threshold] += 1
    return m.astype(np.int64)


@dataclass(frozen=True)
class _ItemGrams:
    """The items' words and 3-grams, numbered.

    ``pair_keys`` are the sorted distinct ``a * V + b`` of the 3-grams' first two words,
    ``gram_keys`` the sorted distinct ``pair * V + c``: a 3-gram's id is its place there.
    ``text_of`` and ``gram_of`` list each text's distinct 3-grams (sorted by text).
    ``places[k][w]`` says whether word ``w`` is the ``k``-th word of some item 3-gram (its
    last entry, for the corpus words no item has, is False).
    """

    vocabulary: Any
    pair_keys: IntArray
    gram_keys: IntArray
    text_of: IntArray
    gram_of: IntArray
    places: tuple[npt.NDArray[np.bool_], ...]

    @property
    def size(self) -> int:
        return len(self.vocabulary)


def _item_grams(texts: list[str | None]) -> tuple[_ItemGrams, IntArray]:
    """The items' 3-grams, and each text's word count."""
    tokens = tokenise(texts)
    encoded = tokens.words.dictionary_encode()
    codes = np.asarray(encoded.indices, dtype=np.int64)
    size = len(encoded.dictionary)
    starts = gram_starts(tokens.counts)
    text = np.repeat(np.arange(len(texts), dtype=np.int64), tokens.counts)[starts]
    # In int64: a * V + b < V², and pair * V + c < (item words) * V.
    pair_keys, pair = np.unique(codes[starts] * size + codes[starts + 1], return_inverse=True)
    gram_keys, gram = np.unique(pair * size + codes[starts + 2], return_inverse=True)
    n_grams = max(len(gram_keys), 1)
    distinct = np.unique(text * n_grams + gram)
    places = []
    for k in range(GRAM):
        place = np.zeros(size + 1, dtype=bool)
        place[codes[starts + k]] = True
        places.append(place)
    grams = _ItemGrams(
        encoded.dictionary, pair_keys, gram_keys, distinct // n_grams, distinct % n_grams,
        tuple(places),
    )  # fmt: skip
    return grams, tokens.counts


def _lookup(keys: IntArray, sorted_keys: IntArray) -> IntArray:
    """The place of each key in ``sorted_keys``, or -1 where it is not there (Arrow's hash
    lookup: quicker than a binary search for the corpus's many keys into the items' few)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not sorted_keys.size or not keys.size:
        return np.full(keys.size, -1, dtype=np.int64)
    found = pc.index_in(pa.array(keys), value_set=pa.array(sorted_keys))
    return np.asarray(found.fill_null(-1), dtype=np.int64)


def _document_grams(texts: list[str | None], fields: int, items: _ItemGrams) -> IntArray:
    """The distinct ``document * G + gram`` of a block's documents (numbered from 0 in the
    block) for every item 3-gram ``gram`` they hold; ``G`` the number of item 3-grams."""
    import pyarrow.compute as pc

    tokens = tokenise(texts)
    size, n_grams = items.size, len(items.gram_keys)
    codes = np.asarray(
        pc.index_in(tokens.words, value_set=items.vocabulary).fill_null(-1), dtype=np.int64
    )
    starts = gram_starts(tokens.counts)
    first, second, third = codes[starts], codes[starts + 1], codes[starts + 2]
    # Only positions whose words can stand where they are in some item 3-gram are looked up
    # (-1, a word no item has, reads the tables' last entry: False).
    start, middle, end = items.places
    known = start[first] & middle[second] & end[third]
    starts = starts[known]
    pair = _lookup(first[known] * size + second[known], items.pair_keys)
    held = pair >= 0
    gram = _lookup(pair[held] * size + third[known][held], items.gram_keys)
    found = gram >= 0
    text = np.repeat(np.arange(len(texts), dtype=np.int64), tokens.counts)[starts[held][found]]
    return np.unique(text // fields * n_grams + gram[found])


def _held(keys: IntArray, sorted_keys: IntArray) -> npt.NDArray[np.bool_]:
    """Whether each key is in ``sorted_keys`` (a binary search: the index's keys are sorted
    already, and too many to build a hash table of in every round)."""
    if not sorted_keys.size:
        return np.zeros(keys.size, dtype=bool)
    place = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return sorted_keys[place] == keys


@dataclass(frozen=True)
class _Index:
    """Which documents hold each item 3-gram: ``docs[offsets[g] : offsets[g + 1]]``, and
    the sorted ``gram * D + doc`` keys for lookups."""

    offsets: IntArray
    docs: IntArray
    keys: IntArray
    documents: int

    @property
    def frequency(self) -> IntArray:
        return np.diff(self.offsets)


def _first_of_each_kind(pairs: IntArray, n_grams: int,
                        weights: npt.NDArray[np.uint64] | None = None) -> IntArray:
    """The sorted ``document * G + gram`` pairs of the documents that hold a set of item
    3-grams no earlier document holds: the first document of each set.

    Two documents holding the same item 3-grams share as many with every text, so the later
    one is never a text's best document (the first in the file among equals). Dropping them
    keeps repeated text near linear (a template copied into every document, the same
    document many times), where counting every (text, document) pair was quadratic. The
    sets are grouped by their size and two random 64-bit sums, then compared exactly: a
    document whose sums collide with another set's is kept, so the result stays exact.
    """
    if not pairs.size:
        return pairs
    doc, gram = pairs // n_grams, pairs % n_grams
    starts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]])
    counts = np.diff(np.r_[starts, doc.size])
    if weights is None:  # a fixed seed: the same grouping on every run
        rng = np.random.default_rng(0x5EED)
        weights = rng.integers(0, 2**63, size=(2, n_grams), dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        h1 = np.add.reduceat(weights[0][gram], starts)
        h2 = np.add.reduceat(weights[1][gram], starts)
    order = np.lexsort((starts, h2, h1, counts))  # groups together, first document first
    new_group = np.r_[True, (np.diff(counts[order]) != 0) | (np.diff(h1[order]) != 0)
                      | (np.diff(h2[order]) != 0)]
    first = np.empty(starts.size, dtype=np.int64)
    first[order] = order[np.maximum.accumulate(np.where(new_group, np.arange(order.size), 0))]
    # Exact check: each document's 3-grams against its group's first document's.
    lengths = counts
    mine = gram[ranges(starts, lengths)]
    theirs = gram[ranges(starts[first], lengths)]
    differs = np.zeros(starts.size, dtype=bool)
    mismatch = np.flatnonzero(mine != theirs)
    differs[np.repeat(np.arange(starts.size), lengths)[mismatch]] = True
    keep = (first == np.arange(starts.size)) | differs
    return pairs[np.repeat(keep, counts)]


def _index(blocks: list[IntArray], n_grams: int, documents: int) -> _Index:
    pairs = np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.int64)
    doc, gram = pairs // max(n_grams, 1), pairs % max(n_grams, 1)
    order = np.argsort(gram, kind="stable")  # the pairs are in document order already
    doc, gram = doc[order], gram[order]
    return _Index(offsets_of(gram, n_grams), doc, gram * documents + doc, documents)


def _best_documents(
    grams: _ItemGrams, index: _Index, least: IntArray, n: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """(text, best document, shared 3-grams) of every leaking text, by prefix filtering
    (see the module's notes), a round of texts at a time."""
    n_texts = n.size
    frequency = index.frequency
    text, gram = grams.text_of, grams.gram_of
    # Each text's 3-grams from the rarest; the first n - m + 1 are its prefix.
    order = np.lexsort((gram, frequency[gram], text))
    text, gram = text[order], gram[order]
    first = np.searchsorted(text, np.arange(n_texts))
    rank = np.arange(text.size) - first[text]
    in_prefix = rank < (n - least + 1)[text]
    pre_text, pre_gram = text[in_prefix], gram[in_prefix]
    suf_text, suf_gram = text[~in_prefix], gram[~in_prefix]
    suf_first = np.searchsorted(suf_text, np.arange(n_texts))
    suf_count = np.bincount(suf_text, minlength=n_texts)
    # The work of each text: its candidates' postings, and a lookup per candidate and
    # suffix 3-gram; texts are taken in rounds of about ROUND_SIZE elements.
    expanded = np.bincount(pre_text, weights=frequency[pre_gram], minlength=n_texts)
    cost = expanded * (1 + suf_count)
    rounds = (np.cumsum(cost) - cost) // ROUND_SIZE
    found: list[tuple[IntArray, IntArray, IntArray]] = []
    documents = index.documents
    for r in np.unique(rounds[cost > 0]):
        begin, end = np.searchsorted(rounds, [r, r + 1])  # the round's texts
        lo, hi = np.searchsorted(pre_text, [begin, end])
        t, g = pre_text[lo:hi], pre_gram[lo:hi]
        lengths = frequency[g]
        docs = index.docs[ranges(index.offsets[g], lengths)]
        candidates, prefix_count = np.unique(
            np.repeat(t, lengths) * documents + docs, return_counts=True
        )
        cand_text, cand_doc = candidates // documents, candidates % documents
        lengths = suf_count[cand_text]
        which = np.repeat(np.arange(candidates.size), lengths)
        keys = suf_gram[ranges(suf_first[cand_text], lengths)] * documents + cand_doc[which]
        hits = np.bincount(which[_held(keys, index.keys)], minlength=candidates.size)
        shared = prefix_count + hits
        best = np.lexsort((cand_doc, -shared, cand_text))
        best = best[np.r_[True, cand_text[best][1:] != cand_text[best][:-1]]]
        leaking = best[shared[best] >= least[cand_text[best]]]
        found.append((cand_text[leaking], cand_doc[leaking], shared[leaking]))
    if not found:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    texts, docs, counts = (np.concatenate(parts) for parts in zip(*found, strict=True))
    return texts, docs, counts


def find_leaks(
    corpus: Source,
    items: Source,
    *,
    fields: str | Sequence[str] = ("text",),
    corpus_fields: str | Sequence[str] = ("text",),
    threshold: float = DEFAULT_THRESHOLD,
    progress: Callable[[int, int], None] | None = None,
) -> Leakage:
    """The eval texts whose word 3-grams a corpus document contains (see the module's notes).

    Parameters
    ----------
    corpus
        JSON Lines of documents (BEIR's ``corpus.jsonl``), gzip or not
        (:mod:`prfeval._leakage.records`).
    items
        JSON Lines of eval items (BEIR's ``queries.jsonl``, or questions with answers).
    fields
        The item fields to check, each on its own (default ``text``, BEIR's question).
    corpus_fields
        The document fields to read 3-grams from (default ``text``; add ``title`` for
        BEIR's titles). A document's 3-grams are the union of its fields'.
    threshold
        A text leaks when its containment in some document is at least this, in (0, 1].
    progress
        Called with (corpus lines read, corpus lines) as the corpus is read.

    Returns
    -------
    Leakage
        The leaks, with each text's best document, its shared 3-grams and containment, and
        the counts of texts checked, short and empty.

    Examples
    --------
    >>> corpus = b'{"_id": "d1", "text": "Where is the Eiffel tower, in Paris?"}\\n'
    >>> items = b'{"_id": "q1", "text": "where is the eiffel tower"}\\n'
    >>> leak, = find_leaks(corpus, items).leaks
    >>> leak.doc_id, leak.shared, leak.grams, leak.containment
    ('d1', 3, 3, 1.0)
    """
    threshold = checks.number("threshold", threshold, above=0, maximum=1)
    fields = _field_names("fields", fields)
    corpus_fields = _field_names("corpus_fields", corpus_fields)
    read = read_records(items, fields)
    grams, word_counts = _item_grams(read.texts)
    n_grams = len(grams.gram_keys)
    blocks: list[IntArray] = []
    doc_ids: list[str] = []
    doc_lines: list[int] = []
    for block in record_blocks(corpus, corpus_fields):
        if n_grams and block.ids:
            pairs = _document_grams(block.texts, len(corpus_fields), grams)
            base = len(doc_ids)  # the block's documents, numbered on from the previous ones
            blocks.append(pairs + base * n_grams)
        doc_ids += block.ids
        doc_lines += block.lines
        if progress is not None:
            progress(block.lines_done, block.lines_total)
    if not read.ids:  # a gate that checked nothing must not pass
        raise InputFormatError("no eval items in the file: nothing to check for leakage",
                               path=display_name(items))
    if not doc_ids:
        raise InputFormatError("no documents in the corpus: nothing to check against",
                               path=display_name(corpus))
    n_texts = len(read.texts)
    n = np.bincount(grams.text_of, minlength=n_texts)
    leaks: list[Leak] = []
    if n_grams and doc_ids:
        pairs = _first_of_each_kind(np.concatenate(blocks) if blocks else np.zeros(0, np.int64),
                                    n_grams)
        index = _index([pairs], n_grams, len(doc_ids))
        least = _least_shared(np.maximum(n, 1), threshold)
        texts, docs, shared = _best_documents(grams, index, least, n)
        # By containment, highest first; then in the items' order and the fields' (a text's
        # index is item * len(fields) + field, so its order is both).
        order = sorted(range(texts.size), key=lambda i: (-shared[i] / n[texts[i]], texts[i]))
        for i in order:
            t, d, s = int(texts[i]), int(docs[i]), int(shared[i])
            item, field = divmod(t, len(fields))
            leaks.append(
                Leak(read.ids[item], fields[field], doc_ids[d], s, int(n[t]), s / int(n[t]),
                     read.lines[item], doc_lines[d])
            )  # fmt: skip
    counts = word_counts.reshape(-1, len(fields)) if n_texts else np.zeros((0, len(fields)))
    summaries = tuple(
        FieldSummary(
            field,
            checked=int((counts[:, f] >= GRAM).sum()),
            short=int(((counts[:, f] > 0) & (counts[:, f] < GRAM)).sum()),
            empty=int((counts[:, f] == 0).sum()),
            leaking=sum(1 for k in leaks if k.field == field),
        )
        for f, field in enumerate(fields)
    )
    return Leakage(
        tuple(leaks),
        summaries,
        corpus_fields,
        threshold,
        display_name(corpus),
        display_name(items),
        len(doc_ids),
        len(read.ids),
    )
