"""The report of many queries: per-query rows written by the page's script and each
drill-down decoded on demand from the page's compressed columns, checked in Chromium against
pytrec_eval and against rankings worked out here by hand (trec_eval's order: score
descending, then doc id descending).

Small inputs: ``html_rows=0`` makes a page of 25 queries take the path of 10,000.
"""

from __future__ import annotations

import pytest

from prfeval._comparison.study import study
from prfeval._report.html import render_study
from support.hand_made import qrels_lines, run_dict_lines, write_lines
from support.random_data import Noisy, judged_runs, rounded
from support.report_data import opened_report, shown_drilldown

pytest.importorskip("matplotlib")
pytrec_eval = pytest.importorskip("pytrec_eval")


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    folder = tmp_path_factory.mktemp("large")
    # Scores of one decimal in [0, 10): ties; b's are a's plus noise (sd 2).
    qrels, (a, b) = judged_runs(5, queries=[f"q{q}" for q in range(1, 26)], n_docs=90,
                                doc="doc{:03d}", judged=30, grades=(0, 3), retrieved=40,
                                scores=rounded(1, scale=10),
                                also=[Noisy(2, 2, numpy_round=True)])  # fmt: skip
    write_lines(folder / "qrels.trec", qrels_lines(qrels))
    paths = {name: write_lines(folder / f"{name}.run", run_dict_lines(run, name))
             for name, run in (("a", a), ("b", b))}  # fmt: skip
    s = study(folder / "qrels.trec", paths, "P@5 R@10 AP", n_permutations=200,
              n_bootstrap=200, depth=12)
    out = folder / "report.html"
    steps: list[tuple[int, int]] = []
    out.write_text(render_study(s, html_rows=0, progress=lambda *a: steps.append(a)),
                   encoding="utf-8")
    assert steps == [(1, 3), (2, 3), (3, 3)]  # the page's steps, reported as they end
    return out, qrels, {"a": a, "b": b}


def _by_hand(run: dict[str, float], judged: dict[str, int], depth: int):
    """(doc, grade or None, relevant, P, R) of the top ``depth``, by score descending and
    doc id descending, with grade >= 1 relevant."""
    ranked = sorted(run.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    n_rel = sum(g >= 1 for g in judged.values())
    rows, tp = [], 0
    for k, (doc, _) in enumerate(ranked[:depth], start=1):
        grade = judged.get(doc)
        rel = grade is not None and grade >= 1
        tp += rel
        rows.append((doc, grade, rel, tp / k, tp / n_rel if n_rel else 0.0))
    missed = sorted(d for d, g in judged.items() if g >= 1 and d not in run)
    return rows, missed


def test_rows_written_by_the_script_hold_pytrec_evals_values(browser, large):
    out, qrels, runs = large
    html = out.read_text(encoding="utf-8")
    assert html.count("<tr data-query=") == 0  # no per-query rows in the HTML itself
    with opened_report(browser, out) as (page, errors):
        rows = page.locator("#per-query tbody tr")
        assert rows.count() == 25
        header = [" ".join(t.split()) for t in
                  page.locator("#per-query thead th").all_inner_texts()]
        table = page.evaluate("""() => Array.from(document.querySelectorAll(
          '#per-query tbody tr'), (tr) => [tr.getAttribute('data-query'),
          ...Array.from(tr.cells, (td) => td.getAttribute('data-value'))])""")
        for name in ("a", "b"):
            oracle = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "recall_10", "map"})
            expected = oracle.evaluate(runs[name])
            for label, key in (("P@5", "P_5"), ("R@10", "recall_10"), ("AP", "map")):
                column = 1 + header.index(f"{label} {name}")  # after the query id
                for row in table:
                    assert float(row[column]) == pytest.approx(expected[row[0]][key],
                                                               abs=1e-12), (label, row[0])
        # The differences column: b's P@5 minus a's.
        column = 1 + next(i for i, h in enumerate(header) if h.startswith("\u0394 P@5"))
        p5 = {n: pytrec_eval.RelevanceEvaluator(qrels, {"P_5"}).evaluate(runs[n])
              for n in ("a", "b")}
        for row in table:
            want = p5["b"][row[0]]["P_5"] - p5["a"][row[0]]["P_5"]
            assert float(row[column]) == pytest.approx(want, abs=1e-12)
        # Sorting and the filter work on the written rows.
        page.locator("#per-query thead th").nth(1).click()
        values = [float(v) for v in page.locator(
            "#per-query tbody tr td:nth-child(2)").all_inner_texts()]
        assert values == sorted(values)
        page.fill("#query-filter", "q1")
        shown = [r.get_attribute("data-query") for r in rows.all() if r.is_visible()]
        assert sorted(shown) == sorted(q for q in qrels if "q1" in q)
        assert errors == []


