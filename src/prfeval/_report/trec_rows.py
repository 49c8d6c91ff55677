"""One row of trec_eval's output, as C's ``printf("%-22s\\t%s\\t%6.4f\\n")`` writes it.

``evaluate --format trec`` writes its rows with these, and so does ``prfeval trec_eval``'s
printer (:mod:`prfeval._trec_eval.printing`), which adds the rest of trec_eval's output (its
summary rules and the fast layout of ``-q``'s rows). They live here, below the adapter, so that
``evaluate`` loads nothing of it.
"""

from __future__ import annotations

import math

__all__ = ["trec_line", "trec_number"]


def trec_number(value: float, *, integer: bool = False) -> str:
    """A value as trec_eval prints it: ``%ld`` of the value for counts, else ``%6.4f``
    (glibc's ``-nan`` for an undefined value)."""
    if integer:
        return str(int(value))
    if math.isnan(value):
        return f"{'-nan':>6}"
    return f"{value:6.4f}"


def trec_line(name: str, qid: str, shown: str) -> str:
    """One row: ``%-22s\\t%s\\t%s``."""
    return f"{name:<22}\t{qid}\t{shown}"
