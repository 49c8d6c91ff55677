"""``prfeval curve QRELS RUN [RUN ...]``: precision, recall and F_beta at every cutoff.

Prints, per query asked for (``--query``) or for the averages over queries, a compact table at
informative cutoffs, the best cutoff, the rank at which recall first reaches each
``--recall-at`` level, the scored / never-retrieved / only-unscored accounting of seed 000 and
the 11-point interpolated precision; ``--format json|csv`` gives every k. ``--plot FILE`` draws
the trade-off plot and/or the precision-recall curve of every RUN, overlaid.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path

import click

from prfeval.cli.evaluate_cmd import accounting_lines
from prfeval.cli.options import level_option, output_option, query_set_options, ranking_options
from prfeval.cli.output import emit, fmt_value, note, notes_from_warnings, render_table
from prfeval.core.errors import UsageError
from prfeval.io.queries import read_query_ids
from prfeval.retrieval.curves import AverageCurve, Curves, QueryCurve, curve, level_key

__all__ = ["INFORMATIVE_K", "command", "run_names"]

FORMATS = ("table", "json", "csv")
PLOT_KINDS = ("tradeoff", "pr", "both")

#: Cutoffs shown in the table (those within the curve), with the best and the last k.
INFORMATIVE_K: tuple[int, ...] = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)

_LIST_LIMIT = 10


def run_names(paths: Sequence[str]) -> list[str]:
    """Short names for the runs: file names, or the paths as given when two share a name."""
    short = [Path(p).name or p for p in paths]
    if len(set(short)) == len(short):
        return short
    if len(set(paths)) != len(paths):
        raise UsageError("the same RUN is given twice")
    return list(paths)


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:_LIST_LIMIT])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > _LIST_LIMIT else "")


def _cutoffs(last: int, extra: Sequence[int]) -> list[int]:
    chosen = {k for k in INFORMATIVE_K if k <= last} | {k for k in extra if 1 <= k <= last}
    if last >= 1:
        chosen.add(last)
    return sorted(chosen)


def _f_name(beta: float) -> str:
    return f"F{beta:g}"


def _query_table(c: Curves, q: QueryCurve) -> str:
    f_name = _f_name(c.beta)
    scored = "" if q.n_scored is None else f", {q.n_scored} with a positive score"
    title = f"Query {q.query_id}: {q.n_relevant} relevant, {q.n_retrieved} retrieved{scored}"
    reached = {level: hit.k for level, hit in q.recall_reached.items() if hit is not None}
    last = int(q.k[-1]) if q.k.size else 0
    rows = []
    for k in _cutoffs(last, [q.best.k, *reached.values()]):
        i = k - 1
        marks = []
        if k == q.best.k:
            marks.append(f"best {f_name}")
        marks += [f"recall >= {r:g}" for r, at in reached.items() if at == k]
        if k == last:
            marks.append("last")
        rows.append(
            [
                str(k),
                str(int(q.tp[i])),
                fmt_value(float(q.precision[i])),
                fmt_value(float(q.recall[i])),
                fmt_value(float(q.f[i])),
                ", ".join(marks),
            ]
        )
    notes = []
    if q.k.size:
        b = q.best
        notes.append(
            f"Best cutoff: k = {b.k} (P = {b.precision:.4f}, R = {b.recall:.4f}, "
            f"{f_name} = {b.f:.4f}), the first k with the highest {f_name}."
        )
    else:
        notes.append("Nothing retrieved: no cutoff to choose.")
    for level, hit in q.recall_reached.items():
        if hit is None:
            top = float(q.recall[-1]) if q.k.size else 0.0
            notes.append(
                f"Recall {level:g} is never reached (recall of the whole ranking: {top:.4f})."
            )
        else:
            notes.append(
                f"Recall {level:g} first reached at rank {hit.k}, P there = {hit.precision:.4f}."
            )
    if q.n_scored is not None:
        notes.append(f"Documents with a positive score: {q.n_scored} of {q.n_retrieved} retrieved.")
    missing = q.relevant_not_retrieved
    notes.append(f"Relevant never retrieved ({len(missing)}): {_ids(missing) or 'none'}.")
    if q.relevant_only_unscored is not None:
        only = q.relevant_only_unscored
        notes.append(
            f"Relevant retrieved only among documents scored <= 0 ({len(only)}): "
            f"{_ids(only) or 'none'}."
        )
    headers = ["k", "TP", "P", "R", f_name, ""]
    # The title on its own line: rich would wrap it to the table's width.
    return (
        f"{title}\n"
        + render_table(None, headers, rows, notes)
        + "\n"
        + _iprec_table(c, q.iprec, "IPrec")
    )


def _iprec_table(c: Curves, values: Sequence[float], label: str) -> str:
    headers = ["recall", *(level_key(r) for r in c.iprec_levels)]
    title = "Interpolated precision at recall levels (trec_eval iprec_at_recall)"
    row = [label, *(fmt_value(float(v)) for v in values)]
    return f"{title}\n" + render_table(None, headers, [row])


def _average_table(c: Curves) -> str:
    f_name = _f_name(c.beta)
    m, u = c.macro, c.micro
    title = f"Averages over {m.n_queries} queries at each k: macro (mean) and micro (pooled)"
    last = int(m.k[-1]) if m.k.size else 0
    reached = {r: hit.k for r, hit in m.recall_reached.items() if hit is not None}
    rows = []
    for k in _cutoffs(last, [m.best.k, u.best.k, *reached.values()]):
        i = k - 1
        marks = []
        if k == m.best.k:
            marks.append(f"best macro {f_name}")
        if k == u.best.k:
            marks.append(f"best micro {f_name}")
        marks += [f"macro recall >= {r:g}" for r, at in reached.items() if at == k]
        if k == last:
            marks.append("last")
        rows.append(
            [
                str(k),
                *(fmt_value(float(a[i])) for a in (m.precision, m.recall, m.f)),
                *(fmt_value(float(a[i])) for a in (u.recall, u.f)),
                ", ".join(marks),
            ]
        )
    headers = ["k", "P", "macro R", f"macro {f_name}", "micro R", f"micro {f_name}", ""]
    notes = [
        "P is both the macro and the micro precision: every query has k places at k "
        "(a query with fewer than k documents keeps its TP; P@k divides by k, as trec_eval).",
        *_average_notes(c, m, "macro"),
        *_average_notes(c, u, "micro"),
    ]
    queries = [c.queries[q] for q in c.query_ids]
    scored = [q.n_scored for q in queries if q.n_scored is not None]
    if scored:
        notes.append(
            f"Documents with a positive score: {sum(scored)} of "
            f"{sum(q.n_retrieved for q in queries)} retrieved."
        )
    missing = [q for q in queries if q.relevant_not_retrieved]
    notes.append(
        f"Relevant never retrieved: {sum(len(q.relevant_not_retrieved) for q in missing)} "
        f"documents in {len(missing)} queries."
    )
    if scored:
        only = [q for q in queries if q.relevant_only_unscored]
        n_only = sum(len(q.relevant_only_unscored or ()) for q in only)
        notes.append(
            f"Relevant retrieved only among documents scored <= 0: {n_only} documents in "
            f"{len(only)} queries."
        )
    notes += accounting_lines(c)  # type: ignore[arg-type]  # reads .accounting, .settings
    iprec = m.iprec if m.iprec is not None else []
    return (
        f"{title}\n"
        + render_table(None, headers, rows, notes)
        + "\n"
        + _iprec_table(c, iprec, "mean IPrec")
    )


def _average_notes(c: Curves, a: AverageCurve, kind: str) -> list[str]:
    f_name = _f_name(c.beta)
    lines = []
    if a.k.size:
        b = a.best
        deployed = " (one cutoff for every query)" if kind == "macro" else ""
        lines.append(
            f"Best {kind} cutoff{deployed}: k = {b.k} (P = {b.precision:.4f}, "
            f"R = {b.recall:.4f}, {f_name} = {b.f:.4f})."
        )
    for level, hit in a.recall_reached.items():
        if hit is None:
            last = int(a.k[-1]) if a.k.size else 0
            lines.append(f"{kind.capitalize()} recall {level:g} is not reached by k = {last}.")
        else:
            lines.append(
                f"{kind.capitalize()} recall {level:g} first reached at k = {hit.k}, "
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


def format_csv(curves: dict[str, Curves], queries: Sequence[str]) -> str:
    """Every k: ``run, kind, query_id, k, precision, recall, f, interpolated_precision``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        ["run", "kind", "query_id", "k", "precision", "recall", "f", "interpolated_precision"]
    )
    for name, c in curves.items():
        for qid in queries or c.query_ids:
            q = c[qid]
            for row in zip(
                q.k.tolist(),
                q.precision.tolist(),
                q.recall.tolist(),
                q.f.tolist(),
                q.interpolated_precision.tolist(),
                strict=True,
            ):
                writer.writerow([name, "query", qid, *map(repr, row)])
        for a in (c.macro, c.micro):
            for k, p, r, f in zip(
                a.k.tolist(), a.precision.tolist(), a.recall.tolist(), a.f.tolist(), strict=True
            ):
                writer.writerow([name, a.kind, "", k, repr(p), repr(r), repr(f), ""])
    return buffer.getvalue()


