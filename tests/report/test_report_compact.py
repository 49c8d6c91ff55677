"""The report page's compact drill-down: base 85, scores as falls with escapes, relevance
flags told from the grades and the level (or stored when they cannot be), the ties inside the
buffer; and the steps of the large difference figure drawn with only the edges that change it.

References: Python's own Ascii85 decoder (``base64.a85decode``) for the text, rankings sorted
here by hand (trec_eval's order: score descending, doc id descending; a document seen earlier
in the ranking is a repeat and never relevant) for the drill-down, read back with
tests/support/report_data.py in Python and in Chromium, and a figure drawn here with every step for
the picture.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from itertools import groupby

import numpy as np
import pytest

from prfeval._comparison.study import study
from prfeval._core.codes import byte_order_keys
from prfeval._report.drilldown import DIGITS, base85, drilldown_data, id_vocabulary
from prfeval._report.html import render_study
from support.hand_made import qrels_lines, run_dict_lines, run_lines, write_lines
from support.random_data import Noisy, judged_runs, rounded, uniform_rounded, with_repeats
from support.report_data import drilldown, opened_report, shown_drilldown

pytest.importorskip("matplotlib")

LEVEL = 2


def test_base85_is_ascii85_with_another_alphabet():
    rng = np.random.default_rng(3)
    to_ascii85 = str.maketrans(DIGITS, "".join(chr(33 + i) for i in range(85)))
    for n in (0, 1, 3, 4, 5, 8, 1001):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        if n == 8:
            data = b"\0" * 4 + b"\xff" * 4  # the least and the greatest word
        text = base85(data)
        assert len(text) == 5 * -(-n // 4)
        assert not set(text) & set("\"&'/<=>\\`")  # nothing to escape in JSON or HTML
        padded = data + b"\0" * (-n % 4)
        assert base64.a85decode(text.translate(to_ascii85)) == padded


@pytest.mark.parametrize(
    "ids",
    [
        [f"doc{i:07d}" for i in (5, 1, 5, 9_999_999, 0, 1)],  # one length, a shared start
        ["b", "a", "ab", "", "a", "abc", "12345678"],  # lengths 0 to 8: no shared start needed
        ["x" * 30 + "a", "x" * 30, "x" * 30 + "b\u00e9", "x" * 30 + "a"],  # a long shared start
        ["\u00e9t\u00e9", "et\u00e9", "e", "\u00e9"],  # UTF-8 bytes above 127
        ["12345678", "12345679", "1234567", "123456789"],  # 9 bytes, 7 of them shared
        ["zzzzzzzzzz1", "a"],  # 11 bytes and nothing shared: the general path
        ["a\0b", "a", "a\0"],  # a NUL byte: the general path
    ],
)
def test_vocabulary_is_the_ids_in_byte_order(ids):
    # The reference: Python's sort of the distinct UTF-8 encodings (bytes compare as
    # trec_eval's strcmp does), and each id's index among them.
    import pyarrow as pa

    distinct = sorted({i.encode() for i in ids})
    parts = [pa.array(ids[:2]), pa.array(ids[2:], type=pa.large_string())]
    vocab, codes = id_vocabulary(parts)
    assert vocab.to_pylist() == distinct
    assert codes.tolist() == [distinct.index(i.encode()) for i in ids]
    short = byte_order_keys(pa.array(ids))
    assert (short is None) == (ids[0] in ("zzzzzzzzzz1", "a\0b"))


@pytest.fixture(scope="module")
def rankings(tmp_path_factory):
    """Two runs with repeated documents, falls in score of more than 2.54 (escapes at two
    decimals), rising scores (file order kept by a tie) and negative scores; graded
    judgments 0 to 3, relevant from grade 2."""
    folder = tmp_path_factory.mktemp("compact")
    # Scores of "b": "a"'s plus a normal draw of sd 4, to two decimals.
    qrels, runs = judged_runs(8, queries=[f"q{q}" for q in range(1, 9)], n_docs=40, judged=25,
                              grades=(0, 4), retrieved=20, scores=uniform_rounded(-8, 8, 2),
                              doc="d{:02d}", also=[Noisy(sd=4.0, decimals=2)])  # fmt: skip
    rng = np.random.default_rng(9)
    lines: dict[str, list[tuple[str, str, float]]] = {}
    paths = {}
    for name, run in zip("ab", runs, strict=True):
        ranked = with_repeats(rng, run, repeats=4, scores=uniform_rounded(-8, 8, 2))
        lines[name] = [(q, d, s) for q, pairs in ranked for d, s in pairs]
        paths[name] = write_lines(folder / f"{name}.run", run_lines(ranked, tag=name))
    write_lines(folder / "qrels.trec", qrels_lines(qrels))
    s = study(folder / "qrels.trec", paths, "P@5 AP", n_permutations=50, n_bootstrap=50,
              depth=15, level=LEVEL)
    return s, qrels, lines


def _by_hand(rows: list[tuple[str, float]], judged: dict[str, int], depth: int):
    ranked = sorted(rows, key=lambda r: (r[1], r[0]), reverse=True)[:depth]
    seen: set[str] = set()
    out = []
    for doc, score in ranked:
        grade = judged.get(doc)
        flag = "d" if doc in seen else "r" if grade is not None and grade >= LEVEL else "."
        seen.add(doc)
        out.append((doc, score, grade, flag))
    return out


def _check(decoded, qrels, lines, depth=15):
    for q, judged in qrels.items():
        for name, rows in lines.items():
            entry = decoded["queries"][q][name]
            want = _by_hand([(d, s) for qid, d, s in rows if qid == q], judged, depth)
            assert entry["docs"] == [w[0] for w in want]
            assert entry["scores"] == pytest.approx([w[1] for w in want], abs=1e-9)
            assert entry["grades"] == [w[2] for w in want]
            assert entry["flags"] == "".join(w[3] for w in want)


def test_flags_are_told_from_grades_and_level(rankings):
    s, qrels, lines = rankings
    data = drilldown_data(s)
    assert data["level"] == LEVEL and "flags" not in data["columns"]
    assert data["scale"] == 2 and "score_escapes" in data["columns"]
    page = render_study(s, figures=False)
    decoded = drilldown(page)
    _check(decoded, qrels, lines)
    assert any("d" in e["flags"] for q in decoded["queries"].values() for e in q.values())


def test_flags_are_stored_when_no_level_is_known(rankings):
    s, qrels, lines = rankings
    provenance = {k: v for k, v in s.provenance.items() if k != "level"}
    data = drilldown_data(dataclasses.replace(s, provenance=provenance))
    assert data["level"] is None and "flags" in data["columns"]
    page = ('<script type="application/json" id="drilldown-data">'
            f"{json.dumps(data)}</script>")
    _check(drilldown(page), qrels, lines)


def test_the_page_draws_the_compact_drilldown(browser, rankings, tmp_path):
    s, qrels, lines = rankings
    out = tmp_path / "report.html"
    out.write_text(render_study(s, figures=False, html_rows=0), encoding="utf-8")
    with opened_report(browser, out) as (page, errors):
        for query in ("q2", "q7"):
            tables = shown_drilldown(page, query, len(lines))
            for cells, name in zip(tables, lines, strict=True):
                want = _by_hand([(d, sc) for q, d, sc in lines[name] if q == query],
                                qrels[query], 15)
                assert [c[1] for c in cells] == [w[0] for w in want]
                assert [float(c[2]) for c in cells] == pytest.approx([w[1] for w in want],
                                                                    abs=5e-3)
                assert [c[3] for c in cells] == ["-" if w[2] is None else str(w[2])
                                                 for w in want]
                assert [c[4] for c in cells] == [{"r": "*", "d": "repeat", ".": ""}[w[3]]
                                                 for w in want]
        assert errors == []


def test_float_scores_when_no_decimal_scale_holds_them(tmp_path):
    qrels = {"q1": {"a": 2, "b": 0, "c": 3}, "q2": {"a": 2}}
    rows = [("q1", "a", 1.5e-9), ("q1", "b", 3.25e-9), ("q1", "c", 7.0), ("q1", "a", 0.5),
            ("q2", "a", -1e-7), ("q2", "z", 2.0)]
    write_lines(tmp_path / "qrels", qrels_lines(qrels))
    by_query = groupby(rows, key=lambda row: row[0])  # the rows are in query order
    write_lines(tmp_path / "run", run_lines((q, [(d, s) for _, d, s in them])
                                            for q, them in by_query))  # fmt: skip
    s = study(tmp_path / "qrels", {"r": tmp_path / "run"}, "P@5", n_permutations=10,
              n_bootstrap=10, level=LEVEL)
    assert drilldown_data(s)["scale"] is None
    decoded = drilldown(render_study(s, figures=False))
    _check(decoded, qrels, {"r": rows})


def test_merged_steps_draw_the_same_picture(tmp_path):
    """Over 300 queries the differences are filled steps; dropping the edges inside runs of
    equal heights must not change a pixel."""
    import matplotlib

    matplotlib.use("Agg")
    from prfeval._plots.compare import difference_figure

    # 400 queries judging 30 of 60 documents, 3 in 10 relevant; "b" ranks the same 20 as "a",
    # its scores "a"'s plus a normal draw as wide as theirs, so the two rank them differently.
    qrels, (a, b) = judged_runs(2, queries=[f"q{q}" for q in range(400)], n_docs=60, judged=30,
                                grades=[0] * 7 + [1] * 3, retrieved=20, scores=rounded(3),
                                also=[Noisy(sd=0.5, decimals=3)])  # fmt: skip
    write_lines(tmp_path / "qrels", qrels_lines(qrels))
    for name, run in (("a", a), ("b", b)):
        write_lines(tmp_path / name, run_dict_lines(run, tag=name))
    s = study(tmp_path / "qrels", {"a": tmp_path / "a", "b": tmp_path / "b"}, "P@10",
              n_permutations=10, n_bootstrap=10)
    c = s.comparison
    fig = difference_figure(c, "P@10")
    ax = fig.axes[0]
    fills = [x for x in ax.collections if x.get_paths() and len(x.get_paths()[0].vertices) > 4]
    assert len(fills) == 2
    n_vertices = sum(len(p.vertices) for x in fills for p in x.get_paths())
    fig.canvas.draw()
    merged = np.asarray(fig.canvas.buffer_rgba()).copy()

    # The reference: every query's step, as one fill per side.
    d = c.differences("P@10", "b")
    d_sorted = d[np.argsort(-d, kind="stable")]
    colors = [x.get_facecolor() for x in fills]
    for x in fills:
        x.remove()
    edges = np.arange(d.size + 1) - 0.5
    heights = np.append(d_sorted, d_sorted[-1])
    for where, color in zip((d_sorted > 1e-12, d_sorted < -1e-12), colors, strict=True):
        ax.fill_between(edges, heights, 0.0, where=np.append(where, where[-1]), step="post",
                        color=color, linewidth=0)
    full = sum(len(p.vertices) for x in ax.collections[-2:] for p in x.get_paths())
    fig.canvas.draw()
    every = np.asarray(fig.canvas.buffer_rgba()).copy()
    assert np.array_equal(merged, every)
    assert n_vertices < full / 5  # P@10 takes few values: few steps
