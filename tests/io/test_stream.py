"""Streaming a run block by block gives the in-memory numbers to the last digit."""

from __future__ import annotations

import gzip
import threading

import numpy as np
import pytest

from prfeval import evaluate
from prfeval._core.errors import PrfevalWarning
from prfeval._core.options import EvalOptions
from prfeval._io import load_qrels
from prfeval._io.stream import StreamedRun
from prfeval._measures import parse_measures, ranking_needs
from prfeval._retrieval.evaluate import summarise
from prfeval._retrieval.pipeline import MeasureSink, drain
from support.hand_made import qrels_lines, run_lines, write_lines


def evaluate_stream(qrels, run_path, measures, *, block_bytes=1 << 21, **options):
    """The streamed source through the pipeline, with no fallback to reading whole."""
    opts = EvalOptions(**options)
    source = StreamedRun(qrels, run_path, opts, block_bytes=block_bytes)
    sink, done = drain(source, opts, ranking_needs(measures), MeasureSink(measures, opts))
    return summarise(sink.result(), done.accounting, done.settings(opts))

MEASURES = "P@5 P@10 R@10 R@50 SetP SetR SetF SetF(beta=2) Rprec NumRet NumRelRet F@10"


def write_files(tmp_path, seed=0, shuffle_queries=True, shuffle_judgments=False):
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in range(1, 81)]
    lines = []
    order = rng.permutation(len(qids)) if shuffle_queries else np.arange(len(qids))
    for i in order[:70]:  # 10 judged queries never retrieved
        n = int(rng.integers(1, 120))
        docs = rng.choice(400, size=n, replace=True)  # repeats happen
        scores = np.sort(np.round(rng.random(n), 1))[::-1]  # many ties, best first
        lines += run_lines([(qids[i], [(f"d{d}", float(s)) for d, s in
                                       zip(docs, scores, strict=True)])], "t")  # fmt: skip
    lines += run_lines([("999", [(f"d{d}", 1.0) for d in range(5)])], "t")
    qrels = []
    for q in qids:
        picked = rng.choice(400, size=int(rng.integers(1, 40)), replace=False)
        qrels += qrels_lines({q: {f"d{d}": int(rng.integers(-1, 3)) for d in picked}})
    if shuffle_judgments:  # not grouped by query: the index must sort them
        qrels = [qrels[i] for i in rng.permutation(len(qrels))]
    return (write_lines(tmp_path / "qrels.trec", qrels),
            write_lines(tmp_path / "run.trec", lines))


@pytest.mark.parametrize("block_bytes", [4096, 256])  # 256: a query spans several blocks
@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_streamed_equals_in_memory(tmp_path, seed, complete, block_bytes):
    qrels, run = write_files(tmp_path, seed, shuffle_judgments=seed == 1)
    whole = evaluate(qrels, run, MEASURES, complete=complete, stream=False)
    streamed = evaluate_stream(load_qrels(qrels), str(run), parse_measures(MEASURES),
                               complete=complete, block_bytes=block_bytes)
    assert streamed.query_ids == whole.query_ids
    assert np.array_equal(streamed.values, whole.values)
    assert streamed.macro == whole.macro
    assert streamed.micro == whole.micro
    assert streamed.f_of_means == whole.f_of_means
    assert streamed.accounting == whole.accounting


def test_streaming_options_and_gzip(tmp_path):
    qrels, run = write_files(tmp_path, 3)
    gz = tmp_path / "run.trec.gz"
    gz.write_bytes(gzip.compress(run.read_bytes()))
    kwargs = dict(level=2, judged_only=True, max_results=30, queries=[str(q) for q in range(1, 40)])
    whole = evaluate(qrels, run, MEASURES, stream=False, **kwargs)
    seen = []
    streamed = evaluate(qrels, gz, MEASURES, stream=True, progress=lambda d, t: seen.append(d),
                        **kwargs)
    assert streamed.settings["streamed"]
    assert streamed.macro == whole.macro and streamed.micro == whole.micro
    assert streamed.accounting == whole.accounting
    assert seen and seen[-1] == gz.stat().st_size


def test_ungrouped_or_messy_runs_fall_back_with_a_warning(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "ungrouped.trec").write_text("1 Q0 a 1 2 t\n2 Q0 b 1 1 t\n1 Q0 c 2 1 t\n")
    (tmp_path / "messy.trec").write_text("1\tQ0 a 1 2 t\n2 Q0 b 1 1 t\n")
    for name, reason in (("ungrouped.trec", "not grouped by query"),
                         ("messy.trec", "single-space layout")):
        with pytest.warns(PrfevalWarning, match=reason):
            e = evaluate(tmp_path / "q.txt", tmp_path / name, "P@1", stream=True)
        assert e.macro["P@1"] == 1.0
        assert not e.settings["streamed"]


