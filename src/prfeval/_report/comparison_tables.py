"""The tables papers print of a :class:`~prfeval._comparison.results.Comparison`: Markdown and
LaTeX (``prfeval.format_comparison(c, "markdown")``, ``"latex"``).

The main table has one row per run and one column per measure, each cell the macro average;
the best value of each measure is in bold and a dagger marks a value significantly different
from the baseline's after the correction for many tests. The differences table under it has
one row per run against the baseline (or, with ``all_pairs``, per pair of runs) and one
column per tested measure, each cell the difference of the macro averages and its paired
bootstrap confidence interval; with ``all_pairs`` a double dagger marks a difference Tukey's
HSD finds significant. The legend names the query set, the test, the correction, alpha and
the number of queries, so the tables can be read on their own.
"""

from __future__ import annotations

import math

from prfeval._comparison.comparison_table import (
    PAIR_HEADERS,
    describe_test,
    disagreement_lines,
    effect_text,
    pair_rows,
    words_for_correction,
    words_for_test,
)
from prfeval._comparison.results import Comparison, ComparisonRow, PairRow
from prfeval._core.display import p_text as _fmt_p
from prfeval._core.ids import counted

__all__ = [
    "DETAIL_HEADERS",
    "PAIR_HEADERS",
    "best_runs",
    "describe_query_set",
    "describe_test",
    "detail_rows",
    "difference_rows",
    "disagreement_lines",
    "effect_text",
    "latex",
    "legend",
    "markdown",
    "pair_rows",
    "tex_escape",
    "words_for_correction",
    "words_for_test",
]

_POLICY = {
    "zero": "the judged queries any run answered",
    "drop": "the judged queries every run answered",
    "complete": "every judged query",
}


def describe_query_set(c: Comparison) -> str:
    """The compared queries in words: ``12 queries, the judged queries any run answered``,
    and the query set they were drawn from when one was given (``..., of the 4 queries
    listed in dev.txt``)."""
    text = f"{counted(len(c.query_ids), 'query', 'queries')}, {_POLICY[c.queries.policy]}"
    if c.queries.query_set != "all":
        text += f", of the query set: {c.queries.query_set}"
    return text


def legend(c: Comparison) -> str:
    """What the marks mean, what the values are and which queries they cover."""
    s = c.settings
    return (
        f"Macro averages over {describe_query_set(c)}. Bold: the best value of each measure. "
        f"†: significantly different from the baseline {c.baseline} at alpha = {s['alpha']:g}: "
        f"{describe_test(c)}."
    )


def _difference_legend(c: Comparison) -> str:
    s = c.settings
    against = "run B − run A for every pair of runs" if s.get("all_pairs") else (
        f"run − the baseline {c.baseline}"
    )
    text = (
        f"Differences of the macro averages, {against}, paired by query, with their "
        f"{s['confidence']:.0%} paired bootstrap confidence intervals "
        f"({s['n_bootstrap']:,} resamples from random seed {s['seed']}), and the effect "
        f"size d_z (the mean difference over its standard deviation across queries). "
        f"†: significant by the paired test after the correction (p adj. <= {s['alpha']:g}"
        f", {s['n_tests']} tests)."
    )
    if s.get("all_pairs"):
        text += (
            f" ‡: significant by Tukey's HSD over all {len(c.runs)} runs of the measure "
            f"at alpha = {s['alpha']:g}."
        )
    return text


def best_runs(c: Comparison, measure: str) -> set[str]:
    """The runs with the best macro value of ``measure`` (all of them when tied); none for
    counts, and none when every run has the same value (bold would single out nothing)."""

    m = c.measures[c.labels.index(measure)]
    sign = m.definition.direction
    if sign == 0:
        return set()
    rows = [r for r in c.rows if r.measure == measure]
    best = max(sign * r.macro for r in rows)
    chosen = {r.run for r in rows if sign * r.macro >= best - 1e-12}
    return chosen if len(chosen) < len(rows) else set()


def _fmt(value: float, digits: int) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:.{digits}f}"


