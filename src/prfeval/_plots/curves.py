"""Figures of curves: the precision-recall trade-off by cutoff, and the precision-recall curve.

matplotlib is imported only when a figure is drawn (through :func:`prfeval._plots.figures.pyplot`);
:func:`prfeval._plots.contours.save_figure` writes a figure as PNG or SVG. Each function takes one
:class:`~prfeval._retrieval.curve_result.Curves`
or several by name (``{"bm25": c1, "tuned": c2}``), draws one
query or, by default, the macro average, and returns the figure; given ``ax`` it draws into
that axes instead, so the two plots can share a figure (:func:`curves_figure`).

* :func:`tradeoff_figure` -- precision, recall and F_beta against the cutoff k on a log axis,
  the best-F cutoff marked and annotated, the first rank reaching a recall level marked.
* :func:`pr_curve_figure` -- precision against recall, raw (every k) and interpolated
  (trec_eval's IPrec), with the no-skill line.

Lines carry the data exactly: the x data of a trade-off line is ``k`` and its y data the
curve's ``precision``, ``recall`` or ``f``; nothing is resampled or smoothed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import UsageError
from prfeval._plots.figures import f_label, plain, pyplot, run_color
from prfeval._retrieval.curve_result import AverageCurve, Curves, Cutoff, QueryCurve

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from prfeval._classification.scores import ScoreMeasures
    from prfeval._classification.thresholds import ThresholdSweep

__all__ = [
    "PlotKind",
    "curves_figure",
    "pr_curve_figure",
    "scores_figure",
    "sweep_figure",
    "tradeoff_figure",
]

PlotKind = Literal["tradeoff", "pr", "both"]

# Measures by colour, runs by line style: several runs stay readable in one trade-off plot
# (its legend names each run by its line style drawn in the run's colour, run_color).
_MEASURE_COLORS = {"precision": "tab:blue", "recall": "tab:orange", "f": "tab:green"}
_RUN_STYLES = ("-", "--", ":", "-.")
# A classifier's curves, one colour per class (runs take theirs from run_color).
_CLASS_COLORS = ("tab:blue", "tab:red", "tab:green", "tab:purple", "tab:brown", "tab:olive")
_NO_SKILL_COLOR = "0.45"


@dataclass(frozen=True)
class _Series:
    """What one run contributes to a plot: a query's curve or an average."""

    run: str
    k: npt.NDArray[np.int64]
    precision: npt.NDArray[np.float64]
    recall: npt.NDArray[np.float64]
    f: npt.NDArray[np.float64]
    best: Cutoff
    reached: Mapping[float, Cutoff | None]
    curves: Curves
    query: QueryCurve | None
    average: AverageCurve | None


def _as_runs(curves_by_run: Mapping[str, Curves] | Curves) -> dict[str, Curves]:
    if isinstance(curves_by_run, Curves):
        return {curves_by_run.name: curves_by_run}
    runs = {str(name): c for name, c in curves_by_run.items()}
    if not runs:
        raise UsageError("nothing to plot: give at least one run's curves")
    betas = {c.beta for c in runs.values()}
    if len(betas) > 1:
        shown = ", ".join(f"{b:g}" for b in sorted(betas))
        raise UsageError(f"the runs' curves use different betas ({shown}); plot them apart")
    return runs


def _series(
    runs: Mapping[str, Curves], query: str | None, average: Literal["macro", "micro"]
) -> list[_Series]:
    out = []
    for name, c in runs.items():
        if query is None:
            a = c.macro if average == "macro" else c.micro
            out.append(
                _Series(name, a.k, a.precision, a.recall, a.f, a.best, a.recall_reached, c, None, a)
            )
        else:
            q = c[query]
            out.append(
                _Series(name, q.k, q.precision, q.recall, q.f, q.best, q.recall_reached, c, q, None)
            )
    if all(s.k.size == 0 for s in out):
        what = "the average" if query is None else f"query {query}"
        raise UsageError(f"nothing to plot: no documents retrieved for {what}")
    return out


