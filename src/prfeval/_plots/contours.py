"""Figures of precision, recall and the F measure (matplotlib, imported only when drawing).

Every figure function returns a :class:`matplotlib.figure.Figure`;
:func:`~prfeval._plots.figures.save_figure` writes it as PNG or SVG.

Figures so far:

* :func:`contour_figure` -- contours of F_beta (and optionally of the arithmetic and geometric
  means) over the precision-recall square, with systems as points: as contours, the
  comparison of F with the other means that Manning, Raghavan and Schütze (2008, §8.3) make.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.checks import beta as check_beta
from prfeval._core.counts import f_from_pr
from prfeval._core.errors import UsageError
from prfeval._core.means import (
    means_table,
    precision_on_f_contour,
    recall_on_f_contour,
    recall_on_mean_contour,
)
from prfeval._plots.figures import f_label, plain, pyplot, run_color

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["DEFAULT_LEVELS", "contour_figure"]

FloatArray = npt.NDArray[np.float64]

#: The contour levels drawn by default: 0.1 to 0.9.
DEFAULT_LEVELS: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)

# Points cycle through these markers, and take the runs' colours (run_color, which has no
# blue: they stand apart from the contours).
_POINT_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_CONTOUR_COLOR = "#35618f"
# Points closer than this (in the unit square) are named in the legend only.
_CROWDED = 0.12
_PANEL_SIZE = 4.0  # inches per panel: readable at the default dpi with 9 labelled contours












def _line_label(beta: float) -> str:
    """``R = 2P`` style text of the indifference line (``R = P`` for beta = 1)."""
    return "R = P" if beta == 1.0 else f"R = {beta:g}P"


@dataclass(frozen=True)
class _Panel:
    """What one contour panel draws: its measure, contours and guide line."""

    title: str
    value_name: str
    value: Callable[[FloatArray, FloatArray], FloatArray]
    recall_at: Callable[[FloatArray, float], FloatArray]
    precision_at: Callable[[FloatArray, float], FloatArray]
    guide_slope: float
    guide_label: str
    guide_style: str


def _f_panel(beta: float) -> _Panel:
    name = f_label(beta)
    return _Panel(
        title=f"{name} contours",
        value_name=name,
        value=lambda p, r: f_from_pr(p, r, beta),
        recall_at=lambda p, c: recall_on_f_contour(p, c, beta),
        precision_at=lambda r, c: precision_on_f_contour(r, c, beta),
        guide_slope=beta,
        guide_label=f"indifference line {_line_label(beta)}",
        guide_style="--",
    )


def _mean_panels() -> list[_Panel]:
    # Both means are symmetric in P and R, so the same function gives P from R.
    return [
        _Panel(
            title="Arithmetic mean contours",
            value_name="(P+R)/2",
            value=lambda p, r: (p + r) / 2.0,
            recall_at=lambda p, c: recall_on_mean_contour(p, c, "arithmetic"),
            precision_at=lambda r, c: recall_on_mean_contour(r, c, "arithmetic"),
            guide_slope=1.0,
            guide_label="R = P: every mean equal",
            guide_style=":",
        ),
        _Panel(
            title="Geometric mean contours",
            value_name="√(PR)",
            value=lambda p, r: np.sqrt(p * r),
            recall_at=lambda p, c: recall_on_mean_contour(p, c, "geometric"),
            precision_at=lambda r, c: recall_on_mean_contour(r, c, "geometric"),
            guide_slope=1.0,
            guide_label="R = P: every mean equal",
            guide_style=":",
        ),
    ]


def _contour_path(panel: _Panel, c: float, n: int = 256) -> tuple[FloatArray, FloatArray]:
    """The part of the contour ``value = c`` inside the square, as a polyline ordered by P.

    The curve is sampled along both axes and the samples merged: a P grid alone leaves gaps
    where the curve is nearly vertical, an R grid where it is nearly horizontal.
    """
    grid = np.linspace(0.0, 1.0, n)
    p = np.concatenate([grid, panel.precision_at(grid, c)])
    r = np.concatenate([panel.recall_at(grid, c), grid])
    keep = ~(np.isnan(p) | np.isnan(r))
    p, r = p[keep], r[keep]
    # Every contour here falls as P grows: order by P, ties by falling R.
    order = np.lexsort((-r, p))
    p, r = p[order], r[order]
    # Both grids can hit the same point (up to rounding) where a grid value lies on the
    # curve; keep it once, or the polyline zigzags at the scale of a rounding error.
    fresh = np.concatenate([[True], np.hypot(np.diff(p), np.diff(r)) > 1e-9])
    return p[fresh], r[fresh]


def _arc_midpoint(p: FloatArray, r: FloatArray) -> tuple[float, float]:
    """The point halfway along a polyline by arc length (where its label goes)."""
    if p.size == 1:
        return float(p[0]), float(r[0])
    cumulative = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(p), np.diff(r)))])
    half = cumulative[-1] / 2.0
    return float(np.interp(half, cumulative, p)), float(np.interp(half, cumulative, r))


def _draw_panel(
    ax: Axes,
    panel: _Panel,
    levels: Sequence[float],
    points: Mapping[str, tuple[float, float]],
    of_means: bool = False,
    colors: Mapping[str, str] | None = None,
) -> None:
    # The legend's entries, given to it in full: matplotlib would leave out a label that
    # starts with "_" (a point named _baseline) if it collected them itself.
    entries: list[tuple[Any, str]] = []
    for i, c in enumerate(levels):
        p, r = _contour_path(panel, c)
        if p.size == 0:
            continue
        label = f"{panel.value_name} = {levels[0]:g} … {levels[-1]:g}" if i == 0 else None
        (line,) = ax.plot(p, r, color=_CONTOUR_COLOR, linewidth=1.0, label=label)
        if label is not None:
            entries.append((line, label))
        x, y = _arc_midpoint(p, r)
        ax.text(
            x,
            y,
            f"{c:g}",
            fontsize=8,
            color=_CONTOUR_COLOR,
            ha="center",
            va="center",
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"},
        )
    # The guide line, clipped to the square: R = slope * P reaches R = 1 at P = 1 / slope.
    p_end = min(1.0, 1.0 / panel.guide_slope)
    guide_p = np.linspace(0.0, p_end, 50)
    (guide,) = ax.plot(
        guide_p,
        panel.guide_slope * guide_p,
        linestyle=panel.guide_style,
        color="0.35",
        linewidth=1.2,
        label=panel.guide_label,
    )
    entries.append((guide, panel.guide_label))
    coords = np.array(list(points.values()), dtype=np.float64).reshape(-1, 2)
    gaps = np.hypot(*(coords[:, None, :] - coords[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(gaps, np.inf)
    for i, ((name, (pp, rr)), marker) in enumerate(
        zip(points.items(), itertools.cycle(_POINT_MARKERS))
    ):
        color = colors[name] if colors and name in colors else run_color(i)
        at_p, at_r = np.asarray(pp, dtype=np.float64), np.asarray(rr, dtype=np.float64)
        value = float(panel.value(at_p, at_r))
        (point,) = ax.plot(
            [pp],
            [rr],
            marker=marker,
            color=color,
            markersize=8,
            linestyle="none",
            markeredgecolor="black",
            markeredgewidth=0.6,
            zorder=5,
            clip_on=False,
            label=f"{plain(name)} ({pp:.3g}, {rr:.3g}): {panel.value_name}"
            f"{' of mean P, R' if of_means else ''} = {value:.3f}",
        )
        entries.append((point, str(point.get_label())))
        if gaps[i].min() < _CROWDED:
            continue  # names of points this close would overlap: the legend names them
        # Keep each name inside the square: left of a point near the right edge, below a
        # point near the top (where it would otherwise run into the title).
        dx = -6 if pp > 0.75 else 6
        dy = -6 if rr > 0.9 else 6
        ax.annotate(
            plain(name),
            (pp, rr),
            xytext=(dx, dy),
            textcoords="offset points",
            fontsize=9,
            ha="right" if dx < 0 else "left",
            va="top" if dy < 0 else "bottom",
            color=color,
            fontweight="bold",
            zorder=6,
        )
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    ax.set_xticks(np.linspace(0.0, 1.0, 6))
    ax.set_yticks(np.linspace(0.0, 1.0, 6))
    ax.set_xlabel("Precision")
    ax.set_ylabel("Recall")
    ax.set_title(panel.title)
    # Below the axes, so it hides no contour.
    ax.legend(
        [h for h, _ in entries], [text for _, text in entries], loc="upper center",
        bbox_to_anchor=(0.5, -0.14), fontsize=8, frameon=False,
    )


def contour_figure(
    betas: Iterable[float] = (1.0,),
    *,
    means: bool = False,
    points: Mapping[str, tuple[float, float]] | None = None,
    levels: Sequence[float] = DEFAULT_LEVELS,
    of_means: bool = False,
    colors: Mapping[str, str] | None = None,
) -> Figure:
    """Contours of F_beta over the precision-recall square, one panel per beta.

    Parameters
    ----------
    betas
        One panel per value, in order: the contours of ``F_beta = c`` for each level c, the
        dashed indifference line ``R = beta P`` (where each contour bends most sharply) and
        the points.
    means
        Put panels for the arithmetic mean ``(P + R)/2`` and the geometric mean
        ``sqrt(P R)`` first, to show why F is a harmonic mean (Manning, Raghavan and
        Schütze 2008, §8.3: the arithmetic mean rewards retrieving everything), with the dotted
        diagonal ``R = P`` on which every mean takes the same value.
    points
        Systems to mark, ``name -> (precision, recall)``, e.g.
        ``{"System A": (0.48, 0.80), "System B": (0.75, 0.40)}``. Each panel's
        legend gives each system's value of that panel's measure.
    levels
        The contour levels, each in (0, 1]; 0.1 to 0.9 by default.
    of_means
        The points are averages (mean precision and mean recall over queries or classes):
        the legends then say that a point's F is the "F₁ of mean P, R", which is neither the
        mean F₁ nor the micro F₁.
    colors
        A point's colour by its name, for points that are some of a study's runs (the HTML
        report gives each run's own); by default, and for a name not in it, the point's
        position in ``points`` picks it (:func:`~prfeval._plots.figures.run_color`).

    Returns
    -------
    matplotlib.figure.Figure
        One row of square panels with P on the x axis and R on the y axis; titles such as
        ``"F₂ contours"``; axes labelled "Precision" and "Recall".

    Raises
    ------
    UsageError
        If a beta is not a positive finite number, a level is not in (0, 1], a point is not
        in the unit square, there is nothing to draw, or matplotlib is not installed.

    Notes
    -----
    ``F_beta = c`` is the hyperbola ``R = c b^2 P / ((1 + b^2) P - c)``, with asymptotes
    ``P = c / (1 + b^2)`` and ``R = c b^2 / (1 + b^2)`` (see :mod:`prfeval._core.means`). Each
    contour is labelled with its level halfway along its visible part, which for beta = 1 is
    its vertex. The figure is created with pyplot, so ``plt.show()`` displays it; close it
    (or save it with ``close=True``) when drawing many in a loop.

    Examples
    --------
    >>> fig = contour_figure([0.5, 2.0], points={"example": (0.4, 0.8)})  # doctest: +SKIP
    >>> save_figure(fig, "contours.png")  # doctest: +SKIP
    """
    beta_values = [check_beta(b, positive=True) for b in betas]
    level_values = [float(c) for c in levels]
    if not level_values:
        raise UsageError("give at least one contour level")
    for c in level_values:
        if not 0.0 < c <= 1.0:
            raise UsageError(f"a contour level must be in (0, 1], got {c:g}")
    # means_table checks every point lies in the unit square.
    table = means_table(dict(points or {}))
    checked = {
        str(name): (float(p), float(r))
        for name, p, r in zip(table.labels, table.precision, table.recall, strict=True)
    }
    panels = (_mean_panels() if means else []) + [_f_panel(b) for b in beta_values]
    if not panels:
        raise UsageError("nothing to draw: give at least one beta, or means=True")

    plt = pyplot()
    n_legend = 2 + len(checked)  # contours, guide line, one row per point
    fig, axes = plt.subplots(
        1,
        len(panels),
        squeeze=False,
        layout="constrained",
        figsize=(_PANEL_SIZE * len(panels), _PANEL_SIZE + 0.45 + 0.19 * n_legend),
    )
    for ax, panel in zip(axes[0], panels, strict=True):
        _draw_panel(
            ax, panel, level_values, checked, of_means and panel.value_name[0] == "F",
            {str(k): v for k, v in colors.items()} if colors else None,
        )
    return fig
