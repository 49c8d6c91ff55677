"""The tables papers print of a :class:`~prfeval.comparison.results.Comparison`: Markdown
and LaTeX (``Comparison.to_markdown()``, ``Comparison.to_latex()``).

The main table has one row per run and one column per measure, each cell the macro average;
the best value of each measure is in bold and a dagger marks a value significantly different
from the baseline's after the correction for many tests. The legend names the test, the
correction, alpha and the number of queries, so the table can be read on its own.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prfeval.comparison.results import Comparison, ComparisonRow

__all__ = [
    "DETAIL_HEADERS",
    "best_runs",
    "describe_test",
    "detail_rows",
    "disagreement_lines",
    "latex",
    "legend",
    "markdown",
    "tex_escape",
]

_TEST_NAMES = {
    "randomization": "paired randomization test",
    "ttest": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "bootstrap": "paired bootstrap test",
}
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni"}


def describe_test(c: Comparison) -> str:
    """The test in words: ``two-sided paired randomization test with 10,000 random sign flips
    from random seed 0, Holm-corrected over 6 tests``."""
    s = c.settings
    text = f"two-sided {_TEST_NAMES[s['test']]}"
    if s["test"] == "randomization":
        text += f" with {s['n_permutations']:,} random sign flips from random seed {s['seed']}"
    elif s["test"] == "bootstrap":
        text += f" with {s['n_bootstrap']:,} resamples from random seed {s['seed']}"
    if s["correction"] == "none":
        return text + ", not corrected for many tests"
    plural = "s" if s["n_tests"] != 1 else ""
    return (
        text + f", {_CORRECTION_NAMES[s['correction']]}-corrected over {s['n_tests']} test{plural}"
    )


def legend(c: Comparison) -> str:
    """What the marks mean, what the values are and which queries they cover."""
    s = c.settings
    return (
        f"Macro averages over {len(c.query_ids)} queries of the query set "
        f"{s['query_set']}. Bold: the best value of each measure. "
        f"†: significantly different from the baseline {c.baseline} at alpha = {s['alpha']:g}: "
        f"{describe_test(c)}."
    )


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


def _fmt_p(p: float) -> str:
    if math.isnan(p):
        return "n/a"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _cell(row: ComparisonRow, bold: bool, digits: int, *, tex: bool) -> str:
    value = _fmt(row.macro, 0 if row.aggregation == "sum" else digits)
    if bold:
        value = f"\\textbf{{{value}}}" if tex else f"**{value}**"
    if row.significant:
        value += "$^{\\dagger}$" if tex else "†"
    return value


def _signed(value: float, digits: int = 4) -> str:
    return "n/a" if math.isnan(value) else f"{value:+.{digits}f}"


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
                f"[{_signed(r.ci_low, digits)}, {_signed(r.ci_high, digits)}]" if tested else "",
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
    "p",
    "p adj.",
    "sig.",
    "W/T/L",
    "Δ micro",
]


def _markdown_table(headers: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    def escape(text: str) -> str:
        return text.replace("|", "\\|")

    align = ["---" if i < left else "---:" for i in range(len(headers))]
    lines = ["| " + " | ".join(escape(h) for h in headers) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(escape(x) for x in row) + " |" for row in rows]
    return lines


def markdown(c: Comparison, *, digits: int = 4, details: bool = True) -> str:
    """The comparison as Markdown: the paper-style table and its legend, then (with
    ``details``) differences, intervals, p-values, wins/ties/losses, disagreements and the
    query treatment."""
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
        lines += ["", *disagreement_lines(c)]
        lines += ["", *(f"- {line}" for line in c.queries.describe())]
    return "\n".join(lines) + "\n"


def disagreement_lines(c: Comparison) -> list[str]:
    """One line per macro/micro disagreement, or a line saying there is none."""
    if not c.disagreements:
        return ["Macro and micro averages agree on which run is better for every measure."]
    return [
        "Macro and micro averages disagree on which run is better; macro weighs every query "
        "equally, micro every relevant document:",
        *(f"- {d.describe()}" for d in c.disagreements),
    ]


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


def latex(c: Comparison, *, digits: int = 4) -> str:
    """The comparison as a LaTeX ``table`` (needs ``\\usepackage{booktabs}``), with the
    legend as caption and the disagreements and query treatment as comments."""
    best = {label: best_runs(c, label) for label in c.labels}
    body = []
    for run in c.runs:
        cells = [tex_escape(run) + (" (baseline)" if run == c.baseline else "")]
        cells += [
            _cell(c.row(label, run), run in best[label], digits, tex=True) for label in c.labels
        ]
        body.append("    " + " & ".join(cells) + r" \\")
    caption = tex_escape(legend(c)).replace("†", r"$^{\dagger}$")
    lines = [
        "% prfeval compare; needs \\usepackage{booktabs}",
        *(f"% {line}" for line in disagreement_lines(c)),
        *(f"% {line}" for line in c.queries.describe()),
        r"\begin{table}",
        r"  \centering",
        f"  \\caption{{{caption}}}",
        f"  \\begin{{tabular}}{{l{'r' * len(c.labels)}}}",
        r"    \toprule",
        "    " + " & ".join(["Run", *(tex_escape(label) for label in c.labels)]) + r" \\",
        r"    \midrule",
        *body,
        r"    \bottomrule",
        r"  \end{tabular}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"
