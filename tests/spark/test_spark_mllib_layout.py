"""MLlib's layout (one row a query: an array of ranked ids, an array of relevant ids) on the
Spark engine, and the RankingEvaluator drop-in, against independent references.

- ``prfeval.spark.evaluate(df, measures)`` against the local engine given the same rows as
  dicts and ranked lists, and against pytrec_eval-terrier on rows without repeats;
- ``prfeval.spark.RankingEvaluator`` against ``pyspark.ml.evaluation.RankingEvaluator``
  metric by metric, and against ``pyspark.mllib.evaluation.RankingMetrics`` (the RDD API,
  which takes text ids), on seeded random rows with empty label arrays, repeated
  predictions and k beyond the lists; inside a ``CrossValidator`` over an ALS grid;
- bad rows: a clear error naming the column and the row.

One local[2] session serves the module (``spark`` fixture); the DataFrames are small.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("pyspark")

import prfeval
import prfeval.spark
from prfeval._core.errors import InputFormatError, MeasureError, UsageError

MLLIB = ("meanAveragePrecision", "meanAveragePrecisionAtK", "precisionAtK", "ndcgAtK",
         "recallAtK")
MEASURES = "AP P@5 P@10 R@10 nDCG@10 nDCG RR@10 SetF NumRet"


def random_rows(seed: int, n: int = 160, items: int = 40) -> list[tuple[list[int], list[int]]]:
    """Seeded (prediction, label) rows: lists of 0 to 25 ids with repeats (drawn with
    replacement), labels of 0 to 8 ids (some repeated); a few fixed edge rows."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        pred = rng.integers(0, items, int(rng.integers(0, 26))).tolist()
        label = rng.integers(0, items, int(rng.integers(0, 9))).tolist()
        rows.append((pred, label))
    rows += [([1, 1, 2], [1]), ([], [3, 4]), ([5, 6], []), ([7], [7, 7, 8])]
    return rows


def local_inputs(rows, ids=str):
    """The rows as the local engine's dicts: judgments of the labelled rows (grade 1), and
    ranked lists (query id = row number)."""
    qrels = {str(i): {ids(d): 1 for d in label} for i, (_, label) in enumerate(rows) if label}
    run = {str(i): [ids(d) for d in pred] for i, (pred, _) in enumerate(rows)}
    return qrels, run


@pytest.fixture(scope="module")
def rows():
    return random_rows(46)


@pytest.fixture(scope="module")
def doubles(spark, rows):
    data = [(i, [float(x) for x in p], [float(x) for x in lab]) for i, (p, lab) in enumerate(rows)]
    return spark.createDataFrame(data, "qid long, prediction array<double>, label array<double>")


def test_measures_equal_the_local_engine(spark, rows, doubles):
    result = prfeval.spark.evaluate(doubles, MEASURES, query_col="qid")
    qrels, run = local_inputs(rows)
    local = prfeval.evaluate(qrels, run, MEASURES)
    assert result.macro == local.macro
    assert result.micro == local.micro
    assert set(result.n_queries.values()) == {local.accounting.evaluated}
    # Rows with an empty label array are left out of the mean and counted.
    empty = sum(1 for _, label in rows if not label)
    assert result.skipped == {"missing_from_run": 0, "not_in_qrels": empty}
    assert result.accounting.duplicates == local.accounting.duplicates > 0
    collected = result.to_evaluation()
    assert list(collected.query_ids) == list(local.query_ids)
    np.testing.assert_array_equal(collected.values, local.values)


@pytest.mark.parametrize("kind", ["long", "string"])
def test_long_and_text_ids(spark, rows, kind):
    cast = int if kind == "long" else (lambda x: f"doc-{x}")
    data = [(str(i), [cast(x) for x in p], [cast(x) for x in lab])
            for i, (p, lab) in enumerate(rows)]
    frame = spark.createDataFrame(
        data, f"q string, prediction array<{kind}>, label array<{kind}>"
    )
    result = prfeval.spark.evaluate(frame, MEASURES, query_col="q")
    local = prfeval.evaluate(*local_inputs(rows, ids=lambda x: str(cast(x))), MEASURES)
    assert result.macro == local.macro


def test_without_a_query_column_and_one_pass(spark, rows, doubles):
    result = prfeval.spark.evaluate(doubles.drop("qid"), "AP P@10")
    local = prfeval.evaluate(*local_inputs(rows), "AP P@10")
    assert result.macro == local.macro
    assert result.per_query.count() == 2 * local.accounting.evaluated


