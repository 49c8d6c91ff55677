"""BM25 rankings of a document collection, in the configuration the demo uses on Cranfield.

This module needs the optional ``demo`` extra (``bm25s`` and ``PyStemmer``); both are imported
inside the functions that use them, so ``import prfeval`` never loads them.

The configuration gives the demo's numbers for Cranfield (query 2: 5 relevant in the
top 9, recall 0.5 first reached at rank 173, 783 documents scored; all 225 queries: mean
P_10 = 0.2342, mean recall_100 = 0.7373 with trec_eval). Each of the first four points below
was checked to matter: indexing ``.W`` alone, keeping digits out of tokens, dropping the stop
list or stemming with Porter2 each changes those numbers.

* indexed text: a document's title, a space, then its text (``.T`` + ``.W``; Cranfield's
  ``.W`` repeats the title, so title words count twice); authors and source are not indexed;
* tokens: the lowercased text split on every character outside ``[a-z0-9]``, so digits and
  one-letter tokens are kept;
* stop words: Lucene's 33-word English list (:data:`LUCENE_ENGLISH_STOPWORDS`, the same as
  bm25s's ``"en"`` list), removed before stemming; it keeps ``"what"``;
* stemming: Porter's original algorithm (PyStemmer's ``"porter"``, not ``"english"``);
* scoring: BM25 with Lucene's idf and tf normalisation (bm25s ``method="lucene"``), k1 = 1.2,
  b = 0.75, exact document lengths, scores in float32 as bm25s computes them;
* a query term that occurs twice in the query counts twice (its contribution is added once
  per occurrence, as Lucene does for a repeated clause); de-duplicating query terms gives
  mean P_10 = 0.2333 and recall_100 = 0.7345 instead.

The tie order (see :class:`Bm25Index`) and float32 versus float64 scores do not change these
numbers. Reading the collection matters too: Cranfield's repeated field markers must be
concatenated (:mod:`prfeval._demo.datasets.smart`), or recall 0.5 arrives at rank 172.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import InputFormatError
from prfeval._core.extras import require
from prfeval._io.atomic import write_atomic

if TYPE_CHECKING:
    from prfeval._demo.datasets.smart import Document, Query

__all__ = [
    "LUCENE_ENGLISH_STOPWORDS",
    "Bm25Index",
    "Ranking",
    "count_scored",
    "rank_bm25",
    "run_scores",
    "tie_order",
    "tokenize",
    "write_run",
]

#: One query's ranking: ``(doc_id, score)`` pairs, best first.
Ranking = list[tuple[str, float]]

#: Lucene's ``EnglishAnalyzer`` stop words (33 words); bm25s's ``"en"`` list is the same.
LUCENE_ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    }
)

_WORD = re.compile(r"[a-z0-9]+")


def _stemmer() -> Any:
    stemmer = require("Stemmer", "demo", "the demo's BM25 (PyStemmer)")
    return stemmer.Stemmer("porter")


def tokenize(text: str, *, stemmer: Any = None) -> list[str]:
    """Split text into the index terms BM25 sees.

    Parameters
    ----------
    text
        Any text.
    stemmer
        A PyStemmer ``Stemmer`` to reuse; by default a Porter stemmer is created.

    Returns
    -------
    list of str
        Lowercased runs of ``[a-z0-9]``, without :data:`LUCENE_ENGLISH_STOPWORDS`, each
        stemmed with Porter's algorithm, in text order (repeats kept).

    Examples
    --------
    >>> tokenize("What are the structural and aeroelastic problems?")
    ['what', 'structur', 'aeroelast', 'problem']
    """
    stemmer = _stemmer() if stemmer is None else stemmer
    words = [word for word in _WORD.findall(text.lower()) if word not in LUCENE_ENGLISH_STOPWORDS]
    return stemmer.stemWords(words)


def tie_order(doc_ids: Sequence[str]) -> npt.NDArray[np.intp]:
    """Position of each document in doc id order: numeric if every id is a decimal integer,
    else by code point."""
    if all(doc_id.isdecimal() for doc_id in doc_ids):
        keys: npt.NDArray[Any] = np.array([int(doc_id) for doc_id in doc_ids], dtype=object)
    else:
        keys = np.array(doc_ids, dtype=object)
    order = np.argsort(keys, kind="stable")
    position = np.empty(len(doc_ids), dtype=np.intp)
    position[order] = np.arange(len(doc_ids))
    return position


class Bm25Index:
    """A BM25 index over a list of documents, ranking every document for a query.

    Parameters
    ----------
    documents
        The collection. Indexed text is ``title + " " + text`` (see the module docstring).
    k1, b
        BM25's term-frequency saturation and length normalisation.

    Raises
    ------
    ValueError
        If two documents share an id.

    Notes
    -----
    With ``N`` documents, ``df`` the number containing term t, ``tf`` its count in document
    d, ``|d|`` the document's length in terms and ``avgdl`` the mean length (empty documents
    included), the score is

    .. math::

        s(q, d) = \\sum_{t \\in q} \\ln\\left(1 + \\frac{N - df + 0.5}{df + 0.5}\\right)
                  \\frac{tf}{tf + k_1 (1 - b + b\\,|d| / avgdl)}

    summed once per occurrence of t in the query. Lengths are exact, not Lucene's one-byte
    approximation. A document sharing no term with the query scores exactly 0; since
    Lucene's idf is always positive, every other document scores more than 0.

    Ranking order: score descending, then doc id ascending, numerically when every doc id
    is a decimal integer (Cranfield: 1 < 2 < 10) and by code point otherwise. Documents that
    score 0 therefore come last, in doc id order. On Cranfield the choice of tie rule does
    not change the demo's numbers; it is fixed so that results never depend on input order.
    """

    def __init__(self, documents: Sequence[Document], *, k1: float = 1.2, b: float = 0.75):
        bm25s = require("bm25s", "demo", "the demo's BM25")
        if not (math.isfinite(k1) and k1 >= 0):
            raise ValueError(f"k1 must be a finite number >= 0, got {k1}")
        if not 0 <= b <= 1:
            raise ValueError(f"b must be between 0 and 1, got {b}")
        self.k1 = k1
        self.b = b
        self.doc_ids: tuple[str, ...] = tuple(document.doc_id for document in documents)
        if len(set(self.doc_ids)) != len(self.doc_ids):
            raise ValueError("document ids must be unique")
        self._ids = np.array(self.doc_ids, dtype=object)
        self._tie_position = tie_order(self.doc_ids)
        self._stemmer = _stemmer()
        corpus = [
            tokenize(f"{document.title} {document.text}", stemmer=self._stemmer)
            for document in documents
        ]
        self._bm25 = bm25s.BM25(method="lucene", k1=k1, b=b)
        self._bm25.index(corpus, show_progress=False)

    def scores(self, query: str) -> npt.NDArray[np.float32]:
        """BM25 score of every document for ``query``, in document order (float32)."""
        term_ids = self._bm25.get_tokens_ids(tokenize(query, stemmer=self._stemmer))
        if not term_ids:
            # no query term occurs in the collection: every document scores 0
            return np.zeros(len(self.doc_ids), dtype=np.float32)
        return np.asarray(self._bm25.get_scores_from_ids(term_ids), dtype=np.float32)

    def rank(self, query: str) -> Ranking:
        """Every document for ``query``, best first, as ``(doc_id, score)`` pairs.

        Scores are the float32 BM25 scores as Python floats written with the shortest
        decimal that identifies the float32 (``12.505251``, not ``12.505250930786133``);
        this keeps their order and ties. See the class notes for the order.
        """
        scores = self.scores(query)
        order = np.lexsort((self._tie_position, -scores))
        # float32 -> shortest decimal string -> float64: readable, order- and tie-preserving
        values = scores[order].astype(str).astype(np.float64)
        return list(zip(self._ids[order].tolist(), values.tolist(), strict=True))


def rank_bm25(
    documents: Sequence[Document],
    queries: Sequence[Query],
    *,
    k1: float = 1.2,
    b: float = 0.75,
) -> dict[str, Ranking]:
    """Rank every document for every query with BM25.

    Parameters
    ----------
    documents
        The collection (for example ``load_cranfield().documents``).
    queries
        The queries; their ``qid`` keys the result.
    k1, b
        BM25 parameters; the defaults are Lucene's (and the demo's).

    Returns
    -------
    dict
        ``{qid: [(doc_id, score), ...]}``, each list holding all documents, best first:
        score descending, ties by doc id ascending (numeric for numeric ids), documents with
        no query term (score 0) last. See :class:`Bm25Index` for the formula.

    Examples
    --------
    >>> from prfeval._demo.datasets import load_cranfield
    >>> cran = load_cranfield()
    >>> ranking = rank_bm25(cran.documents, cran.queries)
    >>> ranking["2"][:3]
    [('12', 12.505251), ('746', 8.382021), ('51', 7.1761703)]
    >>> count_scored(ranking)["2"]
    783
    """
    index = Bm25Index(documents, k1=k1, b=b)
    return {query.qid: index.rank(query.text) for query in queries}


def count_scored(ranking: Mapping[str, Ranking]) -> dict[str, int]:
    """Number of documents with a positive score, per query.

    For BM25 these are the documents sharing at least one term with the query; the rest
    of the ranking (score 0) is in doc id order and carries no retrieval signal.
    """
    return {qid: sum(score > 0 for _, score in docs) for qid, docs in ranking.items()}


def run_scores(scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Make a best-first score list strictly decreasing without changing its order.

    trec_eval and every tool following it re-sort a run by score, breaking ties by doc id
    in *descending* byte order, which would undo a ranking's own tie order. Writing strictly
    decreasing scores makes the file's order the evaluated order.

    Parameters
    ----------
    scores
        Non-increasing scores, best first.

    Returns
    -------
    numpy.ndarray of float64
        For each run of ``m`` equal scores ``v`` followed by a lower score ``v'``, the j-th
        member (j = 0, ..., m - 1) gets ``v - j (v - v') / m``; the members of the last run
        get ``v - j``. The first member of each run keeps its exact score, so a unique score
        is unchanged; ties are spread evenly over the gap below them; BM25's zero-scored
        documents, which always form the last run, get ``0, -1, -2, ...``.

    Raises
    ------
    ValueError
        If the scores increase somewhere, are not finite, or two are too close for float64
        to separate: m tied scores need a gap below them of more than about m * 2**-52 of
        their size. :func:`rank_bm25`'s scores, float32 values with 8 or 9 significant
        digits, are never that close.

    Examples
    --------
    >>> run_scores([3.0, 2.0, 2.0, 1.0, 0.0, 0.0]).tolist()
    [3.0, 2.0, 1.5, 1.0, 0.0, -1.0]
    """
    values = np.asarray(scores, dtype=np.float64)
    if values.size == 0:
        return values
    if not np.all(np.isfinite(values)):
        raise ValueError("scores must be finite")
    if np.any(np.diff(values) > 0):
        raise ValueError("scores must be in non-increasing order (best first)")
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    sizes = np.diff(np.r_[starts, values.size])
    heads = values[starts]
    # the last run has no lower neighbour: give it a gap of m, i.e. steps of exactly 1
    below = np.r_[heads[1:], heads[-1] - sizes[-1]]
    group = np.repeat(np.arange(starts.size), sizes)
    offset = np.arange(values.size) - starts[group]
    spread = heads[group] - offset * (heads[group] - below[group]) / sizes[group]
    if np.any(np.diff(spread) >= 0):
        raise ValueError("scores too close together to make strictly decreasing")
    return spread


