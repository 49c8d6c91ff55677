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

from prfeval._comparison import gate_table
from prfeval._comparison.gate_table import describe_test, layout, summary_line
from prfeval._comparison.gate_verdicts import GateResult
from prfeval._report._text import fmt_p, fmt_signed, render_table, wrap_lines

__all__ = ["FORMATS", "describe_test", "format_gate", "notes", "summary_line"]

FORMATS = ("text", "markdown", "json")

def format_text(r: GateResult) -> str:
    """The verdict, a table of the measures, why each failed, and the queries that regressed
    most (:func:`prfeval._comparison.gate_table.layout`, which the notebook view shares)."""
    lay = layout(r)
    notes = wrap_lines(lay.notes) + lay.regressed
    table = render_table(None, lay.headers, lay.rows, notes, right_align_from=1)
    return "\n".join(lay.title) + f"\n\n{table}"


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
    headers = gate_table.headers(r, floors)
    rows = []
    for v in r.verdicts:
        word = {"fail": "**fail**", "pass": "pass", "not significant": "pass (not significant)",
                "report only": "shown only"}  # fmt: skip
        rows.append(
            [
                _code(v.measure),
                gate_table.num(v.baseline),
                gate_table.num(v.candidate),
                _md_escape(gate_table.delta_text(v)),
                gate_table.counts_text(v),
                _md_escape(gate_table.budget_text(v)),
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
            [_code(v.measure), _code(c.query_id), gate_table.num(c.baseline),
             gate_table.num(c.candidate), fmt_signed(c.difference)]
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
    footer = [gate_table.budget_legend(r), describe_test(r), *r.notes, settings]
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
