"""trec_eval's names for the measures: how it spells them, and the table it keeps them in.

A table keyed by canonical measure name gives each measure trec_eval has its :class:`TrecName`
(or several: ``map`` and ``map_cut`` are both AP); prfeval's is
:data:`prfeval._measures.trec_table.TREC_NAMES`. :class:`TrecNames`, which the
:class:`~prfeval._core.registry.Registry` builds from it and the declarations, parses
trec_eval's spellings (``P.10`` and ``P_10``, ``P.5,10``, ``P`` alone for trec_eval's cutoffs,
``set_F.x`` with x beta squared, ``iprec_at_recall``) and lays out trec_eval's measure table
and sets (9.0.8's, and 10.0's) from each name's ``place`` and ``sets``. With ``as_trec_eval``
(``prfeval trec_eval``) values are taken as trec_eval takes them; the C emulation that needs
(the order of cutoffs under its ``qsort``) is given, not held here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal, get_args

from prfeval._core.checks import MAX_BETA, MAX_INTEGER
from prfeval._core.errors import MeasureError
from prfeval._core.measure_def import number_text
from prfeval._core.measure_text import cutoff_value, level_value

if TYPE_CHECKING:
    from prfeval._core.measure_def import Measure, MeasureDef

__all__ = [
    "ALL_TREC",
    "C_LONG_MAX",
    "Placeholder",
    "SummaryValue",
    "TrecEvalRefusal",
    "TrecName",
    "TrecNames",
    "TrecParam",
    "TrecSet",
    "printed_value",
    "trec_gains",
]

_fmt = number_text

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
#: trec_eval's name for the set of every measure of its table.
ALL_TREC = "all_trec"


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


class TrecNames:
    """trec_eval's names of the declared measures: its table, its sets, and its spellings.

    Parameters
    ----------
    definitions
        The declarations of the measures.
    table
        trec_eval's names by canonical measure name (``{"AP": (map, map_cut)}``), for the
        measures trec_eval has: every key is a declared measure.
    build
        Makes a :class:`~prfeval._core.measure_def.Measure` of a declaration with checked
        parameters (:meth:`Registry.build <prfeval._core.registry.Registry.build>`).
    suggest
        ``; did you mean ...?`` for a misspelt name.
    unsupported, unsupported_sets
        The measures of trec_eval 9.0.8's table, and its sets of measures, that no entry
        computes: ``prfeval trec_eval`` knows the names, and refuses them as not supported
        rather than as misspelt.
    cutoff_order
        The order trec_eval 9.0.8's ``qsort`` leaves cutoffs in, kept with ``as_trec_eval``;
        by default, sorted.

    Attributes
    ----------
    table
        trec_eval 9.0.8's measures that entries compute, in the order of its measure table
        (each :class:`TrecName`'s ``place``), which is the order it prints them in.
    sets
        trec_eval's sets of measures by name (``official``, ``set``, ``all_trec``), each in
        table order, from each :class:`TrecName`'s ``sets``.
    table_10, sets_10
        The same for trec_eval 10.0: 9.0.8's and the names 10.0 added (``since=10``).
    """

    def __init__(
        self,
        definitions: Iterable[MeasureDef],
        table: Mapping[str, Sequence[TrecName]],
        build: Callable[..., Measure],
        suggest: Callable[[str], str],
        *,
        unsupported: Iterable[str] = (),
        unsupported_sets: Iterable[str] = (),
        cutoff_order: Callable[[Sequence[int]], list[int]] = sorted,
    ) -> None:
        self._build = build
        self._suggest = suggest
        self._cutoff_order = cutoff_order
        self._trec: list[tuple[TrecName, MeasureDef]] = []
        self._of: dict[str, tuple[TrecName, ...]] = {}
        declared = {d.name: d for d in definitions}
        unknown = set(table) - set(declared)
        if unknown:
            raise TypeError(f"trec_eval names for measures not declared: {sorted(unknown)}")
        for d in declared.values():  # in the declarations' order, whatever the table's
            self._of[d.name] = tuple(table.get(d.name, ()))
            for t in self._of[d.name]:
                if any(t.name == other.name for other, _ in self._trec):
                    raise TypeError(f"{d.name}: the trec_eval name {t.name!r} is taken")
                self._trec.append((t, d))
        self.unsupported = tuple(unsupported)
        self.unsupported_sets = tuple(unsupported_sets)
        self.table, self.sets = self._table()
        self.table_10, self.sets_10 = self._table(10)
        # Longest first: num_rel_ret before num_rel, map_cut before map.
        self._trec.sort(key=lambda item: -len(item[0].name))

    def names_of(self, measure: str) -> tuple[TrecName, ...]:
        """trec_eval's names for the measure called ``measure`` (canonical): none, one or
        several (``map`` and ``map_cut`` are both AP)."""
        return self._of.get(measure, ())

    def _table(self, version: int = 9) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
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
            self._placed = [self.named(name) for name in table]
        clash = set(table) & {*self.unsupported, *self.unsupported_sets}
        if clash:
            raise TypeError(f"trec_eval's {sorted(clash)} are both computed and unsupported")
        by_name = {t.name: t for t, _ in self._trec}
        sets = {
            s: tuple(n for n in table if s in by_name[n].sets)
            for s in get_args(TrecSet)
        }
        every = tuple(n for n in table if by_name[n].all_trec)
        return table, {**sets, ALL_TREC: every}

    def named(self, name: str) -> tuple[TrecName, MeasureDef] | None:
        """trec_eval's measure called ``name`` exactly (``P``, ``ndcg_cut``), or ``None``."""
        for t, d in self._trec:
            if t.name == name:
                return t, d
        return None

    def entries(self) -> list[tuple[TrecName, MeasureDef]]:
        """trec_eval's names in :attr:`table`, with their definitions, in table order."""
        return [found for found in self._placed if found is not None]

    def names(self) -> set[str]:
        """Every trec_eval name as typed, and an example of each printed form (``P_10``)."""
        out: set[str] = set()
        for t, _ in self._trec:
            out.add(t.name)
            if t.printed and t.defaults and t.param in ("cutoffs", "levels"):
                value = t.defaults[1 if len(t.defaults) > 1 else 0]
                out.add(t.printed.format(printed_value(value, t)))
        return out

    def parse(
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
        found = self.named(name)
        if found is None:
            raise MeasureError(f"unknown trec_eval measure {name!r}{self._suggest(name)}")
        t, d = found
        if params is not None and t.param is None:
            raise MeasureError(f"{name}.{params}: {name} takes no parameters")
        token = name if params is None else f"{name}.{params}"
        return self._measures(
            t, d, token, params, printed_labels=True, as_trec_eval=as_trec_eval
        )

    def parse_spelling(self, token: str) -> list[Measure] | None:
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
            return self._measures(t, d, token, rest)
        return None

    def _measures(
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
        ``as_trec_eval`` as :meth:`parse` says."""
        if t.param is None:
            return [self._build(d, token, {}, printed=t.name)]
        if t.param in ("beta_squared", "gains", "values"):
            printed = t.name if rest is None else f"{t.name}_{rest}"
            label = printed if printed_labels else token
            if rest is None:
                given = [_fmt(v) for v in t.defaults] if t.param == "values" else []
                params = (
                    t.bind(given, token, as_trec_eval) if t.bind is not None and given else {}
                )
                return [self._build(d, label, _without_k(params), k=params.get("k"),
                                   printed=printed)]
            if t.param == "beta_squared":
                return [self._build(d, label, _beta_squared(rest, t, token, as_trec_eval),
                                   printed=printed)]
            if t.param == "gains":
                gains = trec_gains(rest, token, as_trec_eval=as_trec_eval)
                return [self._build(d, label, {"gains": gains}, printed=printed)]
            if t.bind is None:  # a declaration error, not the user's
                raise TypeError(f"{t.name}: a 'values' trec_eval name needs bind=")
            params = t.bind([v for v in rest.split(",") if v], token, as_trec_eval)
            return [self._build(d, label, _without_k(params), k=params.get("k"),
                               printed=printed)]
        if rest is None:
            values: list[str] = [_fmt(v) for v in t.defaults]
        else:
            values = [v for v in rest.split(",") if v]
            if not values:
                raise MeasureError(f"{token}: expected values after {t.name}.")
        if t.param == "levels":
            levels = sorted(
                float(v) if as_trec_eval else level_value(v, token, d.level_max) for v in values
            )
            _no_repeats(levels, token)
            names = [t.printed.format(printed_value(v, t)) for v in levels]
            labels = [token] if len(levels) == 1 and not printed_labels else names
            return [
                self._build(d, label, {}, level=v, printed=shown)
                for v, label, shown in zip(levels, labels, names, strict=True)
            ]
        # trec_eval sorts cutoffs and refuses repeated ones.
        top = C_LONG_MAX if as_trec_eval else MAX_INTEGER
        ks = [cutoff_value(_integer_part(v), token, top) for v in values]
        ks = self._cutoff_order(ks) if as_trec_eval else sorted(ks)
        _no_repeats(ks, token)
        names = [t.printed.format(k) for k in ks]
        labels = [token] if len(ks) == 1 and not printed_labels else names
        # A cutoff after a larger one in that order is never reached by trec_eval's walk
        # down the ranking: it is measured on the whole ranking, as at that larger cutoff;
        # the cutoff itself is kept (internal, as set_F's beta2) for P and relative_P,
        # which trec_eval divides by it.
        reach = [max(ks[: i + 1]) for i in range(len(ks))]
        return [
            self._build(d, label, {"unreached_k": k} if k != at else {}, k=at, printed=shown)
            for at, k, label, shown in zip(reach, ks, labels, names, strict=True)
        ]


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
    pairs: list[tuple[int, float]] = []
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


def printed_value(value: float | str, t: TrecName) -> str:
    """A parameter value as trec_eval prints it in a name: ``10``, or ``0.10`` for levels."""
    if t.param == "levels":
        return f"{float(value):.2f}"
    return _fmt(value) if not isinstance(value, str) else value


def _integer_part(text: str) -> str:
    """A trec_eval cutoff as its ``atol`` reads it where it has a fraction: ``23.4`` is 23."""
    found = re.fullmatch(r"([+-]?\d+)\.\d*", text)
    return found.group(1) if found else text
