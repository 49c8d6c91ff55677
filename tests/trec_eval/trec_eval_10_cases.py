"""What trec_eval 10.0 printed: the oracle of ``tests/trec_eval/test_trec_eval_10.py`` (its
quicktest lines) and of ``tests/trec_eval/test_recorded_outputs.py`` (the random cases).

Two kinds of case, each a command line (with its input files) and what trec_eval 10.0 did:

- **quicktest**: every line of 10.0's ``make quicktest``, on its ``test/`` fixtures: those
  that 9.0.8 ships too (``tests/data/trec_eval_quicktest``), and the new or changed ones
  (``tests/data/trec_eval_10_quicktest``, which wins where both hold a file);
- **random**: seeded random judgments and runs (graded, negative and unjudged documents,
  queries missing on either side, comment lines, ties) with ``-q``, ``-c``, ``-M``, ``-l``,
  ``-J``, ``all_trec`` and 10.0's new or changed measures (``rbp``, ``rbp_resid``, ``unj``,
  ``iprec_at_recall``, ``11pt_avg``, ``dcg``, ``ideal_dcg``), and results read from stdin.

``PYTHONPATH=tests python tests/trec_eval/trec_eval_10_cases.py /path/to/trec_eval`` (10.0,
built from usnistgov/trec_eval at tag v10.0) runs the binary on every case and writes
``tests/data/trec_eval_10_cases.json``: the arguments, the inputs of the random cases, and
the binary's stdout, stderr and exit status. Only that output is committed, never the binary.
"""

from __future__ import annotations

import json
import random
import shlex
import subprocess
import sys
from pathlib import Path

from support.recordings import Runner, binary_runner

HERE = Path(__file__).parents[1]
EXPECTED = HERE / "data" / "trec_eval_10_cases.json"
QUICKTEST_908 = HERE / "data" / "trec_eval_quicktest"
QUICKTEST_10 = HERE / "data" / "trec_eval_10_quicktest"

#: trec_eval 10.0's Makefile, target quicktest: (arguments as written, expected output file).
QUICKTEST: list[tuple[str, str]] = [
    ("test/qrels.test test/results.test", "out.test"),
    ("test/qrels.test.with-comments test/results.test", "out.test"),
    ("test/qrels.comment.test test/results.comment.test", "out.comment.test"),
    ("-m all_trec test/qrels.test test/results.test", "out.test.a"),
    ("-m all_trec -q test/qrels.test test/results.test", "out.test.aq"),
    ("-m all_trec -q -c test/qrels.test test/results.trunc", "out.test.aqc"),
    ("-m all_trec -q -c -M100 test/qrels.test test/results.trunc", "out.test.aqcM"),
    ("-m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test", "out.test.aql"),
    ("-m all_prefs -q -R prefs test/prefs.test test/prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R prefs test/prefs.comment.test test/prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R qrels_prefs test/qrels.test test/results.test", "out.test.qrels_prefs"),
    ("-m qrels_jg -q -R qrels_jg  test/qrels.123 test/results.test", "out.test.qrels_jg"),
    ("-m qrels_jg -q -R qrels_jg  test/qrels.comments.123 test/results.test", "out.test.qrels_jg"),
    (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
        "test/qrels.test test/results.test",
        "out.test.meas_params",
    ),
    ("-q -m all_trec -Z test/zscores_file test/qrels.test test/results.test", "out.test.aqZ"),
]


def link_fixtures(workdir: Path) -> None:
    """``workdir/test/``: 10.0's quicktest fixtures, 9.0.8's where 10.0's are the same."""
    test = workdir / "test"
    test.mkdir()
    for source in (QUICKTEST_908, QUICKTEST_10):
        for f in source.iterdir():
            target = test / f.name
            if target.is_symlink():
                target.unlink()
            target.symlink_to(f.resolve())


def _comments(lines: list[str], rng: random.Random, run: bool) -> list[str]:
    """Comment lines put between ``lines`` where 10.0 reads them as comments: in a run, any
    line whose first character that is not blank is ``#``; in qrels, one at a time."""
    out: list[str] = []
    for line in lines:
        if rng.random() < 0.08:
            out.append(("  # note" if run and rng.random() < 0.5 else "# note") + "\n")
        out.append(line)
    if out and not run and out[-1].startswith("#"):
        out.pop()  # 10.0 crashes on a comment as the last line of qrels
    return out


