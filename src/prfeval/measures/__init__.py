"""The measure registry: every measure declared once, and the parser for measure names.

A :class:`MeasureDef` is the single declaration of a measure: its name, aliases, trec_eval
name, parameters, formula, conventions and how its per-query value is computed from the
contingency table. The parser, ``prfeval measures``, suggestions for misspelt names, the docs
and the registry-wide tests all read :data:`REGISTRY`; there is no second list of names.

Names parse as ``Name(param=value, ...)@k``, as ir_measures writes them (``P@10``,
``P(rel=2)@10``, ``SetF(beta=2)``), and trec_eval's names are accepted so that scripts can
switch: ``P.10``/``P_10``, ``recall.100``, ``set_P``, ``set_recall``, ``set_F``, ``set_F.x``,
``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``Rprec``; ``P`` and ``recall`` alone
expand to trec_eval's cutoffs 5, 10, 15, 20, 30, 100, 200, 500, 1000.

.. warning:: trec_eval's ``set_F.x`` takes x as **beta squared**: ``set_F.2`` is F with
   beta = sqrt(2), not F2. prfeval's ``SetF(beta=2)`` is the true F2 (seed 000).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from prfeval.core import counts as C
from prfeval.core.counts import Counts
from prfeval.core.errors import MeasureError

if TYPE_CHECKING:
    from prfeval.core.ranking import JudgedRanking

__all__ = [
    "DEFAULT_MEASURES",
    "REGISTRY",
    "Measure",
    "MeasureDef",
    "cutoffs_read",
    "lookup",
    "parse_measures",
]

FloatArray = npt.NDArray[np.float64]
Kind = Literal["count", "set", "cutoff", "rprec", "iprec"]

TREC_EVAL_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class Param:
    """A parameter a measure accepts: its type, default, valid range and meaning."""

    name: str
    type: type
    default: object
    doc: str
    check: Callable[[float], bool]
    valid: str


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
        The formula over the contingency table.
    kind
        Where its counts come from: ``count`` (a total, summed over queries), ``set`` (the
        whole retrieved set), ``cutoff`` (the top k, ``@k`` required) or ``rprec`` (the top R).
    value
        Per-unit values from a :class:`~prfeval.core.counts.Counts`, given the parsed measure.
    params
        Parameter names it accepts (keys of :data:`PARAMS`).
    needs_tn
        Whether it needs true negatives (the collection size).
    f_like
        Whether it combines precision and recall, so that an F of the averaged P and R
        (``f_of_means``) is reported beside it.
    aliases
        Other names accepted (matched case-insensitively).
    trec_eval
        trec_eval's name for it, if trec_eval has it.
    conventions
        Edge cases: what it is when nothing is retrieved, nothing is relevant, ...
    higher_is_better
        ``False`` for measures where lower is better (SetE, Fallout): comparisons read the
        sign of a difference from it.
    from_ranking
        For measures that are not a function of one contingency table (``kind="iprec"``):
        per-query values from the judged ranking, the measure and the relevance level. They
        have a macro average only.
    """

    name: str
    summary: str
    formula: str
    kind: Kind
    value: Callable[[Counts, Measure], FloatArray] | None
    params: tuple[str, ...] = ("rel",)
    needs_tn: bool = False
    f_like: bool = False
    aliases: tuple[str, ...] = ()
    trec_eval: str | None = None
    conventions: str = ""
    higher_is_better: bool = True
    from_ranking: Callable[[JudgedRanking, Measure, int], FloatArray] | None = None


@dataclass(frozen=True)
class Measure:
    """A measure as asked for: definition, parameters, cutoff and the label the user typed."""

    definition: MeasureDef
    k: int | None = None
    rel: int | None = None
    beta: float = 1.0
    label: str = ""
    explicit: dict[str, object] = field(default_factory=dict, compare=False)
    recall_level: float | None = None

    @property
    def name(self) -> str:
        """The canonical form, which parses back to the same measure: ``P(rel=2)@10``."""
        shown = {k: v for k, v in self.explicit.items() if k in ("rel", "beta")}
        if "alpha" in self.explicit:
            shown["beta"] = self.beta
        params = ",".join(f"{k}={_fmt(v)}" for k, v in sorted(shown.items()))
        text = self.definition.name + (f"({params})" if params else "")
        if self.recall_level is not None:
            return f"{text}@{_fmt(self.recall_level)}"
        return text + (f"@{self.k}" if self.k is not None else "")

    def __str__(self) -> str:
        return self.label or self.name


