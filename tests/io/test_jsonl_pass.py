"""A JSON Lines run of lists beside TREC judgments is read by the compiled pass itself
(``prf_run_lists``): whole, as one segment, an item a row, joined as TREC lines are. Checked against
the other readers of the same file (the compiled JSON Lines reader and Arrow's, which read
it when the judgments are not a TREC file) and against pytrec_eval; what the pass does not
take is read by them, with their words."""

from __future__ import annotations

import json
import re
import warnings
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import prfeval
from prfeval._core.errors import InputFormatError
from prfeval._io import native_lib
from prfeval._io.load import load_qrels
from support.json_lines_runs import json_lines_runs

pytrec_eval = pytest.importorskip("pytrec_eval")

pytestmark = pytest.mark.skipif(
    native_lib.library_error() is not None, reason="the compiled pass is not built"
)

MEASURES = ["P@5", "nDCG@10", "AP", "R@10", "RR", "judged@10"]
PASS = "the compiled pass, whole (a JSON Lines run of"


def _rows(seed: int, *, ints: bool = False, scored: bool = True) -> list[dict[str, object]]:
    """Seeded rows: lists of 0 to 14 ids with repeats, scores with ties, a query on two
    lines one after the other, an empty list, queries the judgments do not name, and fields
    the run does not use, in varying key order."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    for q in range(40):
        k = 0 if q == 4 else int(rng.integers(1, 15))
        ids: list[object] = [int(i) if ints else f"p{i}" for i in rng.integers(0, 30, size=k)]
        row: dict[str, object] = {"question": f"what is {q}?", "qid": f"q{q}", "doc_id": ids}
        if scored:
            row["score"] = [float(s) for s in np.round(rng.random(k) * 3, 1)]  # ties
        if q % 2:
            row = dict(reversed(list(row.items())))
        rows.append(row)
        if q == 7:  # the same query again on the next line
            again: dict[str, object] = {"question": "", "qid": "q7",
                                        "doc_id": [31 if ints else "p31"]}  # fmt: skip
            if scored:
                again["score"] = [0.5]
            rows.append({k: again[k] for k in row})
    return rows


def _files(folder: Path, rows: list[dict[str, object]], *, ints: bool = False) -> tuple[Path, Path]:
    lines = [json.dumps(r) for r in rows]
    lines.insert(3, "")  # blank lines: skipped by every reader
    lines.insert(10, "  ")
    run = folder / "run.jsonl"
    run.write_text("\n".join(lines) + "\n")
    rng = np.random.default_rng(11)
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(
        f"q{q} 0 {'' if ints else 'p'}{d} {int(rng.integers(0, 3))}\n"
        for q in range(3, 45) for d in rng.choice(32, size=6, replace=False)
    ))  # fmt: skip
    return qrels, run


def _evaluate(qrels: object, run: Path, **options: object) -> prfeval.Evaluation:
    return prfeval.evaluate(qrels, str(run), MEASURES, **options)  # type: ignore[arg-type]


def _same(ours: prfeval.Evaluation, theirs: prfeval.Evaluation) -> None:
    assert ours.per_query.keys() == theirs.per_query.keys()
    for q, values in theirs.per_query.items():
        assert ours.per_query[q] == pytest.approx(values, abs=1e-12), q
    assert ours.accounting.to_dict() == theirs.accounting.to_dict()


@pytest.mark.parametrize("ints", [False, True])
@pytest.mark.parametrize("scored", [True, False])
def test_the_pass_gives_the_other_readers_values(tmp_path: Path, ints: bool,
                                                 scored: bool) -> None:
    qrels, run = _files(tmp_path, _rows(5 + ints, ints=ints, scored=scored), ints=ints)
    ours = _evaluate(str(qrels), run)
    assert ours.reading[1].startswith(f"run {run}: {PASS}")
    theirs = _evaluate(load_qrels(str(qrels)), run)  # judgments in memory: not the pass
    assert not theirs.reading[1].startswith(f"run {run}: the compiled pass")
    _same(ours, theirs)
    # Every judged query the run never names, evaluated as retrieving nothing, alike.
    _same(_evaluate(str(qrels), run, complete=True),
          _evaluate(load_qrels(str(qrels)), run, complete=True))


def test_values_are_pytrec_evals(tmp_path: Path) -> None:
    rows = [r for r in _rows(8) if r["qid"] != "q7"]
    for r in rows:  # one line a query, no repeated id, no tie
        docs = list(dict.fromkeys(r["doc_id"]))  # type: ignore[call-overload]
        r["doc_id"], r["score"] = docs, [float(len(docs) - i) for i in range(len(docs))]
    qrels, run = _files(tmp_path, rows)
    ours = prfeval.evaluate(str(qrels), str(run), ["P@5", "nDCG@10", "AP", "RR"])
    assert ours.reading[1].startswith(f"run {run}: {PASS}")
    gold: dict[str, dict[str, int]] = {}
    for line in qrels.read_text().splitlines():
        q, _, d, g = line.split()
        gold.setdefault(q, {})[d] = int(g)
    scores = {str(r["qid"]): dict(zip(r["doc_id"], r["score"], strict=True))  # type: ignore[call-overload]
              for r in rows if r["doc_id"]}  # fmt: skip
    names = {"P@5": "P_5", "nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank"}
    theirs = pytrec_eval.RelevanceEvaluator(gold, set(names.values())).evaluate(scores)
    for measure, name in names.items():
        want = {q: v[name] for q, v in theirs.items()}
        got = {q: ours.per_query[q][measure] for q in want}
        assert got == pytest.approx(want, abs=1e-12), measure


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda rows: [*rows, rows[0]], "the run is not grouped by query"),
        (lambda rows: [*rows, {"qid": "q\u00e9", "doc_id": ["p1"], "score": [1.0]}],
         "the run is not in the plain layout"),  # an escaped id (json.dumps writes \u00e9)
        (lambda rows: [{"qid": r["qid"], "ctxs": [{"id": d, "score": s} for d, s in zip(
            r["doc_id"], r["score"], strict=True)]} for r in rows],
         "its first line is not a plain row of lists"),  # passages as objects, as DPR's
        (lambda rows: [{**r, "doc_id": [], "score": []} for r in rows], "no list holds an item"),
    ],
    ids=["a query on lines apart", "an escape", "objects as items", "every list empty"],
)
def test_what_the_pass_refuses_the_other_readers_read(tmp_path: Path, change: object,
                                                      why: str) -> None:
    rows = change(_rows(9))  # type: ignore[operator]
    qrels, run = _files(tmp_path, rows)
    with pytest.warns() if why == "no list holds an item" else nullcontext():
        ours = _evaluate(str(qrels), run)
    assert f"the compiled pass refused it on its first segment: {why}" in ours.reading[1]
    with pytest.warns() if why == "no list holds an item" else nullcontext():
        theirs = _evaluate(load_qrels(str(qrels)), run)
    _same(ours, theirs)


def test_a_repeated_id_is_named_at_its_line_by_the_reader_that_reads_it(tmp_path: Path) -> None:
    run = tmp_path / "run.jsonl"
    run.write_text('{"qid": "q1", "doc_id": ["a", "b"], "score": [2, 1]}\n\n'
                   '{"qid": "q2", "doc_id": ["c", "c"], "score": [2, 1]}\n')
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq2 0 c 1\n")
    with pytest.raises(InputFormatError, match=r"run\.jsonl:3: document 'c' repeated for query "
                                               r"'q2'"):
        prfeval.evaluate(str(qrels), str(run), ["P@1"], duplicates="error")
    # Counted once, as a repeat is by default.
    assert prfeval.evaluate(str(qrels), str(run), ["P@1"]).per_query["q2"]["P@1"] == 1.0


def test_a_run_of_many_chunks_gives_the_same(tmp_path: Path) -> None:
    """More items than the pass hands out at a time (2**19): read whole, then measured a
    chunk of whole queries at a time."""
    rng = np.random.default_rng(15)
    rows = [{"qid": f"q{q}", "doc_id": [f"p{i}" for i in rng.integers(0, 40, size=12)],
             "score": [float(s) for s in np.round(rng.random(12), 2)]} for q in range(50_000)]
    qrels, run = _files(tmp_path, rows)  # type: ignore[arg-type]
    ours = _evaluate(str(qrels), run, complete=True)
    assert ours.reading[1].startswith(f"run {run}: {PASS}")
    _same(ours, _evaluate(load_qrels(str(qrels)), run, complete=True))


def test_a_run_read_on_every_thread_gives_the_same(tmp_path: Path) -> None:
    """A run of several MiB is parsed by both threads."""
    rng = np.random.default_rng(12)
    rows = [{"qid": f"q{q}", "doc_id": [f"p{i}" for i in rng.integers(0, 50, size=30)],
             "score": [float(s) for s in np.round(rng.random(30), 2)]} for q in range(8000)]
    qrels, run = _files(tmp_path, rows)  # type: ignore[arg-type]
    assert run.stat().st_size > 2 << 20
    ours = _evaluate(str(qrels), run)
    assert ours.reading[1].startswith(f"run {run}: {PASS}")
    _same(ours, _evaluate(load_qrels(str(qrels)), run))


def test_the_segment_gives_each_items_line(tmp_path: Path) -> None:
    from prfeval._io.jsonl_lists import LineKeys
    from prfeval._io.native import NativeJudgments

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 b 1\n")
    run = tmp_path / "run.jsonl"
    run.write_text('\n{"qid": "q1", "doc_id": ["a", "b"]}\n  \n{"qid": "q2", "doc_id": ["c"]}\n')
    keys = LineKeys.of_run(run.read_bytes(), None, str(run))
    assert keys is not None and not keys.scored
    segment = next(NativeJudgments(str(qrels)).segments(str(run), lists=keys))
    assert segment.refused is None
    assert segment.row_line.tolist() == [2, 2, 4]
    assert segment.query_ids() == ["q1", "q2"]


def _judgments_of(text: bytes) -> str:
    """TREC judgments of the ids in ``text`` that a TREC line can hold: each line's first
    doc relevant (grade 1), and ``zz`` (grade 2) for its query."""
    plain = re.compile(r"\S+")
    lines = set()
    for line in text.decode("utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if not isinstance(row, dict) or not isinstance(row.get("qid"), str | int):
            continue
        q = str(row["qid"])
        if not plain.fullmatch(q) or not q.isprintable():
            continue
        lines.add(f"{q} 0 zz 2\n")
        docs = row.get("doc_id")
        if isinstance(docs, list) and docs and isinstance(docs[0], str | int):
            d = str(docs[0])
            if plain.fullmatch(d) and d.isprintable() and d != "zz":
                lines.add(f"{q} 0 {d} 1\n")
    return "".join(sorted(lines)) or "none 0 zz 1\n"


def _outcome(qrels: object, run: Path) -> object:
    """The per-query values and accounting, or the error's words."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = prfeval.evaluate(qrels, str(run), ["P@2", "AP", "nDCG@3"])  # type: ignore[arg-type]
    except InputFormatError as exc:
        return str(exc)
    return result.per_query, result.accounting.to_dict()


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=json_lines_runs())
def test_any_run_gives_what_the_other_readers_give(text: bytes, tmp_path: Path) -> None:
    """Whatever the pass takes it reads as the other readers do, and whatever it refuses
    they read (or name what is wrong), with the same words."""
    run, qrels = tmp_path / "run.jsonl", tmp_path / "qrels.txt"
    run.write_bytes(text)
    qrels.write_text(_judgments_of(text))
    assert _outcome(str(qrels), run) == _outcome(load_qrels(str(qrels)), run)


