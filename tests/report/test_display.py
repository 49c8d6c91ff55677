"""``print(result)`` and notebooks: each result shows itself as a short table whose numbers
agree with independent sources (pytrec_eval, scikit-learn, counts by hand), with every name
escaped in HTML; ``ClassificationResult.classification_report`` is scikit-learn's
``classification_report`` to the byte, on random cases."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from html.parser import HTMLParser

import numpy as np
import pytest
import pytrec_eval
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    balanced_accuracy_score,
    classification_report,
    precision_recall_fscore_support,
    roc_auc_score,
)

import prfeval
from prfeval._core.counts import UndefinedMetricWarning
from prfeval._core.display import MAX_ROWS, table
from support.random_data import Noisy, Qrels, Run, distinct, judged_runs

# --------------------------------------------------------------------------------------------
# Helpers: random judgments and runs, and reading a printed table back


def judgments_and_run(seed: int, n_queries: int = 25, depth: int = 40,
                      also: Sequence[Noisy] = ()) -> tuple[Qrels, list[Run]]:
    """Judgments and runs (tests/support/random_data.py) of queries ``query-0``, ...: each judges
    70%
    of ``depth + 10`` documents 0 to 2, so a few judged documents are never retrieved and most
    retrieved ones are judged; the run ranks ``depth`` of them with distinct scores (``also``:
    more runs over the same documents). Every query has a relevant document."""
    n_docs = depth + 10
    qrels, runs = judged_runs(seed, queries=[f"query-{i}" for i in range(n_queries)],
                              n_docs=n_docs, judged=n_docs * 7 // 10, grades=(0, 3),
                              retrieved=depth, scores=distinct(), also=also)  # fmt: skip
    assert all(max(grades.values()) >= 1 for grades in qrels.values())  # recall is defined
    return qrels, runs


#: A second run for comparisons: the first's scores (0.5 to 39.5) plus a normal draw of sd 8,
#: so that the two rank the documents differently.
NEW_RUN = Noisy(sd=8.0, decimals=3)


def pytrec(qrels, run, measures):
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)


def body(text: str) -> tuple[str, list[list[str]], list[str]]:
    """The title, the rows (cells split at runs of two spaces or more) and the lines after
    the rows of a printed table."""
    lines = text.split("\n")
    rule = next(i for i, line in enumerate(lines) if line and set(line) <= {"-", " "})
    rows, rest = [], []
    for line in lines[rule + 1 :]:
        if rest or line.startswith("... ") or not re.search(r"\S {2,}\S|^\S+$", line.strip()):
            rest.append(line)
        else:
            rows.append(re.split(r" {2,}", line.strip()))
    return lines[0], rows, rest


class Cells(HTMLParser):
    """The text of every caption, header and cell of an HTML table, unescaped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.caption = ""
        self.tags: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th", "caption"):
            self._in = tag
            if tag != "caption":
                self.rows[-1].append("")

    def handle_endtag(self, tag):
        if tag in ("td", "th", "caption"):
            self._in = None

    def handle_data(self, data):
        if self._in == "caption":
            self.caption += data
        elif self._in:
            self.rows[-1][-1] += data


def cells(html_text: str) -> Cells:
    parser = Cells()
    parser.feed(html_text)
    return parser


# --------------------------------------------------------------------------------------------
# Evaluation


def test_an_evaluation_prints_a_title_and_one_row_per_measure_as_pytrec_eval_has_them():
    qrels, (run,) = judgments_and_run(1)
    qrels["judged-only"] = {"x": 1}  # judged, never run: skipped and said so
    e = prfeval.evaluate(qrels, run, "P@10 recall@20 AP NumRet")
    text = repr(e)
    assert str(e) == text
    title, rows, rest = body(text)
    assert title == "Evaluation of run 'run' on 25 queries (mean over queries; level 1)"
    ref = pytrec(qrels, run, {"P_10", "recall_20", "map", "num_ret"})
    mean = {m: np.mean([v[m] for v in ref.values()]) for m in ("P_10", "recall_20", "map")}
    assert rows == [
        ["P@10", f"{mean['P_10']:.4f}"],
        ["recall@20", f"{mean['recall_20']:.4f}"],
        ["AP", f"{mean['map']:.4f}"],
        ["NumRet (total)", str(sum(int(v["num_ret"]) for v in ref.values()))],
    ]
    assert rest == [
        "1 judged query without results: skipped (complete=True scores it as an empty ranking)."
    ]
    assert "query-" not in text  # no per-query values
    assert all(line == line.rstrip() for line in text.split("\n"))


