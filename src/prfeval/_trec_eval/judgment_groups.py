"""Evaluate a run against judgments in judgment groups (trec_eval's ``-R qrels_jg``).

Each (query, judgment group) pair is measured as a query of its own, against that group's
judgments, by the ordinary pipeline; each query's value is then the mean over its groups,
added in the groups' byte order and divided by their number (trec_eval 9.0.8's
``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``). The run's ranking of a query is the same
for every group: only its judgments differ.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from prfeval._core.aggregate import assemble
from prfeval._core.partials import Partial
from prfeval._core.tables import Qrels, Run
from prfeval._io.load import load_run
from prfeval._retrieval.evaluate import Evaluation, evaluate
from prfeval._trec_eval.qrels_jg import JudgmentGroups, judgment_groups_from_dict, read_qrels_jg

__all__ = ["evaluate_judgment_groups", "load_judgment_groups"]


def load_judgment_groups(source: Any) -> JudgmentGroups:
    """Judgment groups from a qrels_jg file (``qid jg docid grade``), from
    ``{qid: {jg: {docid: grade}}}``, or as given."""
    if isinstance(source, JudgmentGroups):
        return source
    if isinstance(source, Mapping):
        return judgment_groups_from_dict(dict(source))
    return read_qrels_jg(str(source))


def evaluate_judgment_groups(
    qrels: Any, run: Any, measures: Any = None, **options: Any
) -> Evaluation:
    """Evaluate ``run`` against judgments in judgment groups, averaging over each query's
    groups.

    Parameters
    ----------
    qrels
        A qrels_jg file path (``qid jg docid grade``), ``{qid: {jg: {docid: grade}}}`` or
        :class:`~prfeval._trec_eval.qrels_jg.JudgmentGroups`.
    run
        Any run :func:`~prfeval._retrieval.evaluate.evaluate` reads.
    measures
        Any measures; the ones meant for this are ``map_avgjg``, ``P_avgjg`` and
        ``Rprec_mult_avgjg`` (``APAvgJG``, ``PAvgJG@k``, ``RprecMultAvgJG@r``).
    options
        As for :func:`~prfeval._retrieval.evaluate.evaluate` (``complete`` counts the judged
        queries without results as 0, ``level``, ``judged_only``, ``max_results`` ...).

    Returns
    -------
    Evaluation
        One value per query: the mean over its groups of each group's value. ``micro`` and
        ``f_of_means`` are empty (pooling counts over groups has no meaning here).

    Notes
    -----
    ``map_avgjg(q) = (1/G_q) sum over groups g of AP_g(q)``, AP_g computed with g's judgments
    alone (``-J`` drops the documents g has not judged); likewise P@k and precision at
    ``floor(r R_g + 0.9)``. A group with no relevant document adds 0, and still counts in G_q.

    Examples
    --------
    >>> e = evaluate_judgment_groups(
    ...     {"q": {"a": {"d1": 1}, "b": {"d2": 1}}}, {"q": {"d1": 2.0, "d2": 1.0}}, "map_avgjg"
    ... )
    >>> e.macro["map_avgjg"]
    0.75
    """
    groups = load_judgment_groups(qrels)
    table = load_run(run, name=getattr(run, "run_name", None))  # trec_eval's runid
    pairs, pair_of_row = groups.pairs()
    judged = sorted({q for q, _ in pairs}, key=lambda q: q.encode("utf-8", "surrogateescape"))
    code_of = {q: i for i, q in enumerate(judged)}
    pair_query = np.array([code_of[q] for q, _ in pairs], dtype=np.int64)

    # The run's rows of each judged query, repeated once per group of that query.
    run_ids = table.query_ids.cast(pa.string())
    codes = pc.index_in(run_ids, value_set=pa.array(judged, pa.string()))
    valid = ~np.asarray(codes.is_null(), dtype=bool)
    row_code = np.asarray(codes.fill_null(0), dtype=np.int64)
    rows = np.flatnonzero(valid)
    order = rows[np.argsort(row_code[rows], kind="stable")]
    per_query = np.bincount(row_code[rows], minlength=len(judged))
    first_row = np.cumsum(per_query) - per_query
    lengths = per_query[pair_query]
    starts = np.repeat(first_row[pair_query], lengths)
    within = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    gather = order[starts + within]
    pseudo_run = np.repeat(np.arange(len(pairs)), lengths).astype(str)
    expanded_run = Run(
        query_ids=pa.array(pseudo_run, pa.string()),
        doc_ids=table.doc_ids.take(pa.array(gather)),
        scores=None if table.scores is None else table.scores[gather],
        ranks=None if table.ranks is None else table.ranks[gather],
        default_order=table.default_order,
        name=table.name,
        extra=table.extra,
    )
    expanded_qrels = Qrels(
        query_ids=pa.array(pair_of_row.astype(str), pa.string()),
        doc_ids=groups.qrels.doc_ids,
        grades=groups.qrels.grades,
        source=groups.qrels.source,
    )
    e = evaluate(expanded_qrels, expanded_run, measures, **options)
    return _averaged(e, pair_query, judged, set(pc.unique(run_ids).to_pylist()))


def _averaged(
    e: Evaluation, pair_query: np.ndarray, judged: list[str], in_run: set[str]
) -> Evaluation:
    """``e`` (one column per (query, group) pair) averaged over each query's groups."""
    pair = np.array([int(q) for q in e.query_ids], dtype=np.int64)
    by_pair = np.argsort(pair, kind="stable")  # add the groups in their byte order
    pair = pair[by_pair]
    query = pair_query[pair]
    present, group_index = np.unique(query, return_inverse=True)
    n_groups = np.bincount(group_index, minlength=len(present)).astype(np.float64)
    values = np.empty((len(e.measures), len(present)))
    for j in range(len(e.measures)):
        total = np.bincount(group_index, weights=e.values[j][by_pair], minlength=len(present))
        # trec_eval divides only with more than one group: by 1 is the same.
        values[j] = total / n_groups
    query_ids = tuple(judged[c] for c in present)
    first = np.searchsorted(group_index, np.arange(len(present)))
    text = {
        label: tuple(column[by_pair[i]] for i in first) for label, column in e.text.items()
    }
    # trec_eval's summary of the per-query averages, by the one assembler.
    partial = Partial.of(e.measures, values, ids=query_ids)
    summaries = assemble(partial, trec_eval_queries=len(query_ids))
    macro = {str(m): s.macro for m, s in zip(e.measures, summaries, strict=True)}
    judged_set = set(judged)
    accounting = dataclasses.replace(
        e.accounting,
        evaluated=len(query_ids),
        missing_from_run=tuple(q for q in query_ids if q not in in_run),
        not_in_qrels=tuple(sorted(in_run - judged_set)),
    )
    return dataclasses.replace(
        e,
        query_ids=query_ids,
        values=values,
        macro=macro,
        micro={},
        f_of_means={},
        accounting=accounting,
        settings={**e.settings, "judgment_groups": True},
        coverage=None,
        upper=None,
        text=text,
    )
