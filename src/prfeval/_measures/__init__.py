"""The measure registry: every measure declared once, and the parser for measure names.

:data:`REGISTRY` holds one :class:`~prfeval._core.measure_def.MeasureDef` per measure, from the
modules of this package (one per family: :mod:`~prfeval._measures.contingency` for the measures
of a contingency table, :mod:`~prfeval._measures.interpolated` for interpolated precision). The
parser, ``prfeval measures``, suggestions for misspelt names, the docs, the kernel, the
aggregation, compare, classification and the registry-wide tests all read it; there is no
second list of names. Adding a measure is one entry in a family module and one vectorised
function.

Names parse as ``Name(param=value, ...)@k``, as ir_measures writes them (``P@10``,
``P(rel=2)@10``, ``SetF(beta=2)``), and trec_eval's names are accepted so that scripts can
switch: ``P.10``/``P_10``, ``recall.100``, ``set_P``, ``set_recall``, ``set_F``, ``set_F.x``,
``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``Rprec``; ``P`` and ``recall`` alone
expand to trec_eval's cutoffs 5, 10, 15, 20, 30, 100, 200, 500, 1000.

.. warning:: trec_eval's ``set_F.x`` takes x as **beta squared**: ``set_F.2`` is F with
   beta = sqrt(2), not F2. prfeval's ``SetF(beta=2)`` is the true F2, (1 + 4) P R / (4 P + R)
   (van Rijsbergen, 1979; Manning, Raghavan and Schütze, 2008, §8.3).
"""

from __future__ import annotations

import copyreg
import pickle
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from prfeval._core import counts as C
from prfeval._core.checks import MAX_BETA
from prfeval._core.errors import MeasureError
from prfeval._core.measure_def import Measure, MeasureDef, Param
from prfeval._core.ranking import RankingNeeds
from prfeval._core.registry import Registry
from prfeval._measures import (
    c_sort,
    contingency,
    diversity,
    gains,
    interpolated,
    judged,
    judgment_groups,
    prefs,
    ranked,
    rbp_trec,
    text,
    trec_table,
    user_models,
)

if TYPE_CHECKING:  # the measures of users' own, imported when one is declared or unpickled
    from prfeval._measures.user import UserMeasure

__all__ = [
    "DEFAULT_MEASURES",
    "PARAMS",
    "REGISTRY",
    "TREC_EVAL_UNSUPPORTED",
    "TREC_EVAL_UNSUPPORTED_SETS",
    "TREC_REGISTRY",
    "Measure",
    "MeasureDef",
    "RankingNeeds",
    "definition_named",
    "forget_user_measure",
    "lookup",
    "parse_measures",
    "ranking_needs",
    "register_user_definition",
    "user_definition",
]

#: Every parameter a measure may take, declared once: those every family shares here, and
#: each family's own (with its default) in its module's ``PARAMS``.
PARAMS: dict[str, Param] = {
    "rel": Param(
        "rel",
        int,
        None,
        "minimum grade counted as relevant (default: -l, 1)",
        lambda v: 0 <= v < 2**63,  # negative grades are never relevant (as -l)
        "an integer >= 0",
    ),
    "beta": Param(
        "beta",
        float,
        1.0,
        "recall weighs beta times as much as precision",
        lambda v: 0 <= v <= MAX_BETA,
        f"a number in [0, {MAX_BETA:g}]",
    ),
    "alpha": Param(
        "alpha",
        float,
        None,
        "weight of precision in 1/(a/P + (1-a)/R), beta^2 = (1-a)/a; for the diversity "
        "measures, the redundancy penalty (0: plain nDCG over subtopics)",
        # An F measure needs beta^2 = (1-a)/a finite: the registry holds it to ALPHA_FOR_F.
        lambda v: 0 <= v <= 1,
        "a number in [0, 1]",
    ),
}


def _add_params(*declared: tuple[Param, ...]) -> None:
    """Add each family's parameters to :data:`PARAMS`, each declared once."""
    for params in declared:
        for param in params:
            if param.name in PARAMS:
                raise TypeError(f"parameter {param.name} declared twice")
            PARAMS[param.name] = param


# Each family's own, after those every family shares (the order `prfeval measures` lists).
_add_params(
    gains.PARAMS,
    ranked.PARAMS,
    contingency.PARAMS,
    interpolated.PARAMS,
    diversity.PARAMS,
    user_models.PARAMS,
)

#: trec_eval 9.0.8's measures that prfeval does not compute, and its sets of them: none now
#: (the preference measures are in :mod:`prfeval._measures.prefs`).
TREC_EVAL_UNSUPPORTED: tuple[str, ...] = ()
TREC_EVAL_UNSUPPORTED_SETS: tuple[str, ...] = ()

_REGISTRY = Registry(
    (
        *contingency.DEFINITIONS,
        *interpolated.DEFINITIONS,
        *judged.DEFINITIONS,
        *ranked.DEFINITIONS,
        *gains.DEFINITIONS,
        *text.DEFINITIONS,
        *diversity.DEFINITIONS,
        *rbp_trec.DEFINITIONS,
        *judgment_groups.DEFINITIONS,
        *prefs.DEFINITIONS,
        *user_models.DEFINITIONS,
    ),
    PARAMS,
    C.beta_from_alpha,
    trec_names=trec_table.TREC_NAMES,
    trec_unsupported=TREC_EVAL_UNSUPPORTED,
    trec_unsupported_sets=TREC_EVAL_UNSUPPORTED_SETS,
    trec_cutoff_order=c_sort.trec_cutoff_order,
)