def _gold_lines(qrels: Path, folder: Path, *, extra: bool = False) -> Path:
    """The relevant documents of TREC judgments as JSON Lines lists (grade 1 each), one line
    a query in file order, with an empty list for a query judged nothing relevant."""
    relevant: dict[str, list[str]] = {}
    for line in qrels.read_text().splitlines():
        q, _, d, g = line.split()
        relevant.setdefault(q, [])
        if int(g) > 0:
            relevant[q].append(d)
    rows = [{"qid": q, "doc_id": docs, **({"question": f"what is {q}?"} if extra else {})}
            for q, docs in relevant.items()]
    path = folder / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("run_kind", ["jsonl", "trec"])
def test_judgments_as_lists_are_read_by_the_pass(tmp_path: Path, run_kind: str) -> None:
    qrels, run = _files(tmp_path, _rows(13))
    gold = _gold_lines(qrels, tmp_path)
    if run_kind == "trec":
        trec = tmp_path / "run.trec"
        trec.write_text("".join(
            f"q{q} Q0 p{d} {i + 1} {30 - i} r\n"
            for q in range(40) for i, d in enumerate(range(q % 7, 30, 3))
        ))  # fmt: skip
        run = trec
    ours = _evaluate(str(gold), run)
    assert ours.reading[0] == (f"judgments {gold}: the compiled pass, whole (a JSON Lines file "
                               "of lists of relevant ids, parsed once by the pass)")
    assert ours.reading[1].startswith(f"run {run}: the compiled pass")
    _same(ours, _evaluate(load_qrels(str(gold)), run))


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("question", "the judgments' first line is not a plain row of lists of relevant ids"),
        ("repeat", "a judgment is repeated"),
        ("escape", "the qrels are not in the plain layout"),
    ],
)
def test_judgments_the_pass_refuses_are_read_by_the_others(tmp_path: Path, change: str,
                                                           why: str) -> None:
    qrels, run = _files(tmp_path, _rows(14))
    gold = _gold_lines(qrels, tmp_path, extra=change == "question")
    if change == "repeat":
        gold.write_text(gold.read_text() + '{"qid": "q99", "doc_id": ["p1", "p1"]}\n')
    if change == "escape":
        gold.write_text(gold.read_text() + '{"qid": "q\\u00e9", "doc_id": ["p1"]}\n')
    ours = _outcome(str(gold), run)
    if change == "repeat":  # a judgment twice: an error at its line, by the file's reader
        assert isinstance(ours, str) and "gold.jsonl" in ours and "repeated" in ours
        return
    assert ours == _outcome(load_qrels(str(gold)), run)
    result = _evaluate(str(gold), run)
    assert f"the compiled pass refused it on its first segment: {why}" in result.reading[0]


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=json_lines_runs())
def test_any_run_beside_judgments_as_lists_gives_what_the_others_give(
    text: bytes, tmp_path: Path
) -> None:
    run, qrels = tmp_path / "run.jsonl", tmp_path / "qrels.txt"
    run.write_bytes(text)
    qrels.write_text(_judgments_of(text))
    gold = _gold_lines(qrels, tmp_path)
    assert _outcome(str(gold), run) == _outcome(load_qrels(str(gold)), run)


def test_every_block_of_a_run_of_lists_names_the_run_by_its_file(tmp_path: Path) -> None:
    """The block of the judged queries the run never names too: a JSON Lines run has no
    TREC tag to read from its last line."""
    from prfeval._core.options import EvalOptions
    from prfeval._core.ranking import RankingNeeds
    from prfeval._retrieval.pipeline import open_source

    qrels, run = _files(tmp_path, _rows(16))
    source = open_source(str(qrels), run, EvalOptions.build(None, complete=True),
                         RankingNeeds.everything())
    blocks = list(source.blocks())
    assert len(blocks) >= 2  # the run's, then the judged queries it never names
    assert {b.encoded.run_source for b in blocks} == {str(run)}
