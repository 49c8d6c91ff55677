"""``prfeval trec_eval`` beside the trec_eval binary: the same files, the same bytes, timed.

Usage::

    TREC_EVAL=/path/to/trec_eval python bench/trec_eval_drop_in.py [--reps 5] [--warmup 1]
        [--queries 2000] [--docs-per-query 1000] [--cases all_trec_q,official,...] [-o FILE]

The binary is ``$TREC_EVAL``, else ``trec_eval`` on the PATH; without one the script says so
and exits 0. Build it as its Makefile does, or with ``-O2`` (``make CFLAGS='-O2 -I.
-DVERSIONID=\\"9.0.8\\"'``): its time goes to parsing and qsort in libc, so the two builds
differ by about 10 %.

What it does:

1. generates the seeded run and judgments with ``bench/generate.py`` (once, under
   ``bench/data/``): by default 2,000 queries x 1,000 documents (2,000,000 run lines, 400,000
   judgments), and the 100-line run (10 x 10) for the start-up case;
2. for every case runs both commands as child processes on the same files, ``--warmup``
   untimed rounds, then ``--reps`` timed rounds, round robin (binary, prfeval, binary, ...)
   so that a change in the machine's load hits both alike, each writing its rows to a file;
3. checks that the two wrote the same bytes and exited with the same status (a difference
   is reported and makes the exit status 1);
4. prints a markdown report: per case the median wall time and the median CPU time
   (user + system, of that child alone, from ``wait4``), the ratio, the load average
   before and after, the machine and the date.

The cases (``--cases``): ``all_trec_q`` (``-q -m all_trec``, the issue's: about 100 rows a
query), ``all_trec`` (the summary only), ``official`` (no ``-m``), ``official_q`` (``-q``),
``complete_cut`` (``-q -c -M 100 -J -m all_trec``) and ``startup`` (the default measures on
100 lines: what a script calling trec_eval thousands of times pays).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent

#: name -> (trec_eval arguments before the files, which data set).
CASES: dict[str, tuple[list[str], str]] = {
    "all_trec_q": (["-q", "-m", "all_trec"], "large"),
    "all_trec": (["-m", "all_trec"], "large"),
    "official": ([], "large"),
    "official_q": (["-q"], "large"),
    "complete_cut": (["-q", "-c", "-M", "100", "-J", "-m", "all_trec"], "large"),
    "startup": ([], "tiny"),
}
#: The issue's target: prfeval at least this many times faster on ``all_trec_q``.
TARGET = 3.0


@dataclass
class Timing:
    """The samples of one command of one case."""

    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)


def binary() -> str | None:
    """The trec_eval to compare with: ``$TREC_EVAL``, else ``trec_eval`` on the PATH."""
    given = os.environ.get("TREC_EVAL")
    if given:
        return given if os.access(given, os.X_OK) else None
    return shutil.which("trec_eval")


def prfeval_exe() -> str:
    """The prfeval command beside this interpreter, else the one on the PATH."""
    beside = Path(sys.executable).with_name("prfeval")
    return str(beside) if beside.exists() else (shutil.which("prfeval") or "prfeval")


def ensure_data(out: Path, queries: int, docs: int, extra: list[str]) -> Path:
    """The generated files under ``out`` (made once: ``--reuse`` keeps current ones)."""
    subprocess.run(
        [sys.executable, str(BENCH / "generate.py"), "--queries", str(queries),
         "--docs-per-query", str(docs), "--out", str(out), "--reuse", *extra],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return out


def run_once(cmd: list[str], out_path: Path) -> tuple[float, float, int]:
    """Run ``cmd`` with stdout to ``out_path``: (wall s, CPU s of the child, exit status)."""
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
        assert child.stderr is not None
        child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, child.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs-per-query", type=int, default=1000)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("-o", "--output", help="also write the report to this file")
    args = parser.parse_args(argv)
    exe = binary()
    if exe is None:
        print(
            "no trec_eval binary: set TREC_EVAL=/path/to/trec_eval or put trec_eval on the "
            "PATH (built from https://github.com/usnistgov/trec_eval); nothing timed"
        )
        return 0
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        parser.error(f"unknown cases {unknown}; known: {', '.join(CASES)}")
    lines = args.queries * args.docs_per_query
    folders = {}
    if any(CASES[c][1] == "large" for c in cases):
        folders["large"] = ensure_data(
            BENCH / "data" / f"trec_eval-{args.queries}x{args.docs_per_query}",
            args.queries, args.docs_per_query, [],
        )  # fmt: skip
    if any(CASES[c][1] == "tiny" for c in cases):
        folders["tiny"] = ensure_data(
            BENCH / "data" / "trec_eval-10x10", 10, 10, ["--judged-min", "5", "--judged-max", "20"]
        )
    for folder in folders.values():  # page cache warm for both
        for name in ("qrels.trec", "run.trec"):
            (folder / name).read_bytes()
    version = subprocess.run([exe, "-v"], capture_output=True, text=True).stderr.strip()
    load_before = os.getloadavg()
    timings: dict[tuple[str, str], Timing] = {}
    same: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="trec_eval_drop_in-") as scratch:
        for case in cases:
            flags, data = CASES[case]
            files = [str(folders[data] / "qrels.trec"), str(folders[data] / "run.trec")]
            commands = {
                "trec_eval": [exe, *flags, *files],
                "prfeval": [prfeval_exe(), "trec_eval", *flags, *files],
            }
            statuses = {}
            for rep in range(-args.warmup, args.reps):
                for who, cmd in commands.items():
                    wall, cpu, status = run_once(cmd, Path(scratch) / f"{who}.out")
                    statuses[who] = status
                    if rep >= 0:
                        t = timings.setdefault((case, who), Timing())
                        t.walls.append(wall)
                        t.cpus.append(cpu)
                    label = "warm-up" if rep < 0 else f"rep {rep + 1}/{args.reps}"
                    print(f"  {case:13} {who:9} {label:9} {wall:7.3f} s  cpu {cpu:7.3f} s",
                          file=sys.stderr)  # fmt: skip
            a = (Path(scratch) / "trec_eval.out").read_bytes()
            b = (Path(scratch) / "prfeval.out").read_bytes()
            if statuses["trec_eval"] != statuses["prfeval"]:
                same[case] = f"exit {statuses['trec_eval']} vs {statuses['prfeval']}"
            else:
                same[case] = "same bytes" if a == b else "DIFFERENT"
    load_after = os.getloadavg()
    report = [
        f"### prfeval trec_eval beside trec_eval ({dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        f"Machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; binary {exe} ({version}). Load average (1, 5, 15 min) "
        f"before {_load(load_before)}, after {_load(load_after)}. Median of {args.reps} runs "
        f"after {args.warmup} warm-up, round robin; CPU is user + system of the child.",
        f"Large case: {lines:,} run lines ({args.queries:,} queries x "
        f"{args.docs_per_query:,}); start-up: 100 lines.",
        "",
        "| case | arguments | trec_eval wall (s) | cpu (s) | prfeval wall (s) | cpu (s) "
        "| trec_eval / prfeval (wall) | output |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for case in cases:
        te, pf = timings[(case, "trec_eval")], timings[(case, "prfeval")]
        shown = " ".join(CASES[case][0]) or "(none)"
        report.append(
            f"| {case} | `{shown}` | {te.wall:.3f} | {te.cpu:.3f} | {pf.wall:.3f} | "
            f"{pf.cpu:.3f} | {te.wall / pf.wall:.2f}x | {same[case]} |"
        )
    if "all_trec_q" in cases:
        te, pf = timings[("all_trec_q", "trec_eval")], timings[("all_trec_q", "prfeval")]
        ratio = te.wall / pf.wall
        verdict = "met" if ratio >= TARGET else "not met"
        report += ["", f"Target: `-q -m all_trec` at least {TARGET:.0f}x faster than trec_eval: "
                   f"{ratio:.2f}x, {verdict}."]  # fmt: skip
    text = "\n".join(report) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text)
    return 1 if any(v != "same bytes" for v in same.values()) else 0


def _load(load: tuple[float, float, float]) -> str:
    return ", ".join(f"{x:.2f}" for x in load)


if __name__ == "__main__":
    sys.exit(main())
