"""What an evaluation's summary says, in one place: the averages of every measure, each
labelled (macro, micro, F of mean P and R), the judged share at each measure's cutoff, and
the notes (how each average is made, where less than half is judged, which queries were
averaged and what was set aside).

The command line lays it out as text (:mod:`prfeval._report.evaluation`), a notebook as HTML
(:meth:`Evaluation._repr_html_ <prfeval._retrieval.evaluate.Evaluation>`), from this one
source, so the two never say different things.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from prfeval._core.display import number
from prfeval._core.ids import counted, id_list
from prfeval._core.ranking import QueryAccounting

__all__ = ["AVERAGES_LEGEND", "Summarised", "accounting_lines", "summary"]

#: The legend of the averages, shared by every table that shows them.
AVERAGES_LEGEND = (
    "macro: the mean over queries, so for an F it is the mean F; micro: the measure of the "
    "pooled counts; F of mean P, R: the F of the macro P and the macro R."
)


class Summarised(Protocol):
    """What the summary reads of an evaluation (a curve's result has the first two); read
    only, as the frozen results hold them."""

    @property
    def accounting(self) -> QueryAccounting: ...

    @property
    def settings(self) -> Mapping[str, Any]: ...


def accounting_lines(e: Summarised) -> list[str]:
    """What was evaluated and what was set aside, in words."""
    a = e.accounting
    over = (
        "every judged query; with -c, those without results score as empty rankings"
        if a.complete
        else "the queries in both the run and the judgments"
    )
    lines = [f"Queries evaluated: {a.evaluated}, averaged over {over}."]
    if e.settings.get("query_set", "all") != "all":
        lines.append(f"Query set: {e.settings['query_set']}.")
    if a.missing_from_run:
        one = len(a.missing_from_run) == 1
        if a.complete:
            what = "It scores as an empty ranking." if one else "They score as empty rankings."
        elif one:
            what = "It was skipped; -c scores it as an empty ranking."
        else:
            what = "They were skipped; -c scores them as empty rankings."
        lines.append(
            f"{counted(len(a.missing_from_run), 'judged query', 'judged queries')} had no "
            f"results: {id_list(a.missing_from_run)}. {what}"
        )
    if a.not_in_qrels:
        lines.append(
            f"{counted(len(a.not_in_qrels), 'run query', 'run queries')} had no judgments: "
            f"{id_list(a.not_in_qrels)}. "
            f"{'It was' if len(a.not_in_qrels) == 1 else 'They were'} skipped."
        )
    if a.unmatched_queries:
        n = len(a.unmatched_queries)
        lines.append(
            f"{counted(n, 'listed query', 'listed queries')} {'was' if n == 1 else 'were'} "
            f"found in neither the run nor the judgments: {id_list(a.unmatched_queries)}. "
            f"{'It was' if n == 1 else 'They were'} ignored."
        )
    if a.duplicates:
        lines.append(
            f"Repeated documents: {a.duplicates}, handled by --duplicates "
            f"{e.settings.get('duplicates', 'keep')}."
        )
    rule = e.settings.get("unjudged", "nonrelevant")
    if rule == "relevant":
        lines.append(
            f"Unjudged retrieved documents: {a.unjudged_retrieved}, counted as relevant at "
            f"grade {e.settings.get('unjudged_grade')}; {a.assumed_relevant} distinct documents "
            "were added to the relevant counts."
        )
    elif rule == "drop":
        lines.append(f"Unjudged documents removed before measuring by -J: {a.dropped_unjudged}.")
    else:
        lines.append(
            f"Unjudged retrieved documents, counted as non-relevant: {a.unjudged_retrieved}."
        )
    if a.repeated_judgments:
        kept = {"max": "the highest grade", "last": "the last one"}.get(
            e.settings.get("qrels_duplicates", ""), "one"
        )
        lines.append(
            f"Repeated judgments: {a.repeated_judgments}; each (query, document) counts once, "
            f"with {kept}."
        )
    if a.truncated:
        lines.append(f"Documents past -M removed: {a.truncated}.")
    return lines


def _average_cell(e: Any, m: Any, average: str) -> str:
    """A cell of an average, with the value under the other unjudged rule beside it when
    ``e`` has one: ``0.312 [0.312, 0.458]`` for a bounded measure, ``0.250 (0.310)`` else."""
    label = str(m)
    integer = m.definition.is_total
    values = getattr(e, average)
    if label not in values:
        return ""
    text = number(values[label], integer=integer)
    if e.upper is None or label not in getattr(e.upper, average):
        return text
    other = number(getattr(e.upper, average)[label], integer=integer)
    if m.definition.bounded:
        return f"{text} [{text}, {other}]"
    return f"{text} ({other})"


def summary(e: Any) -> tuple[list[str], list[list[str]], list[str]]:
    """(column headers, one row per measure, notes) of an
    :class:`~prfeval._retrieval.evaluate.Evaluation`'s summary table."""
    judged = [e.judged_at(str(m)) for m in e.measures]
    with_judged = any(j is not None for j in judged)
    rows = []
    for m, share in zip(e.measures, judged, strict=True):
        row = [
            str(m) + (" (total)" if m.definition.is_total else ""),
            _average_cell(e, m, "macro"),
            _average_cell(e, m, "micro"),
            _average_cell(e, m, "f_of_means"),
        ]
        if with_judged:
            row.append("" if share is None else f"{share:.0%}")
        rows.append(row)
    notes = [AVERAGES_LEGEND]
    if with_judged:
        notes.append(
            "judged: the mean share of judged documents in the top k of each query, Judged@k "
            "at the measure's cutoff."
        )
    if e.upper is not None:
        notes.append(
            "[a, b]: the value with the unjudged retrieved documents taken as non-relevant and "
            "as relevant; with them all judged, it would lie between. (b): the value if they "
            "were relevant, for a measure that also counts relevant documents never retrieved; "
            "it is not a bound, since those are not all judged either."
        )
    if e.coverage is not None:
        notes += e.coverage.thin(e.measures, e.settings.get("unjudged", "nonrelevant"))
    notes += accounting_lines(e)
    headers = ["measure", "macro", "micro", "F of mean P, R",
               *(["judged"] if with_judged else [])]
    return headers, rows, notes
