"""The exceptions prfeval raises for a user's mistake.

::

    PrfevalError                 the root: the CLI catches it, prints one line, exits 2
    ├── InputFormatError         a file or object that cannot be read (path, line, reason)
    ├── MeasureError             an unknown measure name or a bad parameter (with suggestions)
    ├── OutputError              a result that cannot be written where asked (names the target)
    └── UsageError               options that do not fit together (e.g. TN without -N)

Library code raises these; it never prints or exits.
"""

from __future__ import annotations

__all__ = [
    "InputFormatError",
    "MeasureError",
    "MissingExtra",
    "OutputError",
    "PrfevalError",
    "PrfevalWarning",
    "UsageError",
]


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
        1-based line number in the file, when the problem is on one line (a header line
        counts as line 1).
    line
        The offending line's text, for context.
    row_number
        1-based row, for inputs that have rows but no lines (Parquet, DataFrames, Arrow
        tables): ``path: row 5: reason``.
    """

    def __init__(
        self,
        reason: str,
        *,
        path: str | None = None,
        line_number: int | None = None,
        line: str | None = None,
        row_number: int | None = None,
    ) -> None:
        self.reason = reason
        self.path = path
        self.line_number = line_number
        self.line = line
        self.row_number = row_number
        where = ""
        if path is not None:
            if line_number is not None:
                where = f"{path}:{line_number}: "
            elif row_number is not None:
                where = f"{path}: row {row_number}: "
            else:
                where = f"{path}: "
        super().__init__(f"{where}{reason}")


class MeasureError(PrfevalError, ValueError):
    """An unknown measure, or a measure with parameters it does not take."""


class OutputError(PrfevalError):
    """A result that cannot be written where it was asked to go: the message names the
    target as given (never a temporary file) and the reason."""


class UsageError(PrfevalError, ValueError):
    """Options or arguments that are individually valid but do not fit together."""


class MissingExtra(UsageError, ImportError):
    """An optional dependency is not installed: the message names the extra that brings it
    (``pip install 'prfeval[frames]'``). An ImportError too, for code that catches those."""


class PrfevalWarning(UserWarning):
    """Something the user should know that did not stop the evaluation (e.g. a fallback)."""
