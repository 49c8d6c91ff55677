"""Helpers several commands share: naming runs, choosing the baseline, typing a label."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from prfeval.core.errors import UsageError

__all__ = ["coerce_label", "distinct_run_names", "resolve_baseline", "run_names"]


def run_names(paths: tuple[str, ...]) -> list[str]:
    """A name per run: its file name; the path as given where file names collide; a
    ``#n`` suffix where even those do."""
    names = [Path(p).name or p for p in paths]
    names = [p if names.count(n) > 1 else n for p, n in zip(paths, names, strict=True)]
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def distinct_run_names(paths: Sequence[str]) -> list[str]:
    """Short names for runs that must differ: file names, or the paths as given when two
    share a name; the same RUN given twice is an error."""
    short = [Path(p).name or p for p in paths]
    if len(set(short)) == len(short):
        return short
    if len(set(paths)) != len(paths):
        raise UsageError("the same RUN is given twice")
    return list(paths)


def resolve_baseline(baseline: str | None, paths: tuple[str, ...], names: list[str]) -> str:
    """The baseline's run name, from a name, the path as given, or the file name."""
    if baseline is None:
        return names[0]
    for candidates in (names, list(paths), [Path(p).name for p in paths]):
        if candidates.count(baseline) == 1:
            return names[candidates.index(baseline)]
    raise UsageError(f"--baseline {baseline!r} is not one of the runs: {', '.join(names)}")


def coerce_label(text: str, like: Any, flag: str = "--pos-label") -> Any:
    """A label typed on the command line (``--pos-label``, ``--score LABEL=COL``) as the type
    of the labels read (int, float, bool or str). ``like`` may be a numpy or an Arrow array:
    only its first item is looked at."""
    kind = np.asarray(like[:1]).dtype.kind
    try:
        if kind in "iu":
            return int(text)
        if kind == "f":
            return float(text)
    except ValueError:
        raise UsageError(f"{flag} {text!r} is not a number, but the labels are") from None
    if kind == "b":
        if text.lower() not in ("true", "false", "1", "0"):
            raise UsageError(f"{flag} {text!r}: the labels are true or false")
        return text.lower() in ("true", "1")
    return text
