"""What an explanation's table says, in one place: one query's ranking, place by place, in
the order the measures use (rank, document, score, grade, whether it counts as relevant,
P and R there), and the notes on it.

The command line lays it out as text (:mod:`prfeval._report.explain`), a notebook as HTML
(:meth:`Explanation._repr_html_ <prfeval._retrieval.explanation.Explanation>`), from this one
source.
"""

from __future__ import annotations

from typing import Any

from prfeval._core.display import Table, number

__all__ = ["explain_table"]

_DOC_WIDTH = 24  # doc ids longer than this are cut in the table (JSON and CSV keep them whole)

# Explanation (prfeval._retrieval.explanation) imports this module to show itself, so an
# explanation ``e`` is taken as Any here.


def _short(text: str, width: int = _DOC_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def explain_table(e: Any) -> Table:
    """The ranking's top places, in the order the measures use, and the notes: relevant
    documents never retrieved, where recall reaches each level, the best F, ties a cutoff
    cuts through, the query's values."""
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
                number(d.precision, digits=3),
                number(d.recall, digits=3),
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
    headers = ("rank", "doc", "score", "grade", "rel", "P", "R")
    return Table(title, headers, tuple(tuple(r) for r in rows), notes=tuple(notes))