def write_run(
    path: str | os.PathLike[str],
    ranking: Mapping[str, Ranking],
    *,
    tag: str = "prfeval-bm25",
) -> int:
    """Write rankings as a TREC run file: ``qid Q0 doc_id rank score tag``, one a line.

    Parameters
    ----------
    path
        File to write (overwritten).
    ranking
        ``{qid: [(doc_id, score), ...]}``, best first, as :func:`rank_bm25` returns.
    tag
        The run name in the last column; no whitespace.

    Returns
    -------
    int
        The number of lines written.

    Raises
    ------
    InputFormatError
        If a query's scores increase somewhere or cannot be separated (see
        :func:`run_scores`).
    ValueError
        If the tag or an id is empty or contains whitespace.

    Notes
    -----
    Rank is 1-based. The score column is :func:`run_scores` of the ranking's scores, written
    as the shortest decimal that reads back as the same float64: it is the BM25 score where
    that is unique, and strictly decreasing throughout. So trec_eval's own ordering (score
    descending, ties by doc id descending) evaluates exactly the order given here.
    """
    if re.fullmatch(r"\S+", tag) is None:
        raise ValueError(f"run tag {tag!r} is empty or contains whitespace")
    lines: list[str] = []
    for qid, docs in ranking.items():
        if re.fullmatch(r"\S+", qid) is None:
            raise ValueError(f"query id {qid!r} is empty or contains whitespace")
        doc_ids = [doc_id for doc_id, _ in docs]
        if any(re.fullmatch(r"\S+", doc_id) is None for doc_id in doc_ids):
            raise ValueError(f"query {qid}: a doc id is empty or contains whitespace")
        try:
            written = run_scores([score for _, score in docs]).tolist()
        except ValueError as exc:
            raise InputFormatError(str(exc), path=f"ranking of query {qid}") from None
        lines.extend(
            f"{qid} Q0 {doc_id} {rank} {score!r} {tag}\n"
            for rank, (doc_id, score) in enumerate(zip(doc_ids, written, strict=True), start=1)
        )
    write_atomic(path, "".join(lines))  # the one writer: a failure leaves no half file
    return len(lines)