def _subject(runs: Mapping[str, Curves], query: str | None, average: str) -> str:
    """What the plot shows, for its title: a query or an average, and the run if only one."""
    first = next(iter(runs.values()))
    if query is None:
        n = first.macro.n_queries
        what = f"{average} average over {n} quer{'y' if n == 1 else 'ies'}"
    else:
        what = f"query {plain(query)}"
    return f"{what} ({plain(next(iter(runs)))})" if len(runs) == 1 else what


def _new_axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax  # type: ignore[return-value]  # a new figure's axes: a Figure
    plt = pyplot()
    fig, new_ax = plt.subplots(figsize=size, layout="constrained")
    return fig, new_ax


def _legend_below(ax: Axes, handles: list[Any], labels: list[str], ncol: int) -> None:
    # Below the axes: every corner of these plots can hold data.
    ax.legend(
        handles,
        labels,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        ncol=ncol,
        fontsize=8,
        frameon=False,
    )


def _legend_columns(ax: Axes, columns: list[list[tuple[Any, str]]]) -> None:
    """A legend below the axes whose columns are exactly ``columns`` (blank-padded), since
    matplotlib fills a legend column by column with an equal number of rows in each."""
    columns = [c for c in columns if c]
    rows = max((len(c) for c in columns), default=0)
    (blank,) = ax.plot([], [], alpha=0.0)
    handles, labels = [], []
    for column in columns:
        padded = column + [(blank, "")] * (rows - len(column))
        handles += [h for h, _ in padded]
        labels += [lbl for _, lbl in padded]
    _legend_below(ax, handles, labels, ncol=max(len(columns), 1))