def _fmt(value: object) -> str:
    """A parameter value that parses back to the same number (repr keeps every digit)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _count(getter: Callable[[Counts], FloatArray]) -> Callable[[Counts, Measure], FloatArray]:
    return lambda c, m: getter(c)


def _f(c: Counts, m: Measure) -> FloatArray:
    return C.f_beta(c, m.beta)


_SET_F_CONV = "F is 0 when TP is 0; P and R follow their own conventions."
_NO_REL = "No relevant documents: 0."
_NO_RET = "Nothing retrieved: 0."

_DEFS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "NumQ",
        "number of queries evaluated",
        "sum over queries of 1",
        "count",
        _count(lambda c: np.ones_like(c.tp)),
        (),
        aliases=("num_q",),
        trec_eval="num_q",
    ),
    MeasureDef(
        "NumRet",
        "documents retrieved (repeats included)",
        "TP + FP",
        "count",
        _count(lambda c: c.retrieved),
        (),
        aliases=("num_ret",),
        trec_eval="num_ret",
    ),
    MeasureDef(
        "NumRel",
        "relevant documents judged",
        "TP + FN",
        "count",
        _count(lambda c: c.relevant),
        aliases=("num_rel",),
        trec_eval="num_rel",
    ),
    MeasureDef(
        "NumRelRet",
        "relevant documents retrieved",
        "TP",
        "count",
        _count(lambda c: c.tp),
        aliases=("num_rel_ret",),
        trec_eval="num_rel_ret",
    ),
    MeasureDef(
        "TP", "true positives: relevant and retrieved", "TP", "count", _count(lambda c: c.tp)
    ),
    MeasureDef(
        "FP",
        "false positives: retrieved, not relevant (repeats included)",
        "FP",
        "count",
        _count(lambda c: c.fp),
    ),
    MeasureDef(
        "FN", "false negatives: relevant, not retrieved", "FN", "count", _count(lambda c: c.fn)
    ),
    MeasureDef(
        "TN",
        "true negatives: neither relevant nor retrieved",
        "N - TP - FP - FN",
        "count",
        _count(lambda c: c.require_tn("TN")),
        needs_tn=True,
    ),
    MeasureDef(
        "SetP",
        "precision of the whole retrieved set",
        "TP / (TP + FP)",
        "set",
        _count(C.precision),
        aliases=("set_P", "SetPrecision"),
        trec_eval="set_P",
        conventions=_NO_RET,
    ),
    MeasureDef(
        "SetR",
        "recall of the whole retrieved set",
        "TP / (TP + FN)",
        "set",
        _count(C.recall),
        aliases=("set_recall", "SetRecall"),
        trec_eval="set_recall",
        conventions=_NO_REL,
    ),
    MeasureDef(
        "SetF",
        "F_beta of the whole retrieved set (seed 000's beta)",
        "(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP) = (1 + b^2) P R / (b^2 P + R)",
        "set",
        _f,
        ("rel", "beta", "alpha"),
        f_like=True,
        aliases=("set_F",),
        trec_eval="set_F (set_F.x takes x = beta^2)",
        conventions=_SET_F_CONV,
    ),
    MeasureDef(
        "SetE",
        "van Rijsbergen's effectiveness E = 1 - F_beta (lower is better)",
        "1 - F_beta",
        "set",
        lambda c, m: C.e_measure(c, m.beta),
        ("rel", "beta", "alpha"),
        f_like=True,
        aliases=("E",),
        conventions="1 when TP is 0.",
        higher_is_better=False,
    ),
    MeasureDef(
        "Fallout",
        "share of the non-relevant documents that was retrieved (FPR)",
        "FP / (FP + TN)",
        "set",
        _count(C.fallout),
        needs_tn=True,
        aliases=("FPR",),
        conventions="No non-relevant documents: 0.",
        higher_is_better=False,
    ),
    MeasureDef(
        "Specificity",
        "share of the non-relevant documents left out (TNR)",
        "TN / (TN + FP)",
        "set",
        _count(C.specificity),
        needs_tn=True,
        aliases=("TNR",),
        conventions="No non-relevant documents: 0.",
    ),
    MeasureDef(
        "Accuracy",
        "share of all decisions that are right (dominated by TN)",
        "(TP + TN) / N",
        "set",
        _count(C.accuracy),
        needs_tn=True,
    ),
    MeasureDef(
        "BalancedAccuracy",
        "mean of recall and specificity",
        "(TPR + TNR) / 2",
        "set",
        _count(C.balanced_accuracy),
        needs_tn=True,
        aliases=("BAcc",),
    ),
    MeasureDef(
        "YoudenJ",
        "Youden's J (informedness)",
        "TPR + TNR - 1",
        "set",
        _count(C.youden_j),
        needs_tn=True,
        aliases=("J", "Informedness"),
    ),
    MeasureDef(
        "PPCR",
        "predicted positive condition rate: share of the collection retrieved",
        "(TP + FP) / N",
        "set",
        _count(C.ppcr),
        needs_tn=True,
    ),
    MeasureDef(
        "Prevalence",
        "share of the collection that is relevant",
        "(TP + FN) / N",
        "set",
        _count(C.prevalence),
        needs_tn=True,
    ),
    MeasureDef(
        "P",
        "precision of the top k",
        "TP@k / k",
        "cutoff",
        _count(C.precision),
        aliases=("Precision",),
        trec_eval="P_k",
        conventions="Divides by k even when fewer than k were retrieved; P@0 = 0.",
    ),
    MeasureDef(
        "R",
        "recall of the top k",
        "TP@k / (TP + FN)",
        "cutoff",
        _count(C.recall),
        aliases=("Recall",),
        trec_eval="recall_k",
        conventions="No relevant documents: 0; R@0 = 0.",
    ),
    MeasureDef(
        "F",
        "F_beta of the top k",
        "(1 + b^2) TP@k / (b^2 (TP + FN) + k)",
        "cutoff",
        _f,
        ("rel", "beta", "alpha"),
        f_like=True,
        conventions="From P@k (dividing by k) and R@k; 0 when TP@k is 0.",
    ),
    MeasureDef(
        "Rprec",
        "precision of the top R, R the number of relevant documents",
        "TP@R / R",
        "rprec",
        _count(C.precision),
        aliases=("R-prec", "Rprecision"),
        trec_eval="Rprec",
        conventions="No relevant documents: 0.",
    ),
)


def _iprec(ranking: JudgedRanking, m: Measure, level: int) -> FloatArray:
    from prfeval.retrieval.curves import iprec_at_recall

    return iprec_at_recall(ranking, [float(m.recall_level or 0.0)], level=level)[:, 0]


_DEFS = (
    *_DEFS,
    MeasureDef(
        "IPrec",
        "interpolated precision at recall level r (trec_eval's iprec_at_recall)",
        "max over ranks k with recall@k >= r of P@k",
        "iprec",
        None,
        aliases=("iprec_at_recall",),
        trec_eval="iprec_at_recall_r (r = 0.00, 0.10, ..., 1.00)",
        conventions="Written IPrec@0.5. 0 when the ranking never reaches r; IPrec@0 is the "
        "best precision anywhere; macro average only.",
        from_ranking=_iprec,
    ),
)

#: Every measure, by canonical name.
REGISTRY: dict[str, MeasureDef] = {d.name: d for d in _DEFS}

#: Measures reported when none are asked for.
DEFAULT_MEASURES = (
    "NumQ NumRet NumRel NumRelRet SetP SetR SetF P@5 P@10 P@20 R@10 R@100 R@1000 F@10 Rprec"
)

_BY_LOWER: dict[str, MeasureDef] = {}
for _d in _DEFS:
    for _n in (_d.name, *_d.aliases):
        _BY_LOWER[_n.lower()] = _d

_OURS = re.compile(r"^(?P<name>[A-Za-z][\w-]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>.+))?$")
_TREC_CUTOFF = re.compile(r"^(?P<name>P|recall)(?:[._](?P<ks>[0-9,]+))?$")
_TREC_IPREC = re.compile(r"^iprec_at_recall(?:[._](?P<levels>[0-9.,]+))?$")
_TREC_SET_F = re.compile(r"^set_F(?:\.(?P<x>[^.].*))?$")


def lookup(name: str) -> MeasureDef:
    """The definition for a name or alias (case-insensitive), or a MeasureError with suggestions."""
    found = _BY_LOWER.get(name.lower())
    if found is None:
        raise MeasureError(f"unknown measure {name!r}{_suggest(name)}")
    return found


def _suggest(name: str) -> str:
    candidates = sorted(
        {
            *REGISTRY,
            *(a for d in _DEFS for a in d.aliases),
            "P@10",
            "R@100",
            "set_F.1",
            "P_10",
            "recall_100",
        }
    )
    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)
    if not close:
        lowered = {c.lower(): c for c in candidates}
        close = [
            lowered[c] for c in difflib.get_close_matches(name.lower(), lowered, n=3, cutoff=0.5)
        ]
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return hint + " (`prfeval measures` lists them all)"


def _parse_k(text: str, label: str) -> int:
    try:
        k = int(text)
    except ValueError:
        raise MeasureError(f"{label}: the cutoff must be an integer >= 0, got {text!r}") from None
    if k < 0:
        raise MeasureError(f"{label}: the cutoff must be an integer >= 0, got {k}")
    return k


def _parse_params(text: str, definition: MeasureDef, label: str) -> dict[str, object]:
    values: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep:
            raise MeasureError(f"{label}: expected name=value, got {item!r}")
        if key not in definition.params:
            takes = ", ".join(definition.params) or "no parameters"
            raise MeasureError(f"{label}: {definition.name} takes {takes}; got {key!r}")
        spec = PARAMS[key]
        try:
            value = spec.type(raw.strip())
        except ValueError:
            raise MeasureError(
                f"{label}: {key} must be {spec.valid}, got {raw.strip()!r}"
            ) from None
        if not spec.check(float(value)):  # type: ignore[arg-type]
            raise MeasureError(f"{label}: {key} must be {spec.valid}, got {raw.strip()}")
        values[key] = value
    if "alpha" in values and "beta" in values:
        raise MeasureError(f"{label}: give beta or alpha, not both")
    return values


def _build(definition: MeasureDef, label: str, k: int | None, params: dict[str, object]) -> Measure:
    if definition.kind == "cutoff" and k is None:
        raise MeasureError(f"{label}: {definition.name} needs a cutoff, e.g. {definition.name}@10")
    if definition.kind != "cutoff" and k is not None:
        raise MeasureError(f"{label}: {definition.name} takes no cutoff")
    beta = 1.0
    if "alpha" in params:
        beta = C.beta_from_alpha(float(params["alpha"]))  # type: ignore[arg-type]
    elif "beta" in params:
        beta = float(params["beta"])  # type: ignore[arg-type]
    rel = params.get("rel")
    return Measure(
        definition,
        k=k,
        rel=None if rel is None else int(rel),  # type: ignore[call-overload]
        beta=beta,
        label=label,
        explicit=params,
    )


def _parse_one(token: str) -> list[Measure]:
    trec = _TREC_CUTOFF.match(token)
    if trec:
        definition = REGISTRY["P" if trec["name"] == "P" else "R"]
        if trec["ks"] is None:
            return [_build(definition, f"{token}_{k}", k, {}) for k in TREC_EVAL_CUTOFFS]
        ks = [k for k in trec["ks"].split(",") if k]
        if len(ks) == 1:
            return [_build(definition, token, _parse_k(ks[0], token), {})]
        return [_build(definition, f"{trec['name']}_{k}", _parse_k(k, token), {}) for k in ks]
    iprec = _TREC_IPREC.match(token)
    if iprec:
        if iprec["levels"] is None:
            return [_iprec_measure(f"iprec_at_recall_{r:.2f}", r) for r in _STANDARD_LEVELS]
        levels = [x for x in iprec["levels"].split(",") if x]
        if len(levels) == 1:
            return [_iprec_measure(token, _parse_recall_level(levels[0], token))]
        return [
            _iprec_measure(f"iprec_at_recall_{x}", _parse_recall_level(x, token)) for x in levels
        ]
    set_f = _TREC_SET_F.match(token)
    if set_f:
        params: dict[str, object] = {}
        if set_f["x"] is not None:
            try:
                x = float(set_f["x"])
            except ValueError:
                raise MeasureError(f"{token}: set_F.x takes a number x (= beta^2)") from None
            if not (math.isfinite(x) and x >= 0):
                raise MeasureError(f"{token}: set_F.x takes x = beta^2 >= 0, got {x:g}")
            params["beta"] = math.sqrt(x)
        return [_build(REGISTRY["SetF"], token, None, params)]
    match = _OURS.match(token)
    if not match:
        raise MeasureError(
            f"cannot parse measure {token!r}: expected Name, Name@k or "
            f"Name(param=value)@k{_suggest(token)}"
        )
    definition = lookup(match["name"])
    params = _parse_params(match["params"] or "", definition, token)
    if definition.kind == "iprec":
        if match["k"] is None:
            raise MeasureError(f"{token}: IPrec needs a recall level, e.g. IPrec@0.5")
        rel = params.get("rel")
        return [
            _iprec_measure(
                token,
                _parse_recall_level(match["k"], token),
                None if rel is None else int(rel),
                params,
            )
        ]  # type: ignore[call-overload]
    k = None if match["k"] is None else _parse_k(match["k"], token)
    return [_build(definition, token, k, params)]


_STANDARD_LEVELS = tuple(i / 10 for i in range(11))


def _parse_recall_level(text: str, label: str) -> float:
    try:
        r = float(text)
    except ValueError:
        raise MeasureError(f"{label}: the recall level must be a number in [0, 1]") from None
    if not 0.0 <= r <= 1.0:
        raise MeasureError(f"{label}: the recall level must be in [0, 1], got {r:g}")
    return r


def _iprec_measure(
    label: str, r: float, rel: int | None = None, params: dict[str, object] | None = None
) -> Measure:
    return Measure(REGISTRY["IPrec"], rel=rel, label=label, explicit=params or {}, recall_level=r)


def cutoffs_read(measures: Sequence[Measure]) -> frozenset[int] | None:
    """The ranks k at which ``measures`` cut a ranking, or ``None`` if they read every rank.

    Set measures and counts read the whole ranking, ``P@k``-like ones its top k; R-precision
    (a cutoff per query) and interpolated precision read every rank. Ties between documents
    that no cutoff separates are then left in any order (see :func:`prfeval.retrieval.align.align`).

    >>> sorted(cutoffs_read(parse_measures("P@10 R@100 SetF")))
    [10, 100]
    >>> cutoffs_read(parse_measures("P@10 Rprec")) is None
    True
    """
    ks: set[int] = set()
    for m in measures:
        kind = m.definition.kind
        if kind == "cutoff" and m.k is not None:
            ks.add(m.k)
        elif kind not in ("count", "set"):
            return None
    return frozenset(ks)


def parse_measures(
    spec: str | Measure | list[str | Measure] | tuple[str | Measure, ...] | None,
) -> list[Measure]:
    """Parse measure names; several may share one string, separated by spaces.

    >>> [m.name for m in parse_measures("P@10 R(rel=2)@100 SetF(beta=2)")]
    ['P@10', 'R(rel=2)@100', 'SetF(beta=2)']
    >>> [str(m) for m in parse_measures("P.5,10 set_F.2")]
    ['P_5', 'P_10', 'set_F.2']
    """
    if spec is None:
        spec = DEFAULT_MEASURES
    items = [spec] if isinstance(spec, str | Measure) else list(spec)
    measures: list[Measure] = []
    for item in items:
        if isinstance(item, Measure):
            measures.append(item)
            continue
        for token in _split(item):
            measures.extend(_parse_one(token))
    if not measures:
        raise MeasureError("no measures given")
    seen: set[str] = set()
    unique = []
    for m in measures:
        if str(m) not in seen:
            seen.add(str(m))
            unique.append(m)
    return unique


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
