"""The "who won where" picture: per-query differences from the baseline, sorted, as bars.

One panel per run compared with the baseline. Each bar is one query's ``run - baseline``
value of a measure; bars are sorted from the largest gain to the largest loss, coloured by
whether the run is better (green), equal (grey) or worse (red) there. A mean difference can
hide a handful of large wins over many small losses, or the reverse: this plot shows which.
matplotlib is imported only when drawing (the ``plot`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from prfeval._core.errors import UsageError
from prfeval._plots.figures import plain, pyplot, run_color

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from prfeval._comparison.results import Comparison

__all__ = ["difference_figure"]

_COLORS = {"win": "tab:green", "tie": "0.6", "loss": "tab:red"}
_BARS = 300  # beyond this many queries the differences are drawn as filled steps
_LABELLED_QUERIES = 40  # above this many bars, query ids on the axis would overlap


def difference_figure(
    comparison: Comparison,
    measure: str | None = None,
    *,
    runs: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    """Bar plot of per-query differences from the baseline, sorted, one panel per run.

    Parameters
    ----------
    comparison
        The result of :func:`prfeval.compare`.
    measure
        The measure's label; default the first measure that is not a count.
    runs
        The runs to draw (each against the baseline); default every run but the baseline.
    title
        The figure's title; default none (each panel names its run and measure).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Bars are sorted by difference, largest first (ties in query order); for measures where
    lower is better (SetE, Fallout) a win is a negative difference and is still green. With
    more than 40 queries the query ids are left off the axis. Each panel's title, in the run's
    colour (:func:`~prfeval._plots.figures.run_color`), gives the wins, ties and losses and the
    mean difference with its bootstrap interval.
    """

    labels = comparison.labels
    if measure is None:
        testable = [str(m) for m in comparison.measures if m.definition.direction != 0]
        if not testable:
            raise UsageError("no measure to plot: counts have no per-query winner")
        measure = testable[0]
    if measure not in labels:
        raise UsageError(f"{measure!r} is not a measure of this comparison: {', '.join(labels)}")
    m = comparison.measures[labels.index(measure)]
    sign = m.definition.direction
    if sign == 0:
        raise UsageError(f"{measure} is a count: it has no per-query winner to plot")
    shown = [r for r in comparison.runs if r != comparison.baseline] if runs is None else list(runs)
    for run in shown:
        if run not in comparison.runs or run == comparison.baseline:
            raise UsageError(
                f"{run!r} is not a run compared with the baseline {comparison.baseline}"
            )
    if not shown:
        raise UsageError("no run to plot against the baseline")

    plt = pyplot()
    n_q = len(comparison.query_ids)
    width = min(14.0, max(6.0, 0.18 * n_q + 2.0))
    fig, axes = plt.subplots(
        len(shown), 1, figsize=(width, 2.8 * len(shown)), squeeze=False, sharey=True
    )
    ids = np.array(comparison.query_ids, dtype=object)
    for ax, run in zip(axes[:, 0], shown, strict=True):
        d = comparison.differences(measure, run)
        order = np.argsort(-d, kind="stable")
        d_sorted = d[order]
        better = sign * d_sorted
        colors = np.where(
            better > 1e-12,
            _COLORS["win"],
            np.where(better < -1e-12, _COLORS["loss"], _COLORS["tie"]),
        )
        x = np.arange(n_q)
        tied = np.abs(d_sorted) <= 1e-12
        if n_q <= _BARS:
            ax.bar(x, d_sorted, width=0.85, color=colors, linewidth=0)
            # A tie is a bar of height 0: a dot on the axis keeps it visible and countable.
            ax.plot(x[tied], np.zeros(int(tied.sum())), "o", color=_COLORS["tie"], markersize=3)
        else:
            # Too many queries for a bar each (and thousands of patches to draw): the same
            # sorted values as filled steps, wins and losses in their colours.
            edges = np.arange(n_q + 1) - 0.5
            heights = np.append(d_sorted, d_sorted[-1])
            sides = [
                (np.append(where, where[-1]), color)
                for where, color in (
                    (better > 1e-12, _COLORS["win"]),
                    (better < -1e-12, _COLORS["loss"]),
                )
            ]
            # An edge inside a run of equal heights, with the same colour on both sides, adds
            # nothing to the steps: dropped, the same picture takes a fraction of the page
            # (a run of ties, or of equal values of P@k, is one step, not thousands).
            keep = np.ones(n_q + 1, dtype=bool)
            keep[1:-1] = heights[1:-1] != heights[:-2]
            for where, _ in sides:
                keep[1:-1] |= (where[1:-1] != where[:-2]) | (where[1:-1] != where[2:])
            for where, color in sides:
                ax.fill_between(
                    edges[keep], heights[keep], 0.0, where=where[keep], step="post",
                    color=color, linewidth=0,
                )
        ax.axhline(0.0, color="black", linewidth=0.8)
        row = comparison.row(measure, run)
        interval = (
            f", {comparison.settings['confidence']:.0%} CI [{row.ci_low:+.3f}, {row.ci_high:+.3f}]"
        )
        ax.set_title(
            f"{plain(measure)}: {plain(run)} − {plain(comparison.baseline)} per query: "
            f"{row.wins} better, {row.ties} tied, {row.losses} worse; "
            f"mean {row.delta:+.3f}{interval}",
            fontsize=9,
            loc="left",
            # In the run's colour (by its position in the comparison), as everywhere else.
            color=run_color(comparison.runs.index(run)),
        )
        ax.set_ylabel(f"Δ {plain(measure)}")
        ax.set_xlim(-0.6, n_q - 0.4)
        if n_q <= _LABELLED_QUERIES:
            ax.set_xticks(x)
            ax.set_xticklabels([plain(q) for q in ids[order]], rotation=90, fontsize=7)
        else:
            ax.set_xticks([])
        ax.grid(axis="y", linewidth=0.4, alpha=0.5)
    axes[-1, 0].set_xlabel(f"queries ({n_q}), sorted by difference")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