def test_the_title_says_the_relevance_level_and_the_run_name():
    qrels, (run,) = judgments_and_run(2, n_queries=3)
    e = prfeval.evaluate(qrels, run, "P@5", level=2)
    title, rows, _ = body(str(e))
    assert title == "Evaluation of run 'run' on 3 queries (mean over queries; level 2)"
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"P_5"}, relevance_level=2).evaluate(run)
    assert rows == [["P@5", f"{np.mean([v['P_5'] for v in ref.values()]):.4f}"]]


def test_very_many_measures_are_cut_with_a_count_of_the_rest():
    qrels, (run,) = judgments_and_run(3, n_queries=5)
    ks = range(1, 46)
    e = prfeval.evaluate(qrels, run, [f"P@{k}" for k in ks])
    _, rows, rest = body(repr(e))
    ref = pytrec(qrels, run, {"P." + ",".join(map(str, ks))})
    assert rows == [
        [f"P@{k}", f"{np.mean([v[f'P_{k}'] for v in ref.values()]):.4f}"]
        for k in ks[:MAX_ROWS]
    ]
    assert rest == [f"... {45 - MAX_ROWS} more measures"]
    assert len(repr(e).split("\n")) == 3 + MAX_ROWS + 1


def test_with_bounds_the_value_with_the_unjudged_taken_as_relevant_stands_beside():
    qrels, (run,) = judgments_and_run(4, n_queries=8)
    e = prfeval.evaluate(qrels, run, "P@10 P@30", bounds=True)
    upper_qrels = {
        q: {**grades, **{d: 1 for d in run[q] if d not in grades}} for q, grades in qrels.items()
    }
    low, high = pytrec(qrels, run, {"P_10", "P_30"}), pytrec(upper_qrels, run, {"P_10", "P_30"})
    lines = repr(e).split("\n")
    assert lines[1].split() == ["measure", "value", "if", "unjudged", "relevant"]
    _, rows, _ = body(repr(e))
    assert rows == [
        [f"P@{k}", f"{np.mean([v[f'P_{k}'] for v in low.values()]):.4f}",
         f"{np.mean([v[f'P_{k}'] for v in high.values()]):.4f}"]
        for k in (10, 30)
    ]


def test_an_evaluation_renders_in_a_notebook_with_everything_the_command_line_shows():
    """macro, micro, the F of mean P and R, the judged share and the notes, as
    ``prfeval evaluate`` prints them (the issue: the HTML showed the macro column alone)."""
    qrels, (run,) = judgments_and_run(5, n_queries=4)
    e = prfeval.evaluate(qrels, run, "P@10 AP SetF")
    ref = pytrec(qrels, run, {"P_10", "map", "set_F", "set_P", "set_recall"})
    html_text = e._repr_html_()
    parsed = cells(html_text)
    assert parsed.caption == "Evaluation of run 'run' on 4 queries (level 1)"
    mean = {m: np.mean([v[m] for v in ref.values()])
            for m in ("P_10", "map", "set_F", "set_P", "set_recall")}
    # The judged share in each query's top 10, counted from the inputs (ranked by score, ties
    # by doc id descending, as trec_eval ranks).
    judged = np.mean([
        sum(d in qrels[q] for d in sorted(run[q], key=lambda d: (run[q][d], d),
                                          reverse=True)[:10]) / 10
        for q in ref
    ])  # fmt: skip
    p, r = mean["set_P"], mean["set_recall"]
    assert parsed.rows == [
        ["measure", "macro", "micro", "F of mean P, R", "judged"],
        ["P@10", f"{mean['P_10']:.4f}", f"{mean['P_10']:.4f}", "", f"{judged:.0%}"],
        ["AP", f"{mean['map']:.4f}", "", "", ""],
        ["SetF", f"{mean['set_F']:.4f}", parsed.rows[3][2], f"{2 * p * r / (p + r):.4f}", ""],
    ]
    assert parsed.tags.count("table") == 1
    assert "macro: the mean over queries" in html_text
    assert "Queries evaluated: 4, averaged over the queries in both the run and the" in html_text


