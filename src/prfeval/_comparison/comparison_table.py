"""What a comparison's table says, in one place: one row per (measure, run) with the macro
and micro averages, the difference from the baseline, its paired bootstrap interval, the
effect size, the p-values and wins/ties/losses; with ``all_pairs`` one row per (measure,
pair of runs) with Tukey's HSD; and the notes (the legend, the test, the disagreements of
macro and micro, the query treatment, the queries that moved most).

The command line lays it out as text (:mod:`prfeval._report.comparison`), a notebook as HTML
(:meth:`Comparison._repr_html_ <prfeval._comparison.results.Comparison>`), from this one
source, so the two never say different things.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from prfeval._core.display import Table, html_tables, number, p_text, signed

# Comparison (prfeval._comparison.results) imports this module to show itself, so a
# comparison ``c`` is taken as Any here.

__all__ = [
    "PAIR_HEADERS",
    "ComparisonLayout",
    "describe_test",
    "disagreement_lines",
    "effect_text",
    "html",
    "layout",
    "mover_lines",
    "pair_rows",
    "words_for_correction",
    "words_for_test",
]

_TEST_NAMES = {
    "randomization": "paired randomization test",
    "ttest": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "bootstrap": "paired bootstrap test",
}
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni"}

PAIR_HEADERS = [
    "measure",
    "run A",
    "run B",
    "Δ (B − A)",
    "CI",
    "d_z",
    "p",
    "p adj.",
    "sig.",
    "W/T/L",
    "Tukey p",
    "Tukey CI",
    "Tukey sig.",
]


def words_for_test(settings: Mapping[str, Any]) -> str:
    """The test a comparison's (or a gate's) ``settings`` name, in words: ``two-sided paired
    randomization test with 10,000 random sign flips from random seed 0``."""
    s = settings
    text = f"two-sided {_TEST_NAMES[s['test']]}"
    if s["test"] == "randomization":
        text += f" with {s['n_permutations']:,} random sign flips from random seed {s['seed']}"
    elif s["test"] == "bootstrap":
        text += f" with {s['n_bootstrap']:,} resamples from random seed {s['seed']}"
    return text


def words_for_correction(settings: Mapping[str, Any]) -> str | None:
    """The correction for many tests that ``settings`` name, in words (``Holm-corrected over 6
    tests``); ``None`` for none."""
    s = settings
    if s["correction"] == "none":
        return None
    plural = "s" if s["n_tests"] != 1 else ""
    return f"{_CORRECTION_NAMES[s['correction']]}-corrected over {s['n_tests']} test{plural}"


def describe_test(c: Any) -> str:
    """The test in words: ``two-sided paired randomization test with 10,000 random sign flips
    from random seed 0, Holm-corrected over 6 tests``."""
    corrected = words_for_correction(c.settings)
    return words_for_test(c.settings) + (
        ", not corrected for many tests" if corrected is None else f", {corrected}"
    )


def effect_text(value: float) -> str:
    """An effect size d_z in a table: two decimals, signed; ``n/a`` where undefined."""
    return signed(value, 2)


def _interval(low: float, high: float, digits: int) -> str:
    return f"[{signed(low, digits)}, {signed(high, digits)}]"


def pair_rows(c: Any, digits: int = 4) -> list[list[str]]:
    """Per (measure, pair of runs) of an ``all_pairs`` comparison: delta, interval, p-values,
    W/T/L (for run B), and Tukey's HSD p-value and simultaneous interval."""
    return [
        [
            p.measure,
            p.run_a,
            p.run_b,
            signed(p.delta, digits),
            _interval(p.ci_low, p.ci_high, digits),
            effect_text(p.effect_size),
            p_text(p.p_value),
            p_text(p.p_adjusted),
            "†" if p.significant else "",
            f"{p.wins}/{p.ties}/{p.losses}",
            p_text(p.tukey_p),
            _interval(p.tukey_low, p.tukey_high, digits),
            "‡" if p.tukey_significant else "",
        ]
        for p in c.pairs
    ]


def disagreement_lines(c: Any) -> list[str]:
    """One line per macro/micro disagreement, or a line saying there is none."""
    if not c.disagreements:
        return ["Macro and micro averages agree on which run is better for every measure."]
    return [
        "Macro and micro averages disagree on which run is better; macro weighs every query "
        "equally, micro every relevant document:",
        *(f"- {d.describe()}" for d in c.disagreements),
    ]


