"""How a measure is declared, and how measure names are parsed: the registry's machinery.

A :class:`MeasureDef` is the one declaration of a measure: its names (canonical, aliases and
trec_eval's, as typed and as printed), its parameters, its formula and edge cases, what part of
a ranking it reads, how it is averaged over queries, whether higher is better, and the one
vectorised function that computes it. A :class:`Registry` holds the declarations and answers
everything that needs them: the parser (:meth:`Registry.parse`), suggestions for misspelt
names, ``prfeval measures`` and the docs. The entries themselves live in
:mod:`prfeval._measures`.

Names parse as ``Name(param=value, ...)@k``, as ir_measures writes them (``P@10``,
``P(rel=2)@10``, ``SetF(beta=2)``, ``IPrec@0.5``). trec_eval's names are parsed from each
entry's :class:`TrecName`: ``P.10`` and ``P_10``, ``P.5,10``, ``P`` alone for trec_eval's
cutoffs, ``set_F.x`` (x is beta squared), ``iprec_at_recall``.

A measure is computed in one of two ways, declared by which function the entry has:

* ``counts``: a function of the contingency table (:class:`~prfeval._core.counts.Counts`) of
  the whole retrieved set, of the top k or of the top R (``depth``). It gets a micro average
  (the same function of the pooled table) besides the macro one.
* ``ranked``: a function of the judged ranking itself (AP, nDCG, interpolated precision):
  per-query values from the CSR arrays of a :class:`~prfeval._core.ranking.JudgedRanking`.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from prfeval._core.checks import MAX_BETA, MAX_INTEGER
from prfeval._core.errors import MeasureError

if TYPE_CHECKING:
    from prfeval._core.counts import Counts
    from prfeval._core.preferences import PreferenceCounts
    from prfeval._core.ranking import JudgedRanking

__all__ = [
    "ALL_TREC",
    "C_LONG_MAX",
    "Aggregation",
    "BelowZero",
    "Cutoff",
    "Depth",
    "Measure",
    "MeasureDef",
    "Param",
    "Reads",
    "Registry",
    "TrecEvalRefusal",
    "TrecName",
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
#: How trec_eval spells the parameters after ``name.``: cutoffs (``P.5,10``), levels
#: (``iprec_at_recall.0.1,0.5``), x = beta squared (``set_F.0.5``), gain pairs
#: (``ndcg.1=3,2=9``) or a list of numbers bound to named parameters (``utility.2,-1,0,0``).
TrecParam = Literal["cutoffs", "levels", "beta_squared", "gains", "values"]
#: trec_eval's named sets of measures besides ``all_trec`` (the whole table).
TrecSet = Literal["official", "set", "qrels_jg", "all_prefs", "prefs"]
#: What trec_eval's summary (``all``) row of a measure holds (see :class:`TrecName`).
SummaryValue = Literal["average", "queries", "judged_relevant"]
#: What trec_eval 10.0 prints for a judged query without results (see :class:`TrecName`).
Placeholder = Literal["measured", "zero"]
#: How a measure reads a relevance level below 0, which only ``prfeval trec_eval -l`` gives
#: (see :attr:`MeasureDef.below_zero`).
BelowZero = Literal["ranks", "judged"]
#: trec_eval's name for the set of every measure of its table.
ALL_TREC = "all_trec"


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
class TrecName:
    """trec_eval's name for a measure, as typed after ``-m`` and as trec_eval prints it.

    Attributes
    ----------
    name
        The name as typed: ``P``, ``recall``, ``set_F``, ``iprec_at_recall``, ``num_q``.
    param
        What may follow ``name.``: ``None`` (nothing), ``"cutoffs"`` (``P.5,10``; the
        printed form ``P_10`` is accepted too), ``"levels"`` (recall levels or multiples,
        ``iprec_at_recall.0.5``), ``"beta_squared"`` (``set_F.x``, x = beta squared),
        ``"gains"`` (``ndcg.1=3,2=9``: grade = gain pairs) or ``"values"`` (numbers that
        ``bind`` turns into the measure's parameters, ``utility.2,-1,0,0``).
    defaults
        The values trec_eval uses when ``name`` comes alone (``P``: 5, 10, ..., 1000).
    printed
        How trec_eval prints it, with ``{}`` for one value of the parameter (``P_{}``). A
        measure with ``"beta_squared"``, ``"gains"`` or ``"values"`` parameters is printed
        ``name_<parameters as typed>`` (``set_F_0.5``), or ``name`` without them.
    bind
        For ``"values"``: the typed values (strings) to keyword parameters of the measure
        (``k`` for a cutoff), or a MeasureError naming what is expected; its third argument
        says whether to take them as trec_eval 9.0.8 does (``prfeval trec_eval``), where
        trec_eval computes with values prfeval refuses, or a :class:`TrecEvalRefusal` where
        trec_eval accepts them but stops at its first query.
    per_query, summary
        Whether trec_eval prints a row for each query (``-q``) and the ``all`` row.
    place
        Its index in trec_eval 9.0.8's measure table (``te_trec_measures``), which is the
        order trec_eval prints measures in and what ``all_trec`` holds; ``None`` for a name
        9.0.8's table does not have (``unj``, trec_eval 10's), which ``prfeval trec_eval``
        refuses as trec_eval 9.0.8 does.
    sets
        trec_eval's other sets of measures (its nicknames) that hold it besides
        ``all_trec``: ``"official"`` (its default, when no ``-m`` is given) and ``"set"``.
    summary_value
        What the ``all`` row holds: ``"average"``, the per-query values added in query
        order and averaged as the measure's aggregation says (divided by the number of
        queries, every judged one with ``-c``); ``"queries"``, that number of queries itself
        (``num_q``); ``"judged_relevant"``, with ``-c`` the judgments with a grade above 0
        over every judged query, whatever the relevance level, else the average
        (``num_rel``: trec_eval recounts it from the judgments).
    joins
        Whether trec_eval joins a query's ranking with its judgments to compute it, and so
        stops at a document or judgment repeated there: every measure but ``runid`` and
        ``num_q``, which it computes from the results or the query count alone.
    quoted
        For text: each query's value is printed in single quotes (``relstring``: ``'10-'``).
    since
        The first trec_eval version whose table has it: 9 (9.0.8's), or 10 for trec_eval
        10.0's additions (``rbp``, ``rbp_resid``, ``unj``), which only
        ``--trec-eval-version 10`` offers; their places follow 9.0.8's, as in 10.0's table
        (``dcg`` and ``ideal_dcg``, which 10.0 puts between ``G`` and ``ndcg``, take 20.1
        and 20.2).
    all_trec
        Whether trec_eval's ``all_trec`` set holds it: every measure of its table but the
        judgment-group ones (``map_avgjg`` ...), which only ``-R qrels_jg`` can compute.
    placeholder
        With trec_eval 10.0's ``-c``, which evaluates a judged query without results as a
        ranking of one unjudged placeholder document: ``"measured"``, the measure of that
        ranking is printed, or ``"zero"``, 0 is (``utility``, which 10.0 zeroes).
    """

    name: str
    param: TrecParam | None = None
    defaults: tuple[float, ...] = ()
    printed: str = ""
    bind: Callable[[list[str], str, bool], dict[str, Any]] | None = None
    per_query: bool = True
    summary: bool = True
    place: float | None = None
    sets: tuple[TrecSet, ...] = ()
    summary_value: SummaryValue = "average"
    joins: bool = True
    quoted: bool = False
    placeholder: Placeholder = "measured"
    since: int = 9
    all_trec: bool = True

    def describe(self) -> str:
        """The name for ``prfeval measures``: ``P_k (P.5,10 ...; P alone: 5, 10, ...)``."""
        shown = self.printed.replace("{}", self._placeholder()) if self.printed else self.name
        if self.param == "beta_squared":
            return f"{self.name}, {self.name}.x with x = beta^2"
        if self.param == "gains":
            return f"{self.name}, {self.name}.grade=gain,..."
        if self.param == "values":
            values = ",".join(_fmt(v) for v in self.defaults)
            return f"{self.name}, {self.name}.{values}"
        if self.defaults:
            values = ", ".join(_fmt(v) for v in self.defaults)
            return f"{shown} ({self.name} alone: {values})"
        return shown

    def _placeholder(self) -> str:
        return {"cutoffs": "k", "levels": "r"}.get(self.param or "", "x")


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
    trec_eval
        trec_eval's name(s) for it, if trec_eval has it: one :class:`TrecName`, or several
        (``map`` and ``map_cut`` are both AP).
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
    trec_eval: TrecName | tuple[TrecName, ...] | None = None
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
    def trec_names(self) -> tuple[TrecName, ...]:
        """trec_eval's names for it (none, one or several)."""
        if self.trec_eval is None:
            return ()
        return self.trec_eval if isinstance(self.trec_eval, tuple) else (self.trec_eval,)

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

#: C's LONG_MAX on a 64-bit machine: the largest cutoff trec_eval's ``atol`` gives.
C_LONG_MAX = 2**63 - 1


class TrecEvalRefusal(MeasureError):
    """A measure's parameters trec_eval 9.0.8 takes on its command line but refuses when it
    computes the first query: ``words`` is what it writes then (``prfeval trec_eval``
    stops there, exit 4, as it does). The message is prfeval's own, for every other caller.
    """

    def __init__(self, message: str, words: str) -> None:
        super().__init__(message)
        self.words = words



_OURS = re.compile(r"^(?P<name>[A-Za-z][\w-]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>.+))?$")


class Registry:
    """The declared measures and their parameters, and everything that reads them.

    Parameters
    ----------
    definitions
        The entries, in the order ``prfeval measures`` lists them.
    params
        Every parameter an entry may name, by name.
    beta_from_alpha
        Turns the alpha of the F measure's alpha form into beta (validating it).
    trec_unsupported, trec_unsupported_sets
        The measures of trec_eval 9.0.8's table, and its sets of measures, that no entry
        computes (preference judgments, ...): ``prfeval trec_eval`` knows the names, and
        refuses them as not supported rather than as misspelt.
    trec_cutoff_order
        The order trec_eval 9.0.8's ``qsort`` leaves cutoffs in, which :meth:`parse_trec`
        keeps with ``as_trec_eval`` (an emulation of C that lives with the measures, not
        here); by default, sorted.

    Attributes
    ----------
    trec_table
        trec_eval 9.0.8's measures that entries compute, in the order of its measure table
        (each :class:`TrecName`'s ``place``), which is the order it prints them in.
    trec_sets
        trec_eval's sets of measures by name (``official``, ``set``, ``all_trec``), each in
        table order, from each :class:`TrecName`'s ``sets``.
    trec_table_10, trec_sets_10
        The same for trec_eval 10.0: 9.0.8's and the names 10.0 added (``since=10``).
    """

    def __init__(
        self,
        definitions: Iterable[MeasureDef],
        params: Mapping[str, Param],
        beta_from_alpha: Callable[[float], float],
        *,
        trec_unsupported: Iterable[str] = (),
        trec_unsupported_sets: Iterable[str] = (),
        trec_cutoff_order: Callable[[Sequence[int]], list[int]] = sorted,
    ) -> None:
        self._trec_cutoff_order = trec_cutoff_order
        self.definitions: dict[str, MeasureDef] = {}
        self.params = dict(params)
        self._beta_from_alpha = beta_from_alpha
        self._by_lower: dict[str, MeasureDef] = {}
        self._trec: list[tuple[TrecName, MeasureDef]] = []
        for d in definitions:
            if d.name in self.definitions:
                raise TypeError(f"measure {d.name} declared twice")
            unknown = set(d.params) - set(self.params)
            if unknown:
                raise TypeError(f"{d.name}: unknown parameters {sorted(unknown)}")
            self.definitions[d.name] = d
            for n in (d.name, *d.aliases):
                taken = self._by_lower.get(n.lower())
                if taken is not None and taken is not d:
                    raise TypeError(f"{d.name}: the name {n!r} is {taken.name}'s already")
                self._by_lower[n.lower()] = d
            for t in d.trec_names:
                if any(t.name == other.name for other, _ in self._trec):
                    raise TypeError(f"{d.name}: the trec_eval name {t.name!r} is taken")
                self._trec.append((t, d))
        self.trec_unsupported = tuple(trec_unsupported)
        self.trec_unsupported_sets = tuple(trec_unsupported_sets)
        self.trec_table, self.trec_sets = self._trec_table()
        self.trec_table_10, self.trec_sets_10 = self._trec_table(10)
        # Longest first: num_rel_ret before num_rel, map_cut before map.
        self._trec.sort(key=lambda item: -len(item[0].name))

    def _trec_table(self, version: int = 9) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
        """trec_eval's table and sets (9.0.8's, or 10.0's), from the places entries declare."""
        placed: dict[float, str] = {}
        for t, d in self._trec:
            if t.since > version:
                continue
            if t.place is None:
                if t.sets:
                    raise TypeError(f"{d.name}: {t.name} is in a set of trec_eval's, so it "
                                    "needs its place in trec_eval's table")
                continue
            if t.place in placed:
                raise TypeError(f"{d.name}: place {t.place} in trec_eval's table is "
                                f"{placed[t.place]}'s already")
            placed[t.place] = t.name
        table = tuple(placed[i] for i in sorted(placed))
        if version == 9:
            self._trec_placed = [self.trec_name(name) for name in table]
        clash = set(table) & {*self.trec_unsupported, *self.trec_unsupported_sets}
        if clash:
            raise TypeError(f"trec_eval's {sorted(clash)} are both computed and unsupported")
        by_name = {t.name: t for t, _ in self._trec}
        sets = {
            s: tuple(n for n in table if s in by_name[n].sets)
            for s in get_args(TrecSet)
        }
        every = tuple(n for n in table if by_name[n].all_trec)
        return table, {**sets, ALL_TREC: every}

    # ------------------------------------------------------------------ lookup and hints

    def lookup(self, name: str) -> MeasureDef:
        """The definition for a name or alias (case-insensitive), or a MeasureError."""
        found = self._by_lower.get(name.lower())
        if found is None:
            raise MeasureError(f"unknown measure {name!r}{self.suggest(name)}")
        return found

    def trec_name(self, name: str) -> tuple[TrecName, MeasureDef] | None:
        """trec_eval's measure called ``name`` exactly (``P``, ``ndcg_cut``), or ``None``."""
        for t, d in self._trec:
            if t.name == name:
                return t, d
        return None

    def trec_entries(self) -> list[tuple[TrecName, MeasureDef]]:
        """trec_eval's names in :attr:`trec_table`, with their definitions, in table order."""
        return [found for found in self._trec_placed if found is not None]

    def names(self) -> list[str]:
        """Every name a user may type: canonical, aliases, trec_eval's and examples."""
        out: set[str] = set()
        for d in self.definitions.values():
            out.update((d.name, *d.aliases, d.example()))
            for t in d.trec_names:
                out.add(t.name)
                if t.printed and t.defaults and t.param in ("cutoffs", "levels"):
                    value = t.defaults[1 if len(t.defaults) > 1 else 0]
                    out.add(t.printed.format(_printed_value(value, t)))
        return sorted(out)

    def suggest(self, name: str) -> str:
        """``; did you mean X or Y?`` for a misspelt name, then where the list is."""
        candidates = self.names()
        close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)
        if not close:
            lowered = {c.lower(): c for c in candidates}
            close = [
                lowered[c]
                for c in difflib.get_close_matches(name.lower(), lowered, n=3, cutoff=0.5)
            ]
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        return hint + " `prfeval measures` lists them all."

    # ------------------------------------------------------------------ parsing

    def parse(self, spec: str | Measure | Sequence[str | Measure]) -> list[Measure]:
        """Parse measure names; several may share one string, separated by spaces.

        Repeated measures are kept once, in the order first given.
        """
        if isinstance(spec, str | Measure):
            items: list[Any] = [spec]
        elif isinstance(spec, Iterable) and not isinstance(spec, bytes | Mapping):
            items = list(spec)
        else:
            raise MeasureError(
                "measures must be names such as 'P@10 R@100' (one string, separated by "
                f"spaces), a list of them, or None for the default set; got {spec!r}"
            )
        measures: list[Measure] = []
        for item in items:
            if isinstance(item, Measure):
                measures.append(item)
                continue
            if not isinstance(item, str):
                raise MeasureError(
                    f"a measure is a name such as 'P@10', got a {type(item).__name__}"
                )
            for token in _split(item):
                measures.extend(self._parse_one(token))
        if not measures:
            raise MeasureError("no measures given")
        seen: set[str] = set()
        unique = []
        for m in measures:
            if str(m) not in seen:
                seen.add(str(m))
                unique.append(m)
        return unique

    def _parse_one(self, token: str) -> list[Measure]:
        try:
            return self._parse_token(token)
        except MeasureError:
            if "," in token:  # "P@10,R@100": two measures, separated the wrong way
                parts = [p for p in token.split(",") if p]
                try:
                    for part in parts:
                        self._parse_token(part)
                except MeasureError:
                    pass
                else:
                    raise MeasureError(
                        f"{token}: separate measures with spaces, not commas: "
                        f"-m \"{' '.join(parts)}\""
                    ) from None
            raise

    def _parse_token(self, token: str) -> list[Measure]:
        trec = self._parse_trec(token)
        if trec is not None:
            return trec
        match = _OURS.match(token)
        if not match:
            raise MeasureError(
                f"cannot parse measure {token!r}: expected Name, Name@k or "
                f"Name(param=value)@k{self.suggest(token)}"
            )
        definition = self.lookup(match["name"])
        params = self._parse_params(match["params"] or "", definition, token)
        at = match["k"]
        if definition.cutoff == "level":
            if at is None:
                what = "a recall level" if definition.level_max == 1.0 else "a level"
                raise MeasureError(
                    f"{token}: {definition.name} needs {what}, e.g. {definition.example()}"
                )
            level = _level(at, token, definition.level_max)
            return [self.build(definition, token, params, level=level)]
        k = None if at is None else _cutoff(at, token)
        return [self.build(definition, token, params, k=k)]

    def parse_trec(
        self, name: str, params: str | None, *, as_trec_eval: bool = False
    ) -> list[Measure]:
        """trec_eval's measure ``name`` with the parameter text after its first ``.``
        (``None``: none given): the measures it stands for, labelled as trec_eval prints
        them. A MeasureError for a name trec_eval does not have.

        With ``as_trec_eval`` (``prfeval trec_eval``, which promises trec_eval's answers),
        values outside prfeval's domains are taken as trec_eval 9.0.8 takes them: recall
        levels and multiples of R outside [0, 1] or below 0, a negative beta squared, gains
        that are not finite or given twice to one grade, cutoffs up to C's LONG_MAX in the
        order its ``qsort`` leaves them (the registry's ``trec_cutoff_order``), and what
        each entry's ``bind`` accepts so (a negative relstring length). Without it they are
        refused with prfeval's words."""
        found = self.trec_name(name)
        if found is None:
            raise MeasureError(f"unknown trec_eval measure {name!r}{self.suggest(name)}")
        t, d = found
        if params is not None and t.param is None:
            raise MeasureError(f"{name}.{params}: {name} takes no parameters")
        token = name if params is None else f"{name}.{params}"
        return self._trec_measures(
            t, d, token, params, printed_labels=True, as_trec_eval=as_trec_eval
        )

    def _parse_trec(self, token: str) -> list[Measure] | None:
        """trec_eval's spelling of a measure, or ``None`` when ``token`` is not one."""
        for t, d in self._trec:
            if token == t.name:
                rest = None
            elif token.startswith(t.name + ".") and t.param is not None:
                rest = token[len(t.name) + 1 :]
            elif (
                token.startswith(t.name + "_")
                and t.param in ("cutoffs", "levels")
                and token[len(t.name) + 1 : len(t.name) + 2].isdigit()
            ):
                rest = token[len(t.name) + 1 :]  # the printed form, P_10
            else:
                continue
            return self._trec_measures(t, d, token, rest)
        return None

    def _trec_measures(
        self,
        t: TrecName,
        d: MeasureDef,
        token: str,
        rest: str | None,
        *,
        printed_labels: bool = False,
        as_trec_eval: bool = False,
    ) -> list[Measure]:
        """The measures of ``t`` with parameter text ``rest``. Labels are ``token`` for one
        measure (``P.10``) and the printed names for several (or with ``printed_labels``);
        ``as_trec_eval`` as :meth:`parse_trec` says."""
        if t.param is None:
            return [self.build(d, token, {}, printed=t.name)]
        if t.param in ("beta_squared", "gains", "values"):
            printed = t.name if rest is None else f"{t.name}_{rest}"
            label = printed if printed_labels else token
            if rest is None:
                values = [_fmt(v) for v in t.defaults] if t.param == "values" else []
                params = (
                    t.bind(values, token, as_trec_eval) if t.bind is not None and values else {}
                )
                return [self.build(d, label, _without_k(params), k=params.get("k"),
                                   printed=printed)]
            if t.param == "beta_squared":
                return [self.build(d, label, _beta_squared(rest, t, token, as_trec_eval),
                                   printed=printed)]
            if t.param == "gains":
                gains = trec_gains(rest, token, as_trec_eval=as_trec_eval)
                return [self.build(d, label, {"gains": gains}, printed=printed)]
            if t.bind is None:  # a declaration error, not the user's
                raise TypeError(f"{t.name}: a 'values' trec_eval name needs bind=")
            params = t.bind([v for v in rest.split(",") if v], token, as_trec_eval)
            return [self.build(d, label, _without_k(params), k=params.get("k"),
                               printed=printed)]
        if rest is None:
            values: list[str] = [_fmt(v) for v in t.defaults]
        else:
            values = [v for v in rest.split(",") if v]
            if not values:
                raise MeasureError(f"{token}: expected values after {t.name}.")
        if t.param == "levels":
            levels = sorted(
                float(v) if as_trec_eval else _level(v, token, d.level_max) for v in values
            )
            _no_repeats(levels, token)
            printed = [t.printed.format(_printed_value(v, t)) for v in levels]
            labels = [token] if len(levels) == 1 and not printed_labels else printed
            return [
                self.build(d, label, {}, level=v, printed=shown)
                for v, label, shown in zip(levels, labels, printed, strict=True)
            ]
        # trec_eval sorts cutoffs and refuses repeated ones.
        top = C_LONG_MAX if as_trec_eval else MAX_INTEGER
        ks = [_cutoff(_integer_part(v), token, top) for v in values]
        ks = self._trec_cutoff_order(ks) if as_trec_eval else sorted(ks)
        _no_repeats(ks, token)
        printed = [t.printed.format(k) for k in ks]
        labels = [token] if len(ks) == 1 and not printed_labels else printed
        # A cutoff after a larger one in that order is never reached by trec_eval's walk
        # down the ranking: it is measured on the whole ranking, as at that larger cutoff;
        # the cutoff itself is kept (internal, as set_F's beta2) for P and relative_P,
        # which trec_eval divides by it.
        reach = [max(ks[: i + 1]) for i in range(len(ks))]
        return [
            self.build(d, label, {"unreached_k": k} if k != at else {}, k=at, printed=shown)
            for at, k, label, shown in zip(reach, ks, labels, printed, strict=True)
        ]

    def _parse_params(self, text: str, definition: MeasureDef, label: str) -> dict[str, object]:
        values: dict[str, object] = {}
        for item in filter(None, (part.strip() for part in _split_params(text))):
            key, sep, raw = item.partition("=")
            key = key.strip()
            if not sep:
                raise MeasureError(f"{label}: expected name=value, got {item!r}")
            if key not in definition.params:
                takes = ", ".join(definition.params) or "no parameters"
                raise MeasureError(f"{label}: {definition.name} takes {takes}; got {key!r}")
            spec = self.params[key]
            try:
                value = spec.type(raw.strip())
            except (ValueError, TypeError):
                raise MeasureError(
                    f"{label}: {key} must be {spec.valid}, got {raw.strip()!r}"
                ) from None
            if not spec.check(value):
                raise MeasureError(f"{label}: {key} must be {spec.valid}, got {raw.strip()}")
            values[key] = value
        if "alpha" in values and "beta" in values:
            raise MeasureError(f"{label}: give beta or alpha, not both")
        return values

    def build(
        self,
        definition: MeasureDef,
        label: str,
        params: Mapping[str, object],
        *,
        k: int | None = None,
        level: float | None = None,
        printed: str | None = None,
    ) -> Measure:
        """A :class:`Measure` of ``definition`` with checked parameters and cutoff."""
        if definition.cutoff == "required" and k is None:
            raise MeasureError(
                f"{label}: {definition.name} needs a cutoff, e.g. {definition.example()}"
            )
        if definition.cutoff in ("none", "level") and k is not None:
            raise MeasureError(f"{label}: {definition.name} takes no cutoff")
        beta = 1.0
        if "alpha" in params:
            beta = self._beta_from_alpha(float(params["alpha"]))  # type: ignore[arg-type]
        elif "beta" in params:
            beta = float(params["beta"])  # type: ignore[arg-type]
        rel = params.get("rel")
        # The other parameters, kept only where they differ from the default, so that
        # RBP(p=0.8) and RBP are one measure.
        others = []
        for key, value in sorted(params.items()):
            if key in ("rel", "beta", "alpha"):
                continue
            spec = self.params.get(key)
            if spec is not None and value == spec.default:
                continue
            others.append((key, value))
        rendered = tuple(
            (key, self.params[key].render(value)) for key, value in others if key in self.params
        )
        # Every other parameter of the definition, given or by its declared default.
        resolved = tuple(
            (key, params[key] if key in params else self.params[key].default)
            for key in definition.params
            if key not in ("rel", "beta", "alpha")
        )
        return Measure(
            definition,
            k=k,
            rel=None if rel is None else int(rel),  # type: ignore[call-overload]
            beta=beta,
            label=label,
            explicit={key: v for key, v in params.items() if key in ("rel", "beta", "alpha")},
            recall_level=level,
            params=tuple(others),
            printed=printed,
            rendered=rendered,
            values=resolved,
        )