def _cell(row: ComparisonRow, bold: bool, digits: int, *, tex: bool) -> str:
    value = _fmt(row.macro, 0 if row.aggregation == "sum" else digits)
    if bold:
        value = f"\\textbf{{{value}}}" if tex else f"**{value}**"
    if row.significant:
        value += "$^{\\dagger}$" if tex else "†"
    return value


def _signed(value: float, digits: int = 4) -> str:
    return "n/a" if math.isnan(value) else f"{value:+.{digits}f}"


def _interval(low: float, high: float, digits: int) -> str:
    return f"[{_signed(low, digits)}, {_signed(high, digits)}]"


def detail_rows(c: Comparison, digits: int = 4) -> list[list[str]]:
    """Per (measure, run other than the baseline): delta, interval, p-values, W/T/L, micro."""
    rows = []
    for r in c.rows:
        if r.is_baseline:
            continue
        tested = r.wins is not None
        rows.append(
            [
                r.measure,
                r.run,
                _signed(r.delta, 0 if r.aggregation == "sum" else digits),
                _interval(r.ci_low, r.ci_high, digits) if tested else "",
                effect_text(r.effect_size) if tested else "",
                _fmt_p(r.p_value) if tested else "",
                _fmt_p(r.p_adjusted) if tested else "",
                "†" if r.significant else "",
                f"{r.wins}/{r.ties}/{r.losses}" if tested else "",
                _signed(r.micro_delta, digits),
            ]
        )
    return rows


DETAIL_HEADERS = [
    "measure",
    "run",
    "Δ macro",
    "CI",
    "d_z",
    "p",
    "p adj.",
    "sig.",
    "W/T/L",
    "Δ micro",
]

def _tested_labels(c: Comparison) -> list[str]:
    return [str(m) for m in c.measures if m.definition.direction != 0]


def _difference_cell(
    row: ComparisonRow | PairRow, ddagger: bool, digits: int, *, tex: bool
) -> str:
    text = (
        f"{_signed(row.delta, digits)} {_interval(row.ci_low, row.ci_high, digits)} "
        f"d_z {effect_text(row.effect_size)}"
    )
    if tex:
        text = text.replace("d_z", r"$d_z$")
    dagger = row.significant
    if tex:
        text = text.replace("[", "{[}").replace("]", "{]}")
    marks = ("†" if dagger else "") + ("‡" if ddagger else "")
    if tex and marks:
        marks = "$^{" + marks.replace("†", r"\dagger").replace("‡", r"\ddagger") + "}$"
    return text + marks


def difference_rows(c: Comparison, digits: int = 4, *, tex: bool = False) -> list[list[str]]:
    """The differences table's rows: one per run other than the baseline (``run``, then a
    cell per tested measure), or with ``all_pairs`` one per pair of runs (``B − A``), each
    cell the difference of the macro averages and its paired bootstrap interval, marked †
    where the paired test is significant (‡: Tukey's HSD, with ``all_pairs``)."""
    labels = _tested_labels(c)
    name = tex_escape if tex else (lambda text: text)
    out = []
    if c.settings.get("all_pairs"):
        order: list[tuple[str, str]] = []
        for p in c.pairs:
            if (p.run_a, p.run_b) not in order:
                order.append((p.run_a, p.run_b))
        by = {(p.measure, p.run_a, p.run_b): p for p in c.pairs}
        minus = " $-$ " if tex else " − "
        for a, b in order:
            cells = []
            for label in labels:
                q: PairRow = by[(label, a, b)]
                cells.append(_difference_cell(q, q.tukey_significant, digits, tex=tex))
            out.append([name(b) + minus + name(a), *cells])
        return out
    for run in c.runs:
        if run == c.baseline:
            continue
        cells = []
        for label in labels:
            r = c.row(label, run)
            cells.append(_difference_cell(r, False, digits, tex=tex))
        out.append([name(run), *cells])
    return out


