"""Small tables for ``print(result)`` and notebooks: plain text, or an escaped HTML ``<table>``.

Every result class (an evaluation, a comparison, curves, a classification) shows itself as a
title line saying what it is, then a few rows of numbers, never a dump of its arrays:
``repr`` and ``str`` give :meth:`Table.text`, Jupyter's ``_repr_html_`` gives
:meth:`Table.html`. The reports of ``_report/`` (rich tables with notes) are the long form; this
module sits in ``core`` so that the result classes below ``report`` can use it, and it
imports nothing beyond the standard library (``html`` and ``unicodedata`` when first used).

:func:`classification_report_text` lays out per-class rows exactly as scikit-learn's
``classification_report`` prints them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_ROWS",
    "Table",
    "classification_report_text",
    "html_tables",
    "number",
    "p_text",
    "plural",
    "printable",
    "signed",
    "skipped",
    "table",
]

#: The most rows a table shows; the rest are counted in one "... N more" line.
MAX_ROWS = 30


def number(value: Any, *, digits: int = 4, integer: bool = False) -> str:
    """A cell for a number: ``digits`` decimals, an integer as such (``integer``), an
    undefined value (``None`` or NaN) as ``n/a``.

    >>> number(0.123456), number(12.0, integer=True), number(float("nan"))
    ('0.1235', '12', 'n/a')
    """
    if value is None:
        return "n/a"
    x = float(value)
    if math.isnan(x):
        return "n/a"
    if integer and math.isfinite(x):
        return str(round(x))
    return f"{x:.{digits}f}"


def signed(value: float, digits: int = 4) -> str:
    """A difference, its sign always shown (``+0.0120``); NaN as ``n/a``.

    >>> signed(0.012), signed(-3.0, 0), signed(float("nan"))
    ('+0.0120', '-3', 'n/a')
    """
    return "n/a" if math.isnan(value) else f"{value:+.{digits}f}"


def p_text(p: float) -> str:
    """A p-value to four decimals, those below 0.0001 as ``<0.0001``; NaN as ``n/a``.

    >>> p_text(0.04321), p_text(2e-7)
    ('0.0432', '<0.0001')
    """
    if math.isnan(p):
        return "n/a"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def printable(text: Any) -> str:
    """``str(text)`` with control characters (a newline in a query id) written as escapes,
    so that one cell stays on one line: ``'a\\\\nb'`` for ``'a\\nb'``."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)


def _width(text: str) -> int:
    """Columns a terminal gives ``text``: wide East Asian characters take two, combining
    marks none."""
    if text.isascii():
        return len(text)
    import unicodedata  # only for text beyond ASCII

    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def _pad(text: str, width: int, right: bool) -> str:
    fill = " " * (width - _width(text))
    return fill + text if right else text + fill


@dataclass(frozen=True)
class Table:
    """A titled table of text cells, with the count of rows left out and notes below.

    Attributes
    ----------
    title
        One line saying what the table is (``Evaluation of run 'bm25' on 225 queries``).
    columns
        The column headers.
    rows
        The cells shown, as text (see :func:`number`).
    more
        Rows left out after the last one shown; a line ``... N more <noun>`` says so.
    noun
        What a row is, for that line (``measures``, ``rows``).
    notes
        Lines below the table.
    left
        How many columns, from the first, are text aligned left; the rest (numbers) align
        right.
    """

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    more: int = 0
    noun: str = "rows"
    notes: tuple[str, ...] = ()
    left: int = 1

    def _more_line(self) -> str:
        return f"... {self.more} more {self.noun}"

    def text(self) -> str:
        """Plain text: the title, the header, a rule, the rows aligned, then the notes.

        No line ends with spaces; there is no final newline (``print`` adds one).
        """
        columns = [printable(c) for c in self.columns]
        rows = [[printable(c) for c in row] for row in self.rows]
        widths = [
            max([_width(columns[j]), *(_width(r[j]) for r in rows)]) for j in range(len(columns))
        ]

        def line(cells: Sequence[str]) -> str:
            pairs = enumerate(zip(cells, widths, strict=True))
            parts = [_pad(c, w, j >= self.left) for j, (c, w) in pairs]
            return "  ".join(parts).rstrip()

        out = [printable(self.title)]
        if columns:
            out += [line(columns), "  ".join("-" * w for w in widths)]
            out += [line(r) for r in rows]
        if self.more:
            out.append(self._more_line())
        out += [printable(n) for n in self.notes]
        return "\n".join(out)

    def html(self) -> str:
        """An HTML ``<table>`` with the title as its caption and the notes after it; every
        cell, header and note is escaped (ids may hold ``<``, ``&`` or quotes)."""
        import html  # on first use: its entity table costs a few ms at import

        esc = html.escape
        right = ' style="text-align: right"'
        head = "".join(
            f"<th{right if j >= self.left else ''}>{esc(c)}</th>"
            for j, c in enumerate(self.columns)
        )
        body = [
            "<tr>"
            + "".join(
                f"<td{right if j >= self.left else ''}>{esc(c)}</td>" for j, c in enumerate(row)
            )
            + "</tr>"
            for row in self.rows
        ]
        if self.more:
            span = max(len(self.columns), 1)
            body.append(f'<tr><td colspan="{span}">{esc(self._more_line())}</td></tr>')
        notes = "".join(f"<p>{esc(n)}</p>" for n in self.notes)
        if not self.columns:  # lines of text, no table: the title in bold, then the lines
            title = f"<p><b>{esc(self.title)}</b></p>" if self.title else ""
            return title + notes
        caption = (f'<caption style="text-align: left">{esc(self.title)}</caption>'
                   if self.title else "")
        parts = [
            '<table class="prfeval">',
            *([caption] if caption else []),
            f"<thead><tr>{head}</tr></thead>",
            f"<tbody>{''.join(body)}</tbody>",
            "</table>",
        ]
        return "\n".join(parts) + ("\n" + notes if notes else "")


