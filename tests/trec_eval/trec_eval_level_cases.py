"""Random judgments and runs evaluated with a relevance level below 0, and what trec_eval
9.0.8 printed for each: the oracle of ``tests/trec_eval/test_trec_eval_level.py``.

trec_eval's ``-l -1`` reads unevenly: a retrieved document not in the judgments has the
value -1 and one judged with a negative grade -2, so the measures that test each rank
against the level count them as relevant, while R and the count of relevant documents
retrieved hold only grades of 0 or more. Each case here is drawn from a fixed seed: graded
judgments with negative grades, unjudged and tied documents, a level from -1 down, and
``-q``, ``-c``, ``-J`` and ``-M`` at random, over every measure of ``all_trec`` and the
other 9.0.8 measures of qrels (``yaap``, ``relstring``), with parameters; and trec_eval's
own test judgments with graded and negative grades, and with judgment groups.

``python tests/trec_eval/trec_eval_level_cases.py /path/to/trec_eval`` runs the built binary (9.0.8,
from usnistgov/trec_eval at tag v9.0.8) on every case and writes
``tests/data/trec_eval_908_level.json``: the argv (files named QRELS and RUN), stdout, stderr
and exit status. Only that output is committed, never the binary.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from support.recordings import Runner, recorded, write_expected

EXPECTED = Path(__file__).parents[1] / "data" / "trec_eval_908_level.json"

#: Measures beyond all_trec's defaults: other parameters, and 9.0.8's measures outside it.
_EXTRA = (
    ["-m", "P.1,3,7"],
    ["-m", "iprec_at_recall.0,0.3,0.5,1"],
    ["-m", "Rprec_mult.0.5,1.5,3"],
    ["-m", "11pt_avg.0.2,0.5,0.8"],
    ["-m", "success.1,2,4"],
    ["-m", "map_cut.2,6"],
    ["-m", "relative_P.2,8"],
    ["-m", "ndcg_cut.3,8"],
    ["-m", "recall.2,9"],
    ["-m", "utility.2,-1,-0.5,0.25"],
    ["-m", "set_F.0.5"],
    ["-m", "relstring.12"],
)


def _inputs(rng: random.Random, n_queries: int, all_negative: bool) -> tuple[bytes, bytes]:
    """Judgments with grades from -3 to 3 and a run of tied and unjudged documents.

    The first query (in byte order) has a grade of 0 or more: trec_eval stops at a first
    query without one. With ``all_negative`` a later query is judged only below 0. Every
    query has a grade of -1 or more: trec_eval 9.0.8 crashes (SIGSEGV) on a later query
    whose highest grade is below -1, whatever the level (it clears a negative number of
    bytes), and gives no answer to compare with there.
    """
    qrels, run = [], []
    for q in range(1, n_queries + 1):
        docs = sorted(rng.sample(range(30), rng.randint(1, 14)))
        negative_only = all_negative and q == n_queries
        grades = [
            rng.choice((-3, -2, -1)) if negative_only
            else rng.choice((-3, -2, -1, -1, 0, 0, 0, 1, 1, 2, 3))
            for _ in docs
        ]
        if q == 1:
            grades[0] = abs(grades[0])
        if max(grades) < -1:
            grades[0] = -1
        qrels += [b"%d 0 d%02d %d\n" % (q, d, g) for d, g in zip(docs, grades, strict=True)]
        depth = rng.randint(1, 16)
        for rank, d in enumerate(rng.sample(range(30), depth)):
            score = rng.choice((1.0, 0.5, 0.25)) if rng.random() < 0.3 else round(rng.random(), 2)
            run.append(b"%d Q0 d%02d %d %.2f lv\n" % (q, d, rank + 1, score))
    return b"".join(qrels), b"".join(run)


def _case(seed: int) -> tuple[bytes, bytes, list[str]]:
    rng = random.Random(seed)
    qrels, run = _inputs(rng, rng.randint(2, 6), all_negative=seed % 4 == 3)
    args = ["-l", str(rng.choice((-1, -1, -1, -2, -2, -3, -5)))]
    for flag in ("-q", "-c", "-J"):
        if rng.random() < 0.5:
            args.append(flag)
    if rng.random() < 0.35:
        args += ["-M", str(rng.randint(0, 10))]
    args += ["-m", "all_trec", "-m", "yaap", *rng.choice(_EXTRA), *rng.choice(_EXTRA)]
    return qrels, run, args


QUICKTEST = Path(__file__).parents[1] / "data" / "trec_eval_quicktest"


def _quick(qrels: str, args: list[str]) -> tuple[bytes, bytes, list[str]]:
    """trec_eval's own test judgments ``qrels`` and run, with ``args``."""
    return (QUICKTEST / qrels).read_bytes(), (QUICKTEST / "results.test").read_bytes(), args


#: name -> (qrels bytes, run bytes, arguments before the two files)
CASES: dict[str, tuple[bytes, bytes, list[str]]] = {
    **{f"random_{seed:02d}": _case(seed) for seed in range(40)},
    # trec_eval's test judgments with grades -1 to 4, and its judgment groups (-R qrels_jg).
    "quick_rel_level": _quick(
        "qrels.rel_level", ["-q", "-l", "-1", "-m", "all_trec", "-m", "yaap", "-m", "relstring"]
    ),
    "quick_rel_level_J": _quick("qrels.rel_level", ["-l", "-2", "-J", "-m", "all_trec"]),
    "quick_jg": _quick("qrels.123", ["-R", "qrels_jg", "-q", "-l", "-1", "-m", "qrels_jg"]),
    "quick_jg_c_M": _quick(
        "qrels.123", ["-R", "qrels_jg", "-c", "-M", "20", "-l", "-3", "-m", "qrels_jg"]
    ),
}


def materialise(directory: Path, name: str) -> tuple[Path, Path, list[str]]:
    """The case's judgments and run as files in ``directory``, and its arguments."""
    qrels_bytes, run_bytes, args = CASES[name]
    qrels, run = directory / "qrels", directory / "run"
    qrels.write_bytes(qrels_bytes)
    run.write_bytes(run_bytes)
    return qrels, run, args




def outcome(command: Runner, name: str, directory: Path) -> dict[str, object]:
    """What ``command`` printed for case ``name``, as the expected file records it (file
    paths in argv and messages replaced by QRELS and RUN)."""
    qrels, run, args = materialise(directory, name)
    return recorded(command, args, qrels, run)


if __name__ == "__main__":
    write_expected(sys.argv[1], CASES, outcome, EXPECTED)
