"""The CSV every report writes: RFC 4180 quoting, ``\\n`` line ends, values exactly as they are.

Python's :func:`csv.writer` quotes a field holding the delimiter, a quote or a character of
its line terminator; with ``\\n`` line ends, a bare carriage return inside a field (an id
``a\\rb``, read from JSON Lines) would go out unquoted, and every CSV reader takes it for the
end of the line. :func:`csv_writer` quotes such a field too. Nothing else is changed: an id
that starts with ``=``, ``+``, ``-``, ``@`` or a tab is written as it is (see the CSV section
of docs/output.md for why, and how to open such a file in a spreadsheet).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any, TextIO

__all__ = ["CsvWriter", "csv_writer"]


class CsvWriter:
    """:func:`csv.writer`'s ``writerow`` and ``writerows``, with every ``\\r`` quoted."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._plain = csv.writer(out, lineterminator="\n")
        # A row holding a carriage return is written by a writer whose line terminator
        # holds one, which quotes the field; its terminator is then swapped for "\n".
        self._scratch = io.StringIO()
        self._quoting = csv.writer(self._scratch, lineterminator="\r\n")

    def writerow(self, row: Iterable[Any]) -> None:
        cells = list(row)
        if not any(isinstance(cell, str) and "\r" in cell for cell in cells):
            self._plain.writerow(cells)
            return
        self._quoting.writerow(cells)
        text = self._scratch.getvalue()
        self._scratch.seek(0)
        self._scratch.truncate()
        self._out.write(text[:-2] + "\n")

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_writer(out: TextIO) -> CsvWriter:
    """A CSV writer onto ``out`` (see the module docstring): the one every report uses."""
    return CsvWriter(out)