# --------------------------------------------------------------------------------------------
# Comparison


def test_a_comparison_prints_each_runs_mean_and_its_difference_from_the_baseline():
    qrels, (run_a, run_b) = judgments_and_run(6, n_queries=12, also=[NEW_RUN])
    c = prfeval.compare(qrels, {"base": run_a, "new": run_b}, "P@10 AP")
    title, rows, _ = body(repr(c))
    assert title.startswith("Comparison of 2 runs on 12 queries against the baseline 'base' (")
    means = {}
    for name, run in (("base", run_a), ("new", run_b)):
        ref = pytrec(qrels, run, {"P_10", "map"})
        means[name] = {m: np.mean([v[m] for v in ref.values()]) for m in ("P_10", "map")}
    for row, (label, key, name) in zip(
        rows,
        [("P@10", "P_10", "base"), ("P@10", "P_10", "new"), ("AP", "map", "base"),
         ("AP", "map", "new")],
        strict=True,
    ):
        assert row[0] == label
        assert row[2] == f"{means[name][key]:.4f}"
        if name == "base":
            assert row[1:] == ["base (baseline)", f"{means[name][key]:.4f}"]
        else:
            assert row[1] == "new"
            assert row[3] == f"{means['new'][key] - means['base'][key]:+.4f}"
            p = float(row[4].lstrip("<"))
            assert 0 <= p <= 1


def test_run_names_are_escaped_in_html_and_kept_on_one_line_in_text():
    qrels, (run_a, run_b) = judgments_and_run(7, n_queries=5, also=[NEW_RUN])
    hostile = "<b>\"x\" & 'y'</b>"
    c = prfeval.compare(qrels, {hostile: run_a, "two\nlines": run_b}, "P@10")
    page = c._repr_html_()
    assert "<b>" not in page and "&lt;b&gt;" in page
    parsed = cells(page)
    assert parsed.tags.count("b") == 0
    assert [row[1] for row in parsed.rows[1:]] == [f"{hostile} (baseline)", "two\nlines"]
    assert f"{hostile!r}" in parsed.caption
    text = repr(c)
    assert len(text.split("\n")) == 3 + 2  # title, header, rule, one row per run
    assert "two\\nlines" in text


# --------------------------------------------------------------------------------------------
# Curves and explanations


def test_curves_print_the_averages_at_a_few_cutoffs_as_counted_by_hand():
    qrels, (run,) = judgments_and_run(8, n_queries=10, depth=30)
    cu = prfeval.curve(qrels, run)
    title, rows, rest = body(repr(cu))
    assert title == "Curves of run 'run' on 10 queries (averages at k; level 1)"
    # trec_eval's order: score descending, then doc id descending
    ranked = {
        q: sorted(docs, key=lambda d: (docs[d], d), reverse=True) for q, docs in run.items()
    }
    relevant = {q: {d for d, g in grades.items() if g >= 1} for q, grades in qrels.items()}

    def at(k):
        hits = [len(set(ranked[q][:k]) & relevant[q]) for q in qrels]
        p = [h / k for h in hits]
        r = [h / len(relevant[q]) for h, q in zip(hits, qrels, strict=True)]
        f = [2 * a * b / (a + b) if a + b else 0.0 for a, b in zip(p, r, strict=True)]
        micro_r = sum(hits) / sum(len(relevant[q]) for q in qrels)
        micro_p = sum(hits) / (k * len(qrels))
        micro_f = 2 * micro_p * micro_r / (micro_p + micro_r) if hits else 0.0
        return [str(k), *(f"{x:.4f}" for x in (np.mean(p), np.mean(r), np.mean(f), micro_r,
                                                micro_f))]

    shown = [int(row[0]) for row in rows]
    assert {1, 5, 10, 20, 30} <= set(shown) and shown == sorted(shown)
    assert rows == [at(k) for k in shown]
    best = max(range(1, 31), key=lambda k: (float(np.mean([
        2 * len(set(ranked[q][:k]) & relevant[q]) / (k + len(relevant[q])) for q in qrels
    ])), -k))
    assert rest[0].startswith(f"Best mean F1 at k = {best} (")