def trec_gains(
    text: str, label: str, *, as_trec_eval: bool = False
) -> tuple[tuple[int, float], ...]:
    """trec_eval's gain pairs ``1=3,2=9,4=4.5`` as ``((1, 3.0), (2, 9.0), (4, 4.5))``.

    The grade is an integer (trec_eval reads it with ``atol``: -1 stands for unjudged
    documents, -2 for documents judged with a negative grade), the gain a number. The order
    is kept: trec_eval's ideal ranking depends on it when gains differ by less than 1. A
    gain that is not finite, or a grade given two gains, is refused unless
    ``as_trec_eval``: trec_eval computes with them.
    """
    pairs = []
    for item in filter(None, text.split(",")):
        grade, sep, gain = item.partition("=")
        try:
            if not sep:
                raise ValueError
            pair = (int(grade), float(gain))
        except ValueError:
            raise MeasureError(
                f"{label}: gains are grade=gain pairs such as 1=3,2=9; got {item!r}"
            ) from None
        if as_trec_eval:
            pass
        elif not math.isfinite(pair[1]):
            raise MeasureError(f"{label}: a gain must be a finite number, got {gain!r}")
        elif any(pair[0] == seen for seen, _ in pairs):
            raise MeasureError(f"{label}: grade {pair[0]} is given two gains")
        pairs.append(pair)
    if not pairs:
        raise MeasureError(f"{label}: expected grade=gain pairs, e.g. 1=3,2=9")
    return tuple(pairs)


