"""Issue 26, item 1: the compiled-pass prototypes (numba, Rust) beside polars and prfeval.

Usage::

    python bench/compiled_pass.py [--sizes 1m,10m] [--reps 3] [--threads 2]
    python bench/compiled_pass.py check --size 1m      # the prototypes' arrays against prfeval's

Timing: every contender is its own child process, end to end from the files (interpreter
start-up and imports included), round robin after one warm-up, with wall time, CPU time
(user + system) and peak RSS from ``os.wait4`` (``bench/children.py``); the medians are
reported, with the load average before and after. The contenders:

* ``polars``: ``pl.read_csv`` of the run's six columns (``bench/peers.py``), the floor;
* ``prfeval``: ``prfeval evaluate QRELS RUN -m "P@10 R@100 SetP SetR SetF" --format json``;
* ``numba pass`` / ``rust pass``: ``bench/prototypes/{numba,rust}_pass.py QRELS RUN``: parse,
  encode, join and rank order, no measure (the kernel is not fed yet);
* ``numba first run``: the numba pass with an empty ``NUMBA_CACHE_DIR`` (a fresh install),
  once per size; the Rust crate's build time is measured once (``cargo clean`` first).

``check`` loads the files with prfeval (``load_qrels``/``load_run``), encodes them with
``encode_tables`` and orders them with the aligner's ``rank_order``, runs both passes in the
same process, and compares per run line (file order): query and doc codes equal up to a
renumbering (a bijection), ``found``, ``grade`` and ``repeated`` equal, and every evaluated
query's rows in the same rank order.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH / "prototypes"))

from children import Sample, run_child  # noqa: E402

MEASURES = "P@10 R@100 SetP SetR SetF"
SIZES = {"1m": ("1000", "1000"), "10m": ("10000", "1000")}
MIB = 1024 * 1024


def ensure_data(size: str) -> Path:
    """The seeded data set of ``bench/run.py --size SIZE`` (same generator, same seed)."""
    folder = BENCH / "data" / size
    q, d = SIZES[size]
    cmd = [sys.executable, str(BENCH / "generate.py"), "--queries", q, "--docs-per-query", d]
    subprocess.run([*cmd, "--seed", "0", "--out", str(folder), "--reuse"], check=True,
                   stdout=subprocess.DEVNULL)
    return folder


def contenders(folder: Path, out: Path) -> dict[str, list[str]]:
    py = sys.executable
    qrels, run = str(folder / "qrels.trec"), str(folder / "run.trec")
    prfeval = [py, "-m", "prfeval", "evaluate", qrels, run, "-m", MEASURES, "--format", "json"]
    return {
        "polars (floor)": [py, str(BENCH / "peers.py"), "polars", qrels, run],
        "prfeval evaluate": [*prfeval, "-o", str(out / "prfeval.json")],
        "numba pass": [py, str(BENCH / "prototypes" / "numba_pass.py"), qrels, run],
        "rust pass": [py, str(BENCH / "prototypes" / "rust_pass.py"), qrels, run],
    }


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def median(samples: list[Sample], attr: str) -> float:
    return statistics.median(getattr(s, attr) for s in samples)


def build_rust() -> float:
    crate = BENCH / "prototypes" / "rust_pass"
    subprocess.run(["cargo", "clean", "--quiet"], cwd=crate, check=True)
    t0 = time.perf_counter()
    subprocess.run(["cargo", "build", "--release", "--offline", "--quiet"], cwd=crate, check=True)
    return time.perf_counter() - t0


def bench(sizes: list[str], reps: int, threads: int) -> str:
    env_threads = str(threads)
    os.environ["NUMBA_NUM_THREADS"] = env_threads
    lines = [
        f"# Compiled pass prototypes ({dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        f"Machine: {os.uname().sysname} {os.uname().machine}, {os.cpu_count()} CPUs; Python "
        f"{sys.version.split()[0]}; median of {reps} after 1 warm-up, round robin.",
        "",
    ]
    build_s = build_rust()
    lines.append(
        f"Rust crate build from clean (`cargo build --release --offline`): {build_s:.1f} s"
    )
    cache = Path(tempfile.mkdtemp(prefix="numba-cache-"))
    os.environ["NUMBA_CACHE_DIR"] = str(cache)
    for size in sizes:
        folder = ensure_data(size)
        for f in ("qrels.trec", "run.trec"):  # warm the page cache for everyone
            with open(folder / f, "rb") as fh:
                while fh.read(1 << 24):
                    pass
        with tempfile.TemporaryDirectory() as tmp:
            cmds = contenders(folder, Path(tmp))
            fresh = Path(tempfile.mkdtemp(prefix="numba-fresh-"))
            os.environ["NUMBA_CACHE_DIR"] = str(fresh)
            first = run_child(cmds["numba pass"], 600)
            shutil.rmtree(fresh, ignore_errors=True)
            os.environ["NUMBA_CACHE_DIR"] = str(cache)
            before = loadavg()
            samples: dict[str, list[Sample]] = {name: [] for name in cmds}
            for rep in range(reps + 1):
                for name, cmd in cmds.items():
                    s = run_child(cmd, 600)
                    if s.returncode != 0:
                        raise SystemExit(f"{name} failed: {s.stderr[-2000:]}")
                    if rep:
                        samples[name].append(s)
            after = loadavg()
        floor = median(samples["polars (floor)"], "wall_s")
        lines += [
            "",
            f"## {size} ({folder.name}: {(folder / 'run.trec').stat().st_size / MIB:.0f} MiB run)",
            "",
            f"Load average (1, 5, 15 min) before: {before}; after: {after}.",
            "",
            "| contender | median wall (s) | min-max (s) | CPU (s) | peak RSS (MiB) "
            "| wall / polars |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for name, ss in samples.items():
            walls = [s.wall_s for s in ss]
            w = median(ss, "wall_s")
            lines.append(
                f"| {name} | {w:.2f} | {min(walls):.2f}-{max(walls):.2f} | "
                f"{median(ss, 'cpu_s'):.2f} | {median(ss, 'max_rss_bytes') / MIB:.0f} | "
                f"{w / floor:.2f} |"
            )
        lines.append(
            f"| numba pass, first run (empty cache) | {first.wall_s:.2f} | | {first.cpu_s:.2f} | "
            f"{first.max_rss_bytes / MIB:.0f} | {first.wall_s / floor:.2f} |"
        )
    shutil.rmtree(cache, ignore_errors=True)
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# check


def _bijection(a: object, b: object) -> bool:
    import numpy as np

    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    pairs = np.unique(a * (int(b.max()) + 1) + b).size if a.size else 0
    return pairs == np.unique(a).size == np.unique(b).size


def check(size: str, threads: int, files: list[str] | None = None) -> str:
    import numba_pass
    import numpy as np
    import rust_pass

    from prfeval._io.load import load_qrels, load_run
    from prfeval._retrieval.encode import encode_tables
    from prfeval._retrieval.ordering import rank_order

    if files:
        qp, rp = files
    else:
        folder = ensure_data(size)
        qp, rp = str(folder / "qrels.trec"), str(folder / "run.trec")
    enc = encode_tables(load_qrels(qp), load_run(rp), sorted_docs=True)
    ranked = rank_order("score", enc.slot, enc.doc, enc.n_docs, enc.query_code,
                        scores=enc.scores, ranks=enc.ranks, name=enc.name)
    ranked = ranked[enc.slot[ranked] >= 0]
    ref_scores = np.asarray(enc.scores)
    out = [f"check on {rp}: {enc.slot.size:,} run lines, {enc.n_slots:,} evaluated queries"]
    for name, mod in (("numba", numba_pass), ("rust", rust_pass)):
        p = mod.run_pass(qp, rp, threads=threads)
        # The prototype's rows of the evaluated queries, in prfeval's query order.
        code_of = {qid: c for c, qid in enumerate(p.query_ids)}
        codes = np.array([code_of[str(q)] for q in enc.query_ids], dtype=np.int64)
        qs = np.asarray(p.qstart)
        rows = np.concatenate([np.asarray(p.order[qs[c] : qs[c + 1]]) for c in codes])
        results = {
            "query codes (bijection)": _bijection(p.run_q, enc.query_code),
            "doc codes (bijection)": _bijection(p.run_d, enc.doc),
            "scores": np.array_equal(np.asarray(p.scores), ref_scores),
            "found": np.array_equal(np.asarray(p.found, dtype=bool), enc.found),
            "grade": np.array_equal(np.asarray(p.grade), enc.grade),
            "repeated": np.array_equal(np.asarray(p.repeated, dtype=bool), enc.repeated),
            "rank order": np.array_equal(rows, ranked),
            "grouped": p.grouped,
        }
        bad = [k for k, ok in results.items() if not ok]
        out.append(f"{name}: {'all equal' if not bad else 'DIFFERENT: ' + ', '.join(bad)}")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", nargs="?", default="bench", choices=["bench", "check"])
    ap.add_argument("--sizes", default="1m,10m")
    ap.add_argument("--size", default="1m", help="for check")
    ap.add_argument("--files", nargs=2, metavar=("QRELS", "RUN"), help="for check: other files")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("-o", "--output", help="also write the report here")
    args = ap.parse_args()
    if args.mode == "check":
        text = check(args.size, args.threads, args.files)
    else:
        text = bench(args.sizes.split(","), args.reps, args.threads)
    print(text)
    if args.output:
        Path(args.output).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
