"""The Spark engine: prfeval's exact measures on data that lives in Apache Spark.

``pip install 'prfeval[spark]'`` (pyspark 4, which needs Java 17 or newer). Then::

    import prfeval.spark
    result = prfeval.spark.evaluate("hdfs:///qrels.parquet", run_frame, "P@10 R@100 SetF")
    result.macro, result.micro, result.f_of_means   # dicts on the driver
    result.per_query                                # a Spark DataFrame: query_id, measure, value
    result.to_evaluation()                          # a local Evaluation, for a small result

MLlib's layout, one DataFrame with an array of ranked ids and an array of relevant ids a
row, is evaluated alone: ``prfeval.spark.evaluate(df, "MAP P@10 nDCG@10")``; and
``prfeval.spark.RankingEvaluator`` stands in for ``pyspark.ml.evaluation.RankingEvaluator``
with MLlib's values (:mod:`prfeval.spark._ranking_evaluator`).

Executors without prfeval get the driver's with ``prfeval.spark.ship(spark)``
(:mod:`prfeval.spark._shipping`); the command line does it for them.

The executors run the local engine's aligner and kernel on partitions of whole queries
(:mod:`prfeval.spark._partition`); the averages equal the local engine's to the last digit.
``docs/spark.md`` tells how to run it locally, with spark-submit, and what it costs.
Nothing here imports pyspark until it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prfeval.spark._engine import evaluate
    from prfeval.spark._ranking_evaluator import RankingEvaluator
    from prfeval.spark._read import read_qrels, read_run
    from prfeval.spark._result import SparkEvaluation
    from prfeval.spark._session import cli_session
    from prfeval.spark._shipping import ship

_LAZY = {
    "RankingEvaluator": "prfeval.spark._ranking_evaluator",
    "SparkEvaluation": "prfeval.spark._result",
    "evaluate": "prfeval.spark._engine",
    "read_qrels": "prfeval.spark._read",
    "read_run": "prfeval.spark._read",
    "cli_session": "prfeval.spark._session",
    "ship": "prfeval.spark._shipping",
}

__all__ = [
    "RankingEvaluator",
    "SparkEvaluation",
    "cli_session",
    "evaluate",
    "read_qrels",
    "read_run",
    "ship",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'prfeval.spark' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