#: The registry itself (its parser, and trec_eval's names, table and sets), for the trec_eval
#: command.
TREC_REGISTRY = _REGISTRY

#: Every measure, by canonical name.
REGISTRY: dict[str, MeasureDef] = _REGISTRY.definitions



def definition_named(name: str) -> MeasureDef:
    """The registry's definition with canonical name ``name``: how a pickled measure finds
    its definition again (a definition holds functions, so it travels by name)."""
    return REGISTRY[name]


def register_user_definition(d: MeasureDef) -> None:
    """Add a user's measure (:func:`prfeval._measures.user.measure`) to the registry; a
    built-in name is refused, a user's measure of the same name replaced."""
    from prfeval._measures.user import is_user_measure

    _REGISTRY.add(d, replaces=is_user_measure)


def forget_user_measure(name: str) -> None:
    """Remove the user's measure ``name`` from the registry (tests, a redefinition)."""
    d = REGISTRY.get(name)
    if d is None or not _is_user_measure(d):
        raise MeasureError(f"{name!r} is not a measure of your own")
    _REGISTRY.remove(name)


def _is_user_measure(d: MeasureDef) -> bool:
    """Whether ``d`` is a user's measure: never before one was declared (their module, which
    declares them, is then imported)."""
    if "prfeval._measures.user" not in sys.modules:
        return False
    from prfeval._measures.user import is_user_measure

    return is_user_measure(d)


def user_definition(declared: UserMeasure) -> MeasureDef:
    """The registry's definition of a user's measure unpickled in another process (a Spark
    executor): registered there on first sight, so it travels with its function."""
    d = REGISTRY.get(declared.name)
    if d is None or d.ranked != declared:
        from prfeval._measures.user import definition_of

        register_user_definition(definition_of(declared))
    return REGISTRY[declared.name]


def _reduce_definition(d: MeasureDef) -> str | tuple[Any, ...]:
    if _is_user_measure(d):
        return (user_definition, (d.ranked,))
    if REGISTRY.get(d.name) is not d:
        raise pickle.PicklingError(f"measure definition {d.name!r} is not the registry's")
    return (definition_named, (d.name,))


# Measures pickle (to another process, or to disk) with their definitions by name.
copyreg.pickle(MeasureDef, _reduce_definition)

#: Measures reported when none are asked for.
DEFAULT_MEASURES = (
    "NumQ NumRet NumRel NumRelRet SetP SetR SetF P@5 P@10 P@20 R@10 R@100 R@1000 F@10 Rprec AP "
    "nDCG@10"
)


def lookup(name: str) -> MeasureDef:
    """The definition for a name or alias (case-insensitive), or a MeasureError with suggestions."""
    return _REGISTRY.lookup(name)


def suggest(name: str) -> str:
    """``; did you mean ...?`` for an unknown measure name (empty when nothing is close)."""
    return _REGISTRY.suggest(name)


def parse_measures(
    spec: str | Measure | Sequence[str | Measure] | None,
) -> list[Measure]:
    """Parse measure names; several may share one string, separated by spaces.

    ``None`` gives :data:`DEFAULT_MEASURES`.

    >>> [m.name for m in parse_measures("P@10 R(rel=2)@100 SetF(beta=2)")]
    ['P@10', 'R(rel=2)@100', 'SetF(beta=2)']
    >>> [str(m) for m in parse_measures("P.5,10 set_F.2")]
    ['P_5', 'P_10', 'set_F.2']
    """
    return _REGISTRY.parse(DEFAULT_MEASURES if spec is None else spec)


def ranking_needs(measures: Sequence[Measure]) -> RankingNeeds:
    """What ``measures`` read of a ranking (see :class:`RankingNeeds`).

    Set measures and counts read the retrieved set; ``P@k``-like ones the set of the top k;
    R-precision (a cutoff per query) and interpolated precision the order of every rank.

    >>> sorted(ranking_needs(parse_measures("P@10 R@100 SetF")).cutoffs)
    [10, 100]
    >>> ranking_needs(parse_measures("P@10 Rprec")).cutoffs is None
    True
    >>> ranking_needs(parse_measures("AP nDCG@10")).nonrelevant_alike
    True
    >>> ranking_needs(parse_measures("AP relstring")).nonrelevant_alike
    False
    """
    ks: set[int] | None = set()
    for m in measures:
        reads = m.definition.reads
        if reads == "top_k" and m.k is not None and ks is not None:
            ks.add(m.k)
        elif reads not in ("set", "top_k"):
            ks = None
    alike = all(not _tells_nonrelevant(m) for m in measures)
    subtopics = any(m.definition.subtopics for m in measures)
    return RankingNeeds(
        None if ks is None else frozenset(ks), nonrelevant_alike=alike, subtopics=subtopics
    )


def _tells_nonrelevant(m: Measure) -> bool:
    """Whether ``m`` can tell unjudged, judged-0 and negatively judged documents apart by
    where they are ranked."""
    if m.definition.tells_unjudged:
        return True
    if m.rel is not None and m.rel < 1:
        return True
    return any(grade <= 0 and gain != 0 for grade, gain in m.get("gains") or ())
