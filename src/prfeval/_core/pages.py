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

__all__ = ["keep_freed_memory", "plain_pages"]


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


#: glibc's ``mallopt`` parameters (malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4


def keep_freed_memory() -> bool:
    """For the command line's own process: memory freed is kept for the next allocation,
    not handed back to the kernel and asked for again. glibc maps every block of 32 MiB or
    more on its own and unmaps it when freed, so each of an evaluation's large arrays is
    new pages, zeroed by the kernel at first touch: on the machine of docs/benchmarks.md,
    about a second of system time for a 10M-passage JSON Lines run, halved by this, for
    about a fifth more peak memory. A library leaves its caller's allocator alone: only the
    ``prfeval`` command calls this. ``False`` where the C library has no ``mallopt``
    (not glibc) or the caller tuned malloc already (a ``MALLOC_*_`` variable)."""
    import ctypes
    import os
    import sys

    if not sys.platform.startswith("linux"):
        return False
    if any(name in os.environ for name in ("MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_",
                                           "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_")):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    # No block on its own mapping, and the heap's free top is never trimmed: both kept.
    return bool(mallopt(_M_MMAP_MAX, 0)) and bool(mallopt(_M_TRIM_THRESHOLD, 2**31 - 1))
