"""``evaluate``: judgments and a run in, every requested measure out, each average labelled."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import numpy.typing as npt

from prfeval._core import aggregate
from prfeval._core.checks import MAX_INTEGER, flag
from prfeval._core.display import Table, number, plural, skipped, table
from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions, OptionValues
from prfeval._core.partials import Partial
from prfeval._core.progress import ProgressSetting, check_progress, reporter
from prfeval._core.ranking import QueryAccounting, RankingNeeds
from prfeval._io.plan import is_array_run
from prfeval._measures import Measure, parse_measures, ranking_needs
from prfeval._retrieval.kernel import MeasuredQueries, check_measures
from prfeval._retrieval.pipeline import MeasureSink, PipelineRun, run_pipeline

if TYPE_CHECKING:  # imported where used: a TREC evaluation needs none of them
    from prfeval._core.frames import FrameKind
    from prfeval._io.judgments_digest import LazyDigest
    from prfeval._io.prefs import Preferences

__all__ = [
    "Coverage",
    "Evaluation",
    "EvaluationPlan",
    "coverage_measures",
    "coverage_of",
    "evaluate",
    "plan_evaluation",
    "summarise",
]

IntArray = npt.NDArray[np.int64]

#: Below this share of judged documents in the top k, a measure at k is flagged.
THIN_JUDGMENTS = 0.5


@dataclass(frozen=True)
class Coverage:
    """How much of the rankings the judgments cover, at the cutoffs the measures read.

    Attributes
    ----------
    cutoffs
        The k of the measures asked (P@10, R@100, ...), ascending.
    judged
        k -> the macro Judged@k: the mean over queries of the judged share of the first
        min(k, n) retrieved documents.
    unjudged
        k -> unjudged places in the top k, over all queries.
    per_query_unjudged
        k -> per query (in ``Evaluation.query_ids`` order), unjudged places in its top k.
    unjudged_retrieved
        Per query, unjudged places in the whole ranking.
    total_unjudged_retrieved
        Their total, when the per-query arrays are left empty because the per-query values
        stayed where they were computed (on Spark: ``to_evaluation(per_query=False)``);
        ``None``: the sum of ``unjudged_retrieved``.
    """

    cutoffs: tuple[int, ...]
    judged: dict[int, float]
    unjudged: dict[int, int]
    per_query_unjudged: dict[int, IntArray]
    unjudged_retrieved: IntArray
    total_unjudged_retrieved: int | None = None

    def thin(self, measures: tuple[Measure, ...], rule: str = "nonrelevant") -> list[str]:
        """One sentence naming the cutoffs whose top k is less than half judged, and the
        measures that read them; empty when every cutoff is judged well enough."""
        by_k: dict[int, list[str]] = {}
        for m in measures:
            share = self.judged.get(m.k) if m.k is not None else None
            if m.k is not None and share is not None and share < THIN_JUDGMENTS:
                by_k.setdefault(m.k, []).append(str(m))
        if not by_k:
            return []
        parts = ", ".join(
            f"{self.judged[k]:.0%} at k = {k} ({', '.join(labels)})"
            for k, labels in sorted(by_k.items())
        )
        counted = "relevant" if rule == "relevant" else "non-relevant"
        return [
            f"Less than half judged in the top k (macro Judged@k): {parts}. The unjudged "
            f"count as {counted} there; --bounds or prfeval explain shows what they hide."
        ]

    def to_dict(self, query_ids: tuple[str, ...], *, per_query: bool = False) -> dict[str, Any]:
        """The JSON form: per k, the macro Judged@k and the unjudged places (per query with
        ``per_query``), and the unjudged places of the whole rankings."""
        out: dict[str, Any] = {
            "judged_at": {str(k): self.judged[k] for k in self.cutoffs},
            "unjudged_at": {str(k): self.unjudged[k] for k in self.cutoffs},
            "unjudged_retrieved": (
                int(self.unjudged_retrieved.sum())
                if self.total_unjudged_retrieved is None
                else self.total_unjudged_retrieved
            ),
        }
        if per_query:
            out["per_query"] = {
                q: {
                    "unjudged_retrieved": int(self.unjudged_retrieved[i]),
                    **{
                        f"unjudged_at_{k}": int(self.per_query_unjudged[k][i])
                        for k in self.cutoffs
                    },
                }
                for i, q in enumerate(query_ids)
            }
        return out


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
    coverage
        How much of the top k the judgments cover, for the cutoffs of the measures asked.
    upper
        With ``bounds=True``: the same measures with every unjudged retrieved document taken
        as relevant (``e.upper.macro["P@10"]``). For measures whose declaration says
        ``bounded`` (precision at k, ...), the value with every unjudged document judged lies
        between the two; for the others (recall, ...) it is only the value under that
        assumption, since the relevant documents never retrieved are not all judged either.
    text_measures
        The measures whose values are text (trec_eval's runid and relstring), apart from
        ``measures`` so that ``values`` holds numbers only.
    text
        Label -> each query's text, in ``query_ids`` order.
    text_summary
        Label -> the text for the whole run (runid); relstring has none.
    judgments_digest
        The digest of what the judgments of the query set say (made when first asked
        for; saved as ``digests`` by :meth:`to_dict`), so that ``gate`` can tell a baseline
        measured with other judgments (:mod:`prfeval._io.judgments_digest`).
    """

    measures: tuple[Measure, ...]
    query_ids: tuple[str, ...]
    values: npt.NDArray[np.float64]
    macro: dict[str, float]
    micro: dict[str, float]
    f_of_means: dict[str, float]
    accounting: QueryAccounting
    settings: dict[str, Any] = field(default_factory=dict)
    coverage: Coverage | None = None
    upper: Evaluation | None = None

    def judged_at(self, label: str) -> float | None:
        """The macro Judged@k at the cutoff of the measure ``label``, if it has one."""
        m = self.measures[self.labels.index(label)]
        if self.coverage is None or m.k is None:
            return None
        return self.coverage.judged.get(m.k)
    text_measures: tuple[Measure, ...] = ()
    text: dict[str, tuple[str, ...]] = field(default_factory=dict)
    text_summary: dict[str, str] = field(default_factory=dict)
    judgments_digest: LazyDigest | None = field(default=None, repr=False, compare=False)
    #: How the inputs were read: one line per input, the reader and why
    #: (:mod:`prfeval._io.plan`; printed by ``prfeval evaluate --verbose``).
    reading: tuple[str, ...] = field(default=(), repr=False, compare=False)

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
        if self.coverage is not None:
            out["judgments"] = self.coverage.to_dict(self.query_ids, per_query=per_query)
        if self.upper is not None:
            up = self.upper
            out["if_unjudged_relevant"] = {
                "bounded": [str(m) for m in self.measures if m.definition.bounded],
                "grade": up.settings.get("unjudged_grade"),
                **({"per_query": up.per_query} if per_query else {}),
                "macro": dict(up.macro),
                "micro": dict(up.micro),
                "f_of_means": dict(up.f_of_means),
                "assumed_relevant": up.accounting.assumed_relevant,
            }
        if self.judgments_digest is not None:
            out["digests"] = self.judgments_digest.get().to_dict(per_query=per_query)
        if self.text_summary:
            out["text"] = dict(self.text_summary)
        if per_query and self.text:
            out["per_query_text"] = {
                qid: {label: texts[i] for label, texts in self.text.items()}
                for i, qid in enumerate(self.query_ids)
            }
        return out

    def to_frame(self, kind: FrameKind | None = None) -> Any:
        """A DataFrame in long format: ``query_id, measure, value``.

        ``kind``: ``"pandas"`` or ``"polars"``; by default pandas when it is installed, else
        polars (``pip install 'prfeval[frames]'`` installs both)."""
        from prfeval._core.frames import frame

        n_q = len(self.query_ids)
        return frame(
            {
                "query_id": np.tile(np.array(self.query_ids, dtype=object), len(self.measures)),
                "measure": np.repeat(np.array(self.labels, dtype=object), n_q),
                "value": self.values.reshape(-1),
            },
            kind,
            "to_frame()",
        )

    def summary_frame(self, kind: FrameKind | None = None) -> Any:
        """A DataFrame with one row per measure and macro, micro, f_of_means columns (NaN
        where an average does not apply); ``kind`` as in :meth:`to_frame`."""
        from prfeval._core.frames import frame

        labels = self.labels
        return frame(
            {
                "measure": labels,
                "macro": [self.macro[x] for x in labels],
                "micro": [self.micro.get(x, np.nan) for x in labels],
                "f_of_means": [self.f_of_means.get(x, np.nan) for x in labels],
            },
            kind,
            "summary_frame()",
        )

    def _table(self) -> Table:
        """The short table ``print(e)`` shows: what was evaluated, then one row per measure
        with its mean over queries (a total for counts such as NumRet), the value with the
        unjudged documents taken as relevant beside it when measured with ``bounds``, and
        the queries left out. ``to_dict()`` and ``to_frame()`` hold everything."""
        title = self._title("(mean over queries; level {level})")
        kind = {"sum": " (total)", "gmean": " (geometric mean)"}
        rows = []
        for m in self.measures:
            label = str(m)
            integer = m.definition.is_total
            row = [label + kind.get(m.definition.aggregation, ""),
                   number(self.macro.get(label), integer=integer)]
            if self.upper is not None:
                row.append(number(self.upper.macro.get(label), integer=integer))
            rows.append(row)
        for label, text in self.text_summary.items():
            rows.append([label, text, *([""] if self.upper is not None else [])])
        upper = ["if unjudged relevant"] if self.upper is not None else []
        columns = ["measure", "value", *upper]
        return table(title, columns, rows, noun="measures", notes=skipped(self.accounting))

    def _title(self, then: str) -> str:
        s = self.settings
        return (f"Evaluation of run {s.get('run', 'run')!r} on "
                f"{plural(self.accounting.evaluated, 'query', 'queries')} "
                + then.format(level=s.get("level", 1)))

    def __repr__(self) -> str:
        return self._table().text()

    def _repr_html_(self) -> str:
        """Jupyter's view: everything ``prfeval evaluate`` prints, the macro, micro and F of
        mean P, R averages, the judged share at each cutoff, and its notes and caveats."""
        from prfeval._retrieval.evaluation_table import summary

        headers, rows, notes = summary(self)
        return table(self._title("(level {level})"), headers, rows, noun="measures",
                     notes=notes, limit=max(len(rows), 1)).html()


