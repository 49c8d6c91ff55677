"""The one pipeline every command runs on: source -> blocks -> align -> kernel -> sink.

::

    source (file whole | file in blocks | dicts | DataFrame | Arrow | ranked lists)
      -> blocks of whole queries            (prfeval._io.blocks, prfeval._io.native)
      -> align: rank, policies, CSR         (prfeval._retrieval.align)  -> JudgedRanking
      -> a sink: measures, curves, ...      (prfeval._retrieval.kernel, .curves)
      -> averages and a result              (prfeval._core.aggregate)

:func:`run_pipeline` is the loop. ``evaluate``, ``curve`` and ``compare`` differ only in the
sink they give it, and a large TREC run differs from a small one only in its source, so
streaming is not a second implementation: it is the same loop over a source that yields many
blocks, in bounded memory. Which reader reads the input, whole or in blocks, is decided
once, by the reader plan (:func:`prfeval._io.plan.plan_reading`), and kept with the result;
no read starts again.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar, Unpack

from prfeval._core.errors import PrfevalWarning, UsageError
from prfeval._core.ids import close_ids, id_list, ordered_ids, query_output_order
from prfeval._core.options import EvalOptions, OptionValues
from prfeval._core.pages import plain_pages
from prfeval._core.partials import Partial
from prfeval._core.ranking import JudgedRanking, QueryAccounting, RankingNeeds
from prfeval._io.blocks import Block, BlockSource, WholeSource, load_judgments
from prfeval._io.judgments_digest import LazyDigest
from prfeval._io.plan import COMPILED, ReadPlan, plan_reading
from prfeval._io.select import restrict_queries
from prfeval._io.source import check_one_stdin
from prfeval._measures import Measure
from prfeval._retrieval.align import assemble
from prfeval._retrieval.encode import encode_dicts, encode_tables
from prfeval._retrieval.kernel import MeasuredQueries, measure_queries

__all__ = [
    "MeasureSink",
    "PipelineRun",
    "Sink",
    "TeeSink",
    "align",
    "align_block",
    "check_query_set",
    "drain",
    "open_source",
    "run_pipeline",
]

Progress = Callable[[int, int], None]


class Sink(Protocol):
    """What consumes the judged rankings of a source, block by block."""

    def add(self, ranking: JudgedRanking) -> None:
        """Take one block's judged ranking (blocks hold disjoint queries)."""
        ...


S = TypeVar("S", bound=Sink)


def align_block(block: Block, options: EvalOptions, needs: RankingNeeds) -> JudgedRanking:
    """The judged ranking of one block (dicts through their own encoder when it takes them;
    the compiled pass's blocks come encoded)."""
    if block.encoded is not None:
        return assemble(block.encoded, options, needs)
    encoded = None
    if block.dicts:
        encoded = encode_dicts(
            block.qrels,  # type: ignore[arg-type]
            block.run,  # type: ignore[arg-type]
            complete=options.complete,
            wants=options.wants if options.restricts_queries else None,
            name=getattr(block.run, "run_name", "run"),
        )
        if encoded is None:  # dicts the dict encoder does not take: read them as tables
            qrels = load_judgments(block.qrels)
            from prfeval._io.load import load_run

            run = load_run(block.run, ranks=False)
            block = Block(
                restrict_queries(qrels, options.queries, options.exclude_queries),
                restrict_queries(run, options.queries, options.exclude_queries),
            )
    if encoded is None:
        encoded = encode_tables(
            block.qrels,  # type: ignore[arg-type]
            block.run,  # type: ignore[arg-type]
            complete=options.complete,
            sorted_docs=needs.doc_order,
            qrels_duplicates=options.qrels_duplicates,
            single_scores=options.trec_eval_version == 9,
        )
    return assemble(encoded, options, needs)


def align(
    qrels: Any,
    run: Any,
    options: EvalOptions | None = None,
    needs: RankingNeeds | None = None,
    **option_values: Unpack[OptionValues],
) -> JudgedRanking:
    """The judged ranking of a whole input: put ``run`` in rank order per query and join each
    position with its judgment.

    Parameters
    ----------
    qrels, run
        Anything :func:`prfeval.evaluate` reads (tables, files, DataFrames, dicts).
    options, **option_values
        The evaluation options (order, duplicates, ``-M``, ``-J``, ``-c``, the query set),
        as one :class:`~prfeval._core.options.EvalOptions` and/or by name.
    needs
        What the ranking will be read for (:func:`prfeval._measures.ranking_needs`); by
        default everything: every tie in doc id order and document codes in byte order.

    Returns
    -------
    JudgedRanking
        Valid for ``needs`` (it records them: the kernel refuses to read it for more).
    """
    options = EvalOptions.build(options, **option_values)
    needs = RankingNeeds.everything() if needs is None else needs
    (block,) = WholeSource(qrels, run, options, use_dicts=not needs.doc_ids).blocks()
    return align_block(block, options, needs)


