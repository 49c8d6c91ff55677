"""trec_eval's names for prfeval's measures: one table, keyed by canonical measure name.

As trec_eval's own ``measures.c`` is a table apart from its ``m_*.c`` maths, this table is
apart from the declarations of the measures (:class:`~prfeval._core.measure_def.MeasureDef`
keeps the maths and IR conventions): for each measure trec_eval has, its
:class:`~prfeval._core.trec_names.TrecName` (or several: ``map`` and ``map_cut`` are both AP),
saying how trec_eval spells it and its parameters, how it prints it, its place in trec_eval's
table (the order it prints measures in), the sets of measures that hold it and what its
summary row holds. The registry reads it to parse trec_eval's spellings (``P.10``, which
``evaluate`` accepts too) and to lay out trec_eval's table and sets, which ``prfeval
trec_eval`` (:mod:`prfeval._trec_eval`) prints from.

The ``bind`` functions below read the numbers of a ``"values"`` spelling (``utility.2,-1,0,0``)
into the measure's parameters: refused with prfeval's words, or with ``as_trec_eval`` taken as
trec_eval 9.0.8 takes them (a :class:`~prfeval._core.trec_names.TrecEvalRefusal` where it
takes them and stops at its first query).
"""

from __future__ import annotations

import math

from prfeval._core.errors import MeasureError
from prfeval._core.trec_names import TrecEvalRefusal, TrecName, TrecSet
from prfeval._measures.contingency import TREC_EVAL_CUTOFFS, UTILITY_DEFAULTS
from prfeval._measures.interpolated import STANDARD_RECALL_LEVELS
from prfeval._measures.ranked import RPREC_MULT_DEFAULTS, SUCCESS_CUTOFFS
from prfeval._measures.text import RELSTRING_DEFAULT

__all__ = ["TREC_NAMES"]

#: trec_eval's sets that hold the first six preference measures, and the others'.
_PREFS: tuple[TrecSet, ...] = ("all_prefs", "prefs")  # the prefs set: the first six, runid, num_q
_ALL_PREFS: tuple[TrecSet, ...] = ("all_prefs",)


def _cutoffs(name: str, place: int, defaults: tuple[int, ...] = TREC_EVAL_CUTOFFS) -> TrecName:
    return TrecName(name, "cutoffs", defaults, f"{name}_{{}}", place=place)


def _bind_utility(values: list[str], token: str, as_trec_eval: bool) -> dict[str, object]:
    """``utility.2,-1,0,0``: the four weights of TP, FP, FN and TN, in that order.

    Another number of weights is refused; trec_eval 9.0.8 takes it on its command line and
    stops at the first query it computes (``as_trec_eval``: a TrecEvalRefusal with its words).
    """
    try:
        weights = [float(v) for v in values]
    except ValueError:
        weights = []
    if len(weights) != 4:
        message = f"{token}: utility takes four weights (TP, FP, FN, TN), e.g. utility.1,-1,0,0"
        if as_trec_eval:
            raise TrecEvalRefusal(
                message, "trec_eval.calc_utility: improper number of coefficients\n"
            )
        raise MeasureError(message)
    return dict(zip((name for name, _ in UTILITY_DEFAULTS), weights, strict=True))


def _bind_levels(values: list[str], token: str, as_trec_eval: bool) -> dict[str, object]:
    """``11pt_avg.0.25,0.5``: the levels as given (trec_eval keeps their order and repeats).

    Levels outside [0, 1] are refused; trec_eval (``as_trec_eval``) computes with them: a
    level asking for more relevant documents than were retrieved is 0, one asking for none
    or fewer (a negative level) the best precision anywhere.
    """
    try:
        levels = tuple(float(v) for v in values)
    except ValueError:
        raise MeasureError(f"{token}: the levels must be numbers in [0, 1]") from None
    if as_trec_eval and levels:
        return {"levels": levels}
    if not levels or not all(0.0 <= r <= 1.0 for r in levels):
        raise MeasureError(f"{token}: the levels must be numbers in [0, 1]")
    return {"levels": levels}


