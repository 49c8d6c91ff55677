"""``prfeval trec_eval -m all_prefs -R prefs`` beside the trec_eval binary, on a 1M-line
prefs file: the same files, the same bytes, timed.

Usage::

    TREC_EVAL=/path/to/trec_eval python bench/prefs.py [--reps 3] [--lines 1000000]

Generates (in a temporary directory, seeded) a prefs file of ``--lines`` lines: queries of
100 lines, each with 4 judgment groups of 25 lines, half of them with one sub-group and
half with two (so both of trec_eval's representations are timed), and a run of 200
documents a query. Runs both commands round robin (``-q -m all_prefs -R prefs``), checks
they print the same bytes, and prints the median wall and CPU times and their ratio
(prfeval / trec_eval; the target is at most 2). Without a binary it says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from children import run_child

TARGET = 2.0


def generate(directory: Path, lines: int, seed: int = 7) -> tuple[Path, Path]:
    """A prefs file of ``lines`` lines and a run over the same queries."""
    rng = random.Random(seed)
    prefs, run = [], []
    for q in range(max(lines // 100, 1)):
        pool = [f"doc{q}-{d}" for d in range(60)]
        for g in range(4):
            hidden = {d: rng.choice([0, 0, 1, 2, 3]) for d in pool}
            subs = 1 if g % 2 == 0 else 2
            for s in range(subs):
                for d in rng.sample(pool, 25 // subs + (25 % subs if s == 0 else 0)):
                    prefs.append(f"q{q} g{g} s{s} {d} {hidden[d]}\n")
        docs = pool + [f"other{q}-{d}" for d in range(140)]
        rng.shuffle(docs)
        for r, d in enumerate(docs):
            run.append(f"q{q} Q0 {d} {r + 1} {rng.randint(0, 999) / 100} bench\n")
    pp, rp = directory / "prefs", directory / "run"
    pp.write_text("".join(prefs))
    rp.write_text("".join(run))
    return pp, rp


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--lines", type=int, default=1_000_000)
    opts = ap.parse_args()
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if not binary:
        print("no trec_eval binary (set TREC_EVAL): nothing to compare with")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        pp, rp = generate(Path(tmp), opts.lines)
        args = ["-q", "-m", "all_prefs", "-R", "prefs", str(pp), str(rp)]
        cmds = {
            "trec_eval": [binary, *args],
            "prfeval": [sys.executable, "-m", "prfeval", "trec_eval", *args],
        }
        walls: dict[str, list[float]] = {k: [] for k in cmds}
        cpus: dict[str, list[float]] = {k: [] for k in cmds}
        outs: dict[str, str] = {}
        for _ in range(opts.reps):
            for name, cmd in cmds.items():
                s = run_child(cmd, timeout_s=1800)
                if s.returncode != 0:
                    print(f"{name} failed ({s.returncode}): {s.stderr[-500:]}")
                    return 1
                walls[name].append(s.wall_s)
                cpus[name].append(s.cpu_s)
                outs[name] = s.stdout
    same = outs["trec_eval"] == outs["prfeval"]
    w = {k: statistics.median(v) for k, v in walls.items()}
    c = {k: statistics.median(v) for k, v in cpus.items()}
    print(f"## all_prefs on {opts.lines:,} prefs lines ({opts.reps} reps, median)\n")
    print("| command | wall s | cpu s |\n| --- | ---: | ---: |")
    for k in cmds:
        print(f"| {k} | {w[k]:.2f} | {c[k]:.2f} |")
    ratio = w["prfeval"] / w["trec_eval"]
    print(
        f"\nprfeval / trec_eval wall: {ratio:.2f} (target <= {TARGET}); "
        f"same bytes: {same}; load {os.getloadavg()[0]:.2f}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
