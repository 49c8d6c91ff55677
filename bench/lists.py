"""A RAG run as lists: JSON Lines and Parquet list columns, beside polars and pytrec_eval.

Usage::

    python bench/lists.py [--queries 100000] [--docs 100] [--reps 3] [-o FILE]

Writes seeded data once under ``bench/data/lists-QxD/``: a run with one row per question,
its ``--docs`` passages as a list of string ids (``doc_id``) and a parallel list of scores
(``scores``), and gold as lists (``doc_id``, 1 to 10 relevant passages a question, a few
questions with none), each as JSON Lines and as Parquet. Then times, round robin (every job
in rep 1, then rep 2, ...), medians of ``--reps``, each job in a child process (wall time
spawn to reaping; peak RSS from ``os.wait4``):

* ``prfeval evaluate`` on the command line, and ``prfeval.evaluate`` from Python (also with
  ``PRFEVAL_NATIVE=0``: the pure-Python readers, for the compiled encode's share);
* polars ``read_ndjson`` / ``read_parquet`` of the run: the floor, reading alone;
* ``json.loads`` per line + pytrec_eval, and pyarrow ``read_table`` + pytrec_eval: what a
  user writes today.

Measures: ``P@10 ndcg_cut_10 map`` (pytrec_eval's ``P_10 ndcg_cut_10 map``). Before the
report, prfeval's means and pytrec_eval's are compared; a difference fails the run (exit 1).
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

BENCH = Path(__file__).resolve().parent
MEASURES = ("P@10", "ndcg_cut_10", "map")
TREC = {"P@10": "P_10", "ndcg_cut_10": "ndcg_cut_10", "map": "map"}


def generate(folder: Path, queries: int, docs: int) -> None:
    """The run and gold, as JSON Lines and Parquet, made once (seeded)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    if (folder / "gold.parquet").exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(43)
    qids = pa.array([f"q{i}" for i in range(queries)])
    # Distinct within a row (place j draws from its own range): a dict of a row keeps each
    # id once, so pytrec_eval and prfeval see the same rankings.
    ids = (rng.integers(0, 10_000, size=(queries, docs)) + np.arange(docs) * 10_000).ravel()
    offsets = pa.array(np.arange(0, queries * docs + 1, docs, dtype=np.int32))
    strings = pa.array([f"p{i}" for i in ids.tolist()])
    scores = pa.array(np.round(rng.random(queries * docs) * 100, 3))
    run = pa.table({"qid": qids, "doc_id": pa.ListArray.from_arrays(offsets, strings),
                    "scores": pa.ListArray.from_arrays(offsets, scores)})
    sizes = rng.integers(0, 11, size=queries)
    starts = np.concatenate(([0], np.cumsum(sizes)))
    picked = rng.integers(0, docs, size=int(sizes.sum())) + np.repeat(  # distinct: below
        np.arange(queries) * docs, sizes)
    # Half of the gold from the run (hits), half elsewhere (misses).
    gold_ids = np.where(rng.random(picked.size) < 0.5, ids[picked],
                        rng.integers(0, 1_000_000, size=picked.size))
    lists = [list(dict.fromkeys(f"p{i}" for i in gold_ids[a:b].tolist()))
             for a, b in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True)]
    gold = pa.table({"qid": qids, "doc_id": pa.array(lists, pa.list_(pa.string()))})
    for name, table in (("run", run), ("gold", gold)):
        pq.write_table(table, folder / f"{name}.parquet")
        with (folder / f"{name}.jsonl").open("w") as out:
            for row in table.to_pylist():
                out.write(json.dumps(row) + "\n")


CHILD = {
    "prfeval python": """
import json, sys, prfeval
r = prfeval.evaluate(sys.argv[1], sys.argv[2], {measures!r}, run_columns={{"score": "scores"}})
print(json.dumps({{m: r.macro[m] for m in {measures!r}}}))
""",
    "polars read": """
import sys, polars as pl
t = (pl.read_ndjson if sys.argv[2].endswith(".jsonl") else pl.read_parquet)(sys.argv[2])
print("{{}}")
""",
    "json.loads + pytrec_eval": """
import json, sys, pytrec_eval
def rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f]
qrels = {{r["qid"]: dict.fromkeys(r["doc_id"], 1) for r in rows(sys.argv[1])}}
run = {{r["qid"]: dict(zip(r["doc_id"], r["scores"])) for r in rows(sys.argv[2])}}
names = {trec!r}
out = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
print(json.dumps({{m: sum(v[t] for v in out.values()) / len(out) for m, t in names.items()}}))
""",
    "pyarrow + pytrec_eval": """
import json, sys, pytrec_eval, pyarrow.parquet as pq
g = pq.read_table(sys.argv[1]).to_pydict()
r = pq.read_table(sys.argv[2]).to_pydict()
qrels = {{q: dict.fromkeys(d, 1) for q, d in zip(g["qid"], g["doc_id"])}}
run = {{q: dict(zip(d, s)) for q, d, s in zip(r["qid"], r["doc_id"], r["scores"])}}
names = {trec!r}
out = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
print(json.dumps({{m: sum(v[t] for v in out.values()) / len(out) for m, t in names.items()}}))
""",
}


