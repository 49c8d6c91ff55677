"""Plain-text building blocks of every report: aligned tables, numbers, wrapped notes."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from prfeval._core.display import p_text, signed
from prfeval._report.table_layout import plain_table, rich_table

__all__ = [
    "fmt_p",
    "fmt_signed",
    "fmt_value",
    "render_rich",
    "render_table",
    "wrap_lines",
]


def fmt_value(value: float, *, integer: bool = False, digits: int = 4) -> str:
    """A number for a table: integers as such, NaN as 'n/a'."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if integer:
        return str(round(value))
    return f"{value:.{digits}f}"


#: A difference with its sign, and a p-value, as every table writes them.
fmt_signed = signed
fmt_p = p_text


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
    of plain ASCII cells that fits the width is laid out directly, line for line as rich lays
    it out and many times faster; any other by rich, which wraps and measures wide
    characters (:mod:`prfeval._report.table_layout`).
    """
    lines = plain_table(title, headers, rows, right_align_from, width or 200)
    if lines is None:
        lines = rich_table(title, headers, rows, right_align_from, width or 200)
    shown = list(notes or [])
    if width is not None:
        import textwrap

        shown = [wrapped for note in shown for wrapped in textwrap.wrap(note, width) or [""]]
    return "\n".join([*lines, *shown]).strip("\n") + "\n"


def render_rich(renderable: Any, width: int = 200) -> str:
    """Anything rich can print (a table), as plain text without colour."""
    from rich.console import Console

    with open(os.devnull, "w") as sink:
        console = Console(width=width, record=True, file=sink, color_system=None)
        console.print(renderable)
        text = console.export_text()
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n") + "\n"
