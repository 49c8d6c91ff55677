"""DataFrames of results, in pandas or polars, built from one mapping of columns.

Every result's ``to_frame(kind=...)`` (and its other ``*_frame`` methods) builds its columns
once, as numpy arrays or lists, and hands them to :func:`frame`, which makes a pandas or a
polars DataFrame of them. Neither library is a core dependency: the ``frames`` extra
(``pip install 'prfeval[frames]'``) installs both.

``kind=None`` picks pandas when it is installed, else polars; naming one asks for that one
only. With neither installed, :class:`~prfeval._core.errors.MissingExtra` (an ImportError)
names the extra.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from prfeval._core.errors import MissingExtra, UsageError
from prfeval._core.extras import require

__all__ = ["FRAME_KINDS", "FrameKind", "frame", "frame_kind"]

#: The DataFrame libraries ``to_frame(kind=...)`` can give.
FrameKind = Literal["pandas", "polars"]
FRAME_KINDS: tuple[str, ...] = ("pandas", "polars")


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module hidden as None in sys.modules
        return False


def frame_kind(kind: str | None, purpose: str) -> str:
    """The library a frame is made with: ``kind`` when given (checked), else pandas when it
    is installed, else polars; :class:`MissingExtra` when neither is.

    >>> frame_kind("polars", "to_frame()")
    'polars'
    """
    if kind is not None:
        if kind not in FRAME_KINDS:
            raise UsageError(f"{purpose}: kind={kind!r} is not a DataFrame library; use "
                             f"{' or '.join(map(repr, FRAME_KINDS))}")
        return kind
    for name in FRAME_KINDS:
        if _installed(name):
            return name
    raise MissingExtra(f"{purpose} needs pandas or polars: pip install 'prfeval[frames]'")


def frame(
    columns: Mapping[str, Sequence[Any] | Any],
    kind: str | None,
    purpose: str,
    *,
    index: tuple[str, Sequence[Any]] | None = None,
    nullable_ints: Sequence[str] = (),
) -> Any:
    """A DataFrame of ``columns`` (name -> numpy array or list, all of one length).

    Parameters
    ----------
    columns
        The columns, in order.
    kind
        ``"pandas"``, ``"polars"``, or ``None`` for pandas when installed, else polars.
    purpose
        The method asking (``"to_frame()"``), for the message when no library is installed.
    index
        ``(name, labels)``: pandas's index; polars has none, so it becomes the first column,
        its labels as text (labels of mixed types, such as a class ``1`` and ``"micro avg"``,
        make no polars column otherwise).
    nullable_ints
        Integer columns that hold ``None`` where a value does not apply: pandas's ``Int64``;
        polars's integers take nulls as they are.

    Returns
    -------
    pandas.DataFrame or polars.DataFrame
    """
    chosen = frame_kind(kind, purpose)
    if chosen == "pandas":
        pd = require("pandas", "frames", purpose)
        out = pd.DataFrame(dict(columns))
        for name in nullable_ints:
            out[name] = out[name].astype("Int64")
        if index is not None:
            out.index = pd.Index(list(index[1]), name=index[0], dtype=object)
        return out
    pl = require("polars", "frames", purpose)
    series = []
    if index is not None:
        series.append(pl.Series(index[0], [str(x) for x in index[1]], dtype=pl.String))
    for name, values in columns.items():
        kind_char = getattr(getattr(values, "dtype", None), "kind", "")
        if kind_char == "O":
            values = cast(Any, values).tolist()
        series.append(pl.Series(name, values, strict=False))
    return pl.DataFrame(series)
