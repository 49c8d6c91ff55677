"""Time the Spark engine beside the local engine and MLlib's RankingEvaluator, on the same files.

Usage::

    python bench/spark.py [--sizes 1m,10m,30m] [--reps 3] [--warmup 1] [--partitions N]

For each size (``bench/generate.py``'s data: ``1m``, ``10m``, ``30m`` lines, 1,000 documents
per query, so 1,000, 10,000 and 30,000 queries; generated once under ``bench/data/SIZE``):

1. the **local engine**: ``prfeval.evaluate(qrels, run, measures)`` from the files (reading
   included), each rep in a fresh process (its peak RSS from ``wait4``);
2. in one process with one ``local[2]`` Spark session, round robin (``--warmup`` untimed
   rounds, then ``--reps`` timed rounds, the two tools' order alternating):

   - the **Spark engine**: ``prfeval.spark.evaluate(qrels_path, run_path, measures)``, from
     the files to the averages on the driver;
   - **RankingEvaluator**: the same files read into DataFrames (Spark's CSV reader split on
     single spaces, with a schema: cheaper than prfeval's Spark readers), each query's
     ranking collected into an array of doc ids as doubles, sorted by
     score and doc id descending (trec_eval's order), joined with its relevant documents,
     cached, and ``precisionAtK``, ``ndcgAtK`` (k = 10) and ``meanAveragePrecision`` evaluated
     on it: the cheapest way to get the three numbers from MLlib.

Memory is sampled every 50 ms from ``/proc`` over the Spark process and its children, by
kind: the Python driver, the JVM (in local mode it is the driver and the executors), and the
Python workers (``pyspark.daemon`` and its forks). The driver's own Python allocations during
one more Spark engine call, untimed, are measured with ``tracemalloc`` (its peak: tracing
slows the driver, so no timed round is traced). The first round in a
session is reported apart (JIT, worker start-up).

Prints a markdown report and writes it, with every sample, to ``bench/results/spark.{md,json}``.
The measures are ``P@10 nDCG@10 AP`` when the registry has them, else those of them it has.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
QUERIES = {"1m": 1_000, "10m": 10_000, "30m": 30_000}
WANTED = ("P@10", "nDCG@10", "AP")
CHILD_ARGS: list[str] = []  # the parent's --reps and --warmup, for the children
RE_METRICS = {"P@10": "precisionAtK", "nDCG@10": "ndcgAtK", "AP": "meanAveragePrecision"}


# -- data ----------------------------------------------------------------------------------


def files(size: str) -> tuple[Path, Path]:
    folder = BENCH / "data" / size
    subprocess.run(
        [sys.executable, str(BENCH / "generate.py"), "--queries", str(QUERIES[size]),
         "--docs-per-query", "1000", "--out", str(folder), "--reuse"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return folder / "qrels.trec", folder / "run.trec"


def measures() -> list[str]:
    from prfeval._measures import REGISTRY

    return [m for m in WANTED if m.split("@")[0] in REGISTRY]


# -- memory ---------------------------------------------------------------------------------


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _kind(pid: int) -> str:
    if pid == os.getpid():
        return "driver"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return "other"
    if os.path.basename(argv[0]) == b"java":
        return "jvm"
    if any(b"pyspark.daemon" in a or b"pyspark.worker" in a for a in argv):
        return "workers"
    return "workers" if b"python" in os.path.basename(argv[0]) else "other"


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and its descendants, those that ended too:
    on a shared machine, a figure its load does not inflate as it does wall time."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in _tree(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return total / ticks


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Sampler:
    """Peak RSS (MiB) of this process and its descendants, by kind, sampled in a thread."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.peaks: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def sample(self) -> None:
        by_kind: dict[str, int] = {}
        for pid in _tree(os.getpid()):
            kind = _kind(pid)
            by_kind[kind] = by_kind.get(kind, 0) + _rss_kib(pid)
        by_kind["total"] = sum(by_kind.values())
        for kind, kib in by_kind.items():
            self.peaks[kind] = max(self.peaks.get(kind, 0.0), kib / 1024)

    def reset(self) -> None:
        self.peaks = {}

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


