"""``prfeval trec_eval`` loads only what it needs: scripts call it thousands of times.

A module-list check in a fresh interpreter, never a timing (docs/benchmarks.md has the
times): after the command has run on a small run, none of the heavy optional libraries is
loaded, whatever the measures asked.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: Libraries the trec_eval path must never import.
HEAVY = ("pandas", "matplotlib", "scipy", "polars", "rich", "sklearn", "pyspark", "numba")

PROGRAM = """
import json, sys
from prfeval.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args", [[], ["-q", "-m", "all_trec"], ["-c", "-J", "-M", "5", "-m", "set"]]
)
def test_no_heavy_library_is_loaded(tmp_path: Path, args: list[str]) -> None:
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n2 Q0 d 2 0.5 t\n")
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, "trec_eval", *args, str(qrels), str(run)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] in (None, 0), done.stderr
    assert "num_q" in done.stdout or "set_P" in done.stdout
    loaded = {m.split(".")[0] for m in report["modules"]}
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
