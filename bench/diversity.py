"""alpha-nDCG@20 over judgments per subtopic: prfeval beside ndeval (pyndeval), one run.

Usage::

    python bench/diversity.py [--lines 1000000] [--seed 0] [--timeout 600]

Writes, in a temporary directory, seeded judgments per subtopic (ndeval's qrels, ``query
subtopic doc grade``, ``--lines`` lines) and a TREC run of as many lines (distinct scores,
so that the two tools' tie orders never differ), then runs, each in a child process measured
by ``os.wait4`` (bench/children.py): ``prfeval evaluate -m alpha_nDCG@20 --qrels-format
ndeval``, and a Python child reading the same files and calling ``pyndeval.ndeval`` for
``alpha-nDCG@20``. Reading the files is part of both times. The per-query values are checked
to agree to 4 decimals (ndeval prints 4) before one JSON object is printed: each tool's wall
clock, CPU seconds and peak RSS, and the ratio pyndeval / prfeval.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from children import Sample, run_child

PYNDEVAL_CHILD = r"""
import json, sys
import pyndeval
qrels_path, run_path, out_path = sys.argv[1:4]
with open(qrels_path) as f:
    qrels = [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in f)]
with open(run_path) as f:
    run = [(q, d, float(sc)) for q, _, d, _, sc, _ in (line.split() for line in f)]
result = pyndeval.ndeval(qrels, run, ["alpha-nDCG@20"])
with open(out_path, "w") as f:
    json.dump({q: v["alpha-nDCG@20"] for q, v in result.items()}, f)
"""


def generate(directory: Path, lines: int, seed: int) -> tuple[Path, Path]:
    """Judgments per subtopic and a run, ``lines`` lines each, grouped by query."""
    rng = np.random.default_rng(seed)
    per_query = 500
    n_queries = max(lines // per_query, 1)
    qrels_lines, run_lines = [], []
    for q in range(n_queries):
        n_sub = int(rng.integers(2, 8))
        pool = rng.choice(5000, 600, replace=False)
        cells = np.sort(rng.choice(n_sub * pool.size, per_query, replace=False))
        pairs = list(zip((cells // pool.size).tolist(), pool[cells % pool.size].tolist(),
                         strict=True))
        grades = rng.choice([0, 1, 1, 2], len(pairs))
        qrels_lines += [f"q{q} s{s} d{d} {g}\n" for (s, d), g in zip(pairs, grades, strict=True)]
        ranked = rng.choice(np.arange(10000), per_query, replace=False)
        scores = rng.permutation(per_query)[::-1] + 0.5
        run_lines += [
            f"q{q} Q0 d{d} {i + 1} {sc} bench\n"
            for i, (d, sc) in enumerate(zip(ranked.tolist(), scores.tolist(), strict=True))
        ]
    qrels, run = directory / "qrels.txt", directory / "run.txt"
    qrels.write_text("".join(qrels_lines))
    run.write_text("".join(run_lines))
    return qrels, run


def summary(sample: Sample) -> dict[str, Any]:
    return {
        "wall_s": round(sample.wall_s, 3),
        "cpu_s": round(sample.cpu_s, 3),
        "max_rss_mb": round(sample.max_rss_bytes / 2**20, 1),
        "returncode": sample.returncode,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        qrels, run = generate(directory, args.lines, args.seed)
        ours_out, theirs_out = directory / "prfeval.json", directory / "pyndeval.json"
        ours = run_child(
            [sys.executable, "-m", "prfeval", "evaluate", str(qrels), str(run),
             "-m", "alpha_nDCG@20", "--qrels-format", "ndeval", "--format", "json", "-q",
             "-o", str(ours_out)],
            args.timeout,
        )
        theirs = run_child(
            [sys.executable, "-c", PYNDEVAL_CHILD, str(qrels), str(run), str(theirs_out)],
            args.timeout,
        )
        report: dict[str, Any] = {
            "lines": {"qrels": sum(1 for _ in qrels.open()), "run": sum(1 for _ in run.open())},
            "prfeval": summary(ours),
            "pyndeval": summary(theirs),
        }
        if ours.returncode or theirs.returncode:
            report["error"] = (ours.stderr or theirs.stderr)[-2000:]
            print(json.dumps(report, indent=2))
            return 1
        mine = json.loads(ours_out.read_text())
        ref = json.loads(theirs_out.read_text())
        per_query = {q: row["alpha_nDCG@20"] for q, row in mine["per_query"].items()}
        worst = max(abs(per_query[q] - v) for q, v in ref.items())
        report["queries"] = len(ref)
        report["max_abs_difference"] = worst
        report["agree_to_4_decimals"] = bool(worst < 5e-5) and set(per_query) == set(ref)
        report["ratio_pyndeval_over_prfeval"] = round(theirs.wall_s / ours.wall_s, 2)
    print(json.dumps(report, indent=2))
    return 0 if report["agree_to_4_decimals"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
