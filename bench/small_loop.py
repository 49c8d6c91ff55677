"""The RAG loop: many small evaluations on in-memory dicts, timed inside one process.

Usage::

    python bench/small_loop.py [--queries 1000] [--docs-per-query 100] [--reps 7]

Builds the seeded data of ``bench/generate.py`` as the nested dicts both libraries accept
(``{qid: {docid: grade}}`` and ``{qid: {docid: score}}``), then times, after one untimed call
each, ``prfeval.evaluate`` and pytrec_eval-terrier (``RelevanceEvaluator`` built and applied, as
a loop that gets new judgments each time must do) on the same dicts, and prints one JSON object
with the median seconds per call, every repetition and each tool's macro values. Building the
dicts is not timed. A tool that is missing or fails is reported with its error, not raised.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import Spec, generate
from peers import MEASURES, TREC_EVAL_NAMES, normalise

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def build_dicts(spec: Spec) -> tuple[Qrels, Run]:
    """Return the judgments and the run of ``spec`` as nested Python dicts."""
    data = generate(spec)
    qids = data.qids.to_pylist()
    names = data.doc_names
    qrels: Qrels = {}
    for q, d, g in zip(
        data.qrels_q.tolist(),
        names.take(data.qrels_doc).to_pylist(),
        data.qrels_grade.tolist(),
        strict=True,
    ):
        qrels.setdefault(qids[q], {})[d] = g
    run: Run = {}
    for q, d, s in zip(
        data.run_q.tolist(),
        names.take(data.run_doc).to_pylist(),
        data.run_score.tolist(),
        strict=True,
    ):
        run.setdefault(qids[q], {})[d] = s
    return qrels, run


def pytrec_eval_call(qrels: Qrels, run: Run) -> dict[str, float]:
    """Evaluate with pytrec_eval-terrier and return the macro values under prfeval's names."""
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_EVAL_NAMES.values()))
    per_query = evaluator.evaluate(run)
    n = len(per_query)
    return {
        name: sum(q[trec] for q in per_query.values()) / n for name, trec in TREC_EVAL_NAMES.items()
    }


def macro_values(result: Any) -> dict[str, float]:
    """Pull the macro averages out of a prfeval result, whatever shape the API settles on.

    Tries, in order: a ``macro`` attribute (a mapping, or a method returning one), a
    ``to_dict()`` with a ``"macro"`` key, and a mapping with a ``"macro"`` key.
    """
    macro: Any = None
    if hasattr(result, "macro"):
        macro = result.macro() if callable(result.macro) else result.macro
    elif hasattr(result, "to_dict"):
        macro = result.to_dict()["macro"]
    elif isinstance(result, Mapping):
        macro = result["macro"]
    if not isinstance(macro, Mapping):
        raise TypeError(f"cannot find macro averages in a {type(result).__name__}")
    return normalise(macro)


def prfeval_call(qrels: Qrels, run: Run) -> dict[str, float]:
    """Evaluate with ``prfeval.evaluate`` and return its macro values."""
    import prfeval

    try:
        result = prfeval.evaluate(qrels, run, list(MEASURES))
    except TypeError:
        result = prfeval.evaluate(qrels, run, " ".join(MEASURES))
    return macro_values(result)


def time_calls(
    call: Callable[[Qrels, Run], dict[str, float]], qrels: Qrels, run: Run, reps: int
) -> dict[str, Any]:
    """Call once untimed (imports, caches), then ``reps`` times; report the median and values."""
    try:
        t0 = time.perf_counter()
        values = call(qrels, run)
        first = time.perf_counter() - t0
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            call(qrels, run)
            times.append(time.perf_counter() - t0)
    except Exception as exc:  # a tool's failure is a result to report, not a crash
        return {
            "ok": False,
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(limit=3),
        }
    return {
        "ok": True,
        "median_s": statistics.median(times),
        "first_call_s": first,
        "times_s": times,
        "values": values,
    }


def main(argv: list[str] | None = None) -> int:
    """Time both tools on the same dicts and print the JSON report."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--docs-per-query", type=int, default=100)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--seed", type=int, default=42)
    args = p.parse_args(argv)
    spec = Spec(queries=args.queries, docs_per_query=args.docs_per_query, seed=args.seed)
    qrels, run = build_dicts(spec)
    report = {
        "queries": args.queries,
        "docs_per_query": args.docs_per_query,
        "reps": args.reps,
        "prfeval": time_calls(prfeval_call, qrels, run, args.reps),
        "pytrec_eval": time_calls(pytrec_eval_call, qrels, run, args.reps),
    }
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
