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
import numpy.typing as npt

from prfeval._core.ids import query_output_order
from prfeval._measures.interpolated import level_key
from prfeval._report._text import fmt_value, render_table, wrap_lines
from prfeval._report.evaluation import accounting_lines
from prfeval._retrieval.curve_result import AverageCurve, BlockRows, Curves, QueryCurve

__all__ = [
    "FORMATS",
    "INFORMATIVE_K",
    "CurveCsvWriter",
    "format_json",
    "format_table",
    "notes",
]

FORMATS = ("table", "json", "csv")

#: Cutoffs shown in the table (those within the curve), with the best and the last k.
INFORMATIVE_K: tuple[int, ...] = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)

_LIST_LIMIT = 10


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:_LIST_LIMIT])
    return shown + (f", ... and {len(ids) - _LIST_LIMIT} more" if len(ids) > _LIST_LIMIT else "")


def _cutoffs(last: int, extra: Sequence[int]) -> list[int]:
    chosen = {k for k in INFORMATIVE_K if k <= last} | {k for k in extra if 1 <= k <= last}
    if last >= 1:
        chosen.add(last)
    return sorted(chosen)


def _marks(
    k: int, best: Sequence[tuple[str, int]], reached: dict[float, int], recall: str, last: int
) -> str:
    """What row ``k`` of a curve's table marks: the best cutoffs that fall there (``best``:
    name, k), the recall levels first reached there (``{recall} >= level``), the last rank."""
    marks = [name for name, at in best if at == k]
    marks += [f"{recall} >= {r:g}" for r, at in reached.items() if at == k]
    if k == last:
        marks.append("last")
    return ", ".join(marks)


def _f_name(beta: float) -> str:
    return f"F{beta:g}"


def _query_table(c: Curves, q: QueryCurve) -> str:
    f_name = _f_name(c.beta)
    scored = "" if q.n_scored is None else f", {q.n_scored} with a positive score"
    title = f"Query {q.query_id}: {q.n_relevant} relevant, {q.n_retrieved} retrieved{scored}"
    reached = {level: hit.k for level, hit in q.recall_reached.items() if hit is not None}
    last = int(q.k[-1]) if q.k.size else 0
    rows = []
    best = [(f"best {f_name}", q.best.k)]
    for k in _cutoffs(last, [q.best.k, *reached.values()]):
        i = k - 1
        rows.append(
            [
                str(k),
                str(int(q.tp[i])),
                fmt_value(float(q.precision[i])),
                fmt_value(float(q.recall[i])),
                fmt_value(float(q.f[i])),
                _marks(k, best, reached, "recall", last),
            ]
        )
    notes = []
    if q.k.size:
        b = q.best
        notes.append(
            f"Best cutoff: k = {b.k}, the first k with the highest {f_name}: "
            f"P = {b.precision:.4f}, R = {b.recall:.4f}, {f_name} = {b.f:.4f}."
        )
    else:
        notes.append("Nothing retrieved: no cutoff to choose.")
    for level, hit in q.recall_reached.items():
        if hit is None:
            top = float(q.recall[-1]) if q.k.size else 0.0
            notes.append(
                f"Recall {level:g} is never reached; the whole ranking's recall is {top:.4f}."
            )
        else:
            notes.append(
                f"Recall {level:g} first reached at rank {hit.k}, P there = {hit.precision:.4f}."
            )
    if q.n_scored is not None:
        notes.append(f"Documents with a positive score: {q.n_scored} of {q.n_retrieved} retrieved.")
    missing = q.relevant_not_retrieved
    notes.append(f"Relevant documents never retrieved: {len(missing)}"
                 + (f": {_ids(missing)}." if missing else "."))
    if q.relevant_only_unscored is not None:
        only = q.relevant_only_unscored
        notes.append(
            f"Relevant documents retrieved only among those scored <= 0: {len(only)}"
            + (f": {_ids(only)}." if only else ".")
        )
    headers = ["k", "TP", "P", "R", f_name, ""]
    # The title on its own line: rich would wrap it to the table's width.
    return (
        f"{title}\n"
        + render_table(None, headers, rows, wrap_lines(notes))
        + "\n"
        + _iprec_table(c, q.iprec, "IPrec")
    )


