"""A run whose doc ids are plain list columns (Parquet, DataFrames, Arrow tables) is read
straight from Arrow's list buffers (:func:`prfeval._io.lists.plain_lists`): the same run as
the general flattening gives, column by column, for every list type it takes, and the
general reader's words for every table it gives back."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from prfeval._core.errors import InputFormatError
from prfeval._io import lists, tabular
from prfeval._io.load import load_run


def _table(seed: int, ints: bool = False) -> pa.Table:
    rng = np.random.default_rng(seed)
    queries, docs, scores = [], [], []
    for q in range(25):
        k = 0 if q == 3 else int(rng.integers(1, 12))
        picked = rng.integers(0, 30, size=k)
        queries.append(f"q{q % 20}")  # q0..q4 on two rows
        docs.append([int(i) for i in picked] if ints else [f"d{i}" for i in picked])
        scores.append([float(s) for s in np.round(rng.random(k) * 5, 1)])
    return pa.table({"qid": queries, "doc_id": docs, "score": scores})


def _both(table: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    fast = load_run(table)
    assert isinstance(fast.extra.get("lists"), lists.ListRows)
    with monkeypatch.context() as m:
        m.setattr(tabular, "plain_lists", lambda *a: None)
        general = load_run(table)
    return fast, general


def _same(fast: Any, general: Any) -> None:
    assert fast.query_ids.to_pylist() == general.query_ids.to_pylist()
    assert fast.doc_ids.to_pylist() == general.doc_ids.to_pylist()
    np.testing.assert_array_equal(fast.scores, general.scores)
    np.testing.assert_array_equal(fast.ranks, general.ranks)
    assert fast.default_order == general.default_order
    assert fast.extra.get("empty_queries") == general.extra.get("empty_queries")
    np.testing.assert_array_equal(fast.extra["lists"].lengths, general.extra["lists"].lengths)
    every = np.arange(len(fast.doc_ids))
    np.testing.assert_array_equal(fast.source.line_numbers[every],
                                  general.source.line_numbers[every])
    assert [fast.source.line_of(i) for i in every] == [general.source.line_of(i) for i in every]


@pytest.mark.parametrize("ints", [False, True])
@pytest.mark.parametrize(
    "shape", ["plain", "large", "sliced", "chunked", "float32", "integer scores", "no scores"]
)
def test_plain_lists_give_the_flattened_run(
    ints: bool, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _table(4 + ints, ints=ints)
    if shape == "large":
        kind = pa.large_list(pa.int64() if ints else pa.large_string())
        table = table.set_column(1, "doc_id", table.column("doc_id").cast(kind))
        scores = table.column("score").cast(pa.large_list(pa.float64()))
        table = table.set_column(2, "score", scores)
    elif shape == "sliced":
        table = table.slice(2, 17)
    elif shape == "chunked":
        table = pa.concat_tables([table.slice(0, 9), table.slice(9)])
    elif shape == "float32":
        table = table.set_column(2, "score", table.column("score").cast(pa.list_(pa.float32())))
    elif shape == "integer scores":
        rounded = [[int(x * 10) for x in row] for row in table.column("score").to_pylist()]
        table = table.set_column(2, "score", pa.array(rounded, pa.list_(pa.int64())))
    elif shape == "no scores":
        table = table.drop_columns(["score"])
    _same(*_both(table, monkeypatch))


def test_a_parquet_file_and_dataframes(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(7)
    pq.write_table(table, tmp_path / "run.parquet")
    _same(*_both(str(tmp_path / "run.parquet"), monkeypatch))
    pl = pytest.importorskip("polars")
    _same(*_both(pl.from_arrow(table), monkeypatch))


@pytest.mark.parametrize(
    "change",
    ["null list", "null id", "empty id", "NaN score", "lengths differ", "text scores", "objects"],
)
def test_what_is_not_plain_is_flattened(change: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _table(8).to_pylist()
    row = rows[5]
    if change == "null list":
        row["doc_id"] = None
    elif change == "null id":
        row["doc_id"][0] = None
    elif change == "empty id":
        row["doc_id"][0] = ""
    elif change == "NaN score":
        row["score"][0] = float("nan")
    elif change == "lengths differ":
        row["score"] = row["score"][1:]
    elif change == "text scores":
        for r in rows:
            r["score"] = [str(x) for x in r["score"]]
    elif change == "objects":
        for r in rows:
            r["doc_id"] = [{"id": d} for d in r["doc_id"]]
            del r["score"]
    table = pa.Table.from_pylist(rows)
    names = tabular.run_columns(table, None, "t")
    assert lists.plain_lists(table, names.doc_id, names.score, names.rank) is None
    outcomes = []
    for plain in (lists.plain_lists, lambda *a: None):
        monkeypatch.setattr(tabular, "plain_lists", plain)
        try:
            outcomes.append(load_run(table).doc_ids.to_pylist())
        except InputFormatError as exc:
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]


def test_without_ranks_a_list_runs_places_are_left_out(tmp_path: Any) -> None:
    """``ranks=False`` (what an evaluation ordered by score asks): no place a passage, as a
    TREC run's rank column is skipped; ``order="rank"`` still ranks by the places."""
    import prfeval

    table = _table(11)
    pq.write_table(table, tmp_path / "run.parquet")
    run = load_run(str(tmp_path / "run.parquet"), ranks=False)
    assert run.ranks is None and run.scores is not None
    gold = {f"q{q}": {"d1": 1, "d7": 2} for q in range(20)}
    by_rank = prfeval.evaluate(gold, str(tmp_path / "run.parquet"), ["P@2"], order="rank")
    queries = table.column("qid").to_pylist()
    checked = 0
    for q, docs in zip(queries, table.column("doc_id").to_pylist(), strict=True):
        if queries.count(q) == 1 and docs and len(set(docs[:2])) == 2:  # one row, no repeat
            want = len({d for d in docs[:2] if d in ("d1", "d7")}) / 2
            assert by_rank.per_query[q]["P@2"] == want, q
            checked += 1
    assert checked > 5


def test_a_parquet_list_run_is_read_without_pandas(tmp_path: Any) -> None:
    """Arrow converts a Python scalar given to a compute function through its pandas check,
    which imports pandas (0.3 s): the plain lists' checks are numpy's."""
    import subprocess
    import sys

    pq.write_table(_table(12), tmp_path / "run.parquet")
    code = ("import sys, prfeval\n"
            f"r = prfeval.evaluate({{'q1': {{'d1': 1}}}}, {str(tmp_path / 'run.parquet')!r}, "
            "['P@1'])\n"
            "print(sorted(m for m in ('pandas', 'polars') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
