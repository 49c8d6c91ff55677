"""The compiled pass (native/pass) against Arrow's reader: the same evaluation, to the bit.

Arrow's streamed reader and the table encoder (``PRFEVAL_NATIVE=0``) are an implementation
independent of the pass: they parse with Arrow and encode with Arrow's dictionary encoding
and numpy. Every file here is evaluated both ways, with every trec_eval measure and the
options that act on the encoded block, and the whole results (values, averages, accounting,
settings) must be equal. Files the pass is meant to take are checked to be taken by it (else
both sides would be Arrow's); files it must leave to Arrow (tabs, comments, a run not grouped
by query, repeated judgments...) are checked to be left, and to give Arrow's result or
Arrow's error, message and line included.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import warnings

import numpy as np
import pytest

from prfeval import evaluate
from prfeval._core.errors import PrfevalError
from prfeval._core.options import EvalOptions
from prfeval._core.ranking import RankingNeeds
from prfeval._io import native, native_blocks
from prfeval._io.plan import COMPILED, compiled_unavailable, plan_reading
from prfeval._measures import parse_measures
from prfeval._retrieval.pipeline import MeasureSink, run_pipeline
from support.trec_cases import ALL_TREC

pytestmark = pytest.mark.skipif(
    compiled_unavailable() is not None,
    reason=f"the compiled pass is not available: {compiled_unavailable()} "
    "(`make native` builds it)",
)

MEASURES = [*ALL_TREC, "P@10", "R@100", "SetP", "SetR", "SetF"]


def _random_ids(rng: random.Random) -> list[str]:
    """Doc ids of many shapes: short, exactly 8 and 16 bytes, longer than 16 (compared past
    the slot's inline bytes), long enough to make a line longer than 64 bytes, UTF-8."""
    ids = [f"d{i}" for i in range(60)]
    ids += [f"doc{i:05d}" for i in range(40)]  # 8 bytes
    ids += [f"document-{i:07d}" for i in range(30)]  # 16 bytes
    ids += [f"clueweb12-0000tw-{i:02d}-{i * 7:05d}" for i in range(30)]  # > 16 bytes
    ids += [f"{'x' * 70}{i}" for i in range(10)]  # a line past 64 bytes
    ids += [f"é{i}ü" for i in range(10)] + [f"文書{i}" for i in range(10)]
    return ids


def _score(rng: random.Random) -> str:
    """Scores as runs write them: ties, integers, exponents, negatives, many digits."""
    kind = rng.randrange(8)
    if kind == 0:
        return str(rng.randrange(-5, 50))
    if kind == 1:
        return f"{rng.random():.3e}"
    if kind == 2:
        return repr(rng.uniform(-1, 1))  # 17 significant digits
    if kind == 3:
        return f"{rng.randrange(10)}.{rng.randrange(10**25):025d}"  # past 19 digits
    if kind == 4:
        return rng.choice(["-0", "0", "0.0", "-0.0", "1E2", "2.5e-300", "1.5e+10"])
    return f"{rng.randrange(1000) / 100:.2f}"  # ties


def write_files(tmp_path, seed: int, *, newline_at_end: bool = True) -> tuple[str, str]:
    """A random qrels file and run in the plain layout: queries only judged, only run, both;
    unjudged, negative and zero grades; docs repeated in a query; ties; the run's queries not
    in output order and their lines not always in score order."""
    rng = random.Random(seed)
    docs = _random_ids(rng)
    queries = [str(q) for q in rng.sample(range(1, 400), 30)] + ["q-a", "Q b".replace(" ", "_")]
    judged = [q for q in queries if rng.random() < 0.8]
    ran = [q for q in queries if rng.random() < 0.85]
    qrels_lines = []
    for q in judged:
        for d in rng.sample(docs, rng.randrange(1, 40)):
            qrels_lines.append(f"{q} 0 {d} {rng.choice([-2, -1, 0, 0, 1, 1, 2, 3, 10])}")
    rng.shuffle(qrels_lines)  # judgments of a query in several places
    run_lines = []
    for q in ran:
        picked = rng.sample(docs, rng.randrange(1, 60))
        if rng.random() < 0.3:
            picked += rng.sample(picked, min(3, len(picked)))  # repeats
        scored = [(d, _score(rng)) for d in picked]
        if rng.random() < 0.6:
            scored.sort(key=lambda x: -float(x[1]))
        for rank, (d, s) in enumerate(scored, 1):
            run_lines.append(f"{q} Q0 {d} {rank} {s} run{seed}")
    qrels = tmp_path / f"qrels{seed}.trec"
    run = tmp_path / f"run{seed}.trec"
    qrels.write_text("\n".join(qrels_lines) + "\n", encoding="utf-8")
    run.write_text("\n".join(run_lines) + ("\n" if newline_at_end else ""), encoding="utf-8")
    return str(qrels), str(run)


def outcome(monkeypatch, on: bool, qrels: str, run: str, **options) -> str:
    """The whole result of evaluating and its warnings, or the error, as text: with the
    pass, in blocks (as large runs are read); without it, whole by the one fallback. Whether
    the run was read in blocks is left out (it is what differs; :func:`assert_same` also
    leaves out the warnings of :data:`READ_WHOLE`)."""
    monkeypatch.setenv(native.ENV, "1" if on else "0")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            result = evaluate(qrels, run, MEASURES, stream=on, **options)
        except PrfevalError as exc:
            return f"{type(exc).__name__}: {exc}"
    data = result.to_dict()
    data["settings"].pop("streamed")
    text = json.dumps(data, sort_keys=True, default=str)
    return text + "".join(f"\n{w.category.__name__}: {w.message}" for w in said)


#: What only a run read in blocks says: read whole from its start or from a line on.
READ_WHOLE = ("reading it whole", "the rest of the run is read whole")


def _unstreamed(value):
    """``value`` (a result's JSON form) without its ``streamed`` settings: whether the run
    was read in blocks is what differs between the pass and the whole-file fallback."""
    if isinstance(value, dict):
        return {k: _unstreamed(v) for k, v in value.items() if k != "streamed"}
    if isinstance(value, list):
        return [_unstreamed(v) for v in value]
    return value


def assert_same(monkeypatch, qrels: str, run: str, *, taken: bool, **options) -> str:
    refused = native.run_pass(qrels, run).refused
    assert (refused is None) == taken, refused
    with_pass = outcome(monkeypatch, True, qrels, run, **options)
    without = outcome(monkeypatch, False, qrels, run, **options)

    def kept(text: str) -> list[str]:
        return [line for line in text.split("\n") if not any(w in line for w in READ_WHOLE)]

    assert kept(with_pass) == kept(without)
    return with_pass


OPTIONS = [
    {},
    {"complete": True},
    {"judged_only": True},
    {"max_results": 5},
    {"level": 2},
    {"duplicates": "first"},
    {"order": "file"},
    {"trec_eval_version": 10, "complete": True},
    {"unjudged": "relevant"},
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_random_files_evaluate_the_same(tmp_path, monkeypatch, seed, options):
    qrels, run = write_files(tmp_path, seed, newline_at_end=seed % 2 == 0)
    assert_same(monkeypatch, qrels, run, taken=True, **options)


def test_pass_arrays_match_a_hand_count(tmp_path):
    """The pass's own arrays on a file small enough to count by hand: one segment of the
    run, then the segment of the judged query it never names."""
    qrels = tmp_path / "q.trec"
    run = tmp_path / "r.trec"
    qrels.write_text("1 0 a 2\n1 0 b 0\n2 0 a 1\n3 0 c 1\n")
    run.write_text("1 Q0 a 1 3.5 t\n1 Q0 c 2 3.5 t\n1 Q0 a 3 1 t\n2 Q0 b 1 -2e1 t\n4 Q0 a 1 0 t")
    r = native.run_pass(str(qrels), str(run))
    assert r.refused is None
    lines, missing = r.segments
    assert lines.scores.tolist() == [3.5, 3.5, 1.0, -20.0, 0.0]

    def ids(segment, codes):
        arena = segment.d_arena.tobytes()
        return [arena[segment.d_off[c] : segment.d_off[c + 1]].decode() for c in codes]

    assert ids(lines, lines.run_doc) == ["a", "c", "a", "b", "a"]
    no = int(np.iinfo(np.int16).min)  # the pass's grade of a line with no judgment
    assert lines.run_grade.tolist() == [2, no, 2, no, no]
    assert lines.repeated.tolist() == [True, False, True, False, False]
    assert lines.run_start.tolist() == [0, 3, 4, 5]
    assert lines.query_ids() == ["1", "2", "4"]
    assert lines.judged.tolist() == [True, True, False]
    assert lines.j_start.tolist() == [0, 2, 3, 3]
    assert ids(lines, lines.j_doc) == ["a", "b", "a"]
    assert lines.j_grade.tolist() == [2, 0, 1]
    assert missing.done and missing.rows == 0
    assert missing.query_ids() == ["3"]
    assert ids(missing, missing.j_doc) == ["c"] and missing.j_grade.tolist() == [1]


def _many_queries(tmp_path, n_queries: int, per_query: int) -> tuple[str, str]:
    """Judgments and a run large enough for several segments (about 16 MiB each)."""
    qrels, run = tmp_path / "q.trec", tmp_path / "r.trec"
    rng = np.random.default_rng(5)
    with open(qrels, "w") as f:
        for q in range(n_queries):
            for d in rng.choice(5000, 20, replace=False):
                f.write(f"{q} 0 doc{d} {rng.integers(0, 3)}\n")
    with open(run, "w") as f:
        for q in range(n_queries):
            docs = rng.choice(5000, per_query, replace=False)
            f.writelines(f"{q} Q0 doc{d} {i + 1} {per_query - i // 3} tag\n"
                         for i, d in enumerate(docs))  # fmt: skip
    return str(qrels), str(run)


@pytest.mark.large
def test_a_run_of_many_segments_evaluates_the_same(tmp_path, monkeypatch):
    """Each segment holds whole queries, with doc codes of its own; the result is the
    same as Arrow's, and every line is in one segment."""
    qrels, run = _many_queries(tmp_path, 700, 1000)
    r = native.run_pass(qrels, run)
    assert r.refused is None and len(r.segments) >= 3
    *lines, missing = r.segments
    assert sum(s.rows for s in lines) == 700_000 and missing.done
    names = [q for s in lines for q in s.query_ids()]
    assert names == [str(q) for q in range(700)]  # no query cut between two segments
    assert [s.first_row for s in lines] == list(np.cumsum([0] + [s.rows for s in lines[:-1]]))
    assert_same(monkeypatch, qrels, run, taken=True)
    assert_same(monkeypatch, qrels, run, taken=True, complete=True)


@pytest.mark.large
def test_input_the_pass_meets_late_gives_the_fallbacks_values_or_error(tmp_path, monkeypatch):
    """Input the pass does not take, after it has handed over segments: nothing is read
    again from the start. A run not grouped by query there is an error naming the line,
    the same without the library; a malformed line is the fallback's error, words and line;
    a line that is only not in the plain layout (a tab) gives the fallback's values."""
    qrels, run = _many_queries(tmp_path, 700, 1000)
    with open(run, encoding="utf-8") as f:
        plain = f.read()
    with open(run, "a") as f:
        f.write("0 Q0 doc1 1 1 tag\n")  # query 0 again, at the end: not grouped
    segments = native.run_pass(qrels, run).segments
    assert segments[0].refused is None  # handed over before the pass met the line
    assert segments[-1].refused == "the run is not grouped by query"
    said = outcome(monkeypatch, True, qrels, run)  # read whole (no pass), it is no error
    assert said.startswith("InputFormatError: ") and "700001" in said
    assert "query '0' comes again" in said

    lines = plain.splitlines(keepends=True)
    late = len(lines) - 500  # past the first segment (about 16 MiB)
    bad = list(lines)
    bad[late] = lines[late].rsplit(" ", 2)[0] + " high tag\n"  # a score that is not a number
    with open(run, "w", encoding="utf-8") as f:
        f.writelines(bad)
    said = assert_same(monkeypatch, qrels, run, taken=False)
    assert said.startswith("InputFormatError: ") and str(late + 1) in said

    tabbed = [*lines[:late], lines[late].replace(" Q0 ", "\tQ0 "), *lines[late + 1:]]
    with open(run, "w", encoding="utf-8") as f:
        f.writelines(tabbed)
    said = assert_same(monkeypatch, qrels, run, taken=False)
    assert "the rest of the run is read whole" in said
    with open(run, "w", encoding="utf-8") as f:
        f.write(plain)
    monkeypatch.setenv(native.ENV, "0")
    plain_macro = evaluate(qrels, run, MEASURES, stream=False).macro  # Arrow, whole
    assert json.loads(said.split("\n")[0])["macro"] == json.loads(json.dumps(plain_macro))


def test_scores_are_read_exactly(tmp_path):
    """Every score of the pass is the double Python's float() reads (correct rounding)."""
    rng = random.Random(7)
    texts = [_score(rng) for _ in range(3000)]
    texts += ["9007199254740993", "0.1", "0.30000000000000004", "1e22", "1e23", "123456789e-22"]
    (tmp_path / "q.trec").write_text("1 0 a 1\n")
    (tmp_path / "r.trec").write_text("".join(f"1 Q0 d{i} 1 {t} x\n" for i, t in enumerate(texts)))
    r = native.run_pass(str(tmp_path / "q.trec"), str(tmp_path / "r.trec"))
    assert r.refused is None
    assert [float(t).hex() for t in texts] == [v.hex() for v in r.segments[0].scores.tolist()]


@pytest.mark.parametrize(
    ("name", "qrels_text", "run_text"),
    [
        ("tab", "1 0 a 1\n", "1 Q0 a 1 1.0 t\n1\tQ0 b 2 0.5 t\n"),
        ("two spaces", "1 0 a 1\n", "1 Q0 a 1 1.0 t\n1 Q0  b 2 0.5 t\n"),
        ("blank line", "1 0 a 1\n", "1 Q0 a 1 1.0 t\n\n1 Q0 b 2 0.5 t\n"),
        ("comment", "1 0 a 1\n", "# a comment line\n1 Q0 a 1 1.0 t\n"),
        ("crlf", "1 0 a 1\n", "1 Q0 a 1 1.0 t\r\n1 Q0 b 2 0.5 t\r\n"),
        ("seven fields", "1 0 a 1\n", "1 Q0 a 1 1.0 t extra\n"),
        ("five fields", "1 0 a 1\n", "1 Q0 a 1 1.0\n"),
        ("not grouped", "1 0 a 1\n2 0 a 1\n", "1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n1 Q0 b 2 0 t\n"),
        ("repeated judgment", "1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 1.0 t\n"),
        ("repeated judgment, query not run", "1 0 a 1\n2 0 b 1\n2 0 b 1\n", "1 Q0 a 1 1 t\n"),
        ("fractional grade", "1 0 a 1.5\n", "1 Q0 a 1 1.0 t\n"),
        ("large grade", "1 0 a 123456\n", "1 Q0 a 1 1.0 t\n"),
        ("score inf", "1 0 a 1\n", "1 Q0 a 1 inf t\n"),
        ("score overflow", "1 0 a 1\n", "1 Q0 a 1 1e999 t\n"),
        ("score nan", "1 0 a 1\n", "1 Q0 a 1 nan t\n"),
        ("score text", "1 0 a 1\n", "1 Q0 a 1 high t\n"),
        ("score plus", "1 0 a 1\n", "1 Q0 a 1 +1 t\n"),
        ("score hex", "1 0 a 1\n", "1 Q0 a 1 0x1p3 t\n"),
        ("qrels tab", "1\t0\ta\t1\n", "1 Q0 a 1 1.0 t\n"),
        ("qrels empty", "", "1 Q0 a 1 1.0 t\n"),
        ("qrels three fields", "1 0 a\n", "1 Q0 a 1 1.0 t\n"),
        ("bad utf-8", "1 0 a 1\n", "1 Q0 \xff 1 1.0 t\n"),
        ("control byte", "1 0 a 1\n", "1 Q0 a\x01 1 1.0 t\n"),
    ],
)
def test_inputs_the_pass_leaves_to_arrow(tmp_path, monkeypatch, name, qrels_text, run_text):
    qrels = tmp_path / "q.trec"
    run = tmp_path / "r.trec"
    qrels.write_bytes(qrels_text.encode("latin-1"))
    run.write_bytes(run_text.encode("latin-1"))
    assert_same(monkeypatch, str(qrels), str(run), taken=False)


def test_repeated_document_error_is_arrows(tmp_path, monkeypatch):
    """A document repeated for a query: the pass takes the file, but with the default
    ``duplicates="error"`` the error is Arrow's (which repeat it names depends on where
    blocks are cut); with ``duplicates="keep"`` or ``"first"`` the pass measures it."""
    qrels = tmp_path / "q.trec"
    run = tmp_path / "r.trec"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run.write_text("1 Q0 a 1 2 t\n1 Q0 c 2 1 t\n1 Q0 a 3 0 t\n2 Q0 b 1 1 t\n2 Q0 b 2 1 t\n")
    monkeypatch.setenv(native.ENV, "1")
    with pytest.raises(PrfevalError) as with_pass:
        evaluate(str(qrels), str(run), "P@5", stream=True, duplicates="error")
    monkeypatch.setenv(native.ENV, "0")
    with pytest.raises(PrfevalError) as without:
        evaluate(str(qrels), str(run), "P@5", stream=True, duplicates="error")
    assert str(with_pass.value) == str(without.value)
    assert "r.trec:" in str(without.value)
    for policy in ("keep", "first"):
        assert_same(monkeypatch, str(qrels), str(run), taken=True, duplicates=policy)


def test_gzip_and_query_sets_go_to_arrow(tmp_path, monkeypatch):
    import gzip

    qrels, run = write_files(tmp_path, 11)
    gz = tmp_path / "run.trec.gz"
    with open(run, "rb") as f:
        gz.write_bytes(gzip.compress(f.read()))
    options = EvalOptions.build()
    assert plan_reading(qrels, str(gz), options, stream=True).reader != COMPILED
    some = EvalOptions.build(queries=["1", "2"])
    assert plan_reading(qrels, run, some, stream=True).reader != COMPILED
    assert plan_reading(qrels, run, options, stream=True).reader == COMPILED
    assert plan_reading(qrels, run, EvalOptions.build(order="rank")).reader != COMPILED
    monkeypatch.setenv(native.ENV, "1")
    with_pass = evaluate(qrels, str(gz), MEASURES, stream=True).to_dict()
    monkeypatch.setenv(native.ENV, "0")
    assert with_pass == evaluate(qrels, str(gz), MEASURES, stream=False).to_dict()


@pytest.mark.parametrize("seed", range(3))
def test_documents_in_byte_order_for_readers_of_ids(tmp_path, monkeypatch, seed):
    """Readers that need doc codes in byte order (curves, explanations) get them sorted."""
    qrels, run = write_files(tmp_path, 100 + seed)
    assert native.run_pass(qrels, run).refused is None
    options = EvalOptions.build()
    measures = parse_measures(MEASURES)

    def values(on: bool) -> str:
        monkeypatch.setenv(native.ENV, "1" if on else "0")
        sink, done = run_pipeline(qrels, run, options, RankingNeeds.everything(),
                                  lambda: MeasureSink(measures, options), stream=on)
        result = sink.result()
        settings = {k: v for k, v in done.settings(options).items() if k != "streamed"}
        return json.dumps([result.query_ids.tolist(), result.values.tolist(),
                           done.accounting.to_dict(), settings], default=str)

    assert values(True) == values(False)


def test_many_blocks_and_the_progress(tmp_path, monkeypatch):
    """A run cut into many blocks (queries of many sizes) reports progress to its end."""
    monkeypatch.setattr(native_blocks, "BLOCK_ROWS", 64)
    qrels, run = write_files(tmp_path, 21)
    seen: list[tuple[int, int]] = []
    monkeypatch.setenv(native.ENV, "1")
    with_pass = evaluate(qrels, run, MEASURES, stream=True,
                         progress=lambda d, t: seen.append((d, t)))
    assert len(seen) > 3 and seen[-1][0] == seen[-1][1]
    monkeypatch.setenv(native.ENV, "0")
    without = evaluate(qrels, run, MEASURES, stream=False)  # the one fallback reads whole
    assert _unstreamed(with_pass.to_dict()) == _unstreamed(without.to_dict())


@pytest.mark.parametrize("seed", range(3))
def test_compare_reads_the_judgments_once_for_every_run(tmp_path, monkeypatch, seed):
    """compare's runs are read by the pass against one parse of the judgments (each run
    from a copy of its tables), a third run the pass does not take (gzipped) from the same
    judgments as a table: the comparison equals Arrow's to the last digit."""
    import gzip

    from prfeval import compare
    from prfeval._comparison import draws

    # The paired tests drawn by numpy both times: ``PRFEVAL_NATIVE=0`` also turns off the
    # compiled draws, whose intervals agree with numpy's to rounding only.
    monkeypatch.setattr(draws, "unavailable", lambda rng, n=1: "numpy's draws both times")

    qrels, run_a = write_files(tmp_path, 300 + seed)
    _, run_b = write_files(tmp_path, 400 + seed)
    _, run_c = write_files(tmp_path, 500 + seed)
    gz = tmp_path / "c.trec.gz"
    with open(run_c, "rb") as f:
        gz.write_bytes(gzip.compress(f.read()))
    runs = {"a": run_a, "b": run_b, "c": str(gz)}

    def compared(on: bool) -> str:
        monkeypatch.setenv(native.ENV, "1" if on else "0")
        result = compare(qrels, runs, ["P@10", "AP", "nDCG"], stream=on,
                         n_permutations=200, n_bootstrap=200)  # fmt: skip
        return json.dumps(_unstreamed(result.to_dict()), sort_keys=True, default=str)

    assert compared(True) == compared(False)


@pytest.mark.large
def test_a_query_longer_than_a_segment_is_one_segment(tmp_path, monkeypatch):
    """A query of more lines than a segment's 16 MiB holds: its segment runs to its end,
    so it is measured whole, as Arrow measures it."""
    qrels, run = tmp_path / "q.trec", tmp_path / "r.trec"
    qrels.write_text("".join(f"big 0 doc{d} {d % 3}\n" for d in range(0, 600_000, 997))
                     + "small 0 doc1 1\n")  # fmt: skip
    with open(run, "w") as f:
        f.write("a Q0 doc1 1 1 t\n")
        f.writelines(f"big Q0 doc{d} {d + 1} {600_000 - d} tag-of-a-longer-run\n"
                     for d in range(600_000))  # fmt: skip
        f.write("small Q0 doc1 1 1 t\n")
    segments = native.run_pass(str(qrels), str(run)).segments
    assert os.path.getsize(run) > 16 << 20
    assert [s.query_ids() for s in segments[:-1]] == [["a", "big"], ["small"]]
    assert [s.rows for s in segments[:-1]] == [600_001, 1]
    assert_same(monkeypatch, str(qrels), str(run), taken=True)


def _rank_order_by_hand(segment, single: bool) -> list[int]:
    """Each query's rows sorted as trec_eval does, with Python's stable sorts: by doc id
    descending (bytes), then by score descending, a repeated id keeping its file order."""
    arena = segment.d_arena.tobytes()
    off = segment.d_off.tolist()
    docs = [arena[off[c] : off[c + 1]] for c in segment.run_doc.tolist()]
    scores = segment.scores.astype(np.float32) if single else segment.scores
    starts = segment.run_start.tolist()
    order: list[int] = []
    for a, b in itertools.pairwise(starts):
        rows = sorted(range(a, b), key=lambda r: docs[r], reverse=True)
        order += sorted(rows, key=lambda r: float(scores[r]), reverse=True)
    return order


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("single", [False, True], ids=["double", "single"])
def test_rank_order_of_the_pass_matches_sorting_by_hand(tmp_path, seed, single):
    """The order the pass gives each query (ties, repeats, lines out of score order, scores
    equal only in single precision) is the one two stable sorts give."""
    qrels, run = write_files(tmp_path, seed)
    with open(run, "a") as f:  # two scores one float apart in double, equal in single
        f.write("zz Q0 a 1 0.1 r\nzz Q0 b 2 0.10000000000000002 r\nzz Q0 c 3 0.1 r\n")
    r = native.run_pass(qrels, run, order=2 if single else 1)
    assert r.refused is None
    for segment in r.segments[:-1]:
        assert segment.order.size == segment.rows
        assert segment.order.tolist() == _rank_order_by_hand(segment, single)


def test_a_nan_score_leaves_the_run_and_its_order_to_arrow(tmp_path, monkeypatch):
    """No order is total with a NaN score: the pass reads only decimal scores, so such a run
    is Arrow's, ordered by the aligner, and evaluates as without the pass."""
    qrels = tmp_path / "q.trec"
    run = tmp_path / "r.trec"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    run.write_text("1 Q0 a 1 nan t\n1 Q0 b 2 1 t\n2 Q0 c 1 2 t\n2 Q0 d 2 2 t\n")
    assert native.run_pass(str(qrels), str(run), order=1).refused is not None
    assert_same(monkeypatch, str(qrels), str(run), taken=False)
