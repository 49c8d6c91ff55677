"""What a gate's verdict says, in one place: the verdict line, one row per measure (baseline,
candidate, the difference with its bootstrap interval, the queries worse/better/tied, the
budget, p and p adj., the verdict), why each measure failed, the legend, the test and the
queries that regressed most.

The command line lays it out as text and Markdown (:mod:`prfeval._report.gate`), a notebook
as HTML (``GateResult._repr_html_``), from this one source.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeAlias

from prfeval._comparison.comparison_table import words_for_correction, words_for_test
from prfeval._core.display import Table, html_tables, p_text, signed

__all__ = [
    "GateLayout",
    "budget_legend",
    "budget_text",
    "counts_text",
    "delta_text",
    "describe_test",
    "headers",
    "html",
    "layout",
    "num",
    "regressed_lines",
    "summary_line",
]

# GateResult and MeasureVerdict (prfeval._comparison.gate_verdicts) import this module to show
# themselves, so a verdict ``r`` and a measure's ``v`` are taken as Any here.
GateResult: TypeAlias = Any
MeasureVerdict: TypeAlias = Any


def _num(value: float | None, digits: int = 4) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:.{digits}f}"


def _budget(v: MeasureVerdict) -> str:
    """``0.02``, or ``2% (0.0061)`` for a share of the baseline's mean."""
    if v.budget.relative:
        return f"{v.budget.describe()} ({_num(v.allowed)})"
    return v.budget.describe()


def _delta(v: MeasureVerdict) -> str:
    """``-0.0500 [-0.0812, -0.0203]``: the difference and its bootstrap interval."""
    if math.isnan(v.ci_low) or math.isnan(v.ci_high):
        return signed(v.delta)
    return f"{signed(v.delta)} [{signed(v.ci_low)}, {signed(v.ci_high)}]"


def _counts(v: MeasureVerdict) -> str:
    """``12/3/25``: the queries where the candidate is worse, better, tied."""
    return f"{v.worse}/{v.better}/{v.same}"


def _headers(r: GateResult, floors: bool) -> list[str]:
    level = r.settings.get("confidence", 0.95)
    return ["measure", "baseline", "candidate", f"Δ [{level:.0%} CI]", "worse/better/tied",
            "budget", *(["floor"] if floors else []), "p", "p adj.", "verdict"]  # fmt: skip


def summary_line(r: GateResult) -> str:
    """``FAIL: P@10 regressed (1 of 2 measures)``, ``pass: 2 measures, none regressed beyond
    its budget``, or ``pass: 2 measures; over budget but not significant: P@10``."""
    n = len(r.verdicts)
    measures = f"{n} measure{'s' if n != 1 else ''}"
    shown_only = sum(v.report_only for v in r.verdicts)
    if shown_only:
        measures += f" ({shown_only} shown only)"
    if r.passed:
        shielded = [v.measure for v in r.verdicts if v.verdict == "not significant"]
        if shielded:
            return f"pass: {measures}; over budget but not significant: {', '.join(shielded)}"
        return f"pass: {measures}, none regressed beyond its budget"
    failed = [v.measure for v in r.failed]
    return f"FAIL: {', '.join(failed)} regressed ({len(failed)} of {measures})"


def describe_test(r: GateResult) -> str:
    """The test in words, as compare words it, and what it decides."""
    s = r.settings
    corrected = words_for_correction(s)
    text = f"p: {words_for_test(s)}" + (
        ", not corrected for many tests" if corrected is None else f"; p adj.: {corrected}"
    )
    if s["alpha"] is None:
        return text + ". Without --alpha, a drop over budget fails whatever p says."
    return text + f". A drop over budget fails only where p adj. <= {s['alpha']:g} (--alpha)."


def _budget_legend(r: GateResult) -> str:
    s = r.settings
    level = s.get("confidence", 0.95)
    return (
        "Δ: candidate − baseline, the means over the compared queries; in brackets the "
        f"{level:.0%} percentile bootstrap interval of the mean per-query difference "
        f"({s.get('n_bootstrap', 0):,} resamples, seed {s.get('seed')}). worse/better/tied: "
        "the queries where the candidate is worse than, better than, equal to the "
        "baseline. Budget: the drop allowed (a rise, where lower is better), absolute or a "
        "share of the baseline's mean (--max-drop); by default 0: any drop fails; off: "
        "shown, never failing, and outside the correction's family."
    )


def _regressed_lines(r: GateResult) -> list[str]:
    lines = []
    for v in r.verdicts:
        if v.regressed and (v.failed or v.over_budget):
            moved = ", ".join(
                f"{c.query_id!r} {_num(c.baseline)} → {_num(c.candidate)} "
                f"({signed(c.difference)})"
                for c in v.regressed
            )
            lines.append(f"  {v.measure}: {moved}")
    return lines


@dataclass(frozen=True)
class GateLayout:
    """A verdict's text table: its two title lines, headers and rows, its notes (to wrap)
    and the queries that regressed most (lines kept as they are)."""

    title: list[str]
    headers: list[str]
    rows: list[list[str]]
    notes: list[str]
    regressed: list[str]


def layout(r: Any) -> GateLayout:
    """The verdict, a table of the measures, why each failed, and the queries that regressed
    most."""
    floors = any(v.minimum is not None for v in r.verdicts)
    headers = _headers(r, floors)
    rows = []
    for v in r.verdicts:
        rows.append(
            [
                v.measure,
                _num(v.baseline),
                _num(v.candidate),
                _delta(v),
                _counts(v),
                _budget(v),
                *([f"{v.minimum:g}" if v.minimum is not None else ""] if floors else []),
                p_text(v.p_value),
                p_text(v.p_adjusted),
                {"fail": "FAIL", "pass": "pass", "not significant": "pass (n.s.)",
                 "report only": "shown"}[v.verdict],
            ]
        )
    title = [
        f"prfeval gate: {summary_line(r)}",
        f"Candidate {r.candidate} against the baseline {r.baseline}, on "
        f"{len(r.query_ids)} quer{'y' if len(r.query_ids) == 1 else 'ies'}.",
    ]
    why = [f"{v.measure}: {v.describe()}." for v in r.verdicts if v.verdict != "pass"]
    notes = [*why, _budget_legend(r), describe_test(r), *r.notes]
    regressed = _regressed_lines(r)
    if regressed:
        regressed = ["Queries that regressed most, baseline → candidate (Δ):", *regressed]
    return GateLayout(title, headers, rows, notes, regressed)


def html(r: Any) -> str:
    """The verdict's table as HTML: every row and note the text has, escaped."""
    lay = layout(r)
    return html_tables([Table(lay.title[1], tuple(lay.headers), tuple(map(tuple, lay.rows)),
                              notes=(*lay.notes, *lay.regressed))], lay.title[0])


num, budget_text, delta_text, counts_text = _num, _budget, _delta, _counts
headers, budget_legend, regressed_lines = _headers, _budget_legend, _regressed_lines
