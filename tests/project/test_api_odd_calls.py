"""Every public function, given an odd value where an input belongs, either works or raises
a :class:`~prfeval._core.errors.PrfevalError`: never a TypeError, an Arrow error or a
RecursionError from deep inside (STYLE.md rule 6).

The values are what users hand over by mistake or by habit: None, numbers, text and byte
streams, lazy and empty frames, nested and null-holding mappings, Arrow columns of the wrong
type, a folder, a missing path.
"""

from __future__ import annotations

import io
import pathlib
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import prfeval

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

QRELS = {"q1": {"a": 1, "b": 0}}
RUN = {"q1": {"a": 2.0, "c": 1.0}}


def odd_values() -> dict[str, Any]:
    return {
        "None": None, "int": 1, "float": 1.5, "nan": float("nan"), "missing path": "/no/such",
        "empty str": "", "bytes": b"q1 0 a 1\n", "empty bytes": b"", "list": [],
        "list of str": ["a"], "empty dict": {}, "set": {"a"}, "object": object(),
        "empty StringIO": io.StringIO(""), "binary BytesIO": io.BytesIO(b"\x00\x01"),
        "LazyFrame": pl.DataFrame({"x": [1]}).lazy(), "empty pandas": pd.DataFrame(),
        "empty polars": pl.DataFrame(), "empty Arrow": pa.table({}), "numpy": np.array([1, 2]),
        "generator": (x for x in [1]), "query None": {"q": None}, "grade None": {"q": {"a": None}},
        "grade text": {"q": {"a": "x"}}, "grade nan": {"q": {"a": float("nan")}},
        "int keys": {1: {2: 3}}, "list of ints": {"q": [1, 2]},
        "grade 10**30": {"q": {"a": 10**30}},
        "grade True": {"q": {"a": True}}, "grade inf": {"q": {"a": float("inf")}},
        "tuple": {"q": ("a", "b")}, "nested": {"q": {"a": {"b": 1}}},
        "Arrow dictionary with a null": pa.table({
            "query_id": pa.array(["q1", None]).dictionary_encode(), "doc_id": ["a", "b"],
            "score": [1.0, 2.0]}),
        "Arrow integer ids": pa.table({"query_id": [1, 2], "doc_id": [3, 4], "score": [1.0, 2.0]}),
        "pandas mixed objects": pd.DataFrame({"query_id": ["q1", 2], "doc_id": ["a", None],
                                              "score": [1.0, "x"]}),
        "pandas categorical": pd.DataFrame({"query_id": pd.Categorical(["q1"]), "doc_id": ["a"],
                                            "relevance": [1]}),
        "polars null": pl.DataFrame({"query_id": ["q1", None], "doc_id": ["a", "b"],
                                     "relevance": [1, 1]}),
        "polars struct": pl.DataFrame({"query_id": ["q1"], "doc_id": [{"x": 1}], "relevance": [1]}),
        "Path": pathlib.Path("/no/such"), "folder": "/",
    }  # fmt: skip


CALLS: dict[str, Callable[[Any], Any]] = {
    "evaluate(qrels=)": lambda v: prfeval.evaluate(v, RUN, "P@1"),
    "evaluate(run=)": lambda v: prfeval.evaluate(QRELS, v, "P@1"),
    "evaluate(measures=)": lambda v: prfeval.evaluate(QRELS, RUN, v),
    "curve(run=)": lambda v: prfeval.curve(QRELS, v),
    "compare(runs=)": lambda v: prfeval.compare(QRELS, v, "P@1"),
    "compare(a run)": lambda v: prfeval.compare(
        QRELS, {"a": RUN, "b": v}, "P@1", n_bootstrap=10, n_permutations=10
    ),
    "explain(query=)": lambda v: prfeval.explain(QRELS, RUN, v),
    "classify(y_true=)": lambda v: prfeval.classify(v, ["a"]),
    "score_measures(y_true=)": lambda v: prfeval.score_measures(v, [0.5]),
    "score_measures(scores=)": lambda v: prfeval.score_measures([1], v),
    "recall_at_k(retrieved=)": lambda v: prfeval.recall_at_k(v, ["a"], k=1),
    "recall_at_k(k=)": lambda v: prfeval.recall_at_k(["a"], ["a"], k=v),
}


@pytest.mark.parametrize("call", list(CALLS), ids=list(CALLS))
def test_odd_values_raise_prfeval_errors_only(call: str) -> None:
    wrong = []
    for name, value in odd_values().items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                CALLS[call](value)
            except prfeval.PrfevalError:
                pass
            except Exception as exc:  # the defect this test is for
                wrong.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not wrong, "\n".join(wrong)


def test_text_streams_and_lazy_frames_are_read() -> None:
    """A text stream is read as its text would be from a file; a LazyFrame is collected."""
    assert prfeval.evaluate(io.StringIO("q1 0 a 1\n"), RUN, "P@1").macro == {"P@1": 1.0}
    assert prfeval.evaluate(QRELS, io.StringIO("q1 Q0 c 1 9 r\nq1 Q0 a 2 1 r\n"),
                            "P@1").macro == {"P@1": 0.0}
    lazy = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]}).lazy()
    assert prfeval.evaluate(QRELS, lazy, "P@1").macro == {"P@1": 1.0}
