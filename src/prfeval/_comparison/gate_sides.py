"""The two sides of a gate as measured, and whether they are comparable.

Each side is a run, measured here (one pass each, :func:`~prfeval._comparison.passes.measure_runs`),
or a saved evaluation read back (:mod:`prfeval._io.saved`), whose values are found by what its
labels parse to and whose unanswered queries score as empty rankings. :func:`measure_sides`
gives both as a :class:`Side` and refuses, naming the first difference, two sides measured
with different settings (every option that changes the numbers, as
:data:`~prfeval._core.options.EVAL_OPTIONS` declares them: :func:`compared_options`, each
worded as it declares) or over different judged queries, and a saved side measured otherwise
than the gate measures.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from prfeval._comparison.gate_verdicts import FloatArray, GateInput
from prfeval._comparison.passes import measure_runs
from prfeval._core.aggregate import assemble
from prfeval._core.errors import InputFormatError, MeasureError, PrfevalWarning, UsageError
from prfeval._core.ids import counted, id_list, ordered_ids
from prfeval._core.option_table import Option, setting_words
from prfeval._core.options import EVAL_OPTIONS, EvalOptions
from prfeval._core.partials import Partial
from prfeval._io.digest import digested
from prfeval._io.judgments_digest import JudgmentsDigest
from prfeval._io.saved import (
    SavedEvaluation,
    looks_saved,
    read_saved_evaluation,
    saved_from_dict,
)
from prfeval._io.source import open_input
from prfeval._measures import Measure, parse_measures
from prfeval._retrieval.evaluate import Evaluation

__all__ = [
    "EmptyRankings",
    "Side",
    "check_comparable",
    "check_finite",
    "check_judgments",
    "compared_options",
    "measure_sides",
    "take_input",
]


def compared_options() -> tuple[Option, ...]:
    """The settings two sides must share: every option that changes the numbers
    (``changes_numbers`` in :data:`~prfeval._core.options.EVAL_OPTIONS`), each worded in a
    message as it declares; the query set is compared by its judged ids, not by its name."""
    return tuple(o for o in EVAL_OPTIONS if o.changes_numbers and o.name != "query_set")


@dataclass(frozen=True)
class Side:
    """One side as measured: its settings, judged and answered queries, and per-query values
    over its judged queries (rows: the gated measures; a query it did not answer holds the
    value of an empty ranking)."""

    role: str
    name: str
    saved: bool
    settings: dict[str, Any]
    judged: frozenset[str]
    answered: frozenset[str]
    query_ids: tuple[str, ...]
    values: FloatArray

    @property
    def called(self) -> str:
        """How a message names it: ``the candidate cand.run``."""
        return f"the {self.role} {self.name}"

    def column(self, query_ids: Sequence[str]) -> FloatArray:
        """The values of ``query_ids``, in that order."""
        at = {q: i for i, q in enumerate(self.query_ids)}
        return self.values[:, [at[q] for q in query_ids]]


@dataclass(frozen=True)
class EmptyRankings:
    """The gate's own settings and judged queries, and each query's values as an empty
    ranking (rows: the gated measures): what a saved side scores where it had no results."""

    settings: dict[str, Any]
    judged: frozenset[str]
    query_ids: tuple[str, ...]
    values: FloatArray


def measure_sides(
    judgments: Any,
    sources: tuple[Any, Any],
    names: tuple[str, str],
    gated: Sequence[Measure],
    opts: EvalOptions,
    stream: bool | None,
) -> tuple[Side, Side]:
    """The baseline and the candidate as measured, checked to be comparable: runs measured
    here in one pass each, saved evaluations read, and (when one is saved) the judged
    queries of the gate's own query set as empty rankings, for what a saved side left out."""
    roles = ("baseline", "candidate")
    fresh = [i for i, s in enumerate(sources) if not isinstance(s, SavedEvaluation)]
    passes = {}
    if fresh:
        measured = measure_runs(
            judgments,
            {names[i]: sources[i] for i in fresh},
            [names[i] for i in fresh],
            gated,
            opts,
            stream=stream,
        )
        passes = dict(zip(fresh, measured, strict=True))
    empty = _empty_rankings(judgments, gated, opts) if len(fresh) < 2 else None
    sides = []
    for i, source in enumerate(sources):
        if isinstance(source, SavedEvaluation):
            if empty is None:  # measured above whenever a side is saved
                raise RuntimeError("a saved side needs the empty rankings' values")
            sides.append(_saved_side(roles[i], source, gated, empty))
            continue
        p = passes[i]
        query_ids = tuple(str(q) for q in p.measured.query_ids)
        judged = frozenset(query_ids)
        answered = judged - frozenset(p.done.accounting.missing_from_run)
        sides.append(Side(roles[i], p.name, False, p.done.settings(opts), judged, answered,
                           query_ids, p.measured.values))  # fmt: skip
    base, cand = sides
    # Without --order, each side is ranked as its layout says (scores for a scored run, the
    # list order of a JSON Lines list, MS MARCO's ranks): what the rankings mean, not how
    # they were written, so the effective orders need not agree.
    check_comparable(base, cand, order=opts.order is not None)
    if empty is not None:  # the gate's own options and judgments, against the saved sides
        here = Side("gate", "", False, empty.settings, empty.judged, frozenset(), (),
                     np.empty((len(gated), 0)))  # fmt: skip
        for side in (base, cand):
            if side.saved:
                check_comparable(side, here, against_gate=True, order=opts.order is not None)
    return base, cand


