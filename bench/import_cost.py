"""What a script pays to start: ``import prfeval`` and the first ``evaluate`` on dicts.

Usage::

    python bench/import_cost.py [--queries 1000] [--docs-per-query 100] [--processes 7] [--json]

Each of ``--processes`` fresh interpreters builds ``{qid: {docid: grade}}`` judgments and a
``{qid: {docid: score}}`` run in pure Python (so that nothing prfeval needs is imported before
it), then times ``import prfeval``, the first ``prfeval.evaluate(qrels, run, "P@10
recall@100")`` (which imports numpy and the modules of the dict path) and a second call, and
reports which of pandas, polars, pyarrow, matplotlib, scipy and scikit-learn were loaded by
then. The medians over the processes are printed, with the range. Run it on an idle machine:
the figures are wall-clock times, but for the CPU time of import and first call together,
which a busy machine inflates less.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import textwrap
from typing import Any

HEAVY = ("pandas", "polars", "pyarrow", "matplotlib", "scipy", "sklearn")

#: The start of a child program (a ``str.format`` template): the seeded dicts, built before the
#: clock starts. ``bench/rag.py`` starts its toolkit-rag child with it too: the same data.
DICTS = textwrap.dedent(
    """
    import json, random, sys, time
    n_queries, per_query, k = {n_queries}, {per_query}, {k}
    rng = random.Random(k)
    qrels = {{
        f"q{{i}}": {{f"d{{j}}": rng.randint(0, 2) for j in range(0, 3 * per_query // 2, 3)}}
        for i in range(n_queries)
    }}
    run = {{f"q{{i}}": {{f"d{{j}}": rng.random() for j in range(per_query)}}
           for i in range(n_queries)}}
    """
)

CHILD = DICTS + textwrap.dedent(
    """
    t0, c0 = time.perf_counter(), time.process_time()
    import prfeval
    t1 = time.perf_counter()
    e = prfeval.evaluate(qrels, run, "P@10 recall@100")
    t2, c2 = time.perf_counter(), time.process_time()
    prfeval.evaluate(qrels, run, "P@10 recall@100")
    t3 = time.perf_counter()
    print(json.dumps({{
        "import": t1 - t0, "first_call": t2 - t1, "second_call": t3 - t2, "cpu": c2 - c0,
        "queries": e.accounting.evaluated,
        "loaded": [m for m in {heavy!r} if m in sys.modules],
    }}))
    """
)


def one_process(n_queries: int, per_query: int, k: int) -> dict[str, Any]:
    """The timings of one fresh interpreter."""
    code = CHILD.format(n_queries=n_queries, per_query=per_query, k=k, heavy=HEAVY)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs-per-query", type=int, default=100)
    parser.add_argument("--processes", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    runs = [one_process(args.queries, args.docs_per_query, k) for k in range(args.processes)]
    times = {key: spread([r[key] for r in runs]) for key in ("import", "first_call",
                                                             "second_call")}
    times["import_and_first_call"] = spread([r["import"] + r["first_call"] for r in runs])
    times["cpu"] = spread([r["cpu"] for r in runs])
    loaded = sorted({m for r in runs for m in r["loaded"]})
    if args.json:
        print(json.dumps({"queries": args.queries, "docs_per_query": args.docs_per_query,
                          "processes": args.processes, "loaded": loaded, **times}, indent=2))
        return
    size = f"{args.queries:,} queries x {args.docs_per_query} results"
    print(f"Median of {args.processes} fresh processes, {size} of dicts:")
    for key, label in (("import", "import prfeval"), ("first_call", "first evaluate"),
                       ("import_and_first_call", "import + first evaluate"),
                       ("cpu", "  of it, CPU time"), ("second_call", "second evaluate")):
        t = times[key]
        print(f"  {label:<24} {t['median']:.3f} s  (range {t['min']:.3f}-{t['max']:.3f})")
    print(f"  heavy modules loaded:    {', '.join(loaded) or 'none'}")


if __name__ == "__main__":
    main()
