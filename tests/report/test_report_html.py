"""The shared report's page, read as data: its numbers equal the API's, it names nothing outside
itself, and a classifier's page carries scikit-learn's counts.

The browser tests (tests/report/test_report_browser.py) drive the same page in Chromium.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from prfeval import compare, evaluate, explain
from prfeval._comparison.study import study
from prfeval._report.html import render_classification, render_study
from prfeval.cli import main
from support.hand_made import qrels_lines, run_dict_lines, write_lines
from support.random_data import Noisy, judged_runs, rounded
from support.report_data import drilldown, page_meta


def _files(tmp_path, seed=0):
    """Twelve queries judging 20 of 60 documents (grades 0 to 2); run a ranks 30 of them by
    scores of two decimals, run b the same 30 by a's score plus noise (sd 0.2)."""
    qrels, (a, b) = judged_runs(seed, queries=[str(q) for q in range(1, 13)], n_docs=60,
                                judged=20, grades=(0, 3), retrieved=30, scores=rounded(2),
                                also=[Noisy(0.2, 3)])  # fmt: skip
    return (write_lines(tmp_path / "qrels.trec", qrels_lines(qrels)),
            write_lines(tmp_path / "a.run", run_dict_lines(a, "a")),
            write_lines(tmp_path / "b.run", run_dict_lines(b, "b")))  # fmt: skip


Cell = tuple[str, str | None, str]


class Tables(HTMLParser):
    """Every table of a page: id -> rows of cell texts (and each cell's data-value and
    class)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str | None, list[list[Cell]]]] = []
        self._cell: list[str] | None = None
        self._value: str | None = None
        self._class = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append((a.get("id"), []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell, self._value, self._class = [], a.get("data-value"), a.get("class") or ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            cell = ("".join(self._cell).strip(), self._value, self._class)
            self.tables[-1][1][-1].append(cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _tables(page: str) -> dict[str | None, list[list[Cell]]]:
    parser = Tables()
    parser.feed(page)
    return {i if i else f"table{n}": rows for n, (i, rows) in enumerate(parser.tables)}


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """One study and its page for the module's read-only checks: its permutations,
    bootstrap and four figures are made once."""
    qrels, a, b = _files(tmp_path_factory.mktemp("page"))
    s = study(qrels, {"a.run": a, "b.run": b}, "P@5 R@10 SetF", n_permutations=500,
              n_bootstrap=500, depth=8)
    return s, render_study(s), (qrels, a, b)


def test_summary_holds_the_macro_and_micro_that_evaluate_gives(page):
    _, text, (qrels, a, b) = page
    rows, label = {}, None
    for r in _tables(text)["table0"][1:]:
        label = r[0][0] or label  # the measure is named on its first row only
        rows[(label, r[1][0])] = r
    for name, path in (("a.run", a), ("b.run", b)):
        e = evaluate(qrels, path, "P@5 R@10 SetF")
        for measure in e.labels:
            row = rows[(measure, name)]
            assert float(row[2][1]) == pytest.approx(e.macro[measure], abs=1e-12)
            assert row[2][0].startswith(f"{e.macro[measure]:.4f}")
            assert row[4][0] == f"{e.micro[measure]:.4f}"


def test_per_query_table_has_a_row_per_query_with_the_values(page):
    _, text, (qrels, a, _) = page
    rows = _tables(text)["per-query"]
    header, body = rows[0], rows[1:]
    e = evaluate(qrels, a, "P@5 R@10 SetF")
    assert [r[0][0] for r in body] == list(e.query_ids)
    column = [h[0] for h in header].index("P@5a.run")
    for r, q in zip(body, e.query_ids, strict=True):
        assert float(r[column][1]) == pytest.approx(e.per_query[q]["P@5"], abs=1e-12)


def test_comparison_matches_compare(page):
    _, text, (qrels, a, b) = page
    c = compare(qrels, {"a.run": a, "b.run": b}, "P@5 R@10 SetF", n_permutations=500,
                n_bootstrap=500)
    table = _tables(text)["table1"]
    delta_rows = [r for r in table[1:] if r[1][0] == "b.run"]
    checked = 0
    for r, label in zip(delta_rows, c.labels, strict=True):
        row = c.row(label, "b.run")
        assert float(r[4][1]) == pytest.approx(row.delta, abs=1e-12)
        d = c.differences(label, "b.run")
        if d.std() == 0:  # no spread: no effect size, any difference detected
            assert (r[6][0], float(r[8][1])) == ("n/a", 0.0)
            continue
        assert float(r[6][1]) == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
        # power and the detectable difference: statsmodels' noncentral t, and its root.
        stats_power = pytest.importorskip("statsmodels.stats.power").TTestPower().power
        effect, n = abs(d.mean() / d.std(ddof=1)), len(d)
        assert float(r[7][1]) == pytest.approx(stats_power(effect, n, 0.05), abs=1e-6)
        assert stats_power(float(r[8][1]) / d.std(ddof=1), n, 0.05) == pytest.approx(
            0.8, abs=1e-6)
        checked += 1
        assert r[12][0] == f"{row.wins}/{row.ties}/{row.losses}"
    assert checked


def test_drilldown_data_is_explain_for_each_query(page):
    _, text, (qrels, a, _) = page
    data = drilldown(text)
    assert data["runs"] == ["a.run", "b.run"]
    for q in ("1", "7"):
        e = explain(qrels, a, q, "P@5 R@10 SetF", depth=8)
        got = data["queries"][q]["a.run"]
        assert got["docs"] == [d.doc_id for d in e.ranking]
        assert got["scores"] == pytest.approx([d.score for d in e.ranking])
        assert got["grades"] == [d.grade for d in e.ranking]
        assert got["flags"] == "".join("r" if d.relevant else "." for d in e.ranking)
        assert got["missed"] == [list(m) for m in e.missed]
        assert got["values"] == pytest.approx(e.values)
        assert (got["n_retrieved"], got["n_relevant"]) == (e.n_retrieved, e.n_relevant)
        assert got["best"] == (e.best[0], round(e.best[1] * e.best[0]))


def test_the_page_names_nothing_outside_itself(page):
    _, text, _ = page
    assert 'http-equiv="Content-Security-Policy"' in text and "default-src 'none'" in text
    for pattern in (r"""(?:src|href)\s*=\s*["']?(?!#)[a-z]+:""", r"url\((?!#)", r"@import",
                    r"""(?:src|href)\s*=\s*["']//"""):
        found = re.findall(pattern, text, re.I)
        assert not found, (pattern, found[:3])
    assert "<svg" in text and text.count("<figure") == 4
    # Each figure's element ids are its own (salted), so no two SVGs share one.
    ids = re.findall(r'<clipPath id="([^"]+)"', text)
    assert len(ids) == len(set(ids))


