"""Reports of a :class:`~prfeval._comparison.results.Comparison`: table, json, csv, and the
Markdown and LaTeX tables of :mod:`prfeval._report.comparison_tables`.

With ``all_pairs``, the table adds one row per (measure, pair of runs) with the paired test
and Tukey's HSD, the JSON a ``pairs`` list, and the CSV is one line per (measure, pair of
runs) instead of per (measure, run) (the pairs with the baseline among them).
"""

from __future__ import annotations

import io
import json

from prfeval._comparison.results import Comparison
from prfeval._report._csv import csv_writer
from prfeval._report._text import fmt_p, fmt_signed, fmt_value, render_table, wrap_lines
from prfeval._report.comparison_tables import (
    PAIR_HEADERS,
    describe_test,
    disagreement_lines,
    effect_text,
    latex,
    markdown,
    pair_rows,
)

__all__ = ["FORMATS", "format_comparison", "format_csv", "format_table", "mover_lines", "notes"]

FORMATS = ("table", "json", "markdown", "latex", "csv")


def format_table(c: Comparison) -> str:
    """One row per (measure, run), baseline first within each measure, then the notes."""
    confidence = f"{c.settings['confidence']:.0%} CI"
    headers = [
        "measure",
        "run",
        "macro",
        "micro",
        "Δ macro",
        confidence,
        "d_z",
        "p",
        "p adj.",
        "sig.",
        "W/T/L",
    ]
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
                    fmt_value(r.macro, integer=integer) + (" (total)" if integer else ""),
                    "" if integer else fmt_value(r.micro),
                    "" if r.is_baseline else fmt_signed(r.delta, 0 if integer else 4),
                    f"[{fmt_signed(r.ci_low)}, {fmt_signed(r.ci_high)}]" if tested else "",
                    effect_text(r.effect_size) if tested else "",
                    fmt_p(r.p_value) if tested else "",
                    fmt_p(r.p_adjusted) if tested else "",
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
    notes = wrap_lines(notes)
    if movers:
        notes += ["Queries that moved most, run − baseline:", *movers]
    if not s.get("all_pairs"):
        return render_table(None, headers, rows, notes, right_align_from=2)
    main = render_table(None, headers, rows, [], right_align_from=2)
    pair_notes = wrap_lines(
        [
            f"Every pair of runs: Δ = run B − run A, paired by query; CI: paired bootstrap; "
            f"p adj. over all {s['n_tests']} (pair, measure) tests; †: p adj. <= "
            f"{s['alpha']:g}.",
            f"Tukey: Tukey's HSD over all {len(c.runs)} runs of each measure (runs taken as "
            f"independent samples), with its {s['confidence']:.0%} simultaneous interval; ‡: "
            f"Tukey p <= {s['alpha']:g}.",
        ]
    )
    pairs = render_table(None, PAIR_HEADERS, pair_rows(c), [*pair_notes, *notes],
                         right_align_from=3)
    return main.rstrip("\n") + "\n\n" + pairs


def mover_lines(c: Comparison) -> list[str]:
    """``  P@10, B: 12 +0.5000, 7 -0.4000`` per tested (measure, run) with any movement."""
    lines = []
    for r in c.rows:
        if r.top_movers:
            moved = ", ".join(f"{q} {d:+.4f}" for q, d in r.top_movers)
            lines.append(f"  {r.measure}, {r.run}: {moved}")
    return lines


def format_csv(c: Comparison) -> str:
    """One line per (measure, run), or with ``all_pairs`` per (measure, pair of runs); NaN
    and not-applicable cells empty."""
    buffer = io.StringIO()
    writer = csv_writer(buffer)
    if c.settings.get("all_pairs") and c.pairs:
        records = [p.to_dict() for p in c.pairs]
    else:
        records = [r.to_dict() for r in c.rows]
    columns = [k for k in records[0] if k != "top_movers"]
    writer.writerow(columns)
    for record in records:
        writer.writerow(
            [
                ""
                if record[k] is None
                else repr(record[k])
                if isinstance(record[k], float)
                else record[k]
                for k in columns
            ]
        )
    return buffer.getvalue()


def format_comparison(c: Comparison, fmt: str = "table", *, per_query: bool = False) -> str:
    """``c`` in one of :data:`FORMATS`; ``per_query`` adds every per-query value to JSON."""
    if fmt == "table":
        return format_table(c)
    if fmt == "json":
        return json.dumps(c.to_dict(per_query=per_query), indent=2)
    if fmt == "markdown":
        return markdown(c)
    if fmt == "latex":
        return latex(c)
    if fmt == "csv":
        return format_csv(c)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def notes(c: Comparison, fmt: str) -> list[str]:
    """What JSON and CSV leave to stderr (the table, Markdown and LaTeX say it themselves)."""
    if fmt not in ("json", "csv"):
        return []
    return [
        *c.queries.describe()[1:],
        *(f"macro and micro disagree: {d.describe()}" for d in c.disagreements),
    ]
