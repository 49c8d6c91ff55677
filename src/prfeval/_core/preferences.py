"""The per-query counts behind trec_eval's preference measures (``prefs_*``).

:func:`prfeval._retrieval.prefs.preference_counts` computes them once per evaluation, from a
run and preference judgments (its module docstring defines the docid ranks, judgment groups
and the retrieved / implied / not occurring preferences); each measure of
:mod:`prfeval._measures.prefs` is then one vectorised function of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

__all__ = ["PreferenceCounts"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PreferenceCounts:
    """Per-query sums over a query's judgment groups (JGs), one array entry per query.

    Attributes
    ----------
    query_ids
        The queries, in trec_eval's order (byte order of their ids).
    poss, ful
        Preferences possible (every one) and fulfilled (retrieved or implied).
    ful_ret, poss_ret
        Fulfilled and possible preferences with both documents retrieved.
    poss_imp
        Possible preferences with at least one document retrieved.
    n_jg
        Judgment groups.
    avgjg, avgjg_ret, avgjg_imp
        Sum over JGs with something possible of fulfilled_jg / possible_jg (all, retrieved
        and retrieved-or-implied preferences), added in JG order.
    rnonrel, rnonrel_ret
        Sum over JGs of the Rnonrel ratio (C double division: 0/0 is NaN).
    pair_sum, pair_sum_ret
        Sum over document pairs with a preference (at least one of them retrieved; both
        retrieved) of c(a > b) / (c(a > b) + c(b > a)), a the better ranked.
    pairs, pairs_ret, pairs_imp
        Document pairs with a preference: all, both retrieved, at least one retrieved.
    missing_from_run, not_in_prefs
        Queries with preferences but no results, and with results but no preferences (not
        measured; for the accounting).
    """

    query_ids: tuple[str, ...]
    poss: FloatArray
    ful: FloatArray
    ful_ret: FloatArray
    poss_ret: FloatArray
    poss_imp: FloatArray
    n_jg: FloatArray
    avgjg: FloatArray
    avgjg_ret: FloatArray
    avgjg_imp: FloatArray
    rnonrel: FloatArray
    rnonrel_ret: FloatArray
    pair_sum: FloatArray
    pair_sum_ret: FloatArray
    pairs: FloatArray
    pairs_ret: FloatArray
    pairs_imp: FloatArray
    missing_from_run: tuple[str, ...] = ()
    not_in_prefs: tuple[str, ...] = ()

    #: The names of the per-query arrays, in declaration order.
    ARRAYS: ClassVar[tuple[str, ...]] = (
        "poss", "ful", "ful_ret", "poss_ret", "poss_imp", "n_jg", "avgjg", "avgjg_ret",
        "avgjg_imp", "rnonrel", "rnonrel_ret", "pair_sum", "pair_sum_ret", "pairs",
        "pairs_ret", "pairs_imp",
    )

    @property
    def n_queries(self) -> int:
        """How many queries it holds."""
        return len(self.query_ids)
