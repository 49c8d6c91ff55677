"""``Evaluator``: judgments and measures given once, then one question's ranking at a time.

The retrieval engineer's loop asks one question, gets a ranking and wants the running numbers;
:func:`prfeval.evaluate` wants the whole run at once. An :class:`Evaluator` takes the rankings
one by one (:meth:`Evaluator.add`) and gives, at any point, the :class:`Evaluation` that
``prfeval.evaluate(qrels, run, measures)`` gives for the rankings added so far, to the last
digit.

It is not a second implementation of anything: the added rankings are buffered and, every
few thousand queries (:data:`BLOCK_RESULTS` results), handed as one block of whole queries to
the pipeline every evaluation runs on (:func:`prfeval._retrieval.pipeline.drain`: encode,
align, kernel). The block's per-query values and contingency tables are kept, not its
averages, so a run measured in blocks averages exactly as one measured whole (as a streamed
run does). :meth:`Evaluator.result` measures what is still buffered, then one last block
holding the judged queries never added (skipped by default and listed in
``accounting.missing_from_run``; evaluated as empty rankings with ``complete=True``, as
trec_eval ``-c``), and averages.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Unpack

import numpy as np
import numpy.typing as npt

from prfeval._core.arrow import arrow_ints, arrow_strings
from prfeval._core.checks import integer, max_results
from prfeval._core.errors import InputFormatError, UsageError
from prfeval._core.ids import ordered_ids, utf8_writable
from prfeval._core.options import EvalOptions, OptionValues
from prfeval._core.ranking import QueryAccounting
from prfeval._core.tables import Run, SourceLines
from prfeval._io.blocks import Block, load_judgments, warn_empty_run
from prfeval._io.judgments_digest import LazyDigest
from prfeval._io.plan import DICTS, InputPlan, ReadPlan
from prfeval._io.select import restrict_queries
from prfeval._retrieval.evaluate import Evaluation, plan_evaluation
from prfeval._retrieval.pipeline import MeasureSink, PipelineRun, check_query_set, drain

__all__ = ["BLOCK_RESULTS", "RUN_NAME", "Evaluator"]

#: Results buffered before they are measured as one block: about 2,600 questions of 100
#: results, a few MB of arrays, and few enough blocks that their fixed cost is small.
BLOCK_RESULTS = 1 << 18
#: How the run is named in results and messages, as the batch call names a run dict.
RUN_NAME = "run"


class _OneBlock:
    """A block source of one block (the pipeline's :class:`~prfeval._io.blocks.BlockSource`)."""

    streamed = False

    def __init__(self, block: Block, qrels_name: str, run_name: str, *, empty: bool) -> None:
        self._block = block
        self.qrels_name, self.run_name = qrels_name, run_name
        self._empty = empty
        why = "rankings added in Python"
        self.plan = ReadPlan(InputPlan("judgments", qrels_name, DICTS, False, why),
                             InputPlan("run", run_name, DICTS, False, why))

    @property
    def empty_run(self) -> bool:
        return self._empty

    def blocks(self) -> Iterator[Block]:
        if self._empty:  # as a run read whole says it, once per result
            warn_empty_run(self.run_name)
        yield self._block


def _no_id(value: Any) -> bool:
    """A result with no id: ``None``, the empty string or NaN (a missing value in a frame)."""
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


class Evaluator:
    """Evaluate a run one question at a time: the numbers of :func:`prfeval.evaluate`, exactly.

    Parameters
    ----------
    qrels
        The judgments, in any form :func:`prfeval.evaluate` reads (a file, a DataFrame,
        ``{qid: {docid: grade}}``, ...). Read once, here.
    measures
        As in :func:`prfeval.evaluate` (``"P@10 R@100 SetF"``; ``None``: the default set).
    bounds
        As in :func:`prfeval.evaluate`: also measure with the unjudged documents relevant
        (``result().upper``).
    block_results
        How many results are buffered before they are measured as one block.
    options, **option_values
        The evaluation options (``level``, ``complete``, ``max_results``, ``judged_only``,
        ``order``, ``duplicates``, ``queries``, ...), as in :func:`prfeval.evaluate`.

    Notes
    -----
    ``result()`` equals ``prfeval.evaluate(qrels, run, measures, ...)`` where ``run`` holds
    the rankings added so far: ``{qid: {docid: score}}`` when they were added with scores (a
    run file, when a ranking repeats a document), ``{qid: [docid, ...]}`` when without (their
    order is then the ranking, ``order="file"``). Every convention is the batch call's:

    - scored rankings are ordered by score, ties by doc id descending (trec_eval's order),
      whatever order they were added in;
    - a document repeated in one ranking takes a place each time and counts once (the
      ``duplicates`` option);
    - a ranking that is empty counts: the question was asked and nothing came back, so every
      measure is 0 for it; a question with no judgments is skipped and listed in
      ``accounting.not_in_qrels``;
    - judged questions never added are listed in ``accounting.missing_from_run``, or, with
      ``complete=True`` (trec_eval ``-c``), evaluated as empty rankings.

    A question may be added once: trec_eval reads a query's results together, so a second
    ``add`` of one query id is a :class:`~prfeval._core.errors.UsageError` (it would be either
    a mistake or a different run). Rankings are all scored or all unscored, as a run is.

    Bad values are refused by ``add`` itself, naming the question and the result's position:
    a result with no id, a score that is not a finite number. A repeated document under
    ``duplicates="error"`` is refused by the pipeline, in the same ``add`` call. A refused
    ``add`` leaves the evaluator as it was.

    Examples
    --------
    >>> ev = Evaluator({"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}, "P@2 R@2 recip_rank")
    >>> ev.add("q1", ["d9", "d1", "d2"], [3.0, 2.0, 1.0])
    >>> ev.add("q2", ["d3", "d8"], [0.2, 0.9])   # ranked by score: d8, then d3
    >>> ev.result().macro
    {'P@2': 0.5, 'R@2': 0.75, 'recip_rank': 0.5}
    >>> lists = Evaluator({"q1": {"d1": 1, "d2": 1}}, "P@2")
    >>> lists.add("q1", ["d9", "d1", "d2"])      # no scores: the order given is the ranking
    >>> lists.result().macro
    {'P@2': 0.5}
    """

    def __init__(
        self,
        qrels: Any,
        measures: Any = None,
        *,
        bounds: bool = False,
        block_results: int = BLOCK_RESULTS,
        options: EvalOptions | None = None,
        **option_values: Unpack[OptionValues],
    ) -> None:
        opts = EvalOptions.build(options, **option_values)
        self._block_results = integer("block_results", block_results, minimum=1)
        self._max_results = max_results()  # read from the environment once, not per add
        # evaluate()'s own checks and measures (the Judged@k beside the ones asked), and at
        # the end its own averaging: the two cannot drift apart.
        self._plan = plan_evaluation(measures, opts, bounds=bounds)
        self._options = opts
        self._name = RUN_NAME
        table = load_judgments(qrels, opts)
        self._all_qrels = table  # for the message naming the judged ids, if none is chosen
        self._qrels = restrict_queries(table, opts.queries, opts.exclude_queries)
        self._qrels_name = table.source.path
        self._judged = [q for q in table.judged_queries() if opts.wants(q)]
        self._sink = self._plan.new_sink()
        self._passes: list[PipelineRun] = []
        self._added: set[str] = set()
        self._scored: bool | None = None
        self._rows = 0  # every result added, of every question (their row numbers)
        self._pending_ids: list[str] = []
        self._pending_lengths: list[int] = []
        self._pending_docs: list[Any] = []
        self._pending_scores: list[npt.NDArray[np.float64]] = []
        self._pending_rows = 0
        self._pending_repeats = False  # whether a buffered ranking repeats a document
        if opts.qrels_duplicates == "error" and not isinstance(qrels, Mapping):
            # A repeated judgment (a dict holds none) is refused here, before any question,
            # not by some later add().
            self._measure(Block(self._qrels, self._run([], [], [], np.zeros(0), 0)))

    # ----------------------------------------------------------------------------------------
    # Adding rankings

    def __len__(self) -> int:
        """The number of questions added."""
        return len(self._added)

    def add(self, query_id: str, ranked_ids: Sequence[Any], scores: Any = None) -> None:
        """Add one question's ranking: its result ids best first, and their scores if any.

        Parameters
        ----------
        query_id
            The question's id, as the judgments name it (a non-empty string).
        ranked_ids
            The ids of its results. Without ``scores`` their order is the ranking; with
            scores, the scores rank them (descending, ties by doc id descending, as trec_eval).
            An empty list is a question that retrieved nothing.
        scores
            One finite number per result, or ``None``.

        Raises
        ------
        UsageError
            ``query_id`` added before, or not a string; ``scores`` of another length; a
            ranking with scores after rankings without (or the other way round).
        InputFormatError
            A result with no id (``None``, ``""``, NaN), or a score that is not finite.
        """
        if not isinstance(query_id, str) or not query_id:
            raise UsageError(f"query_id must be a non-empty string, got {query_id!r}")
        if not utf8_writable(query_id):
            raise InputFormatError(
                f"query id {query_id!r} is not valid Unicode (a lone surrogate): ids must "
                "be text that UTF-8 can write", path=self._name)
        if query_id in self._added:
            raise UsageError(
                f"query {query_id!r} was added already: a query's results are read together "
                "(as trec_eval reads them), so add each question once, with all its results"
            )
        if isinstance(ranked_ids, str | bytes | Mapping) or not hasattr(ranked_ids, "__len__"):
            raise UsageError(
                f"query {query_id!r}: ranked_ids must be a list of result ids, "
                f"got {type(ranked_ids).__name__}"
            )
        if isinstance(ranked_ids, set | frozenset):
            raise UsageError(
                f"query {query_id!r}: ranked_ids is a set, which has no order: give the "
                "result ids as a list, in rank order"
            )
        ids = list(ranked_ids)
        n = len(ids)
        if n > self._max_results:
            raise InputFormatError(
                f"query {query_id!r} has {n:,} results, more than the {self._max_results:,} one "
                "query may have (PRFEVAL_MAX_QUERY_RESULTS raises the limit)",
                path=self._name,
            )
        # Every id a non-empty str, the common case, told in C: join refuses anything else,
        # and the set that finds repeats finds "" too.
        try:
            joined = "".join(ids)
            distinct = set(ids)
            plain = "" not in distinct and utf8_writable(joined)
        except TypeError:
            plain = False
        if not plain:
            ids = self._checked_ids(query_id, ids)
            distinct = set(ids)
        values = None if scores is None else self._checked_scores(query_id, ids, scores)
        scored = values is not None
        if self._scored is not None and scored != self._scored:
            given, before = ("with", "without") if scored else ("without", "with")
            raise UsageError(
                f"query {query_id!r} was added {given} scores, the queries before it {before}: "
                "a run's rankings are all scored, or all in the order given"
            )
        if not self._options.wants(query_id):
            # Outside the query set: dropped before anything, as the batch call drops it.
            self._scored = scored
            self._added.add(query_id)
            self._rows += n
            return
        state = (self._scored, self._rows, self._pending_rows, len(self._pending_docs),
                 self._pending_repeats)
        self._scored = scored
        self._added.add(query_id)
        if not self._pending_ids:
            self._pending_first_row = self._rows
        self._rows += n
        self._pending_ids.append(query_id)
        self._pending_lengths.append(n)
        self._pending_docs.extend(ids)
        if values is not None:
            self._pending_scores.append(values)
        self._pending_rows += n
        # Under duplicates="error" a repeat is the pipeline's to find: measure at once, so
        # that the add of the ranking that repeats a document is the call that fails.
        repeated = len(distinct) < n
        self._pending_repeats |= repeated
        repeats = repeated and self._options.duplicates == "error"
        if repeats or self._pending_rows >= self._block_results:
            try:
                self._flush()
            except BaseException:
                # Refused: as if this add had not happened (the questions before it wait).
                self._scored, self._rows, self._pending_rows, n_docs, self._pending_repeats = state
                self._added.discard(query_id)
                self._pending_ids.pop()
                self._pending_lengths.pop()
                del self._pending_docs[n_docs:]
                if values is not None:
                    self._pending_scores.pop()
                raise

    def add_many(self, run: Mapping[str, Any]) -> None:
        """Add several questions: ``{qid: {docid: score}}`` or ranked lists
        ``{qid: [docid, ...]}``, each as :meth:`add` would add it."""
        if not isinstance(run, Mapping):
            raise UsageError(
                "add_many takes {qid: {docid: score}} or {qid: [docid, ...]}, "
                f"got {type(run).__name__}"
            )
        # All or nothing: a question refused puts back every question of this call (and any
        # block measured on the way), so that a retry after the fix adds none twice.
        saved = self._saved_state()
        try:
            for query_id, ranking in run.items():
                if isinstance(ranking, Mapping):
                    self.add(query_id, list(ranking.keys()), list(ranking.values()))
                else:
                    self.add(query_id, ranking)
        except BaseException:
            self._restore_state(saved)
            raise

    def _saved_state(self) -> tuple[Any, ...]:
        """What adding changes, copied: the measured blocks are only appended to, so their
        counts are enough."""
        return (self._scored, self._rows, set(self._added), list(self._pending_ids),
                list(self._pending_lengths), list(self._pending_docs),
                list(self._pending_scores), self._pending_rows,
                getattr(self, "_pending_first_row", 0), self._pending_repeats,
                len(self._passes), len(self._sink.parts), len(self._sink.upper_parts))

    def _restore_state(self, saved: tuple[Any, ...]) -> None:
        (self._scored, self._rows, self._added, self._pending_ids, self._pending_lengths,
         self._pending_docs, self._pending_scores, self._pending_rows,
         self._pending_first_row, self._pending_repeats, passes, parts, upper) = saved
        del self._passes[passes:], self._sink.parts[parts:], self._sink.upper_parts[upper:]

    def _checked_ids(self, query_id: str, ids: list[Any]) -> list[str]:
        """The ids as strings, as the batch call reads them (a number as its str, bytes as
        UTF-8); none may be missing."""
        for i, d in enumerate(ids):
            if _no_id(d):
                shown = "empty" if d == "" else f"missing ({d!r})"
                raise InputFormatError(
                    f"query {query_id!r}: the id of result {i + 1} is {shown}: every result "
                    "needs an id",
                    path=self._name,
                )
        return [_as_id(query_id, i, d, self._name) for i, d in enumerate(ids)]

    def _checked_scores(
        self, query_id: str, ids: list[str], scores: Any
    ) -> npt.NDArray[np.float64]:
        """The scores as float64, one finite number per result."""
        if isinstance(scores, str | bytes | Mapping) or not hasattr(scores, "__len__"):
            raise UsageError(
                f"query {query_id!r}: scores must be a list of numbers, "
                f"got {type(scores).__name__}"
            )
        if len(scores) != len(ids):
            raise UsageError(
                f"query {query_id!r}: {len(scores)} scores for {len(ids)} results"
            )
        try:
            # A copy, always: the caller may reuse its buffer for the next question.
            values = np.array(scores, dtype=np.float64, copy=True).reshape(len(ids))
        except (TypeError, ValueError, OverflowError):
            values = None
        if values is None or not np.isfinite(values).all():
            i = next((j for j, v in enumerate(scores) if not _finite_number(v)), 0)
            raise InputFormatError(
                f"query {query_id!r}, doc {ids[i]!r} (result {i + 1}): expected a finite "
                f"score, got {scores[i]!r}",
                path=self._name,
            )
        return values

    # ----------------------------------------------------------------------------------------
    # Measuring

    def _run(
        self,
        query_ids: list[str],
        lengths: list[int],
        docs: list[str],
        scores: npt.NDArray[np.float64] | None,
        first_row: int,
        *,
        distinct: bool = False,
    ) -> Run:
        """The buffered rankings as a run table (query ids dictionary encoded, as a streamed
        block's are, so that they are not hashed again)."""
        import pyarrow as pa

        n = len(docs)
        local = np.repeat(np.arange(len(query_ids), dtype=np.int32), lengths)
        empty = tuple(q for q, length in zip(query_ids, lengths, strict=True) if length == 0)
        extra: dict[str, Any] = {"empty_queries": empty} if empty else {}
        if distinct:  # no ranking repeats a document: the encoder need not look for repeats
            extra["distinct_docs"] = True
        return Run(
            pa.DictionaryArray.from_arrays(arrow_ints(local, bits=32), arrow_strings(query_ids)),
            _strings(docs),
            scores,
            None,
            SourceLines(self._name, np.arange(first_row + 1, first_row + n + 1), unit="row"),
            default_order="file" if self._scored is False else "score",
            name=self._name,
            extra=extra,
        )

    def _measure(self, block: Block, sink: MeasureSink | None = None) -> PipelineRun:
        """One block through the pipeline: into ``sink`` (by default a throwaway one)."""
        source = _OneBlock(block, self._qrels_name, self._name, empty=False)
        _, done = drain(source, self._options, self._plan.needs, sink or self._plan.new_sink())
        return done

    def _pending_block(self) -> Block:
        """The buffered rankings as a run table, with their judgments.

        Always tables, whatever the judgments are: measured a block of a few thousand
        questions at a time, hashing the ids with Arrow costs less than building the dicts
        the dict encoder reads (and the two encoders give the same block).
        """
        ids = self._pending_ids
        scores = np.concatenate(self._pending_scores) if self._scored else None
        run = self._run(ids, self._pending_lengths, self._pending_docs, scores,
                        self._pending_first_row, distinct=not self._pending_repeats)  # fmt: skip
        return Block(restrict_queries(self._qrels, ids), run)

    def _flush(self) -> None:
        """Measure the buffered rankings as one block, and empty the buffer."""
        if not self._pending_ids:
            return
        # Emptied once measured: a block the pipeline refuses stays, as the run it would be.
        self._passes.append(self._measure(self._pending_block(), self._sink))
        self._pending_ids, self._pending_lengths, self._pending_docs = [], [], []
        self._pending_scores, self._pending_rows, self._pending_repeats = [], 0, False

    def result(self) -> Evaluation:
        """The evaluation of every ranking added so far, as :func:`prfeval.evaluate` gives it.

        More rankings may be added afterwards; the next ``result()`` measures only those.
        """
        self._flush()
        opts = self._options
        # The judged queries never added: one block with an empty run, as a streamed run
        # ends, measured into a copy of the sink (more questions may come after this).
        sink = self._plan.new_sink()
        sink.parts.extend(self._sink.parts)
        sink.upper_parts.extend(self._sink.upper_parts)
        missing = [q for q in self._judged if q not in self._added]
        qrels = restrict_queries(self._qrels, missing)  # none missing: an empty block says so
        empty_run = self._run([], [], [], None if self._scored is False else np.zeros(0), 0)
        source = _OneBlock(Block(qrels, empty_run), self._qrels_name, self._name,
                           empty=self._rows == 0)  # fmt: skip
        _, last = drain(source, opts, self._plan.needs, sink)
        passes = [*self._passes, last]
        accounting = (
            passes[0].accounting
            if len(passes) == 1
            else QueryAccounting.merge([p.accounting for p in passes], complete=opts.complete)
        )
        if opts.queries is not None:
            # Listed ids that no block saw: a typo, or the list of another collection.
            unseen = set(passes[0].accounting.unmatched_queries)
            for p in passes[1:]:
                unseen &= set(p.accounting.unmatched_queries)
            accounting = replace(accounting, unmatched_queries=ordered_ids(unseen))
        check_query_set(accounting, opts, self._all_qrels)
        judged = self._qrels
        done = PipelineRun(
            accounting,
            self._qrels_name,
            self._name,
            self._rows == 0,
            False,
            "file" if self._scored is False else "score",
            LazyDigest(lambda: judged),
        )
        return self._plan.evaluation(sink, done)


def _strings(values: list[str]) -> Any:
    """An Arrow string array of ``values``: when they are all ASCII (as ids nearly always
    are), from one join of them, a few times quicker than encoding each; else through
    :func:`~prfeval._core.arrow.arrow_strings`."""
    import pyarrow as pa

    text = "".join(values)
    if not text.isascii() or len(text) >= 2**31:
        return arrow_strings(values)
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, values), dtype=np.int32, count=len(values)), out=offsets[1:])
    data = pa.py_buffer(text.encode("ascii"))
    return pa.Array.from_buffers(pa.string(), len(values), [None, pa.py_buffer(offsets), data])


def _as_id(query_id: str, i: int, value: Any, name: str) -> str:
    """A result id as a string: text as it is, bytes read as UTF-8, an integer as its
    digits; anything else (a bool, a list, a dict, ...) is no id, as in a file."""
    if isinstance(value, str):
        text = str(value)
    elif isinstance(value, bytes | bytearray):
        try:
            text = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise InputFormatError(
                f"query {query_id!r}: the id of result {i + 1} is not UTF-8: {value!r}",
                path=name,
            ) from None
    elif isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        text = str(int(value))
    else:
        raise InputFormatError(
            f"query {query_id!r}: the id of result {i + 1} is a {type(value).__name__} "
            f"({value!r}): an id is a string or an integer", path=name)
    if not utf8_writable(text):
        raise InputFormatError(
            f"query {query_id!r}: the id of result {i + 1} is not valid Unicode (a lone "
            f"surrogate): {text!r}", path=name)
    return text


def _finite_number(value: Any) -> bool:
    """Whether ``value`` is a number (not a bool) with a finite float value."""
    if isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        return False