def open_source(
    qrels: Any,
    run: Any,
    options: EvalOptions,
    needs: RankingNeeds,
    *,
    stream: bool | None = None,
    progress: Progress | None = None,
) -> BlockSource:
    """The source the reader plan (:func:`~prfeval._io.plan.plan_reading`) chooses for
    ``run``: the compiled pass (whole or in blocks; ``stream``: ``True`` in blocks, ``False``
    whole, ``None`` in blocks from 8 MiB on), Arrow whole, dicts, or a layout's reader."""
    plan = plan_reading(qrels, run, options, stream=stream, doc_ids=needs.doc_ids)
    return _source(plan, qrels, run, options, needs, progress)


def _source(plan: ReadPlan, qrels: Any, run: Any, options: EvalOptions, needs: RankingNeeds,
            progress: Progress | None) -> BlockSource:
    """The block source that reads as ``plan`` says."""
    from prfeval._io.native_lib import discard_parsed

    if plan.reader == COMPILED:
        from prfeval._io.native import CompiledSource

        def fallback(refused: ReadPlan) -> BlockSource:
            return _source(refused, qrels, run, options, needs, progress)

        return CompiledSource(qrels, os.fspath(run), options, plan, fallback,
                              sorted_docs=needs.doc_order, progress=progress)  # fmt: skip
    discard_parsed()  # judgments parsed ahead for a pass that does not read them
    return WholeSource(qrels, run, options, use_dicts=not needs.doc_ids, plan=plan)


def _readable_again(source: Any) -> bool:
    """Whether an input can be read a second time (a regular file, bytes, objects), which
    the digest of the judgments of a streamed run needs; standard input, a pipe or a
    stream cannot."""
    if isinstance(source, str | os.PathLike):
        return str(source) != "-" and os.path.isfile(source)
    return not hasattr(source, "read")


@dataclass(frozen=True)
class PipelineRun:
    """What a pass of the pipeline gives beside its sink's result: where the input came
    from and what was set aside."""

    accounting: QueryAccounting
    qrels_name: str
    run_name: str
    empty_run: bool
    streamed: bool
    default_order: str
    #: The digest of the judgments measured with (made when first asked), if known.
    judgments: LazyDigest | None = None
    #: How the inputs were read: which reader, whole or in blocks, and why.
    plan: ReadPlan | None = None

    def reading(self) -> tuple[str, ...]:
        """One line per input: which reader read it and why (``--verbose``, ``explain``)."""
        return () if self.plan is None else self.plan.lines()

    def settings(self, options: EvalOptions) -> dict[str, Any]:
        """The settings a result reports: the options, and the inputs as they were read."""
        return {
            **options.settings(order=self.default_order),
            "qrels": self.qrels_name,
            "run": self.run_name,
            "empty_run": self.empty_run,
            "streamed": self.streamed,
        }


def run_pipeline(
    qrels: Any,
    run: Any,
    options: EvalOptions,
    needs: RankingNeeds,
    make_sink: Callable[[], S],
    *,
    stream: bool | None = None,
    progress: Progress | None = None,
) -> tuple[S, PipelineRun]:
    """Align every block of the input, read as the reader plan says, and hand each judged
    ranking to a sink.

    Returns the sink and the pass's accounting, with the plan as it turned out
    (``PipelineRun.plan``). What the plan says once the input is read (a stream asked of
    input that is read whole) is a :class:`~prfeval._core.errors.PrfevalWarning`, said
    only once the input was read: a run that cannot be read gets one error, not a warning
    before it.
    """
    check_one_stdin([qrels, run])
    with plain_pages():  # see prfeval._core.pages: large arrays, used once
        if not _readable_again(qrels):
            qrels = load_judgments(qrels, options)  # read once, kept for every use
        source = open_source(qrels, run, options, needs, stream=stream, progress=progress)
        result = _with_digest(drain(source, options, needs, make_sink()), qrels, options)
    check_query_set(result[1].accounting, options, qrels)
    plan = result[1].plan
    if plan is not None and plan.warning:
        warnings.warn(plan.warning, PrfevalWarning, stacklevel=2)
    return result


def _with_digest(result: tuple[S, PipelineRun], qrels: Any, options: EvalOptions
                 ) -> tuple[S, PipelineRun]:
    """``result`` with its judgments' digest: a streamed source keeps no judgments table, so
    the digest reads the judgments again (a file, or objects) when it is asked for."""
    sink, done = result
    if done.judgments is not None or not _readable_again(qrels):
        return result

    def judgments() -> Any:
        table = load_judgments(qrels, options)
        return restrict_queries(table, options.queries, options.exclude_queries)

    return sink, replace(done, judgments=LazyDigest(judgments))


