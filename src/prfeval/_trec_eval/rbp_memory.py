"""trec_eval 10.0's rbp as it runs after yaap: it reads what yaap left in memory.

10.0's rbp never sets the bounds of its gain scaling before it reads them; yaap, computed just
before it for every query, leaves its sum of precisions there. This quirk is trec_eval 10.0's
alone, so it lives in the adapter, not with rbp's maths (:mod:`prfeval._measures.rbp_trec`),
which takes it as the internal parameter ``after_yaap``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from prfeval._measures.rbp_trec import rbp_graded

if TYPE_CHECKING:
    from prfeval._core.measure_def import Measure
    from prfeval._core.trec_names import TrecName

__all__ = ["rbp_after_yaap"]


def rbp_after_yaap(
    entries: list[tuple[Measure, TrecName]], level: int
) -> list[tuple[Measure, TrecName]]:
    """trec_eval 10.0's measures ``entries`` (``prfeval trec_eval``'s, in its table's order)
    with rbp given the internal parameter ``after_yaap`` (the relevance level) when yaap is
    among them; it is not one a user can type.

    10.0's rbp never sets the bounds of its gain scaling before it reads them, and yaap,
    which 10.0 computes just before rbp for every query, leaves its sum of precisions where
    rbp's upper bound is read (see :func:`rbp_graded`). Without yaap: ``entries`` as given.
    """
    if not any(t.name == "yaap" for _, t in entries):
        return entries
    return [
        (replace(m, params=tuple(sorted((*m.params, ("after_yaap", level))))), t)
        if m.definition.ranked is rbp_graded
        else (m, t)
        for m, t in entries
    ]
