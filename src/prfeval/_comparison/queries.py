"""The query set of a comparison: which queries every run is compared on, and what happened
to every other one (judged but unanswered, answered by some runs only, unjudged).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from prfeval._core.ids import counted, id_list, ordered_ids

__all__ = [
    "Missing",
    "QueryTreatment",
    "choose_queries",
]

#: What to do with a judged query some runs have results for and others do not.
Missing = Literal["zero", "drop"]


def _queries(n: int) -> str:
    return counted(n, "query", "queries")


@dataclass(frozen=True)
class QueryTreatment:
    """Which queries the runs were compared on, and what happened to every other one.

    Attributes
    ----------
    compared
        The queries every run was measured on, in output order; per-query values are paired
        by these ids.
    policy
        ``"zero"``: the judged queries any run answered; a run without results for one of
        them is scored there as an empty ranking (0 for precision, recall and F), as
        trec_eval ``-c`` does. ``"drop"``: only the judged queries every run answered.
        ``"complete"``: every judged query, unanswered ones scoring as empty rankings in
        every run (trec_eval ``-c``).
    missing
        Run -> compared queries it has no results for (scored as empty rankings).
    dropped
        Judged queries left out because some run, not all, answered them (policy ``drop``).
    unanswered
        Judged queries no run answered: left out, or scored as empty rankings in every run
        under ``complete``.
    not_in_qrels
        Run -> queries it answered that have no judgments (always left out).
    unjudged_listed
        Queries named in ``queries=`` that have no judgments.
    query_set
        How the query set was chosen: ``"all"``, or the list it came from.
    repeated_judgments
        Judgments repeating a (query, document) judged before, each counted once as
        ``qrels_duplicates`` says.
    """

    compared: tuple[str, ...]
    policy: str
    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()
    unanswered: tuple[str, ...] = ()
    not_in_qrels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    unjudged_listed: tuple[str, ...] = ()
    query_set: str = "all"
    repeated_judgments: int = 0

    def describe(self, limit: int = 8) -> list[str]:
        """The treatment in words, one line per fact; lists longer than ``limit`` are cut."""

        def ids(values: tuple[str, ...]) -> str:
            return id_list(values, limit)

        over = {
            "zero": "the judged queries any run answered",
            "drop": "the judged queries every run answered",
            "complete": "every judged query",
        }[self.policy]
        lines = [f"Queries compared: {len(self.compared)}, {over}; paired by query id."]
        if self.query_set != "all":
            lines.append(f"Query set: {self.query_set}.")
        for run, qids in self.missing.items():
            if qids:
                lines.append(
                    f"{run} has no results for {_queries(len(qids))} compared here, scored "
                    f"as empty rankings (0): {ids(qids)}"
                )
        if self.dropped:
            lines.append(
                f"{_queries(len(self.dropped))} left out because not every run answered "
                f"them: {ids(self.dropped)}"
            )
        if self.unanswered:
            verb = (
                "scored as empty rankings in every run" if self.policy == "complete" else "left out"
            )
            lines.append(
                f"{counted(len(self.unanswered), 'judged query', 'judged queries')} no run "
                f"answered, {verb}: {ids(self.unanswered)}"
            )
        for run, qids in self.not_in_qrels.items():
            if qids:
                lines.append(
                    f"{run} answered {_queries(len(qids))} with no judgments (left out): "
                    f"{ids(qids)}"
                )
        if self.unjudged_listed:
            lines.append(
                f"{counted(len(self.unjudged_listed), 'listed query', 'listed queries')} "
                f"with no judgments, left out: {ids(self.unjudged_listed)}"
            )
        if self.repeated_judgments:
            lines.append(
                f"Repeated judgments: {self.repeated_judgments}; each (query, document) "
                "counts once."
            )
        return lines

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "compared": list(self.compared),
            "n_compared": len(self.compared),
            "policy": self.policy,
            "query_set": self.query_set,
            "missing": {k: list(v) for k, v in self.missing.items()},
            "dropped": list(self.dropped),
            "unanswered": list(self.unanswered),
            "not_in_qrels": {k: list(v) for k, v in self.not_in_qrels.items()},
            "unjudged_listed": list(self.unjudged_listed),
            "repeated_judgments": self.repeated_judgments,
        }


def choose_queries(
    judged: set[str],
    answered: dict[str, set[str]],
    runs_all: dict[str, set[str]],
    *,
    missing: Missing,
    complete: bool,
    include: set[str] | None,
    exclude: set[str] | None,
    query_set: str,
) -> QueryTreatment:
    """Pick the compared queries and record what happened to every other one."""
    anyone = set().union(*answered.values())
    everyone = set.intersection(*answered.values())
    if complete:
        compared, policy = judged, "complete"
    elif missing == "zero":
        compared, policy = anyone, "zero"
    else:
        compared, policy = everyone, "drop"

    def listed(ids: set[str]) -> set[str]:
        kept = ids if include is None else ids & include
        return kept - (exclude or set())

    return QueryTreatment(
        compared=ordered_ids(compared),
        policy=policy,
        missing={name: ordered_ids(compared - has) for name, has in answered.items()},
        dropped=ordered_ids(anyone - everyone) if policy == "drop" else (),
        unanswered=ordered_ids(judged - anyone),
        not_in_qrels={name: ordered_ids(listed(has) - judged) for name, has in runs_all.items()},
        unjudged_listed=ordered_ids(include - judged - (exclude or set())) if include else (),
        query_set=query_set,
    )
