"""Memory pages for the large arrays of one evaluation.

numpy asks the kernel for transparent huge pages (``madvise(MADV_HUGEPAGE)``) on every array
of 4 MiB or more. Where the kernel's setting is ``madvise`` (Debian's and Ubuntu's default),
the first touch of such an array then compacts memory to find free 2 MiB pages when the page
cache has filled it: on the 2-core machine of docs/benchmarks.md, a JSON Lines run of 10M
passages spent 3 to 4.7 s of system time there, and 1.8 to 2 s without the advice, for the
same values. An evaluation allocates arrays of tens of MiB, uses them once and frees them;
huge pages do not pay for their compaction there, so :func:`plain_pages` turns numpy's
advice off while one runs and restores it after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["plain_pages"]


def _setter() -> Callable[[bool], bool] | None:
    """numpy's switch of its huge-page advice (``None``: this numpy has none)."""
    import importlib

    for module in ("numpy._core.multiarray", "numpy.core.multiarray"):  # numpy 2, then 1
        try:
            switch = getattr(importlib.import_module(module), "_set_madvise_hugepage", None)
        except ImportError:
            continue
        if callable(switch):
            return switch
    return None


@contextmanager
def plain_pages() -> Iterator[None]:
    """numpy's huge-page advice off inside the block, and as it was after it (nested
    blocks restore what they found)."""
    switch = _setter()
    if switch is None:
        yield
        return
    before = switch(False)
    try:
        yield
    finally:
        switch(before)