def test_cli_writes_the_page_and_demo_size_is_small(tmp_path, capsys):
    qrels, a, b = _files(tmp_path)
    out = tmp_path / "report.html"
    with pytest.raises(SystemExit) as done:
        main(["report", str(qrels), str(a), str(b), "-o", str(out), "-m", "P@5 R@10",
              "--depth", "5"])
    assert done.value.code == 0
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "a.run" in text and "b.run" in text
    assert "wrote" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["report", str(qrels), str(a)])  # no -o
    assert done.value.code == 2


def test_classifier_page_has_scikit_learns_confusion_matrix(tmp_path):
    sklearn = pytest.importorskip("sklearn.metrics")
    from prfeval import classify, threshold_sweep

    rng = np.random.default_rng(4)
    y_true = rng.choice(["cat", "dog", "eel"], size=300)
    y_pred = np.where(rng.random(300) < 0.7, y_true, rng.choice(["cat", "dog", "eel"], 300))
    r = classify(y_true, y_pred)
    scores = rng.random(300) + (y_true == "dog")
    sweep = threshold_sweep(y_true, scores, pos_label="dog")
    text = render_classification(r, sweep, {"file": "labels.csv", "prfeval": "x"}, figures=False)
    matrix = _tables(text)["table0"]
    expected = sklearn.confusion_matrix(y_true, y_pred, labels=["cat", "dog", "eel"])
    assert [[int(c[0]) for c in row[1:]] for row in matrix[1:]] == expected.tolist()
    classes = _tables(text)["table1"]
    macro = next(row for row in classes if row[0][0].startswith("macro"))
    assert float(macro[2][1]) == pytest.approx(
        sklearn.precision_score(y_true, y_pred, average="macro"), abs=1e-12
    )
    assert "Threshold sweep, positive class dog" in text


