"""The wheel a user installs against the development install, on the same 1M-line run.

Usage::

    python bench/wheel.py [--size 1m] [--reps 7] [--wheel dist/prfeval-...whl]

Builds the wheel with plain ``python -m build --wheel`` (cargo on the PATH: the compiled pass
inside) unless ``--wheel`` names one, installs it in a fresh virtual environment, and runs
``prfeval evaluate QRELS RUN -m "P@10 R@100 MAP nDCG@10"`` from each install in turn (round
robin, ``--reps`` times, after one untimed round each), with no Rust on the PATH for the
wheel's. Prints one JSON object: each install's wall-clock seconds (all and best), the ratio
of the bests (wheel over development), whether both say ``compiled pass: yes``, and whether
their outputs are byte-identical. The data is ``bench/run.py``'s (``bench/data/SIZE``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from run import ensure_data  # noqa: E402  (bench/ is not a package)

MEASURES = "P@10 R@100 MAP nDCG@10"
SEED = 42  # bench/run.py's default, so the files are shared


def build_wheel(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=1800)  # fmt: skip
    return next(out.glob("prfeval-*.whl"))


def install(wheel: Path, venv: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    str(wheel)], check=True, timeout=1800)  # fmt: skip
    return venv / "bin" / "prfeval"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1m")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--wheel", type=Path, default=None)
    args = parser.parse_args(argv)
    ensure_data(args.size, SEED, BENCH / "data", 1800)
    data = BENCH / "data" / args.size
    qrels, run = data / "qrels.trec", data / "run.trec"
    no_rust = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                              if not (Path(p) / "cargo").exists())
    with tempfile.TemporaryDirectory() as scratch:
        wheel = args.wheel or build_wheel(Path(scratch) / "dist")
        commands = {
            "development": ([sys.executable, "-m", "prfeval"], dict(os.environ)),
            "wheel": ([str(install(wheel, Path(scratch) / "venv"))],
                      {**os.environ, "PATH": no_rust}),
        }
        said, outputs, seconds = {}, {}, {name: [] for name in commands}
        for name, (command, env) in commands.items():
            version = subprocess.run([*command, "--version"], env=env, capture_output=True,
                                     text=True, check=True, cwd=scratch)  # fmt: skip
            said[name] = version.stdout.splitlines()[1]
        for rep in range(args.reps + 1):
            for name, (command, env) in commands.items():
                start = time.perf_counter()
                done = subprocess.run([*command, "evaluate", str(qrels), str(run), "-m",
                                       MEASURES], env=env, capture_output=True, check=True,
                                      cwd=scratch)  # fmt: skip
                took = time.perf_counter() - start
                outputs[name] = done.stdout
                if rep:  # the first round warms the caches
                    seconds[name].append(round(took, 3))
    best = {name: min(times) for name, times in seconds.items()}
    print(json.dumps({
        "size": args.size, "wheel": wheel.name, "seconds": seconds, "best": best,
        "wheel_over_development": round(best["wheel"] / best["development"], 3),
        "compiled_pass": said,
        "identical_output": outputs["wheel"] == outputs["development"],
        "load_average": os.getloadavg(),
    }, indent=2))
    return 0 if outputs["wheel"] == outputs["development"] else 1


if __name__ == "__main__":
    sys.exit(main())
