"""``evaluate``: judgments and a run in, every requested measure out, each average labelled."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval.core import aggregate
from prfeval.core.errors import PrfevalWarning
from prfeval.core.ranking import JudgedRanking, QueryAccounting
from prfeval.core.tables import Order
from prfeval.measures import Measure, parse_measures, ranking_needs
from prfeval.retrieval.align import Duplicates
from prfeval.retrieval.kernel import MeasuredQueries, measure_queries
from prfeval.retrieval.prepare import describe_query_set, id_set, load_judgments, prepare

__all__ = ["Evaluation", "evaluate", "evaluate_ranking", "summarise"]


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`: per-query values and every average, labelled.

    Attributes
    ----------
    measures
        The measures, in the order asked; ``str(m)`` is the label as typed.
    query_ids
        The evaluated queries, in output order.
    values
        Array of shape (n_measures, n_queries): each measure's value for each query.
    macro
        Label -> mean over queries (the total, for counts such as NumRet).
    micro
        Label -> the measure of the counts pooled over all queries.
    f_of_means
        Label -> F_beta of the macro precision and macro recall at the same cutoff and level;
        only for F measures (for SetE, 1 minus it).
    accounting
        How many queries were evaluated and which were skipped, repeated or unjudged.
    settings
        The options used: relevance level, order, duplicates policy, and so on.
    """

    measures: tuple[Measure, ...]
    query_ids: tuple[str, ...]
    values: npt.NDArray[np.float64]
    macro: dict[str, float]
    micro: dict[str, float]
    f_of_means: dict[str, float]
    accounting: QueryAccounting
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        """The measures' labels, as the user typed them."""
        return [str(m) for m in self.measures]

    @property
    def per_query(self) -> dict[str, dict[str, float]]:
        """Query id -> label -> value."""
        labels = self.labels
        return {
            qid: dict(zip(labels, map(float, self.values[:, i]), strict=True))
            for i, qid in enumerate(self.query_ids)
        }

    def aggregation(self, label: str) -> str:
        """``"sum"`` for counts (reported as totals), ``"gmean"`` for geometric means,
        ``"mean"`` for everything else."""
        m = self.measures[self.labels.index(label)]
        return m.definition.aggregation

    def to_dict(self, *, per_query: bool = False) -> dict[str, Any]:
        """The JSON form: macro, micro, f_of_means, query accounting, settings."""
        out: dict[str, Any] = {}
        if per_query:
            out["per_query"] = self.per_query
        out.update(
            macro=dict(self.macro),
            micro=dict(self.micro),
            f_of_means=dict(self.f_of_means),
            queries=self.accounting.to_dict(),
            settings=dict(self.settings),
        )
        return out

    def to_frame(self) -> Any:
        """A pandas DataFrame in long format: ``query_id, measure, value``."""
        import pandas as pd

        n_q = len(self.query_ids)
        return pd.DataFrame(
            {
                "query_id": np.tile(np.array(self.query_ids, dtype=object), len(self.measures)),
                "measure": np.repeat(np.array(self.labels, dtype=object), n_q),
                "value": self.values.reshape(-1),
            }
        )

    def summary_frame(self) -> Any:
        """A pandas DataFrame with one row per measure and macro, micro, f_of_means columns."""
        import pandas as pd

        labels = self.labels
        return pd.DataFrame(
            {
                "measure": labels,
                "macro": [self.macro[x] for x in labels],
                "micro": [self.micro.get(x, np.nan) for x in labels],
                "f_of_means": [self.f_of_means.get(x, np.nan) for x in labels],
            }
        )


def summarise(
    measured: MeasuredQueries,
    accounting: QueryAccounting,
    settings: dict[str, Any],
) -> Evaluation:
    """Average per-query results into an :class:`Evaluation`: macro, micro and F of means."""
    macro, micro, f_of_means = {}, {}, {}
    for m, values, c in zip(measured.measures, measured.values, measured.counts, strict=True):
        label = str(m)
        s = aggregate.summarise(m, values, c)
        macro[label] = s.macro
        if s.micro is not None:
            micro[label] = s.micro
        if s.of_means is not None:
            f_of_means[label] = s.of_means
    return Evaluation(
        measures=measured.measures,
        query_ids=tuple(str(q) for q in measured.query_ids),
        values=measured.values,
        macro=macro,
        micro=micro,
        f_of_means=f_of_means,
        accounting=accounting,
        settings=settings,
    )


def evaluate_ranking(
    ranking: JudgedRanking,
    measures: Any = None,
    *,
    level: int = 1,
    collection_size: int | None = None,
    settings: dict[str, Any] | None = None,
) -> Evaluation:
    """Compute ``measures`` on an already aligned :class:`JudgedRanking`."""
    parsed = parse_measures(measures)
    measured = measure_queries(ranking, parsed, level=level, collection_size=collection_size)
    return summarise(
        measured,
        ranking.accounting,
        {"level": level, "collection_size": collection_size, **(settings or {})},
    )