def tradeoff_figure(
    curves_by_run: Mapping[str, Curves] | Curves,
    *,
    query: str | None = None,
    average: Literal["macro", "micro"] = "macro",
    log_x: bool = True,
    recall_level: float | None = None,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Precision, recall and F_beta against the cutoff k: the trade-off as a user reads down
    the ranking (Manning, Raghavan and Schütze 2008, §8.3).

    Parameters
    ----------
    curves_by_run
        One :class:`~prfeval._retrieval.curve_result.Curves`, or several by run name, overlaid: the
        measures
        keep their colours (precision blue, recall orange, F green) and each run has its own
        line style, shown in the legend in the run's colour
        (:func:`~prfeval._plots.figures.run_color`, by position).
    query
        The query to draw; ``None`` draws the ``average`` over queries.
    average
        ``"macro"`` (mean over queries at each k) or ``"micro"`` (pooled counts).
    log_x
        A logarithmic k axis: the first few ranks, where precision
        changes fastest, get as much room as the last thousand.
    recall_level
        Mark the first k at which recall reaches this level (one of the curves'
        ``recall_levels``; by default the first of them); ``None`` and no levels: no marker.
    title
        Replaces the default title.
    ax
        Draw into this axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Each run's best cutoff (the first k with the highest F_beta) is a star on its F curve,
    annotated with k and F there. For the macro average the F curve is the mean F_beta over
    queries at each k, labelled "mean F₁", not the F of the mean P and R; for the micro
    average it is the F of the pooled counts, "micro F₁". On a single query with scores, a
    grey dotted vertical line marks the last document with a positive score, past which the
    ranking is in no useful order (on Cranfield query 2 ranked by BM25, the last three
    relevant documents come after it). A query's lines end at its last retrieved document;
    the averages run on to the longest ranking (or ``max_k``).
    """
    runs = _as_runs(curves_by_run)
    series = _series(runs, query, average)
    first = next(iter(runs.values()))
    # Which F: a query's own, the mean over queries (macro), or of the pooled counts (micro).
    # The F of the mean P and R is another number again, and is not drawn here.
    f_name = f_label(first.beta)
    if query is None:
        f_name = f"{'mean' if average == 'macro' else 'micro'} {f_name}"
    fig, ax = _new_axes(ax, (7.5, 5.6))
    if recall_level is None and first.recall_levels:
        recall_level = first.recall_levels[0]

    several = len(series) > 1
    # Legend columns: the lines, then the markers, for one run; one column per run for
    # several, headed by the run's name and line style, so the labels stay short.
    lines_col: list[tuple[Any, str]] = []
    marks_col: list[tuple[Any, str]] = []
    run_cols: list[list[tuple[Any, str]]] = []
    k_end = 1
    for i, s in enumerate(series):
        style = _RUN_STYLES[i % len(_RUN_STYLES)]
        column: list[tuple[Any, str]] = []
        if several:
            (header,) = ax.plot([], [], linestyle=style, color=run_color(i), linewidth=2.4)
            column.append((header, plain(s.run)))
        if s.k.size == 0:
            run_cols.append(column)
            continue
        for measure, values, label in (
            ("precision", s.precision, "precision" if several else "Precision"),
            ("recall", s.recall, "recall" if several else "Recall"),
            ("f", s.f, f_name),
        ):
            (line,) = ax.plot(
                s.k,
                values,
                linestyle=style,
                color=_MEASURE_COLORS[measure],
                linewidth=1.6,
                label=f"{plain(s.run)}: {label}" if several else label,
            )
            (column if several else lines_col).append((line, label))
        k_end = max(k_end, int(s.k[-1]))
        marks = column if several else marks_col
        best = s.best
        (star,) = ax.plot(
            [best.k],
            [best.f],
            marker="*",
            markersize=14,
            color=_MEASURE_COLORS["f"],
            markeredgecolor="black",
            linestyle="none",
            zorder=5,
        )
        marks.append((star, f"best {f_name} = {best.f:.3f} at k = {best.k}"))
        if not several:
            # With several runs the stars can sit close together: the legend carries the
            # values instead of labels that would overlap.
            ax.annotate(
                f"best {f_name} = {best.f:.3f}\nat k = {best.k}",
                (best.k, best.f),
                xytext=(12, 18),
                textcoords="offset points",
                fontsize=8,
                arrowprops={"arrowstyle": "-", "color": "0.3", "linewidth": 0.8},
                bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "0.7"},
                zorder=6,
            )
        reached = s.reached.get(recall_level) if recall_level is not None else None
        if reached is not None and reached.k <= s.k[-1]:
            (dot,) = ax.plot(
                [reached.k],
                [reached.recall],
                marker="o",
                markersize=7,
                markerfacecolor="white",
                markeredgecolor=_MEASURE_COLORS["recall"],
                markeredgewidth=1.6,
                linestyle="none",
                zorder=5,
            )
            marks.append(
                (dot, f"recall ≥ {recall_level:g} at k = {reached.k} (P = {reached.precision:.3f})")
            )
        q = s.query
        if q is not None and q.n_scored is not None and 0 < q.n_scored < q.n_retrieved:
            vline = ax.axvline(q.n_scored, color="0.5", linestyle=":", linewidth=1.2, zorder=1)
            marks.append((vline, f"last positive score, k = {q.n_scored}"))
        run_cols.append(column)

    if log_x:
        from matplotlib.ticker import FuncFormatter

        ax.set_xscale("log")
        # 1, 10, 100 rather than 10^0, 10^1, 10^2: k is a count of documents.
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.set_xlim(1 if log_x else 0, max(k_end, 2))
    ax.set_ylim(0.0, 1.02)
    ax.grid(True, which="major", color="0.9", linewidth=0.8)
    ax.set_xlabel("k, documents retrieved" + (" (log scale)" if log_x else ""))
    ax.set_ylabel(f"Precision, recall, {f_name}")
    ax.set_title(
        title or f"Precision, recall and {f_name} by cutoff: {_subject(runs, query, average)}"
    )
    _legend_columns(ax, run_cols if several else [lines_col, marks_col])
    return fig


def _no_skill(
    series: list[_Series], query: str | None, collection_size: int | None
) -> tuple[float, str] | None:
    """The no-skill precision and its legend text, or ``None`` when it is not known.

    A system ranking documents at random has expected precision n_rel / N at every depth:
    the prevalence. It needs the collection size N (given here or recorded in the curves).
    """
    first = series[0].curves
    n = collection_size if collection_size is not None else first.collection_size
    if n is None:
        return None
    if n <= 0:
        raise UsageError(f"the collection size must be > 0, got {n}")
    if query is None:
        rel = first.relevant_counts.astype(np.float64)  # every evaluated query's
        value = float((rel / n).mean()) if rel.size else 0.0
        return value, f"no skill: mean prevalence n_rel/N = {value:.3g} (N = {n})"
    n_rel = first[query].n_relevant
    return n_rel / n, f"no skill: prevalence n_rel/N = {n_rel}/{n} = {n_rel / n:.3g}"


def pr_curve_figure(
    curves_by_run: Mapping[str, Curves] | Curves,
    *,
    query: str | None = None,
    interpolated: bool = True,
    raw: bool = True,
    collection_size: int | None = None,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """The precision-recall curve, raw and interpolated, several runs overlaid.

    Parameters
    ----------
    curves_by_run
        One :class:`~prfeval._retrieval.curve_result.Curves`, or several by run name, each in its
        colour (:func:`~prfeval._plots.figures.run_color`, by position).
    query
        The query to draw; ``None`` draws the macro average.
    interpolated
        Draw the interpolated curve. For a query: trec_eval's interpolated precision at the
        recall of every k (the highest precision at any rank with at least that recall), as
        a step line. For the average: the mean over queries of IPrec at the curves'
        ``iprec_levels`` (trec_eval's 11-point curve), with markers.
    raw
        Draw the raw curve: (R(k), P(k)) at every k, the macro values for the average.
    collection_size
        N, for the no-skill line (overrides the curves' own ``collection_size``).
    title
        Replaces the default title.
    ax
        Draw into this axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    The no-skill line is the precision of a random ranking, the prevalence ``n_rel / N`` for
    a query (its mean over queries for the average); it is drawn only when N is known, since
    it cannot be computed from the run and the judgments alone. Without N, the legend says
    so. The curves start at k = 1, with no synthetic point at recall 0.
    """
    if not (interpolated or raw):
        raise UsageError("nothing to draw: ask for the raw or the interpolated curve")
    runs = _as_runs(curves_by_run)
    series = _series(runs, query, "macro")
    fig, ax = _new_axes(ax, (6.4, 6.6))
    several = len(series) > 1
    handles: list[tuple[Any, str]] = []
    for i, s in enumerate(series):
        color = run_color(i)
        prefix = f"{plain(s.run)}: " if several else ""
        if raw and s.k.size:
            (line,) = ax.plot(s.recall, s.precision, color=color, linewidth=1.0, alpha=0.55)
            what = "raw (R, P) at every k" if s.query is not None else "raw: macro (R, P) at each k"
            handles.append((line, prefix + what))
        if not interpolated:
            continue
        if s.query is not None:
            if s.k.size:
                (line,) = ax.plot(
                    s.recall,
                    s.query.interpolated_precision,
                    color=color,
                    linewidth=2.0,
                    drawstyle="steps-pre",
                )
                handles.append((line, f"{prefix}interpolated (max P at recall ≥ R)"))
        elif s.average is not None and s.average.iprec is not None:
            levels = np.asarray(s.curves.iprec_levels, dtype=np.float64)
            (line,) = ax.plot(
                levels, s.average.iprec, color=color, linewidth=2.0, marker="o", markersize=4
            )
            handles.append(
                (line, f"{prefix}interpolated: mean IPrec at {levels.size} recall levels")
            )

    no_skill = _no_skill(series, query, collection_size)
    if no_skill is None:
        # An invisible entry: the legend says why the line is missing.
        (blank,) = ax.plot([], [], color=_NO_SKILL_COLOR, linestyle="--")
        handles.append((blank, "no-skill line not drawn: collection size N unknown"))
    else:
        value, text = no_skill
        line = ax.axhline(value, color=_NO_SKILL_COLOR, linestyle="--", linewidth=1.2)
        handles.append((line, text))

    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.set_aspect("equal")
    ax.grid(True, color="0.9", linewidth=0.8)
    ax.set_xlabel("Recall")
    ax.set_ylabel("Precision")
    subject = _subject(runs, query, "macro")
    ax.set_title(title or f"Precision-recall curve: {subject}")
    _legend_below(ax, [h for h, _ in handles], [lbl for _, lbl in handles], ncol=1)
    return fig


def curves_figure(
    curves_by_run: Mapping[str, Curves] | Curves,
    *,
    kind: PlotKind = "tradeoff",
    query: str | None = None,
    collection_size: int | None = None,
) -> Figure:
    """The trade-off plot, the precision-recall curve, or both side by side (``kind``).

    This is what ``prfeval curve --plot FILE --plot-kind KIND`` draws; see
    :func:`tradeoff_figure` and :func:`pr_curve_figure`.
    """
    if kind not in ("tradeoff", "pr", "both"):
        raise UsageError(f"the plot kind must be tradeoff, pr or both, got {kind!r}")
    if kind == "tradeoff":
        return tradeoff_figure(curves_by_run, query=query)
    if kind == "pr":
        return pr_curve_figure(curves_by_run, query=query, collection_size=collection_size)
    plt = pyplot()
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(14.0, 6.6), layout="constrained", width_ratios=(1.25, 1.0)
    )
    tradeoff_figure(curves_by_run, query=query, ax=left)
    pr_curve_figure(curves_by_run, query=query, collection_size=collection_size, ax=right)
    return fig


def _roc_axes(ax: Axes, curves: Mapping[str, ThresholdSweep]) -> None:
    """ROC curves (TPR against FPR, from (0, 0)) with the chance diagonal."""
    entries: list[tuple[Any, str]] = []  # given in full: a class named "_x" stays in
    for i, (name, sweep) in enumerate(curves.items()):
        fpr = np.concatenate([[0.0], sweep.fpr])
        tpr = np.concatenate([[0.0], sweep.recall])
        auc = f"AUC = {sweep.roc_auc:.3f}"
        label = f"{plain(name)}: {auc}" if name else auc
        (line,) = ax.plot(fpr, tpr, color=_CLASS_COLORS[i % len(_CLASS_COLORS)], lw=1.4,
                          label=label)
        entries.append((line, label))
    (chance,) = ax.plot([0, 1], [0, 1], color=_NO_SKILL_COLOR, ls=":", lw=1.2,
                        label="no skill: AUC = 0.5")
    entries.append((chance, "no skill: AUC = 0.5"))
    ax.set(xlim=(0, 1.02), ylim=(0, 1.02), xlabel="False positive rate (fallout)",
           ylabel="True positive rate (recall)", title="ROC curve")
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)
    ax.legend([h for h, _ in entries], [text for _, text in entries], fontsize=8,
              loc="lower right")


def sweep_figure(sweep: ThresholdSweep, *, title: str | None = None) -> Figure:
    """A classifier's threshold sweep (:func:`prfeval.threshold_sweep`), drawn as the curves
    of a ranking are: the precision-recall curve (raw and interpolated) with the no-skill line
    at the prevalence, the ROC curve beside it, and precision, recall and F_beta against the
    threshold.

    The best-F_beta threshold is marked in the PR and threshold panels. Interpolated
    precision at a point is the highest precision at any threshold whose recall is at least
    as high (as IPrec). The legends give average precision and ROC AUC, as scikit-learn's
    ``average_precision_score`` and ``roc_auc_score`` compute them.
    """
    plt = pyplot()
    fig, (pr_ax, roc_ax, t_ax) = plt.subplots(1, 3, figsize=(16.5, 5.0), layout="constrained")
    best = sweep.best_index
    flabel = f_label(sweep.beta)
    # Running maximum from the low-threshold end: recall only grows as the threshold falls.
    interpolated = np.maximum.accumulate(sweep.precision[::-1])[::-1]
    pr_ax.plot(sweep.recall, sweep.precision, color=_CLASS_COLORS[0], lw=1.2,
               label=f"raw: AP = {sweep.average_precision:.3f}")
    pr_ax.step(sweep.recall, interpolated, where="post", color=_CLASS_COLORS[0], lw=1.2,
               ls="--", label="interpolated")
    pr_ax.axhline(sweep.no_skill_precision, color=_NO_SKILL_COLOR, ls=":", lw=1.2,
                  label=f"no skill: prevalence = {sweep.no_skill_precision:.3g}")
    pr_ax.plot(sweep.recall[best], sweep.precision[best], marker="*", ms=14,
               color=_MEASURE_COLORS["f"], mec="black", ls="none",
               label=f"best {flabel} = {sweep.f[best]:.3f}")
    pr_ax.set(xlim=(0, 1.02), ylim=(0, 1.02), xlabel="Recall", ylabel="Precision",
              title="Precision-recall curve")
    pr_ax.grid(alpha=0.3)
    pr_ax.legend(fontsize=8, loc="lower left")
    _roc_axes(roc_ax, {"": sweep})
    for name, values in (("precision", sweep.precision), ("recall", sweep.recall),
                         ("f", sweep.f)):
        label = flabel if name == "f" else name.capitalize()
        t_ax.plot(sweep.thresholds, values, color=_MEASURE_COLORS[name], lw=1.4, label=label)
    t_ax.axvline(sweep.thresholds[best], color="0.3", ls="--", lw=1,
                 label=f"best threshold = {sweep.thresholds[best]:.4g}")
    t_ax.set(xlabel="Threshold: positive when score >= threshold", ylabel="Value",
             ylim=(0, 1.02), title=f"Precision, recall and {flabel} by threshold")
    t_ax.invert_xaxis()  # high thresholds first: the order a ranking is read in
    t_ax.grid(alpha=0.3)
    t_ax.legend(fontsize=8, loc="best")
    fig.suptitle(title or f"Threshold sweep, positive class {plain(repr(sweep.pos_label))}")
    return fig


def scores_figure(scores: ScoreMeasures, *, title: str | None = None) -> Figure:
    """Each class's precision-recall and ROC curves, the class against the rest, side by side
    (:func:`prfeval._classification.scores.score_measures` with several classes)."""
    plt = pyplot()
    fig, (pr_ax, roc_ax) = plt.subplots(1, 2, figsize=(11.5, 5.4), layout="constrained")
    entries: list[tuple[Any, str]] = []  # given in full: a class named "_x" stays in
    for i, (label, sweep) in enumerate(scores.sweeps.items()):
        color = _CLASS_COLORS[i % len(_CLASS_COLORS)]
        text = f"{plain(label)}: AP = {sweep.average_precision:.3f}"
        (line,) = pr_ax.plot(sweep.recall, sweep.precision, color=color, lw=1.3, label=text)
        entries.append((line, text))
    pr_ax.set(xlim=(0, 1.02), ylim=(0, 1.02), xlabel="Recall", ylabel="Precision",
              title="Precision-recall curves, each class against the rest")
    pr_ax.set_aspect("equal")
    pr_ax.grid(alpha=0.3)
    pr_ax.legend([h for h, _ in entries], [text for _, text in entries], fontsize=8,
                 loc="lower left")
    _roc_axes(roc_ax, {str(k): v for k, v in scores.sweeps.items()})
    roc_ax.set_title("ROC curves, each class against the rest")
    macro = scores.macro or {}
    fig.suptitle(
        title
        or f"{len(scores.labels)} classes: macro AP = {macro.get('average_precision', 0):.3f}, "
        f"macro ROC AUC = {macro.get('roc_auc', 0):.3f}"
    )
    return fig
