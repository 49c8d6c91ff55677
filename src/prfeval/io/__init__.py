"""Readers: files, DataFrames and Python objects in, :class:`~prfeval.core.tables.Qrels` and
:class:`~prfeval.core.tables.Run` out. Every reader validates at the edge and names the file
and line of the first problem it finds.
"""

from __future__ import annotations

from prfeval.io.load import load_qrels, load_run

__all__ = ["load_qrels", "load_run"]