def summarise(
    measured: MeasuredQueries,
    accounting: QueryAccounting,
    settings: dict[str, Any],
    partial: Partial | None = None,
) -> Evaluation:
    """The :class:`Evaluation` of per-query results: their values, and the averages (macro,
    micro and F of means) that :func:`~prfeval._core.aggregate.assemble` gives of ``partial``,
    what the queries add up to (by default ``measured.partial()``; a sink passes the sum of
    its blocks' partials, the same to the last bit)."""
    if partial is None:
        partial = measured.partial()
    macro, micro, f_of_means = {}, {}, {}
    for m, s in zip(partial.measures, aggregate.assemble(partial), strict=True):
        label = str(m)
        macro[label] = s.macro
        if s.micro is not None:
            micro[label] = s.micro
        if s.of_means is not None:
            f_of_means[label] = s.of_means
    text: dict[str, tuple[str, ...]] = {}
    text_summary: dict[str, str] = {}
    for m, strings in zip(measured.text_measures, measured.texts, strict=True):
        text[str(m)] = tuple(str(t) for t in strings)
        if m.definition.aggregation == "shared" and len(strings):
            text_summary[str(m)] = str(strings[-1])  # one value for the whole run
    return Evaluation(
        measures=measured.measures,
        query_ids=tuple(str(q) for q in measured.query_ids),
        values=measured.values,
        macro=macro,
        micro=micro,
        f_of_means=f_of_means,
        accounting=accounting,
        settings=settings,
        text_measures=measured.text_measures,
        text=text,
        text_summary=text_summary,
    )