def take_input(
    source: Any, role: str, name: str, *, detect: bool = True
) -> tuple[Any, GateInput]:
    """What to read ``source`` from, and its record: a file is hashed (a pipe read once), and
    told to be a saved evaluation or a run."""
    if isinstance(source, SavedEvaluation):
        return source, GateInput(role, name, "saved evaluation")
    if isinstance(source, Evaluation):
        saved = saved_from_dict(source.to_dict(per_query=True), name)
        return saved, GateInput(role, name, "saved evaluation")
    kind = "judgments" if role == "qrels" else "run"
    if not isinstance(source, str | Path):
        return source, GateInput(role, name, kind)
    d = digested(source)
    record = GateInput(role, name, kind, str(source), d.sha256, d.size)
    if not detect:
        return d.source, record
    with open_input(d.source) as handle:
        if looks_saved(handle):
            return read_saved_evaluation(handle), replace(record, kind="saved evaluation")
    return d.source, record


def _empty_rankings(judgments: Any, gated: Sequence[Measure], opts: EvalOptions) -> EmptyRankings:
    """The judged queries of the gate's query set, each measured as an empty ranking.

    The order does not change an empty ranking, and ``rank`` would ask an empty run for a
    rank column, so it is measured in the default order; the settings report the order
    asked."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"the run .* is empty", PrfevalWarning)
        (empty,) = measure_runs(
            judgments, {"(no results)": {}}, ["(no results)"], gated, replace(opts, order=None)
        )
    query_ids = tuple(str(q) for q in empty.measured.query_ids)
    return EmptyRankings(
        {**empty.done.settings(opts), "order": opts.order},
        frozenset(query_ids),
        query_ids,
        empty.measured.values,
    )


def _saved_side(
    role: str,
    saved: SavedEvaluation,
    gated: Sequence[Measure],
    empty: EmptyRankings,
) -> Side:
    """A saved evaluation as a side: its values for the gated measures, found by what its
    labels parse to, over its judged queries (the unanswered ones as empty rankings)."""
    name = Path(saved.name).name or saved.name
    if saved.per_query is None:
        raise UsageError(
            f"{saved.name} has no per-query values, which pairing the queries needs: save it "
            "with prfeval evaluate --format json -q"
        )
    by_name: dict[str, str] = {}
    for label in saved.labels:
        try:
            (m,) = parse_measures(label)
        except (MeasureError, ValueError):
            continue  # a label this version cannot read is not one it gates
        by_name.setdefault(m.name, label)
    labels = []
    for m in gated:
        if m.name not in by_name:
            has = ", ".join(saved.labels) or "no measure"
            raise UsageError(
                f"not comparable: {saved.name} has no {m} (it has {has}); measure it there "
                "too, or gate the measures it has"
            )
        labels.append(by_name[m.name])
    _check_macro(saved, gated, labels)
    judged = saved.judged_queries
    query_ids = ordered_ids(judged)
    values = np.empty((len(gated), len(query_ids)))
    empty_at = {q: i for i, q in enumerate(empty.query_ids)}
    for j, q in enumerate(query_ids):
        row = saved.per_query.get(q)
        for k, label in enumerate(labels):
            if row is not None:
                values[k, j] = row[label]
            elif q in empty_at:
                values[k, j] = empty.values[k, empty_at[q]]
            else:  # not judged here: the query sets differ, which the check says
                values[k, j] = np.nan
    return Side(
        role,
        name,
        True,
        dict(saved.settings),
        judged,
        saved.answered,
        query_ids,
        values,
    )


#: No measure's values, summed over queries, come near this (counts of documents
#: included); beyond it the paired tests' sums of squares overflow or lose every digit.
MAX_VALUE = 1e15


def _check_macro(saved: SavedEvaluation, gated: Sequence[Measure], labels: list[str]) -> None:
    """Refuse a saved evaluation whose macro value of a gated measure is not the average
    of its own per-query values (as the measure averages), or whose values cannot be
    averaged (too large for a float): the file was edited, or is not what it says."""
    per_query = saved.per_query or {}
    if not per_query:
        return
    for m, label in zip(gated, labels, strict=True):
        column = np.array([row[label] for row in per_query.values()], dtype=np.float64)
        with np.errstate(all="ignore"):
            mean = float(assemble(Partial.of((m,), column[None, :]))[0].macro)
            total = float(np.sum(np.abs(column)))
        saved_mean = saved.macro[label]
        field = f"macro.{json.dumps(label)}"
        if not math.isfinite(total) or total > MAX_VALUE:
            at = int(np.nanargmax(np.abs(column)))
            qid = list(per_query)[at]
            raise InputFormatError(
                f"per_query.{json.dumps(qid)}.{json.dumps(label)}: {float(column[at])!r} is "
                f"no value a measure gives (beyond {MAX_VALUE:g}); the file was edited or is "
                "damaged",
                path=saved.name,
            )
        if math.isnan(mean) and math.isnan(saved_mean):
            continue
        if not math.isclose(mean, saved_mean, rel_tol=1e-9, abs_tol=1e-12):
            raise InputFormatError(
                f"{field}: {saved_mean!r} is not the average of its {len(column)} per-query "
                f"values ({mean!r}): the file was edited or is damaged; save it again with "
                "prfeval evaluate --format json -q",
                path=saved.name,
            )


def check_comparable(
    a: Side, b: Side, *, against_gate: bool = False, order: bool = True
) -> None:
    """Refuse two sides measured differently, naming the first difference."""
    first = f"{a.called} was measured"
    second = "this gate measures" if against_gate else b.called
    tail = ": give the gate the options it was measured with" if against_gate else ""
    for option in compared_options():
        key = option.name
        if key == "order" and not order:
            continue
        x, y = a.settings.get(key), b.settings.get(key)
        if key == "unjudged_grade" and (x is None or y is None):
            continue  # only under --unjudged relevant, which "unjudged" compares
        if x != y:
            raise UsageError(
                f"not comparable: {first} {setting_words(option, x)}, {second} "
                f"{setting_words(option, y)}{tail}"
            )
    if a.judged != b.judged:
        only_a = ordered_ids(a.judged - b.judged)
        only_b = ordered_ids(b.judged - a.judged)
        where_b = "the judgments and query set of this gate" if against_gate else b.called
        parts = []
        if only_a:
            parts.append(f"{counted(len(only_a), 'judged query', 'judged queries')} only in "
                         f"{a.called} ({id_list(only_a, 5)})")
        if only_b:
            parts.append(f"{counted(len(only_b), 'judged query', 'judged queries')} only in "
                         f"{where_b} ({id_list(only_b, 5)})")
        query_set_b = b.settings.get("query_set", "all")
        raise UsageError(
            f"not comparable: {first} on {len(a.judged)} judged queries (query set: "
            f"{a.settings.get('query_set', 'all')}), {where_b} on {len(b.judged)} (query set: "
            f"{query_set_b}): {'; '.join(parts)}; give both the same judgments and --queries"
        )


def check_judgments(
    saved: SavedEvaluation, role: str, here: JudgmentsDigest, qrels: str
) -> str | None:
    """Refuse a saved side measured with judgments that say something else than the gate's
    (by content: the file's name and format do not matter), naming both digests and the
    first query whose judgments differ. Returns the note for a side saved before digests
    were recorded, whose judgments cannot be checked (``None`` otherwise)."""
    name = Path(saved.name).name or saved.name
    there = saved.digests
    if there is None:
        return (
            f"{name} records no digest of its judgments (saved by an older prfeval): they "
            f"could not be checked against {qrels}."
        )
    if there.judgments == here.judgments:
        return None
    first = there.first_difference(here)
    where = f"; the first query whose judgments differ is {first!r}" if first else ""
    raise UsageError(
        f"not comparable: the {role} {name} was measured with other judgments than {qrels} "
        f"(judgments digest {there.judgments[:12]} there, {here.judgments[:12]} here){where}: "
        f"the judgments changed, not the system; measure the {role} again with {qrels}, or "
        "gate with the judgments it was measured with"
    )


def check_finite(
    gated: Sequence[Measure], query_ids: Sequence[str], side: Side, values: FloatArray
) -> None:
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        k, j = bad[0]
        raise UsageError(
            f"{gated[k]} is undefined (NaN) for query {query_ids[j]!r} in {side.called}: a "
            "mean with an undefined query cannot be gated"
        )
