"""The Spark engine's executor side, without Spark: the carry-over of a query cut across
Arrow batches, the per-query rows and their reduction, against the local engine.

``mapInArrow`` hands a partition to Python as record batches cut with no regard for queries;
these tests cut a sorted union of run rows and judgments the same way (every row its own
batch, odd sizes, one batch) and check that what the executors would emit adds up to the
local engine's evaluation, to the last digit.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prfeval
from prfeval._core.errors import InputFormatError, UsageError
from prfeval._core.options import EvalOptions
from prfeval._measures import parse_measures
from prfeval._retrieval.evaluate import coverage_measures
from prfeval.spark._blocks import BlockFrame, block_of, whole_queries
from prfeval.spark._layout import decode_moments, encode_moments
from prfeval.spark._partition import (
    Plan,
    error_from,
    error_text,
    measure_batches,
    portable,
    reduce_batches,
)

MEASURES = "NumQ NumRet NumRel NumRelRet SetP SetR SetF P@5 P@10 R@10 F@10 Rprec IPrec@0.5 Judged@5"


def batches_of(table: pa.Table, size: int) -> list[pa.RecordBatch]:
    """``table`` cut into record batches of ``size`` rows, as Arrow streams a partition."""
    return table.to_batches(max_chunksize=size)


def keyed(qids: list[str]) -> pa.Table:
    return pa.table({"query_id": qids, "n": list(range(len(qids)))})


@given(
    st.lists(st.integers(0, 6), min_size=0, max_size=60),
    st.integers(1, 9),
    st.integers(1, 30),
)
@settings(max_examples=200, deadline=None)
def test_whole_queries_never_cut_a_query_and_keep_every_row(keys, size, min_rows):
    qids = [f"q{k}" for k in sorted(keys)]
    tables = list(whole_queries(batches_of(keyed(qids), size), min_rows=min_rows))
    rows = [n for t in tables for n in t.column("n").to_pylist()]
    assert rows == list(range(len(qids)))  # every row once, in order
    seen: set[str] = set()
    for t in tables:
        ids = set(t.column("query_id").to_pylist())
        assert not ids & seen, "a query in two blocks"
        seen |= ids
    # A block is cut once min_rows wait, less the last query, which is carried over.
    largest = max((qids.count(q) for q in set(qids)), default=0)
    for t in tables[:-1]:
        assert t.num_rows + largest >= min_rows


def test_one_query_across_many_batches_is_one_block():
    qids = ["a"] * 50 + ["b"] * 3 + ["c"] * 40
    tables = list(whole_queries(batches_of(keyed(qids), 7), min_rows=1))
    # "a" spans 8 batches and "c" 6: each comes whole, "b" with the end of "a".
    assert [t.column("query_id").to_pylist() for t in tables] == [["a"] * 50 + ["b"] * 3,
                                                                   ["c"] * 40]


def test_empty_batches_are_skipped():
    empty = pa.RecordBatch.from_pydict({"query_id": pa.array([], pa.string()), "n": []})
    batch = keyed(["a", "a"]).to_batches()[0]
    assert [t.num_rows for t in whole_queries([empty, batch, empty])] == [2]
    assert list(whole_queries([])) == []


# -- the executors' rows against the local engine ----------------------------------------------


def random_tables(seed: int) -> tuple[pa.Table, pa.Table]:
    """Judgments with negative grades and a run with ties and repeated documents; some
    queries only judged, some only in the run."""
    rng = np.random.default_rng(seed)
    q, d, g = [], [], []
    for i in range(30):
        for doc in rng.choice(40, int(rng.integers(1, 20)), replace=False):
            q.append(f"q{i}")
            d.append(f"d{doc}")
            g.append(int(rng.choice([-1, 0, 0, 1, 2])))
    qrels = pa.table({"query_id": q, "doc_id": d, "relevance": g})
    q, d, s = [], [], []
    for i in range(4, 34):
        n = int(rng.integers(0, 30))
        for doc in rng.integers(0, 40, n):  # repeats on purpose
            q.append(f"q{i}")
            d.append(f"d{doc}")
            s.append(float(rng.integers(0, 4)))
    run = pa.table({"query_id": q, "doc_id": d, "score": s})
    return qrels, run


def union_of(qrels: pa.Table, run: pa.Table) -> pa.Table:
    """The engine's union, sorted as the engine sorts a partition by score order: by query,
    within a query in no particular order (here a random one)."""
    n_j, n_r = qrels.num_rows, run.num_rows
    table = pa.table(
        {
            "query_id": pa.concat_arrays(
                [qrels.column("query_id").combine_chunks(), run.column("query_id").combine_chunks()]
            ),
            "doc_id": pa.concat_arrays(
                [qrels.column("doc_id").combine_chunks(), run.column("doc_id").combine_chunks()]
            ),
            "grade": pa.array(qrels.column("relevance").to_pylist() + [None] * n_r, pa.int64()),
            "score": pa.array([None] * n_j + run.column("score").to_pylist(), pa.float64()),
            "shuffle": np.random.default_rng(0).permutation(n_j + n_r),
        }
    )
    return table.sort_by(
        [("query_id", "ascending"), ("shuffle", "ascending")]
    ).drop(["shuffle"])


def plan_for(measures: str, options: EvalOptions, *, bounds: bool = False, block_rows: int = 1):
    parsed = parse_measures(measures)
    cutoffs, hidden = coverage_measures(parsed)
    frame = BlockFrame("qrels table", "run table")
    return Plan(
        portable([*parsed, *hidden]), len(parsed), tuple(cutoffs), options, frame, bounds,
        block_rows,
    )


def reduced(plan: Plan, union: pa.Table, size: int, parts: int = 3):
    """The totals of the union split into ``parts`` partitions (by query) of batches."""
    layout = plan.layout
    ids = sorted(set(union.column("query_id").to_pylist()))
    rows = []
    for p in range(parts):
        mine = pa.array([q for i, q in enumerate(ids) if i % parts == p], pa.string())
        import pyarrow.compute as pc

        part = union.filter(pc.is_in(union.column("query_id"), value_set=mine))
        out = list(measure_batches(plan, batches_of(part, size)))
        rows.append(pa.Table.from_batches(out, schema=layout.schema))
        (partial,) = reduce_batches(plan, (b for t in rows[-1:] for b in t.to_batches()))
        rows[-1] = (rows[-1], partial)
    partials = pa.Table.from_batches([p for _, p in rows])
    return layout.totals(partials), pa.concat_tables([t for t, _ in rows])


@pytest.mark.parametrize("size", [1, 7, 10_000])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"complete": True},
        {"level": 2, "duplicates": "first"},
        {"unjudged": "relevant", "max_results": 5},
        {"judged_only": True},
    ],
    ids=["default", "complete", "level2-first", "relevant-M5", "J"],
)
def test_partitions_of_batches_add_up_to_the_local_evaluation(size, options):
    from prfeval.spark._result import averages

    qrels, run = random_tables(5)
    opts = EvalOptions(**options)
    local = prfeval.evaluate(qrels, run, MEASURES, options=opts)
    plan = plan_for(MEASURES, opts)
    totals, rows = reduced(plan, union_of(qrels, run), size)
    macro, micro, f_of_means, _ = averages(plan.measures, totals, plan.layout, "")
    labels = local.labels
    assert {k: macro[k] for k in labels} == local.macro
    assert {k: micro[k] for k in labels if k in micro} == local.micro
    assert {k: f_of_means[k] for k in labels if k in f_of_means} == local.f_of_means
    assert totals.evaluated == local.accounting.evaluated
    assert sorted(totals.missing_from_run) == sorted(local.accounting.missing_from_run)
    assert sorted(totals.not_in_qrels) == sorted(local.accounting.not_in_qrels)
    for name in ("duplicates", "unjudged_retrieved", "dropped_unjudged", "truncated",
                 "assumed_relevant"):
        assert totals.sums[name] == getattr(local.accounting, name), name
    # The per-query rows read back are the local per-query values.
    evaluated = rows.filter(rows.column("evaluated"))
    back = plan.layout.measured(evaluated)
    order = np.argsort(back.query_ids.astype(str))
    local_order = np.argsort(np.array(local.query_ids))
    assert np.array_equal(
        back.values[: len(labels), order], local.values[:, local_order], equal_nan=True
    )


def test_bounds_view():
    from prfeval.spark._result import averages

    qrels, run = random_tables(8)
    local = prfeval.evaluate(qrels, run, MEASURES, bounds=True)
    plan = plan_for(MEASURES, EvalOptions(), bounds=True)
    totals, _ = reduced(plan, union_of(qrels, run), 5)
    macro, micro, _, _ = averages(plan.measures, totals, plan.layout, "u_")
    assert {k: macro[k] for k in local.labels} == local.upper.macro
    assert {k: micro[k] for k in local.labels if k in micro} == local.upper.micro
    assert totals.sums["u_assumed_relevant"] == local.upper.accounting.assumed_relevant


def test_block_of_keeps_the_run_rows_order_and_the_judgments():
    qrels, run = random_tables(2)
    union = union_of(qrels, run)
    block = block_of(union, BlockFrame("j", "r"))
    assert len(block.qrels) == qrels.num_rows and len(block.run) == run.num_rows
    assert block.run.name == "r" and block.qrels.source.path == "j"


def test_executor_errors_travel_marked_and_come_back_as_prfeval_errors():
    qrels, run = random_tables(3)
    plan = plan_for("P@5", EvalOptions(duplicates="error"))
    with pytest.raises(RuntimeError) as caught:
        list(measure_batches(plan, batches_of(union_of(qrels, run), 100)))
    error = error_from(f"Traceback ...\nRuntimeError: {caught.value}\n SQLSTATE: 38000")
    assert isinstance(error, InputFormatError)
    assert str(error).startswith("run table: document ") and "repeated for query" in str(error)
    # Line numbers are left out: an executor's row is not the file's line.
    assert error.line_number is None
    usage = error_from("x " + error_text("UsageError", "no | way >> here") + " y")
    assert isinstance(usage, UsageError) and str(usage) == "no | way >> here"
    assert error_from("some other failure") is None


def test_moments_travel_as_text():
    from prfeval._core.aggregate import Moments

    for values in ([], [0.1, 0.2, float("nan")], [1e-300, 1e300, -3.5]):
        m = Moments.of(values, logs=True)
        assert decode_moments(encode_moments(m)) == m
    assert decode_moments(encode_moments(Moments.of([1.0]))).log_total is None


def test_measures_travel_by_name_and_parse_back():
    measures = parse_measures("P_10 P(rel=2)@5 set_F.2 SetF(beta=0.5) IPrec@0.3 recall.100")
    specs = portable(measures)
    plan = Plan(specs, len(specs), (), EvalOptions(), BlockFrame("q", "r"))
    assert [str(m) for m in plan.measures] == [str(m) for m in measures]
    assert list(plan.measures) == measures


# -- a run file read in splits by the executors (prfeval.spark._grouped) --------------------


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.text("ab \t#\r", max_size=6), max_size=25),
    end_newline=st.booleans(),
    splits=st.integers(1, 9),
    chunk=st.integers(1, 20),
)
def test_splits_of_a_file_hold_each_line_once(tmp_path_factory, lines, end_newline, splits,
                                              chunk):
    """The splits' pieces, in order, are the file's bytes: each line in exactly one split
    (the one its first byte is in), whole, however the file is cut."""
    from prfeval.spark._grouped import split_bounds, split_text

    data = "\n".join(lines).encode() + (b"\n" if end_newline and lines else b"")
    path = tmp_path_factory.mktemp("split") / "run.txt"
    path.write_bytes(data)
    pieces = []
    for split in range(splits):
        start, stop = split_bounds(len(data), splits, split)
        got = list(split_text(str(path), start, stop, chunk))
        for piece in got:
            assert piece.endswith(b"\n") or piece is got[-1]
        if got:  # a split's first line begins in it
            begin = sum(map(len, pieces))
            assert start <= begin < stop and (begin == 0 or data[begin - 1 : begin] == b"\n")
        pieces += got
    assert b"".join(pieces) == data


def test_a_query_in_two_places_of_a_split_is_refused_marked():
    """A split whose rows name a query twice apart (a run not grouped by query) fails with
    the mark that sends the engine to the shuffle."""
    from prfeval.spark._grouped import NOT_GROUPED, check_grouped

    seen: set[str] = set()
    assert check_grouped(pa.array(["a", "a", "b"]), seen) == ["a", "b"]
    with pytest.raises(RuntimeError, match=NOT_GROUPED.replace("|", r"\|")):
        check_grouped(pa.array(["c", "b"]), seen)
    with pytest.raises(RuntimeError, match=NOT_GROUPED.replace("|", r"\|")):
        check_grouped(pa.array(["d", "e", "d"]), set())