def test_graded_labels_equal_the_local_engine(spark):
    rng = np.random.default_rng(7)
    data, qrels, run = [], {}, {}
    for i in range(60):
        pred = rng.choice(30, int(rng.integers(1, 15)), replace=False).tolist()
        label = rng.choice(30, int(rng.integers(1, 6)), replace=False).tolist()
        grades = rng.integers(0, 4, len(label)).tolist()
        data.append((str(i), pred, label, grades))
        qrels[str(i)] = {str(d): g for d, g in zip(label, grades, strict=True)}
        run[str(i)] = [str(d) for d in pred]
    frame = spark.createDataFrame(
        data, "q string, prediction array<int>, label array<int>, rel array<int>"
    )
    names = "nDCG@10 AP P(rel=2)@5 ERR@10"
    result = prfeval.spark.evaluate(frame, names, query_col="q", relevance_col="rel")
    assert result.macro == prfeval.evaluate(qrels, run, names).macro


def test_pytrec_eval_on_rows_without_repeats(spark):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(11)
    data, qrels, run = [], {}, {}
    for i in range(80):
        pred = rng.choice(50, int(rng.integers(1, 30)), replace=False).tolist()
        label = rng.choice(50, int(rng.integers(1, 8)), replace=False).tolist()
        data.append((pred, label))
        qrels[str(i)] = {str(d): 1 for d in label}
        run[str(i)] = {str(d): float(len(pred) - r) for r, d in enumerate(pred)}
    frame = spark.createDataFrame(data, "prediction array<long>, label array<long>")
    result = prfeval.spark.evaluate(frame, "AP P@10 nDCG@10 R@10 RR")
    per_query = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P_10", "ndcg_cut_10", "recall_10", "recip_rank"}
    ).evaluate(run)
    for ours, theirs in (("AP", "map"), ("P@10", "P_10"), ("nDCG@10", "ndcg_cut_10"),
                         ("R@10", "recall_10"), ("RR", "recip_rank")):
        mean = math.fsum(v[theirs] for v in per_query.values()) / len(per_query)
        assert result.macro[ours] == pytest.approx(mean, abs=1e-12)


# -- the drop-in ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 3, 10, 16, 17, 40])
def test_drop_in_equals_mllib(spark, doubles, k):
    from pyspark.ml.evaluation import RankingEvaluator as MLlibEvaluator

    from prfeval.spark import RankingEvaluator

    for metric in MLLIB:
        theirs = MLlibEvaluator(metricName=metric, k=k).evaluate(doubles)
        ours = RankingEvaluator(metricName=metric, k=k).evaluate(doubles)
        assert ours == pytest.approx(theirs, abs=1e-9), (metric, k)


def test_drop_in_mllib_conventions(spark):
    from prfeval.spark import RankingEvaluator

    one = spark.createDataFrame([([1.0, 1.0, 2.0], [1.0])], "prediction array<double>, "
                                "label array<double>")
    assert RankingEvaluator().evaluate(one) == 2.0  # a repeat counts at every place
    assert RankingEvaluator(metricName="precisionAtK", k=10).evaluate(one) == 0.2
    empty = spark.createDataFrame([([1.0], [])], "prediction array<double>, label array<double>")
    assert RankingEvaluator(metricName="ndcgAtK").evaluate(empty) == 0.0
    assert math.isnan(RankingEvaluator().evaluate(empty.limit(0)))


def test_drop_in_text_ids_equal_mllib_rdd_api(spark, rows):
    from pyspark.mllib.evaluation import RankingMetrics

    from prfeval.spark import RankingEvaluator

    data = [([f"d{x}" for x in p], [f"d{x}" for x in lab]) for p, lab in rows]
    frame = spark.createDataFrame(data, "prediction array<string>, label array<string>")
    metrics = RankingMetrics(spark.sparkContext.parallelize(data, 3))
    expected = {
        "meanAveragePrecision": metrics.meanAveragePrecision,
        "meanAveragePrecisionAtK": metrics.meanAveragePrecisionAt(5),
        "precisionAtK": metrics.precisionAt(5),
        "ndcgAtK": metrics.ndcgAt(5),
        "recallAtK": metrics.recallAt(5),
    }
    for metric, value in expected.items():
        ours = RankingEvaluator(metricName=metric, k=5).evaluate(frame)
        assert ours == pytest.approx(value, abs=1e-9), metric


def test_drop_in_params_as_mllib(spark):
    from pyspark.ml.evaluation import RankingEvaluator as MLlibEvaluator

    from prfeval.spark import RankingEvaluator

    ours, theirs = RankingEvaluator(), MLlibEvaluator()
    for get in ("getPredictionCol", "getLabelCol", "getMetricName", "getK"):
        assert getattr(ours, get)() == getattr(theirs, get)()
    assert {p.name for p in theirs.params} <= {p.name for p in ours.params}
    ours.setK(3).setMetricName("ndcgAtK").setLabelCol("l").setPredictionCol("p")
    copied = ours.copy({ours.k: 7})
    assert (copied.getK(), copied.getMetricName(), copied.getLabelCol()) == (7, "ndcgAtK", "l")
    assert ours.getK() == 3 and ours.isLargerBetter()
    assert RankingEvaluator(metricName="RR@10").isLargerBetter()


