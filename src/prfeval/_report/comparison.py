"""Reports of a :class:`~prfeval._comparison.results.Comparison`: table, json, csv, and the
Markdown and LaTeX tables of :mod:`prfeval._report.comparison_tables`.

With ``all_pairs``, the table adds one row per (measure, pair of runs) with the paired test
and Tukey's HSD, the JSON a ``pairs`` list, and the CSV is one line per (measure, pair of
runs) instead of per (measure, run) (the pairs with the baseline among them).
"""

from __future__ import annotations

import io
import json

from prfeval._comparison.comparison_table import PAIR_HEADERS, layout, mover_lines
from prfeval._comparison.results import Comparison
from prfeval._report._csv import csv_writer
from prfeval._report._text import render_table, wrap_lines
from prfeval._report.comparison_tables import latex, markdown

__all__ = ["FORMATS", "format_comparison", "format_csv", "format_table", "mover_lines", "notes"]

FORMATS = ("table", "json", "markdown", "latex", "csv")


def format_table(c: Comparison) -> str:
    """One row per (measure, run), baseline first within each measure, then the notes
    (:func:`prfeval._comparison.comparison_table.layout`, which the notebook view shares)."""
    lay = layout(c)
    notes = wrap_lines(lay.notes) + lay.movers
    if lay.pair_rows is None:
        return render_table(None, lay.headers, lay.rows, notes, right_align_from=2)
    main = render_table(None, lay.headers, lay.rows, [], right_align_from=2)
    pairs = render_table(None, PAIR_HEADERS, lay.pair_rows,
                         [*wrap_lines(lay.pair_notes), *notes], right_align_from=3)
    return main.rstrip("\n") + "\n\n" + pairs


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
