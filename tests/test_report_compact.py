"""The report page's compact drill-down: base 85, scores as falls with escapes, relevance
flags told from the grades and the level (or stored when they cannot be), the ties inside the
buffer; and the steps of the large difference figure drawn with only the edges that change it.

References: Python's own Ascii85 decoder (``base64.a85decode``) for the text, rankings sorted
here by hand (trec_eval's order: score descending, doc id descending; a document seen earlier
in the ranking is a repeat and never relevant) for the drill-down, read back with
tests/report_data.py in Python and in Chromium, and a figure drawn here with every step for
the picture.
"""

from __future__ import annotations

import base64
import dataclasses
import json

import numpy as np
import pytest

from prfeval._comparison.study import study
from prfeval._report.drilldown import DIGITS, base85, drilldown_data
from prfeval._report.html import render_study
from report_data import drilldown, opened_report, shown_drilldown

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


@pytest.fixture(scope="module")
def rankings(tmp_path_factory):
    """Two runs with repeated documents, falls in score of more than 2.54 (escapes at two
    decimals), rising scores (file order kept by a tie) and negative scores; graded
    judgments 0 to 3, relevant from grade 2."""
    folder = tmp_path_factory.mktemp("compact")
    rng = np.random.default_rng(8)
    qrels: dict[str, dict[str, int]] = {}
    lines: dict[str, list[tuple[str, str, float]]] = {"a": [], "b": []}
    for q in range(1, 9):
        qid = f"q{q}"
        qrels[qid] = {f"d{d:02d}": int(rng.integers(0, 4))
                      for d in rng.choice(40, size=25, replace=False)}
        for name in lines:
            docs = [f"d{d:02d}" for d in rng.choice(40, size=20, replace=False)]
            docs += [docs[int(i)] for i in rng.choice(20, size=4, replace=False)]  # repeats
            scores = np.round(rng.normal(0, 4, len(docs)), 2)  # falls > 2.54, negatives
            lines[name] += [(qid, d, float(s)) for d, s in zip(docs, scores, strict=True)]
    (folder / "qrels.trec").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    paths = {}
    for name, rows in lines.items():
        paths[name] = folder / f"{name}.run"
        paths[name].write_text("".join(f"{q} Q0 {d} 0 {s:.2f} {name}\n" for q, d, s in rows))
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
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, d, s in rows))
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

    rng = np.random.default_rng(2)
    qrels, a, b = [], [], []
    for q in range(400):
        docs = rng.choice(60, size=30, replace=False)
        qrels += [f"q{q} 0 d{d} {int(rng.random() < 0.3)}" for d in docs]
        a += [f"q{q} Q0 d{d} 0 {rng.random():.3f} a" for d in rng.choice(60, 20, replace=False)]
        b += [f"q{q} Q0 d{d} 0 {rng.random():.3f} b" for d in rng.choice(60, 20, replace=False)]
    for name, text in (("qrels", qrels), ("a", a), ("b", b)):
        (tmp_path / name).write_text("\n".join(text) + "\n")
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
