"""Time prfeval on MLlib's layout beside MLlib's RankingEvaluator, in one Spark session.

Usage::

    python bench/spark_arrays.py [--rows 200000,2000000] [--reps 3] [--warmup 1]

Data: ``--rows`` rows of 100 distinct predictions each (double ids among 2,003 items, seed
46), 5 to 20 distinct labels each (from the same items), made with numpy and handed to Spark as
Arrow; larger sizes repeat the 200,000 rows (a cross join with ``range``). The DataFrame is
cached and counted before any timing (warm, cached input), on ``local[2]``.

Round robin, ``--warmup`` untimed rounds then ``--reps`` timed ones, each round:

1. **prfeval, four measures**: one ``prfeval.spark.evaluate(df, "MAP P@10 nDCG@10 R@10")``;
2. **MLlib, four metrics**: ``pyspark.ml.evaluation.RankingEvaluator`` with
   ``meanAveragePrecision``, ``precisionAtK``, ``ndcgAtK`` and ``recallAtK`` (k = 10): four
   ``evaluate`` calls, as its users must make them;
3. **the drop-in, one metric**: ``prfeval.spark.RankingEvaluator`` beside MLlib's, for
   ``ndcgAtK`` and ``precisionAtK`` (k = 10: computed in Spark SQL, in the JVM) and for
   ``meanAveragePrecision`` (the Python workers).

Prints the medians, their ratios and every round, the values of both (MLlib's where the
definitions coincide: no row repeats a prediction and every row has 5 or more labels, so
MAP, P@10, R@10 and nDCG@10 agree), and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

import numpy as np

ITEMS = 2_003
PREDICTIONS = 100
BASE_ROWS = 200_000
MEASURES = "MAP P@10 nDCG@10 R@10"
MLLIB = {"MAP": "meanAveragePrecision", "P@10": "precisionAtK", "nDCG@10": "ndcgAtK",
         "R@10": "recallAtK"}


def frame(spark: Any, rows: int) -> Any:
    """``rows`` rows of (prediction, label), cached and counted. Row i's predictions are
    (a_i + b_i j) mod 2003 for j < 100, its labels (c_i + d_i j) mod 2003 for j < 5..20:
    distinct within a row (2003 is prime), so MLlib's definitions and prfeval's coincide."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    rng = np.random.default_rng(46)
    n = min(rows, BASE_ROWS)
    a, b, c, d = (rng.integers(lo, ITEMS, size=(n, 1)) for lo in (0, 1, 0, 1))
    j = np.arange(PREDICTIONS)[None, :]
    pred = ((a + b * j) % ITEMS).astype(np.float64)
    sizes = rng.integers(5, 21, size=n)
    labels = ((c + d * np.arange(20)[None, :]) % ITEMS).astype(np.float64)
    label_offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int32)
    label_values = labels[np.arange(20)[None, :] < sizes[:, None]]
    table = pa.table({
        "prediction": pa.FixedSizeListArray.from_arrays(pa.array(pred.ravel()), PREDICTIONS)
        .cast(pa.list_(pa.float64())),
        "label": pa.ListArray.from_arrays(pa.array(label_offsets), pa.array(label_values)),
    })
    df = spark.createDataFrame(table)
    if rows > n:
        df = df.crossJoin(spark.range(rows // n).select(F.col("id").alias("copy"))).drop("copy")
    df = df.repartition(spark.sparkContext.defaultParallelism * 2).cache()
    df.count()
    return df


def tasks_for(df: Any) -> dict[str, Any]:
    """The timed calls on ``df``, by name."""
    from pyspark.ml.evaluation import RankingEvaluator as MLlibEvaluator

    import prfeval.spark
    from prfeval.spark import RankingEvaluator

    return {
        "prfeval: 4 measures, one call": lambda: prfeval.spark.evaluate(df, MEASURES).macro,
        "MLlib: 4 metrics, 4 calls": lambda: {
            m: MLlibEvaluator(metricName=v, k=10).evaluate(df) for m, v in MLLIB.items()
        },
        "drop-in: ndcgAtK": lambda: RankingEvaluator(metricName="ndcgAtK").evaluate(df),
        "MLlib: ndcgAtK": lambda: MLlibEvaluator(metricName="ndcgAtK").evaluate(df),
        "drop-in: precisionAtK": lambda: RankingEvaluator(metricName="precisionAtK").evaluate(df),
        "MLlib: precisionAtK": lambda: MLlibEvaluator(metricName="precisionAtK").evaluate(df),
        "drop-in: meanAveragePrecision": lambda: RankingEvaluator().evaluate(df),
        "MLlib: meanAveragePrecision": lambda: MLlibEvaluator().evaluate(df),
    }


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", default="200000,2000000")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    import pyspark
    from pyspark.sql import SparkSession

    from prfeval.spark._session import local_settings, no_pandas_warning

    builder = SparkSession.builder.master("local[2]").config("spark.driver.memory", "8g")
    for key, value in local_settings().items():
        builder = builder.config(key, value)
    with no_pandas_warning():
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("FATAL")
    print(f"pyspark {pyspark.__version__}, local[2], load before: {os.getloadavg()}")
    for rows in (int(r) for r in args.rows.split(",")):
        df = frame(spark, rows)
        tasks = tasks_for(df)
        times: dict[str, list[float]] = {name: [] for name in tasks}
        values: dict[str, Any] = {}
        for rnd in range(args.warmup + args.reps):
            names = list(tasks) if rnd % 2 == 0 else list(tasks)[::-1]
            for name in names:
                with no_pandas_warning():
                    seconds, value = timed(tasks[name])
                values[name] = value
                if rnd >= args.warmup:
                    times[name].append(seconds)
        med = {name: statistics.median(t) for name, t in times.items()}
        print(f"\n## {rows:,} rows x {PREDICTIONS} predictions (load {os.getloadavg()})\n")
        print("| task | median s | rounds s | per row us |")
        print("| --- | ---: | --- | ---: |")
        for name, t in times.items():
            rounds = ", ".join(f"{x:.2f}" for x in t)
            print(f"| {name} | {med[name]:.2f} | {rounds} | {med[name] / rows * 1e6:.2f} |")
        print(f"\nfour measures: prfeval {med['prfeval: 4 measures, one call']:.2f} s, MLlib "
              f"{med['MLlib: 4 metrics, 4 calls']:.2f} s: "
              f"{med['MLlib: 4 metrics, 4 calls'] / med['prfeval: 4 measures, one call']:.2f}x")
        for metric in ("ndcgAtK", "precisionAtK", "meanAveragePrecision"):
            ours, theirs = med[f"drop-in: {metric}"], med[f"MLlib: {metric}"]
            print(f"{metric}: drop-in {ours:.2f} s, MLlib {theirs:.2f} s: {theirs / ours:.2f}x")
        print("values: prfeval", values["prfeval: 4 measures, one call"])
        print("        MLlib  ", values["MLlib: 4 metrics, 4 calls"])
        print("        drop-in ndcgAtK", values["drop-in: ndcgAtK"], "MLlib",
              values["MLlib: ndcgAtK"], "; MAP", values["drop-in: meanAveragePrecision"],
              "MLlib", values["MLlib: meanAveragePrecision"])
        df.unpersist()
    print(f"\nload after: {os.getloadavg()}")
    spark.stop()


if __name__ == "__main__":
    main()
