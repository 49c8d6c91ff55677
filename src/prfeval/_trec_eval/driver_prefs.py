"""``prfeval trec_eval -R prefs | -R qrels_prefs``: trec_eval 9.0.8's preference measures.

Dispatched from :mod:`prfeval._trec_eval.driver` when ``-R`` names a preferences format; prints
trec_eval's rows (``-q`` per query, then the summary) for the ``prefs_*`` measures asked
with ``-m`` (a name, or the sets ``all_prefs`` and ``prefs``), as the registry declares
them (:mod:`prfeval._measures.prefs`), measured by :func:`prfeval.evaluate` over the
preferences.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from prfeval._core.errors import UsageError

__all__ = ["PREFS_FORMATS", "run_prefs"]

#: trec_eval's ``-R`` formats of preference judgments.
PREFS_FORMATS: tuple[str, ...] = ("prefs", "qrels_prefs")


def _asked(measures: list[tuple[str, str | None]]) -> list[str]:
    """trec_eval's names asked with ``-m`` (names or sets), in its table order; only the
    preference measures, runid and num_q can be computed from preferences."""
    from prfeval._measures import TREC_REGISTRY

    sets = TREC_REGISTRY.trec_sets
    table = sets["all_prefs"]
    if not measures:
        # trec_eval's default (official) measures need qrels: it stops on them
        raise UsageError(
            "-R prefs and -R qrels_prefs need -m: all_prefs, prefs or a prefs_* measure"
        )
    marked: set[str] = set()
    for name, _params in measures:
        if name in sets and set(sets[name]) <= set(table):
            marked.update(sets[name])
        elif name in table:
            marked.add(name)
        else:
            raise UsageError(
                f"measure '{name}' cannot be computed from preferences (-R prefs and "
                "-R qrels_prefs give the prefs_* measures, runid and num_q)"
            )
    return [name for name in table if name in marked]


def run_prefs(args: Any, rel_format: str) -> int:
    """Evaluate ``args.files`` (preferences, run) as trec_eval does with ``-R rel_format``;
    rows to stdout, and the exit status returned."""
    from prfeval._core.aggregate import assemble
    from prfeval._core.partials import Partial
    from prfeval._io.load import load_run
    from prfeval._io.prefs import read_preferences
    from prfeval._measures import TREC_REGISTRY
    from prfeval._retrieval.evaluate import evaluate

    names = _asked(args.measures)
    prefs_path, run_path = args.files
    for path, what in (
        (prefs_path, "get_prefs: Cannot read prefs file"),
        (run_path, "get_results: Cannot read results file"),
    ):
        if path != "-" and os.path.isfile(path) and os.path.getsize(path) == 0:
            # trec_eval cannot read an empty file: its words and status
            sys.stderr.write(f"trec_eval.{what} '{path}'\ntrec_eval: Quit in file '{path}'\n")
            return 2
    prefs = read_preferences(
        prefs_path, format=rel_format, comments=args.version >= 10  # type: ignore[arg-type]  # one of the two, by -R
    )
    run = load_run(run_path, ranks=False)
    entries = [found for n in names if (found := TREC_REGISTRY.trec_name(n)) is not None]
    shown = [(t.name, d) for t, d in entries if d.needs_preferences]
    # -c: every judged query counts, one without results scoring 0 (trec_eval 9.0.8), but
    # only the queries with results have rows of their own.
    result = evaluate(prefs, run, [d.name for _, d in shown], max_results=args.max_results,
                      complete=args.complete)
    missing = set(result.accounting.missing_from_run)
    printed = [j for j, q in enumerate(result.query_ids) if q not in missing]
    if not printed:
        sys.stderr.write("trec_eval: No queries with both results and relevance info\n")
        return 7
    num_q = len(result.query_ids)

    def text(total: bool, value: float) -> str:
        return f"{int(value)}" if total else f"{value:.4f}"

    out: list[str] = []
    if args.per_query:
        for j in printed:
            q = result.query_ids[j]
            for i, (n, d) in enumerate(shown):
                out.append(f"{n:<22}\t{q}\t{text(d.is_total, result.values[i][j])}\n")
    if args.summary:
        rows = {n: i for i, (n, _) in enumerate(shown)}
        # trec_eval's summary: every counted query's value, added in query order
        partial = Partial.of(result.measures, result.values, ids=result.query_ids)
        summaries = assemble(partial, trec_eval_queries=num_q)
        for n in names:
            if n == "runid":
                rid = run.extra.get("run_id", run.name)
                out.append(f"{n:<22}\tall\t{rid() if callable(rid) else rid}\n")
            elif n == "num_q":
                out.append(f"{n:<22}\tall\t{num_q}\n")
            else:
                d = shown[rows[n]][1]
                out.append(f"{n:<22}\tall\t{text(d.is_total, summaries[rows[n]].macro)}\n")
    sys.stdout.write("".join(out))
    sys.stdout.flush()
    return 0
