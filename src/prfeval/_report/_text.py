"""Plain-text building blocks of every report: aligned tables, numbers, wrapped notes."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from itertools import chain
from typing import Any

__all__ = [
    "fmt_p",
    "fmt_signed",
    "fmt_value",
    "plain_table",
    "render_rich",
    "render_table",
    "rich_table",
    "wrap_lines",
]


def fmt_value(value: float, *, integer: bool = False, digits: int = 4) -> str:
    """A number for a table: integers as such, NaN as 'n/a'."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if integer:
        return str(round(value))
    return f"{value:.{digits}f}"


def fmt_signed(value: float, digits: int = 4) -> str:
    """A difference, its sign always shown (``+0.0120``); NaN as 'n/a'."""
    return "n/a" if math.isnan(value) else f"{value:+.{digits}f}"


def fmt_p(p: float) -> str:
    """A p-value to four decimals, those below 0.0001 as ``<0.0001``; NaN as 'n/a'."""
    if math.isnan(p):
        return "n/a"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def wrap_lines(lines: Sequence[str], width: int = 80) -> list[str]:
    """Each line wrapped to ``width`` columns, continuation lines indented by two spaces, so
    that notes under a table read on an 80-column terminal."""
    import textwrap

    out: list[str] = []
    for line in lines:
        out += textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False,
                             break_long_words=False) or [""]
    return out


def render_table(
    title: str | None,
    headers: list[str],
    rows: list[list[str]],
    notes: list[str] | None = None,
    right_align_from: int = 1,
    width: int | None = None,
) -> str:
    """A table as plain text, in rich's ``SIMPLE_HEAD`` layout, with ``notes`` as lines below.

    With ``width``, the table fits that many columns and the notes are wrapped to it. Every
    cell, header and the title are text: an id such as ``[b]x`` is shown as it is. A table
    whose cells are plain ASCII and fit the width is laid out here (:func:`plain_table`),
    line for line what rich lays out and a hundred times faster (a per-query table of 10,000
    queries took rich 4 s); any other is rich's (:func:`rich_table`), which wraps and
    measures wide characters.
    """
    lines = plain_table(title, headers, rows, right_align_from, width or 200)
    if lines is None:
        lines = rich_table(title, headers, rows, right_align_from, width or 200)
    shown = list(notes or [])
    if width is not None:
        import textwrap

        shown = [wrapped for note in shown for wrapped in textwrap.wrap(note, width) or [""]]
    return "\n".join([*lines, *shown]).strip("\n") + "\n"


def rich_table(
    title: str | None, headers: list[str], rows: list[list[str]], right_align_from: int,
    width: int,
) -> list[str]:
    """The table's lines as rich renders it (``box.SIMPLE_HEAD``) at ``width`` columns."""
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title=None if title is None else escape(title), title_justify="left", box=box.SIMPLE_HEAD
    )
    for i, header in enumerate(headers):
        table.add_column(escape(header), justify="right" if i >= right_align_from else "left")
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    with open(os.devnull, "w") as sink:
        console = Console(width=width, record=True, file=sink, color_system=None)
        console.print(table)
        text = console.export_text()
    return [line.rstrip() for line in text.splitlines()]


def plain_table(
    title: str | None, headers: list[str], rows: list[list[str]], right_align_from: int,
    width: int,
) -> list[str] | None:
    """The lines :func:`rich_table` gives, laid out directly: each cell padded by a space on
    either side, columns one space apart, an edge space, a rule under the header, a blank
    line above (under the title) and below. ``None`` when rich would do more than
    that: a cell that is not printable ASCII (wide characters, line breaks), a ``:`` (rich
    reads ``:name:`` as an emoji), a cell beginning or ending with a space, or a table or
    title wider than ``width`` (rich wraps)."""
    text = "".join(chain(headers, chain.from_iterable(rows), [title or ""]))
    if not text.isascii() or not text.isprintable() or ":" in text:
        return None
    cells = chain(headers, chain.from_iterable(rows), [title or ""])
    if any(cell != cell.strip() for cell in cells):  # rich trims the space it wraps at
        return None
    columns = list(zip(headers, *rows, strict=True)) if rows else [(h,) for h in headers]
    widths = [max(map(len, column)) for column in columns]
    inner = sum(widths) + 2 * len(widths) + max(len(widths) - 1, 0)
    if inner + 2 > width or (title is not None and len(title) > inner + 2):
        return None

    def line(cells: Sequence[str]) -> str:
        laid = [
            cell.rjust(w) if i >= right_align_from else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return ("  " + "   ".join(laid)).rstrip()

    head = [title] if title is not None else []
    return [*head, "", line(headers), " " + "\u2500" * inner, *map(line, rows), ""]


def render_rich(renderable: Any, width: int = 200) -> str:
    """Anything rich can print (a table), as plain text without colour."""
    from rich.console import Console

    with open(os.devnull, "w") as sink:
        console = Console(width=width, record=True, file=sink, color_system=None)
        console.print(renderable)
        text = console.export_text()
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n") + "\n"