def _markdown_table(headers: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    def escape(text: str) -> str:
        return text.replace("|", "\\|")

    align = ["---" if i < left else "---:" for i in range(len(headers))]
    lines = ["| " + " | ".join(escape(h) for h in headers) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(escape(x) for x in row) + " |" for row in rows]
    return lines


def markdown(c: Comparison, *, digits: int = 4, details: bool = True) -> str:
    """The comparison as Markdown: the paper-style table and its legend, the differences
    with their intervals, then (with ``details``) p-values, wins/ties/losses (and every
    pair, with ``all_pairs``), disagreements and the query treatment."""
    best = {label: best_runs(c, label) for label in c.labels}
    rows = []
    for run in c.runs:
        name = f"{run} (baseline)" if run == c.baseline else run
        rows.append(
            [
                name,
                *(
                    _cell(c.row(label, run), run in best[label], digits, tex=False)
                    for label in c.labels
                ),
            ]
        )
    lines = _markdown_table(["run", *c.labels], rows)
    lines += ["", legend(c)]
    labels = _tested_labels(c)
    if labels:
        first = "pair" if c.settings.get("all_pairs") else "run"
        lines += [
            "",
            *_markdown_table([first, *labels], difference_rows(c, digits)),
            "",
            _difference_legend(c),
        ]
    if details:
        confidence = c.settings["confidence"]
        lines += [
            "",
            f"Differences from the baseline {c.baseline}. CI: the {confidence:.0%} paired "
            f"bootstrap interval, {c.settings['n_bootstrap']:,} resamples; W/T/L: queries won, "
            "tied, lost.",
            "",
            *_markdown_table(DETAIL_HEADERS, detail_rows(c, digits), left=2),
        ]
        if c.settings.get("all_pairs"):
            lines += [
                "",
                f"Every pair of runs, run B against run A. CI: the {confidence:.0%} paired "
                "bootstrap interval; Tukey: Tukey's HSD over all the runs of the measure, "
                "with its simultaneous interval.",
                "",
                *_markdown_table(PAIR_HEADERS, pair_rows(c, digits), left=3),
            ]
        lines += ["", *disagreement_lines(c)]
        lines += ["", *(f"- {line}" for line in c.queries.describe())]
    return "\n".join(lines) + "\n"


_TEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def tex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in text)


def _tex_caption(text: str) -> str:
    return (
        tex_escape(text)
        .replace("†", r"$^{\dagger}$")
        .replace("‡", r"$^{\ddagger}$")
        .replace("−", "$-$")
    )


def latex(c: Comparison, *, digits: int = 4) -> str:
    """The comparison as LaTeX ``table`` floats (needs ``\\usepackage{booktabs}``): the
    macro averages, then the differences with their intervals, each with its legend as
    caption; the disagreements and query treatment as comments."""
    best = {label: best_runs(c, label) for label in c.labels}
    body = []
    for run in c.runs:
        cells = [tex_escape(run) + (" (baseline)" if run == c.baseline else "")]
        cells += [
            _cell(c.row(label, run), run in best[label], digits, tex=True) for label in c.labels
        ]
        body.append("    " + " & ".join(cells) + r" \\")
    lines = [
        "% prfeval compare; needs \\usepackage{booktabs}",
        *(f"% {line}" for line in disagreement_lines(c)),
        *(f"% {line}" for line in c.queries.describe()),
        r"\begin{table}",
        r"  \centering",
        f"  \\caption{{{_tex_caption(legend(c))}}}",
        f"  \\begin{{tabular}}{{l{'r' * len(c.labels)}}}",
        r"    \toprule",
        "    " + " & ".join(["Run", *(tex_escape(label) for label in c.labels)]) + r" \\",
        r"    \midrule",
        *body,
        r"    \bottomrule",
        r"  \end{tabular}",
        r"\end{table}",
    ]
    labels = _tested_labels(c)
    if labels:
        first = "Pair" if c.settings.get("all_pairs") else "Run"
        lines += [
            r"\begin{table}",
            r"  \centering",
            f"  \\caption{{{_tex_caption(_difference_legend(c))}}}",
            f"  \\begin{{tabular}}{{l{'r' * len(labels)}}}",
            r"    \toprule",
            "    " + " & ".join([first, *(tex_escape(label) for label in labels)]) + r" \\",
            r"    \midrule",
            *("    " + " & ".join(row) + r" \\" for row in difference_rows(c, digits, tex=True)),
            r"    \bottomrule",
            r"  \end{tabular}",
            r"\end{table}",
        ]
    return "\n".join(lines) + "\n"