def test_cli_writes_a_classifier_page(tmp_path, capsys):
    rows = ["true,pred,score", *(f"{t},{p},{s}" for t, p, s in (
        ("a", "a", 0.9), ("a", "b", 0.4), ("b", "b", 0.2), ("b", "a", 0.7), ("a", "a", 0.8),
    ))]
    (tmp_path / "labels.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "page.html"
    with pytest.raises(SystemExit) as done:
        main(["report", "--classify", str(tmp_path / "labels.csv"), "--true", "true", "--pred",
              "pred", "--score", "score", "--pos-label", "a", "-o", str(out), "--no-figures"])
    assert done.value.code == 0
    tables = _tables(out.read_text())
    # rows: true a -> predicted a twice, b once; true b -> a once, b once
    assert [[int(c[0]) for c in r[1:]] for r in tables["table0"][1:]] == [[2, 1], [1, 1]]
    assert "Threshold sweep, positive class a" in out.read_text()


def test_each_runs_interval_is_its_own_bootstrap(tmp_path):
    """The runs' intervals share one set of resamples; each must equal the bootstrap of
    that run's values alone."""
    from prfeval._comparison.stats import paired_bootstrap

    rng = np.random.default_rng(3)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(20)} for i in range(30)}
    runs = {
        name: {q: {f"d{j}": float(rng.random()) for j in range(25)} for q in qrels}
        for name in ("a", "b")
    }
    s = study(qrels, runs, "P@5 AP nDCG@10")
    for r in s.runs:
        e = r.evaluation
        alone = paired_bootstrap(e.values.T, confidence=0.95, n_resamples=10_000, seed=0)
        assert r.intervals == {
            str(m): (float(lo), float(hi))
            for m, lo, hi in zip(e.measures, alone.low, alone.high, strict=True)
        }


def test_figures_drawn_in_a_second_process_are_those_drawn_here(page):
    """The module's study, its page drawn here once (the fixture), drawn again there."""
    from prfeval._report.figures import FigureDrawer

    s, here, _ = page
    with FigureDrawer() as drawer:
        there = render_study(s, drawer=drawer)
    assert there.count("<svg") == 4
    assert there == here


def test_a_drawer_that_cannot_draw_leaves_the_page_as_it_is(page):
    """No process (closed), or a study the process cannot take (it does not pickle): the
    figures are drawn here, the same page (an unshown provenance entry changes nothing)."""
    from dataclasses import replace

    from prfeval._report.figures import FigureDrawer

    s, here, _ = page
    closed = FigureDrawer()
    closed.close()
    assert render_study(s, drawer=closed) == here
    odd = replace(s, provenance={**s.provenance, "not picklable": lambda: None})
    with FigureDrawer() as drawer:
        assert render_study(odd, drawer=drawer) == here


def test_a_drawer_left_on_an_error_leaves_no_process_behind():
    import multiprocessing

    from prfeval._report.figures import FigureDrawer

    with pytest.raises(RuntimeError, match="a reading error"), FigureDrawer():
        assert any(p.name == "prfeval-figures" for p in multiprocessing.active_children())
        raise RuntimeError("a reading error")
    assert not any(p.name == "prfeval-figures" for p in multiprocessing.active_children())


def _placed_runs():
    """Thirty queries of five relevant documents, and three runs that place them alike in
    every query: ``mid`` (the baseline) at ranks 6-10 of 40, ``top`` at ranks 1-5 of 10,
    ``bottom`` at ranks 56-60 of 60. By AP, top is better and bottom worse; by SetE, where
    lower is better, top is better with a negative difference and bottom worse with a
    positive one. Every difference is the same in each query: significant at any level."""
    rel = [f"r{j}" for j in range(5)]
    non = [f"n{j}" for j in range(55)]
    orders = {"mid.run": non[:5] + rel + non[5:35], "top.run": rel + non[:5],
              "bottom.run": non + rel}
    qrels = {f"q{i}": {**dict.fromkeys(rel, 1), **dict.fromkeys(non[:5], 0)} for i in range(30)}
    runs = {
        name: {q: {d: float(100 - rank) for rank, d in enumerate(order)} for q in qrels}
        for name, order in orders.items()
    }
    return qrels, runs


@pytest.fixture(scope="module")
def placed():
    qrels, runs = _placed_runs()
    s = study(qrels, runs, "AP SetE", n_permutations=2000, n_bootstrap=500, depth=5)
    return s, render_study(s, figures=False)


