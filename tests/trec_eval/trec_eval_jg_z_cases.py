"""Write tests/data/trec_eval_908_jg_z.json: seeded random judgment-group and z-score cases
with the outputs of a built trec_eval 9.0.8 (``PYTHONPATH=tests python
tests/trec_eval/trec_eval_jg_z_cases.py /path/to/trec_eval``), replayed by
tests/trec_eval/test_recorded_outputs.py."""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from support.recordings import Runner, binary_runner

OUT = Path(__file__).parents[1] / "data" / "trec_eval_908_jg_z.json"

JG_ARGS = [
    ["-q", "-m", "qrels_jg"],
    ["-q", "-J", "-m", "qrels_jg"],
    ["-q", "-M", "4", "-m", "qrels_jg"],
    ["-c", "-m", "qrels_jg"],
    ["-q", "-l", "2", "-m", "map_avgjg", "-m", "P_avgjg.1,3,7", "-m", "Rprec_mult_avgjg.0.5,1,2.5"],
    ["-q", "-Z", "ZSCORES", "-m", "qrels_jg"],
    # Preference measures alone: trec_eval stops at the first, which cannot read qrels_jg.
    ["-q", "-m", "prefs_simp", "-m", "prefs_pair"],
    ["-c", "-m", "prefs_num_prefs_poss"],
]
Z_ARGS = [
    ["-q", "-Z", "ZSCORES", "-m", "all_trec"],
    ["-q", "-c", "-Z", "ZSCORES", "-m", "official"],
    ["-n", "-Z", "ZSCORES", "-m", "P.2,5", "-m", "gm_map", "-m", "num_rel"],
    ["-c", "-Z", "ZSCORES", "-m", "num_rel", "-m", "num_ret", "-m", "map", "-m", "gm_bpref"],
]
Z_MEASURES = ["map", "P_2", "P_5", "num_ret", "num_rel", "gm_map", "recip_rank", "bpref", "ndcg"]


def case(rng: random.Random, n: int) -> dict[str, str]:
    queries = [str(q) for q in rng.sample(range(1, 30), rng.randint(1, 5))]
    docs = [f"d{i}" for i in range(12)]
    qrels, plain, run, z = [], [], [], []
    for q in queries:
        for g in rng.sample(["a", "b", "c", "0"], rng.randint(1, 3)):
            for d in rng.sample(docs, rng.randint(1, 8)):
                qrels.append(f"{q} {g} {d} {rng.choice([-1, 0, 0, 1, 1, 2])}")
        for d in rng.sample(docs, rng.randint(1, 8)):
            plain.append(f"{q} 0 {d} {rng.choice([0, 0, 1, 2])}")
        if rng.random() < 0.8:
            for d in rng.sample(docs, rng.randint(1, 10)):
                run.append(f"{q} Q0 {d} 0 {rng.choice([1, 2, 2.5, 3, 4])} r{n}")
        for m in rng.sample(Z_MEASURES, rng.randint(0, len(Z_MEASURES))):
            sd = rng.choice(["0", "0.5", "1.25", "2"])
            z.append(f"{q}\t{m} {rng.choice(['0', '0.25', '1', '3'])} {sd}")
    if not run:
        run.append(f"{queries[0]} Q0 d0 0 1 r{n}")
    if n % 4 == 3:  # a repeated document: trec_eval stops there (past -M it does not look)
        q, _, d, _, _, tag = run[-1].split()
        run.append(f"{q} Q0 {d} 0 0.5 {tag}")
    # Queries the z-score file names beyond the run's, so that no query sorts after them all
    # (trec_eval reads past its table there).
    z.append("zz map 0 1")
    rng.shuffle(qrels)
    rng.shuffle(z)
    return {
        "qrels_jg": "\n".join(qrels) + "\n",
        "qrels": "\n".join(plain) + "\n",
        "run": "\n".join(run) + "\n",
        "zscores": "\n".join(z) + "\n",
    }


def _recorded() -> list[dict[str, Any]]:
    return json.loads(OUT.read_text())["cases"]


#: The cases' names: ``case_N`` for the N-th recorded case (its files and command lines).
CASES = tuple(f"case_{n}" for n in range(len(_recorded())))
#: Every case's command lines: (judgments mode, arguments before the files).
COMMANDS = [(mode, args) for mode, sets in (("jg", JG_ARGS), ("z", Z_ARGS)) for args in sets]


def _runs(command: Runner, files: dict[str, str], directory: Path) -> list[dict[str, Any]]:
    """What ``command`` printed for each of :data:`COMMANDS` on ``files`` (written into
    ``directory``, whose path messages show as ``TMP``)."""
    paths = {}
    for file, text in files.items():
        paths[file] = directory / file
        paths[file].write_text(text)
    runs = []
    for mode, args in COMMANDS:
        argv = [str(paths["zscores"]) if a == "ZSCORES" else a for a in args]
        rel = ["-R", "qrels_jg", str(paths["qrels_jg"])] if mode == "jg" else [str(paths["qrels"])]
        status, stdout, stderr = command([*argv, *rel, str(paths["run"])])
        runs.append({"mode": mode, "args": args, "status": status, "stdout": stdout.decode(),
                     "stderr": stderr.decode().replace(str(directory), "TMP")})
    return runs


def outcome(command: Runner, name: str, directory: Path) -> list[dict[str, Any]]:
    """What ``command`` printed for each command line of case ``name``."""
    return _runs(command, _recorded()[int(name.removeprefix("case_"))]["files"], directory)


def expected_outcomes() -> dict[str, list[dict[str, Any]]]:
    """What the 9.0.8 binary printed on each case's command lines."""
    return {f"case_{n}": case["runs"] for n, case in enumerate(_recorded())}


def main(binary: str, n_cases: int = 16) -> None:
    rng = random.Random(908)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(n_cases):
            files = case(rng, n)
            cases.append({"files": files, "runs": _runs(binary_runner(binary), files, Path(tmp))})
    OUT.write_text(json.dumps({"trec_eval": "9.0.8", "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
