"""What every figure shares: matplotlib, imported only when drawing, and saving as PNG or SVG.

``import prfeval`` never imports matplotlib: each figure function asks :func:`pyplot` for it,
which also picks the non-interactive Agg backend on a machine with no display, and raises
:class:`~prfeval.core.errors.UsageError` with the install hint when matplotlib is missing.
:func:`save_figure` writes a figure as PNG or SVG.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prfeval.core.errors import UsageError
from prfeval.io.atomic import open_output

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["f_label", "figure_format", "pyplot", "save_figure", "svg_text"]

_FORMATS = {".png": "png", ".svg": "svg"}
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _headless() -> bool:
    """True when no GUI can open a window (no X11/Wayland display on Linux and the like)."""
    if sys.platform in ("darwin", "win32"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def pyplot() -> Any:
    """Import and return ``matplotlib.pyplot``, lazily, so ``import prfeval`` stays light.

    On a machine without a display, and unless the user already chose a backend (by
    ``MPLBACKEND`` or by importing pyplot first), select Agg so that drawing never tries to
    open a window. Raises :class:`UsageError` when matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        raise UsageError("plotting needs matplotlib: pip install 'prfeval[plot]'") from None
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
        with open_output(out) as handle:
            # A tight box keeps legends placed outside the axes from being cut at the edge.
            fig.savefig(handle, format=fmt, dpi=dpi, metadata=metadata, bbox_inches="tight")
    if close:
        plt.close(fig)
    return out


def f_label(beta: float) -> str:
    """The name of F_beta with a Unicode subscript: ``F₁``, ``F₂``, ``F₀.₅``.

    A beta whose shortest form is not plain digits and a point (``1e-05``) is written
    ``F(β=1e-05)``.
    """
    text = f"{float(beta):g}"
    if all(ch.isdigit() or ch == "." for ch in text):
        return "F" + text.translate(_SUBSCRIPTS)
    return f"F(β={text})"


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
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": f"prfeval-{salt}"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    if close:
        plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]
