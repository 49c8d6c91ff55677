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
from prfeval._report._text import render_table
from prfeval._retrieval.explain_table import explain_table
from prfeval._retrieval.explanation import Explanation

__all__ = ["FORMATS", "format_explanations"]

FORMATS = ("table", "json", "csv")


def _table(e: Explanation) -> str:
    t = explain_table(e)
    rows = [list(r) for r in t.rows]
    return f"{t.title}\n" + render_table(None, list(t.columns), rows, list(t.notes), width=80)


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