def html_tables(tables: Sequence[Table], heading: str = "") -> str:
    """Several :class:`Table` as one piece of HTML, as a notebook shows a result: the
    ``heading`` in bold (escaped), then each table with its notes, in order."""
    import html

    top = f"<p><b>{html.escape(heading)}</b></p>\n" if heading else ""
    return '<div class="prfeval">\n' + top + "\n".join(t.html() for t in tables) + "\n</div>"


def table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    limit: int = MAX_ROWS,
    noun: str = "rows",
    notes: Sequence[str] = (),
    left: int = 1,
) -> Table:
    """A :class:`Table` of the first ``limit`` rows; the rest are counted, not shown."""
    shown = tuple(tuple(str(c) for c in r) for r in rows[:limit])
    return Table(
        title=title,
        columns=tuple(columns),
        rows=shown,
        more=max(len(rows) - limit, 0),
        noun=noun,
        notes=tuple(notes),
        left=left,
    )


def plural(n: int, singular: str, many: str | None = None) -> str:
    """``1 query``, ``225 queries``."""
    return f"{n:,} {singular if n == 1 else (many or singular + 's')}"


def skipped(accounting: Any) -> list[str]:
    """One line per kind of query a result left out (a
    :class:`~prfeval._core.ranking.QueryAccounting`): judged queries the run has no results
    for (unless ``complete`` scored them), run queries without judgments."""
    lines = []
    missing = len(accounting.missing_from_run)
    if missing and not accounting.complete:
        them = "it as an empty ranking" if missing == 1 else "them as empty rankings"
        lines.append(
            f"{plural(missing, 'judged query', 'judged queries')} without results: skipped "
            f"(complete=True scores {them})."
        )
    unjudged = len(accounting.not_in_qrels)
    if unjudged:
        lines.append(f"{plural(unjudged, 'run query', 'run queries')} without judgments: skipped.")
    return lines


def classification_report_text(
    rows: Sequence[tuple[str, float, float, float, int | float]],
    averages: Sequence[tuple[str, float | None, float | None, float, int | float]],
    *,
    digits: int = 2,
    names: Sequence[str] | None = None,
) -> str:
    """scikit-learn's ``classification_report`` text, byte for byte.

    Parameters
    ----------
    rows
        Per class: (name, precision, recall, F1, support).
    averages
        Per average: (heading, precision, recall, F1, support); a ``None`` precision and
        recall leave their cells blank, as the ``accuracy`` row does.
    digits
        Decimals of the values.
    names
        The names that size the first column (scikit-learn sizes it by every target name,
        even those that get no row); by default the rows' names.

    Notes
    -----
    The first column is right-aligned to the widest of the names, ``"weighted avg"`` and
    ``digits``; every other column is 9 wide after a space, values with ``digits``
    decimals, support as given (an int, or a float such as ``2.0``); a blank line after the
    header and after the classes.
    """
    headers = ("precision", "recall", "f1-score", "support")
    sized = [n for n, *_ in rows] if names is None else list(names)
    width = max(max((len(n) for n in sized), default=0), len("weighted avg"), digits)
    out = [f"{'':>{width}s} " + "".join(f" {h:>9}" for h in headers), ""]

    def values(p: float | None, r: float | None, f: float, s: float) -> str:
        pr = "".join(
            f" {'':>9}" if v is None else f" {float(v):>9.{digits}f}" for v in (p, r)
        )
        return pr + f" {float(f):>9.{digits}f} {s:>9}"

    out += [f"{name:>{width}s} " + values(p, r, f, s) for name, p, r, f, s in rows]
    out.append("")
    out += [f"{name:>{width}s} " + values(p, r, f, s) for name, p, r, f, s in averages]
    return "\n".join(out) + "\n"
