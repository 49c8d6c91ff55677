"""``prfeval trec_eval -R qrels_jg``: judgments in judgment groups, as trec_eval 9.0.8 reads
and measures them (``qid jg docid grade``; ``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``
averaged over each query's groups, and ``runid``, ``num_q``).

It stops where trec_eval stops, with its words and status: 2 for a qrels_jg file it cannot
read (missing, empty, a line without four fields, a document judged twice in a group), 7
when no query has both results and judgments, 4 for a measure that needs ordinary qrels
(``map`` ...) or a document repeated in a query's results (the rows of the queries before
it printed with ``-q``), 255 for a z-score file it cannot read.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from prfeval._core.measure_def import Measure
from prfeval._core.trec_names import TrecName

__all__ = ["JG_FORMAT", "run_jg", "wrong_format_stop"]

#: trec_eval's name of the format.
JG_FORMAT = "qrels_jg"


def wrong_format_stop(entries: list[tuple[Measure, TrecName]], rel_format: str) -> str | None:
    """What trec_eval writes when a measure asked cannot read judgments of ``rel_format``
    (a judgment-group measure with ordinary qrels, or the reverse), at the first query it
    evaluates; ``None`` when every measure can."""
    from prfeval._measures.judgment_groups import JG_MEASURES

    for m, t in entries:
        if not t.joins:
            continue
        if m.definition.needs_preferences:  # with qrels or qrels_jg (prefs go elsewhere)
            return (
                "trec_eval.form_prefs_info: prefs_info format not (prefs or qrels_prefs) or "
                f"results format not trec_results\ntrec_eval: Can't calculate measure "
                f"'{t.name}'\n"
            )
        if rel_format == JG_FORMAT and t.name not in JG_MEASURES:
            return (
                "trec_eval.form_res_qrels: rel_info format not qrels or results format not "
                f"trec_results\ntrec_eval: Can't calculate measure '{t.name}'\n"
            )
        if rel_format != JG_FORMAT and t.name in JG_MEASURES:
            return (
                "trec_eval: rel_info format not qrels_jg or results format not trec_results\n"
                f"trec_eval: Can't calculate measure '{t.name}'\n"
            )
    return None


def run_jg(args: Any, measure_entries: Callable[[], list[tuple[Measure, TrecName]]]) -> int:
    """Evaluate ``args`` (a parsed trec_eval command line with ``-R qrels_jg``) for the
    measures ``measure_entries()`` gives (called after the files are read, as trec_eval reads
    its measures' parameters): rows on stdout, trec_eval's words on stderr, its status
    returned."""
    import os

    from prfeval._trec_eval.dialect import TrecEvalUnreadable, read_trec_eval_inputs
    from prfeval._trec_eval.judgment_groups import evaluate_judgment_groups
    from prfeval._trec_eval.printing import trec_eval_blocks
    from prfeval._trec_eval.printing_zscores import zscore_blocks
    from prfeval._trec_eval.qrels_jg import QrelsJgUnreadable, read_qrels_jg
    from prfeval._trec_eval.summary import evaluated_queries
    from prfeval._trec_eval.zscores import ZScoresUnreadable, read_zscores

    qrels_path, run_path = args.files
    try:
        groups = read_qrels_jg(qrels_path, version=args.version)
    except QrelsJgUnreadable as exc:
        return _stop(exc.message, 2)
    if run_path != "-" and os.path.isfile(run_path) and os.path.getsize(run_path) == 0:
        return _stop(
            f"trec_eval.get_results: Cannot read results file '{run_path}'\n"
            f"trec_eval: Quit in file '{run_path}'\n",
            2,
        )
    try:
        inputs = read_trec_eval_inputs(
            qrels_path, run_path, whole=True, version=args.version
        )
    except TrecEvalUnreadable as exc:
        return _stop(exc.message, exc.status)
    if inputs.codec != groups.codec:  # the run is not UTF-8: ids compare as its bytes
        groups = read_qrels_jg(qrels_path, version=args.version, codec=inputs.codec)
    zscores = None
    if args.zscores is not None:
        try:
            zscores = read_zscores(args.zscores)
        except ZScoresUnreadable as exc:
            return _stop(exc.message, 255)
    entries = measure_entries()
    # Preference measures read no qrels: trec_eval stops at them (wrong_format_stop), after
    # finding the queries to evaluate, which a hidden count of judgments finds when no other
    # measure is asked.
    measures = [m for m, _ in entries if not m.definition.needs_preferences]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = evaluate_judgment_groups(
            groups,
            inputs.run,
            measures or [_judgment_count()],
            level=max(args.level, 0),  # a level below 0 is each measure's (with_level)
            complete=args.complete,
            judged_only=args.judged_only,
            max_results=args.max_results,
            collection_size=args.collection_size,
            duplicates="keep",
            order="score",
        )
    only = None if args.debug_query is None else {args.debug_query}
    printing = args.printing(only)
    evaluated = evaluated_queries(result, printing)
    if not evaluated:
        return _stop("trec_eval: No queries with both results and relevance info\n", 7)
    wrong = wrong_format_stop(entries, JG_FORMAT)
    if wrong is not None:
        return _stop(wrong, 4)
    repeated = _first_repeated(
        inputs.run, [result.query_ids[i] for i in evaluated], args.max_results
    )
    if repeated is not None:
        query, doc = repeated
        joined = next((t.name for _, t in entries if t.joins), None)
        if joined is not None:
            if args.per_query:
                before = {q for q in result.query_ids if _key(q) < _key(query)}
                before &= {result.query_ids[i] for i in evaluated}
                _emit(result, entries, zscores, replace(printing, queries=before, summary=False))
            return _stop(
                f"trec_eval.form_res_qrels: duplicate docs {doc}"
                f"trec_eval: Can't calculate measure '{joined}'\n",
                4,
            )
    if zscores is None:
        texts = trec_eval_blocks(result, entries, printing)
    else:
        texts = zscore_blocks(result, entries, zscores, printing)
    for text in texts:
        _write(text, inputs.codec)
    sys.stdout.flush()
    return 0


def _judgment_count() -> Measure:
    """The per-query count of relevant judgments (trec_eval's num_rel, found by what its
    entry declares): measured when the command asks for nothing the judgments can give."""
    from prfeval._measures import TREC_REGISTRY

    d = next(d for t, d in TREC_REGISTRY.trec_entries() if t.summary_value == "judged_relevant")
    return TREC_REGISTRY.build(d, "", {})


def _emit(result: Any, entries: Any, zscores: Any, printing: Any) -> None:
    from prfeval._trec_eval.printing import trec_eval_blocks
    from prfeval._trec_eval.printing_zscores import zscore_blocks

    if zscores is None:
        texts = trec_eval_blocks(result, entries, printing)
    else:
        texts = zscore_blocks(result, entries, zscores, printing)
    for text in texts:
        sys.stdout.write(text)


def _first_repeated(
    run: Any, queries: list[str], max_results: int | None
) -> tuple[str, str] | None:
    """The first of ``queries`` (in byte order) whose top ``max_results`` (ranked by score,
    then doc id, both descending) repeat a document, and the first such document in byte
    order: where trec_eval looks for repeats."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from prfeval._io.load import load_run

    table = load_run(run)
    columns = {"q": table.query_ids.cast(pa.string()), "d": table.doc_ids.cast(pa.string())}
    if max_results is not None and table.scores is not None:
        ranked = pa.table({**columns, "s": pa.array(table.scores)})
        ranked = ranked.sort_by([("q", "ascending"), ("s", "descending"), ("d", "descending")])
        q = np.asarray(ranked["q"].to_numpy(zero_copy_only=False), dtype=object)
        starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
        rank = np.arange(len(q)) - np.repeat(starts, np.diff(np.r_[starts, len(q)]))
        ranked = ranked.filter(pa.array(rank < max_results))
        columns = {"q": ranked["q"], "d": ranked["d"]}
    pairs = pa.table(columns).group_by(["q", "d"]).aggregate([("d", "count")])
    again = pairs.filter(pc.greater(pairs["d_count"], 1))
    if again.num_rows == 0:
        return None
    wanted = set(queries)
    found: dict[str, list[str]] = {}
    for qid, doc in zip(again["q"].to_pylist(), again["d"].to_pylist(), strict=True):
        if qid in wanted:
            found.setdefault(qid, []).append(doc)
    if not found:
        return None
    first = min(found, key=_key)
    return first, min(found[first], key=_key)


def _key(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _write(text: str, codec: str) -> None:
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None or codec == "utf-8":
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode(codec, "surrogateescape"))


def _stop(message: str, status: int) -> int:
    sys.stdout.flush()
    sys.stderr.write(message)
    sys.stderr.flush()
    return status
