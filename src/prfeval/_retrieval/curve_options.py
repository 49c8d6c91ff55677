"""The options of a curve, declared once: its F weight, its cutoffs and its recall levels.

:data:`CURVE_OPTIONS` declares each option as an :class:`~prfeval._core.option_table.Option`
(its type, default, check, documentation and the setting a result shows), as
:data:`~prfeval._comparison.options.COMPARISON_OPTIONS` declares a comparison's.
:class:`CurveOptions` is made from it. The public :func:`~prfeval._retrieval.curves.curve`
keeps its keyword arguments and builds one :class:`CurveOptions`; the code below it
(:func:`~prfeval._retrieval.curves.curves_from_ranking`,
:class:`~prfeval._retrieval.curve_sink.CurveSink`) takes the object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prfeval._core import checks
from prfeval._core.option_table import DeclaredOptions, Flag, Option, options_class
from prfeval._measures.interpolated import STANDARD_RECALL_LEVELS

__all__ = ["CURVE_OPTIONS", "CurveOptions"]


def _reach_levels(name: str, value: Any) -> tuple[float, ...]:
    return checks.numbers_in(name, value, above=0, maximum=1)


def _iprec_levels(name: str, value: Any) -> tuple[float, ...]:
    return checks.numbers_in(name, value, minimum=0, maximum=1)


#: Every option of a curve, declared once.
CURVE_OPTIONS: tuple[Option, ...] = (
    Option(
        "beta",
        "float",
        1.0,
        lambda name, value: checks.beta(value, name),
        "F weight, >= 0: recall counts beta times as much as precision (van Rijsbergen, "
        "1979).",
        flag=Flag(
            ("-b", "--beta"),
            "F weight: recall counts beta times as much as precision.",
            kind="float",
            default=1.0,
            show_default=True,
        ),
    ),
    Option(
        "max_k",
        "int | None",
        None,
        lambda name, value: checks.integer(name, value, minimum=1, optional=True),
        "Report cutoffs k = 1 .. max_k only. It does not shorten the ranking: recall levels, "
        "interpolated precision and R-precision still see every retrieved document. "
        "``None``: every cutoff, to the longest ranking.",
        flag=Flag(
            ("-k", "--max-k"),
            "Report cutoffs 1..K only (the ranking itself is not cut; see -M).",
            kind="int",
            minimum=1,
            metavar="K",
        ),
        setting=lambda c: c.max_k,
    ),
    Option(
        "recall_levels",
        "tuple[float, ...]",
        (0.5,),
        _reach_levels,
        "Recall levels in (0, 1]: for each, the first cutoff whose recall reaches it.",
        given="Sequence[float]",
        flag=Flag(
            ("-r", "--recall-at"),
            "Report the first rank at which recall reaches LEVEL (repeatable). "
            "[default: 0.5]",
            kind="float",
            multiple=True,
            metavar="LEVEL",
            dest="recall_at",
            # Each level once, in the order given; none given keeps the default (0.5).
            convert=lambda levels: tuple(dict.fromkeys(levels)) or None,
        ),
    ),
    Option(
        "iprec_levels",
        "tuple[float, ...]",
        STANDARD_RECALL_LEVELS,
        _iprec_levels,
        "Recall levels in [0, 1] of the interpolated precision (the 11 standard levels "
        "0, 0.1, ..., 1 by default).",
        given="Sequence[float]",
    ),
)


@dataclass(frozen=True)
@options_class(
    CURVE_OPTIONS,
    summary="What a curve computes: its F weight, the cutoffs it reports and the recall "
    "levels it looks for.",
    notes="Every field is declared once, in :data:`CURVE_OPTIONS`; the options are checked "
    "when the object is made, before any run is read.",
)
class CurveOptions(DeclaredOptions):
    # Each field as CURVE_OPTIONS declares it, in its order (options_class checks them on
    # import); checking, building and the settings a result shows (max_k) from
    # DeclaredOptions.
    beta: float = 1.0
    max_k: int | None = None
    recall_levels: tuple[float, ...] = (0.5,)
    iprec_levels: tuple[float, ...] = STANDARD_RECALL_LEVELS
