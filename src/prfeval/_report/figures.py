"""A study's figures, as the HTML page holds them: drawn here, or in a second process while
this one measures the runs and writes the rest of the page.

Drawing takes matplotlib, whose import and four figures cost some 0.5 s; the measuring uses
little more than one core. :class:`FigureDrawer` starts a process at once, which imports
matplotlib while the runs are read, then draws the figures from the study (pickled without
its explanations, which the figures do not read) while the caller builds the drill-down.
Where no process can be started, or it fails, the figures are drawn here: the page is the
same byte for byte.

The figures are the plot functions' own, resized for a page that may be read on a phone:
narrower, with larger text and one legend below, in one column (``_for_the_page``). Each run
has its colour, :func:`~prfeval._plots.figures.run_color` of its position in the study, in
every figure as in the page's tables.
"""

from __future__ import annotations

import contextlib
import html
import pickle
import signal
import threading
from dataclasses import replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import TracebackType
from typing import TYPE_CHECKING

from prfeval._comparison.study import Study

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure

__all__ = ["CONTOUR_K", "FigureDrawer", "figure_html", "study_figures"]

#: The cutoff at which each run is placed on the F contours (its macro P@k and R@k).
CONTOUR_K = 10

# The figures are drawn for a page read on anything from a phone to a wide screen. An SVG
# scales to the width it is given, its text with it: drawn 5 in (360 pt, 480 CSS px) wide, a
# figure shown across a phone's 360 CSS px keeps 3/4 of its size, one CSS px per point, so a
# legend of 10.5 pt is 10.5 px there; on a wide screen two figures sit side by side at their
# own size (never larger).
_PAGE_WIDTH = 5.0  # inches
_LEGEND_PT = 10.5
_TEXT_PT = 10.0  # ticks, axis labels, annotations
_TITLE_PT = 11.5
_QUERY_ID_PT = 8.0  # the difference plot's query ids, up to 40 side by side
_ROW_IN = 1.45 * _LEGEND_PT / 72  # one legend row, in inches


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def study_figures(s: Study) -> str:
    """The figures section of a study's page: the trade-off at every cutoff, the PR curve,
    the F contours with each run placed, and the per-query differences."""
    from prfeval._plots.compare import difference_figure
    from prfeval._plots.contours import contour_figure
    from prfeval._plots.curves import pr_curve_figure, tradeoff_figure
    from prfeval._plots.figures import run_color, svg_text

    c = s.comparison
    curves = {r.name: r.curves for r in s.runs}  # in the study's order: run i, run_color(i)
    n_curve = s.runs[0].curves.macro.n_queries
    beta = float(s.provenance.get("beta", 1.0))
    f_name = "F" if beta == 1 else f"F{beta:g}"
    parts = []
    fig = _for_the_page(tradeoff_figure(curves), 3.9)
    parts.append(
        figure_html(
            svg_text(fig, salt="tradeoff"),
            f"Precision, recall and {f_name} at every cutoff k (log axis), the mean over the "
            f"{n_curve} judged queries at each k (macro; a query shorter than k keeps its last "
            f"TP, and a query a run did not answer counts as empty): mean {f_name}, not the F "
            "of mean P, R. The best k of each run is marked.",
        )
    )
    fig = _for_the_page(
        pr_curve_figure(curves, collection_size=c.settings.get("collection_size")), 4.8
    )
    parts.append(
        figure_html(
            svg_text(fig, salt="pr"),
            "Precision against recall, the mean over queries at each k (macro), and the "
            "11-point interpolated precision (the mean over queries of trec_eval's "
            "iprec_at_recall).",
        )
    )
    points = {}
    for r in s.runs:
        m = r.curves.macro
        if m.k.size >= CONTOUR_K:
            points[r.name] = (float(m.precision[CONTOUR_K - 1]), float(m.recall[CONTOUR_K - 1]))
    if points:
        # Only the runs long enough are placed: each keeps its own colour all the same.
        colors = {r.name: run_color(i) for i, r in enumerate(s.runs)}
        fig = _for_the_page(
            contour_figure([beta], points=points, of_means=True, colors=colors), 4.8
        )
        parts.append(
            figure_html(
                svg_text(fig, salt="contours"),
                f"Contours of {f_name} over precision and recall, each run placed at its macro "
                f"P@{CONTOUR_K} and R@{CONTOUR_K}; its legend value is the {f_name} of those "
                f"mean P and R, not the mean {f_name} over queries.",
            )
        )
    testable = [
        label for label, m in zip(c.labels, c.measures, strict=True) if m.definition.direction != 0
    ]
    if len(c.runs) > 1 and testable:
        fig = _for_the_page(difference_figure(c, testable[0]), 2.7 * (len(c.runs) - 1))
        for ax in fig.axes:  # the query ids, side by side: smaller than the rest
            ax.tick_params(axis="x", labelsize=_QUERY_ID_PT)
        parts.append(
            figure_html(
                svg_text(fig, salt="differences"),
                f"Per-query differences in {testable[0]} from the baseline {c.baseline}, "
                "sorted; each bar is one query's value in the run minus the baseline's.",
            )
        )
    return (
        '<section id="figures"><h2>Figures</h2><div class="figures">'
        + "".join(parts)
        + "</div></section>"
    )