def evaluate(
    qrels: Any,
    run: Any,
    measures: Any = None,
    *,
    level: int = 1,
    complete: bool = False,
    collection_size: int | None = None,
    judged_only: bool = False,
    max_results: int | None = None,
    order: Order | None = None,
    duplicates: Duplicates = "keep",
    queries: Collection[str] | None = None,
    exclude_queries: Collection[str] | None = None,
    stream: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    query_set: str | None = None,
) -> Evaluation:
    """Evaluate a run against judgments.

    Parameters
    ----------
    qrels
        Judgments: a TREC qrels path, a CSV/TSV/JSONL/Parquet path, a DataFrame, an Arrow table
        or ``{qid: {docid: grade}}``.
    run
        A TREC run path (``-`` for stdin), a tabular path, a DataFrame, an Arrow table,
        ``{qid: {docid: score}}`` or ranked lists ``{qid: [docid, ...]}``.
    measures
        Names such as ``"P@10 R@100 SetF(beta=2)"`` or trec_eval's (``P_10``, ``set_F``), a list
        of them, or ``None`` for the default set
        (:data:`~prfeval.measures.DEFAULT_MEASURES`).
    level
        Minimum grade that counts as relevant (trec_eval ``-l``); a measure's ``rel=``
        overrides it. Negative grades are judged non-relevant; unjudged documents are
        non-relevant.
    complete
        Average over every judged query, those without results scoring as an empty retrieved
        set (trec_eval ``-c``). By default, over queries in both run and judgments.
    collection_size
        Number of documents in the collection, N (trec_eval ``-N``); needed for TN and the
        measures built on it (Fallout, Specificity, Accuracy, ...).
    judged_only
        Drop unjudged documents from the rankings first (trec_eval ``-J``).
    max_results
        Keep the top ``max_results`` of each ranking (trec_eval ``-M``).
    order
        ``"score"`` (score descending, ties by doc id descending: trec_eval), ``"rank"`` or
        ``"file"``; the default is ``"score"`` for scored runs, ``"file"`` for ranked lists.
    duplicates
        A doc id repeated in one ranking: ``"keep"`` (takes a place each time, counts once as
        relevant: seed 002), ``"first"`` (later repeats removed) or ``"error"``.
    queries, exclude_queries
        Evaluate only these query ids / leave these out (a development or held-out set, see
        ``prfeval split``). Both sides are restricted before anything else.
    query_set
        How to name the query set in the result (e.g. the file the ids came from); by
        default it is described by its size.
    stream
        Read a TREC run file block by block in bounded memory (it must be grouped by query,
        as TREC runs are). ``None`` streams run files larger than 8 MiB. A run that cannot be
        streamed is read whole, with a :class:`~prfeval.core.errors.PrfevalWarning`. The numbers
        are the same either way, to the last digit.
    progress
        Called as ``progress(bytes_done, bytes_total)`` while a run is streamed.

    Returns
    -------
    Evaluation
        Per-query values, ``macro``, ``micro`` and ``f_of_means`` (label -> value), and the
        query accounting.

    Examples
    --------
    >>> qrels = {"A": {"d1": 1, "d2": 1, "d3": 0}}
    >>> run = {"A": {"d1": 3.0, "d3": 2.0, "d9": 1.0}}
    >>> e = evaluate(qrels, run, "P@2 R@2 SetF")
    >>> e.macro
    {'P@2': 0.5, 'R@2': 0.5, 'SetF': 0.4}
    """
    parsed = parse_measures(measures)
    if hasattr(qrels, "read"):
        qrels = load_judgments(qrels)  # a stream can be read once: read it now
    include, exclude = id_set(queries), id_set(exclude_queries)
    # A streamed run loads the judgments itself, into a compact index.
    streamed = _try_stream(
        qrels,
        run,
        parsed,
        stream,
        progress,
        level=level,
        complete=complete,
        collection_size=collection_size,
        judged_only=judged_only,
        max_results=max_results,
        order=order,
        duplicates=duplicates,
        queries=include,
        exclude_queries=exclude,
        query_set=query_set,
    )
    if streamed is not None:
        return streamed
    ranking, settings = prepare(
        qrels,
        run,
        queries=include,
        exclude_queries=exclude,
        query_set=query_set,
        order=order,
        duplicates=duplicates,
        judged_only=judged_only,
        max_results=max_results,
        complete=complete,
        doc_order="ties",  # the measures need only tied documents in doc id order
        cutoffs=ranking_needs(parsed).cutoffs,
    )
    return evaluate_ranking(
        ranking, parsed, level=level, collection_size=collection_size, settings=settings
    )


def _try_stream(
    qrels: Any,
    run: Any,
    parsed: list[Measure],
    stream: bool | None,
    progress: Callable[[int, int], None] | None,
    **options: Any,
) -> Evaluation | None:
    """Evaluate ``run`` block by block when asked to (or when it is big), else ``None``."""
    import os
    import warnings

    from prfeval.io.tabular import tabular_kind
    from prfeval.retrieval.stream import STREAM_THRESHOLD_BYTES, NotStreamable, evaluate_stream

    if stream is False or not isinstance(run, str | os.PathLike) or str(run) == "-":
        if stream:
            warnings.warn(
                "only a TREC run file can be streamed; reading it whole",
                PrfevalWarning,
                stacklevel=3,
            )
        return None
    path = os.fspath(run)
    if tabular_kind(str(path)) or not os.path.isfile(path):
        return None
    size = os.path.getsize(path)
    if size == 0 or (stream is None and size < STREAM_THRESHOLD_BYTES):
        return None  # an empty run has nothing to stream: the whole-file path says it is empty
    settings = {
        "complete": options["complete"],
        "judged_only": options["judged_only"],
        "max_results": options["max_results"],
        "order": options["order"] or "score",
        "duplicates": options["duplicates"],
        "run": str(path),
        "empty_run": False,
        "query_set": describe_query_set(
            options["queries"], options["exclude_queries"], options.pop("query_set")
        ),
    }
    try:
        return evaluate_stream(
            qrels, str(path), parsed, settings=settings, progress=progress, **options
        )
    except NotStreamable as exc:
        warnings.warn(f"{exc}; reading it whole instead", PrfevalWarning, stacklevel=3)
        return None