# -- the children ---------------------------------------------------------------------------


def child_local(qrels: str, run: str, names: list[str]) -> dict[str, Any]:
    import prfeval

    start, cpu = time.perf_counter(), cpu_seconds()
    result = prfeval.evaluate(qrels, run, names)
    return {"seconds": time.perf_counter() - start, "cpu_seconds": cpu_seconds() - cpu,
            "macro": result.macro}


def ranking_evaluator(spark: Any, qrels: str, run: str, names: list[str]) -> dict[str, float]:
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import functions as F


    # Spark's CSV reader split on single spaces, with a schema (no inference pass): the
    # cheapest reader a user of MLlib would write for these files (it would shift the fields
    # of a line with two spaces; these have none). prfeval's Spark readers cost more.
    ranked = spark.read.csv(
        run, sep=" ",
        schema="query_id string, q0 string, doc_id string, rank int, score double, tag string",
    )
    judged = spark.read.csv(
        qrels, sep=" ", schema="query_id string, iteration string, doc_id string, grade long"
    )
    doc = F.xxhash64("doc_id").cast("double")  # RankingEvaluator takes ids as doubles
    prediction = ranked.groupBy("query_id").agg(
        F.sort_array(
            F.collect_list(F.struct(F.col("score"), F.col("doc_id"), doc.alias("d"))), asc=False
        ).alias("r")
    ).select("query_id", F.transform("r", lambda s: s["d"]).alias("prediction"))
    label = judged.where("grade > 0").groupBy("query_id").agg(F.collect_list(doc).alias("label"))
    data = prediction.join(label, "query_id").cache()
    data.count()
    values = {
        name: RankingEvaluator(metricName=RE_METRICS[name], k=10).evaluate(data)
        for name in WANTED
    }
    data.unpersist()
    return values


def task_metrics(log_dir: Path) -> dict[str, dict[str, float]]:
    """Per job group, from Spark's event log: tasks, their run time (core seconds: a task
    holds one core, its Python worker's time included), the JVM's CPU time, and the bytes
    read, shuffled (written) and spilled."""
    groups: dict[int, str] = {}
    out: dict[str, dict[str, float]] = {}
    for path in sorted(log_dir.rglob("events_*")):
        with open(path) as f:
            for line in f:
                event = json.loads(line)
                kind = event.get("Event")
                if kind == "SparkListenerJobStart":
                    group = (event.get("Properties") or {}).get("spark.jobGroup.id")
                    for stage in event.get("Stage IDs", []):
                        groups[stage] = group
                elif kind == "SparkListenerTaskEnd":
                    group = groups.get(event["Stage ID"])
                    m = event.get("Task Metrics") or {}
                    if group is None or not m:
                        continue
                    g = out.setdefault(group, {"tasks": 0, "core_seconds": 0.0,
                                               "jvm_cpu_seconds": 0.0, "input_bytes": 0,
                                               "shuffle_bytes": 0, "shuffle_records": 0,
                                               "spill_bytes": 0})
                    g["tasks"] += 1
                    g["core_seconds"] += m.get("Executor Run Time", 0) / 1000
                    g["jvm_cpu_seconds"] += m.get("Executor CPU Time", 0) / 1e9
                    g["input_bytes"] += (m.get("Input Metrics") or {}).get("Bytes Read", 0)
                    write = m.get("Shuffle Write Metrics") or {}
                    g["shuffle_bytes"] += write.get("Shuffle Bytes Written", 0)
                    g["shuffle_records"] += write.get("Shuffle Records Written", 0)
                    g["spill_bytes"] += m.get("Disk Bytes Spilled", 0)
    return out


