"""trec_eval's output, byte for byte: ``prfeval trec_eval`` and ``evaluate --format trec``.

trec_eval prints one row per value: the measure's printed name padded to 22 characters, a
tab, the query id (``all`` for the summary), a tab and the value, as C's
``printf("%-22s\\t%s\\t%6.4f\\n")``: 4 decimals for measures, ``%ld`` for counts, the text
itself for ``runid`` and in quotes for ``relstring``. An undefined value (0/0) is printed as
glibc prints it, ``-nan``. With ``-q`` the rows of each query come first, queries in byte
order of their ids, then the summary.

The summary values are trec_eval's: added in query order and divided by the number of
queries, which with ``-c`` is every judged query (those without results add 0); a geometric
mean counts a missing query at the floor 0.00001.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from prfeval.core.aggregate import trec_eval_average
from prfeval.core.registry import Measure, TrecName
from prfeval.retrieval.evaluate import Evaluation

__all__ = [
    "ALL_TREC",
    "NICKNAMES",
    "OFFICIAL",
    "TABLE_ORDER",
    "format_trec_eval",
    "trec_line",
    "trec_number",
]

#: trec_eval 9.0.8's measures in the order of its measure table, which is the order it
#: prints them in; ``all_trec`` is all of them.
TABLE_ORDER: tuple[str, ...] = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
)
ALL_TREC = TABLE_ORDER
#: trec_eval's default set, when no -m is given.
OFFICIAL: tuple[str, ...] = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
#: trec_eval's nicknames for sets of measures.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": OFFICIAL,
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
    "all_trec": ALL_TREC,
}


def trec_number(value: float, *, integer: bool = False) -> str:
    """A value as trec_eval prints it: ``%ld`` of the value for counts, else ``%6.4f``
    (glibc's ``-nan`` for an undefined value)."""
    if integer:
        return str(int(value))
    if math.isnan(value):
        return f"{'-nan':>6}"
    return f"{value:6.4f}"


def trec_line(name: str, qid: str, shown: str) -> str:
    """One row: ``%-22s\\t%s\\t%s``."""
    return f"{name:<22}\t{qid}\t{shown}"


def format_trec_eval(
    e: Evaluation,
    entries: Sequence[tuple[Measure, TrecName]],
    *,
    per_query: bool = False,
    summary: bool = True,
    complete: bool = False,
    version: int = 9,
    num_rel_complete: float | None = None,
) -> str:
    """``e`` as trec_eval prints it, for the measures of ``entries`` in that order.

    Parameters
    ----------
    e
        Evaluated with ``complete`` when trec_eval's ``-c`` was given (so that every judged
        query is in it), with the measures of ``entries``.
    entries
        Each measure with the trec_eval name it was asked as (which says whether the
        measure has per-query rows and a summary row).
    per_query, summary
        ``-q`` (each query's rows) and not ``-n`` (the summary).
    complete, version
        trec_eval's ``-c``, and whose ``-c`` to follow: 9.0.8 prints and adds only the
        queries with results (dividing by every judged query), 10.0 evaluates the judged
        queries without results too, as rankings of one unjudged placeholder document.
    num_rel_complete
        With ``-c``: the summary's num_rel, which trec_eval recounts as the judgments with a
        grade above 0 over every judged query, whatever the relevance level.
    """
    qids = list(e.query_ids)
    missing = set(e.accounting.missing_from_run) if complete else set()
    present = [i for i, q in enumerate(qids) if q not in missing]
    shown = present if not (complete and version >= 10) else list(range(len(qids)))
    shown.sort(key=lambda i: qids[i].encode("utf-8"))  # trec_eval: strcmp order
    n_queries = len(qids) if complete else len(present)
    labels = {str(m): i for i, m in enumerate(e.measures)}
    lines: list[str] = []

    def values_of(m: Measure) -> list[float]:
        row = e.values[labels[str(m)]]
        out = [float(row[i]) for i in shown]
        if m.definition.name == "Utility" and version >= 10:
            # trec_eval 10 zeroes the placeholder ranking's utility.
            out = [0.0 if qids[i] in missing else v for i, v in zip(shown, out, strict=True)]
        return out

    if per_query:
        cols = {str(m): values_of(m) for m, t in entries if not m.definition.is_text}
        for j, i in enumerate(shown):
            qid = qids[i]
            for m, t in entries:
                if not t.per_query:
                    continue
                name = m.trec_label
                if m.definition.is_text:
                    text = e.text[str(m)][i] if qids[i] not in missing else ""
                    lines.append(trec_line(name, qid, f"'{text}'"))
                    continue
                number = trec_number(cols[str(m)][j], integer=m.definition.is_total)
                lines.append(trec_line(name, qid, number))
    if summary:
        for m, t in entries:
            if not t.summary:
                continue
            name = m.trec_label
            d = m.definition
            if d.is_text:
                lines.append(trec_line(name, "all", e.text_summary.get(str(m), "")))
                continue
            if d.name == "NumQ":
                value: float = n_queries
            elif d.name == "NumRel" and num_rel_complete is not None:
                value = num_rel_complete
            else:
                value = trec_eval_average(values_of(m), d.aggregation, n_queries)
            lines.append(trec_line(name, "all", trec_number(value, integer=d.is_total)))
    return "".join(line + "\n" for line in lines)