def mover_lines(c: Any) -> list[str]:
    """``  P@10, B: 12 +0.5000, 7 -0.4000`` per tested (measure, run) with any movement."""
    lines = []
    for r in c.rows:
        if r.top_movers:
            moved = ", ".join(f"{q} {d:+.4f}" for q, d in r.top_movers)
            lines.append(f"  {r.measure}, {r.run}: {moved}")
    return lines


@dataclass(frozen=True)
class ComparisonLayout:
    """A comparison's table: its headers and rows, its notes (to wrap), the queries that
    moved most (lines kept as they are), and with ``all_pairs`` the pairs' rows and notes."""

    headers: list[str]
    rows: list[list[str]]
    notes: list[str]
    movers: list[str]
    pair_rows: list[list[str]] | None
    pair_notes: list[str]


def layout(c: Any) -> ComparisonLayout:
    """The rows and notes of ``c``'s table, one row per (measure, run), baseline first within
    each measure."""
    confidence = f"{c.settings['confidence']:.0%} CI"
    headers = ["measure", "run", "macro", "micro", "Δ macro", confidence, "d_z", "p",
               "p adj.", "sig.", "W/T/L"]
    rows = []
    for label in c.labels:
        for i, run in enumerate(c.runs):
            r = c.row(label, run)
            integer = r.aggregation == "sum"
            tested = r.wins is not None
            rows.append(
                [
                    label if i == 0 else "",
                    f"{run} (baseline)" if r.is_baseline else run,
                    number(r.macro, integer=integer) + (" (total)" if integer else ""),
                    "" if integer else number(r.micro),
                    "" if r.is_baseline else signed(r.delta, 0 if integer else 4),
                    f"[{signed(r.ci_low)}, {signed(r.ci_high)}]" if tested else "",
                    effect_text(r.effect_size) if tested else "",
                    p_text(r.p_value) if tested else "",
                    p_text(r.p_adjusted) if tested else "",
                    "†" if r.significant else "",
                    f"{r.wins}/{r.ties}/{r.losses}" if tested else "",
                ]
            )
    s = c.settings
    notes = [
        f"macro: the mean over queries, so for an F it is the mean F; micro: the measure of "
        f"the pooled counts. Δ: run − {c.baseline}, paired by query; {confidence}: paired "
        f"bootstrap, {s['n_bootstrap']:,} resamples. d_z: the effect size, mean Δ over "
        f"its standard deviation across queries.",
        f"p: {describe_test(c)}; †: p adj. <= {s['alpha']:g}. W/T/L: queries won, tied, lost.",
        *disagreement_lines(c),
        *c.queries.describe(),
    ]
    movers = mover_lines(c)
    if movers:
        movers = ["Queries that moved most, run − baseline:", *movers]
    if not s.get("all_pairs"):
        return ComparisonLayout(headers, rows, notes, movers, None, [])
    pair_notes = [
        f"Every pair of runs: Δ = run B − run A, paired by query; CI: paired bootstrap; "
        f"p adj. over all {s['n_tests']} (pair, measure) tests; †: p adj. <= "
        f"{s['alpha']:g}.",
        f"Tukey: Tukey's HSD over all {len(c.runs)} runs of each measure (runs taken as "
        f"independent samples), with its {s['confidence']:.0%} simultaneous interval; ‡: "
        f"Tukey p <= {s['alpha']:g}.",
    ]
    return ComparisonLayout(headers, rows, notes, movers, pair_rows(c), pair_notes)


def html(c: Any, title: str) -> str:
    """``c``'s table as HTML under ``title``: every row, header and note the text table has,
    escaped."""
    lay = layout(c)
    notes = [*lay.notes, *lay.movers]
    if lay.pair_rows is None:
        tables = [Table(title, tuple(lay.headers), _cells(lay.rows), notes=tuple(notes), left=2)]
    else:
        tables = [
            Table(title, tuple(lay.headers), _cells(lay.rows), left=2),
            Table("Every pair of runs", tuple(PAIR_HEADERS), _cells(lay.pair_rows),
                  notes=(*lay.pair_notes, *notes), left=3),
        ]
    return html_tables(tables)


def _cells(rows: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(r) for r in rows)