def _for_the_page(fig: Figure, height: float) -> Figure:
    """``fig`` resized and its text set for the page (see ``_PAGE_WIDTH``): ``height``
    inches for the axes and their labels, and below them one legend of every axes' entries,
    in one column (several columns would not fit a phone's width at a legible size).

    A long title wraps at the figure's width rather than widening the figure, which would
    make all of its text smaller on the page.
    """
    from matplotlib.text import Text

    handles: list[Artist] = []
    labels: list[str] = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None:
            for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
                if handle is not None and text.get_text():  # not the blank padding
                    handles.append(handle)
                    labels.append(text.get_text())
            legend.remove()
        ax.tick_params(labelsize=_TEXT_PT)
        ax.xaxis.label.set_fontsize(_TEXT_PT)
        ax.yaxis.label.set_fontsize(_TEXT_PT)
        titles = {ax.get_title(loc) for loc in ("left", "center", "right")} - {""}
        for child in ax.get_children():
            if isinstance(child, Text) and child.get_text() in titles:
                child.set_fontsize(max(child.get_fontsize(), _TITLE_PT))
                child.set_wrap(True)
        for text in ax.texts:  # annotations: contour levels, point names, the best k
            text.set_fontsize(max(text.get_fontsize(), _TEXT_PT))
    fig.set_size_inches(_PAGE_WIDTH, height + len(labels) * _ROW_IN)
    fig.set_layout_engine("constrained")
    if labels:
        fig.legend(handles, labels, loc="outside lower center", ncols=1, fontsize=_LEGEND_PT,
                   frameon=False)
    return fig


def figure_html(svg: str, caption: str, *, small: bool = False) -> str:
    """A figure element: the SVG and its caption."""
    klass = ' class="small"' if small else ""
    return f"<figure{klass}>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


class _Drawn:
    """The figures of one study: from the drawing process, or drawn here if it failed."""

    def __init__(self, connection: Connection | None, study: Study) -> None:
        self._connection = connection
        self._study = study

    def result(self) -> str:
        if self._connection is not None:
            try:
                drawn = self._connection.recv()
            except (EOFError, OSError):  # the process died
                drawn = None
            finally:
                self._connection.close()
                self._connection = None
            if isinstance(drawn, str):
                return drawn
        # The process could not take the study, or drawing failed there: draw here, which
        # gives the same figures, or raises the same error from here.
        return study_figures(self._study)


def _serve(connection: Connection) -> None:
    """The drawing process: Ctrl-C is the caller's to handle; matplotlib and the figure
    modules are imported, and a first small figure drawn (fonts loaded, text laid out),
    before the study arrives; then its figures go back as HTML (``None`` if they fail)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from prfeval._core.errors import UsageError

    with contextlib.suppress(UsageError):  # no matplotlib: the caller's drawing says so
        from prfeval._plots import compare, contours, curves  # noqa: F401  (imported early)
        from prfeval._plots.figures import pyplot, svg_text

        fig, ax = pyplot().subplots(figsize=(2, 2), layout="constrained")
        ax.plot([0, 1], [0, 1], label="warm-up")
        ax.set_xscale("log")
        ax.legend()
        svg_text(fig, salt="warm-up")
    try:
        study = connection.recv()
    except EOFError:  # the caller needs no figures after all
        return
    try:
        drawn: str | None = study_figures(study)
    except Exception:  # the caller draws again, and reports the error
        drawn = None
    connection.send(drawn)


class FigureDrawer:
    """A second process that draws a study's figures (see the module docstring).

    Use as a context manager around the study's measuring and rendering::

        with FigureDrawer() as drawer:
            s = study(...)
            page = render_study(s, drawer=drawer)

    Leaving it on an error stops the process at once.
    """

    def __init__(self) -> None:
        import multiprocessing

        self._process: BaseProcess | None = None
        self._connection: Connection | None = None
        try:
            # spawn, not fork: the caller's threads (Arrow's, the reader's) stay its own.
            context = multiprocessing.get_context("spawn")
            here, there = context.Pipe()
            process = context.Process(
                target=_serve, args=(there,), name="prfeval-figures", daemon=True
            )
            process.start()
            there.close()
        except (OSError, RuntimeError, ValueError):
            return
        self._process, self._connection = process, here

    def draw(self, study: Study) -> _Drawn:
        """Start drawing ``study``'s figures; ``.result()`` gives the section's HTML."""
        connection, self._connection = self._connection, None  # one study per process
        if connection is None:
            return _Drawn(None, study)
        slim = replace(study, runs=tuple(replace(r, explanations={}) for r in study.runs))
        try:
            payload = pickle.dumps(slim)
        except Exception:  # a study that does not pickle is drawn here
            connection.close()
            return _Drawn(None, study)
        # Sent from a thread: the pipe holds 64 KiB, and the process may still be starting.
        threading.Thread(
            target=_send, args=(connection, payload), name="prfeval-figures-send", daemon=True
        ).start()
        return _Drawn(connection, study)

    def close(self, *, failed: bool = False) -> None:
        """Let the process end; stop it at once when the caller ``failed``."""
        if self._connection is not None:
            self._connection.close()  # no study will come
            self._connection = None
        if self._process is not None:
            if failed:
                self._process.terminate()
            self._process.join(5)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
            self._process = None

    def __enter__(self) -> FigureDrawer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close(failed=error is not None)


def _send(connection: Connection, payload: bytes) -> None:
    with contextlib.suppress(OSError):  # the process died: result() draws here
        connection.send_bytes(payload)
