"""trec_eval 9.0.8's preference measures (``prefs_*``, Buckley's), over preference judgments.

Each reads a query's :class:`~prfeval._core.preferences.PreferenceCounts`, which
:func:`prfeval._retrieval.prefs.preference_counts` computes once per evaluation from a run
and preferences (trec_eval's ``-R prefs`` or ``-R qrels_prefs`` files; see that module for
the docid ranks and the judgment groups, JGs). A preference a > b is *retrieved* when both
documents are, *implied* when only one is (fulfilled when that one is a), and *not
occurring* when neither is. The three counts are summed over queries; the rest are averaged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from prfeval._core.measure_def import Measure, MeasureDef

if TYPE_CHECKING:  # each function reads the counts; made by the preference judgments' reader
    from prfeval._core.preferences import PreferenceCounts

__all__ = ["DEFINITIONS", "PREFS_MEASURES"]

FloatArray = npt.NDArray[np.float64]



def _ratio(num: FloatArray, den: FloatArray) -> FloatArray:
    """num / den, 0 where den is 0."""
    return np.divide(num, den, out=np.zeros_like(num), where=den != 0)


def _over_jgs(total: FloatArray, n_jg: FloatArray) -> FloatArray:
    """A sum over JGs averaged over them: 0 unless the sum is positive (trec_eval's rule)."""
    with np.errstate(invalid="ignore"):
        positive = total > 0
    return np.divide(total, n_jg, out=np.zeros_like(total), where=positive & (n_jg > 0))


def _poss(c: PreferenceCounts, m: Measure) -> FloatArray:
    return c.poss


def _ful(c: PreferenceCounts, m: Measure) -> FloatArray:
    return c.ful


def _ful_ret(c: PreferenceCounts, m: Measure) -> FloatArray:
    return c.ful_ret


def _simp(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _ratio(c.ful, c.poss)


def _simp_ret(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _ratio(c.ful_ret, c.poss_ret)


def _simp_imp(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _ratio(c.ful, c.poss_imp)


def _pair(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _ratio(c.pair_sum, c.pairs)


def _pair_ret(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _ratio(c.pair_sum_ret, c.pairs_ret)


def _pair_imp(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _ratio(c.pair_sum, c.pairs_imp)


def _avgjg(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _over_jgs(c.avgjg, c.n_jg)


def _avgjg_ret(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _over_jgs(c.avgjg_ret, c.n_jg)


def _avgjg_imp(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _over_jgs(c.avgjg_imp, c.n_jg)


def _rnonrel(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _over_jgs(c.rnonrel, c.n_jg)


def _rnonrel_ret(c: PreferenceCounts, m: Measure) -> FloatArray:
    return _over_jgs(c.rnonrel_ret, c.n_jg)


_CITE = "trec_eval 9.0.8's preference measure (written by Buckley)."
_EMPTY = " 0 when nothing is possible (no preference, or none with the documents it needs)."
_JG = (
    " A JG with nothing possible adds 0, and the mean is 0 unless its sum is positive"
    " (a JG with 0/0 Rnonrel preferences makes it NaN in the sum, so 0)."
)


def _def(
    name: str,
    summary: str,
    formula: str,
    fn: Callable[[PreferenceCounts, Measure], FloatArray],
    conventions: str,
    *,
    total: bool = False,
) -> MeasureDef:
    return MeasureDef(
        name,
        summary,
        formula,
        preferences=fn,
        reads="ranks",
        aggregation="sum" if total else "mean",
        params=(),
        conventions=conventions + " " + _CITE,
        bounded=False,
    )


DEFINITIONS: tuple[MeasureDef, ...] = (
    _def("prefs_num_prefs_poss", "preferences possible (count)",
         "sum over JGs of the preferences a > b, retrieved, implied or not occurring",
         _poss, "Summed over queries.", total=True),
    _def("prefs_num_prefs_ful", "preferences fulfilled (count)",
         "sum over JGs of the preferences a > b with a retrieved and b not, or ranked below a",
         _ful, "Summed over queries.", total=True),
    _def("prefs_num_prefs_ful_ret", "preferences fulfilled by retrieved pairs (count)",
         "sum over JGs of the preferences a > b with both retrieved and a ranked above b",
         _ful_ret, "Summed over queries.", total=True),
    _def("prefs_simp", "share of preferences fulfilled",
         "prefs_num_prefs_ful / prefs_num_prefs_poss", _simp, _EMPTY.strip()),
    _def("prefs_pair", "preferences fulfilled, averaged over document pairs",
         "mean over document pairs (a, b) with a preference, a ranked above b, of "
         "c(a > b) / (c(a > b) + c(b > a)), c counting the JGs",
         _pair, "A pair with neither document retrieved scores 0." + _EMPTY),
    _def("prefs_avgjg", "share of preferences fulfilled, averaged over JGs",
         "mean over JGs of fulfilled_jg / possible_jg", _avgjg, _JG.strip()),
    _def("prefs_avgjg_Rnonrel",
         "prefs_avgjg with each JG's non-relevant documents set to R, its relevant count",
         "mean over JGs of fulfilled_jg / possible_jg, the non-relevant side cut or padded "
         "to R documents", _rnonrel,
         "With N <= R non-relevant, R - N fulfilled preferences are added per relevant "
         "retrieved document (R - N possible per relevant one); with N > R the first R "
         "non-relevant (docid order) are kept. Akin to bpref (Buckley and Voorhees, 2004)."
         + _JG),
    _def("prefs_simp_ret", "share of retrieved preferences fulfilled",
         "prefs_num_prefs_ful_ret / (preferences with both documents retrieved)",
         _simp_ret, _EMPTY.strip()),
    _def("prefs_pair_ret", "prefs_pair over pairs with both documents retrieved",
         "mean over pairs with both retrieved of c(a > b) / (c(a > b) + c(b > a))",
         _pair_ret, _EMPTY.strip()),
    _def("prefs_avgjg_ret", "prefs_avgjg over retrieved preferences",
         "mean over JGs of fulfilled_ret_jg / possible_ret_jg", _avgjg_ret, _JG.strip(),),
    _def("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel over retrieved documents",
         "prefs_avgjg_Rnonrel with R and N counted over the retrieved documents",
         _rnonrel_ret,
         "As trec_eval 9.0.8, R - N possible preferences are added for every relevant "
         "document, retrieved or not." + _JG),
    _def("prefs_simp_imp", "share of retrieved and implied preferences fulfilled",
         "prefs_num_prefs_ful / (preferences with at least one document retrieved)",
         _simp_imp, _EMPTY.strip()),
    _def("prefs_pair_imp", "prefs_pair over pairs with a document retrieved",
         "mean over pairs with at least one retrieved of c(a > b) / (c(a > b) + c(b > a))",
         _pair_imp, _EMPTY.strip()),
    _def("prefs_avgjg_imp", "prefs_avgjg over retrieved and implied preferences",
         "mean over JGs of fulfilled_jg / (possible_ret_jg + possible_imp_jg)",
         _avgjg_imp, _JG.strip()),
)

#: The trec_eval names of the preference measures, in trec_eval's table order.
PREFS_MEASURES: tuple[str, ...] = tuple(d.name for d in DEFINITIONS)
