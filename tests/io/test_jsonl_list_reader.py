"""A JSON Lines run of lists is read by the compiled reader (``prf_jsonl_lists``) when it is
plain, and by the table reader (Arrow's JSON reader, then its list columns flattened)
otherwise: the same run either way, column by column, pytrec_eval's values, and the table
reader's words for every file the compiled reader gives back."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prfeval
from prfeval._core.errors import InputFormatError, PrfevalWarning
from prfeval._io import native_lib
from prfeval._io.jsonl_lists import compiled_list_run
from prfeval._io.load import load_run
from prfeval._io.source import open_input
from prfeval._io.tabular import read_table, run_from_table
from support.json_lines_runs import json_lines_runs

pytrec_eval = pytest.importorskip("pytrec_eval")

needs_library = pytest.mark.skipif(
    native_lib.library_error() is not None, reason="the compiled pass is not built"
)

MEASURES = {"P@5": "P_5", "ndcg_cut_10": "ndcg_cut_10", "map": "map", "recall@10": "recall_10"}


def _rows(seed: int, ints: bool = False, repeats: bool = True) -> list[dict[str, object]]:
    """Seeded rows: lists of 0 to 14 ids (repeats within a row unless ``repeats`` is
    off), a query on two rows apart, an empty row, integer or fractional scores, and fields
    a RAG file carries that the run does not use, in varying key order."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    for q in range(30):
        k = 0 if q == 4 else int(rng.integers(1, 15))
        picked = rng.integers(0, 40, size=k) if repeats else rng.permutation(40)[:k]
        ids: list[object] = [int(i) if ints else f"p{i}" for i in picked]
        scores: list[float | int] = [
            int(s) if q % 3 == 0 else float(s) for s in np.round(rng.random(k) * 9, 2)
        ]
        row = {"question": f"what is {q}?", "qid": f"q{q}", "doc_id": ids, "scores": scores,
               "answers": [f"a{q}", {"text": "x"}]}
        if q % 2:  # keys in another order
            row = dict(reversed(list(row.items())))
        rows.append(row)
    rows.insert(12, {"question": "again", "qid": "q7", "doc_id": [f"p{90 + ints}"] if not ints
                     else [91], "scores": [0.5], "answers": []})
    return rows


def _write(path: Path, rows: list[dict[str, object]], blank: bool = True) -> Path:
    lines = [json.dumps(r) for r in rows]
    if blank:
        lines.insert(5, "")  # a blank line: skipped by both readers
        lines.insert(9, "   ")
    path.write_text("\n".join(lines) + "\n")
    return path


def _both(path: Path, columns: dict[str, str] | None) -> tuple[object, object]:
    with open_input(str(path)) as handle:
        compiled = compiled_list_run(handle.read(text=False), handle, columns)
    with open_input(str(path)) as handle:
        table = run_from_table(*read_table(handle, "jsonl"), columns=columns)
    return compiled, table


