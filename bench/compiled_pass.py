"""The compiled pass (native/pass) beside polars' read, prfeval without it, and pytrec_eval.

Usage::

    python bench/compiled_pass.py [--sizes 10m,1m] [--reps 3] [-o report.md]

Timing: every contender is its own child process, end to end from the files (interpreter
start-up and imports included), round robin after one warm-up, with wall time, CPU time
(user + system) and peak RSS from ``os.wait4`` (``bench/children.py``); the medians are
reported, with the load average before and after. The contenders:

* ``polars``: ``pl.read_csv`` of the run's six columns (``bench/peers.py``), the floor;
* ``prfeval evaluate``: ``prfeval evaluate QRELS RUN -m "P@10 R@100 SetP SetR SetF"
  --format json``, with the compiled pass (``PRFEVAL_NATIVE=1``), and with ``PRFEVAL_NATIVE=0``
  (Arrow's whole-file reader and the table encoder, as without the library);
* ``pytrec_eval``: its own parsers and ``RelevanceEvaluator`` (``bench/peers.py``);
* ``compiled pass alone``: ``prfeval._io.native.NativeJudgments`` and its run's segments
  (parse, encode, join; no measure).

The crate's build time from clean is measured once, in a target folder of its own.
The older prototypes (``bench/prototypes``) are not run here any more.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

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
    alone = (  # each segment dropped once read, as evaluate does
        "import sys; from prfeval._io.native import NativeJudgments; "
        "j = NativeJudgments(sys.argv[1]); "
        "sys.exit(next((s.refused for s in j.segments(sys.argv[2]) if s.refused), None))"
    )
    return {
        "polars read (floor)": [py, str(BENCH / "peers.py"), "polars", qrels, run],
        # PRFEVAL_NATIVE=1: the pass at every size (by default runs under 64 MiB go to Arrow).
        "prfeval evaluate, compiled pass": [
            "env", "PRFEVAL_NATIVE=1", *prfeval, "-o", str(out / "native.json")
        ],
        "prfeval evaluate, Arrow (PRFEVAL_NATIVE=0)": [
            "env", "PRFEVAL_NATIVE=0", *prfeval, "-o", str(out / "arrow.json")
        ],
        "pytrec_eval": [py, str(BENCH / "peers.py"), "pytrec_eval", qrels, run],
        "compiled pass alone": [py, "-c", alone, qrels, run],
    }


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def median(samples: list[Sample], attr: str) -> float:
    return statistics.median(getattr(s, attr) for s in samples)


def build_native() -> tuple[float, float]:
    """Wall and CPU seconds of ``cargo build --release --offline`` of native/pass from clean
    (in a target folder of its own: the installed library is not touched)."""
    crate = BENCH.parent / "native" / "pass"
    with tempfile.TemporaryDirectory() as target:
        cmd = ["env", f"CARGO_TARGET_DIR={target}", "cargo", "build", "--release", "--offline",
               "--quiet", "--manifest-path", str(crate / "Cargo.toml")]
        s = run_child(cmd, 600)
        if s.returncode:
            raise SystemExit(f"cargo build failed: {s.stderr[-2000:]}")
    return s.wall_s, s.cpu_s


def bench(sizes: list[str], reps: int) -> str:
    lines = [
        f"# The compiled pass ({dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        f"Machine: {os.uname().sysname} {os.uname().machine}, {os.cpu_count()} CPUs; Python "
        f"{sys.version.split()[0]}; median of {reps} after 1 warm-up, round robin.",
        "",
    ]
    load = loadavg()
    wall, cpu = build_native()
    lines.append(
        f"native/pass built from clean (`cargo build --release --offline`): {wall:.1f} s wall, "
        f"{cpu:.1f} s CPU (load average {load})."
    )
    for size in sizes:
        folder = ensure_data(size)
        for f in ("qrels.trec", "run.trec"):  # warm the page cache for everyone
            with open(folder / f, "rb") as fh:
                while fh.read(1 << 24):
                    pass
        with tempfile.TemporaryDirectory() as tmp:
            cmds = contenders(folder, Path(tmp))
            before = loadavg()
            samples: dict[str, list[Sample]] = {name: [] for name in cmds}
            for rep in range(reps + 1):
                for name, cmd in cmds.items():
                    s = run_child(cmd, 1200)
                    if s.returncode != 0:
                        raise SystemExit(f"{name} failed: {s.stderr[-2000:]}")
                    if rep:
                        samples[name].append(s)
            after = loadavg()
            out = Path(tmp)
            same = (out / "native.json").read_bytes() == (out / "arrow.json").read_bytes()
        floor = samples["polars read (floor)"]
        floor_wall, floor_cpu = median(floor, "wall_s"), median(floor, "cpu_s")
        lines += [
            "",
            f"## {size} ({folder.name}: {(folder / 'run.trec').stat().st_size / MIB:.0f} MiB run)",
            "",
            f"Load average (1, 5, 15 min) before: {before}; after: {after}. The two evaluations' "
            f"JSON: {'identical' if same else 'DIFFERENT'}.",
            "",
            "| contender | median wall (s) | min-max (s) | CPU (s) | peak RSS (MiB) "
            "| wall / polars | CPU / polars |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for name, ss in samples.items():
            walls = [s.wall_s for s in ss]
            w, c = median(ss, "wall_s"), median(ss, "cpu_s")
            lines.append(
                f"| {name} | {w:.2f} | {min(walls):.2f}-{max(walls):.2f} | {c:.2f} | "
                f"{median(ss, 'max_rss_bytes') / MIB:.0f} | {w / floor_wall:.2f} | "
                f"{c / floor_cpu:.2f} |"
            )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10m,1m")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("-o", "--output", help="also write the report here")
    args = ap.parse_args()
    text = bench(args.sizes.split(","), args.reps)
    print(text)
    if args.output:
        Path(args.output).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
