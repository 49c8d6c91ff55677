"""How a measure is declared: :class:`MeasureDef`, and :class:`Measure`, one as asked for.

A :class:`MeasureDef` is the one declaration of a measure: its names (canonical and aliases),
its parameters, its formula and edge cases, what part of a ranking it reads, how it is averaged
over queries, whether higher is better, and the one vectorised function that computes it. The
entries themselves live in :mod:`prfeval._measures`; :class:`~prfeval._core.registry.Registry`
holds them and parses names.

A measure is computed in one of two ways, declared by which function the entry has:

* ``counts``: a function of the contingency table (:class:`~prfeval._core.counts.Counts`) of
  the whole retrieved set, of the top k or of the top R (``depth``). It gets a micro average
  (the same function of the pooled table) besides the macro one.
* ``ranked``: a function of the judged ranking itself (AP, nDCG, interpolated precision):
  per-query values from the CSR arrays of a :class:`~prfeval._core.ranking.JudgedRanking`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from prfeval._core.counts import Counts
    from prfeval._core.preferences import PreferenceCounts
    from prfeval._core.ranking import JudgedRanking

__all__ = [
    "Aggregation",
    "BelowZero",
    "Cutoff",
    "Depth",
    "Measure",
    "MeasureDef",
    "Param",
    "Reads",
    "number_text",
]

FloatArray = npt.NDArray[np.float64]

#: What may follow ``@`` in a name: nothing, a cutoff k (required or optional), a recall level.
Cutoff = Literal["none", "required", "optional", "level"]
#: Which contingency table a count-based measure reads: the whole set, the top k, the top R.
Depth = Literal["set", "k", "R"]
#: What a measure reads of a ranking: the retrieved set (order irrelevant), the set of the
#: top k, or the order of every rank. Ties need ordering only where a measure can see them.
Reads = Literal["set", "top_k", "ranks"]
#: How per-query values are averaged: the mean, a total, or a geometric mean (trec_eval's gm_).
#: Text measures are not averaged: ``"none"`` has per-query text only (trec_eval's relstring),
#: ``"shared"`` one text for the whole run (its runid).
Aggregation = Literal["mean", "sum", "gmean", "none", "shared"]
#: How a measure reads a relevance level below 0, which only ``prfeval trec_eval -l`` gives
#: (see :attr:`MeasureDef.below_zero`).
BelowZero = Literal["ranks", "judged"]


@dataclass(frozen=True)
class Param:
    """A parameter a measure accepts: its type, default, valid range and meaning."""

    name: str
    type: Callable[[str], Any]
    default: object
    doc: str
    check: Callable[[Any], bool]
    valid: str
    #: How a value is written back in a name (``{1:3,2:9}``, ``'exp-log2'``); it must parse
    #: back through ``type`` to the same value.
    show: Callable[[Any], str] | None = None

    def render(self, value: Any) -> str:
        """``value`` as written in a name."""
        return self.show(value) if self.show is not None else _fmt(value)


@dataclass(frozen=True)
class MeasureDef:
    """One measure, declared once.

    Attributes
    ----------
    name
        Canonical name (``P``, ``SetF``, ...); with a cutoff it is written ``P@10``.
    summary
        One line saying what it measures.
    formula
        The formula, over the contingency table or the ranking.
    counts
        For a measure of a contingency table: per-unit values from a
        :class:`~prfeval._core.counts.Counts`, given the parsed measure and the value to use
        for 0/0 (0 for retrieval; classification may choose another).
    ranked
        For a measure of the ranking itself: per-query values from a
        :class:`~prfeval._core.ranking.JudgedRanking`, the parsed measure and the relevance
        level.
    text
        For a measure whose value is text (trec_eval's runid and relstring): per-query
        strings from the ranking, the parsed measure and the relevance level.
    preferences
        For a measure of preference judgments (trec_eval's ``prefs_*``): per-query values
        from the :class:`~prfeval._core.preferences.PreferenceCounts` computed once per
        evaluation and the parsed measure. Such a measure needs preferences, not qrels; its
        being given is the flag (:attr:`needs_preferences`). Exactly one of ``counts``,
        ``ranked``, ``text`` and ``preferences`` is given.
    depth
        For ``counts``: the table of the whole retrieved set, of the top k, or of the top R.
    cutoff
        What follows ``@``: nothing (``"none"``), a cutoff k (``"required"`` or
        ``"optional"``) or a level (``"level"``: a recall level, IPrec@0.5, or a multiple of
        R, RprecMult@1.5).
    level_max
        For ``"level"``: the largest level accepted (``None``: no bound).
    reads
        What the measure reads of a ranking, so that tied documents are put in order only
        where it can tell (``"set"``, ``"top_k"`` or ``"ranks"``).
    aggregation
        ``"mean"`` over queries, ``"sum"`` (counts, reported as totals), ``"gmean"``, or for
        text ``"none"`` (per query only) and ``"shared"`` (one text for the run).
    params
        Parameter names it accepts (keys of the registry's parameters).
    needs_tn
        Whether it needs true negatives (the collection size).
    micro
        Whether a measure of a contingency table also gets a micro average (the same
        function of the pooled table); ``False`` where that would not be an average
        (Utility, a weighted sum).
    of_means
        For F-like measures: the value computed from the macro precision and macro recall
        of the same tables (``f_of_means``), as ``of_means(p, r, measure)``.
    aliases
        Other names accepted (matched case-insensitively).
    conventions
        Edge cases: what it is when nothing is retrieved, nothing is relevant, ...
    higher_is_better
        ``False`` for measures where lower is better (SetE, Fallout): comparisons read the
        sign of a difference from it.
    classification
        The key under which classification reports it (``precision``), if it does.
    bounded
        Whether its values with the unjudged retrieved documents taken as non-relevant and
        as relevant bound the value they would have if they were judged: true of measures of
        the retrieved documents alone (precision at k, reciprocal rank), not of those that
        also read the relevant documents never retrieved (recall, AP, nDCG), which are not
        all judged either.
    tells_unjudged
        Whether it tells unjudged documents from judged non-relevant ones (or from one
        another by grade below 1) by where they are ranked: Judged@k, relstring,
        num_nonrel_judged_ret. Tied documents with no positive grade are otherwise left in
        file order, since most measures cannot tell them apart; for these the aligner puts
        them in trec_eval's order.
    subtopics
        Whether it reads the judgments per subtopic (diversity measures): the aligner then
        builds the ranking's :class:`~prfeval._core.ranking.SubtopicView`.
    below_zero
        How it reads a relevance level below 0 (only ``prfeval trec_eval -l -1`` asks for
        one: trec_eval 9.0.8 takes it). ``"ranks"``: a retrieved document is relevant where
        trec_eval's value for it is at least the level (its grade, -1 when it is not in the
        judgments, -2 when judged with a negative grade: see
        :attr:`~prfeval._core.ranking.JudgedRanking.trec_rel`), while R counts the judgments
        graded 0 or more (P, recall, AP, RR, ...). ``"judged"``: as level 0, since it reads
        only trec_eval's counts of relevant documents retrieved and judged, which never
        include a document graded below 0 (set_P, set_F, utility, bpref, infAP, ...).
    """

    name: str
    summary: str
    formula: str
    counts: Callable[[Counts, Measure, float], FloatArray] | None = None
    ranked: Callable[[JudgedRanking, Measure, int], FloatArray] | None = None
    text: Callable[[JudgedRanking, Measure, int], npt.NDArray[np.object_]] | None = None
    depth: Depth = "set"
    cutoff: Cutoff = "none"
    level_max: float | None = 1.0
    reads: Reads = "set"
    aggregation: Aggregation = "mean"
    params: tuple[str, ...] = ("rel",)
    needs_tn: bool = False
    micro: bool = True
    of_means: Callable[[float, float, Measure], float] | None = None
    aliases: tuple[str, ...] = ()
    conventions: str = ""
    higher_is_better: bool = True
    classification: str | None = None
    bounded: bool = False
    tells_unjudged: bool = False
    subtopics: bool = False
    preferences: Callable[[PreferenceCounts, Measure], FloatArray] | None = None
    below_zero: BelowZero = "ranks"

    def __post_init__(self) -> None:
        given = sum(
            f is not None for f in (self.counts, self.ranked, self.text, self.preferences)
        )
        if given != 1:
            raise TypeError(
                f"{self.name}: declare exactly one of counts=, ranked=, text= and preferences="
            )
        if (self.text is not None) != (self.aggregation in ("none", "shared")):
            raise TypeError(f"{self.name}: text measures, and only they, aggregate as text")

    @property
    def needs_preferences(self) -> bool:
        """Whether it reads preference judgments (trec_eval's ``prefs_*``), not qrels."""
        return self.preferences is not None

    @property
    def is_total(self) -> bool:
        """Whether the measure is a count reported as a total (NumRet, TP, ...)."""
        return self.aggregation == "sum"

    @property
    def is_text(self) -> bool:
        """Whether its values are text (runid, relstring), kept apart from the numbers."""
        return self.text is not None

    @property
    def direction(self) -> int:
        """+1 when higher is better, -1 when lower is better, 0 for totals and text (no
        better or worse): what comparisons read the sign of a difference from."""
        if self.is_total or self.is_text:
            return 0
        return 1 if self.higher_is_better else -1

    @property
    def has_micro(self) -> bool:
        """Whether it has a micro average: the measure of the pooled contingency tables."""
        return self.counts is not None and not self.is_total and self.micro

    @property
    def usage(self) -> str:
        """How the name is written: ``P@k``, ``AP[@k]``, ``IPrec@r`` or just ``SetP``."""
        return {
            "required": f"{self.name}@k",
            "optional": f"{self.name}[@k]",
            "level": f"{self.name}@r",
        }.get(self.cutoff, self.name)

    def example(self, k: float = 10) -> str:
        """A valid name for it: ``P@10``, ``IPrec@0.5``, ``SetP``."""
        if self.cutoff == "level":
            top = 1.0 if self.level_max is None else self.level_max
            return f"{self.name}@{_fmt(k if 0 <= k <= top else 0.5)}"
        return f"{self.name}@{_fmt(k)}" if self.cutoff == "required" else self.name

    @property
    def averages(self) -> str:
        """The averages reported for it, in words: ``total``, ``macro, micro, f_of_means``."""
        if self.is_total:
            return "total"
        if self.is_text:
            return "text, per query" if self.aggregation == "none" else "text, for the run"
        first = "geometric mean" if self.aggregation == "gmean" else "macro"
        extra = ["micro"] if self.has_micro else []
        extra += ["f_of_means"] if self.of_means else []
        return ", ".join([first, *extra])


@dataclass(frozen=True)
class Measure:
    """A measure as asked for: definition, parameters, cutoff and the label the user typed.

    ``params`` holds the values of the definition's other parameters (gains, p, ...) that
    differ from their defaults, as ``(name, value)`` pairs sorted by name, so that equal
    measures compare and hash equal; ``rendered`` is how each is written in ``name``.
    ``printed`` is trec_eval's printed name when the measure was asked by its trec_eval
    name (``P.10`` prints ``P_10``). ``values`` holds every parameter of the definition
    (but ``rel``, ``beta`` and ``alpha``, which are fields of their own) with its declared
    default filled in, resolved when the registry builds the measure: a measure's function
    reads them with :meth:`param` and never writes a default of its own.
    """

    definition: MeasureDef
    k: int | None = None
    rel: int | None = None
    beta: float = 1.0
    label: str = ""
    explicit: dict[str, object] = field(default_factory=dict, compare=False)
    recall_level: float | None = None
    params: tuple[tuple[str, Any], ...] = ()
    printed: str | None = field(default=None, compare=False)
    rendered: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    values: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    def get(self, name: str, default: Any = None) -> Any:
        """The value of parameter ``name``, or ``default`` when it was not given."""
        for key, value in self.params:
            if key == name:
                return value
        return default

    def param(self, name: str) -> Any:
        """The value of the definition's parameter ``name``: as given, or its declared
        default. A KeyError for a parameter the definition does not declare (or a measure
        not built by the registry)."""
        for key, value in self.values:
            if key == name:
                return value
        raise KeyError(f"{self.definition.name} has no resolved parameter {name!r}")

    @property
    def name(self) -> str:
        """The canonical form, which parses back to the same measure: ``P(rel=2)@10``."""
        shown: dict[str, str] = {
            k: _fmt(v) for k, v in self.explicit.items() if k in ("rel", "beta")
        }
        if "alpha" in self.explicit:
            shown["beta"] = _fmt(self.beta)
        if "beta" in shown:
            shown["beta"] = _fmt(self.beta)
        rendered = dict(self.rendered)
        for key, value in self.params:
            if key in self.definition.params:  # beta2 (set_F.x) is internal
                shown[key] = rendered.get(key, _fmt(value))
        params = ",".join(f"{k}={v}" for k, v in sorted(shown.items()))
        text = self.definition.name + (f"({params})" if params else "")
        if self.recall_level is not None:
            return f"{text}@{_fmt(self.recall_level)}"
        return text + (f"@{self.k}" if self.k is not None else "")

    @property
    def trec_label(self) -> str:
        """trec_eval's printed name when asked by a trec_eval name, else the label."""
        return self.printed or str(self)

    def __str__(self) -> str:
        return self.label or self.name


def number_text(value: object) -> str:
    """A parameter value that parses back to the same number (repr keeps every digit):
    ``1.0`` as ``1``, ``0.25`` as ``0.25``, anything else as ``str`` gives it."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


_fmt = number_text