def check_query_set(accounting: QueryAccounting, options: EvalOptions, qrels: Any) -> None:
    """Refuse a query set none of whose ids is in the run or the judgments: averaging over
    no query would print zeros for a typo, or for the list of another collection.

    Raises :class:`~prfeval._core.errors.UsageError` naming the ids, with the judged ids
    closest to them. A set some of whose ids match is evaluated, and the rest are listed in
    ``accounting.unmatched_queries``.
    """
    listed = options.queries
    unmatched = accounting.unmatched_queries
    if not listed or len(unmatched) < len(listed):
        return
    known = list(ordered_ids(load_judgments(qrels, options).judged_queries()))
    hint = close_ids(unmatched, known)
    judged = f"(judged queries: {id_list(known)})"
    if len(unmatched) == 1:
        raise UsageError(
            f"query {unmatched[0]!r} is in neither the run nor the judgments{hint} {judged}"
        )
    raise UsageError(
        f"none of the {len(unmatched)} listed queries is in the run or the judgments: "
        f"{id_list(unmatched)}{hint} {judged}"
    )


def drain(
    source: BlockSource, options: EvalOptions, needs: RankingNeeds, sink: S
) -> tuple[S, PipelineRun]:
    """Align every block of ``source`` into ``sink``: the loop itself, with no fallback."""
    parts: list[QueryAccounting] = []
    seen: set[str] = set()
    default_order = "score"
    for block in source.blocks():
        if block.encoded is not None:
            default_order = block.encoded.default_order
        elif not block.dicts:
            default_order = block.run.default_order  # type: ignore[union-attr]
        ranking = align_block(block, options, needs)
        del block  # its columns, a row per place, are not needed once aligned
        parts.append(ranking.accounting)
        if options.queries is not None:
            a = ranking.accounting
            seen.update(map(str, ranking.query_ids), a.missing_from_run, a.not_in_qrels)
        sink.add(ranking)
    accounting = (
        parts[0] if len(parts) == 1 else QueryAccounting.merge(parts, complete=options.complete)
    )
    if options.queries is not None:
        # Ids of the query set that match nothing: a typo, or the list of another collection.
        unmatched = ordered_ids(q for q in options.queries if q not in seen)
        accounting = replace(accounting, unmatched_queries=unmatched)
    return sink, PipelineRun(
        accounting,
        source.qrels_name,
        source.run_name,
        source.empty_run,
        source.streamed,
        default_order,
        getattr(source, "judgments", None),
        getattr(source, "plan", None),
    )


class TeeSink:
    """Hands each block's ranking to several sinks, so one pass over a run feeds them all
    (measures, curves and explanations for a report)."""

    def __init__(self, *sinks: Sink) -> None:
        self.sinks = sinks

    def add(self, ranking: JudgedRanking) -> None:
        """Give one block's ranking to every sink."""
        for sink in self.sinks:
            sink.add(ranking)


class MeasureSink:
    """Measures every block's queries, and joins them in output order at the end.

    :meth:`partial` is what the queries add up to (:meth:`MeasuredQueries.partial`), for
    averaging. Partials add exactly, so the partial of the joined blocks is the sum of the
    blocks' partials to the last bit, however the run was cut: the sink takes it once, of
    the joined values, rather than once a block (a hundred measures over tens of blocks cost
    the trec_eval command a fifth of its time so).

    With ``upper_grade``, each block is measured twice in the one pass: as aligned, and with
    every unjudged retrieved document taken as relevant at that grade (the ``--bounds`` view);
    :meth:`upper` and :meth:`upper_partial` give the second.
    """

    def __init__(
        self,
        measures: Sequence[Measure],
        options: EvalOptions,
        *,
        upper_grade: int | None = None,
    ) -> None:
        self.measures = tuple(measures)
        self.options = options
        self.upper_grade = upper_grade
        self.parts: list[MeasuredQueries] = []
        self.upper_parts: list[MeasuredQueries] = []

    def _measure(self, ranking: JudgedRanking) -> MeasuredQueries:
        return measure_queries(
            ranking,
            self.measures,
            level=self.options.level,
            collection_size=self.options.collection_size,
        )

    def add(self, ranking: JudgedRanking) -> None:
        """Measure one block's queries."""
        if ranking.n_queries:
            measured = self._measure(ranking)
            self.parts.append(measured)
            if self.upper_grade is not None:
                upper = self._measure(ranking.assuming_relevant(self.upper_grade))
                self.upper_parts.append(upper)

    def _joined(self, parts: list[MeasuredQueries]) -> MeasuredQueries:
        if not parts:
            return MeasuredQueries.empty(self.measures)
        if len(parts) == 1:
            return parts[0]  # one block is in output order already
        joined = MeasuredQueries.concat(parts)
        return joined.take(query_output_order(list(map(str, joined.query_ids))))

    def result(self) -> MeasuredQueries:
        """Every query's values, in output order."""
        return self._joined(self.parts)

    def upper(self) -> MeasuredQueries:
        """Every query's values with the unjudged documents taken as relevant."""
        return self._joined(self.upper_parts)

    def partial(self) -> Partial:
        """What the whole run's queries add up to: the sum of the blocks' partials."""
        return self.result().partial()

    def upper_partial(self) -> Partial:
        """The same with the unjudged documents taken as relevant."""
        return self.upper().partial()