def evaluate(
    qrels: Any,
    run: Any,
    measures: Any = None,
    *,
    bounds: bool = False,
    stream: bool | None = None,
    progress: ProgressSetting = None,
    query_ids: Any = None,
    doc_ids: Any = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
) -> Evaluation:
    """Evaluate a run against judgments.

    Parameters
    ----------
    qrels
        Judgments: a TREC qrels path, a CSV/TSV/JSONL/Parquet path, a DataFrame, an Arrow table
        or ``{qid: {docid: grade}}``; or preference judgments
        (:class:`~prfeval._io.prefs.Preferences`, from :func:`~prfeval._io.prefs.read_preferences`)
        for trec_eval's ``prefs_*`` measures, which only they give (with ``max_results``
        and ``complete`` the only options).
    run
        A TREC run path (``-`` for stdin), a tabular path, a DataFrame, an Arrow table,
        ``{qid: {docid: score}}`` or ranked lists ``{qid: [docid, ...]}``; or a 2-D array
        (numpy, or anything with ``__array__`` or ``__dlpack__``): integer doc ids of shape
        (n_queries, k) as FAISS's ``index.search`` returns them (row ``i`` is query ``i``'s
        ranking, best first; -1 is padding), or float scores of shape (n_queries, n_docs)
        as scikit-learn's ``ndcg_score`` takes them. Its ``qrels`` may then also be a list
        with one entry per row (a list or set of relevant doc ints, or ``{doc: grade}``),
        ``{row: ...}``, or a matrix of grades (``y_true``); see docs/inputs.md.
    measures
        Names such as ``"P@10 R@100 SetF(beta=2)"`` or trec_eval's (``P_10``, ``set_F``), a list
        of them, or ``None`` for the default set
        (:data:`~prfeval._measures.DEFAULT_MEASURES`).
    bounds
        Also measure every query with each unjudged retrieved document taken as relevant
        (at grade ``unjudged_grade``, the level by default), in the same pass:
        ``result.upper`` holds that evaluation. Needs the default ``unjudged`` rule.
    stream
        Read a TREC run file block by block in bounded memory (it must be grouped by query,
        as TREC runs are). ``None`` streams run files larger than 8 MiB. Only the compiled
        reader reads in blocks: a run it does not read (no compiled code, gzip, options it
        does not take, a layout it refuses) is read whole, with a
        :class:`~prfeval._core.errors.PrfevalWarning` when ``True`` asked for blocks and
        there is no compiled code or the reader refused the run. The numbers are the same
        either way, to the last digit.
    progress
        A progress bar on stderr while a run is streamed: ``None`` (the default) draws one
        when stderr is a terminal or in a notebook, once the work has taken a second;
        ``True`` always, ``False`` never. A function is called as
        ``progress(bytes_done, bytes_total)`` instead. The numbers are the same either way.
    query_ids, doc_ids
        For a run array: the query id of each row (one str per row) and the doc id of each
        doc int (doc int ``j`` is ``doc_ids[j]``), so that the run joins judgments with
        string ids such as BEIR's ``{qid: {docid: grade}}``. Without them, row ``i`` is the
        query ``"i"`` and doc int ``j`` the document ``"j"``.
    options, **option_values
        The evaluation options, as one :class:`~prfeval._core.options.EvalOptions` and/or by
        name: ``level`` (minimum relevant grade, trec_eval ``-l``), ``complete`` (``-c``),
        ``collection_size`` (``-N``), ``judged_only`` (``-J``), ``max_results`` (``-M``),
        ``order`` (``"score"``, ``"rank"`` or ``"file"``), ``duplicates`` (``"keep"``,
        ``"first"`` or ``"error"``), ``queries`` and ``exclude_queries`` (a query set) and
        ``query_set`` (its name). See :class:`~prfeval._core.options.EvalOptions` for each.

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
    opts = EvalOptions.build(options, **option_values)
    flag("stream", stream, optional=True)
    progress = check_progress(progress)
    if _preferences(qrels):
        return _evaluate_preferences(qrels, run, measures, opts, bounds=bounds)
    plan = plan_evaluation(measures, opts, bounds=bounds)
    if is_array_run(run):
        from prfeval._io.arrays import array_run

        run = array_run(run, query_ids=query_ids, doc_ids=doc_ids)
    elif query_ids is not None or doc_ids is not None:
        raise UsageError("query_ids and doc_ids name the rows and doc ints of a run array "
                         f"(FAISS ids, a score matrix), not of a {type(run).__name__}")
    with reporter(progress, "evaluating", unit="bytes") as report:
        sink, done = run_pipeline(
            qrels, run, opts, plan.needs, plan.new_sink, stream=stream, progress=report
        )
    return plan.evaluation(sink, done)


@dataclass(frozen=True)
class EvaluationPlan:
    """What an evaluation measures and how, checked once: made by :func:`plan_evaluation`,
    read by :func:`evaluate` and by :class:`~prfeval._retrieval.incremental.Evaluator`, so
    that a run measured in one call and one measured a ranking at a time are measured and
    averaged by the same steps.

    Attributes
    ----------
    asked
        The measures asked, in order (text measures among them).
    hidden
        Measured beside them for :attr:`Evaluation.coverage`: ``Judged@k`` at each cutoff,
        then ``NumRet`` (:func:`coverage_measures`).
    cutoffs
        The cutoffs of the measures asked, ascending.
    needs
        What the aligner must keep of a ranking for all of them (and for the bounds).
    options
        The evaluation options.
    bounds
        Whether the unjudged documents are also measured as relevant (``Evaluation.upper``).
    """

    asked: tuple[Measure, ...]
    hidden: tuple[Measure, ...]
    cutoffs: tuple[int, ...]
    needs: RankingNeeds
    options: EvalOptions
    bounds: bool

    @property
    def n_numeric(self) -> int:
        """How many of the measures asked give numbers (not runid or relstring)."""
        return sum(not m.definition.is_text for m in self.asked)

    def new_sink(self) -> MeasureSink:
        """A sink for every measure, asked and hidden (and, with bounds, the upper values)."""
        upper = self.options.assumed_grade if self.bounds else None
        return MeasureSink([*self.asked, *self.hidden], self.options, upper_grade=upper)

    def evaluation(self, sink: MeasureSink, done: PipelineRun) -> Evaluation:
        """The :class:`Evaluation` of what ``sink`` measured in the pass(es) ``done`` accounts
        for: the averages of the measures asked, their coverage and, with bounds, ``upper``
        (the same averages with the unjudged documents relevant, over the same queries)."""
        opts = self.options
        # Text measures (runid, relstring) are kept apart from the rows of numbers.
        n_numeric = self.n_numeric
        asked = list(range(n_numeric))
        measured = sink.result()
        settings = done.settings(opts)
        upper = None
        if self.bounds:
            upper_settings = {
                **settings, "unjudged": "relevant", "unjudged_grade": opts.assumed_grade
            }
            up = sink.upper()
            upper = summarise(up.only(asked), up.accounted(
                missing_from_run=done.accounting.missing_from_run,
                not_in_qrels=done.accounting.not_in_qrels,
                complete=opts.complete,
            ), upper_settings, sink.upper_partial().only(asked))  # fmt: skip
        return replace(
            summarise(measured.only(asked), done.accounting, settings,
                      sink.partial().only(asked)),
            coverage=coverage_of(measured, self.cutoffs, n_numeric),
            upper=upper,
            judgments_digest=done.judgments,
            reading=done.reading(),
        )


def plan_evaluation(measures: Any, options: EvalOptions, *, bounds: bool) -> EvaluationPlan:
    """The measures parsed and checked against the options, with the hidden ones beside them.

    Raises a :class:`~prfeval._core.errors.MeasureError` for a measure that cannot be parsed,
    and a :class:`~prfeval._core.errors.UsageError` for a measure the options cannot give
    (TN without a collection size, ...), for ``bounds`` that is not a bool, and for bounds
    with an unjudged rule other than ``"nonrelevant"`` (the bounds are the values with the
    unjudged documents non-relevant and relevant).
    """
    bounds = flag("bounds", bounds)
    parsed = tuple(parse_measures(measures))
    needing = [str(m) for m in parsed if m.definition.needs_preferences]
    if needing:
        raise UsageError(
            f"{', '.join(needing)} read preference judgments, not qrels: pass "
            "read_preferences(path) (trec_eval's -R prefs or -R qrels_prefs) as the judgments"
        )
    check_measures(parsed, options.collection_size)
    if bounds and options.unjudged != "nonrelevant":
        raise UsageError(
            "bounds compare unjudged documents taken as non-relevant and as relevant; "
            f"it cannot be combined with unjudged={options.unjudged!r}"
        )
    # Measured beside the ones asked, for the judged share at each of their cutoffs.
    cutoffs, hidden = coverage_measures(parsed)
    # The hidden Judged@k read the ranking too: the ties they can tell apart are ordered.
    needs = ranking_needs([*parsed, *hidden])
    if bounds:  # unjudged documents become relevant: their place in a tie shows then
        needs = replace(needs, nonrelevant_alike=False)
    return EvaluationPlan(parsed, tuple(hidden), tuple(cutoffs), needs, options, bounds)


def _preferences(qrels: Any) -> bool:
    """Whether ``qrels`` are preference judgments: never unless their reader was imported
    (which alone makes them), so that an evaluation of qrels does not import it."""
    if "prfeval._io.prefs" not in sys.modules:
        return False
    from prfeval._io.prefs import Preferences

    return isinstance(qrels, Preferences)


def _evaluate_preferences(
    prefs: Preferences, run: Any, measures: Any, options: EvalOptions, *, bounds: bool
) -> Evaluation:
    """:func:`evaluate` with preference judgments: the ``prefs_*`` measures, from counts
    computed once (:func:`~prfeval._retrieval.prefs.preference_counts`), over the queries
    with both results and preferences, in byte order of their ids as trec_eval 9.0.8; the
    counts are summed, the rest averaged (trec_eval's summary). With ``complete`` (trec_eval's
    ``-c``), every query with preferences counts: one without results scores 0 on every
    measure (nothing is fulfilled, nothing retrieved), as trec_eval 9.0.8 averages it."""
    parsed = tuple(parse_measures(measures))
    other = [str(m) for m in parsed if not m.definition.needs_preferences]
    if other:
        raise UsageError(
            f"{', '.join(other)} cannot be computed from preference judgments: they give "
            "only trec_eval's prefs_* measures (`prfeval measures` lists them)"
        )
    if flag("bounds", bounds):
        raise UsageError("bounds need qrels: preferences have no unjudged documents to bound")
    if replace(options, max_results=None, complete=False) != EvalOptions():
        raise UsageError(
            "with preference judgments, max_results and complete are the only options taken"
        )
    from prfeval._retrieval.prefs import preference_counts  # only for preference judgments

    counts = preference_counts(prefs, run, max_results=options.max_results)
    rows = []
    for m in parsed:
        fn = m.definition.preferences
        assert fn is not None  # checked above
        rows.append(fn(counts, m))
    values = np.array(rows, dtype=np.float64).reshape(len(parsed), counts.n_queries)
    query_ids = list(counts.query_ids)
    if options.complete and counts.missing_from_run:
        query_ids += counts.missing_from_run
        values = np.hstack([values, np.zeros((len(parsed), len(counts.missing_from_run)))])
        order = sorted(range(len(query_ids)), key=lambda i: query_ids[i].encode("utf-8"))
        query_ids, values = [query_ids[i] for i in order], values[:, order]
    measured = MeasuredQueries(
        parsed, np.array(query_ids, dtype=object), values, (None,) * len(parsed)
    )
    accounting = QueryAccounting(
        len(query_ids),
        missing_from_run=counts.missing_from_run,
        not_in_qrels=counts.not_in_prefs,
        complete=options.complete,
    )
    settings = {
        "judgments": "preferences",
        "qrels": prefs.path,
        "max_results": options.max_results,
        "complete": options.complete,
    }
    return summarise(measured, accounting, settings)


def coverage_measures(measures: Sequence[Measure]) -> tuple[list[int], list[Measure]]:
    """The cutoffs of ``measures``, and the measures that give the judged share at each:
    ``Judged@k`` for each cutoff, then ``NumRet`` (see :func:`coverage_of`)."""
    # Past 2^53 every cutoff is past every ranking (trec_eval's cutoffs go to LONG_MAX).
    cutoffs = sorted({min(m.k, MAX_INTEGER) for m in measures if m.k is not None})
    return cutoffs, parse_measures([*(f"Judged@{k}" for k in cutoffs), "NumRet"])


def coverage_of(measured: MeasuredQueries, cutoffs: Sequence[int], first: int = 0) -> Coverage:
    """The judged share at each cutoff, from ``Judged@k`` rows (one per cutoff, from row
    ``first`` on) followed by a ``NumRet`` row, as :func:`coverage_measures` asks for them."""
    n_retrieved = measured.values[first + len(cutoffs)]
    judged, unjudged, per_query = {}, {}, {}
    for i, k in enumerate(cutoffs):
        share = measured.values[first + i]
        places = np.minimum(n_retrieved, k)
        per_query[k] = np.rint(places - share * places).astype(np.int64)
        judged[k] = aggregate.macro(share)
        unjudged[k] = int(per_query[k].sum())
    counts = measured.query_counts.get("unjudged_retrieved")
    if counts is None:
        counts = np.zeros(len(measured.query_ids), dtype=np.int64)
    return Coverage(tuple(cutoffs), judged, unjudged, per_query, counts)
