"""``prfeval.spark.RankingEvaluator``: MLlib's ``RankingEvaluator``, in one vectorised pass.

A drop-in for ``pyspark.ml.evaluation.RankingEvaluator``: the same Params (``predictionCol``,
``labelCol``, ``metricName``, ``k``), getters, setters and defaults, so that it goes where
MLlib's goes (a ``CrossValidator``, a ``TrainValidationSplit``, a dashboard) and changes no
number. For MLlib's five metric names ``evaluate(df)`` returns MLlib's value, by MLlib's
definitions (:mod:`prfeval.spark._mllib`: P@k divides by k; MAP by the number of distinct
labels, MAP@k by the smaller of that and k; a repeated prediction counts at every place; an
empty label array scores 0 and counts in the mean). The executors compute it over Arrow
batches with numpy, each row's ids joined to its labels by the compiled join, and read only
the first ``k`` predictions of a row for the metrics at k.

It also takes any prfeval measure name as ``metricName`` (``RR@10``, ``nDCG@10`` with
trec_eval's definition, ``AP``): the value is then prfeval's, by prfeval's rules (a repeated
id counts once; a row without labels is left out of the mean), from
:func:`prfeval.spark.evaluate`; ``k`` is not read (the cutoff is in the name).

Unlike MLlib's, it takes ids as numbers of any type or as text (MLlib's DataFrame evaluator
takes ``array<double>`` only), and an array of structs (ALS's ``recommendations``) as its
first field. pyspark 4.3's evaluator has no ``relevanceCol``, so neither has this one.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from pyspark import keyword_only
from pyspark.ml.evaluation import Evaluator
from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.param.shared import HasLabelCol, HasPredictionCol
from pyspark.ml.util import DefaultParamsReadable, DefaultParamsWritable

from prfeval._core.errors import UsageError
from prfeval.spark._arrays import ListColumns
from prfeval.spark._lists import select_lists
from prfeval.spark._mllib import MLLIB_METRICS, SUMS_SCHEMA, mllib_sums, uses_k
from prfeval.spark._session import spark_errors

__all__ = ["RankingEvaluator"]


class RankingEvaluator(
    Evaluator, HasLabelCol, HasPredictionCol, DefaultParamsReadable, DefaultParamsWritable
):
    """Evaluator for rankings: MLlib's metrics, with MLlib's values, or any prfeval measure.

    Parameters
    ----------
    predictionCol
        The array of ranked ids, best first (default ``"prediction"``).
    labelCol
        The array of relevant ids, a set (default ``"label"``).
    metricName
        ``meanAveragePrecision`` (the default), ``meanAveragePrecisionAtK``,
        ``precisionAtK``, ``ndcgAtK``, ``recallAtK`` (MLlib's definitions), or a prfeval
        measure name (prfeval's definition).
    k
        The cutoff of MLlib's metrics at k (default 10; at least 1).

    Examples
    --------
    >>> evaluator = RankingEvaluator(metricName="ndcgAtK", k=5)   # doctest: +SKIP
    >>> evaluator.evaluate(predictions)                            # doctest: +SKIP
    """

    metricName: Param[str] = Param(
        Params._dummy(),
        "metricName",
        "metric name in evaluation (meanAveragePrecision|meanAveragePrecisionAtK|"
        "precisionAtK|ndcgAtK|recallAtK), or a prfeval measure name (prfeval's definition)",
        typeConverter=TypeConverters.toString,
    )
    k: Param[int] = Param(
        Params._dummy(),
        "k",
        "The ranking position value used in meanAveragePrecisionAtK|precisionAtK|"
        "ndcgAtK|recallAtK. Must be > 0. The default value is 10.",
        typeConverter=TypeConverters.toInt,
    )

    _input_kwargs: dict[str, Any]

    @keyword_only
    def __init__(
        self,
        *,
        predictionCol: str = "prediction",
        labelCol: str = "label",
        metricName: str = "meanAveragePrecision",
        k: int = 10,
    ) -> None:
        super().__init__()
        self._setDefault(metricName="meanAveragePrecision", k=10)
        self._set(**self._input_kwargs)

    @keyword_only
    def setParams(
        self,
        *,
        predictionCol: str = "prediction",
        labelCol: str = "label",
        metricName: str = "meanAveragePrecision",
        k: int = 10,
    ) -> RankingEvaluator:
        """Set the params given."""
        return self._set(**self._input_kwargs)

    def setMetricName(self, value: str) -> RankingEvaluator:
        """Set :py:attr:`metricName`."""
        return self._set(metricName=value)

    def getMetricName(self) -> str:
        """The value of :py:attr:`metricName` or its default."""
        return self.getOrDefault(self.metricName)

    def setK(self, value: int) -> RankingEvaluator:
        """Set :py:attr:`k`."""
        return self._set(k=value)

    def getK(self) -> int:
        """The value of :py:attr:`k` or its default."""
        return self.getOrDefault(self.k)

    def setLabelCol(self, value: str) -> RankingEvaluator:
        """Set :py:attr:`labelCol`."""
        return self._set(labelCol=value)

    def setPredictionCol(self, value: str) -> RankingEvaluator:
        """Set :py:attr:`predictionCol`."""
        return self._set(predictionCol=value)

    def isLargerBetter(self) -> bool:
        """True for MLlib's metrics; for a prfeval measure, as the registry declares it."""
        name = self.getMetricName()
        if name in MLLIB_METRICS:
            return True
        return _measure(name).definition.higher_is_better

    def _evaluate(self, dataset: Any) -> float:
        name = self.getMetricName()
        cols = ListColumns(self.getPredictionCol(), self.getLabelCol())
        if name not in MLLIB_METRICS:
            from prfeval.spark._engine import evaluate

            measure = _measure(name)
            result = evaluate(dataset, [measure], prediction_col=cols.prediction,
                              label_col=cols.label)
            return result.macro[str(measure)]
        k = self.getK()
        if k < 1:
            raise UsageError(f"k must be at least 1 (a ranking position), got {k}")
        frame = select_lists(dataset, cols, limit=k if uses_k(name) else None, query=False)
        with spark_errors():
            parts = frame.mapInArrow(
                functools.partial(mllib_sums, name, k, cols),
                "n bigint, total double",
            ).toArrow()
        assert parts.schema.names == SUMS_SCHEMA.names
        n = sum(parts.column("n").to_pylist())
        return math.fsum(parts.column("total").to_pylist()) / n if n else math.nan


@functools.lru_cache(maxsize=64)
def _measure(name: str) -> Any:
    """The one prfeval measure ``name`` names (a :class:`~prfeval._core.errors.MeasureError`
    with close names for one prfeval does not know)."""
    from prfeval._measures import parse_measures

    found = parse_measures(name)
    if len(found) != 1:
        raise UsageError(f"metricName names one measure, got {name!r}")
    return found[0]
