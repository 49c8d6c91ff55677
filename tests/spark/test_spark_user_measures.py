"""A measure a user defines in a file of their own runs on Spark's executors (local[2]): the
function travels with the plan, and gives the hand-computed values."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark")

import prfeval
import prfeval.spark
from prfeval._core.errors import MeasureError
from prfeval._measures import REGISTRY, forget_user_measure
from prfeval._measures.declare import load_measures
from support.user_measures import LIN_DCG_2, write


@pytest.fixture
def files(tmp_path):
    before = set(REGISTRY)
    paths = write(tmp_path)
    load_measures(paths["measures.py"])
    yield paths
    for name in set(REGISTRY) - before:
        forget_user_measure(name)


def test_a_users_measure_gives_the_hand_values_on_the_executors(spark, files) -> None:
    result = prfeval.spark.evaluate(files["qrels"], files["a.run"], "LinDCG@2 P@2",
                                    spark=spark)
    e = result.to_evaluation()
    for q, value in LIN_DCG_2["A"].items():
        assert e.per_query[q]["LinDCG@2"] == pytest.approx(value, rel=1e-12)
    assert e.macro["LinDCG@2"] == pytest.approx(sum(LIN_DCG_2["A"].values()) / 3, rel=1e-12)
    local = prfeval.evaluate(files["qrels"], files["a.run"], "LinDCG@2 P@2")
    assert e.macro == pytest.approx(local.macro, rel=1e-12)


def test_a_failing_measure_is_named_from_the_executors(spark, files) -> None:
    with pytest.raises(MeasureError, match=r"measure 'Raises'.*ZeroDivisionError.*'q2'"):
        prfeval.spark.evaluate(files["qrels"], files["a.run"], "Raises", spark=spark)


def test_the_command_line_with_measures_from_prints_what_the_local_engine_prints(
    spark, files, capsys
) -> None:
    from support.cli import run_cli

    argv = ["evaluate", files["qrels"], files["b.run"], "-m", "LinDCG@2 P@2",
            "--measures-from", files["measures.py"], "--format", "json", "-q"]
    local = run_cli(capsys, *argv)
    on_spark = run_cli(capsys, *argv, "--engine", "spark")
    assert on_spark == local and local[0] == 0
    import json

    per_query = json.loads(on_spark[1])["per_query"]
    for q, value in LIN_DCG_2["B"].items():
        assert per_query[q]["LinDCG@2"] == pytest.approx(value, rel=1e-12)
