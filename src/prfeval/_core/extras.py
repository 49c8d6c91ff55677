"""The optional dependencies, imported when a feature needs them, with one message when
they are not installed.

The core (numpy, pyarrow, click, rich, tqdm) is always there; DataFrames, plotting, the demo's BM25,
scipy's tests and Spark come with extras (``pip install 'prfeval[frames]'``, ``[plot]``,
``[demo]``, ``[stats]``, ``[spark]``). :func:`require` imports one of their modules or raises
:class:`~prfeval._core.errors.MissingExtra` naming the extra to install: one line and exit 2
on the command line, an ImportError (and a UsageError) in Python.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from prfeval._core.errors import MissingExtra

__all__ = ["require"]


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """``import module``, or :class:`MissingExtra` saying that ``purpose`` needs it and which
    extra installs it.

    Examples
    --------
    >>> require("math", "core", "arithmetic").sqrt(4.0)
    2.0
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise MissingExtra(f"{purpose} needs {top}: pip install 'prfeval[{extra}]'") from None
