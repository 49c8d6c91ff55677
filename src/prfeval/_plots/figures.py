"""What every figure shares: matplotlib, imported only when drawing, and saving as PNG or SVG.

``import prfeval`` never imports matplotlib: each figure function asks :func:`pyplot` for it,
which also picks the non-interactive Agg backend on a machine with no display, and raises
:class:`~prfeval._core.errors.UsageError` with the install hint when matplotlib is missing.
:func:`save_figure` writes a figure as PNG or SVG. :func:`run_color` gives each run its one
colour, the same in every figure and in the HTML report's tables. :func:`plain` is how a
name the user chose (a run's file name, a query id, a class label) becomes figure text:
shown as it is, never read as mathtext. :func:`check_plot_file` checks a ``--plot FILE`` and
that matplotlib can be imported, before a command does any work.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prfeval._core.errors import PrfevalWarning, UsageError
from prfeval._core.extras import require
from prfeval._io.atomic import open_output

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "RUN_COLORS",
    "check_plot_file",
    "f_label",
    "figure_format",
    "plain",
    "pyplot",
    "run_color",
    "save_figure",
    "svg_text",
]

_FORMATS = {".png": "png", ".svg": "svg"}
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

#: The runs' colours, by position: purple, brown, magenta, teal, olive, slate. None is a
#: colour that means something else in a figure or the report: the trade-off plot's measures
#: (blue, orange, green), better and worse (green, red), the F contours (blue), no skill
#: (grey). Each is dark enough for text on white (contrast at least 4.5:1).
RUN_COLORS: tuple[str, ...] = ("#6a3d9a", "#8c510a", "#c51b7d", "#01665e", "#7a6a00", "#5b5b8f")


def _headless() -> bool:
    """True when no GUI can open a window (no X11/Wayland display on Linux and the like)."""
    if sys.platform in ("darwin", "win32"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _matplotlib() -> Any:
    """``import matplotlib``, or :class:`UsageError` with the install hint."""
    matplotlib = require("matplotlib", "plot", "plotting")
    return matplotlib


def pyplot() -> Any:
    """Import and return ``matplotlib.pyplot``, lazily, so ``import prfeval`` stays light.

    On a machine without a display, and unless the user already chose a backend (by
    ``MPLBACKEND`` or by importing pyplot first), select Agg so that drawing never tries to
    open a window. Raises :class:`UsageError` when matplotlib is not installed.
    """
    matplotlib = _matplotlib()
    if "matplotlib.pyplot" not in sys.modules and not os.environ.get("MPLBACKEND") and _headless():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figure_format(path: str | os.PathLike[str]) -> str:
    """The image format :func:`save_figure` writes for ``path``: ``"png"`` or ``"svg"``.

    Raises :class:`UsageError` for any other extension, so a caller can check a file name
    before spending time on drawing.
    """
    out = Path(path)
    fmt = _FORMATS.get(out.suffix.lower())
    if fmt is None:
        shown = f"a {out.suffix} file" if out.suffix else "a file with no extension"
        raise UsageError(
            f"cannot save a figure as {shown} ({str(out)!r}): use a .png or .svg file name"
        )
    return fmt


def check_plot_file(path: str | os.PathLike[str]) -> str:
    """Check, before any work, what :func:`save_figure` would refuse only after it: the
    extension of ``path`` (:func:`figure_format`, whose result it returns) and that
    matplotlib can be imported.

    A command with ``--plot FILE`` calls it first, so that a figure it cannot draw fails
    the command before anything is computed or printed. (Whether the file can be written is
    the business of the command's ``files`` declaration.)
    """
    fmt = figure_format(path)
    _matplotlib()
    return fmt


def save_figure(
    fig: Figure, path: str | os.PathLike[str], *, dpi: int = 150, close: bool = False
) -> Path:
    """Write ``fig`` to ``path`` as PNG or SVG, chosen by the file's extension.

    Parameters
    ----------
    fig
        The figure, as returned by the figure functions of this module.
    path
        The output file; its extension (``.png`` or ``.svg``, any case) picks the format.
    dpi
        Resolution of a PNG (an SVG is vector and ignores it).
    close
        Also close the figure in pyplot, freeing its memory (for scripts and the CLI).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    UsageError
        If the extension is neither ``.png`` nor ``.svg``.
    OutputError
        If the file cannot be written (e.g. its folder does not exist).

    Notes
    -----
    SVG text is kept as text, not outlines, so titles and labels stay searchable and
    selectable; the date is left out and element ids are salted with a fixed string, so the
    same inputs give the same file byte for byte.
    """
    out = Path(path)
    fmt = figure_format(out)
    plt = pyplot()
    import matplotlib

    # A temporary rc context: these settings must not leak into the caller's matplotlib.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "prfeval"}):
        metadata = {"Date": None} if fmt == "svg" else None
        # Through the one writer: a failure leaves no half-written figure, a link is
        # followed, a device or a pipe is written into, never replaced.
        with open_output(out) as handle, _missing_glyphs_noted():
            # A tight box keeps legends placed outside the axes from being cut at the edge.
            fig.savefig(handle, format=fmt, dpi=dpi, metadata=metadata, bbox_inches="tight")
    if close:
        plt.close(fig)
    return out


#: matplotlib's warning for a character its font cannot draw (one per character and draw).
_MISSING_GLYPH = r"Glyph (\d+) .*missing from"


@contextmanager
def _missing_glyphs_noted() -> Iterator[None]:
    """matplotlib's warnings of characters its font cannot draw, one per character and per
    drawing with the source line of matplotlib's call, as one :class:`PrfevalWarning` that
    names the characters; any other warning passes on as it came."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    missing: list[str] = []
    for w in caught:
        found = re.match(_MISSING_GLYPH, str(w.message))
        if found and issubclass(w.category, UserWarning):
            char = chr(int(found.group(1)))
            if char not in missing:
                missing.append(char)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if missing:
        warnings.warn(
            f"the figure's font has no glyph for {''.join(missing)!r}: those characters of "
            "the names show as empty boxes in the image (an SVG figure keeps them as text)",
            PrfevalWarning, stacklevel=4)


def f_label(beta: float) -> str:
    """The name of F_beta with a Unicode subscript: ``F₁``, ``F₂``, ``F₀.₅``.

    A beta whose shortest form is not plain digits and a point (``1e-05``) is written
    ``F(β=1e-05)``.
    """
    text = f"{float(beta):g}"
    if all(ch.isdigit() or ch == "." for ch in text):
        return "F" + text.translate(_SUBSCRIPTS)
    return f"F(β={text})"


def plain(text: object) -> str:
    r"""``text`` (a run's name, a query id, a class label) as figure text shown as it is.

    matplotlib reads text between two ``$`` as mathtext, so that a run file named
    ``$x^2$`` would be drawn as x squared, and ``a$b`` beside ``c$d`` in one legend, or
    ``$$``, would stop the drawing with a parse error. Each ``$`` is escaped as ``\$``,
    which matplotlib draws as ``$`` (with mathtext off, by ``text.parse_math: False``, the
    text is returned unchanged: nothing would read the escapes). Every name a user chose goes
    through here on its way into a title, a legend, a label or a tick; text prfeval writes
    itself, and a ``title`` a caller passes to a figure function, are left to matplotlib,
    mathtext and all.

    With ``text.usetex`` on, TeX typesets every text, and TeX's own special characters
    (``_``, ``%``, ``&``, ``#``, ...) in a name are TeX's to read.

    Examples
    --------
    >>> plain("$x^2$"), plain("run-1")
    ('\\$x^2\\$', 'run-1')
    """
    text = str(text)
    if "$" not in text or not _matplotlib().rcParams["text.parse_math"]:
        return text
    return text.replace("$", "\\$")


def run_color(index: int) -> str:
    """The colour of the run at position ``index`` (0 for the first), as ``#rrggbb``.

    The palette :data:`RUN_COLORS` repeats after its sixth colour. Every figure of several
    runs and the HTML report take a run's colour from here, by the run's position in the
    study or comparison, so a run looks the same everywhere.

    Examples
    --------
    >>> run_color(0), run_color(6) == run_color(0)
    ('#6a3d9a', True)
    """
    return RUN_COLORS[index % len(RUN_COLORS)]


def svg_text(fig: Figure, *, salt: str, close: bool = True) -> str:
    """``fig`` as an SVG element to put inside an HTML page.

    Text stays text (searchable, selectable, sharp at any size); ``salt`` makes the element
    ids of this figure differ from another's on the same page (matplotlib derives them from
    a hash), and the XML prolog goes, since the element is embedded.
    """
    import io

    plt = pyplot()
    import matplotlib

    buffer = io.StringIO()
    with (
        matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": f"prfeval-{salt}"}),
        warnings.catch_warnings(),
    ):
        # The text stays text, drawn by the browser's fonts: a glyph matplotlib's font lacks
        # costs only its measure of the text's width, so its warning says nothing to a user.
        warnings.filterwarnings("ignore", _MISSING_GLYPH, UserWarning)
        fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    if close:
        plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]
