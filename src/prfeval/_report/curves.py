"""Reports of :class:`~prfeval._retrieval.curve_result.Curves`: table, json and csv.

The table shows informative cutoffs of one query or of the averages; JSON and CSV give every
k. CSV rows go through Arrow's CSV writer; those of a run read in blocks are kept on disk
(one Arrow record batch per query) until the last block, then written in query order, so
writing every k of a large run takes neither Python loops per row nor memory per row.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import IO, Any

import numpy as np

from prfeval._core.display import Table
from prfeval._core.ids import query_output_order
from prfeval._report._text import render_table, wrap_lines
from prfeval._report.evaluation import accounting_lines
from prfeval._retrieval.curve_result import AverageCurve, BlockRows, Curves
from prfeval._retrieval.curve_table import INFORMATIVE_K, average_tables, query_tables

__all__ = [
    "FORMATS",
    "INFORMATIVE_K",
    "CurveCsvWriter",
    "format_json",
    "format_table",
    "notes",
]

FORMATS = ("table", "json", "csv")

def _text(tables: list[Table]) -> str:
    """Each table under its title line (rich would wrap a title to the table's width), its
    notes wrapped to 80 columns."""
    return "\n".join(
        f"{t.title}\n"
        + render_table(None, list(t.columns), [list(r) for r in t.rows], wrap_lines(t.notes))
        for t in tables
    )


def format_table(c: Curves, queries: Sequence[str], header: str | None) -> str:
    parts = [header] if header else []
    if queries:
        parts += [_text(query_tables(c, c[q])) for q in queries]
    else:
        parts.append(_text(average_tables(c)))
    return "\n".join(parts)


def format_json(curves: Mapping[str, Curves], queries: Sequence[str]) -> str:
    """One run's object (``{"queries", "macro", "micro", ...}``), or several under "runs".
    Compact: every k of every query makes a large document; pipe it to jq to read it."""
    chosen = list(queries) or None
    if len(curves) == 1:
        payload = next(iter(curves.values())).to_dict(chosen)
    else:
        payload = {"runs": {name: c.to_dict(chosen) for name, c in curves.items()}}
    return json.dumps(payload)


_COLUMNS = ("run", "kind", "query_id", "k", "precision", "recall", "f", "interpolated_precision")


class CurveCsvWriter:
    """Every k as CSV rows: ``run, kind, query_id, k, precision, recall, f,
    interpolated_precision``, per run its queries' rows in output order, then the macro and
    micro averages (with an empty ``query_id`` and ``interpolated_precision``).

    Give :meth:`rows` as the ``on_rows`` of :func:`prfeval.curve`, then call :meth:`finish`
    with the run's curves. A run's first block is held in memory; from a second block on,
    every block is written to a temporary Arrow file, one record batch per query, and read
    back in output order.
    """

    def __init__(self, out: IO[bytes]) -> None:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        self._pa = pa
        self._schema = pa.schema(
            [
                ("run", pa.string()),
                ("kind", pa.string()),
                ("query_id", pa.string()),
                ("k", pa.int64()),
                ("precision", pa.float64()),
                ("recall", pa.float64()),
                ("f", pa.float64()),
                ("interpolated_precision", pa.float64()),
            ]
        )
        self._writer = pacsv.CSVWriter(
            out,
            self._schema,
            write_options=pacsv.WriteOptions(quoting_style="needed", quoting_header="none"),
        )
        self._rows_schema = pa.schema(list(self._schema)[2:])
        self._name = ""
        self._held: list[Any] = []  # (query ids, batch, offsets) of the run's first block
        self._spill: Any = None  # (path, IPC writer, query -> batch index) from block two on

    def rows(self, run: str) -> Any:
        """The ``on_rows`` callback of one run (runs are written one after the other)."""
        self._name = run
        return self._add

    def _batch(self, block: BlockRows) -> tuple[list[str], Any, np.ndarray]:
        """The block's rows (without the constant run and kind), and where each query starts."""
        pa = self._pa
        n = block.k.size
        ids = block.query_ids
        starts = np.flatnonzero(np.append(True, ids[1:] != ids[:-1])) if n else np.zeros(0, int)
        names = [str(q) for q in ids[starts]]
        codes = np.repeat(np.arange(len(names), dtype=np.int32), np.diff(np.append(starts, n)))
        query_ids = pa.DictionaryArray.from_arrays(codes, pa.array(names, pa.string()))
        batch = pa.record_batch(
            [
                query_ids.dictionary_decode(),
                pa.array(block.k),
                pa.array(block.precision),
                pa.array(block.recall),
                pa.array(block.f),
                pa.array(block.interpolated_precision),
            ],
            schema=self._rows_schema,
        )
        return names, batch, np.append(starts, n)

    def _add(self, block: BlockRows) -> None:
        part = self._batch(block)
        if self._spill is None and not self._held:
            self._held.append(part)
            return
        if self._spill is None:  # a second block: from now on, keep the rows on disk
            import pyarrow.ipc as ipc

            fd, path = tempfile.mkstemp(prefix="prfeval-curve-", suffix=".arrow")
            os.close(fd)
            sink = self._pa.OSFile(path, "wb")
            self._spill = (path, sink, ipc.new_file(sink, self._rows_schema), {})
            for held in self._held:
                self._spill_part(held)
            self._held = []
        self._spill_part(part)

    def _spill_part(self, part: tuple[list[str], Any, np.ndarray]) -> None:
        _, _, writer, index = self._spill
        names, batch, bounds = part
        for i, name in enumerate(names):
            index[name] = len(index)
            # One small batch per query: read back one at a time, in output order.
            writer.write_batch(batch.slice(bounds[i], bounds[i + 1] - bounds[i]))

    def _write(self, batch: Any) -> None:
        pa = self._pa
        n = batch.num_rows
        constant = [
            pa.DictionaryArray.from_arrays(
                np.zeros(n, dtype=np.int32), pa.array([value], pa.string())
            ).dictionary_decode()
            for value in (self._name, "query")
        ]
        self._writer.write_batch(pa.record_batch([*constant, *batch.columns], schema=self._schema))

    def finish(self, curves: Curves) -> None:
        """Write the run's query rows in output order, then its averages."""
        if self._spill is not None:
            import pyarrow.ipc as ipc

            path, sink, writer, index = self._spill
            writer.close()
            sink.close()
            try:
                with self._pa.OSFile(path, "rb") as source:
                    reader = ipc.open_file(source)
                    names = list(index)
                    for i in query_output_order(names):
                        self._write(reader.get_batch(index[names[i]]))
            finally:
                os.unlink(path)
            self._spill = None
        for _, batch, _ in self._held:
            self._write(batch)  # one block: in output order already
        self._held = []
        for a in (curves.macro, curves.micro):
            self._write_average(a)

    def _write_average(self, a: AverageCurve) -> None:
        pa = self._pa
        n = a.k.size
        self._writer.write_batch(
            pa.record_batch(
                [
                    pa.array([self._name] * n, pa.string()),
                    pa.array([a.kind] * n, pa.string()),
                    pa.array([""] * n, pa.string()),
                    pa.array(a.k),
                    pa.array(a.precision),
                    pa.array(a.recall),
                    pa.array(a.f),
                    pa.nulls(n, pa.float64()),
                ],
                schema=self._schema,
            )
        )

    def close(self) -> None:
        """Finish the CSV stream."""
        self._writer.close()


def notes(c: Curves, fmt: str) -> list[str]:
    """What JSON and CSV leave to stderr: the accounting the table shows under its averages
    (queries evaluated and skipped, repeated, unjudged, removed documents)."""
    return [] if fmt == "table" else accounting_lines(c)
