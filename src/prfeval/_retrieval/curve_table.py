"""What a curve's tables say, in one place: the averages (mean and micro) or one query's
curve at a few cutoffs, with the best cutoffs and where recall levels are reached marked,
the notes on them (best cutoffs, recall reached, relevant documents never retrieved, what
was evaluated and set aside), and the interpolated precision at recall levels.

The command line lays them out as text (:mod:`prfeval._report.curves`), a notebook as HTML
(:meth:`Curves._repr_html_ <prfeval._retrieval.curve_result.Curves>`), from this one source,
so the two never say different things.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prfeval._core.display import Table, number
from prfeval._measures.interpolated import level_key
from prfeval._retrieval.evaluation_table import accounting_lines

__all__ = ["INFORMATIVE_K", "average_tables", "query_tables"]

# The result classes (prfeval._retrieval.curve_result) import this module to show
# themselves, so it takes them as Any: a Curves ``c``, its AverageCurve ``a`` and
# QueryCurve ``q``.


def _table(title: str, headers: Sequence[str], rows: list[list[str]],
           notes: list[str]) -> Table:
    """A titled table of every row (none left out), numbers aligned right from the second
    column."""
    return Table(title, tuple(headers), tuple(tuple(r) for r in rows), notes=tuple(notes))


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


def query_tables(c: Any, q: Any) -> list[Table]:
    """One query's curve at a few cutoffs, where its F peaks and where its recall reaches
    each level, then its interpolated precision."""
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
                number(float(q.precision[i])),
                number(float(q.recall[i])),
                number(float(q.f[i])),
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
    headers = ("k", "TP", "P", "R", f_name, "")
    return [_table(title, headers, rows, notes), _iprec_table(c, q.iprec, "IPrec")]


def _iprec_table(c: Any, values: Sequence[float], label: str) -> Table:
    headers = ("recall", *(level_key(r) for r in c.iprec_levels))
    title = "Interpolated precision at recall levels (trec_eval iprec_at_recall)"
    row = [label, *(number(float(v)) for v in values)]
    return _table(title, headers, [row], [])


def average_tables(c: Any) -> list[Table]:
    """The averages at a few cutoffs, mean and micro, with every note on them and the
    accounting of the queries, then the mean interpolated precision."""
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
                *(number(float(a[i])) for a in (m.precision, m.recall, m.f)),
                *(number(float(a[i])) for a in (u.recall, u.f)),
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
    iprec = m.iprec if m.iprec is not None else []
    return [_table(title, tuple(headers), rows, notes), _iprec_table(c, iprec, "mean IPrec")]


def _average_notes(c: Any, a: Any, kind: str) -> list[str]:
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
