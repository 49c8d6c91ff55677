"""MLlib's five ranking metrics, as ``pyspark.mllib.evaluation.RankingMetrics`` defines them,
vectorised over a batch of rows (the executors' side of :class:`RankingEvaluator`).

The definitions are MLlib's (``RankingMetrics.scala``, Spark 4), not the textbook's: for a
row with ranked ids ``pred`` (``L`` of them) and the set of its labels (``S`` distinct ids),

* ``precisionAtK`` = #{i < min(L, k): pred[i] in labels} / k;
* ``recallAtK`` = the same count / S;
* ``meanAveragePrecision`` = sum over i < L with pred[i] in labels of hits(i) / (i + 1),
  divided by S, where hits(i) counts the hits at places 0..i;
* ``meanAveragePrecisionAtK`` = the same sum over i < min(L, k), divided by min(S, k);
* ``ndcgAtK`` = sum over i < min(L, k) with pred[i] in labels of 1 / ln(i + 2), divided
  by sum over i < min(S, k) of 1 / ln(i + 2) (binary gains).

A repeated prediction counts at every place it takes (``[1, 1, 2]`` against ``{1}`` has
MAP 2.0). A row with no label scores 0 and counts in the mean. The mean is over every row
(NaN for none). These sums run in MLlib's order (rank by rank, ``bincount`` adds in input
order), so the values agree with MLlib's to the last bits.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from prfeval._core.errors import PrfevalError
from prfeval._core.ranking import UNJUDGED
from prfeval.spark._arrays import ListColumns, Rows, decode, join

__all__ = ["MLLIB_METRICS", "SUMS_SCHEMA", "mllib_sums", "mllib_values", "uses_k"]

FloatArray = npt.NDArray[np.float64]

#: MLlib's metric names, and whether each reads ``k``.
MLLIB_METRICS = {
    "meanAveragePrecision": False,
    "meanAveragePrecisionAtK": True,
    "precisionAtK": True,
    "ndcgAtK": True,
    "recallAtK": True,
}

#: A partition's share of the mean: its rows and the sum of their values.
SUMS_SCHEMA = pa.schema([pa.field("n", pa.int64()), pa.field("total", pa.float64())])


def uses_k(metric: str) -> bool:
    """Whether MLlib's ``metric`` reads only the first ``k`` predictions."""
    return MLLIB_METRICS[metric]


def _discounts(n: int) -> FloatArray:
    """``1 / ln(i + 2)`` for ``i < n``."""
    return 1.0 / np.log(np.arange(n, dtype=np.float64) + 2.0)


def mllib_values(rows: Rows, metric: str, k: int) -> FloatArray:
    """Each row's value of MLlib's ``metric`` (see the module's doc)."""
    n = rows.n_rows
    sizes = rows.label_sizes.astype(np.float64)
    labelled = sizes > 0
    # Only the hits are looked at: their row and place, in row then rank order.
    hit = np.flatnonzero(join(rows).grade != UNJUDGED)
    row = np.searchsorted(rows.offsets, hit, side="right") - 1
    place = hit - rows.offsets[row]
    if metric != "meanAveragePrecision":
        top = place < k
        row, place = row[top], place[top]
    if metric in ("meanAveragePrecision", "meanAveragePrecisionAtK"):
        # hits(i): the hit's place among its row's hits, plus one.
        hits = np.arange(1, row.size + 1) - np.searchsorted(row, row, side="left")
        total = np.bincount(row, weights=hits / (place + 1.0), minlength=n)
        denominator = sizes if metric == "meanAveragePrecision" else np.minimum(sizes, k)
        return np.divide(total, denominator, out=np.zeros(n), where=labelled)
    if metric == "ndcgAtK":
        gains = _discounts(k)
        dcg = np.bincount(row, weights=gains[place], minlength=n)
        ideal = np.concatenate(([0.0], np.cumsum(gains)))
        best = ideal[np.minimum(rows.label_sizes, k)]
        return np.divide(dcg, best, out=np.zeros(n), where=labelled)
    count = np.bincount(row, minlength=n).astype(np.float64)
    if metric == "precisionAtK":
        return np.where(labelled, count / k, 0.0)
    return np.divide(count, sizes, out=np.zeros(n), where=labelled)


def mllib_sums(
    metric: str, k: int, cols: ListColumns, batches: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """One row for a partition: its number of rows and the sum of their values."""
    from prfeval.spark._partition import marked

    n, parts = 0, []
    try:
        for batch in batches:
            if not batch.num_rows:
                continue
            values = mllib_values(decode(batch, cols), metric, k)
            n += values.size
            parts.append(math.fsum(values.tolist()))
    except PrfevalError as exc:
        raise RuntimeError(marked(exc)) from None
    yield pa.RecordBatch.from_pylist([{"n": n, "total": math.fsum(parts)}], schema=SUMS_SCHEMA)