def _iprec_table(
    c: Curves, values: Sequence[float] | npt.NDArray[np.float64], label: str
) -> str:
    headers = ["recall", *(level_key(r) for r in c.iprec_levels)]
    title = "Interpolated precision at recall levels (trec_eval iprec_at_recall)"
    row = [label, *(fmt_value(float(v)) for v in values)]
    return f"{title}\n" + render_table(None, headers, [row])


def _average_table(c: Curves) -> str:
    f_name = _f_name(c.beta)
    m, u = c.macro, c.micro
    title = f"Averages over {m.n_queries} queries at each k: the mean, and of the pooled counts"
    last = int(m.k[-1]) if m.k.size else 0
    reached = {r: hit.k for r, hit in m.recall_reached.items() if hit is not None}
    rows = []
    best = [(f"best mean {f_name}", m.best.k), (f"best micro {f_name}", u.best.k)]
    for k in _cutoffs(last, [m.best.k, u.best.k, *reached.values()]):
        i = k - 1
        rows.append(
            [
                str(k),
                *(fmt_value(float(a[i])) for a in (m.precision, m.recall, m.f)),
                *(fmt_value(float(a[i])) for a in (u.recall, u.f)),
                _marks(k, best, reached, "mean recall", last),
            ]
        )
    headers = ["k", "P", "mean R", f"mean {f_name}", "micro R", f"micro {f_name}", ""]
    notes = [
        f"mean: the mean over queries; micro: of the counts pooled over queries. The mean "
        f"{f_name} is not the {f_name} of the mean P and R.",
        "P is both the mean and the micro precision: every query has k places at k. A query "
        "with fewer than k documents keeps its TP, and P@k divides by k, as trec_eval does.",
        *_average_notes(c, m, "macro"),
        *_average_notes(c, u, "micro"),
    ]
    queries = [c.summaries[q] for q in c.query_ids]
    scored = [q.n_scored for q in queries if q.n_scored is not None]
    if scored:
        notes.append(
            f"Documents with a positive score: {sum(scored)} of "
            f"{sum(q.n_retrieved for q in queries)} retrieved."
        )
    missing = [q for q in queries if q.relevant_not_retrieved]
    notes.append(
        f"Relevant documents never retrieved: "
        f"{sum(len(q.relevant_not_retrieved) for q in missing)}, in {len(missing)} queries."
    )
    if scored:
        only = [q for q in queries if q.relevant_only_unscored]
        n_only = sum(len(q.relevant_only_unscored or ()) for q in only)
        notes.append(
            f"Relevant documents retrieved only among those scored <= 0: {n_only}, in "
            f"{len(only)} queries."
        )
    notes += accounting_lines(c)
    iprec: Sequence[float] | npt.NDArray[np.float64] = m.iprec if m.iprec is not None else []
    return (
        f"{title}\n"
        + render_table(None, headers, rows, wrap_lines(notes))
        + "\n"
        + _iprec_table(c, iprec, "mean IPrec")
    )


def _average_notes(c: Curves, a: AverageCurve, kind: str) -> list[str]:
    f_name = _f_name(c.beta)
    lines = []
    name = "mean" if kind == "macro" else kind
    if a.k.size:
        b = a.best
        deployed = ", one k for every query" if kind == "macro" else ""
        lines.append(
            f"Best cutoff by the {name} {f_name}{deployed}: k = {b.k}, where P = "
            f"{b.precision:.4f}, R = {b.recall:.4f} and the {name} {f_name} = {b.f:.4f}."
        )
    for level, hit in a.recall_reached.items():
        if hit is None:
            last = int(a.k[-1]) if a.k.size else 0
            lines.append(f"{name.capitalize()} recall {level:g} is not reached by k = {last}.")
        else:
            lines.append(
                f"{name.capitalize()} recall {level:g} first reached at k = {hit.k}, "
                f"P there = {hit.precision:.4f}."
            )
    return lines


def format_table(c: Curves, queries: Sequence[str], header: str | None) -> str:
    parts = [header] if header else []
    if queries:
        parts += [_query_table(c, c[q]) for q in queries]
    else:
        parts.append(_average_table(c))
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
