"""Reports of a :class:`~prfeval._comparison.gate_verdicts.GateResult`: text, markdown and json.

``text`` is a short table for a terminal or a CI log; ``markdown`` a summary for a pull
request or a GitHub job's step summary (``>> "$GITHUB_STEP_SUMMARY"``): the verdict, one row
per measure (baseline, candidate, delta with its 95% interval, the queries worse/better/tied,
budget, p and p adj., verdict), the queries that regressed most,
and the settings in a footnote; ``json`` everything, for a machine: the status and exit
status, each input's SHA-256 digest, the settings, prfeval's version and every measure's
verdict.
"""

from __future__ import annotations

import json
import math

from prfeval._comparison.gate_verdicts import GateResult, MeasureVerdict
from prfeval._report._text import fmt_p, fmt_signed, render_table, wrap_lines
from prfeval._report.comparison_tables import words_for_correction, words_for_test

__all__ = ["FORMATS", "describe_test", "format_gate", "notes", "summary_line"]

FORMATS = ("text", "markdown", "json")

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
        return fmt_signed(v.delta)
    return f"{fmt_signed(v.delta)} [{fmt_signed(v.ci_low)}, {fmt_signed(v.ci_high)}]"


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
                f"({fmt_signed(c.difference)})"
                for c in v.regressed
            )
            lines.append(f"  {v.measure}: {moved}")
    return lines


def format_text(r: GateResult) -> str:
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
                fmt_p(v.p_value),
                fmt_p(v.p_adjusted),
                {"fail": "FAIL", "pass": "pass", "not significant": "pass (n.s.)",
                 "report only": "shown"}[v.verdict],
            ]
        )
    title = (
        f"prfeval gate: {summary_line(r)}\n"
        f"Candidate {r.candidate} against the baseline {r.baseline}, on "
        f"{len(r.query_ids)} quer{'y' if len(r.query_ids) == 1 else 'ies'}."
    )
    why = [f"{v.measure}: {v.describe()}." for v in r.verdicts if v.verdict != "pass"]
    notes = wrap_lines([*why, _budget_legend(r), describe_test(r), *r.notes])
    regressed = _regressed_lines(r)
    if regressed:
        notes += ["Queries that regressed most, baseline → candidate (Δ):", *regressed]
    table = render_table(None, headers, rows, notes, right_align_from=1)
    return f"{title}\n\n{table}"


def _code(text: str) -> str:
    """``text`` as a Markdown code span that survives a table cell: a pipe escaped, and
    backticks inside fenced by two."""
    text = " ".join(str(text).split())
    span = f"`` {text} ``" if "`" in text else f"`{text}`"
    return span.replace("|", "\\|")


def _md_table(headers: list[str], rows: list[list[str]], numbers: range) -> list[str]:
    """A Markdown table; the columns at ``numbers`` right-aligned, the others left."""
    align = ["---:" if i in numbers else ":---" for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _md_escape(text: str) -> str:
    """Prose for Markdown: the characters that would format it escaped."""
    for ch in "\\`*_[]<>|#":
        text = text.replace(ch, "\\" + ch)
    return text


def format_markdown(r: GateResult) -> str:
    """A summary for a pull request or a job's step summary."""
    status = "pass" if r.passed else "FAIL"
    lines = [
        f"### prfeval gate: {status}",
        "",
        f"{_md_escape(summary_line(r))}. Candidate {_code(r.candidate)} against the baseline "
        f"{_code(r.baseline)}, on {len(r.query_ids)} "
        f"quer{'y' if len(r.query_ids) == 1 else 'ies'}.",
        "",
    ]
    floors = any(v.minimum is not None for v in r.verdicts)
    headers = _headers(r, floors)
    rows = []
    for v in r.verdicts:
        word = {"fail": "**fail**", "pass": "pass", "not significant": "pass (not significant)",
                "report only": "shown only"}  # fmt: skip
        rows.append(
            [
                _code(v.measure),
                _num(v.baseline),
                _num(v.candidate),
                _md_escape(_delta(v)),
                _counts(v),
                _md_escape(_budget(v)),
                *([f"{v.minimum:g}" if v.minimum is not None else ""] if floors else []),
                _md_escape(fmt_p(v.p_value)),
                _md_escape(fmt_p(v.p_adjusted)),
                f"{word[v.verdict]}: {_md_escape(v.describe())}",
            ]
        )
    lines += _md_table(headers, rows, range(1, len(headers) - 1))
    shown = [v for v in r.verdicts if v.regressed and (v.failed or v.over_budget)]
    if shown:
        lines += ["", "#### Queries that regressed most", ""]
        query_rows = [
            [_code(v.measure), _code(c.query_id), _num(c.baseline), _num(c.candidate),
             fmt_signed(c.difference)]
            for v in shown
            for c in v.regressed
        ]  # fmt: skip
        headers = ["measure", "query", "baseline", "candidate", "Δ"]
        lines += _md_table(headers, query_rows, range(2, 5))
    s = r.settings
    settings = (
        f"Level {s['level']}; query set: {s['query_set']}; judgments {s['qrels']}; "
        f"prfeval {r.version}."
    )
    footer = [_budget_legend(r), describe_test(r), *r.notes, settings]
    lines += ["", *(f"<sub>{_md_escape(line)}</sub><br>" for line in footer)]
    return "\n".join(lines) + "\n"


def format_gate(r: GateResult, fmt: str = "text") -> str:
    """``r`` in one of :data:`FORMATS`."""
    if fmt == "text":
        return format_text(r)
    if fmt == "markdown":
        return format_markdown(r)
    if fmt == "json":
        return json.dumps(r.to_dict(), indent=2)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def notes(r: GateResult, fmt: str) -> list[str]:
    """What goes to stderr beside a format for a machine or a summary file: the verdict in
    one line, so that a CI log shows it (the text format says it itself)."""
    if fmt == "text":
        return []
    lines = [f"gate: {summary_line(r)}"]
    lines += [f"gate: {v.measure}: {v.describe()}" for v in r.failed]
    return lines