def _recall_levels(values: tuple[float, ...]) -> tuple[float, ...]:
    for v in values:
        if not 0.0 < v <= 1.0:
            raise UsageError(f"--recall-at must be in (0, 1], got {v:g}")
    return tuple(dict.fromkeys(values)) or (0.5,)


@click.command("curve")
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", metavar="RUN...", nargs=-1, required=True)
@click.option(
    "-q",
    "--query",
    "query_ids",
    multiple=True,
    metavar="QID",
    help="Report this query (repeatable). Default: the averages over all queries.",
)
@click.option(
    "-b",
    "--beta",
    type=float,
    default=1.0,
    show_default=True,
    help="F weight: recall counts beta times as much as precision.",
)
@click.option(
    "-k",
    "--max-k",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Report cutoffs 1..K only (the ranking itself is not cut; see -M).",
)
@click.option(
    "-r",
    "--recall-at",
    "recall_at",
    type=float,
    multiple=True,
    metavar="LEVEL",
    help="Report the first rank at which recall reaches LEVEL (repeatable). [default: 0.5]",
)
@level_option
@ranking_options
@query_set_options
@click.option(
    "-c",
    "--complete",
    is_flag=True,
    help="Include judged queries without results, as empty rankings (trec_eval -c).",
)
@click.option(
    "-N",
    "--collection-size",
    type=click.IntRange(min=1),
    default=None,
    help="Documents in the collection: the no-skill line of the PR plot, n_rel/N.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: informative cutoffs; json and csv: every k.",
)
@click.option(
    "--plot",
    "plot_path",
    default=None,
    metavar="FILE",
    help="Also draw every RUN, overlaid, to FILE (.png or .svg): one --query, or "
    "the macro average.",
)
@click.option(
    "--plot-kind",
    type=click.Choice(PLOT_KINDS),
    default="tradeoff",
    show_default=True,
    help="tradeoff: P, R, F against k (log axis); pr: the precision-recall curve; "
    "both: side by side.",
)
@output_option
def command(
    qrels: str,
    runs: tuple[str, ...],
    query_ids: tuple[str, ...],
    beta: float,
    max_k: int | None,
    recall_at: tuple[float, ...],
    level: int,
    complete: bool,
    collection_size: int | None,
    max_results: int | None,
    judged_only: bool,
    order: str | None,
    duplicates: str,
    queries_file: str | None,
    exclude_file: str | None,
    fmt: str,
    plot_path: str | None,
    plot_kind: str,
    output: str | None,
) -> None:
    """Precision, recall and F_beta of RUN at every cutoff k, against QRELS.

    Several RUNs are overlaid in the plot; the table repeats for each, and JSON nests each
    run's object under "runs" (one RUN gives {"queries", "macro", "micro", "beta", ...}).
    --query picks the queries reported; the averages are always over every evaluated query
    (use --queries FILE to evaluate fewer).

    \b
    Example (seed 000's Cranfield query 2):
      prfeval curve cranqrels bm25.run --query 2 --recall-at 0.5 --plot q2.png
    """
    if not (beta >= 0.0 and beta != float("inf")):
        raise UsageError(f"--beta must be a finite number >= 0, got {beta:g}")
    levels = _recall_levels(recall_at)
    selected = list(dict.fromkeys(query_ids))
    if plot_path is not None:
        if len(selected) > 1:
            raise UsageError("--plot draws one query or the average: give at most one --query")
        from prfeval.plots.contours import figure_format

        figure_format(plot_path)  # a bad extension fails before any work
    if sum(r == "-" for r in runs) > 1:
        raise UsageError("only one RUN can be read from stdin (-)")

    include = read_query_ids(queries_file) if queries_file else None
    exclude = read_query_ids(exclude_file) if exclude_file else None
    results: dict[str, Curves] = {}
    for name, run in zip(run_names(runs), runs, strict=True):
        with notes_from_warnings():
            c = curve(
                qrels,
                run,
                queries=include,
                exclude_queries=exclude,
                beta=beta,
                max_k=max_k,
                level=level,
                complete=complete,
                order=order,  # type: ignore[arg-type]
                duplicates=duplicates,  # type: ignore[arg-type]
                judged_only=judged_only,
                max_results=max_results,
                recall_levels=levels,
                collection_size=collection_size,
            )
        for qid in selected:
            c[qid]  # raises UsageError naming the evaluated queries
        results[name] = c

    if fmt == "table":
        several = len(results) > 1
        text = "\n".join(
            format_table(c, selected, f"Run {name}" if several else None)
            for name, c in results.items()
        )
    elif fmt == "json":
        chosen = selected or None
        if len(results) == 1:
            payload = next(iter(results.values())).to_dict(chosen)
        else:
            payload = {"runs": {name: c.to_dict(chosen) for name, c in results.items()}}
        # Compact: every k of every query makes a large document; pipe it to jq to read it.
        text = json.dumps(payload)
    else:
        text = format_csv(results, selected)
    emit(text, output)

    if plot_path is not None:
        from prfeval.plots.contours import save_figure
        from prfeval.plots.curves import curves_figure

        fig = curves_figure(
            results,
            kind=plot_kind,  # type: ignore[arg-type]
            query=selected[0] if selected else None,
            collection_size=collection_size,
        )
        written = save_figure(fig, plot_path, close=True)
        what = f"query {selected[0]}" if selected else "the macro average"
        note(f"wrote {written} ({plot_kind}, {what}, {len(results)} run(s))")