def test_read_ahead_hands_over_batches_errors_and_stops_early():
    from prfeval._io.stream import ReadAhead

    ahead = ReadAhead(lambda: iter(range(100)), depth=3)
    taken = []
    for item in ahead:
        taken.append(item)
        if len(taken) == 5:
            break
    ahead.close()  # the reader thread is blocked on a full queue: close must still end it
    assert taken == [0, 1, 2, 3, 4]
    assert not [t for t in threading.enumerate() if t.name == "prfeval-read-ahead"]

    def failing():
        yield 1
        raise ValueError("bad block")

    ahead = ReadAhead(failing, depth=2)
    with pytest.raises(ValueError, match="bad block"):
        list(ahead)
    ahead.close()
    assert list(ReadAhead(lambda: iter([7, 8]), depth=1)) == [7, 8]


@pytest.mark.parametrize("grouped", [True, False])
def test_streamed_repeated_judgment_names_its_line(tmp_path, grouped):
    from prfeval._core.errors import InputFormatError

    qrels_lines = ["1 0 a 1", "2 0 b 1", "1 0 c 0", "2 0 b 2"]  # line 4 repeats line 2
    if grouped:
        qrels_lines = ["1 0 a 1", "1 0 c 0", "2 0 b 1", "2 0 b 2"]
    (tmp_path / "q.trec").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "r.trec").write_text("1 Q0 a 1 2.0 t\n2 Q0 b 1 1.0 t\n")
    with pytest.raises(InputFormatError) as caught:
        evaluate_stream(load_qrels(str(tmp_path / "q.trec")), str(tmp_path / "r.trec"),
                        parse_measures("P@5"))
    assert caught.value.path.endswith("q.trec")
    assert caught.value.line_number == 4


@pytest.mark.parametrize("order", ["rank", "file", "score"])
def test_streamed_orders_equal_in_memory(tmp_path, order):
    # The rank column is parsed only for order="rank"; every order must stream exactly.
    qrels, run = write_files(tmp_path, 5)
    whole = evaluate(qrels, run, MEASURES, order=order, stream=False)
    streamed = evaluate_stream(load_qrels(qrels), str(run), parse_measures(MEASURES),
                               order=order, block_bytes=4096)
    assert np.array_equal(streamed.values, whole.values)
    assert streamed.accounting == whole.accounting


def test_errors_from_any_stage_name_the_line_and_stop_the_threads(tmp_path):
    # A bad score is found while preparing a block (a reading thread), a repeated document
    # while aligning it (the calling thread); either way the error names the run's line and
    # no reading thread is left behind.
    import threading

    from prfeval._core.errors import InputFormatError

    qrels, run = write_files(tmp_path, 2, shuffle_queries=False)
    lines = run.read_text().splitlines()
    bad = tmp_path / "bad.trec"
    q, _, doc, rank, _, tag = lines[300].split()
    bad.write_text("\n".join([*lines[:300], f"{q} Q0 {doc} {rank} nan {tag}", *lines[301:]]) + "\n")
    with pytest.raises(InputFormatError) as caught:
        evaluate_stream(load_qrels(qrels), str(bad), parse_measures("P@5"), block_bytes=4096)
    assert caught.value.line_number == 301

    repeated = tmp_path / "repeated.trec"
    q, _, doc, *_ = lines[500].split()
    q2, _, _, rank, score, tag = lines[501].split()
    assert q == q2
    repeated.write_text(
        "\n".join([*lines[:501], f"{q} Q0 {doc} {rank} {score} {tag}", *lines[502:]]) + "\n"
    )
    with pytest.raises(InputFormatError, match="repeated"):
        evaluate_stream(load_qrels(qrels), str(repeated), parse_measures("P@5"),
                        duplicates="error", block_bytes=4096)
    assert not [t for t in threading.enumerate() if t.name == "prfeval-read-ahead"]


def test_an_empty_run_is_not_streamed_but_said_to_be_empty(tmp_path):
    qrels, _ = write_files(tmp_path, 0)
    empty = tmp_path / "empty.trec"
    empty.write_text("")
    with pytest.warns(PrfevalWarning) as caught:
        result = evaluate(qrels, empty, "P@5", stream=True)
    messages = [str(w.message) for w in caught]
    assert any("is empty" in m for m in messages)
    assert not any("single-space layout" in m for m in messages)
    assert result.accounting.evaluated == 0