def test_an_explanation_prints_the_query_values_as_pytrec_eval_has_them():
    qrels, (run,) = judgments_and_run(9, n_queries=3)
    x = prfeval.explain(qrels, run, "query-1", "P@10 AP")
    title, rows, _ = body(repr(x))
    n_rel = sum(g >= 1 for g in qrels["query-1"].values())
    assert title == (
        f"Explanation of query 'query-1': {n_rel} relevant documents, 40 places retrieved"
    )
    ref = pytrec(qrels, run, {"P_10", "map"})["query-1"]
    assert rows == [["P@10", f"{ref['P_10']:.4f}"], ["AP", f"{ref['map']:.4f}"]]


# --------------------------------------------------------------------------------------------
# Classification results


def test_a_classification_prints_its_average_beside_the_no_skill_one_as_sklearn_has_it():
    rng = np.random.default_rng(10)
    y_true = rng.integers(0, 4, 200).tolist()
    y_pred = [t if rng.random() < 0.6 else int(rng.integers(0, 4)) for t in y_true]
    r = prfeval.classify(y_true, y_pred)
    title, rows, _ = body(str(r))
    assert title == "Classification of 200 items into 4 classes (macro average; F1)"
    p, rec, f, _ = precision_recall_fscore_support(y_true, y_pred, average="macro")
    got = {row[0]: row[1] for row in rows}
    assert got["precision"] == f"{p:.4f}" and got["recall"] == f"{rec:.4f}"
    assert got["F1"] == f"{f:.4f}"
    assert got["accuracy"] == f"{accuracy_score(y_true, y_pred):.4f}"
    assert got["balanced accuracy"] == f"{balanced_accuracy_score(y_true, y_pred):.4f}"
    # No skill: precision of class c is its prevalence, recall its predicted share.
    prevalence = np.bincount(y_true, minlength=4) / 200
    share = np.bincount(y_pred, minlength=4) / 200
    base = {row[0]: row[2] for row in rows}
    assert base["precision"] == f"{prevalence.mean():.4f}"
    assert base["recall"] == f"{share.mean():.4f}"
    assert base["accuracy"] == f"{(prevalence * share).sum():.4f}"
    assert "<table" in r._repr_html_()


def test_score_measures_and_sweeps_print_what_sklearn_computes():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 80)
    s = np.round(rng.random(80) + 0.3 * y, 2)  # rounded: ties, as in real scores
    sm = prfeval.score_measures(y, s)
    _, rows, _ = body(repr(sm))
    assert rows == [
        ["average precision", f"{average_precision_score(y, s):.4f}", f"{y.mean():.4f}"],
        ["ROC AUC", f"{roc_auc_score(y, s):.4f}", "0.5000"],
    ]
    sweep = prfeval.threshold_sweep(y, s)
    title, rows, _ = body(repr(sweep))
    thresholds = sorted(set(s.tolist()), reverse=True)
    assert title == (f"Threshold sweep of 80 items, {len(thresholds)} thresholds "
                     "(positive class 1; F1)")

    def f1(t):
        tp = int(((s >= t) & (y == 1)).sum())
        return 2 * tp / ((s >= t).sum() + y.sum())

    best = max(thresholds, key=lambda t: (f1(t), t))  # the highest threshold among ties
    got = {row[0]: row[1] for row in rows}
    assert got["average precision"] == f"{average_precision_score(y, s):.4f}"
    assert got["best F1"] == f"{f1(best):.4f}"
    assert float(got["at threshold"]) == best