def test_drop_in_takes_prfeval_measures(spark, rows, doubles):
    from prfeval.spark import RankingEvaluator

    local = prfeval.evaluate(*local_inputs(rows), "RR@10 nDCG@10")
    for name in ("RR@10", "nDCG@10"):
        assert RankingEvaluator(metricName=name).evaluate(doubles) == local.macro[name]
    with pytest.raises(MeasureError, match="nDCG"):
        RankingEvaluator(metricName="nDGC@10").evaluate(doubles)
    with pytest.raises(UsageError, match="k must be at least 1"):
        RankingEvaluator(metricName="precisionAtK", k=0).evaluate(doubles)


def test_cross_validator_picks_the_same_model(spark):
    from pyspark.ml import Estimator, Model
    from pyspark.ml.evaluation import RankingEvaluator as MLlibEvaluator
    from pyspark.ml.recommendation import ALS
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder
    from pyspark.sql import functions as F

    from prfeval.spark import RankingEvaluator

    class Ranked(Model):
        """Each user's top 10 items by the ALS model, beside the items they rated 4+."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def _transform(self, dataset):
            recs = self.model.recommendForUserSubset(dataset.select("user").distinct(), 10)
            liked = dataset.where("rating >= 4").groupBy("user").agg(
                F.collect_set(F.col("item").cast("double")).alias("label"))
            return recs.select("user", F.transform("recommendations",
                                                   lambda r: r["item"].cast("double"))
                               .alias("prediction")).join(liked, "user")

    class RankedALS(Estimator):
        def __init__(self, als):
            super().__init__()
            self.als = als

        def _fit(self, dataset):
            return Ranked(self.als.fit(dataset))

        def copy(self, extra=None):
            extra = extra or {}
            als = self.als.copy({self.als.getParam(p.name): v for p, v in extra.items()
                                 if self.als.hasParam(p.name)})
            return RankedALS(als)

    rng = np.random.default_rng(5)
    ratings = [(int(u), int(i), float(rng.integers(1, 6)))
               for u in range(20) for i in rng.choice(30, 12, replace=False)]
    frame = spark.createDataFrame(ratings, "user int, item int, rating float").cache()
    als = ALS(userCol="user", itemCol="item", ratingCol="rating", seed=1, maxIter=3,
              coldStartStrategy="drop")
    grid = ParamGridBuilder().addGrid(als.regParam, [0.01, 3.0]).build()
    grid = [{RankedALS(als).als.getParam(p.name): v for p, v in m.items()} for m in grid]

    def searched(evaluator):
        cv = CrossValidator(estimator=RankedALS(als), estimatorParamMaps=grid,
                            evaluator=evaluator, numFolds=2, seed=3)
        return cv.fit(frame).avgMetrics

    theirs = searched(MLlibEvaluator(metricName="ndcgAtK", k=10))
    ours = searched(RankingEvaluator(metricName="ndcgAtK", k=10))
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)
    assert int(np.argmax(ours)) == int(np.argmax(theirs))
    assert len(set(np.round(theirs, 6))) > 1  # the grid's models differ: the choice means something


# -- bad rows ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "schema", "message"),
    [
        ([([1.0, None], [1.0])], "prediction array<double>, label array<double>",
         r"column 'prediction': item 2 is null in the row with prediction=\[1.0, None\]"),
        ([(None, [1.0])], "prediction array<double>, label array<double>",
         r"column 'prediction' is null: expected an array"),
        ([([1.0], [float("nan")])], "prediction array<double>, label array<double>",
         r"column 'label': item 1 is NaN, not an id"),
        ([([1], ["a"])], "prediction array<long>, label array<string>",
         r"hold ids of two kinds"),
    ],
)
def test_bad_rows_name_the_column_and_row(spark, data, schema, message):
    from prfeval.spark import RankingEvaluator

    frame = spark.createDataFrame(data, schema)
    with pytest.raises(InputFormatError, match=message):
        prfeval.spark.evaluate(frame, "AP")
    with pytest.raises(InputFormatError, match=message):
        RankingEvaluator().evaluate(frame)
    with pytest.raises(InputFormatError, match=message):  # a metric at k
        RankingEvaluator(metricName="ndcgAtK", k=10).evaluate(frame)


def test_bad_grades_and_columns(spark):
    frame = spark.createDataFrame(
        [("q1", [1], [1, 2], [1])], "q string, prediction array<int>, label array<int>, "
        "rel array<int>")
    with pytest.raises(InputFormatError, match=r"'rel' has 1 values but 'label' has 2 in row "
                                               r"q='q1'"):
        prfeval.spark.evaluate(frame, "nDCG", relevance_col="rel", query_col="q")
    with pytest.raises(UsageError, match="no column 'labels'"):
        prfeval.spark.evaluate(frame, "AP", label_col="labels")
    structs = spark.createDataFrame([([(True,)], [1])], "prediction array<struct<ok:boolean>>, "
                                    "label array<int>")
    with pytest.raises(InputFormatError, match=r"id field 'ok' is boolean"):
        prfeval.spark.evaluate(structs, "AP")
