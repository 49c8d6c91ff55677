"""A run asked for in blocks (``stream=True``) gives the numbers of the run read whole, to
the last digit: read by the compiled pass a segment at a time, or, where the pass does not
read it (gzip, a layout it refuses, no library), read whole with a warning that says so."""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest

from prfeval import evaluate
from prfeval._core.errors import PrfevalWarning
from prfeval._io import native_blocks
from prfeval._io.native_lib import compiled_unavailable
from support.hand_made import qrels_lines, run_lines, write_lines


def evaluate_stream(qrels, run_path, measures, **options):
    """``run_path`` evaluated with ``stream=True``: the compiled pass in blocks, or read
    whole (with a warning, ignored here) where the pass does not read it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrfevalWarning)
        return evaluate(qrels, run_path, measures, stream=True, **options)


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """The compiled pass's blocks of whole queries, about 32 lines each: many blocks."""
    monkeypatch.setattr(native_blocks, "BLOCK_ROWS", 32)

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


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_streamed_equals_in_memory(tmp_path, seed, complete):
    qrels, run = write_files(tmp_path, seed, shuffle_judgments=seed == 1)
    whole = evaluate(qrels, run, MEASURES, complete=complete, stream=False)
    streamed = evaluate_stream(qrels, str(run), MEASURES, complete=complete)
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
    streamed = evaluate_stream(qrels, gz, MEASURES, **kwargs)  # the pass reads no gzip
    assert not streamed.settings["streamed"]
    assert streamed.macro == whole.macro and streamed.micro == whole.micro
    assert streamed.accounting == whole.accounting


def test_ungrouped_or_messy_runs_fall_back_with_a_warning(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "ungrouped.trec").write_text("1 Q0 a 1 2 t\n2 Q0 b 1 1 t\n1 Q0 c 2 1 t\n")
    (tmp_path / "messy.trec").write_text("1\tQ0 a 1 2 t\n2 Q0 b 1 1 t\n")
    passed = compiled_unavailable() is None
    for name, reason in (("ungrouped.trec", "not grouped by query" if passed else "reading"),
                         ("messy.trec", "not in the plain layout" if passed else "reading")):
        with pytest.warns(PrfevalWarning, match=reason):
            e = evaluate(tmp_path / "q.txt", tmp_path / name, "P@1", stream=True)
        assert e.macro["P@1"] == 1.0
        assert not e.settings["streamed"]


@pytest.mark.parametrize("grouped", [True, False])
def test_streamed_repeated_judgment_names_its_line(tmp_path, grouped):
    from prfeval._core.errors import InputFormatError

    qrels_lines = ["1 0 a 1", "2 0 b 1", "1 0 c 0", "2 0 b 2"]  # line 4 repeats line 2
    if grouped:
        qrels_lines = ["1 0 a 1", "1 0 c 0", "2 0 b 1", "2 0 b 2"]
    (tmp_path / "q.trec").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "r.trec").write_text("1 Q0 a 1 2.0 t\n2 Q0 b 1 1.0 t\n")
    with pytest.raises(InputFormatError) as caught:
        evaluate_stream(str(tmp_path / "q.trec"), str(tmp_path / "r.trec"), "P@5")
    assert caught.value.path.endswith("q.trec")
    assert caught.value.line_number == 4


@pytest.mark.parametrize("order", ["rank", "file", "score"])
def test_streamed_orders_equal_in_memory(tmp_path, order):
    # The rank column is parsed only for order="rank"; every order must stream exactly.
    qrels, run = write_files(tmp_path, 5)
    whole = evaluate(qrels, run, MEASURES, order=order, stream=False)
    streamed = evaluate_stream(qrels, str(run), MEASURES, order=order)
    assert np.array_equal(streamed.values, whole.values)
    assert streamed.accounting == whole.accounting


def test_errors_name_the_line(tmp_path):
    # A score that is not a number, a repeated document with duplicates="error": the pass
    # refuses the run, and the whole-file reader names the run's line.
    from prfeval._core.errors import InputFormatError

    qrels, run = write_files(tmp_path, 2, shuffle_queries=False)
    lines = run.read_text().splitlines()
    bad = tmp_path / "bad.trec"
    q, _, doc, rank, _, tag = lines[300].split()
    bad.write_text("\n".join([*lines[:300], f"{q} Q0 {doc} {rank} nan {tag}", *lines[301:]]) + "\n")
    with pytest.raises(InputFormatError) as caught:
        evaluate_stream(qrels, str(bad), "P@5")
    assert caught.value.line_number == 301

    repeated = tmp_path / "repeated.trec"
    q, _, doc, *_ = lines[500].split()
    q2, _, _, rank, score, tag = lines[501].split()
    assert q == q2
    repeated.write_text(
        "\n".join([*lines[:501], f"{q} Q0 {doc} {rank} {score} {tag}", *lines[502:]]) + "\n"
    )
    with pytest.raises(InputFormatError, match="repeated"):
        evaluate_stream(qrels, str(repeated), "P@5", duplicates="error")


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