def _without_k(params: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in params.items() if key != "k"}


def _beta_squared(
    rest: str, t: TrecName, token: str, as_trec_eval: bool = False
) -> dict[str, object]:
    try:
        x = float(rest)
    except ValueError:
        raise MeasureError(f"{token}: {t.name}.x takes a number x (= beta^2)") from None
    if as_trec_eval and not x >= 0:
        # trec_eval computes (x + 1) P R / (x P + R) with any x; beta keeps x's sign.
        return {"beta": -math.sqrt(-x) if x < 0 else x, "beta2": x}
    if not (0 <= x <= MAX_BETA**2):
        raise MeasureError(
            f"{token}: {t.name}.x takes x = beta^2 in [0, {MAX_BETA**2:g}], got {x:g}"
        )
    # beta2 keeps x itself: sqrt(x)^2 is not always x, and trec_eval computes with x.
    return {"beta": math.sqrt(x), "beta2": x}


def _no_repeats(values: Sequence[float], token: str) -> None:
    repeated = [a for a, b in pairwise(values) if a == b]
    if repeated:
        raise MeasureError(f"{token}: {_fmt(repeated[0])} is given twice (trec_eval refuses it)")


def _printed_value(value: float | str, t: TrecName) -> str:
    """A parameter value as trec_eval prints it in a name: ``10``, or ``0.10`` for levels."""
    if t.param == "levels":
        return f"{float(value):.2f}"
    return _fmt(value) if not isinstance(value, str) else value


