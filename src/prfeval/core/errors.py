"""The exceptions prfeval raises for a user's mistake.

::

    PrfevalError                 the root: the CLI catches it, prints one line, exits 2
    ├── InputFormatError         a file or object that cannot be read (path, line, reason)
    ├── MeasureError             an unknown measure name or a bad parameter (with suggestions)
    └── UsageError               options that do not fit together (e.g. TN without -N)

Library code raises these; it never prints or exits.
"""

from __future__ import annotations

__all__ = ["InputFormatError", "MeasureError", "PrfevalError", "PrfevalWarning", "UsageError"]


class PrfevalError(Exception):
    """Root of every error prfeval raises for bad input or bad options."""


class InputFormatError(PrfevalError, ValueError):
    """Input that cannot be read, located as precisely as possible.

    Parameters
    ----------
    reason
        What is wrong, in a few words (``"expected 6 fields, got 5"``).
    path
        The file (or a description such as ``"<stdin>"`` or ``"run dict"``).
    line_number
        1-based line number in the file, when the problem is on one line.
    line
        The offending line's text, for context.
    """

    def __init__(
        self,
        reason: str,
        *,
        path: str | None = None,
        line_number: int | None = None,
        line: str | None = None,
    ) -> None:
        self.reason = reason
        self.path = path
        self.line_number = line_number
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line_number}: " if line_number is not None else f"{path}: "
        super().__init__(f"{where}{reason}")


class MeasureError(PrfevalError, ValueError):
    """An unknown measure, or a measure with parameters it does not take."""


class UsageError(PrfevalError, ValueError):
    """Options or arguments that are individually valid but do not fit together."""


class PrfevalWarning(UserWarning):
    """Something the user should know that did not stop the evaluation (e.g. a fallback)."""
