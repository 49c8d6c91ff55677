"""What runs on the executors: each partition's whole queries through the local kernel.

:func:`measure_batches` is the function ``mapInArrow`` calls on a partition of the shuffled
union of run rows and judgments. Each block of whole queries goes through the very functions
the local engine runs (:func:`~prfeval._retrieval.pipeline.align_block`, a
:class:`~prfeval._retrieval.pipeline.MeasureSink` and
:func:`~prfeval._retrieval.evaluate.coverage_of`), so no measure is implemented twice; the
per-query results leave as rows (:class:`~prfeval.spark._layout.Layout`).
:func:`reduce_batches` then reduces a partition of those rows to one row of exact partial
sums. A :class:`Plan` carries what both need to the executors: plain data, pickled once per
task.

A prfeval error on an executor (a repeated document under ``duplicates="error"``, a collection
size too small) reaches the driver inside Spark's exception text; :func:`error_text` marks it
there and :func:`error_from` finds it again, so the driver raises the same error class with
the same reason. Line numbers are left out (an executor sees a block of lines or rows, not
where they were in the file): a bad TREC line is named by its text, and the driver names it
by its number when it can read the file (:func:`~prfeval.spark._failures.located`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

import pyarrow as pa

from prfeval._core.errors import InputFormatError, MeasureError, PrfevalError, UsageError
from prfeval._core.options import EvalOptions
from prfeval._io.blocks import Block
from prfeval._measures import Measure, parse_measures, ranking_needs, user_definition
from prfeval._measures.user import UserMeasure
from prfeval._retrieval.evaluate import coverage_of
from prfeval._retrieval.pipeline import MeasureSink, align_block
from prfeval.spark._blocks import BlockFrame, block_of, whole_queries
from prfeval.spark._layout import Layout

__all__ = [
    "Plan",
    "error_from",
    "error_text",
    "marked",
    "measure_batches",
    "measured_rows",
    "reduce_batches",
    "user_measures_of",
]

#: Rows gathered into one block before the kernel runs (whole queries; a larger query makes a
#: larger block): enough to spread the kernel's fixed cost per call, little enough memory.
BLOCK_ROWS = 1 << 20


def _parsed(specs: tuple[tuple[str, str], ...]) -> tuple[Measure, ...]:
    """The measures of ``(name, label)`` pairs, parsed from the registry."""
    return tuple(replace(parse_measures(name)[0], label=label) for name, label in specs)


# The built-in measures never change: their parse is kept per executor process. A user's
# measure may be defined again (a file loaded twice), so a plan with one parses afresh.
_measures = lru_cache(maxsize=16)(_parsed)


def user_measures_of(measures: Iterable[Measure]) -> tuple[UserMeasure, ...]:
    """The declarations of the users' measures among ``measures``, their functions made to
    travel by value: pyspark's cloudpickle pickles a function of an importable module by
    reference, and the executors cannot import a user's file of measures."""
    from pyspark import cloudpickle

    found: dict[str, UserMeasure] = {}
    for m in measures:
        declared = m.definition.ranked
        if isinstance(declared, UserMeasure) and declared.name not in found:
            found[declared.name] = declared
            module = sys.modules.get(getattr(declared.function, "__module__", "") or "")
            if module is not None and module.__name__ != "__main__":
                cloudpickle.register_pickle_by_value(module)
    return tuple(found.values())


def portable(measures: Iterable[Measure]) -> tuple[tuple[str, str], ...]:
    """Measures as ``(name, label)`` pairs that parse back on any executor to the registry's
    own definitions (rather than pickled copies of them): the canonical name, or the label as
    typed when only that parses back to the same measure (trec_eval's ``set_F.2``)."""
    specs = []
    for m in measures:
        for name in (m.name, str(m)):
            spec = (name, str(m))
            try:
                if _parsed((spec,))[0] == m:
                    specs.append(spec)
                    break
            except PrfevalError:
                continue
        else:
            raise RuntimeError(f"measure {m} does not parse back from its name {m.name!r}")
    return tuple(specs)


