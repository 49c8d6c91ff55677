"""Notebook views: a comparison, curves, a classification, a threshold sweep, score measures
and an explanation render in Jupyter (``_repr_html_``) with everything the command line's
text shows (every figure, header and note: each word of the text is in the HTML at least as
often), their figures agree with independent sources (pytrec_eval, scikit-learn, counts by
hand), and hostile ids and names stay inert text."""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

import numpy as np
import pytest
import pytrec_eval
from sklearn.metrics import average_precision_score, precision_recall_fscore_support

import prfeval
from prfeval._report.classification import format_table as classification_text
from prfeval._report.comparison import format_table as comparison_text
from prfeval._report.curves import format_table as curve_text
from prfeval._report.explain import format_explanations
from support.random_data import Noisy, distinct, judged_runs

HOSTILE = "<script>alert('x')</script>&amp;\"q\""


class Text(HTMLParser):
    """The text of an HTML fragment, unescaped, and the tags it opens."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.parts.append(data)


def parsed(page: str) -> Text:
    t = Text()
    t.feed(page)
    return t


def words(text: str) -> Counter[str]:
    """The words of a text, with the rules under table headers left out."""
    return Counter(w for w in text.split() if not set(w) <= set("-─━"))


def assert_shows_everything(page: str, text: str) -> None:
    """Every word of the text form is in the HTML's text, as many times at least, and the HTML
    has no tag beyond a table's, a paragraph's and bold."""
    t = parsed(page)
    missing = words(text) - words(" ".join(t.parts))
    assert not missing, missing
    assert set(t.tags) <= {"div", "p", "b", "table", "caption", "thead", "tbody", "tr", "th",
                           "td"}, set(t.tags)


def _case(seed: int = 1, n_queries: int = 8):
    queries = [f"q{i}" for i in range(n_queries)]
    qrels, (a, b) = judged_runs(seed, queries=queries, n_docs=30, judged=20, grades=(0, 2),
                                retrieved=20, scores=distinct(),
                                also=[Noisy(sd=6.0, decimals=3)])  # fmt: skip
    return qrels, a, b


def _mean(qrels, run, measure):
    ref = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return float(np.mean([v[measure] for v in ref.values()]))


@pytest.mark.parametrize("all_pairs", [False, True])
def test_a_comparison_shows_what_compare_prints(all_pairs):
    qrels, a, b = _case()
    runs = {"base": a, "new": b, **({"third": dict(reversed(a.items()))} if all_pairs else {})}
    c = prfeval.compare(qrels, runs, "P@10 AP NumRet", n_permutations=500, n_bootstrap=500,
                        all_pairs=all_pairs)
    page = c._repr_html_()
    assert_shows_everything(page, comparison_text(c))
    text = " ".join(parsed(page).parts)
    for run in ("base", "new"):
        assert f"{_mean(qrels, runs[run], 'P_10'):.4f}" in text
        assert f"{_mean(qrels, runs[run], 'map'):.4f}" in text
    delta = _mean(qrels, b, "map") - _mean(qrels, a, "map")
    assert f"{delta:+.4f}" in text
    assert "Macro and micro averages" in text and "micro" in parsed(page).parts
    if all_pairs:
        assert "Tukey p" in parsed(page).parts


def test_a_comparison_with_hostile_run_names_stays_inert():
    qrels, a, b = _case(2)
    c = prfeval.compare(qrels, {HOSTILE: a, "b": b}, "P@5", n_permutations=200)
    page = c._repr_html_()
    assert "<script>" not in page and "script" not in parsed(page).tags
    assert f"{HOSTILE} (baseline)" in parsed(page).parts
    assert_shows_everything(page, comparison_text(c))


def test_curves_show_what_curve_prints_with_the_averages_counted_by_hand():
    qrels, run, _ = _case(3)
    run[HOSTILE] = {"d1": 1.0}  # a run query without judgments: named in a note
    cu = prfeval.curve(qrels, run)
    page = cu._repr_html_()
    assert_shows_everything(page, curve_text(cu, [], None))
    assert "script" not in parsed(page).tags
    ranked = {q: sorted(d, key=lambda x: (d[x], x), reverse=True)
              for q, d in run.items() if q in qrels}
    relevant = {q: {d for d, g in qrels[q].items() if g >= 1} for q in qrels}
    hits = [len(set(ranked[q][:10]) & relevant[q]) for q in qrels]
    micro_recall = sum(hits) / sum(len(relevant[q]) for q in qrels)
    row = next(r for r in _rows(page) if r and r[0] == "10")
    assert row[1] == f"{np.mean([h / 10 for h in hits]):.4f}"
    assert row[4] == f"{micro_recall:.4f}"


def _rows(page: str) -> list[list[str]]:
    """The cells of every table row of the page."""
    return [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr)
            for tr in re.findall(r"<tr>(.*?)</tr>", page, re.S)]


def test_a_classification_shows_what_classify_prints_verbose_with_sklearns_figures():
    rng = np.random.default_rng(5)
    names = np.array(["cat", "dog", HOSTILE])
    y_true = names[rng.integers(0, 3, 90)].tolist()
    y_pred = [t if rng.random() < 0.6 else str(names[rng.integers(0, 3)]) for t in y_true]
    r = prfeval.classify(y_true, y_pred)
    page = r._repr_html_()
    assert_shows_everything(page, classification_text(r, None, verbose=True, width=200))
    assert "<script>" not in page and "script" not in parsed(page).tags
    p, rec, f, _ = precision_recall_fscore_support(y_true, y_pred, labels=sorted(set(names)))
    for label, values in zip(sorted(set(names)), zip(p, rec, f, strict=True), strict=True):
        # The per-class table's row: class, support, P, R, F1, TNR.
        row = next(r for r in _rows(page) if len(r) == 6 and r[0] == _esc(label))
        assert [f"{v:.4f}" for v in values] == row[2:5]
    micro = precision_recall_fscore_support(y_true, y_pred, average="micro")
    assert f"{micro[2]:.4f}" in " ".join(parsed(page).parts)


def _esc(text: str) -> str:
    import html

    return html.escape(text)


def test_a_sweep_and_score_measures_show_what_classify_prints():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 20)
    s = np.round(rng.random(20) + 0.4 * y, 2)
    sweep = prfeval.threshold_sweep(y, s)
    page = sweep._repr_html_()
    assert_shows_everything(page, classification_text(None, sweep, width=200))
    assert f"{average_precision_score(y, s):.4f}" in " ".join(parsed(page).parts)
    m = prfeval.score_measures(y, s)
    page = m._repr_html_()
    assert_shows_everything(page, classification_text(None, None, m, width=200))


def test_an_explanation_shows_what_explain_prints():
    qrels, run, _ = _case(7)
    x = prfeval.explain(qrels, run, "q1", "P@5 AP")
    page = x._repr_html_()
    assert_shows_everything(page, format_explanations([x]))
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "map"}).evaluate(run)["q1"]
    assert f"P@5 = {ref['P_5']:.4f}" in " ".join(parsed(page).parts)


def test_a_gate_verdict_shows_what_gate_prints_with_pytrec_evals_means():
    from prfeval._report.gate import format_text

    qrels, a, b = _case(9)
    g = prfeval.gate(qrels, a, b, "P@10 AP", max_drop={"P@10": 0.01}, n_permutations=300,
                     names=(HOSTILE, "candidate"))
    page = g._repr_html_()
    assert_shows_everything(page, format_text(g))
    assert "<script>" not in page and "script" not in parsed(page).tags
    text = " ".join(parsed(page).parts)
    for run in (a, b):
        assert f"{_mean(qrels, run, 'P_10'):.4f}" in text
        assert f"{_mean(qrels, run, 'map'):.4f}" in text
    assert text.split()[:3] == ["prfeval", "gate:", "FAIL:" if g.exit_status else "pass:"]
