"""Progress bars for long work, in terminals and notebooks, drawn by tqdm on stderr.

Long work (a run read in blocks, compare's runs and paired tests, curves at scale, the HTML
report, leakage, run-retriever) reports ``(done, total)`` to a callback. :func:`reporter`
turns what a caller asked for into that callback:

- a function: it is called, and no bar is drawn;
- ``False``: nothing;
- ``True``: a bar, wherever stderr goes;
- ``None`` (auto, the default): a bar when stderr is a terminal or the code runs in a
  Jupyter kernel, else nothing; a bar shows only once the work has taken ``delay`` seconds
  (1 by default), so quick work prints nothing extra.

The bar goes to stderr, never to stdout or into a result: the numbers are the same with or
without it. In a notebook it is tqdm's widget when ipywidgets is installed, else tqdm's text
bar. tqdm is a core dependency (small, pure Python, no dependencies of its own): every install
shows the same bars, and there is no second, silent path to keep (docs/architecture.md).
tqdm is imported only when a bar is drawn: ``import prfeval`` stays light.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from prfeval._core.errors import UsageError

__all__ = ["DELAY", "Progress", "ProgressSetting", "check_progress", "reporter", "wanted"]

#: Seconds of work before a bar shows (tests set 0 to see a bar at once).
DELAY = 1.0

#: A progress callback: ``(done, total)``.
Progress = Callable[[int, int], None]
#: What a caller may pass as ``progress=``: a callback, True, False or None (auto).
ProgressSetting = bool | Callable[[int, int], None] | None


def check_progress(value: Any) -> ProgressSetting:
    """``value`` if it is a valid ``progress=``: a function, True, False or None."""
    if value is None or isinstance(value, bool) or callable(value):
        return value
    raise UsageError(f"progress must be True, False, None (a bar when stderr is a terminal or "
                     f"in a notebook) or a function (done, total), got {value!r}")


def _in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (IPython imported, with a kernel)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # an IPython too old or half torn down: no notebook to draw in
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None


def wanted(setting: bool | None) -> bool:
    """Whether a bar is drawn for ``setting`` (True, False, or None: auto)."""
    if setting is not None:
        return setting
    stderr = sys.stderr
    if stderr is None:
        return False
    try:
        terminal = stderr.isatty()
    except (AttributeError, ValueError):  # closed, or not a real stream
        terminal = False
    return terminal or _in_notebook()


def _bar_class() -> Any:
    """tqdm's notebook widget in a notebook with ipywidgets, else its text bar."""
    if _in_notebook() and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm as notebook_bar

        return notebook_bar
    from tqdm.std import tqdm as text_bar

    return text_bar


@contextmanager
def reporter(
    progress: ProgressSetting,
    description: str,
    *,
    unit: str = "it",
    total: int | None = None,
    delay: float | None = None,
) -> Iterator[Progress | None]:
    """The callback for ``progress`` (see the module's doc), ``None`` when nothing is to
    be reported.

    Parameters
    ----------
    progress
        A function (returned as it is), True, False, or None (auto).
    description
        What the bar says (``"comparing"``).
    unit
        ``"bytes"`` (sizes shown in KiB, MiB) or what an item is (``"runs"``, ``"queries"``).
    total
        The total, until the first report gives one.
    delay
        Seconds of work before the bar shows (``None``: :data:`DELAY`); tqdm checks it at
        each report, with no thread.
    """
    if progress is not None and not isinstance(progress, bool):
        yield progress
        return
    if not wanted(progress):
        yield None
        return
    in_bytes = unit == "bytes"
    bar = _bar_class()(
        total=total,
        desc=description,
        unit="B" if in_bytes else f" {unit}",
        unit_scale=in_bytes,
        unit_divisor=1024,
        file=sys.stderr,
        delay=DELAY if delay is None else delay,
        leave=False,
        dynamic_ncols=True,
        # Reports come per block, run or query, not per line: each one redraws the bar.
        mininterval=0,
    )

    def update(done: int, new_total: int) -> None:
        if new_total != bar.total:
            bar.total = new_total
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        bar.close()
