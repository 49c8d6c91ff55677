"""``to_frame(kind=...)``: every result's DataFrames in pandas and in polars hold the same
columns and values, those values agree with independent sources (pytrec_eval,
scikit-learn), and a kind that is not a DataFrame library is refused. (Without either
library: tests/cli/test_missing_extras.py hides them.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
import pytrec_eval
from sklearn.metrics import precision_recall_fscore_support

import prfeval
from support.random_data import Noisy, distinct, judged_runs


def _case():
    qrels, (a, b) = judged_runs(3, queries=[f"q{i}" for i in range(6)], n_docs=20, judged=14,
                                grades=(0, 2), retrieved=12, scores=distinct(),
                                also=[Noisy(sd=6.0, decimals=3)])  # fmt: skip
    return qrels, a, b


def _same(pandas_frame: pd.DataFrame, polars_frame: pl.DataFrame, index: str | None = None):
    """The two frames hold the same columns, in order, with the same values (NaN and nulls
    alike)."""
    assert isinstance(pandas_frame, pd.DataFrame) and isinstance(polars_frame, pl.DataFrame)
    if index is not None:
        assert polars_frame.columns[0] == index
        assert polars_frame[index].to_list() == [str(x) for x in pandas_frame.index]
        polars_frame = polars_frame.drop(index)
    assert list(pandas_frame.columns) == polars_frame.columns
    for name in pandas_frame.columns:
        ours = [None if v is pd.NA or (isinstance(v, float) and np.isnan(v)) else v
                for v in pandas_frame[name].tolist()]
        theirs = [None if isinstance(v, float) and np.isnan(v) else v
                  for v in polars_frame[name].to_list()]
        assert ours == theirs, name


def test_an_evaluations_frames_in_pandas_and_polars_hold_pytrec_evals_values():
    qrels, run, _ = _case()
    e = prfeval.evaluate(qrels, run, "P@5 AP")
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "map"}).evaluate(run)
    frame = e.to_frame()
    assert isinstance(frame, pd.DataFrame)  # pandas is the default when installed
    _same(frame, e.to_frame(kind="polars"))
    got = {(q, m): v for q, m, v in frame.itertuples(index=False)}
    assert got == pytest.approx({(q, m): ref[q][key] for q in ref
                                 for m, key in (("P@5", "P_5"), ("AP", "map"))}, abs=1e-12)
    _same(e.summary_frame(), e.summary_frame(kind="polars"))
    assert e.summary_frame(kind="pandas")["macro"].tolist() == pytest.approx(
        [np.mean([v["P_5"] for v in ref.values()]), np.mean([v["map"] for v in ref.values()])],
        abs=1e-12)


def test_comparison_curve_and_explanation_frames_agree_in_both_libraries():
    qrels, a, b = _case()
    c = prfeval.compare(qrels, {"a": a, "b": b}, "P@5 NumRet", n_permutations=200)
    _same(c.to_frame(), c.to_frame(kind="polars"))
    wins = c.to_frame(kind="polars")["wins"].to_list()
    assert wins[0] is None and isinstance(wins[1], int)  # the baseline is not tested
    _same(c.per_query_frame(), c.per_query_frame(kind="polars"))
    cu = prfeval.curve(qrels, a)
    _same(cu.to_frame(), cu.to_frame(kind="polars"))
    _same(cu.averages_frame(), cu.averages_frame(kind="polars"))
    x = prfeval.explain(qrels, a, "q1", "P@5")
    _same(x.to_frame(), x.to_frame(kind="polars"))


def test_classification_frames_agree_in_both_libraries_and_with_sklearn():
    rng = np.random.default_rng(4)
    y_true = rng.integers(0, 3, 60).tolist()
    y_pred = [t if rng.random() < 0.7 else int(rng.integers(0, 3)) for t in y_true]
    r = prfeval.classify(y_true, y_pred)
    frame = r.to_frame()
    _same(frame, r.to_frame(kind="polars"), index="label")
    p, rec, f, support = precision_recall_fscore_support(y_true, y_pred)
    classes = frame[frame["row"] == "class"]
    assert classes["precision"].tolist() == pytest.approx(p.tolist(), abs=1e-12)
    assert classes["recall"].tolist() == pytest.approx(rec.tolist(), abs=1e-12)
    assert classes["f"].tolist() == pytest.approx(f.tolist(), abs=1e-12)
    assert classes["support"].tolist() == support.tolist()
    scores = rng.random(60) + 0.3 * (np.array(y_true) == 1)
    sweep = prfeval.threshold_sweep(np.array(y_true) == 1, scores)
    _same(sweep.to_frame(), sweep.to_frame(kind="polars"))


def test_a_kind_that_is_no_dataframe_library_is_refused():
    qrels, run, _ = _case()
    e = prfeval.evaluate(qrels, run, "P@5")
    with pytest.raises(prfeval.UsageError, match="kind='excel' is not a DataFrame library"):
        e.to_frame(kind="excel")  # type: ignore[arg-type]
