"""Figures of prfeval's results, for notebooks and scripts.

Each function takes a result (:func:`prfeval.curve`'s curves, :func:`prfeval.compare`'s
comparison, a threshold sweep, a score summary) and returns a matplotlib
:class:`~matplotlib.figure.Figure`, drawn once: the figure is released from pyplot's list of
open figures before it is returned, so a notebook shows it once (as the cell's value), not a
second time when the cell ends; ``fig.savefig(...)`` saves it. matplotlib is imported only
when a figure is drawn (``pip install 'prfeval[plot]'``).

>>> import prfeval
>>> c = prfeval.curve({"q": {"a": 1, "b": 1}}, {"q": ["a", "x", "b"]})
>>> fig = prfeval.plot.tradeoff(c)
>>> type(fig).__name__, fig.axes[0].get_xlabel()
('Figure', 'k, documents retrieved (log scale)')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from prfeval._classification.scores import ScoreMeasures
    from prfeval._classification.thresholds import ThresholdSweep
    from prfeval._comparison.results import Comparison
    from prfeval._retrieval.curve_result import Curves

__all__ = ["contours", "curve", "differences", "pr_curve", "scores", "thresholds", "tradeoff"]


def _once(fig: Figure) -> Figure:
    """``fig``, released from pyplot's open figures: shown once in a notebook, as the value
    returned, and never again by the inline backend at the end of the cell."""
    from prfeval._plots.figures import pyplot

    pyplot().close(fig)
    return fig


def tradeoff(curves: Mapping[str, Curves] | Curves, *, query: str | None = None,
             average: Literal["macro", "micro"] = "macro", log_x: bool = True,
             title: str | None = None) -> Figure:
    """Precision, recall and F against the cutoff k, for one query or the ``average`` over
    queries, several runs overlaid (Manning, Raghavan and Schütze 2008, §8.3). What
    ``prfeval curve --plot FILE`` draws; see :func:`prfeval._plots.curves.tradeoff_figure`."""
    from prfeval._plots.curves import tradeoff_figure

    return _once(tradeoff_figure(curves, query=query, average=average, log_x=log_x,
                                 title=title))


def pr_curve(curves: Mapping[str, Curves] | Curves, *, query: str | None = None,
             interpolated: bool = True, raw: bool = True, collection_size: int | None = None,
             title: str | None = None) -> Figure:
    """The precision-recall curve, raw and interpolated (trec_eval's), several runs
    overlaid, with the no-skill line when the ``collection_size`` is given."""
    from prfeval._plots.curves import pr_curve_figure

    return _once(pr_curve_figure(curves, query=query, interpolated=interpolated, raw=raw,
                                 collection_size=collection_size, title=title))


def curve(curves: Mapping[str, Curves] | Curves, *,
          kind: Literal["tradeoff", "pr", "both"] = "tradeoff", query: str | None = None,
          collection_size: int | None = None) -> Figure:
    """The trade-off plot, the precision-recall curve, or both side by side (``kind``)."""
    from prfeval._plots.curves import curves_figure

    return _once(curves_figure(curves, kind=kind, query=query,
                               collection_size=collection_size))


def differences(comparison: Comparison, measure: str | None = None, *,
                runs: Sequence[str] | None = None, title: str | None = None) -> Figure:
    """Each query's difference from the baseline, sorted, one panel per run: where a run
    wins and loses, not only its mean."""
    from prfeval._plots.compare import difference_figure

    return _once(difference_figure(comparison, measure, runs=runs, title=title))


def contours(betas: Iterable[float] = (1.0,), *, means: bool = False,
             points: Mapping[str, tuple[float, float]] | None = None, **options: Any) -> Figure:
    """Contours of F_beta over the precision-recall square, one panel per beta, with
    ``points`` (name -> (P, R)) placed on them."""
    from prfeval._plots.contours import contour_figure

    return _once(contour_figure(betas, means=means, points=points, **options))


def thresholds(sweep: ThresholdSweep, *, title: str | None = None) -> Figure:
    """Precision, recall and F of a classifier at every threshold of its scores."""
    from prfeval._plots.curves import sweep_figure

    return _once(sweep_figure(sweep, title=title))


def scores(measures: ScoreMeasures, *, title: str | None = None) -> Figure:
    """The precision-recall and ROC curves of a classifier's scores."""
    from prfeval._plots.curves import scores_figure

    return _once(scores_figure(measures, title=title))