def child_spark(qrels: str, run: str, names: list[str], reps: int, warmup: int,
                partitions: int | None) -> dict[str, Any]:
    import tempfile
    import tracemalloc

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    import prfeval.spark
    from prfeval.spark._session import local_settings, no_pandas_warning

    out: dict[str, Any] = {"spark_engine": [], "ranking_evaluator": []}
    log_dir = Path(tempfile.mkdtemp(prefix="prfeval-spark-events-"))
    with Sampler() as sampler:
        start = time.perf_counter()
        builder = (
            SparkSession.builder.master("local[2]")
            .config("spark.driver.memory", "2g")
            .config("spark.eventLog.enabled", "true")
            .config("spark.eventLog.dir", log_dir.as_uri())
            .config("spark.eventLog.compress", "false")
        )
        for key, value in local_settings().items():
            builder = builder.config(key, value)
        with no_pandas_warning():
            spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("FATAL")
        out["session_seconds"] = time.perf_counter() - start

        def engine() -> dict[str, Any]:
            t = time.perf_counter()
            result = prfeval.spark.evaluate(
                qrels, run, names, spark=spark, persist=False, partitions=partitions
            )
            return {"seconds": time.perf_counter() - t, "macro": result.macro,
                    "partitions": result.partitions}

        def traced() -> float:
            """The driver's Python allocations (MiB, their peak) over one more call,
            untimed: tracing every allocation slows the driver's reading of the judgments
            several times over, so no timed round is traced (RankingEvaluator's are not)."""
            tracemalloc.start()
            prfeval.spark.evaluate(qrels, run, names, spark=spark, persist=False,
                                   partitions=partitions)  # fmt: skip
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            return peak / 2**20

        def mllib() -> dict[str, Any]:
            t = time.perf_counter()
            values = ranking_evaluator(spark, qrels, run, names)
            return {"seconds": time.perf_counter() - t, "macro": values}

        for r in range(warmup + reps):
            pair = [("spark_engine", engine), ("ranking_evaluator", mllib)]
            for key, call in pair if r % 2 == 0 else pair[::-1]:
                spark.sparkContext.setJobGroup(f"{key}/{r}", key)
                sampler.reset()
                cpu = cpu_seconds()
                sample = call()
                sample["cpu_seconds"] = cpu_seconds() - cpu
                sampler.sample()
                sample["rss_mib"] = dict(sampler.peaks)
                sample["warmup"] = r < warmup
                out[key].append(sample)
                print(f"  {key:18} round {r}: {sample['seconds']:.2f} s, "
                      f"{sample['cpu_seconds']:.1f} s CPU", file=sys.stderr)
        spark.sparkContext.setJobGroup("traced/0", "traced")
        out["driver_python_alloc_mib"] = traced()
        spark.stop()
    for group, metrics in task_metrics(log_dir).items():
        key, r = group.split("/")
        if key in ("spark_engine", "ranking_evaluator"):
            out[key][int(r)]["tasks"] = metrics
    return out


# -- the parent ------------------------------------------------------------------------------


