"""One question at a time: what ``prfeval.Evaluator`` costs per question.

Usage::

    python bench/incremental.py [--queries 10000] [--results 100] [--reps 5]

Builds seeded judgments (``{qid: {docid: grade}}``, about 15 a question) and one ranking of
``--results`` scored documents per question, then times, ``--reps`` times after one untimed
warm-up: making the evaluator (reading the judgments), every ``add`` of every question, and
the final ``result()``. Prints one JSON object: the median seconds of each step, the median
cost per question of the adds and result together (wall clock, and the CPU seconds, which
change less with the machine's load, given with it), and, for scale, the median time of one
batch ``prfeval.evaluate`` over the same rankings as a dict. Building the data is not timed.
The numbers of both are checked to be equal before anything is reported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import numpy as np

import prfeval

MEASURES = "P@10 R@100 MAP nDCG@10 recip_rank bpref SetF"


def build(n_queries: int, n_results: int, seed: int = 0) -> tuple[dict, list]:
    """Judgments, and ``(qid, doc ids, scores)`` per question in the order they are added."""
    rng = np.random.default_rng(seed)
    n_docs = 1_000_000
    qrels: dict[str, dict[str, int]] = {}
    rankings = []
    for i in range(n_queries):
        q = str(i)
        docs = [f"d{x}" for x in rng.choice(n_docs, n_results, replace=False)]
        scores = np.sort(rng.random(n_results))[::-1].tolist()
        judged = {d: int(rng.integers(0, 3)) for d in docs[: 2 * n_results // 10 : 2]}
        judged.update({f"d{x}": 1 for x in rng.integers(0, n_docs, 5)})
        qrels[q] = judged
        rankings.append((q, docs, scores))
    return qrels, rankings


def one_pass(qrels: dict, rankings: list) -> tuple[dict[str, float], Any]:
    """Wall-clock seconds of each step, and the CPU seconds of the adds and the result."""
    t0 = time.perf_counter()
    ev = prfeval.Evaluator(qrels, MEASURES)
    t1 = time.perf_counter()
    cpu = time.process_time()
    for q, docs, scores in rankings:
        ev.add(q, docs, scores)
    t2 = time.perf_counter()
    result = ev.result()
    t3 = time.perf_counter()
    cpu = time.process_time() - cpu
    return {"make": t1 - t0, "adds": t2 - t1, "result": t3 - t2, "cpu": cpu}, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--results", type=int, default=100)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    qrels, rankings = build(args.queries, args.results)
    run = {q: dict(zip(docs, scores, strict=True)) for q, docs, scores in rankings}

    _, result = one_pass(qrels, rankings)  # warm-up: imports, first allocations
    batch = prfeval.evaluate(qrels, run, MEASURES)
    assert result.macro == batch.macro and np.array_equal(result.values, batch.values)

    steps: dict[str, list[float]] = {"make": [], "adds": [], "result": [], "cpu": []}
    batch_times = []
    for _ in range(args.reps):
        times, _ = one_pass(qrels, rankings)
        for name, seconds in times.items():
            steps[name].append(seconds)
        t = time.perf_counter()
        prfeval.evaluate(qrels, run, MEASURES)
        batch_times.append(time.perf_counter() - t)
    per_question = [
        (a + r) / args.queries for a, r in zip(steps["adds"], steps["result"], strict=True)
    ]
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(
        json.dumps(
            {
                "queries": args.queries,
                "results_per_query": args.results,
                "measures": MEASURES,
                "median_seconds": {
                    k: statistics.median(v) for k, v in steps.items() if k != "cpu"
                },
                "median_cpu_seconds_adds_and_result": statistics.median(steps["cpu"]),
                "median_adds_and_result_seconds": statistics.median(
                    a + r for a, r in zip(steps["adds"], steps["result"], strict=True)
                ),
                "median_microseconds_per_question": statistics.median(per_question) * 1e6,
                "batch_evaluate_median_seconds": statistics.median(batch_times),
                "load_average_after": float(load),
                "macro": result.macro,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