def _integer_part(text: str) -> str:
    """A trec_eval cutoff as its ``atol`` reads it where it has a fraction: ``23.4`` is 23."""
    found = re.fullmatch(r"([+-]?\d+)\.\d*", text)
    return found.group(1) if found else text


def _cutoff(text: str, label: str, top: int = MAX_INTEGER) -> int:
    try:
        k = int(text)
    except ValueError:
        raise MeasureError(f"{label}: the cutoff must be an integer >= 0, got {text!r}") from None
    if k < 0:
        raise MeasureError(f"{label}: the cutoff must be an integer >= 0, got {k}")
    if k > top:
        raise MeasureError(f"{label}: the cutoff must be at most {top:,}, got {k:,}")
    return k


def _level(text: str, label: str, top: float | None = 1.0) -> float:
    """A level after ``@``: a recall level in [0, 1], or a number >= 0 when ``top`` is None."""
    bounds = "[0, 1]" if top == 1.0 else (f"[0, {_fmt(top)}]" if top is not None else ">= 0")
    what = "the recall level" if top == 1.0 else "the level"
    try:
        r = float(text)
    except ValueError:
        raise MeasureError(f"{label}: {what} must be a number {bounds}") from None
    if not (r >= 0.0 and (top is None or r <= top) and math.isfinite(r)):
        raise MeasureError(f"{label}: {what} must be in {bounds}, got {r:g}")
    return r


def _split(text: str) -> list[str]:
    """Split on whitespace outside parentheses (``SetF(beta=2, rel=2)`` stays whole)."""
    tokens, depth, current = [], 0, []
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch.isspace() and depth == 0:
            if current:
                tokens.append("".join(current))
            current = []
        else:
            current.append(ch)
    if current:
        tokens.append("".join(current))
    return tokens


def _split_params(text: str) -> list[str]:
    """Split ``a=1, gains={0:0,1:1}, levels=[0.1,0.5]`` on the commas outside brackets."""
    parts, depth, current, quote = [], 0, [], ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts
