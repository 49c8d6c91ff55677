"""A block of whole queries as integer codes, joined with its judgments, in input order.

The aligner (:mod:`prfeval._retrieval.align`) ranks rows, applies the duplicates, ``-M`` and
``-J`` policies and builds the CSR layout: all of that reads integer codes, never ids. An
:class:`EncodedBlock` is what it reads, and there are two ways to make one:

* :func:`encode_tables` for columns read from files, DataFrames or Arrow: ids become codes with
  Arrow's dictionary encoding (one hash table for the run and its judgments), and each row's
  judgment is found by a ``searchsorted`` of (query, doc) keys in the sorted judgments;
* :func:`encode_dicts` for ``{qid: {docid: grade}}`` and ``{qid: {docid: score}}``: the dicts
  are already hash tables, so a row's judgment is one ``dict.get`` and the ids are never
  copied into Arrow, which is what makes the many small evaluations of a RAG loop fast.

Both give the same block for the same input (a test compares them); only the dict encoder's
document codes are positions, not ids, so its rankings serve the measures but not the readers
of document ids (curves, explain).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrow import arrow_ints, arrow_strings
from prfeval._core.checks import max_results
from prfeval._core.codes import factorize, ranks_by_doc_descending
from prfeval._core.encoded import EncodedBlock, SubtopicJoin
from prfeval._core.errors import InputFormatError
from prfeval._core.ids import ordered_ids, output_order_where
from prfeval._core.options import QrelsDuplicates
from prfeval._core.ranking import UNJUDGED
from prfeval._core.tables import Qrels, Run

__all__ = [
    "EncodedBlock",
    "SubtopicJoin",
    "check_query_sizes",
    "encode_dicts",
    "encode_tables",
]


def check_query_sizes(run: Run, codes: IntArray, vocab: Any) -> None:
    """Refuse a run one of whose queries has more than :func:`max_results` results, naming
    the query and the line where it passes the limit, before its ranking is built."""
    limit = max_results()
    if codes.size <= limit:
        return
    sizes = np.bincount(codes)
    biggest = int(sizes.argmax())
    if sizes[biggest] <= limit:
        return
    past = int(np.flatnonzero(codes == biggest)[limit])
    raise run.source.error(
        past,
        f"query {vocab[biggest].as_py()!r} has {int(sizes[biggest]):,} results, more than "
        f"the {limit:,} one query may have (each query is ranked in memory, about 250 bytes "
        "a result; PRFEVAL_MAX_QUERY_RESULTS raises the limit)",
    )

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


# --------------------------------------------------------------------------------------------
# From tables


def encode_tables(
    qrels: Qrels,
    run: Run,
    *,
    complete: bool = False,
    sorted_docs: bool = True,
    qrels_duplicates: QrelsDuplicates = "error",
    single_scores: bool = True,
) -> EncodedBlock:
    """Encode and join the columns of a run and its judgments.

    ``sorted_docs``: doc codes follow the byte order of the ids (sorting the vocabulary
    once), as curves and per-document reports need; otherwise codes follow first appearance
    and only tied documents are ever compared as strings (the measures need no more, and
    sorting strings is the slowest step of the join).

    ``qrels_duplicates``: a judgment repeated for one (query, document) is an error naming
    its line (``"error"``, as trec_eval), or counts once with its highest grade (``"max"``)
    or its last one in the file (``"last"``). This is where judgments are joined, for every
    path (files read whole, streamed blocks, DataFrames), so every path counts the same.

    A run read from lists is encoded by the compiled pass when it can
    (:func:`~prfeval._retrieval.encode_lists.encode_lists`: the same block, ranked too, its
    scores compared in single precision when ``single_scores``, as trec_eval 9 does).
    """
    if "lists" in run.extra:  # a run read from lists (imported only then: a small start)
        from prfeval._retrieval.encode_lists import encode_lists

        listed = encode_lists(qrels, run, complete=complete, qrels_duplicates=qrels_duplicates,
                              single_scores=single_scores)
        if listed is not None:  # encoded by the compiled pass
            return listed
    empty_ids = arrow_strings(list(run.extra.get("empty_queries", ())))
    (run_q, qrels_q, empty_q), query_vocab = factorize(
        [run.query_ids, qrels.query_ids, empty_ids], runs=True, sort=False
    )
    check_query_sizes(run, run_q, query_vocab)
    (run_d, qrels_d), doc_vocab = factorize([run.doc_ids, qrels.doc_ids], sort=sorted_docs)
    n_q = len(query_vocab)
    n_d = max(len(doc_vocab), 1)

    # Judgments, sorted by (query, doc) key (stably: repeats of a key in file order), with
    # repeated keys resolved by the policy.
    qrels_key = qrels_q * n_d + qrels_d
    by_key = np.argsort(qrels_key, kind="stable")
    qrels_key = qrels_key[by_key]
    qrels_grades = qrels.grades[by_key]
    repeats = qrels_key[1:] == qrels_key[:-1]  # row i + 1 repeats row i
    repeated_per_code = np.zeros(n_q, dtype=np.int64)
    if repeats.any():
        if qrels_duplicates == "error":
            row = int(by_key[np.flatnonzero(repeats)[0] + 1])
            raise qrels.source.error(
                row,
                f"judgment repeated for query {qrels.query_ids[row].as_py()!r}, "
                f"doc {qrels.doc_ids[row].as_py()!r}: --qrels-duplicates max or last "
                "keeps one of them",
            )
        repeated_per_code = np.bincount(qrels_q[by_key[1:][repeats]], minlength=n_q)
        first = np.concatenate(([True], ~repeats))
        if qrels_duplicates == "max":
            best = np.maximum.reduceat(qrels_grades, np.flatnonzero(first))
            keep = first
        else:  # "last": the last of each run of equal keys
            keep = np.concatenate((~repeats, [True]))
        by_key, qrels_key = by_key[keep], qrels_key[keep]
        qrels_grades = best if qrels_duplicates == "max" else qrels_grades[keep]
    qrels_q_sorted = qrels_q[by_key]
    qrels_d_sorted = qrels_d[by_key]

    in_run = np.zeros(n_q, dtype=bool)
    in_run[run_q] = True
    in_run[empty_q] = True  # ranked nothing: present in the run, every measure 0
    judged = np.zeros(n_q, dtype=bool)
    judged[qrels_q] = True
    evaluate_q = judged if complete else judged & in_run

    # Output order of the evaluated queries (among themselves: a query that is not evaluated
    # does not decide whether they sort as numbers), and each query code's slot in it.
    out_codes = output_order_where(query_vocab, evaluate_q)
    slot = np.full(n_q, -1, dtype=np.int64)
    slot[out_codes] = np.arange(out_codes.size, dtype=np.int64)
    query_ids = np.array(query_vocab.take(arrow_ints(out_codes)).to_pylist(), dtype=object)

    def ids_where(mask: BoolArray) -> tuple[str, ...]:
        codes = output_order_where(query_vocab, mask)
        return tuple(query_vocab.take(arrow_ints(codes)).to_pylist())

    # Each row's judgment, and whether its document appears again in its query, found in
    # file order (before ranking, so that ranking knows which tied rows the measures can
    # tell apart). Only rows whose document is judged somewhere, or appears more than once,
    # are looked at: a few in a hundred in a typical run.
    run_key = run_q * n_d + run_d
    found, grade = _judgments_of(run_key, run_d, qrels_key, qrels_d_sorted, qrels_grades, n_d)
    repeated = np.zeros(run_key.size, dtype=bool)
    if not run.extra.get("distinct_docs"):  # a dict run cannot repeat a doc in a query
        repeated = _repeated(run_key, run_d, n_d)

    # Judgments of the evaluated queries, in slot order.
    judged_slot = slot[qrels_q_sorted]
    by_slot = np.argsort(judged_slot, kind="stable")
    by_slot = by_slot[judged_slot[by_slot] >= 0]
    judged_offsets = np.searchsorted(
        judged_slot[by_slot], np.arange(out_codes.size + 1), side="left"
    ).astype(np.int64)

    subtopics = None
    if qrels.subtopics is not None:
        judged_docs = qrels_d_sorted[by_slot]
        subtopics = SubtopicJoin(
            run_row=_judged_rows(run_key, qrels_key, by_key),
            judged_row=by_key[by_slot],
            judged_doc_order=(
                -judged_docs if sorted_docs else ranks_by_doc_descending(doc_vocab, judged_docs)
            ),
            judgments=qrels.subtopics,
        )

    def row_names(i: int) -> tuple[str, str]:
        return str(run.query_ids[i].as_py()), str(run.doc_ids[i].as_py())

    def row_error(i: int, template: str) -> InputFormatError:
        query, doc = row_names(i)
        return run.source.error(i, template.format(query=repr(query), doc=repr(doc)))

    return EncodedBlock(
        slot=slot[run_q],
        query_code=run_q,
        doc=run_d,
        n_docs=n_d,
        scores=run.scores,
        ranks=run.ranks,
        grade=grade,
        found=found,
        repeated=repeated,
        judged_offsets=judged_offsets,
        judged_grades=qrels_grades[by_slot],
        judged_docs=qrels_d_sorted[by_slot],
        query_ids=query_ids,
        missing_from_run=ids_where(judged & ~in_run),
        not_in_qrels=ids_where(in_run & ~judged),
        tie_ranks=None if sorted_docs else lambda codes: ranks_by_doc_descending(doc_vocab, codes),
        doc_vocab=doc_vocab,
        default_order=run.default_order,
        name=run.name,
        row_names=row_names,
        row_error=row_error,
        unevaluated_rows=bool((in_run & ~evaluate_q).any()),
        present=None if not complete else in_run[out_codes],
        run_source=run.extra.get("run_id") or run.name,
        repeated_judgments=repeated_per_code[out_codes],
        repeated_judgments_total=int(repeated_per_code.sum()),
        subtopics=subtopics,
    )


def _judged_rows(run_key: IntArray, qrels_key: IntArray, by_key: IntArray) -> IntArray:
    """For each run row, the row of the judgments holding its (query, doc), or -1.

    ``qrels_key`` is sorted (one key a row: subtopic judgments are one row per document),
    and ``by_key`` gives each of its entries' row in the judgments.
    """
    rows = np.full(run_key.size, -1, dtype=np.int64)
    if not qrels_key.size:
        return rows
    at = np.minimum(np.searchsorted(qrels_key, run_key), qrels_key.size - 1)
    hit = qrels_key[at] == run_key
    rows[hit] = by_key[at[hit]]
    return rows


def _judgments_of(
    run_key: IntArray,
    run_d: IntArray,
    qrels_key: IntArray,
    qrels_d: IntArray,
    qrels_grades: IntArray,
    n_d: int,
) -> tuple[BoolArray, IntArray]:
    """For each run row with key ``run_key``: whether it is judged, and its grade.

    ``qrels_key`` is sorted. Only rows whose document is judged for some query are searched.
    """
    found = np.zeros(run_key.size, dtype=bool)
    grades = np.full(run_key.size, UNJUDGED, dtype=np.int64)
    if not qrels_key.size:
        return found, grades
    judged_doc = np.zeros(n_d, dtype=bool)
    judged_doc[qrels_d] = True
    rows = np.flatnonzero(judged_doc[run_d])
    keys = run_key[rows]
    at = np.searchsorted(qrels_key, keys)
    np.minimum(at, qrels_key.size - 1, out=at)
    hit = qrels_key[at] == keys
    found[rows[hit]] = True
    grades[rows[hit]] = qrels_grades[at[hit]]
    return found, grades


def _repeated(run_key: IntArray, run_d: IntArray, n_d: int) -> BoolArray:
    """Rows whose (query, doc) key appears more than once.

    Only rows whose document appears more than once in the whole run can repeat a key, so
    only those are sorted.
    """
    repeated = np.zeros(run_key.size, dtype=bool)
    rows = np.flatnonzero(np.bincount(run_d, minlength=n_d)[run_d] > 1)
    if rows.size:
        keys = run_key[rows]
        by_key = np.argsort(keys, kind="stable")
        same = np.flatnonzero(keys[by_key][1:] == keys[by_key][:-1])
        repeated[rows[by_key[same]]] = True
        repeated[rows[by_key[same + 1]]] = True
    return repeated


# --------------------------------------------------------------------------------------------
# From dicts


def encode_dicts(
    qrels: Mapping[str, Mapping[str, Any]],
    run: Mapping[str, Mapping[str, Any]],
    *,
    complete: bool = False,
    wants: Callable[[str], bool] | None = None,
    name: str = "run",
) -> EncodedBlock | None:
    """The encoded block of plain dicts (:func:`prfeval._io.mapping.plain_dicts`), or ``None``
    when the table path must take them: a doc id that is not a string, a grade that is not
    an integer or a score that is not a finite number (the table path reports those with a
    clear message), or no judgments at all.

    ``wants(query_id)`` selects the query set. Only the rows of evaluated queries are
    encoded. Document codes are row positions (a dict cannot repeat a document in a query),
    so tied documents are compared as the strings they are.
    """

    def chosen(q: str) -> bool:
        return wants is None or wants(q)

    # A query with an empty dict of judgments has none: it is not judged (as in the table path).
    judged_ids = [q for q in qrels if chosen(q) and qrels[q]]
    if not any(qrels.values()):
        return None  # no judgments at all: the table path says so
    run_ids = [q for q in run if chosen(q)]
    judged_set, run_set = set(judged_ids), set(run_ids)
    evaluated = ordered_ids(judged_ids if complete else [q for q in judged_ids if q in run_set])
    empty: Mapping[str, Any] = {}
    rankings = [run.get(q, empty) for q in evaluated]
    judgments = [qrels[q] for q in evaluated]
    n_retrieved = np.fromiter(map(len, rankings), dtype=np.int64, count=len(rankings))
    if n_retrieved.size and n_retrieved.max() > max_results():
        big = int(n_retrieved.argmax())
        raise InputFormatError(
            f"query {evaluated[big]!r} has {int(n_retrieved[big]):,} results, more than the "
            f"{max_results():,} one query may have (PRFEVAL_MAX_QUERY_RESULTS raises the limit)",
            path="run",
        )
    n_judged = np.fromiter(map(len, judgments), dtype=np.int64, count=len(judgments))
    n = int(n_retrieved.sum())
    if "" in qrels or "" in run or any("" in j for j in judgments):
        return None  # an empty id: the table path names it
    try:
        docs = list(chain.from_iterable(rankings))
        if set(map(type, docs)) - {str} or "" in docs:  # faster than isinstance per id
            return None
        if {str, bytes} & set(map(type, chain.from_iterable(j.values() for j in judgments))):
            return None  # a grade given as text: the table path refuses it, by name
        # An id UTF-8 cannot write (a lone surrogate) is refused by the table path, by name.
        "".join(chain(qrels, run, docs, chain.from_iterable(judgments))).encode("utf-8")
        scores = np.fromiter(chain.from_iterable(r.values() for r in rankings), np.float64, n)
        grades = np.fromiter(
            chain.from_iterable(
                map(j.get, r, [UNJUDGED] * len(r)) for j, r in zip(judgments, rankings, strict=True)
            ),
            np.int64,
            n,
        )
        judged_grades = np.fromiter(
            chain.from_iterable(j.values() for j in judgments), np.float64, int(n_judged.sum())
        )
    except (TypeError, ValueError, OverflowError):  # UnicodeEncodeError is a ValueError
        return None
    if not np.all(np.isfinite(scores)) or not np.all(judged_grades == np.round(judged_grades)):
        return None
    if judged_grades.size and np.abs(judged_grades).max() >= 2.0**53:
        return None  # beyond float64's exact integers: the table path checks and reads them

    slots = np.repeat(np.arange(len(evaluated), dtype=np.int64), n_retrieved)
    judged_offsets = np.zeros(len(evaluated) + 1, dtype=np.int64)
    np.cumsum(n_judged, out=judged_offsets[1:])

    def tie_ranks(codes: IntArray) -> IntArray:
        # Python compares str by code point, which is UTF-8 byte order; sorted() is stable.
        tied = [docs[i] for i in codes.tolist()]
        order = sorted(range(len(tied)), key=tied.__getitem__, reverse=True)
        ranks = np.empty(len(tied), dtype=np.int64)
        ranks[np.array(order, dtype=np.int64)] = np.arange(len(tied), dtype=np.int64)
        return ranks

    def row_names(i: int) -> tuple[str, str]:
        return str(evaluated[int(slots[i])]), docs[i]

    def row_error(i: int, template: str) -> InputFormatError:
        query, doc = row_names(i)
        return InputFormatError(
            template.format(query=repr(query), doc=repr(doc)), path="run dict"
        )

    return EncodedBlock(
        slot=slots,
        query_code=slots,
        doc=np.arange(n, dtype=np.int64),
        n_docs=max(n, 1),
        scores=scores,
        ranks=None,
        grade=grades,
        found=grades != UNJUDGED,
        repeated=np.zeros(n, dtype=bool),  # a dict lists a document once per query
        judged_offsets=judged_offsets,
        judged_grades=judged_grades.astype(np.int64),
        judged_docs=np.zeros(judged_grades.size, dtype=np.int64),
        query_ids=np.array(evaluated, dtype=object),
        missing_from_run=ordered_ids(q for q in judged_ids if q not in run_set),
        not_in_qrels=ordered_ids(q for q in run_ids if q not in judged_set),
        tie_ranks=tie_ranks,
        doc_vocab=None,
        default_order="score",
        name=name,
        row_names=row_names,
        present=np.array([q in run_set for q in evaluated], dtype=bool) if complete else None,
        run_source=name,
        row_error=row_error,
    )

