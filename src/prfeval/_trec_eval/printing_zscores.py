"""trec_eval's output with ``-Z FILE``: each query's values as z-scores, byte for byte.

trec_eval 9.0.8 turns every value of a query into ``(value - mean) / stddev`` with the mean
and deviation the z-score file gives for that query and measure (the name as printed,
``P_5``), before adding it to the summary (Webber, Moffat and Zobel, 2008). It prints
``-1000000.0000`` for a value it has no entry for, and for a deviation of 0 unless the value
equals the mean (then 0). Every numeric row is ``Z`` followed by C's ``%-22s`` of the name,
then the query id and ``%6.4f`` of the value, counts included; the text rows (``runid``,
``relstring``) are printed as without ``-Z``.

The summary rows add the z-scores in query order: a mean (divided by the number of queries,
every judged one with ``-c``), a total for the counts, and for the geometric means
(``gm_map``, ``gm_bpref``), whose per-query value trec_eval keeps as ``ln(max(v, 0.00001))``
and standardises so, ``exp`` of their mean (a query missing with ``-c`` adding
``ln(0.00001)``). ``num_q`` is the query count, and ``num_rel`` with ``-c`` the judgments
recounted, neither standardised.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from prfeval._core.measure_def import Measure
from prfeval._core.partials import GEOMETRIC_FLOOR
from prfeval._core.trec_names import TrecName
from prfeval._trec_eval.printing import trec_line, trec_numbers
from prfeval._trec_eval.summary import TrecPrinting, evaluated_queries, trec_eval_summary
from prfeval._trec_eval.zscores import ZScores, to_zscores

if TYPE_CHECKING:
    from prfeval._retrieval.evaluate import Evaluation

__all__ = ["zscore_blocks", "zscore_numbers", "zscore_values"]


def zscore_numbers(values: npt.ArrayLike) -> list[str]:
    """``%6.4f`` of each value, NaN printed with its sign as glibc prints it (``nan`` or
    ``-nan``: a NaN mean in the file gives a positive one)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    shown = trec_numbers(v)
    for i in np.flatnonzero(np.isnan(v) & ~np.signbit(v)):
        shown[i] = f"{'nan':>6}"
    return shown


def zscore_values(
    e: Evaluation, measures: Sequence[Measure], rows: Sequence[int], zscores: ZScores
) -> npt.NDArray[np.float64]:
    """The z-scores of ``measures`` (numeric ones) for the queries ``rows`` (indices into
    ``e.query_ids``): shape ``(len(rows), len(measures))``.

    A geometric-mean measure is standardised on ``ln(max(v, 0.00001))``, the value
    trec_eval keeps for it.
    """
    labels = {str(m): i for i, m in enumerate(e.measures)}
    idx = np.asarray(rows, dtype=np.int64)
    raw = np.empty((len(rows), len(measures)))
    for j, m in enumerate(measures):
        column = np.asarray(e.values[labels[str(m)]][idx], dtype=np.float64)
        if m.definition.aggregation == "gmean":
            column = np.log(np.maximum(column, GEOMETRIC_FLOOR))
        raw[:, j] = column
    found, means, sds = zscores.lookup(
        [e.query_ids[i] for i in rows], [m.trec_label for m in measures]
    )
    return to_zscores(raw, found, means, sds)


def zscore_blocks(
    e: Evaluation,
    entries: Sequence[tuple[Measure, TrecName]],
    zscores: ZScores,
    printing: TrecPrinting,
) -> Iterator[str]:
    """``e`` as trec_eval prints it with ``-Z``: the rows of each query (with
    ``per_query``), then the summary (unless not ``summary``); the parameters are those of
    :func:`~prfeval._trec_eval.printing.trec_eval_blocks`."""
    qids = e.query_ids
    missing = set(e.accounting.missing_from_run) if printing.complete else set()
    shown = evaluated_queries(e, printing)
    numeric = [m for m, _ in entries if not m.definition.is_text]
    column = {str(m): j for j, m in enumerate(numeric)}
    z = zscore_values(e, numeric, shown, zscores)
    if printing.per_query and shown:
        cells = np.asarray(zscore_numbers(z), dtype=object).reshape(z.shape)
        out: list[str] = []
        for r, i in enumerate(shown):
            q = qids[i]
            for m, t in entries:
                if not t.per_query:
                    continue
                if m.definition.is_text:
                    quote = "'" if t.quoted else ""
                    text = e.text[str(m)][i] if q not in missing else ""
                    out.append(trec_line(m.trec_label, q, quote + text + quote) + "\n")
                else:
                    out.append(f"Z{m.trec_label:<22}\t{q}\t{cells[r, column[str(m)]]}\n")
        yield "".join(out)
    if not printing.summary:
        return
    lines: list[str] = []
    rows = trec_eval_summary(
        e, entries, printing, standardised=lambda m: z[:, column[str(m)]]
    )
    for m, value in rows:
        if isinstance(value, str):
            lines.append(trec_line(m.trec_label, "all", value) + "\n")
        else:
            lines.append(f"Z{m.trec_label:<22}\tall\t{zscore_numbers([value])[0]}\n")
    yield "".join(lines)