@dataclass(frozen=True)
class Plan:
    """An evaluation as the executors need it.

    Attributes
    ----------
    specs
        The measures as ``(name, label)``: the asked ones, then the hidden coverage measures.
    n_asked
        How many of them were asked for.
    cutoffs
        The asked measures' cutoffs (for the judged share at each).
    options
        The evaluation options, as the local engine takes them.
    frame
        The inputs' names and the run's columns.
    bounds
        Whether to measure the ``--bounds`` view too.
    block_rows
        Rows gathered per kernel call (whole queries).
    user_measures
        The declarations of the measures users defined (``@prfeval.measure``) among them,
        with their functions: an executor registers them before it parses ``specs``.
    """

    specs: tuple[tuple[str, str], ...]
    n_asked: int
    cutoffs: tuple[int, ...]
    options: EvalOptions
    frame: BlockFrame
    bounds: bool = False
    block_rows: int = BLOCK_ROWS
    user_measures: tuple[UserMeasure, ...] = ()

    @property
    def measures(self) -> tuple[Measure, ...]:
        """Every measure, asked and hidden."""
        for declared in self.user_measures:
            user_definition(declared)  # registered in the executor's process
        return _parsed(self.specs) if self.user_measures else _measures(self.specs)

    @property
    def layout(self) -> Layout:
        """The per-query columns."""
        return Layout(
            self.measures,
            self.n_asked,
            self.cutoffs,
            bounds=self.bounds,
            tn=self.options.collection_size is not None,
        )


_MARK = re.compile(r"<<prfeval:(\w+)\|(.*?)>>(.*?)<<prfeval-end>>", re.DOTALL)
_ERRORS: dict[str, type[PrfevalError]] = {
    cls.__name__: cls for cls in (InputFormatError, MeasureError, UsageError, PrfevalError)
}


def error_text(kind: str, reason: str, path: str = "") -> str:
    """A prfeval error marked so that the driver finds it in Spark's exception text."""
    return f"<<prfeval:{kind}|{path}>>{reason}<<prfeval-end>>"


def marked(exc: PrfevalError) -> str:
    """``exc`` as :func:`error_text` marks it, for an executor's exception to carry."""
    if isinstance(exc, InputFormatError):
        return error_text("InputFormatError", exc.reason, exc.path or "")
    return error_text(type(exc).__name__, str(exc))


def error_from(text: str) -> PrfevalError | None:
    """The prfeval error marked in ``text`` (an exception from Spark), if there is one."""
    found = _MARK.search(text)
    if found is None:
        return None
    kind, path, reason = found.groups()
    cls = _ERRORS.get(kind, PrfevalError)
    if cls is InputFormatError:
        return InputFormatError(reason, path=path or None)
    return cls(reason)


def measured_rows(plan: Plan, block: Block) -> pa.RecordBatch:
    """The per-query rows of one block of whole queries, aligned and measured by the local
    engine's functions, with the queries set aside listed after them."""
    measures = plan.measures
    options = plan.options
    needs = ranking_needs(measures)  # the hidden Judged@k too: they read the ranking
    if plan.bounds:  # unjudged documents become relevant: their place in a tie shows then
        needs = replace(needs, nonrelevant_alike=False)
    upper_grade = options.assumed_grade if plan.bounds else None
    ranking = align_block(block, options, needs)
    sink = MeasureSink(measures, options, upper_grade=upper_grade)
    sink.add(ranking)
    measured = sink.result()
    return plan.layout.rows(
        measured,
        sink.upper() if plan.bounds else None,
        coverage_of(measured, list(plan.cutoffs), plan.n_asked),
        ranking.accounting.missing_from_run,
        ranking.accounting.not_in_qrels,
        complete=options.complete,
    )


def measure_batches(plan: Plan, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """A partition's per-query rows: every block of whole queries aligned and measured by
    the local engine's functions, with the queries set aside listed after them."""
    try:
        for table in whole_queries(batches, min_rows=plan.block_rows):
            yield measured_rows(plan, block_of(table, plan.frame))
    except PrfevalError as exc:
        raise RuntimeError(marked(exc)) from None


def reduce_batches(plan: Plan, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """One row per partition: what its per-query rows add up to."""
    yield plan.layout.partials(batches)
