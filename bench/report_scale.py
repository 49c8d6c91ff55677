"""The report at scale: ``prfeval report`` of two runs beside ``prfeval evaluate`` of each.

Usage::

    python bench/report_scale.py [--queries 10000] [--docs-per-query 1000] [--reps 1]

Generates (or reuses) the seeded runs and judgments of bench/generate.py in
bench/data/<queries>x<docs> (or ``--data``), then times, in one run and alternating, the
command line ``prfeval evaluate QRELS RUN`` of each run and
``prfeval report QRELS RUN RUN_B -o PAGE``
(default measures, depth and figures), each in a fresh process as a user runs it. Prints one
JSON object: the median wall seconds and peak RSS of each command, the report's ratio to the
two evaluates together (the goal: at most 4), the page's size in bytes and MB (the goal:
under 10 MB) and the load averages before and after, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def timed(argv: list[str]) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (bytes) and CPU seconds (user + system, from ``wait4``) of one
    command, its output discarded to a file."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            raise SystemExit(f"failed: {' '.join(argv)}: {errors.read().decode()}")
    return wall, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--docs-per-query", type=int, default=1000)
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--data", type=Path, default=None,
                   help="folder of the data (default bench/data/<queries>x<docs>)")
    args = p.parse_args()
    data = args.data or HERE / "data" / f"{args.queries}x{args.docs_per_query}"
    subprocess.run(
        [sys.executable, str(HERE / "generate.py"), "--queries", str(args.queries),
         "--docs-per-query", str(args.docs_per_query), "--out", str(data), "--reuse"],
        check=True, stdout=subprocess.DEVNULL,
    )
    prfeval = [sys.executable, "-m", "prfeval"]
    qrels, run, run_b = (str(data / n) for n in ("qrels.trec", "run.trec", "run_b.trec"))
    page = data / "report.html"
    load_before = os.getloadavg()
    times: dict[str, list[tuple[float, int, float]]] = {"evaluate run": [], "evaluate run_b": [],
                                                 "report": []}
    for _ in range(args.reps):
        times["evaluate run"].append(timed([*prfeval, "evaluate", qrels, run]))
        times["evaluate run_b"].append(timed([*prfeval, "evaluate", qrels, run_b]))
        times["report"].append(timed([*prfeval, "report", qrels, run, run_b, "-o", str(page)]))
    load_after = os.getloadavg()
    wall = {k: statistics.median(t for t, _, _ in v) for k, v in times.items()}
    rss = {k: max(m for _, m, _ in v) for k, v in times.items()}
    cpu = {k: statistics.median(c for _, _, c in v) for k, v in times.items()}
    both_cpu = cpu["evaluate run"] + cpu["evaluate run_b"]
    both = wall["evaluate run"] + wall["evaluate run_b"]
    size = page.stat().st_size
    print(json.dumps({
        "lines_per_run": args.queries * args.docs_per_query,
        "wall_s": {k: round(v, 2) for k, v in wall.items()},
        "cpu_s": {k: round(v, 2) for k, v in cpu.items()},
        "report_cpu_over_both_evaluates": round(cpu["report"] / both_cpu, 2),
        "peak_rss_mib": {k: round(v / 2**20) for k, v in rss.items()},
        "report_over_both_evaluates": round(wall["report"] / both, 2),
        "report_over_one_evaluate": round(wall["report"] / (both / 2), 2),
        "page_bytes": size,
        "page_mb": round(size / 1e6, 2),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "cpus": os.cpu_count(),
    }, indent=2))


if __name__ == "__main__":
    main()
