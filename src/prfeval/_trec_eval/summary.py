"""The numbers trec_eval prints of an :class:`~prfeval._retrieval.evaluate.Evaluation`: which
queries it shows, their values, and its summary row (``all``), which
``printing.py`` only formats.

trec_eval's summary of a measure adds the shown queries' values one after another in byte
order of their ids and divides by the number of queries, which with ``-c`` is every judged
query (those without results add 0; a geometric mean counts them at the floor 0.00001). That
value is what :func:`~prfeval._core.aggregate.assemble` gives of the shown queries' partial
taken with their ids (its ``trec_eval_queries``). What is particular to a measure comes from
its declaration (:class:`~prfeval._core.trec_names.TrecName`): a summary that is not an average
(``summary_value``: the query count, or num_rel recounted under ``-c``) and trec_eval 10.0's
value for a judged query without results (``placeholder``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from prfeval._core.aggregate import assemble
from prfeval._core.measure_def import Measure
from prfeval._core.partials import Partial
from prfeval._core.trec_names import TrecName

if TYPE_CHECKING:
    from prfeval._retrieval.evaluate import Evaluation

__all__ = ["PrintedValues", "TrecPrinting", "evaluated_queries", "trec_eval_summary"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class TrecPrinting:
    """What trec_eval's command line says of the rows it prints, declared once for every
    printer (the rows, the ``-Z`` rows and the summary).

    Attributes
    ----------
    per_query, summary
        ``-q`` (each query's rows) and not ``-n`` (the summary row).
    complete, version
        trec_eval's ``-c``, and whose ``-c`` to follow: 9.0.8 prints and adds only the
        queries with results (dividing by every judged query), 10.0 evaluates the judged
        queries without results too, as rankings of one unjudged placeholder document.
    num_rel_complete
        With ``-c``: the summary's num_rel, which trec_eval recounts as the judgments with a
        grade above 0 over every judged query, whatever the relevance level (``None``: the
        sum of the queries' values).
    queries
        Only these query ids are evaluated (trec_eval's ``-D level.qid``): their rows, and a
        summary of them alone, divided with ``-c`` by every judged query all the same
        (``None``: every query).
    """

    per_query: bool = False
    summary: bool = True
    complete: bool = False
    version: int = 9
    num_rel_complete: float | None = None
    queries: Collection[str] | None = None


def evaluated_queries(e: Evaluation, printing: TrecPrinting) -> list[int]:
    """The queries trec_eval evaluates and prints, as indices into ``e.query_ids``, in the
    order it prints them (byte order of their ids).

    Those with results and judgments; with ``complete`` and trec_eval 10.0, the judged
    queries without results too. ``queries`` keeps only those ids (trec_eval's ``-D``).
    """
    qids = e.query_ids
    queries = printing.queries
    missing = set(e.accounting.missing_from_run) if printing.complete else set()
    every = printing.complete and printing.version >= 10
    shown = [
        i
        for i, q in enumerate(qids)
        if (every or q not in missing) and (queries is None or q in queries)
    ]
    shown.sort(key=lambda i: qids[i].encode("utf-8"))  # trec_eval: strcmp order
    return shown


class PrintedValues:
    """The values trec_eval prints for the queries of ``e``: a measure's value, except that
    trec_eval 10.0 prints 0, not the placeholder ranking's value, for a judged query without
    results when the measure's declaration says so (``placeholder="zero"``)."""

    def __init__(
        self, e: Evaluation, entries: Sequence[tuple[Measure, TrecName]], printing: TrecPrinting
    ) -> None:
        self.e = e
        self.missing = set(e.accounting.missing_from_run) if printing.complete else set()
        self.rows = {str(m): i for i, m in enumerate(e.measures)}
        zeroed = printing.version >= 10
        self.zeroed = {str(m) for m, t in entries if t.placeholder == "zero"} if zeroed else set()

    def __call__(self, m: Measure, idx: Sequence[int]) -> FloatArray:
        """``m``'s values for the queries at positions ``idx``."""
        e = self.e
        out = np.asarray(e.values[self.rows[str(m)]][np.asarray(idx, dtype=np.int64)], np.float64)
        if str(m) in self.zeroed and self.missing:
            out = np.where([e.query_ids[i] in self.missing for i in idx], 0.0, out)
        return out


def trec_eval_summary(
    e: Evaluation,
    entries: Sequence[tuple[Measure, TrecName]],
    printing: TrecPrinting,
    *,
    standardised: Callable[[Measure], FloatArray] | None = None,
) -> list[tuple[Measure, float | str]]:
    """Each measure of ``entries`` with a summary row, and the value trec_eval prints in it
    (its text for ``runid``), in the order of ``entries``, as ``printing`` says (its
    ``per_query`` and ``summary`` aside); ``standardised`` gives a measure's
    z-scores for the shown queries (trec_eval's ``-Z``, a geometric mean's taken of
    ``ln(max(v, 0.00001))``), summed instead of its values."""
    shown = evaluated_queries(e, printing)
    n_queries = len(e.query_ids) if printing.complete else len(shown)
    printed = PrintedValues(e, entries, printing)
    num_rel_complete = printing.num_rel_complete

    def values_of(m: Measure, idx: Sequence[int]) -> FloatArray:
        return printed(m, idx) if standardised is None else standardised(m)

    averaged = [
        m
        for m, t in entries
        if t.summary and not m.definition.is_text and t.summary_value != "queries"
        and not (t.summary_value == "judged_relevant" and num_rel_complete is not None)
    ]
    averages = {}
    if averaged:
        ids = [e.query_ids[i] for i in shown]
        values = np.vstack([values_of(m, shown) for m in averaged])
        partial = Partial.of(averaged, values, ids=ids)
        summaries = assemble(
            partial, trec_eval_queries=n_queries, logged=standardised is not None
        )
        averages = {str(m): s.macro for m, s in zip(averaged, summaries, strict=True)}
    out: list[tuple[Measure, float | str]] = []
    for m, t in entries:
        if not t.summary:
            continue
        if m.definition.is_text:
            out.append((m, e.text_summary.get(str(m), "")))
        elif t.summary_value == "queries":
            out.append((m, float(n_queries)))
        elif t.summary_value == "judged_relevant" and num_rel_complete is not None:
            out.append((m, num_rel_complete))
        else:
            out.append((m, averages[str(m)]))
    return out
