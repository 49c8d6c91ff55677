"""How fast a small evaluation starts: ``prfeval evaluate`` beside the ir_measures CLI.

Usage::

    python bench/small_start.py [--queries 20] [--docs-per-query 100] [--reps 7]

Writes seeded judgments and a run of ``--queries`` questions (as TREC files, and the run as
JSON Lines lists ``{"query_id", "doc_id": [...], "score": [...]}`` too) into a temporary
folder, then runs each command ``--reps`` times as a fresh process, after one untimed run
each (so that bytecode is cached and the files are in the page cache), and prints one JSON
object: the median and every wall-clock time of

* ``prfeval evaluate QRELS RUN.trec -m "P@10 nDCG@10 AP"`` (and of ``RUN.jsonl``),
* ``ir_measures QRELS RUN.trec "P@10 nDCG@10 AP"`` (the same measures; it reads TREC runs),

and each tool's values, which must agree. The commands alternate, so that a busy moment of
the machine falls on both; the CPU seconds (user + system) of each process are reported
beside the wall clock, which a machine shared with other jobs inflates more.

``--before SRC`` adds both prfeval commands run from another source tree (``SRC`` first on
``PYTHONPATH``: a checkout's ``src`` before a change, its bytecode compiled), so that a change
is measured side by side with what it replaced, under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_files(folder: Path, queries: int, per_query: int, seed: int = 49) -> dict[str, Path]:
    rng = random.Random(seed)
    qrels, trec, jsonl = [], [], []
    for q in range(1, queries + 1):
        docs = [f"d{q}-{i}" for i in range(per_query)]
        for d in rng.sample(docs, 10):
            qrels.append(f"q{q} 0 {d} {rng.choice([1, 2])}")
        for d in rng.sample(docs, 5):
            qrels.append(f"q{q} 0 {d}x 0")
        ranked = rng.sample(docs, len(docs))
        scores = sorted((round(rng.random(), 6) for _ in ranked), reverse=True)
        trec += [f"q{q} Q0 {d} {i + 1} {s} sys"
                 for i, (d, s) in enumerate(zip(ranked, scores, strict=True))]
        jsonl.append(json.dumps({"query_id": f"q{q}", "doc_id": ranked, "score": scores}))
    paths = {"qrels": folder / "qrels.txt", "trec": folder / "run.trec",
             "jsonl": folder / "run.jsonl"}  # fmt: skip
    paths["qrels"].write_text("\n".join(qrels) + "\n")
    paths["trec"].write_text("\n".join(trec) + "\n")
    paths["jsonl"].write_text("\n".join(jsonl) + "\n")
    return paths


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall-clock and CPU (user + system) seconds of one run, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--docs-per-query", type=int, default=100)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--before", metavar="SRC", default=None,
                        help="also run prfeval from this source tree (a checkout's src)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="prfeval-start-"))
    try:
        f = write_files(folder, args.queries, args.docs_per_query)
        ir_measures = shutil.which("ir_measures") or str(Path(sys.executable).parent
                                                         / "ir_measures")  # fmt: skip
        commands = {
            "prfeval evaluate (TREC)": [sys.executable, "-m", "prfeval", "evaluate",
                                        str(f["qrels"]), str(f["trec"]), "-m",
                                        "P@10 nDCG@10 AP", "--format", "csv"],
            "prfeval evaluate (JSON Lines)": [sys.executable, "-m", "prfeval", "evaluate",
                                              str(f["qrels"]), str(f["jsonl"]), "-m",
                                              "P@10 nDCG@10 AP", "--format", "csv"],
            "ir_measures (TREC)": [ir_measures, str(f["qrels"]), str(f["trec"]),
                                   "P@10 nDCG@10 AP"],
        }  # fmt: skip
        envs: dict[str, dict[str, str] | None] = dict.fromkeys(commands)
        if args.before:
            path = os.pathsep.join(filter(None, [args.before, os.environ.get("PYTHONPATH")]))
            for name in [k for k in commands if k.startswith("prfeval")]:
                commands[f"{name}, before"] = commands[name]
                envs[f"{name}, before"] = {**os.environ, "PYTHONPATH": path}
        times: dict[str, list[float]] = {k: [] for k in commands}
        cpu: dict[str, list[float]] = {k: [] for k in commands}
        outputs = {k: timed(argv, envs[k])[2] for k, argv in commands.items()}  # warm-up
        for _ in range(args.reps):
            for name, argv in commands.items():
                wall, used, _ = timed(argv, envs[name])
                times[name].append(wall)
                cpu[name].append(used)
        report = {
            "queries": args.queries,
            "docs_per_query": args.docs_per_query,
            "reps": args.reps,
            "median_seconds": {k: round(statistics.median(v), 4) for k, v in times.items()},
            "median_cpu_seconds": {k: round(statistics.median(v), 4) for k, v in cpu.items()},
            "seconds": {k: [round(x, 4) for x in v] for k, v in times.items()},
            "values": {k: v.strip().splitlines()[-3:] for k, v in outputs.items()},
        }
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
