"""Which measures ``prfeval trec_eval -m ...`` computes, in the order trec_eval prints them.

Each ``-m`` names a measure of trec_eval's table or a set of them; its parameters are read as
trec_eval 9.0.8 reads them (C's ``atol`` and ``atof``, cutoffs in its ``qsort``'s order), and
refused with its words where it refuses them. ``-N`` and a ``-l`` below 0 reach the measures
that read them, unchecked, as trec_eval takes them.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from itertools import pairwise
from typing import TYPE_CHECKING

from prfeval._core.errors import UsageError
from prfeval._core.trec_names import TrecEvalRefusal
from prfeval._measures import TREC_REGISTRY
from prfeval._measures.c_sort import trec_cutoff_order
from prfeval._trec_eval.arguments import TrecEvalStop
from prfeval._trec_eval.c_numbers import atof, atol

if TYPE_CHECKING:
    from prfeval._core.measure_def import Measure
    from prfeval._core.trec_names import TrecName

__all__ = [
    "DEFAULT_SET",
    "check_measure_names",
    "measure_entries",
    "trec_eval_params",
    "with_collection_size",
    "with_level",
]

#: trec_eval's default set of measures, when no -m is given.
DEFAULT_SET = "official"


def check_measure_names(asked: list[tuple[str, str | None]], version: int = 9) -> None:
    """Stop, as trec_eval does while reading its options (status 1), at a name that is
    neither a measure of trec_eval's table nor one of its sets; a measure of its table that
    prfeval does not compute is refused later, as not supported (status 2)."""
    r = TREC_REGISTRY
    offered = (*r.trec_table, *r.trec_sets) if version < 10 else (*r.trec_table_10, *r.trec_sets_10)
    known = (*offered, *r.trec_unsupported, *r.trec_unsupported_sets)
    for name, _ in asked:
        if name not in known:
            close = difflib.get_close_matches(name, offered, n=3, cutoff=0.5)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            raise TrecEvalStop(f"trec_eval: illegal measure '{name}'{hint}\n", 1)


def measure_entries(
    asked: list[tuple[str, str | None]],
    version: int = 9,
    refused: list[tuple[TrecName, str]] | None = None,
) -> list[tuple[Measure, TrecName]]:
    """The measures trec_eval computes for ``-m`` arguments, in the order it prints them.

    Each ``-m`` marks a measure or a set of them (official, set, all_trec); the first ``-m``
    of a measure that gives parameters fixes them, as in trec_eval. No ``-m`` at all is
    ``official``. The order is trec_eval's table, which the registry's entries declare.
    Parameters are read as trec_eval reads them (``as_trec_eval``). A measure whose
    parameters trec_eval takes but refuses when it computes the first query
    (:class:`~prfeval._core.trec_names.TrecEvalRefusal`) is left out and added to ``refused``
    with trec_eval's words, for the caller to stop where trec_eval stops; without
    ``refused``, it stops here (status 4).
    """
    r = TREC_REGISTRY
    table, sets = (r.trec_table, r.trec_sets) if version < 10 else (r.trec_table_10, r.trec_sets_10)
    check_measure_names(asked, version)
    marked: set[str] = set()
    params: dict[str, str] = {}
    for name, given in asked or [(DEFAULT_SET, None)]:
        if name in sets:  # a set's parameters go to no measure (official.5 is official)
            marked.update(sets[name])
            continue
        if name in TREC_REGISTRY.trec_unsupported_sets:
            raise UsageError(f"measure set '{name}' (preference judgments) is not supported")
        if name not in table:
            raise UsageError(f"trec_eval's measure '{name}' is not supported")
        marked.add(name)
        if given is not None:
            params.setdefault(name, given)
    entries: list[tuple[Measure, TrecName]] = []
    for name in table:
        if name in marked:
            found = TREC_REGISTRY.trec_name(name)
            if found is None:  # a declaration is missing: prfeval's fault, not the user's
                raise TypeError(f"trec_eval's {name} has no registry entry")
            raw = params.get(name)
            text = trec_eval_params(found[0], raw)
            try:
                measures = TREC_REGISTRY.parse_trec(name, text, as_trec_eval=True)
            except TrecEvalRefusal as refusal:
                if refused is None:
                    raise TrecEvalStop(
                        f"{refusal.words}trec_eval: Can't calculate measure '{name}'\n", 4
                    ) from None
                refused.append((found[0], refusal.words))
                continue
            for m in measures:
                if text is not None and found[0].param in ("values", "beta_squared", "gains"):
                    # trec_eval names these by the text as typed: utility_2,-1,0,0
                    m = replace(m, label=f"{name}_{raw}", printed=f"{name}_{raw}")
                entries.append((m, found[0]))
    return entries


def with_collection_size(
    entries: list[tuple[Measure, TrecName]], n: int | None
) -> list[tuple[Measure, TrecName]]:
    """trec_eval's ``-N`` given to the measures that read it (a ``docs`` parameter), unchecked:
    trec_eval takes any number, even one below the documents judged or negative."""
    if n is None:
        return entries
    return [
        (replace(m, values=tuple((k, n if k == "docs" else v) for k, v in m.values)), t)
        if "docs" in m.definition.params
        else (m, t)
        for m, t in entries
    ]


def with_level(
    entries: list[tuple[Measure, TrecName]], level: int
) -> list[tuple[Measure, TrecName]]:
    """trec_eval's ``-l`` below 0 given to each measure as its relevance level, unchecked:
    ``prfeval evaluate`` refuses such a level, trec_eval reads it (each measure as its
    definition's ``below_zero`` says). A level of 0 or more is the evaluation's own."""
    if level >= 0:
        return entries
    return [
        (replace(m, rel=level), t) if "rel" in m.definition.params else (m, t)
        for m, t in entries
    ]


def trec_eval_params(t: TrecName, raw: str | None) -> str | None:
    """The parameter text ``raw`` of ``-m name.raw`` as trec_eval 9.0.8 reads it, rewritten
    for :meth:`Registry.parse_trec`; where trec_eval refuses it, its words (status 2).

    trec_eval splits ``raw`` on every ``,`` and reads each item with C's ``atol`` (cutoffs:
    ``5.5`` is 5, an empty item 0) or ``atof`` (levels and numbers: ``.25``, ``2junk`` is 2).
    Cutoffs are sorted and must all be above 0 and distinct, levels distinct; ``name=value``
    pairs (gains) are checked for their shape only, each grade read with ``atol``. A measure
    without parameters ignores them (``map.5`` is ``map``), as does a set (``official.5``).
    """
    if raw is None or t.param is None:
        return None
    items = raw.split(",")

    def refuse(why: str) -> TrecEvalStop:
        return TrecEvalStop(
            f"trec_eval: {why}\ntrec_eval: Cannot initialize measure '{t.name}'\n", 2
        )

    if t.param == "cutoffs":
        given = [atol(v) for v in items]
        # Checked in the order trec_eval's qsort leaves them (which the parser sorts them
        # into again): the first must be above 0, and no two neighbours equal.
        ks = trec_cutoff_order(given)
        if ks[0] <= 0:
            raise refuse("Negative cutoff detected")
        if any(a == b for a, b in pairwise(ks)):
            raise refuse("duplicate cutoffs detected")
        return ",".join(str(k) for k in given)
    if t.param == "gains":
        if not _pairs_shaped(raw):
            raise refuse(f"malformed pair parameters in '{raw}'")
        pairs = (item.partition("=") for item in items)
        return ",".join(f"{atol(g)}={atof(v.encode('utf-8', 'surrogateescape'))!r}"
                        for g, _, v in pairs)
    values = [atof(v.encode("utf-8", "surrogateescape")) for v in items]
    if t.param == "beta_squared":
        values = values[:1]  # the first number is x; trec_eval reads no other
    if t.param == "levels" and len(set(values)) < len(values):
        raise refuse("duplicate cutoffs detected")
    return ",".join(repr(v) for v in values)


def _pairs_shaped(raw: str) -> bool:
    """trec_eval's test of ``name=value,...``: no two ``,`` or ``=`` in a row (from a
    leading ``,``), and an ``=`` last seen."""
    last = ","
    for ch in raw:
        if ch in ",=":
            if ch == last:
                return False
            last = ch
    return last == "="