def test_a_drilldown_loaded_on_demand_is_the_ranking_by_hand(browser, large):
    out, qrels, runs = large
    with opened_report(browser, out) as (page, errors):
        for query in ("q17", "q3"):
            tables = shown_drilldown(page, query, 2)
            panel = page.locator("#drilldown")
            for i, name in enumerate(("a", "b")):
                rows, missed = _by_hand(runs[name][query], qrels[query], 12)
                cells = tables[i]
                assert len(cells) == 12
                for got, (doc, grade, rel, p, r), score in zip(
                    cells, rows,
                    sorted(runs[name][query].items(), key=lambda kv: (kv[1], kv[0]),
                           reverse=True),
                    strict=False,
                ):
                    assert got[1] == doc
                    assert float(got[2]) == pytest.approx(score[1], rel=1e-3)
                    assert got[3] == ("-" if grade is None else str(grade))
                    assert got[4] == ("*" if rel else "")
                    assert got[5] == f"{p:.3f}" and got[6] == f"{r:.3f}"
                box = panel.locator(".runs > div").nth(i).inner_text()
                if missed:
                    assert f"Relevant, never retrieved ({len(missed)})" in box
                    for doc in missed:
                        assert f"{doc} ({qrels[query][doc]})" in box
                oracle = pytrec_eval.RelevanceEvaluator({query: qrels[query]}, {"P_5"})
                p5 = oracle.evaluate({query: runs[name][query]})[query]["P_5"]
                assert f"P@5 = {p5:.4f}" in box
        assert errors == []


@pytest.fixture(scope="module")
def exact_ties(tmp_path_factory):
    """A study whose P@32 values are k/32: for odd k, the fifth decimal is an exact 5."""
    folder = tmp_path_factory.mktemp("ties")
    qrels = {f"q{q}": {f"d{d:02d}": int(d < q) for d in range(40)} for q in range(1, 12)}
    runs = {name: {q: {f"d{d:02d}": float(40 - d + shift * (d % 3)) for d in range(40)}
                   for q in qrels} for name, shift in (("a", 0), ("b", 7))}
    (folder / "qrels.trec").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    paths = {}
    for name, run in runs.items():
        paths[name] = folder / f"{name}.run"
        paths[name].write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n"
                                       for q, docs in run.items() for d, s in docs.items()))
    return study(folder / "qrels.trec", paths, "P@32", n_permutations=50, n_bootstrap=50)


def test_the_script_rounds_exact_ties_as_the_page_does(browser, exact_ties, tmp_path):
    """Python's format() rounds 0.03125 to even ("0.0312"), JS's toFixed() away from zero
    ("0.0313"): the rows the script writes must read as the rows written in the page."""
    texts = {}
    for rows in (0, 10_000):
        out = tmp_path / f"report-{rows}.html"
        out.write_text(render_study(exact_ties, html_rows=rows), encoding="utf-8")
        page = browser.new_page()
        try:
            page.goto(out.resolve().as_uri())
            if rows == 0:
                page.wait_for_selector("#per-query[data-filled=true]")
            texts[rows] = page.evaluate("""() => Array.from(document.querySelectorAll(
              '#per-query tbody tr'), (tr) => Array.from(tr.cells, (td) => td.innerText))""")
        finally:
            page.close()
    # q relevant documents lead each ranking: P@32 is q/32, written here as Python writes it.
    by_hand = {f"q{q}": f"{q / 32:.4f}" for q in range(1, 12)}
    assert by_hand["q1"] == "0.0312" and by_hand["q3"] == "0.0938"  # ties, to even both ways
    assert texts[0] == texts[10_000]
    assert {r[0]: r[1] for r in texts[0]} == by_hand