# --------------------------------------------------------------------------------------------
# classification_report, byte for byte


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b or (math.isnan(a) and math.isnan(b))


def _labels(rng, pool):
    chosen = rng.permutation(len(pool))[: rng.integers(1, len(pool) + 1)]
    return [pool[i] for i in chosen]


ZERO_DIVISIONS = ["warn", 0, 1, math.nan]


# Nearly all the time is scikit-learn's, two reports a case. The single-label test cycles
# through 24 kinds: four zero_division values, three ways of choosing the classes, int or str
# classes, each independent of the others (i % 2 beside i % 4 had tied str classes to two of
# the zero_division values), with new sizes and digits each time. 72 cases check every kind
# 3 times, and every zero_division and way of choosing 6 times; the multi-label test's 48
# check each of its 8 kinds (zero_division, with labels or not) 6 times. More cases only drew
# the same kinds again, at scikit-learn's cost.
def test_classification_report_is_sklearns_for_random_single_label_cases():
    rng = np.random.default_rng(100)
    for i in range(72):
        n, k = int(rng.integers(1, 60)), int(rng.integers(1, 7))
        yt, yp = rng.integers(0, k, n).tolist(), rng.integers(0, k, n).tolist()
        pool: list = list(range(k + 2))
        if (i // 12) % 2:
            yt, yp = [f"c{v}" for v in yt], [f"c{v}" for v in yp]
            pool = [f"c{v}" for v in pool]
        zero_division = ZERO_DIVISIONS[i % 4]
        digits = int(rng.integers(0, 6))
        kw: dict = {}
        theirs: dict = {}
        if (i // 4) % 3 == 2:  # classified with labels=: the report shows those
            theirs["labels"] = _labels(rng, pool)
            r = prfeval.classify(yt, yp, zero_division=0, labels=theirs["labels"])
        else:
            r = prfeval.classify(yt, yp, zero_division=0, beta=0.5)  # the report's F is F1
            if (i // 4) % 3 == 1:  # a subset, a superset or a reordering of the classes
                kw["labels"] = theirs["labels"] = _labels(rng, pool)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for output_dict in (False, True):
                ours = r.classification_report(digits=digits, zero_division=zero_division,
                                               output_dict=output_dict, **kw)
                want = classification_report(yt, yp, digits=digits, output_dict=output_dict,
                                             zero_division=zero_division, **theirs)
                assert _same(ours, want), (yt, yp, kw, theirs, zero_division, ours, want)


def test_classification_report_is_sklearns_for_random_multi_label_cases():
    rng = np.random.default_rng(200)
    for i in range(48):
        n, n_labels = int(rng.integers(1, 40)), int(rng.integers(2, 6))
        y = (rng.random((n, n_labels)) < rng.random()).astype(int)
        p = (rng.random((n, n_labels)) < rng.random()).astype(int)
        zero_division = ZERO_DIVISIONS[i % 4]
        digits = int(rng.integers(0, 6))
        kw = {"labels": rng.permutation(n_labels).tolist()} if (i // 4) % 2 else {}
        r = prfeval.classify(y, p, zero_division=1, beta=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for output_dict in (False, True):
                ours = r.classification_report(digits=digits, zero_division=zero_division,
                                               output_dict=output_dict, **kw)
                want = classification_report(y, p, digits=digits, output_dict=output_dict,
                                             zero_division=zero_division, **kw)
                assert _same(ours, want), (y.tolist(), p.tolist(), kw, ours, want)


def test_classification_report_with_target_names_as_sklearn():
    y_true = ["ant", "bee", "bee", "cat", "cat", "cat"]
    y_pred = ["ant", "bee", "cat", "cat", "cat", "ant"]
    r = prfeval.classify(y_true, y_pred)
    names = ["Formicidae", "Apis mellifera", "Felis catus"]
    assert r.classification_report(target_names=names, digits=3) == classification_report(
        y_true, y_pred, target_names=names, digits=3
    )
    with pytest.raises(prfeval.UsageError, match="target_names"):
        r.classification_report(target_names=names[:2])
    with pytest.raises(ValueError):
        classification_report(y_true, y_pred, target_names=names[:2])
    # With labels, a mismatch warns and the rows stop at the shorter, in both.
    with pytest.warns(UserWarning, match="does not match size of target_names"):
        ours = r.classification_report(labels=["cat", "bee"], target_names=["Felis"])
    with pytest.warns(UserWarning, match="does not match size of target_names"):
        want = classification_report(y_true, y_pred, labels=["cat", "bee"],
                                     target_names=["Felis"])
    assert ours == want


def test_classification_report_of_a_binary_result_with_one_class_in_the_data():
    # average="binary" adds the positive class when the data lack it; sklearn shows only
    # the classes that occur.
    y = [0, 0, 0, 0]
    r = prfeval.classify(y, y, average="binary", zero_division=0)
    assert r.classification_report() == classification_report(y, y)
    assert r.classification_report(labels=[0, 1], zero_division=0) == classification_report(
        y, y, labels=[0, 1], zero_division=0)


def test_classification_report_warns_as_classify_does_for_undefined_ratios():
    r = prfeval.classify([0, 0, 1], [0, 0, 0], zero_division=0)
    with pytest.warns(UndefinedMetricWarning, match="class 1"):
        r.classification_report()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r.classification_report(zero_division=0)


def test_classification_report_refuses_what_the_result_cannot_tell():
    r = prfeval.classify(["a", "b", "c"], ["a", "b", "b"], labels=["a", "b"])
    with pytest.raises(prfeval.UsageError, match="'z'"):  # "c" occurs outside the labels
        r.classification_report(labels=["a", "z"])
    with pytest.raises(prfeval.UsageError, match="twice"):
        r.classification_report(labels=["a", "a"])
    with pytest.raises(prfeval.UsageError, match="at least one"):
        r.classification_report(labels=[])
    with pytest.raises(prfeval.UsageError, match="digits"):
        r.classification_report(digits=-1)
    multi = prfeval.classify(np.eye(3, dtype=int), np.eye(3, dtype=int))
    with pytest.raises(prfeval.UsageError, match="multi-label"):
        multi.classification_report(labels=[0, 1])


# --------------------------------------------------------------------------------------------
# The table itself


def test_a_table_aligns_numbers_right_and_escapes_what_would_break_a_line():
    t = table("Title\twith a tab", ["name", "value"],
              [["a\nb", "0.5000"], ["日本", "12"]], notes=["<note> & more"])
    lines = t.text().split("\n")
    assert lines == [
        "Title\\twith a tab",
        "name   value",
        "----  ------",
        "a\\nb  0.5000",
        "日本      12",  # two wide characters take four columns
        "<note> & more",
    ]
    page = cells(t.html())
    assert page.caption == "Title\twith a tab"
    assert page.rows == [["name", "value"], ["a\nb", "0.5000"], ["日本", "12"]]
    assert "&lt;note&gt; &amp; more" in t.html()


def test_a_table_counts_the_rows_it_leaves_out():
    rows = [[f"r{i}", str(i)] for i in range(7)]
    t = table("T", ["row", "n"], rows, limit=5, noun="things")
    assert t.text().split("\n")[-1] == "... 2 more things"
    assert len(t.rows) == 5
    parsed = cells(t.html())
    assert parsed.rows[-1] == ["... 2 more things"]
    assert table("T", ["row", "n"], rows, limit=7).more == 0
