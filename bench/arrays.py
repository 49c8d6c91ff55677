"""A FAISS-style id array evaluated in process: prfeval beside dicts + pytrec_eval, one run.

Usage::

    python bench/arrays.py [--queries 100000] [--k 100] [--docs 1000000] [--reps 3]
                           [-o FILE]

Each job runs in a child process of its own, round robin (every job in rep 1, then rep 2,
...), medians of ``--reps``. A child makes the same seeded data before its clock starts:
``I``, an int64 array of shape (queries, k) of doc ints below ``--docs`` as
``index.search`` returns it (2 % of the cells -1 padding, some ids repeated in a row), and
the gold as a list with one list of relevant doc ints per row (1 to 5, about half of them
retrieved; every 50th row empty). Then it times:

* ``prfeval``: ``prfeval.evaluate(gold, I, "P@10 nDCG@10 AP RR")`` (the compiled join);
* ``prfeval-numpy``: the same with ``PRFEVAL_NATIVE=0`` (numpy's join);
* ``pytrec_eval``: building ``{qid: {docid: grade}}`` and ``{qid: {docid: score}}`` from the
  arrays (padding skipped, a repeat an unjudged place of its own, as prfeval counts it), then
  ``RelevanceEvaluator(...).evaluate`` and the means.

CPU time is the child's user + system time during the call (every thread's), which the
load of the machine skews less than wall time; its system part is mostly the kernel giving
the call fresh pages (the first touch of each). Peak RSS rise is the child's peak resident
set after the call (``ru_maxrss``) minus its resident set just before it
(``/proc/self/statm``), beside the id array's own bytes. The means of every job are
compared before anything is reported; a disagreement exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
JOBS = ("prfeval", "prfeval-numpy", "pytrec_eval")
MEASURES = {"P@10": "P_10", "nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank"}


def make_data(n: int, k: int, n_docs: int):
    """The seeded id array and gold (see the module's doc)."""
    import numpy as np

    rng = np.random.default_rng(43)
    ids = rng.integers(0, n_docs, size=(n, k), dtype=np.int64)
    ids[rng.random((n, k)) < 0.02] = -1
    repeat = rng.random(n) < 0.05  # a repeated id in 5 % of the rows
    ids[repeat, 7] = ids[repeat, 3]
    n_rel = rng.integers(1, 6, size=n)
    picks = rng.integers(0, k, size=(n, 5))
    fresh = rng.integers(0, n_docs, size=(n, 5))
    retrieved = rng.random((n, 5)) < 0.5
    chosen = np.where(retrieved, np.take_along_axis(ids, picks, axis=1), fresh)
    gold = [sorted({d for d in row[:m] if d >= 0}) for row, m in
            zip(chosen.tolist(), n_rel.tolist(), strict=True)]
    for i in range(0, n, 50):
        gold[i] = []
    return ids, gold


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(job: str, n: int, k: int, n_docs: int) -> None:
    """Time one job in this process and print its JSON line."""
    import gc

    import numpy as np

    ids, gold = make_data(n, k, n_docs)
    if job == "pytrec_eval":
        import pytrec_eval
    else:
        import prfeval

        prfeval.evaluate([[1]], np.array([[1]]), "P@10")  # imports, before the clock
    gc.collect()
    before = _rss_bytes()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    if job == "pytrec_eval":
        qrels = {str(i): {str(d): 1 for d in row} for i, row in enumerate(gold) if row}
        run = {}
        for i, row in enumerate(ids.tolist()):
            ranked = [d for d in row if d >= 0]
            seen: set[int] = set()
            docs = {}
            for place, d in enumerate(ranked):
                docs[str(d) if d not in seen else f"r{place}"] = float(len(ranked) - place)
                seen.add(d)
            run[str(i)] = docs
        values = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate(run)
        means = {ours: statistics.fmean(v[trec] for v in values.values())
                 for ours, trec in MEASURES.items()}
    else:
        result = prfeval.evaluate(gold, ids, list(MEASURES))
        means = {m: result.macro[m] for m in MEASURES}
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    system = after.ru_stime - cpu.ru_stime
    used = (after.ru_utime - cpu.ru_utime) + system
    peak = after.ru_maxrss * 1024
    print(json.dumps({"seconds": seconds, "cpu": used, "system": system,
                      "rise": max(peak - before, 0), "means": means, "id_bytes": ids.nbytes}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("-o", "--output", type=Path)
    parser.add_argument("--child", choices=JOBS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.queries, args.k, args.docs)
        return 0
    samples: dict[str, list[dict]] = {job: [] for job in JOBS}
    load_before = os.getloadavg()
    for _ in range(args.reps):
        for job in JOBS:
            env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
            if job == "prfeval-numpy":
                env["PRFEVAL_NATIVE"] = "0"
            out = subprocess.run(
                [sys.executable, __file__, "--child", job, "--queries", str(args.queries),
                 "--k", str(args.k), "--docs", str(args.docs)],
                env=env, capture_output=True, text=True, check=False)
            if out.returncode:
                print(f"{job} failed:\n{out.stderr[-2000:]}", file=sys.stderr)
                return 1
            samples[job].append(json.loads(out.stdout.strip().splitlines()[-1]))
    load_after = os.getloadavg()
    reference = samples["pytrec_eval"][0]["means"]
    bad = [(job, m) for job in JOBS for s in samples[job] for m in MEASURES
           if abs(s["means"][m] - reference[m]) > 1e-9]
    if bad:
        print(f"the tools disagree: {bad[:5]}", file=sys.stderr)
        return 1
    base = statistics.median(s["seconds"] for s in samples["pytrec_eval"])
    id_bytes = samples["prfeval"][0]["id_bytes"]
    lines = [
        f"FAISS-style ids, {args.queries:,} x {args.k} int64 ({id_bytes / 2**20:.0f} MiB), "
        f"in process; medians of {args.reps}, round robin; load "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after; means agree to 1e-9.",
        "",
        "| job | wall (s) | vs dicts + pytrec_eval | CPU (s) | of it system | vs its CPU "
        "| peak RSS rise | rise / id bytes |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    base_cpu = statistics.median(s["cpu"] for s in samples["pytrec_eval"])
    for job in JOBS:
        seconds = statistics.median(s["seconds"] for s in samples[job])
        cpu = statistics.median(s["cpu"] for s in samples[job])
        system = statistics.median(s["system"] for s in samples[job])
        rise = statistics.median(s["rise"] for s in samples[job])
        lines.append(f"| {job} | {seconds:.2f} | {base / seconds:.1f}x faster | {cpu:.2f} | "
                     f"{system:.2f} | {base_cpu / cpu:.1f}x less | {rise / 2**20:.0f} MiB | "
                     f"{rise / id_bytes:.1f}x |")
    report = "\n".join(lines)
    print(report)
    if args.output:
        args.output.write_text(report + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
