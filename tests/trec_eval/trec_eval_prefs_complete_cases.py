"""Write tests/data/trec_eval_908_prefs_complete.json: preference cases in which some judged
queries have no results, and what trec_eval 9.0.8 prints for them with ``-c`` (every judged
query counts, one without results scoring 0), replayed by
``tests/trec_eval/test_recorded_outputs.py``.

Usage: ``PYTHONPATH=tests python tests/trec_eval/trec_eval_prefs_complete_cases.py
/path/to/trec_eval``. The
judgments and runs are made as ``tests/trec_eval/prefs_cases.py`` makes them (same rules,
another seed), then the results of a random part of the queries are removed (never all).
Only the binary's outputs are committed, never the binary.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from prefs_cases import _prefs_case, _qrels_case

from support.recordings import Runner, binary_runner

OUT = Path(__file__).parents[1] / "data" / "trec_eval_908_prefs_complete.json"

#: The command lines run on each case (before ``-R FORMAT JUDGMENTS RUN``).
ARGS: tuple[tuple[str, ...], ...] = (
    ("-c", "-q", "-m", "all_prefs"),
    ("-c", "-m", "all_prefs"),
    ("-c", "-M", "3", "-m", "prefs_simp", "-m", "prefs_num_prefs_poss", "-m", "num_q"),
)


def _without_some_queries(run: str, rng: random.Random) -> str:
    """``run`` with the results of some of its queries removed (at least one query kept)."""
    lines = [line for line in run.splitlines() if line]
    queries = sorted({line.split()[0] for line in lines})
    dropped: set[str] = set()
    if len(queries) > 1:
        dropped = set(rng.sample(queries, rng.randint(1, len(queries) - 1)))
    return "".join(f"{line}\n" for line in lines if line.split()[0] not in dropped)


def make_cases(count: int = 30) -> list[dict[str, str]]:
    """The cases (format, judgments, run), seeded: the same on every call."""
    rng = random.Random(90081)
    cases = []
    while len(cases) < count:
        fmt = "prefs" if len(cases) % 3 else "qrels_prefs"
        judged, run = (_prefs_case if fmt == "prefs" else _qrels_case)(rng)
        if len({line.split()[0] for line in judged.splitlines() if line}) < 2:
            continue  # one judged query: none can be left without results
        cases.append({"format": fmt, "judgments": judged, "run": _without_some_queries(run, rng)})
    return cases


def _runs(command: Runner, case: dict[str, str], directory: Path) -> list[dict[str, object]]:
    """What ``command`` printed for each of :data:`ARGS` on ``case``."""
    judged, run = directory / "j", directory / "r"
    judged.write_text(case["judgments"])
    run.write_text(case["run"])
    runs = []
    for args in ARGS:
        status, stdout, stderr = command([*args, "-R", case["format"], str(judged), str(run)])
        runs.append({"args": list(args), "status": status, "stdout": stdout.decode(),
                     "stderr": stderr.decode()})
    return runs


def _recorded() -> list[dict[str, Any]]:
    return json.loads(OUT.read_text())["cases"]


#: The cases' names: ``case_N`` for the N-th recorded case.
CASES = tuple(f"case_{n}" for n in range(len(_recorded())))


def outcome(command: Runner, name: str, directory: Path) -> list[dict[str, object]]:
    """What ``command`` printed for each command line of case ``name``."""
    return _runs(command, _recorded()[int(name.removeprefix("case_"))], directory)


def expected_outcomes() -> dict[str, list[dict[str, object]]]:
    """What the 9.0.8 binary printed on each case's command lines."""
    return {f"case_{n}": case["runs"] for n, case in enumerate(_recorded())}


def main(binary: str) -> None:
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in make_cases():
            out.append({**case, "runs": _runs(binary_runner(binary), case, Path(tmp))})
    OUT.write_text(json.dumps({"trec_eval": "9.0.8", "cases": out}, indent=1) + "\n")
    print(f"wrote {len(out)} cases to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