def _same_run(compiled: object, table: object) -> None:
    assert compiled is not None, "the compiled reader gave the file back"
    for name in ("query_ids", "doc_ids"):
        assert getattr(compiled, name).to_pylist() == getattr(table, name).to_pylist(), name
    for name in ("scores", "ranks"):
        a, b = getattr(compiled, name), getattr(table, name)
        assert (a is None) == (b is None), name
        if a is not None:
            np.testing.assert_array_equal(a, b)
    assert compiled.default_order == table.default_order  # type: ignore[attr-defined]
    ours, theirs = compiled.extra, table.extra  # type: ignore[attr-defined]
    assert ours.get("empty_queries") == theirs.get("empty_queries")
    assert ours["lists"].queries.to_pylist() == theirs["lists"].queries.to_pylist()
    np.testing.assert_array_equal(ours["lists"].lengths, theirs["lists"].lengths)
    n = len(compiled.doc_ids)  # type: ignore[attr-defined]
    for i in sorted({0, n // 2, n - 1}) if n else ():
        assert str(compiled.source.error(i, "x")) == str(table.source.error(i, "x"))  # type: ignore[attr-defined]


@needs_library
@pytest.mark.parametrize("ints", [False, True])
@pytest.mark.parametrize("scored", [True, False])
def test_the_compiled_reader_gives_the_table_readers_run(
    tmp_path: Path, ints: bool, scored: bool
) -> None:
    rows = _rows(3 + ints, ints=ints)
    if not scored:
        for row in rows:
            del row["scores"]
    path = _write(tmp_path / "run.jsonl", rows)
    _same_run(*_both(path, {"score": "scores"} if scored else None))


@needs_library
def test_many_lines_are_read_on_every_thread_alike(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    rows = [{"qid": f"q{q}", "doc_id": [f"d{i}" for i in rng.integers(0, 10**6, size=20)],
             "scores": [float(s) for s in rng.random(20)]} for q in range(20_000)]
    path = _write(tmp_path / "run.jsonl", rows, blank=False)
    assert path.stat().st_size > 2 << 20  # more than one thread's share
    _same_run(*_both(path, {"score": "scores"}))


@needs_library
@pytest.mark.parametrize("native", ["1", "0"])
def test_values_are_pytrec_evals(tmp_path: Path, native: str,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRFEVAL_NATIVE", native)
    rows = [r for r in _rows(5, repeats=False) if r["qid"] != "q7"]  # one row a query
    run_path = _write(tmp_path / "run.jsonl", rows)
    rng = np.random.default_rng(6)
    gold = {f"q{q}": {f"p{i}": int(rng.integers(0, 3)) for i in rng.integers(0, 40, size=8)}
            for q in range(32)}
    gold["q9"] = {}
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in gold.items()
                                  for d, g in docs.items()))
    result = prfeval.evaluate(str(qrels_path), str(run_path), list(MEASURES),
                              run_columns={"score": "scores"})
    run = {str(r["qid"]): dict(zip(r["doc_id"], r["scores"], strict=True))  # type: ignore[call-overload]
           for r in rows}
    theirs = pytrec_eval.RelevanceEvaluator(
        {q: d for q, d in gold.items() if d}, set(MEASURES.values())
    ).evaluate(run)
    for ours, name in MEASURES.items():
        want = {q: v[name] for q, v in theirs.items()}
        got = {q: result.per_query[q][ours] for q in want}
        assert got == pytest.approx(want, abs=1e-12), ours
    if native == "1":
        with open_input(str(run_path)) as handle:
            assert compiled_list_run(handle.read(text=False), handle, {"score": "scores"})


@needs_library
@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('{"qid": "q\\u00e9", "doc_id": ["a"], "scores": [1]}', "an escape in an id"),
        ('{"qid": "q", "doc_id": [{"id": "a", "score": 1}], "scores": [1]}', "objects as items"),
        ('{"qid": 1.5, "doc_id": ["a"], "scores": [1]}', "a decimal query id"),
        ('{"qid": "q", "doc_id": ["a"], "scores": [1], "extra": 1}', "a key the first line lacks"),
        ('{"qid": 12345678901234567890123, "doc_id": ["a"], "scores": [1]}', "a big integer"),
    ],
)
def test_what_is_not_plain_is_read_by_the_table_reader(
    tmp_path: Path, line: str, why: str
) -> None:
    good = '{"qid": "q0", "doc_id": ["a", "b"], "scores": [2, 1]}'
    path = tmp_path / "run.jsonl"
    path.write_text(f"{good}\n{line}\n")
    with open_input(str(path)) as handle:
        assert compiled_list_run(handle.read(text=False), handle, {"score": "scores"}) is None, why
    try:
        with open_input(str(path)) as handle:
            want: object = run_from_table(*read_table(handle, "jsonl"),
                                          columns={"score": "scores"}).doc_ids.to_pylist()
    except InputFormatError as exc:
        want = str(exc)
    try:
        got: object = load_run(str(path), run_columns={"score": "scores"}).doc_ids.to_pylist()
    except InputFormatError as exc:
        got = str(exc)
    assert got == want


