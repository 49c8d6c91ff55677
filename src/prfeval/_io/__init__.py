"""Readers: files, DataFrames and Python objects in, :class:`~prfeval._core.tables.Qrels` and
:class:`~prfeval._core.tables.Run` out. Every reader validates at the edge and names the file
and line of the first problem it finds.

:func:`load_qrels` and :func:`load_run` are imported on first use (PEP 562): a module of this
package that needs neither (trec_eval's reader of small files) does not load every reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prfeval._io.load import load_qrels, load_run

__all__ = ["load_qrels", "load_run"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from prfeval._io import load

        return getattr(load, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
