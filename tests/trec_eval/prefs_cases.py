"""Write tests/data/trec_eval_908_prefs.json: seeded random preference cases and what
trec_eval 9.0.8 prints for them (``-q -m all_prefs -R prefs|qrels_prefs``).

Usage: ``PYTHONPATH=tests python tests/trec_eval/prefs_cases.py /path/to/trec_eval``; replayed
by tests/trec_eval/test_recorded_outputs.py. The cases are consistent as trec_eval requires
(no cycle of preferences and no document both 0 and above 0 within a judgment group; no
document twice in a sub-group or a query's results), with tied scores, unretrieved and
unjudged documents, one- and several-sub-group groups, and groups whose non-relevant count
is above and below the relevant count.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from support.recordings import Runner

OUT = Path(__file__).parents[1] / "data" / "trec_eval_908_prefs.json"


def _prefs_case(rng: random.Random) -> tuple[str, str]:
    lines: list[str] = []
    run: list[str] = []
    for q in range(rng.randint(1, 4)):
        qid = f"q{q}"
        pool = [f"D{d:02d}" for d in range(rng.randint(3, 14))]
        for g in range(rng.randint(1, 3)):
            hidden = {d: rng.choice([0, 0, 1, 2, 3]) for d in pool}
            scale, shift = rng.choice([(1, 0), (2, 1), (0.5, 3)])
            for s in range(rng.choice([1, 1, 2, 3])):
                docs = rng.sample(pool, rng.randint(2, len(pool)))
                for d in docs:
                    h = hidden[d]
                    level = 0 if h == 0 else h * scale + shift
                    lines.append(f"{qid} g{g} s{s} {d} {level:g}")
        retrieved = rng.sample([*pool, *(f"U{u}" for u in range(4))], rng.randint(1, len(pool)))
        for r, d in enumerate(retrieved):
            run.append(f"{qid} Q0 {d} {r + 1} {rng.randint(1, 5)} runA")
    rng.shuffle(lines)
    return "\n".join(lines) + "\n", "\n".join(run) + "\n"


def _qrels_case(rng: random.Random) -> tuple[str, str]:
    lines: list[str] = []
    run: list[str] = []
    for q in range(rng.randint(1, 4)):
        qid = f"q{q}"
        pool = [f"D{d:02d}" for d in range(rng.randint(3, 14))]
        for g in range(rng.randint(1, 2)):
            for d in rng.sample(pool, rng.randint(2, len(pool))):
                lines.append(f"{qid} {g} {d} {rng.choice([0, 0, 1, 2])}")
        retrieved = rng.sample([*pool, "U1", "U2"], rng.randint(1, len(pool)))
        for r, d in enumerate(retrieved):
            run.append(f"{qid} Q0 {d} {r + 1} {rng.randint(1, 4)} runB")
    return "\n".join(lines) + "\n", "\n".join(run) + "\n"


def _recorded() -> list[dict[str, str]]:
    return json.loads(OUT.read_text())["cases"]


#: The cases' names: ``case_N`` for the N-th recorded case.
CASES = tuple(f"case_{n}" for n in range(len(_recorded())))


def outcome(command: Runner, name: str, directory: Path) -> dict[str, object]:
    """What ``command`` printed for case ``name``: ``-q -m all_prefs`` on its judgments."""
    case = _recorded()[int(name.removeprefix("case_"))]
    judged, run = directory / "judged", directory / "run"
    judged.write_text(case["judgments"])
    run.write_text(case["run"])
    status, stdout, _ = command(["-q", "-m", "all_prefs", "-R", case["format"], str(judged),
                                 str(run)])
    return {"status": status, "stdout": stdout.decode()}


def expected_outcomes() -> dict[str, dict[str, object]]:
    """What the 9.0.8 binary printed on each case (every recorded case exited 0)."""
    return {f"case_{n}": {"status": 0, "stdout": case["expected"]}
            for n, case in enumerate(_recorded())}


def main(binary: str, count: int = 60) -> None:
    rng = random.Random(9008)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            fmt = "prefs" if i % 3 else "qrels_prefs"
            judged, run = (_prefs_case if fmt == "prefs" else _qrels_case)(rng)
            pj, pr = Path(tmp, "j"), Path(tmp, "r")
            pj.write_text(judged)
            pr.write_text(run)
            done = subprocess.run(
                [binary, "-q", "-m", "all_prefs", "-R", fmt, str(pj), str(pr)],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                continue  # e.g. no query with both: not a case of the measures
            cases.append({"format": fmt, "judgments": judged, "run": run, "expected": done.stdout})
    OUT.write_text(json.dumps({"trec_eval": "9.0.8", "cases": cases}, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