@needs_library
@pytest.mark.parametrize(
    "line",
    [
        '{"qid": null, "doc_id": ["a"], "scores": [1]}',
        '{"qid": "q", "doc_id": ["a", null], "scores": [1, 2]}',
        '{"qid": "q", "doc_id": ["a"], "scores": [1, 2]}',
        '{"qid": "q", "qid": "r", "doc_id": ["a"], "scores": [1]}',
        '{"qid": "q", "doc_id": ["a"], "scores": [1]',
        '{"qid": "", "doc_id": ["a"], "scores": [1]}',
    ],
)
def test_bad_lines_are_named_as_before(
    tmp_path: Path, line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = '{"qid": "q0", "doc_id": ["a", "b"], "scores": [2, 1]}'
    path = tmp_path / "run.jsonl"
    path.write_text(f"{good}\n{good.replace('q0', 'q1')}\n{line}\n")
    words = []
    for native in ("1", "0"):
        monkeypatch.setenv("PRFEVAL_NATIVE", native)
        with pytest.raises(InputFormatError) as caught:
            load_run(str(path), run_columns={"score": "scores"})
        words.append(str(caught.value))
    assert words[0] == words[1]
    assert "run.jsonl:3: " in words[0]


@needs_library
def test_a_first_line_too_long_to_parse_here_is_left_to_the_table_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prfeval._io import jsonl_lists

    path = _write(tmp_path / "run.jsonl", _rows(2))
    first = path.read_bytes().split(b"\n", 1)[0]
    monkeypatch.setattr(jsonl_lists, "FIRST_LINE_BYTES", len(first) - 1)
    with open_input(str(path)) as handle:
        assert compiled_list_run(handle.read(text=False), handle, {"score": "scores"}) is None
    monkeypatch.setattr(jsonl_lists, "FIRST_LINE_BYTES", len(first))
    _same_run(*_both(path, {"score": "scores"}))


def test_without_the_library_the_table_reader_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRFEVAL_NATIVE", "0")
    path = _write(tmp_path / "run.jsonl", _rows(2))
    with open_input(str(path)) as handle:
        assert compiled_list_run(handle.read(text=False), handle, {"score": "scores"}) is None
    assert len(load_run(str(path), run_columns={"score": "scores"}).doc_ids) > 0


@needs_library
def test_the_result_and_verbose_say_which_reader_read_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from support.cli import run_cli

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q0 0 a 1\n")
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"qid": "q0", "doc_id": ["a", "b"], "scores": [2, 1]}\n')
    # Beside TREC judgments, a small run is read by the compiled pass itself.
    result = prfeval.evaluate(str(qrels), str(plain), ["P@1"], run_columns={"score": "scores"})
    assert result.reading[1] == (f"run {plain}: the compiled pass, whole (a JSON Lines run "
                                 "of 54 bytes, read whole as lists)")
    # Beside judgments the pass does not read (a grade a row), the compiled JSON Lines reader
    # reads it.
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"qid": "q0", "doc_id": "a", "relevance": 1}\n')
    result = prfeval.evaluate(str(gold), str(plain), ["P@1"], run_columns={"score": "scores"})
    assert result.reading[1] == (f"run {plain}: the compiled JSON Lines reader, whole (a JSON "
                                 "Lines run of lists, every line plain; the compiled pass "
                                 "refused it on its first segment: the judgments' first line "
                                 "is not a plain row of lists of relevant ids)")
    code, _, err = run_cli(capsys, "evaluate", str(gold), str(plain), "-m", "P@1",
                           "--run-columns", "score=scores", "--verbose")
    assert code == 0, err
    assert f"prfeval: read: run {plain}: the compiled JSON Lines reader, whole" in err
    code, _, err = run_cli(capsys, "evaluate", str(qrels), str(plain), "-m", "P@1",
                           "--run-columns", "score=scores", "--verbose")
    assert code == 0, err
    assert f"prfeval: read: run {plain}: the compiled pass, whole" in err
    objects = tmp_path / "objects.jsonl"  # passages as objects: Arrow reads them
    objects.write_text('{"qid": "q0", "ctxs": [{"id": "a", "score": 2}]}\n')
    result = prfeval.evaluate(str(qrels), str(objects), ["P@1"])
    assert result.reading[1].startswith(f"run {objects}: Arrow, whole")
    assert result.per_query["q0"]["P@1"] == 1.0


