"""Reports of :class:`~prfeval._retrieval.explanation.Explanation`: table, json and csv.

The table is read by a person on an 80-column terminal: the ranking with its judgments and
P and R at each rank (relevant places marked), then what the query missed and where recall
got to, the tied documents a cutoff cuts through, and the query's values.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence

from prfeval._report._csv import csv_writer
from prfeval._report._text import fmt_value, render_table
from prfeval._retrieval.explanation import Explanation

__all__ = ["FORMATS", "format_explanations"]

FORMATS = ("table", "json", "csv")

_DOC_WIDTH = 24  # doc ids longer than this are cut in the table (JSON and CSV keep them whole)


def _short(text: str, width: int = _DOC_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(e: Explanation) -> str:
    rows = []
    for d in e.ranking:
        mark = "*" if d.relevant else ("(repeat)" if d.repeat else "")
        rows.append(
            [
                str(d.rank),
                _short(d.doc_id),
                "" if d.score is None else f"{d.score:.4g}",
                "-" if d.grade is None else str(d.grade),
                mark,
                fmt_value(d.precision, digits=3),
                fmt_value(d.recall, digits=3),
            ]
        )
    title = (
        f"Query {e.query}: {e.n_relevant} relevant, {e.n_retrieved} retrieved; the top "
        f"{len(e.ranking)} in the order the measures use"
    )
    notes = ["*: counts as relevant (grade >= level); -: not judged."]
    if e.missed:
        shown = ", ".join(f"{d} ({g})" for d, g in e.missed[:12])
        more = f", ... ({len(e.missed)} in all)" if len(e.missed) > 12 else ""
        notes.append(f"Relevant, never retrieved ({len(e.missed)}): {shown}{more}.")
    else:
        notes.append("Every relevant document was retrieved." if e.n_relevant else
                     "The query has no relevant documents.")
    reached = []
    for level, hit in e.recall_reached.items():
        reached.append(
            f"{level:g}: never" if hit is None else f"{level:g} at rank {hit[0]} (P {hit[1]:.3f})"
        )
    notes.append("Recall first reaches " + "; ".join(reached) + ".")
    if e.best is not None:
        k, p, r, f = e.best
        notes.append(
            f"Best F{e.beta:g}: {f:.4f} at k = {k} (P = {p:.4f}, R = {r:.4f})."
        )
    for t in e.cut_ties:
        docs = ", ".join(_short(d, 16) for d in t.doc_ids[:6])
        more = ", ..." if len(t.doc_ids) > 6 else ""
        notes.append(
            f"Ranks {t.first}-{t.last} tie at score {t.score:.4g}, and k = {t.k} "
            f"({', '.join(t.measures)}) cuts through them; in doc id order, descending: "
            f"{docs}{more}."
        )
    if e.values:
        notes.append(
            "Values: " + "; ".join(f"{label} = {v:.4f}" for label, v in e.values.items()) + "."
        )
    headers = ["rank", "doc", "score", "grade", "rel", "P", "R"]
    return f"{title}\n" + render_table(None, headers, rows, notes, width=80)


def format_explanations(explanations: Sequence[Explanation], fmt: str = "table") -> str:
    """The explanations in one of :data:`FORMATS` (JSON: one object, or a list for several)."""
    if fmt == "table":
        return "\n".join(_table(e) for e in explanations)
    if fmt == "json":
        items = [e.to_dict() for e in explanations]
        return json.dumps(items[0] if len(items) == 1 else items, indent=2)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv_writer(buffer)
        writer.writerow(
            ["query_id", "rank", "doc_id", "score", "grade", "relevant", "precision", "recall"]
        )
        for e in explanations:
            for d in e.ranking:
                writer.writerow(
                    [
                        e.query,
                        d.rank,
                        d.doc_id,
                        "" if d.score is None else repr(d.score),
                        "" if d.grade is None else d.grade,
                        int(d.relevant),
                        repr(d.precision),
                        repr(d.recall),
                    ]
                )
        return buffer.getvalue()
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
