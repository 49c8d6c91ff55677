"""Reports of a :class:`~prfeval._core.means.MeansTable`: table, json and csv."""

from __future__ import annotations

import io
import json

from prfeval._core.means import MeansTable
from prfeval._report._csv import csv_writer
from prfeval._report._text import render_rich

__all__ = ["FORMATS", "format_means"]

FORMATS = ("table", "json", "csv")


def format_table(table: MeansTable) -> str:
    from rich import box
    from rich.table import Table

    named = any(label is not None for label in table.labels)
    # No outer edge: the example table's longest name still fits 80 columns unwrapped.
    out = Table(
        title="Means of precision and recall", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False
    )
    if named:
        out.add_column("System", no_wrap=True)
    for header in ("P", "R", "Arithmetic", "Geometric", "Harmonic\n(F1)"):
        out.add_column(header, justify="right")
    for row in table.records():
        cells = [f"{row[name]:.3f}" for name in table.COLUMNS]
        out.add_row(*([str(row["system"] or "")] if named else []), *cells)
    return render_rich(out)


def format_csv(table: MeansTable) -> str:
    buffer = io.StringIO()
    writer = csv_writer(buffer)
    writer.writerow(["system", *table.COLUMNS])
    for row in table.records():
        writer.writerow([row["system"] or "", *(repr(row[name]) for name in table.COLUMNS)])
    return buffer.getvalue()


def format_means(table: MeansTable, fmt: str = "table") -> str:
    """The table in one of :data:`FORMATS` (table: 3 decimals; json and csv: every digit)."""
    if fmt == "json":
        return json.dumps(table.records(), indent=2)
    if fmt == "csv":
        return format_csv(table)
    if fmt == "table":
        return format_table(table)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
