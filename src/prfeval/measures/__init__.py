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

import copyreg
import math
import pickle
from collections.abc import Sequence
from typing import Any

from prfeval.core import counts as C
from prfeval.core.checks import MAX_BETA
from prfeval.core.ranking import RankingNeeds
from prfeval.core.registry import Measure, MeasureDef, Param, Registry
from prfeval.measures import contingency, gains, interpolated, judged, ranked, text

__all__ = [
    "DEFAULT_MEASURES",
    "PARAMS",
    "REGISTRY",
    "TREC_REGISTRY",
    "Measure",
    "MeasureDef",
    "RankingNeeds",
    "definition_named",
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
        "weight of precision in 1/(a/P + (1-a)/R); beta^2 = (1-a)/a",
        lambda v: 1 / (1 + MAX_BETA**2) <= v <= 1,  # beta^2 = (1-a)/a stays finite
        f"a number in [{1 / (1 + MAX_BETA**2):g}, 1]",
    ),
}



def _parse_gains(text: str) -> tuple[tuple[int, float], ...]:
    """``{0:0,1:1,2:3}`` (ir_measures' syntax) as ((grade, gain), ...), in the order given."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise ValueError(text)
    pairs: list[tuple[int, float]] = []
    for item in filter(None, (part.strip() for part in body[1:-1].split(","))):
        grade, sep, gain = item.partition(":")
        if not sep:
            raise ValueError(text)
        pairs.append((int(grade), float(gain)))
    if len({g for g, _ in pairs}) != len(pairs) or not pairs:
        raise ValueError(text)
    return tuple(pairs)


def _show_gains(pairs: tuple[tuple[int, float], ...]) -> str:
    return "{" + ",".join(f"{g}:{_num(v)}" for g, v in pairs) + "}"


def _parse_levels(text: str) -> tuple[float, ...]:
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise ValueError(text)
    return tuple(float(v) for v in body[1:-1].split(",") if v.strip())


def _show_levels(levels: tuple[float, ...]) -> str:
    return "[" + ",".join(_num(v) for v in levels) + "]"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _dcg(text: str) -> str:
    value = text.strip().strip("'\"")
    if value not in ("log2", "exp-log2"):
        raise ValueError(text)
    return value


def _weight(name: str, default: float, what: str) -> Param:
    return Param(
        name,
        float,
        default,
        f"weight of each {what} in Utility (default {_num(default)})",
        math.isfinite,
        "a finite number",
    )


PARAMS.update(
    {
        "gains": Param(
            "gains",
            _parse_gains,
            None,
            "gain of each grade, {grade:gain,...} (grades not named keep their grade; "
            "-1 = unjudged, -2 = negatively judged)",
            lambda v: all(math.isfinite(g) for _, g in v),
            "a map {grade:gain,...} of integer grades to numbers",
            _show_gains,
        ),
        "dcg": Param(
            "dcg",
            _dcg,
            "log2",
            "'log2' (gain / log2(rank + 1)) or 'exp-log2' ((2^gain - 1) / log2(rank + 1))",
            lambda v: True,
            "'log2' or 'exp-log2'",
            lambda v: f"'{v}'",
        ),
        "p": Param(
            "p",
            float,
            0.8,
            "persistence: the chance of going on to the next rank (RBP; default 0.8)",
            lambda v: 0.0 < v < 1.0,
            "a number in (0, 1)",
        ),
        "max_grade": Param(
            "max_grade",
            int,
            4,
            "the top grade of the scale (ERR; default 4, as gdeval)",
            lambda v: v >= 1,
            "an integer >= 1",
        ),
        "tp": _weight("tp", 1.0, "relevant retrieved document (TP)"),
        "fp": _weight("fp", -1.0, "non-relevant retrieved document (FP)"),
        "fn": _weight("fn", 0.0, "relevant document not retrieved (FN)"),
        "tn": _weight("tn", 0.0, "non-relevant document not retrieved (TN)"),
        "levels": Param(
            "levels",
            _parse_levels,
            interpolated.STANDARD_RECALL_LEVELS,
            "recall levels, [0.25,0.5,0.75] (IPrecAvg; default 0, 0.1, ..., 1)",
            lambda v: bool(v) and all(0.0 <= r <= 1.0 for r in v),
            "a list [r,...] of numbers in [0, 1]",
            _show_levels,
        ),
    }
)

_REGISTRY = Registry(
    (
        *contingency.DEFINITIONS,
        *interpolated.DEFINITIONS,
        *judged.DEFINITIONS,
        *ranked.DEFINITIONS,
        *gains.DEFINITIONS,
        *text.DEFINITIONS,
    ),
    PARAMS,
    C.beta_from_alpha,
)

#: The registry itself (its parser and trec_eval's names), for the trec_eval command.
TREC_REGISTRY = _REGISTRY

#: Every measure, by canonical name.
REGISTRY: dict[str, MeasureDef] = _REGISTRY.definitions



def definition_named(name: str) -> MeasureDef:
    """The registry's definition with canonical name ``name``: how a pickled measure finds
    its definition again (a definition holds functions, so it travels by name)."""
    return REGISTRY[name]


def _reduce_definition(d: MeasureDef) -> str | tuple[Any, ...]:
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
    return RankingNeeds(None if ks is None else frozenset(ks), nonrelevant_alike=alike)


def _tells_nonrelevant(m: Measure) -> bool:
    """Whether ``m`` can tell unjudged, judged-0 and negatively judged documents apart by
    where they are ranked."""
    if m.definition.tells_unjudged:
        return True
    if m.rel is not None and m.rel < 1:
        return True
    return any(grade <= 0 and gain != 0 for grade, gain in m.get("gains") or ())