def random_inputs(seed: int, *, comments: bool, missing: bool) -> tuple[str, str]:
    """Judgments and a run over a few queries: grades -1..3 (and 4 sometimes), unjudged
    retrieved documents, a query without results and one without judgments, tied scores."""
    rng = random.Random(seed)
    n_queries = rng.randint(2, 6)
    queries = [f"q{i}" for i in range(n_queries)]
    qrels: list[str] = []
    run: list[str] = []
    top = rng.choice((1, 2, 3, 4))
    for q in queries:
        docs = [f"d{j}" for j in range(rng.randint(1, 30))]
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        for d in sorted(judged):
            qrels.append(f"{q} 0 {d} {rng.choice([-1, 0, 0, 0, *range(1, top + 1)])}\n")
        retrieved = rng.sample(docs + [f"u{j}" for j in range(10)], rng.randint(1, len(docs)))
        for rank, d in enumerate(retrieved, 1):
            score = rng.choice((rng.randint(0, 5), round(rng.random(), 3)))
            run.append(f"{q} Q0 {d} {rank} {score} run{seed}\n")
    if rng.random() < 0.7:  # a query with results and no judgments
        run.append(f"zz Q0 d0 1 1 run{seed}\n")
    if missing:  # a judged query without results (10.0 stops without -c)
        qrels.append("q_missing 0 d0 1\n")
    if comments:
        qrels, run = _comments(qrels, rng, run=False), _comments(run, rng, run=True)
    return "".join(qrels), "".join(run)


#: The measures 10.0 added, and those whose 10.0 computation differs from 9.0.8's (kept
#: apart: 10.0's rbp reads uninitialised memory when iprec_at_recall, 11pt_avg or ndcg are
#: asked with it, and is then not reproducible).
ADDED = ["-m", "rbp", "-m", "rbp_resid", "-m", "unj", "-m", "P.5", "-m", "num_q",
         "-m", "relstring"]
ROUNDED = ["-m", "iprec_at_recall", "-m", "11pt_avg", "-m", "Rprec_mult", "-m", "num_q",
           "-m", "utility"]

#: Options crossed with the random inputs.
OPTIONS: list[list[str]] = [
    ["-q", "-m", "all_trec"],
    ["-q", "-c", "-m", "all_trec"],
    ["-q", "-c", *ADDED],
    ["-q", *ROUNDED],
    ["-c", "-M", "5", *ADDED],
    ["-q", "-l", "2", *ADDED],
    ["-q", "-J", *ADDED],
    ["-q", "-c", "-J", "-M", "4", *ROUNDED],
    ["-q", "-c", "-J", "-M", "7", "-l", "2", "-m", "all_trec"],
    ["-q", "-m", "unj.3,8", "-m", "iprec_at_recall.0.15,0.33,0.5"],
    ["-q", "-c", "-m", "Rprec_mult.0.3,0.5,1.5", "-m", "11pt_avg..25,.5,.75"],
    ["-q", "-m", "dcg", "-m", "ideal_dcg", "-m", "ndcg", "-m", "num_q"],
    ["-q", "-c", "-m", "dcg.1=3,2=9,3=0.5"],  # 10.0 crashes with gains on two such measures
]


def random_cases() -> dict[str, dict[str, object]]:
    cases: dict[str, dict[str, object]] = {}
    for seed in range(48):
        options = OPTIONS[seed % len(OPTIONS)]
        missing = "-c" in options or seed % 8 == 3
        qrels, run = random_inputs(seed, comments=seed % 3 == 0, missing=missing)
        cases[f"random_{seed}"] = {"args": options, "qrels": qrels, "run": run,
                                   "stdin": seed % 7 == 5}
    return cases


#: The random cases' names; the quicktest lines are tests/trec_eval/test_trec_eval_10.py's.
CASES = tuple(random_cases())
#: The trec_eval these outputs are from.
VERSION = "10"


def outcome(command: Runner, name: str, directory: Path) -> dict[str, object]:
    """What ``command`` printed for random case ``name`` (its files named ``qrels`` and
    ``run``, as the binary was given them; ``-`` and the run on stdin where the case says)."""
    case = random_cases()[name]
    qrels, run = directory / "qrels", directory / "run"
    qrels.write_text(str(case["qrels"]))
    run.write_text(str(case["run"]))
    stdin = bool(case["stdin"])
    status, stdout, stderr = command(
        [*case["args"], str(qrels), "-" if stdin else str(run)],  # type: ignore[misc]
        str(case["run"]).encode() if stdin else b"",
    )
    named = stderr.replace(str(qrels).encode(), b"qrels").replace(str(run).encode(), b"run")
    return {"stdout": stdout.decode(), "stderr": named.decode(), "status": status}


def expected_outcomes() -> dict[str, dict[str, object]]:
    """What the 10.0 binary printed on each random case."""
    recorded = json.loads(EXPECTED.read_text())["random"]
    return {name: {k: case[k] for k in ("stdout", "stderr", "status")}
            for name, case in recorded.items()}


def main(binary: str) -> None:
    import tempfile

    out: dict[str, object] = {"quicktest": [], "random": {}}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        link_fixtures(work)
        for args, expected in QUICKTEST:
            got = subprocess.run([binary, *shlex.split(args)], cwd=work, capture_output=True,
                                 timeout=300, check=False)
            shipped = (work / "test" / expected).read_bytes()
            if got.returncode or got.stdout != shipped:
                raise SystemExit(f"the binary fails its quicktest line {args!r}")
            out["quicktest"].append({"args": args, "expected": expected})  # type: ignore[union-attr]
        for name, case in random_cases().items():
            with tempfile.TemporaryDirectory() as one:
                case.update(outcome(binary_runner(binary), name, Path(one)))
            out["random"][name] = case  # type: ignore[index]
    EXPECTED.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