#: Jobs that run a job of :data:`CHILD` with the compiled pass turned off.
PURE = {"prfeval python, PRFEVAL_NATIVE=0": "prfeval python"}


def command(job: str, gold: Path, run: Path) -> list[str]:
    job = PURE.get(job, job)
    if job == "prfeval cli":
        return [sys.executable, "-m", "prfeval", "evaluate", str(gold), str(run), "-m",
                " ".join(MEASURES), "--run-columns", "score=scores", "--format", "json"]
    code = CHILD[job].format(measures=list(MEASURES), trec=TREC)
    return [sys.executable, "-c", code, str(gold), str(run)]


def timed(argv: list[str], pure: bool = False) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MiB, stdout) of one child, reaped by ``os.wait4``
    (``pure``: with ``PRFEVAL_NATIVE=0``)."""
    env = {**os.environ, "PRFEVAL_NATIVE": "0"} if pure else None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode:
            raise SystemExit(f"{argv[:4]} failed: {err.read().decode()[-500:]}")
        return wall, usage.ru_maxrss / 1024, out.read().decode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("-o", "--output")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    folder = BENCH / "data" / f"lists-{args.queries}x{args.docs}"
    if args.generate_only:
        generate(folder, args.queries, args.docs)
        return 0
    # In a child, so that this process stays small: a child's peak RSS counts the memory
    # of the process it was forked from.
    subprocess.run([sys.executable, __file__, "--generate-only", "--queries",
                    str(args.queries), "--docs", str(args.docs)], check=True)
    jobs = {
        "jsonl": ["prfeval cli", "prfeval python", *PURE, "polars read",
                  "json.loads + pytrec_eval"],
        "parquet": ["prfeval cli", "prfeval python", *PURE, "polars read",
                    "pyarrow + pytrec_eval"],
    }
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    means: dict[tuple[str, str], dict[str, float]] = {}
    load_before = os.getloadavg()
    for _ in range(args.reps):
        for kind, names in jobs.items():
            gold, run = folder / f"gold.{kind}", folder / f"run.{kind}"
            for job in names:
                wall, peak, out = timed(command(job, gold, run), pure=job in PURE)
                times.setdefault((kind, job), []).append((wall, peak))
                if job == "prfeval cli":
                    rows = json.loads(out)
                    means[(kind, job)] = {m: rows["macro"][m] for m in MEASURES}
                elif out.strip() not in ("", "{}"):
                    means[(kind, job)] = json.loads(out)
    load_after = os.getloadavg()
    bad = []
    for kind in jobs:
        theirs = means[(kind, jobs[kind][-1])]
        for job in ("prfeval cli", "prfeval python", *PURE):
            ours = means[(kind, job)]
            bad += [f"{kind} {job} {m}: {ours[m]}, pytrec_eval {theirs[m]}" for m in MEASURES
                    if abs(ours[m] - theirs[m]) > 1e-9]
    lines = [f"load average before {load_before}, after {load_after}; "
             f"{args.queries:,} questions x {args.docs} passages, medians of {args.reps}",
             "| input | job | wall s | x floor | peak RSS MiB |", "| --- | --- | --- | --- | --- |"]
    for kind, names in jobs.items():
        floor = statistics.median(w for w, _ in times[(kind, "polars read")])
        for job in names:
            wall = statistics.median(w for w, _ in times[(kind, job)])
            peak = statistics.median(p for _, p in times[(kind, job)])
            lines.append(f"| {kind} | {job} | {wall:.2f} | {wall / floor:.2f} | {peak:.0f} |")
    report = "\n".join(lines + [f"DISAGREE: {b}" for b in bad])
    print(report)
    if args.output:
        Path(args.output).write_text(report + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
