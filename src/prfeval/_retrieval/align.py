"""The aligner: a block of whole queries in, a :class:`~prfeval._core.ranking.JudgedRanking` out.

Every path to a judged ranking goes through :func:`assemble`: files read whole, streamed
blocks, dicts, DataFrames, Arrow tables and ranked lists. It reads an
:class:`~prfeval._retrieval.encode.EncodedBlock` (ids already codes, each row already joined with
its judgment; :mod:`prfeval._retrieval.encode`) and

1. puts the rows in rank order (:mod:`prfeval._retrieval.ordering`), ordering tied documents only
   where the measures that will read the ranking can tell (its :class:`RankingNeeds`);
2. marks each repeat of a document after its best-ranked place, and applies the duplicates
   policy, ``-M`` (max results) and then ``-J`` (judged only), as trec_eval orders them;
3. builds the CSR layout of the ranking and of the judgments, and the query accounting.

Nothing loops over queries or documents in Python.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Literal, overload

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import offsets_of
from prfeval._core.options import EvalOptions
from prfeval._core.ranking import UNJUDGED, JudgedRanking, QueryAccounting, RankingNeeds
from prfeval._retrieval.encode import EncodedBlock
from prfeval._retrieval.ordering import rank_order, ranked_in_query_order
from prfeval._retrieval.subtopics import single_subtopic_view, subtopic_view

__all__ = ["assemble"]

IntArray = npt.NDArray[np.int64]


def _present(
    present: npt.NDArray[np.bool_] | None, options: EvalOptions
) -> npt.NDArray[np.bool_] | None:
    """Which queries count as having results. trec_eval 10.0's ``-c`` ranks one unjudged
    placeholder document for a judged query without results, which ``-J`` removes: such a
    query is then an empty ranking of the run, as one whose results ``-J`` all removed."""
    if present is not None and options.trec_eval_version >= 10 and options.unjudged == "drop":
        return None
    return present


def assemble(enc: EncodedBlock, options: EvalOptions, needs: RankingNeeds) -> JudgedRanking:
    """Rank, apply the duplicates, ``-M`` and ``-J`` policies, and build the CSR layout."""
    order = options.order or enc.default_order
    has_ids = enc.doc_vocab is not None
    in_order = (
        order == "file" and enc.rank_rows is None and not enc.unevaluated_rows
        and (enc.slot_offsets is not None or _grouped(enc.slot))
    )
    ranked: IntArray | None  # the rows in rank order; None: every row, as they are
    if in_order:
        # Rows already in rank order, query after query (a run array): taken as they are,
        # without a copy of each column, nor of the row numbers (``ranked`` is ``None``:
        # every row, in order).
        ranked, valid = None, _ranked(enc, order, options, needs, has_ids, rows=False)[1]
        pos_q, pos_d, found, grades = enc.slot, enc.doc, enc.found, enc.grade
    else:
        if order == "score" and enc.rank_rows is not None:
            # The compiled pass ordered every query while it read the run (on its threads):
            # every rank is exact, ties of one grade too.
            rows = ranked_in_query_order(enc.rank_rows, enc.slot, enc.query_code)
            valid = (
                RankingNeeds.everything()
                if enc.tie_ranks is None and has_ids
                else RankingNeeds(
                    None, doc_ids=has_ids, exact_depth=needs.exact_depth, subtopics=True
                )
            )
        else:
            rows, valid = _ranked(enc, order, options, needs, has_ids)
        pos_q = enc.slot[rows]
        if enc.unevaluated_rows:  # some of the run's queries are not evaluated: drop them
            kept = pos_q >= 0
            rows, pos_q = rows[kept], pos_q[kept]
        pos_d = enc.doc[rows]
        found = None if enc.found is None else enc.found[rows]
        grades = enc.grade[rows]
        ranked = rows
    if found is None:  # no flag given (a run array's join): the grade says it
        found = grades != UNJUDGED
    n_out = enc.n_slots

    # A repeated document counts at its best-ranked place: the later places are repeats.
    repeat = np.zeros(pos_q.size, dtype=bool)
    candidates = np.flatnonzero(enc.repeated if in_order else enc.repeated[ranked])
    if candidates.size:
        rows = candidates if ranked is None else ranked[candidates]
        keys = enc.query_code[rows] * np.int64(enc.n_docs) + enc.doc[rows]
        by_key_then_rank = np.lexsort((candidates, keys))
        later = np.flatnonzero(np.diff(keys[by_key_then_rank]) == 0) + 1
        repeat[candidates[by_key_then_rank[later]]] = True
    n_duplicates = int(repeat.sum())
    if in_order and enc.slot_offsets is not None:
        offsets = enc.slot_offsets
    else:
        offsets = offsets_of(pos_q, n_out)
    if n_duplicates and options.duplicates == "error":
        at = np.flatnonzero(repeat)
        if options.max_results is not None:  # as trec_eval: only within the top -M
            at = at[at - offsets[pos_q[at]] < options.max_results]
        if at.size:
            row = int(at[0] if ranked is None else ranked[at[0]])
            raise enc.row_error(row, "document {doc} repeated for query {query}")
    # The rows kept (``None``: every row, without an array saying so).
    keep = ~repeat if options.duplicates == "first" else None

    # Counts per query from where the rows of the rarer side of a mask fall among the
    # queries' bounds (each query's rows are together): no copy of the rows it picks.
    bounds = offsets.copy()

    def count_in(mask: npt.NDArray[np.bool_]) -> IntArray:
        return np.diff(np.searchsorted(np.flatnonzero(mask), bounds)).astype(np.int64)

    def per_query(mask: npt.NDArray[np.bool_]) -> IntArray:
        if 2 * np.count_nonzero(mask) > mask.size:
            return np.diff(bounds) - count_in(~mask)
        return count_in(mask)

    zeros = np.zeros(n_out, dtype=np.int64)
    counts = {"duplicates": per_query(repeat) if n_duplicates else zeros}
    counts["truncated"] = zeros
    if options.max_results is not None:
        rank0 = np.arange(pos_q.size) - offsets[pos_q]
        within = rank0 < options.max_results
        if not within.all():
            counts["truncated"] = per_query(~within)
        keep = within if keep is None else keep & within

    counts["dropped_unjudged"] = zeros
    if options.unjudged == "drop":
        # trec_eval -J keeps documents judged with a grade >= 0: a negative grade counts as
        # "not judged" there (it marks pool documents left unjudged).
        judged_here = found & (grades >= 0)
        dropped = ~judged_here if keep is None else keep & ~judged_here
        counts["dropped_unjudged"] = per_query(dropped)
        keep = judged_here if keep is None else keep & judged_here
    # With every row kept, the unjudged ones are counted from the judged ones (the fewer).
    counts["unjudged_retrieved"] = (
        np.diff(bounds) - per_query(found) if keep is None else per_query(keep & ~found)
    )
    counts["assumed_relevant"] = zeros
    counts["repeated_judgments"] = (
        zeros if enc.repeated_judgments is None else enc.repeated_judgments
    )

    if keep is not None and not keep.all():
        pos_q, pos_d, grades, ranked, repeat = (
            pos_q[keep],
            pos_d[keep],
            grades[keep],
            np.flatnonzero(keep) if ranked is None else ranked[keep],
            repeat[keep],
        )
        offsets = offsets_of(pos_q, n_out)

    accounting = QueryAccounting(
        evaluated=n_out,
        missing_from_run=enc.missing_from_run,
        not_in_qrels=enc.not_in_qrels,
        complete=options.complete,
        duplicates=int(counts["duplicates"].sum()),
        unjudged_retrieved=int(counts["unjudged_retrieved"].sum()),
        dropped_unjudged=int(counts["dropped_unjudged"].sum()),
        truncated=int(counts["truncated"].sum()),
        assumed_relevant=int(counts["assumed_relevant"].sum()),
        repeated_judgments=int(counts["repeated_judgments"].sum()),
    )
    # Repeats among the judgments of queries not evaluated count too: they were read.
    accounting = replace(accounting, repeated_judgments=enc.repeated_judgments_total)
    # The per-subtopic view is built when a diversity measure first reads it; judgments
    # without subtopics are one subtopic per query.
    join = enc.subtopics
    if join is not None and ranked is None:
        ranked = np.arange(pos_q.size, dtype=np.int64)
    view = (
        single_subtopic_view
        if join is None or ranked is None  # (ranked is set when join is)
        else partial(subtopic_view, join, ranked)
    )
    ranking = JudgedRanking(
        query_ids=enc.query_ids,
        offsets=offsets,
        grades=grades.astype(np.int64, copy=False),
        first=~repeat,
        doc_codes=pos_d,
        scores=None if enc.scores is None else enc.scores if ranked is None else enc.scores[ranked],
        judged_offsets=enc.judged_offsets,
        judged_grades=enc.judged_grades,
        judged_doc_codes=enc.judged_docs,
        doc_vocab=enc.doc_vocab,
        accounting=accounting,
        needs=valid,
        query_counts=counts,
        order=order,
        present=_present(enc.present, options),
        run_source=enc.run_source,
        trec_eval_version=options.trec_eval_version,
        subtopic_view=view,
    )
    if options.unjudged == "relevant":
        return ranking.assuming_relevant(options.assumed_grade)
    return ranking


def _grouped(slot: IntArray) -> bool:
    """Whether ``slot`` never decreases: a stable sort by query then keeps every row where
    it is."""
    return bool(slot.size < 2 or (slot[1:] >= slot[:-1]).all())


@overload
def _ranked(
    enc: EncodedBlock, order: str, options: EvalOptions, needs: RankingNeeds, has_ids: bool,
    *, rows: Literal[True] = True,
) -> tuple[IntArray, RankingNeeds]: ...
@overload
def _ranked(
    enc: EncodedBlock, order: str, options: EvalOptions, needs: RankingNeeds, has_ids: bool,
    *, rows: Literal[False],
) -> tuple[None, RankingNeeds]: ...
def _ranked(
    enc: EncodedBlock, order: str, options: EvalOptions, needs: RankingNeeds, has_ids: bool,
    *, rows: bool = True,
) -> tuple[IntArray | None, RankingNeeds]:
    """The rows in rank order (see :func:`~prfeval._retrieval.ordering.rank_order`), tied
    documents ordered only where ``needs`` can tell, and what the order is valid for
    (``rows=False``: only what it would be valid for, the rows being in order already)."""
    # Ties need ordering only at the cutoffs read, unless rows move up the ranking (-J,
    # duplicates=first), which shifts every later cutoff.
    cutoffs: set[int] | None = None
    if needs.cutoffs is not None and options.unjudged != "drop" and options.duplicates != "first":
        cutoffs = {*needs.cutoffs, *([] if options.max_results is None else [options.max_results])}
    exact_docs = enc.tie_ranks is None
    # Documents with no positive grade are interchangeable in a tie for most readers; not at
    # levels below 1, nor where -M cuts a tie that -J then thins (how many survive shows),
    # nor when unjudged documents are to be taken as relevant.
    alike = (
        needs.nonrelevant_alike
        and options.level >= 1
        and options.unjudged != "relevant"
        and not (options.unjudged == "drop" and options.max_results is not None)
    )
    # (Ties exist only in score order: no other order reads the classes.)
    tie_grades = np.maximum(enc.grade, 0) if alike and order == "score" else enc.grade
    # The exact documents of the top ranks: the tie groups beginning there are all sorted;
    # every group when rows are then removed (-J, duplicates=first), which moves ranks up.
    exact_depth = 0 if exact_docs else needs.exact_depth
    if exact_depth and (options.unjudged == "drop" or options.duplicates == "first"):
        exact_depth = -1
    if needs.subtopics and not exact_docs:
        # Documents of one grade may differ in their subtopics: every tie in id order.
        exact_depth = -1
    scores = enc.scores
    if rows and scores is not None and options.trec_eval_version == 9:
        # trec_eval 9 keeps scores as C floats: scores equal in single precision tie (and
        # scores beyond its range are infinite, as there).
        with np.errstate(over="ignore"):
            scores = scores.astype(np.float32)
    ranked = None if not rows else rank_order(
        order,
        enc.slot,
        enc.doc,
        enc.n_docs,
        enc.query_code,
        scores=scores,
        ranks=enc.ranks,
        name=enc.name,
        tie_ranks=enc.tie_ranks,
        tie_class=None if exact_depth < 0 else (tie_grades, enc.repeated),
        cutoffs=cutoffs,
        exact_depth=max(exact_depth, 0),
    )
    if exact_docs and has_ids:
        return ranked, RankingNeeds.everything()
    return ranked, RankingNeeds(
        None if cutoffs is None else frozenset(cutoffs),
        doc_ids=has_ids,
        nonrelevant_alike=alike,
        exact_depth=needs.exact_depth if exact_depth else 0,
        # Tied documents of one grade differ only by their subtopics, if they have any.
        subtopics=needs.subtopics or exact_docs or enc.subtopics is None,
    )
