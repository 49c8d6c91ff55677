"""A run file's splits read by the compiled pass on the executors, against the same splits
parsed by Arrow: the same rows passed on, without Spark.

``measure_splits`` reads each split of a TREC run (a byte range) where a Spark task runs. With
``compiled_qrels`` it reads the split with the compiled pass (native/pass) against the
judgments file; without, with Arrow's TREC reader. Arrow's route is the reference here, an
implementation independent of the pass (it parses with Arrow and encodes with numpy): for
every way of cutting the file, the rows emitted must be the same, the per-query values to
the last bit and the lines of each split's first and last query in file order. Splits the
pass does not take (a tab, a comment, a repeated document under ``duplicates="error"``) are
read by Arrow, which says what is wrong as it always has.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from prfeval._core.options import EvalOptions
from prfeval._io import native_split
from prfeval._io.plan import compiled_unavailable
from prfeval._io.trec import parse_qrels
from prfeval._measures import parse_measures
from prfeval._retrieval.evaluate import coverage_measures
from prfeval.spark._blocks import BlockFrame
from prfeval.spark._grouped import (
    NOT_GROUPED,
    judged_of,
    line_span,
    measure_splits,
    passed_on_schema,
    split_bounds,
    split_text,
)
from prfeval.spark._partition import Plan, portable
from support.trec_cases import ALL_TREC

pytestmark = pytest.mark.skipif(
    compiled_unavailable() is not None,
    reason=f"the compiled pass is not available: {compiled_unavailable()} "
    "(`make native` builds it)",
)

MEASURES = " ".join([*ALL_TREC, "P@10", "R@100", "SetF", "Judged@5"])


def write_files(tmp_path, seed: int, *, repeats: bool = True) -> tuple[str, str]:
    """Plain TREC files (the layout the pass takes): judgments with negative grades, a run
    with score ties and, with ``repeats``, repeated documents; some queries only judged,
    some only in the run, one query of a single line."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(30):
        for doc in rng.choice(60, int(rng.integers(1, 25)), replace=False):
            lines.append(f"q{i} 0 d{doc} {rng.choice([-1, 0, 0, 1, 2, 3])}\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(lines))
    lines = []
    for i in range(4, 40):
        n = 1 if i == 20 else int(rng.integers(2, 40))
        docs = rng.choice(60, n, replace=False).tolist()
        if repeats:
            docs += rng.choice(docs, n // 6).tolist()
        for rank, doc in enumerate(docs):
            lines.append(f"q{i} Q0 d{doc} {rank + 1} {rng.integers(0, 5) / 4} tag\n")
    run = tmp_path / "run.txt"
    run.write_text("".join(lines))
    return str(qrels), str(run)


def plan_for(options: EvalOptions, qrels: str, run: str) -> Plan:
    parsed = parse_measures(MEASURES)
    cutoffs, hidden = coverage_measures(parsed)
    frame = BlockFrame(qrels, run)
    return Plan(portable([*parsed, *hidden]), len(parsed), tuple(cutoffs), options, frame,
                False, 16)  # fmt: skip


def emitted(plan: Plan, qrels: str, run: str, splits: int, compiled: str | None) -> pa.Table:
    """Every split's rows, in split order, as the tasks would emit them."""
    with open(qrels, "rb") as f:
        judged = judged_of(parse_qrels(f.read(), qrels), qrels)
    ids = [pa.record_batch({"id": pa.array(range(splits), pa.int64())})]
    batches = list(measure_splits(plan, judged, run, splits, ids, compiled_qrels=compiled))
    return pa.Table.from_batches(batches, schema=passed_on_schema(plan))


def assert_same_rows(compiled: pa.Table, arrow: pa.Table) -> None:
    """The same rows by query, a query's lines in the same order. The per-query rows of a
    block come in output order, and the routes cut blocks differently; positions need only
    increase along each query's lines (the routes count them differently)."""

    def by_query(table: pa.Table) -> pa.Table:
        return table.drop(["pos"]).sort_by("query_id")  # a stable sort: lines keep order

    got, want = by_query(compiled), by_query(arrow)
    assert got.schema == want.schema and got.num_rows == want.num_rows
    for name in got.column_names:  # equal to the last bit, NaN where NaN
        pairs = zip(got.column(name).to_pylist(), want.column(name).to_pylist(), strict=True)
        assert all(a == b or (a != a and b != b) for a, b in pairs), name
    lines = compiled.filter(compiled.column("doc_id").is_valid())
    pos = lines.column("pos").to_numpy()
    same_query = np.array(lines.column("query_id").to_pylist()[1:]) == np.array(
        lines.column("query_id").to_pylist()[:-1]
    )
    assert np.all(np.diff(pos)[same_query] > 0)


class Reads:
    """Counts the splits the compiled pass read, and those it left to Arrow."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.taken = self.left = 0
        read = native_split.read_split

        def counted(*args, **kwargs):
            result = read(*args, **kwargs)
            if result is None:
                self.left += 1
            else:
                self.taken += 1
            return result

        monkeypatch.setattr(native_split, "read_split", counted)


OPTIONS = [
    {},
    {"duplicates": "first"},
    {"complete": True, "level": 2},
    {"unjudged": "relevant", "max_results": 12},
    {"judged_only": True, "order": "file"},
    {"trec_eval_version": 9},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: str(o) if o else "default")
@pytest.mark.parametrize("splits", [1, 2, 3, 7, 40])
def test_compiled_splits_pass_on_the_rows_arrow_does(tmp_path, monkeypatch, options, splits):
    qrels, run = write_files(tmp_path, splits)
    plan = plan_for(EvalOptions(**options), qrels, run)
    reads = Reads(monkeypatch)
    compiled = emitted(plan, qrels, run, splits, qrels)
    assert reads.taken == splits and reads.left == 0
    assert_same_rows(compiled, emitted(plan, qrels, run, splits, None))


def test_splits_the_pass_does_not_take_are_read_by_arrow(tmp_path, monkeypatch):
    """A tab in one split's lines: that split is Arrow's, the others the pass's; the rows
    are the same as Arrow's everywhere."""
    qrels, run = write_files(tmp_path, 3)
    lines = Path(run).read_text().splitlines(keepends=True)
    lines[len(lines) // 2] = lines[len(lines) // 2].replace(" Q0 ", "\tQ0 ")
    Path(run).write_text("".join(lines))
    plan = plan_for(EvalOptions(), qrels, run)
    reads = Reads(monkeypatch)
    compiled = emitted(plan, qrels, run, 5, qrels)
    assert reads.taken == 4 and reads.left == 1
    assert_same_rows(compiled, emitted(plan, qrels, run, 5, None))


def test_a_repeated_document_under_duplicates_error_is_reported_by_arrow(tmp_path):
    qrels, run = write_files(tmp_path, 4)
    plan = plan_for(EvalOptions(duplicates="error"), qrels, run)
    messages = []
    for compiled in (qrels, None):
        with pytest.raises(RuntimeError, match="repeated") as caught:
            emitted(plan, qrels, run, 3, compiled)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_a_run_not_grouped_by_query_is_found_out_either_way(tmp_path):
    """Lines of a query in two places of one split: both routes raise the mark that sends
    the engine to the shuffle."""
    qrels, run = write_files(tmp_path, 5, repeats=False)
    lines = Path(run).read_text().splitlines(keepends=True)
    lines.append(lines[0].replace(" d", " dx", 1))  # the first query again, at the end
    Path(run).write_text("".join(lines))
    plan = plan_for(EvalOptions(), qrels, run)
    for compiled in (qrels, None):
        with pytest.raises(RuntimeError, match=NOT_GROUPED.replace("|", r"\|")):
            emitted(plan, qrels, run, 1, compiled)


def test_judgments_the_executor_cannot_open_leave_the_split_to_arrow(tmp_path, monkeypatch):
    qrels, run = write_files(tmp_path, 6)
    plan = plan_for(EvalOptions(), qrels, run)
    reads = Reads(monkeypatch)
    elsewhere = str(tmp_path / "not-on-this-executor.txt")
    compiled = emitted(plan, qrels, run, 3, elsewhere)
    assert reads.taken == 0
    assert_same_rows(compiled, emitted(plan, qrels, run, 3, None))


@pytest.mark.parametrize("end_newline", [True, False])
def test_a_splits_line_span_is_the_text_split_text_reads(tmp_path, end_newline):
    """The bytes the pass reads for a split are those the Arrow route reads, for every cut
    of a file (lines of every length, a line longer than a split)."""
    rng = np.random.default_rng(7)
    lines = [b"x" * int(n) for n in rng.integers(0, 30, 40)] + [b"y" * 200]
    data = b"\n".join(lines) + (b"\n" if end_newline else b"")
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    for splits in (1, 2, 5, 13, len(data)):
        for split in range(splits):
            start, stop = split_bounds(len(data), splits, split)
            begin, end = line_span(str(path), start, stop)
            assert data[begin:end] == b"".join(split_text(str(path), start, stop, 7))


def test_a_bad_line_is_reported_as_arrow_reports_it(tmp_path):
    """A line the pass refuses (a score that is no number) is left to Arrow, whose error
    names the line by its text."""
    qrels, run = write_files(tmp_path, 8)
    lines = Path(run).read_text().splitlines(keepends=True)
    fields = lines[5].split()
    lines[5] = " ".join([*fields[:4], "notanumber", fields[5]]) + "\n"
    Path(run).write_text("".join(lines))
    plan = plan_for(EvalOptions(), qrels, run)
    for compiled in (qrels, None):
        with pytest.raises(RuntimeError, match="notanumber"):
            emitted(plan, qrels, run, 2, compiled)
