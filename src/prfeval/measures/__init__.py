"""The measure registry: every measure declared once, and the parser for measure names.

:data:`REGISTRY` holds one :class:`~prfeval.core.registry.MeasureDef` per measure, from the
modules of this package (one per family: :mod:`~prfeval.measures.contingency` for the measures
of a contingency table, :mod:`~prfeval.measures.interpolated` for interpolated precision). The
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

import math
from collections.abc import Sequence

from prfeval.core import counts as C
from prfeval.core.ranking import RankingNeeds
from prfeval.core.registry import Measure, MeasureDef, Param, Registry
from prfeval.measures import contingency, interpolated, judged

__all__ = [
    "DEFAULT_MEASURES",
    "PARAMS",
    "REGISTRY",
    "Measure",
    "MeasureDef",
    "RankingNeeds",
    "lookup",
    "parse_measures",
    "ranking_needs",
]

#: Every parameter a measure may take, declared once.
PARAMS: dict[str, Param] = {
    "rel": Param(
        "rel",
        int,
        None,
        "minimum grade counted as relevant (default: -l, 1)",
        lambda v: True,
        "an integer",
    ),
    "beta": Param(
        "beta",
        float,
        1.0,
        "recall weighs beta times as much as precision",
        lambda v: math.isfinite(v) and v >= 0,
        "a number >= 0",
    ),
    "alpha": Param(
        "alpha",
        float,
        None,
        "weight of precision in 1/(a/P + (1-a)/R); beta^2 = (1-a)/a",
        lambda v: 0 < v <= 1,
        "a number in (0, 1]",
    ),
}

_REGISTRY = Registry(
    (*contingency.DEFINITIONS, *interpolated.DEFINITIONS, *judged.DEFINITIONS),
    PARAMS,
    C.beta_from_alpha,
)

#: Every measure, by canonical name.
REGISTRY: dict[str, MeasureDef] = _REGISTRY.definitions

#: Measures reported when none are asked for.
DEFAULT_MEASURES = (
    "NumQ NumRet NumRel NumRelRet SetP SetR SetF P@5 P@10 P@20 R@10 R@100 R@1000 F@10 Rprec"
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
    """
    ks: set[int] = set()
    for m in measures:
        reads = m.definition.reads
        if reads == "top_k" and m.k is not None:
            ks.add(m.k)
        elif reads != "set":
            return RankingNeeds(None)
    return RankingNeeds(frozenset(ks))