@needs_library
@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=json_lines_runs())
def test_any_text_the_compiled_reader_takes_is_the_table_readers_run(
    text: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(text)
    columns = {"score": "scores"}
    with open_input(str(path)) as handle:
        compiled = compiled_list_run(handle.read(text=False), handle, columns)
    if compiled is None:
        return  # given back: the table reader reads it, as without the compiled reader
    with open_input(str(path)) as handle:
        table = run_from_table(*read_table(handle, "jsonl"), columns=columns)
    _same_run(compiled, table)


@pytest.mark.parametrize("native", ["1", "0"])
def test_a_run_whose_lists_are_all_empty_retrieved_nothing(
    tmp_path: Path, native: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every list empty: Arrow types the scores' items as null, which the table reader took
    for a column that is not numeric; each query retrieved nothing, by either reader."""
    monkeypatch.setenv("PRFEVAL_NATIVE", native)
    path = tmp_path / "run.jsonl"
    path.write_text('{"qid": "q1", "doc_id": [], "scores": []}\n'
                    '{"qid": "q2", "doc_id": [], "scores": []}\n')
    with pytest.warns(PrfevalWarning, match="is empty: every measure is 0"):
        result = prfeval.evaluate({"q1": {"a": 1}, "q2": {"b": 1}}, str(path), ["P@1", "R@5"],
                                  run_columns={"score": "scores"})
    assert result.per_query == {"q1": {"P@1": 0.0, "R@5": 0.0},
                                "q2": {"P@1": 0.0, "R@5": 0.0}}


def _same_qrels(compiled: object, table: object) -> None:
    assert compiled is not None, "the compiled reader gave the judgments back"
    for name in ("query_ids", "doc_ids"):
        ours, theirs = getattr(compiled, name), getattr(table, name)
        assert ours.to_pylist() == theirs.to_pylist(), name
    np.testing.assert_array_equal(compiled.grades, table.grades)  # type: ignore[attr-defined]
    n = len(compiled.grades)  # type: ignore[attr-defined]
    for i in sorted({0, n // 2, n - 1}) if n else ():
        assert str(compiled.source.error(i, "x")) == str(table.source.error(i, "x"))  # type: ignore[attr-defined]


def _qrels_both(path: Path) -> tuple[object, object]:
    from prfeval._io.jsonl_lists import compiled_list_qrels
    from prfeval._io.tabular import qrels_from_table

    with open_input(str(path)) as handle:
        compiled = compiled_list_qrels(handle.read(text=False), handle, None)
    with open_input(str(path)) as handle:
        table = qrels_from_table(*read_table(handle, "jsonl"))
    return compiled, table


@needs_library
@pytest.mark.parametrize("ints", [False, True])
def test_judgments_as_lists_are_the_table_readers(tmp_path: Path, ints: bool) -> None:
    rows = [{"qid": r["qid"], "doc_id": r["doc_id"]} for r in _rows(7 + ints, ints=ints)]
    path = _write(tmp_path / "gold.jsonl", rows)
    _same_qrels(*_qrels_both(path))
    # With a grade, or a field beside them, they are the table reader's alone.
    from prfeval._io.jsonl_lists import compiled_list_qrels

    for extra in ({"relevance": [1]}, {"question": "why?"}):
        path.write_text(json.dumps({"qid": "q", "doc_id": ["a"], **extra}) + "\n")
        with open_input(str(path)) as handle:
            assert compiled_list_qrels(handle.read(text=False), handle, None) is None


_GOLD_IDS = st.one_of(st.text("abxyz019é🙂", min_size=1, max_size=4),
                      st.sampled_from(["", "a\"b", None, 1.5, 7]))


@needs_library
@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(_GOLD_IDS, st.lists(_GOLD_IDS, max_size=4)), min_size=1,
                     max_size=6))
def test_any_judgments_the_compiled_reader_takes_are_the_table_readers(
    rows: list[tuple[object, list[object]]], tmp_path: Path
) -> None:
    from prfeval._io.jsonl_lists import compiled_list_qrels

    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps({"qid": q, "doc_id": docs}) + "\n" for q, docs in rows))
    with open_input(str(path)) as handle:
        if compiled_list_qrels(handle.read(text=False), handle, None) is None:
            return  # given back: the table reader reads them (or names what is wrong)
    _same_qrels(*_qrels_both(path))