def test_a_significantly_worse_run_is_marked_worse_and_a_better_one_better(placed):
    """The direction of a difference (by the measure's) and its significance are shown
    apart: a run significantly worse gets the dagger with "worse", a down arrow and the
    worse class (red), never the better one's."""
    s, text = placed
    rows, label = {}, None
    for r in _tables(text)["table1"][1:]:
        label = r[0][0] or label
        rows[(label, r[1][0])] = r
    arrows = {"better": "\u25b2", "worse": "\u25bc"}
    expected = {("AP", "top.run"): ("better", 1), ("AP", "bottom.run"): ("worse", -1),
                ("SetE", "top.run"): ("better", -1), ("SetE", "bottom.run"): ("worse", 1)}
    for (label, run), (way, sign) in expected.items():
        other = "worse" if way == "better" else "better"
        assert s.comparison.row(label, run).significant
        delta, sig = rows[(label, run)][4], rows[(label, run)][11]
        assert np.sign(float(delta[1])) == sign  # SetE: lower is better
        assert way in delta[2].split() and other not in delta[2].split()
        assert arrows[way] in delta[0] and arrows[other] not in delta[0]
        assert sig[2].split() == ["sig", way], (label, run, sig)
        assert sig[0] == f"\u2020 {way} {arrows[way]}", (label, run, sig)
    # The baseline is neither.
    assert rows[("AP", "mid.run (baseline)")][8][0] == ""
    # The per-query differences (AP) read the same way, query by query.
    per_query = _tables(text)["per-query"]
    header = [h[0] for h in per_query[0]]
    for run, way in (("top.run", "better"), ("bottom.run", "worse")):
        column = next(i for i, h in enumerate(header) if h.startswith("\u0394") and run in h)
        cells = [r[column] for r in per_query[1:]]
        assert len(cells) == 30
        assert all(way in c[2].split() and arrows[way] in c[0] for c in cells)


def _three_runs(tmp_path):
    qrels, a, b = _files(tmp_path, seed=5)
    rng = np.random.default_rng(6)
    lines = [line.split() for line in a.read_text().splitlines()]
    c = tmp_path / "c.run"
    c.write_text("".join(f"{q} Q0 {d} 0 {float(s) + rng.normal(0, 0.4):.3f} c\n"
                         for q, _, d, _, s, _ in lines))
    return qrels, {"alpha.run": a, "beta.run": b, "gamma.run": c}


_SWATCH = re.compile(r'<span class="swatch" style="--run: (#[0-9a-f]{6})"></span>([^<]+)<')
_SVG_COLOR = re.compile(r"<text([^>]*)>([^<]*)</text>|(?:stroke|fill): (#[0-9a-f]{6})")


def _svg_run_colors(svg: str, names: list[str], palette: set[str]) -> dict[str, set[str]]:
    """The colours a figure gives each run, read off its SVG: a text that names a run (the
    first it names, for a title naming two) takes its own colour when that is a run's, else
    that of the last run-coloured line or marker before it (a legend entry's, drawn just
    before its label)."""
    found: dict[str, set[str]] = {}
    last = None
    for m in _SVG_COLOR.finditer(svg):
        if m.group(3):
            if m.group(3) in palette:
                last = m.group(3)
            continue
        named = sorted((m.group(2).find(n), n) for n in names if n in m.group(2))
        if not named:
            continue
        own = re.search(r"fill: (#[0-9a-f]{6})", m.group(1))
        color = own.group(1) if own and own.group(1) in palette else last
        found.setdefault(named[0][1], set()).add(str(color))
    return found


def test_each_run_keeps_one_colour_in_every_table_and_figure(tmp_path):
    """Run i is drawn in run_color(i) in the summary, the comparison, the per-query table,
    the drill-down and each of the four figures."""
    from prfeval._plots.figures import run_color

    qrels, paths = _three_runs(tmp_path)
    s = study(qrels, paths, "P@5 AP", n_permutations=500, n_bootstrap=500, depth=5)
    text = render_study(s)
    names = list(paths)
    colors = {name: run_color(i) for i, name in enumerate(names)}
    assert len(set(colors.values())) == 3

    tables = re.findall(r"<table.*?</table>", text, re.S)
    assert len(tables) == 3  # summary, comparison, per query
    for table in tables:
        swatches = {(name, color) for color, name in _SWATCH.findall(table)}
        assert {name for name, _ in swatches} == set(names)
        assert swatches == set(colors.items()), swatches

    data = page_meta(text)
    assert dict(zip(data["runs"], data["colors"], strict=True)) == colors

    figures = re.findall(r"<figure.*?</figure>", text, re.S)
    assert len(figures) == 4
    shown = [names, names, names, names[1:]]  # the differences: each run against the first
    for figure, runs in zip(figures, shown, strict=True):
        found = _svg_run_colors(figure, names, set(colors.values()))
        assert set(found) == set(runs), (figure[:80], found)
        for name in runs:
            assert found[name] == {colors[name]}, (name, found)