def _bind_length(values: list[str], token: str, as_trec_eval: bool) -> dict[str, object]:
    """``relstring.20``: trec_eval reads the length as a number and keeps its whole part.

    A negative length is refused; trec_eval (``as_trec_eval``) shows no rank for it, nor for
    a length that is not finite (which its conversion to a long makes negative).
    """
    try:
        (value,) = values
        x = float(value)
    except ValueError:
        raise MeasureError(f"{token}: relstring.N takes one number N (ranks shown)") from None
    if as_trec_eval:
        return {"k": max(int(x), 0) if math.isfinite(x) else 0}
    k = int(x) if math.isfinite(x) else -1
    if k < 0:
        raise MeasureError(f"{token}: relstring.N takes N >= 0, got {k}")
    return {"k": k}


#: trec_eval's names by canonical measure name, in the order ``prfeval measures`` lists
#: the measures (their places give trec_eval's own order).
TREC_NAMES: dict[str, tuple[TrecName, ...]] = {
    # Counts and measures of the contingency table (contingency.py)
    "NumQ": (
        TrecName(
            "num_q",
            per_query=False,
            place=1,
            sets=("official", "set", "qrels_jg", "all_prefs", "prefs"),
            summary_value="queries",
            joins=False,
        ),
    ),
    "NumRet": (TrecName("num_ret", place=2, sets=("official", "set")),),
    "NumRel": (
        TrecName("num_rel", place=3, sets=("official", "set"), summary_value="judged_relevant"),
    ),
    "NumRelRet": (TrecName("num_rel_ret", place=4, sets=("official", "set")),),
    "SetP": (TrecName("set_P", place=28, sets=("set",)),),
    "SetR": (TrecName("set_recall", place=30, sets=("set",)),),
    "SetF": (TrecName("set_F", "beta_squared", place=32, sets=("set",)),),
    "SetRelativeP": (TrecName("set_relative_P", place=29, sets=("set",)),),
    "SetAP": (TrecName("set_map", place=31, sets=("set",)),),
    "Utility": (
        TrecName(
            "utility",
            "values",
            tuple(w for _, w in UTILITY_DEFAULTS),
            bind=_bind_utility,
            place=17,
            sets=("set",),
            placeholder="zero",
        ),
    ),
    "P": (TrecName("P", "cutoffs", TREC_EVAL_CUTOFFS, "P_{}", place=11, sets=("official",)),),
    "R": (TrecName("recall", "cutoffs", TREC_EVAL_CUTOFFS, "recall_{}", place=13),),
    "Rprec": (TrecName("Rprec", place=7, sets=("official",)),),
    # Interpolated precision (interpolated.py)
    "IPrec": (
        TrecName(
            "iprec_at_recall",
            "levels",
            STANDARD_RECALL_LEVELS,
            "iprec_at_recall_{}",
            place=10,
            sets=("official",),
        ),
    ),
    "IPrecAvg": (
        TrecName("11pt_avg", "values", STANDARD_RECALL_LEVELS, bind=_bind_levels, place=18),
    ),
    # Judged documents (judged.py)
    "Unjudged": (TrecName("unj", "cutoffs", (5, 10, 20), "unj_{}", place=102, since=10),),
    # Measures of the ranking (ranked.py)
    "AP": (TrecName("map", place=5, sets=("official",)), _cutoffs("map_cut", 25)),
    "GMAP": (TrecName("gm_map", per_query=False, place=6, sets=("official",)),),
    "YAAP": (TrecName("yaap", place=51, all_trec=False),),
    "RR": (TrecName("recip_rank", place=9, sets=("official",)),),
    "Bpref": (TrecName("bpref", place=8, sets=("official",)),),
    "GMBpref": (TrecName("gm_bpref", per_query=False, place=15),),
    "infAP": (TrecName("infAP", place=14),),
    "RprecMult": (
        TrecName("Rprec_mult", "levels", RPREC_MULT_DEFAULTS, "Rprec_mult_{}", place=16),
    ),
    "Success": (_cutoffs("success", 27, SUCCESS_CUTOFFS),),
    "RelativeP": (_cutoffs("relative_P", 26),),
    "BinG": (TrecName("binG", place=19),),
    "NumNonRelJudgedRet": (TrecName("num_nonrel_judged_ret", place=33),),
    # Graded gain (gains.py)
    "nDCG": (
        TrecName("ndcg", "gains", place=21),
        TrecName("ndcg_cut", "cutoffs", TREC_EVAL_CUTOFFS, "ndcg_cut_{}", place=24),
    ),
    "DCG": (TrecName("dcg", "gains", place=20.1, since=10, all_trec=False),),
    "IDCG": (TrecName("ideal_dcg", "gains", place=20.2, since=10, all_trec=False),),
    "nDCGRel": (TrecName("ndcg_rel", "gains", place=22),),
    "RnDCG": (TrecName("Rndcg", "gains", place=23),),
    "G": (TrecName("G", "gains", place=20),),
    # Text (text.py)
    "RunId": (
        TrecName(
            "runid",
            per_query=False,
            place=0,
            sets=("official", "set", "qrels_jg", "all_prefs", "prefs"),
            joins=False,
        ),
    ),
    "RelString": (
        TrecName(
            "relstring",
            "values",
            (float(RELSTRING_DEFAULT),),
            bind=_bind_length,
            summary=False,
            place=12,
            quoted=True,
        ),
    ),
    # trec_eval 10.0's rank-biased precision (rbp_trec.py)
    "RBPtrec": (TrecName("rbp", place=100, since=10),),
    "RBPresidual": (TrecName("rbp_resid", place=101, since=10),),
    # Judgment groups (-R qrels_jg) (judgment_groups.py)
    "APAvgJG": (TrecName("map_avgjg", place=48, sets=("qrels_jg",), all_trec=False),),
    "PAvgJG": (
        TrecName(
            "P_avgjg",
            "cutoffs",
            TREC_EVAL_CUTOFFS,
            "P_avgjg_{}",
            place=49,
            sets=("qrels_jg",),
            all_trec=False,
        ),
    ),
    "RprecMultAvgJG": (
        TrecName(
            "Rprec_mult_avgjg",
            "levels",
            RPREC_MULT_DEFAULTS,
            "Rprec_mult_avgjg_{}",
            place=50,
            sets=("qrels_jg",),
            all_trec=False,
        ),
    ),
    # Preferences (-R prefs, prefs.py): in every set of preferences, not in all_trec
    **{
        name: (TrecName(name, place=place, sets=sets, all_trec=False),)
        for name, place, sets in (
            ("prefs_num_prefs_poss", 34, _PREFS),
            ("prefs_num_prefs_ful", 35, _PREFS),
            ("prefs_num_prefs_ful_ret", 36, _PREFS),
            ("prefs_simp", 37, _PREFS),
            ("prefs_pair", 38, _PREFS),
            ("prefs_avgjg", 39, _PREFS),
            ("prefs_avgjg_Rnonrel", 40, _ALL_PREFS),
            ("prefs_simp_ret", 41, _ALL_PREFS),
            ("prefs_pair_ret", 42, _ALL_PREFS),
            ("prefs_avgjg_ret", 43, _ALL_PREFS),
            ("prefs_avgjg_Rnonrel_ret", 44, _ALL_PREFS),
            ("prefs_simp_imp", 45, _ALL_PREFS),
            ("prefs_pair_imp", 46, _ALL_PREFS),
            ("prefs_avgjg_imp", 47, _ALL_PREFS),
        )
    },
}