def run_child(*args: str) -> tuple[dict[str, Any], float]:
    """A child's JSON result and its peak RSS (MiB) as the kernel reports it."""
    proc = subprocess.Popen(
        [sys.executable, __file__, *CHILD_ARGS, "--child", *args], stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    text = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise RuntimeError(f"child {args} failed with status {status}")
    return json.loads(text), usage.ru_maxrss / 1024


def summary(samples: list[dict[str, Any]], key: str = "seconds") -> dict[str, Any]:
    timed = [s for s in samples if not s.get("warmup")]
    seconds = [s[key] for s in timed]
    return {"min": min(seconds), "median": statistics.median(seconds), "n": len(seconds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1m,10m,30m")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--partitions", type=int, default=None)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, qrels, run, names = args.child[:4]
        if kind == "local":
            print(json.dumps(child_local(qrels, run, names.split())))
        else:
            partitions = int(args.child[4]) if len(args.child) > 4 else None
            print(json.dumps(child_spark(qrels, run, names.split(), args.reps, args.warmup,
                                         partitions)))
        return

    CHILD_ARGS[:] = ["--reps", str(args.reps), "--warmup", str(args.warmup)]
    names = measures()
    report: dict[str, Any] = {
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "measures": names,
        "sizes": {},
    }
    for size in args.sizes.split(","):
        qrels, run = files(size)
        print(f"{size}: local engine", file=sys.stderr)
        local = []
        for _ in range(args.reps):
            sample, rss = run_child("local", str(qrels), str(run), " ".join(names))
            sample["rss_mib"] = rss
            local.append(sample)
            print(f"  local              {sample['seconds']:.2f} s", file=sys.stderr)
        print(f"{size}: Spark engine and RankingEvaluator", file=sys.stderr)
        extra = [] if args.partitions is None else [str(args.partitions)]
        spark, _ = run_child("spark", str(qrels), str(run), " ".join(names), *extra)
        report["sizes"][size] = {"local": local, **spark, "loadavg": os.getloadavg()}
    out = render(report)
    print(out)
    results = BENCH / "results"
    results.mkdir(exist_ok=True)
    (results / "spark.md").write_text(out)
    (results / "spark.json").write_text(json.dumps(report, indent=1))


def render(report: dict[str, Any]) -> str:
    lines = [
        f"Machine: {report['machine']}, Python {report['python']}; "
        f"measures: {' '.join(report['measures'])}",
        "",
        "| lines | local engine | Spark engine: first / warm min / median | "
        "RankingEvaluator: first / warm min / median | Spark engine vs RE (median) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for size, r in report["sizes"].items():
        local = summary(r["local"])
        eng, re_ = summary(r["spark_engine"]), summary(r["ranking_evaluator"])
        first_e = r["spark_engine"][0]["seconds"]
        first_r = r["ranking_evaluator"][0]["seconds"]
        lines.append(
            f"| {size} | {local['median']:.2f} s | {first_e:.2f} / {eng['min']:.2f} / "
            f"{eng['median']:.2f} s | {first_r:.2f} / {re_['min']:.2f} / {re_['median']:.2f} s "
            f"| {re_['median'] / eng['median']:.2f}x faster |"
        )
    lines += ["", "CPU seconds (all processes: driver, JVM, Python workers), median of the warm "
              "rounds:", "", "| lines | local engine | Spark engine | RankingEvaluator |",
              "| --- | ---: | ---: | ---: |"]
    for size, r in report["sizes"].items():
        cpu = [summary(r[k], "cpu_seconds")["median"]
               for k in ("local", "spark_engine", "ranking_evaluator")]
        lines.append(f"| {size} | {cpu[0]:.1f} s | {cpu[1]:.1f} s | {cpu[2]:.1f} s |")
    lines += [
        "",
        "| lines | driver Python RSS | driver Python allocations (tracemalloc) | JVM RSS | "
        "workers RSS | local engine RSS |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for size, r in report["sizes"].items():
        eng = [s for s in r["spark_engine"] if not s.get("warmup")]
        peak = {k: max(s["rss_mib"].get(k, 0) for s in eng) for k in ("driver", "jvm", "workers")}
        alloc = r["driver_python_alloc_mib"]
        local_rss = statistics.median(s["rss_mib"] for s in r["local"])
        lines.append(
            f"| {size} | {peak['driver']:.0f} MiB | {alloc:.1f} MiB | {peak['jvm']:.0f} MiB | "
            f"{peak['workers']:.0f} MiB | {local_rss:.0f} MiB |"
        )
    lines += ["", "Values (macro): "]
    for size, r in report["sizes"].items():
        lines.append(f"- {size}: Spark engine {r['spark_engine'][-1]['macro']}, local "
                     f"{r['local'][-1]['macro']}, RankingEvaluator "
                     f"{r['ranking_evaluator'][-1]['macro']}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
