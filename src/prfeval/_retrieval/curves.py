"""Curves: precision, recall and F_beta at every cutoff, per query and averaged.

Cutting a ranking at every depth k = 1, 2, ... traces the trade-off of precision and recall
(Manning, Raghavan and Schütze, 2008, §8.3): precision falls, recall climbs in steps, and
F_beta peaks at some k, the cutoff a system would use. Everything here is computed in one
vectorised pass over the CSR layout of a :class:`~prfeval._core.ranking.JudgedRanking`: the
cumulative sum of ``relevant & first`` over all positions, minus its value at each query's
start, is TP at every k for every query, and the contingency table at each position is
``TP``, ``FP = k - TP``, ``FN = n_rel - TP``, from which :mod:`prfeval._core.counts` computes
precision, recall and F_beta. No Python loop touches documents; one loop over queries builds
the per-query result objects from slices of the flat arrays.

:func:`curve` runs on the pipeline (:mod:`prfeval._retrieval.pipeline`): a :class:`CurveSink`
takes the judged ranking of each block of queries, keeps each query's summary (its best
cutoff, where recall reaches a level, its interpolated precision) and, for the averages, sums
over queries at each k, so a large run is read in bounded memory. The per-query arrays are
kept only for the queries asked for (``keep``); by default, for every query. The sink is in
:mod:`prfeval._retrieval.curve_sink`, the result types in :mod:`prfeval._retrieval.curve_result`.

Conventions (the same as ``evaluate``'s P@k, R@k and F@k):

* a repeated document takes a place each time and counts once as relevant;
* precision at k divides by k; recall is 0 for a query with no relevant documents;
* each query's curve runs from k = 1 to the number it retrieved (at most ``max_k``); the
  averages run from k = 1 to ``max_k`` or, without it, to the longest ranking, a query
  with fewer than k documents keeping its last TP with its precision divided by k, exactly
  as trec_eval's ``P_k`` treats a short ranking;
* the best cutoff is the k with the highest F_beta, the smallest such k on ties (the fewest
  documents for the same F); it is k = 1 when F is 0 everywhere, and k = 0 (all values 0)
  for an empty curve.

Interpolated precision is trec_eval's ``iprec_at_recall``: see
:func:`~prfeval._measures.interpolated.iprec_at_recall`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Unpack

from prfeval._core.checks import flag, function, id_collection
from prfeval._core.options import EvalOptions, OptionValues
from prfeval._core.progress import ProgressSetting, check_progress, reporter
from prfeval._core.ranking import JudgedRanking, RankingNeeds
from prfeval._measures.interpolated import STANDARD_RECALL_LEVELS
from prfeval._retrieval.curve_options import CurveOptions
from prfeval._retrieval.curve_result import BlockRows, Curves
from prfeval._retrieval.curve_sink import CurveSink
from prfeval._retrieval.pipeline import run_pipeline

__all__ = ["curve", "curves_from_ranking"]


def curves_from_ranking(
    jr: JudgedRanking,
    options: CurveOptions | None = None,
    *,
    level: int = 1,
    collection_size: int | None = None,
    name: str = "run",
    settings: Mapping[str, Any] | None = None,
) -> Curves:
    """Curves of an already aligned :class:`~prfeval._core.ranking.JudgedRanking`.

    ``options`` are the curve's (:class:`CurveOptions`; ``None``: the defaults), the others
    those of :func:`curve` after loading and aligning; ``name`` labels the run and
    ``settings`` is recorded in the result. The ranking must hold every rank in doc
    id order (as :func:`prfeval._retrieval.align.align` builds it by default).
    """
    if not jr.needs.covers(RankingNeeds(None, doc_ids=True)):
        raise RuntimeError(f"curves read every rank and document id; this ranking has {jr.needs}")
    sink = CurveSink(options, level=level, collection_size=collection_size)
    sink.add(jr)
    return sink.result(name=name, accounting=jr.accounting, settings=settings or {})


def curve(
    qrels: Any,
    run: Any,
    *,
    beta: float = 1.0,
    max_k: int | None = None,
    recall_levels: Sequence[float] = (0.5,),
    iprec_levels: Sequence[float] = STANDARD_RECALL_LEVELS,
    keep: Collection[str] | None = None,
    on_rows: Callable[[BlockRows], None] | None = None,
    row_queries: Collection[str] | None = None,
    stream: bool | None = None,
    progress: ProgressSetting = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
) -> Curves:
    """Precision, recall and F_beta at every cutoff k, per query and averaged over queries.

    Parameters
    ----------
    qrels, run
        Judgments and a run, in any form :func:`prfeval.evaluate` accepts (paths, DataFrames,
        Arrow tables, ``{qid: {docid: grade}}``, ``{qid: {docid: score}}``, ranked lists).
    beta
        F weight, >= 0: recall counts beta times as much as precision.
    max_k
        Report cutoffs k = 1 .. max_k only. It does not shorten the ranking: recall levels,
        interpolated precision and the extras still read all of it (use ``max_results``,
        trec_eval ``-M``, to cut the ranking itself).
    recall_levels
        Levels in (0, 1] for ``recall_reached``: the first rank at which recall reaches each
        (BM25 on Cranfield query 2 first reaches recall 0.5 at rank 173, P = 0.069 there).
    iprec_levels
        Recall levels in [0, 1] of the interpolated precision (trec_eval's 11 by default).
    keep
        The queries whose per-query arrays to keep (``None``: every query). Every query's
        summary is kept whatever this says; on a large run, keeping none bounds the memory.
    on_rows, row_queries
        ``on_rows`` is called with each block's per-(query, k) rows of the queries in
        ``row_queries`` (``None``: every query), for writing every k of a large run without
        holding it.
    stream, progress
        As in :func:`prfeval.evaluate`: read a large TREC run in blocks, and show a progress
        bar (``None``: when stderr is a terminal or in a notebook; True, False, or a
        function called as ``progress(bytes_done, bytes_total)``).
    options, **option_values
        The evaluation options, as :func:`prfeval.evaluate` takes them: ``level``,
        ``complete``, ``order``, ``duplicates``, ``judged_only``, ``max_results``,
        ``queries``, ``exclude_queries``, ``query_set`` and ``collection_size`` (here N
        gives the no-skill line of a precision-recall plot, precision = n_rel / N).

    Returns
    -------
    Curves
        ``curves[qid]`` holds that query's arrays (``k``, ``precision``, ``recall``, ``f``,
        ``interpolated_precision``), ``best``, ``recall_reached``, ``n_scored``, the relevant
        documents never retrieved or retrieved only among unscored ones, and ``iprec``;
        ``curves.macro`` and ``curves.micro`` the averages at each k with their best cutoff.
        ``to_dict()`` is the JSON form, ``to_frame()`` a pandas view.

    Notes
    -----
    With TP(k) the relevant documents in the top k (first occurrences only), for each k::

        P(k) = TP(k) / k        R(k) = TP(k) / n_rel
        F_beta(k) = (1 + b^2) TP(k) / ((1 + b^2) TP(k) + b^2 FN(k) + FP(k))
                  = (1 + b^2) TP(k) / (b^2 n_rel + k)

    with FP(k) = k - TP(k) and FN(k) = n_rel - TP(k). Recall is 0 when n_rel = 0. A query's
    arrays run to the number of documents it retrieved (or ``max_k``). The macro average at k
    is the mean of P(k), R(k), F(k) over queries and the micro average P, R, F of the pooled
    counts, both for k = 1 .. ``max_k`` (or the longest ranking); a query shorter than k
    keeps its last TP and P(k) still divides by k, as trec_eval's ``P_k``, so the averages at
    k equal ``evaluate``'s macro and micro P@k, R@k and F@k. The best cutoff is the first k
    with the highest F (k = 1 if F is 0 throughout; k = 0 and zeros for an empty curve).

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    >>> run = {"q": ["a", "x", "b", "y", "z"]}
    >>> c = curve(qrels, run)
    >>> c["q"].precision.round(3).tolist()
    [1.0, 0.5, 0.667, 0.5, 0.4]
    >>> c["q"].best
    Cutoff(k=3, precision=0.6666666666666666, recall=0.6666666666666666, f=0.6666666666666666)
    >>> c["q"].recall_reached[0.5].k
    3
    """
    opts = EvalOptions.build(options, **option_values)
    # Every argument checked before any file is read.
    # (build: the levels may be any sequence, as the options' table says they are given.)
    curve_options = CurveOptions.build(
        beta=beta, max_k=max_k, recall_levels=recall_levels, iprec_levels=iprec_levels
    )
    keep = id_collection("keep", keep)
    on_rows = function("on_rows", on_rows)
    row_queries = id_collection("row_queries", row_queries)
    flag("stream", stream, optional=True)
    progress = check_progress(progress)
    with reporter(progress, "curve", unit="bytes") as report:
        sink, done = _curve_pass(qrels, run, opts, curve_options, keep, on_rows, row_queries,
                                 stream, report)
    return sink.result(name=done.run_name, accounting=done.accounting, settings=done.settings(opts))


def _curve_pass(qrels: Any, run: Any, opts: EvalOptions, curve_options: Any, keep: Any,
                on_rows: Any, row_queries: Any, stream: bool | None,
                progress: Callable[[int, int], None] | None) -> Any:
    """One pass of the pipeline into a :class:`CurveSink`."""
    return run_pipeline(
        qrels,
        run,
        opts,
        # Every rank's grade and the documents' ids; tie groups of one grade may keep file
        # order (sorting every block's ids is the slowest step): the lists of ids put their
        # few ids in order themselves.
        RankingNeeds(None, doc_ids=True),
        lambda: CurveSink(
            curve_options,
            level=opts.level,
            collection_size=opts.collection_size,
            keep=keep,
            on_rows=on_rows,
            row_queries=row_queries,
        ),
        stream=stream,
        progress=progress,
    )
