"""Helpers several commands share: naming runs, choosing the baseline, typing a label."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from prfeval._core.errors import UsageError

__all__ = [
    "coerce_label",
    "distinct_run_names",
    "named_runs",
    "resolve_baseline",
    "run_names",
    "run_path",
    "split_named_run",
]


def split_named_run(arg: str) -> tuple[str | None, str]:
    """A RUN argument as (name, path): ``NAME=PATH`` names the run ``NAME``; a plain PATH has
    no name (``None``).

    An argument that is itself an existing file (or ``-``) is a plain path, even when it
    holds ``=`` (``b=0.4.run`` on disk stays that file). Otherwise it is split at its first
    ``=``: the name has no ``=``, the path may. An empty name or path, or a path that is no
    file either, is an error.
    """
    if arg == "-" or "=" not in arg or os.path.lexists(arg):
        return None, arg
    name, _, path = arg.partition("=")
    if not name.strip() or not path:
        raise UsageError(
            f"{arg!r}: expected NAME=PATH (a run's name, then its file), or the path of an "
            "existing file"
        )
    if path != "-" and not os.path.lexists(path):
        # Neither reading names a file: say both, not only the one a typo made up.
        raise UsageError(
            f"{arg!r}: no such file, and read as NAME=PATH, no such file {path!r} either"
        )
    return name, path


def run_path(arg: str) -> str:
    """The path of a RUN argument (``NAME=PATH`` or PATH): what is read."""
    return split_named_run(arg)[1]


def named_runs(args: Sequence[str], stdin_name: str | None = None) -> tuple[list[str], list[str]]:
    """The names and paths of RUN arguments, each ``NAME=PATH`` or a plain PATH.

    A plain path is named as :func:`run_names` names it (``stdin_name``, when given, for
    ``-``); a name given twice, or a given name equal to another run's name, is an error
    naming both arguments.
    """
    split = [split_named_run(a) for a in args]
    paths = [path for _, path in split]
    plain = [i for i, (name, _) in enumerate(split) if name is None]
    auto = run_names([paths[i] for i in plain])
    names = [name or "" for name, _ in split]
    for i, name in zip(plain, auto, strict=True):
        names[i] = stdin_name if stdin_name is not None and paths[i] == "-" else name
    first: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in first:
            raise UsageError(
                f"two runs are named {name!r}: {args[first[name]]!r} and {args[i]!r}; "
                "name them apart with NAME=PATH"
            )
        first[name] = i
    return names, paths


def run_names(paths: Sequence[str]) -> list[str]:
    """A name per run, all different: its file name; the path as given where file names
    collide; and where even those do (the same file given twice), ``#2``, ``#3``, ... after
    the repeats, each the lowest number that makes a name no other run has.

    A suffixed name never takes another run's name: ``x#2 x x`` are named ``x#2``, ``x``
    and ``x#3``, so that each name keeps to its own file. ``compare``, ``curve`` and
    ``report`` name their runs here.
    """
    _check_repeats_readable(paths)
    names = [Path(p).name or p for p in paths]
    names = [p if names.count(n) > 1 else n for p, n in zip(paths, names, strict=True)]
    taken = set(names)
    seen: set[str] = set()
    out = []
    for name in names:
        if name in seen:
            n = 2
            while f"{name}#{n}" in taken:
                n += 1
            name = f"{name}#{n}"
            taken.add(name)
        seen.add(name)
        out.append(name)
    return out


def _check_repeats_readable(paths: Sequence[str]) -> None:
    """A RUN given twice is read twice: refuse it when it is not a regular file (a FIFO,
    ``/dev/stdin``, a ``/dev/fd/N`` of a pipe), which gives its bytes once and would then
    wait forever."""
    counts: dict[str, int] = {}
    for p in paths:
        counts[p] = counts.get(p, 0) + 1
    for p, n in counts.items():
        if n < 2 or p == "-":  # '-' twice is refused with the other inputs
            continue
        try:
            regular = stat.S_ISREG(os.stat(p).st_mode)
        except OSError:
            continue  # the reader names what is wrong with it
        if not regular:
            raise UsageError(
                f"{p}: given as RUN {n} times, but it is not a regular file and can be read "
                "once only"
            )


#: The former name of :func:`run_names`, which ``curve`` used (and which refused the same
#: RUN twice, where compare and report took it): every command now names runs one way.
distinct_run_names = run_names


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
