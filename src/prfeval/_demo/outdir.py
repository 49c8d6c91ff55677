"""The demo's output folder: it replaces only the files it wrote there itself.

``prfeval demo --out DIR`` writes fixed names (``run.trec``, ``report.html``, ...) into a
folder that may already hold a user's files. Before anything is written, every name it is
about to write is checked:

* a name that does not exist yet is free;
* a regular file that an earlier demo wrote into this folder (listed in its record,
  ``.prfeval-demo``) is replaced;
* any other regular file is the user's: refused, unless ``force`` is given;
* a symbolic link is refused (writing through it would replace a file outside the folder),
  and with ``force`` it is removed and a regular file written in its place;
* anything else (a FIFO, a socket, a device, a folder) is refused even with ``force``:
  the demo never opens a file that is not regular for writing, so it cannot block on a FIFO
  or write into a device.

After a successful run the record lists what was written, so the next run replaces those.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from prfeval._core.errors import UsageError
from prfeval._io.atomic import write_atomic

__all__ = ["RECORD", "claim", "record"]

#: The file in the output folder that lists what the demo wrote there.
RECORD = ".prfeval-demo"


def _recorded(out: Path) -> set[str]:
    """The names an earlier demo wrote into ``out`` (none when it has no regular record)."""
    path = out / RECORD
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return set()
        return {line.strip() for line in path.read_text(encoding="utf-8").splitlines()}
    except (OSError, UnicodeDecodeError):
        return set()


def claim(out: str | os.PathLike[str], names: Sequence[str], *, force: bool = False) -> Path:
    """Make ``out`` (a folder) ready for the demo to write ``names`` into it.

    Returns the folder. Raises :class:`~prfeval._core.errors.UsageError` naming the first
    file that must not be replaced, before anything is written.
    """
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: --out names a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{folder}: cannot create the folder ({exc.strerror})") from None
    ours = _recorded(folder)
    for name in (*names, RECORD):
        path = folder / name
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(mode):
            if not force:
                raise UsageError(
                    f"{path}: is a symbolic link; the demo does not write through links "
                    "(give --force to replace the link with the demo's file)"
                )
            path.unlink()
        elif not stat.S_ISREG(mode):
            raise UsageError(f"{path}: is not a regular file; the demo writes only regular files")
        elif name not in ours and name != RECORD and not force:
            raise UsageError(
                f"{path}: exists and was not written by prfeval demo; give --force to "
                "replace it, or another --out"
            )
    return folder


def record(out: Path, names: Sequence[str]) -> None:
    """Note that the demo wrote ``names`` into ``out``, for the next run to replace them."""
    write_atomic(out / RECORD, "".join(f"{name}\n" for name in sorted(names)))
