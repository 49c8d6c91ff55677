"""Peers of the scenarios in ``bench/scenarios.py``, one function per job, as a child process.

Usage::

    python bench/peer_jobs.py JOB QRELS RUN RUN_B
    python bench/peer_jobs.py sklearn-classify LABELS_CSV

Each job imports only its own libraries, reads the files itself (as its users would), does
the job and prints one line of JSON with the values it found, so that ``bench/run.py`` can time
it and show what it computed.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any


def ranx_compare(qrels: str, run: str, run_b: str) -> dict[str, Any]:
    """ranx: two runs against the judgments with ``ranx.compare`` (paired t-test).

    Both runs and the judgments are cut to the queries all three share, as ranx refuses
    differing query sets (see ``bench/peers.py``).
    """
    t0 = time.perf_counter()
    from ranx import Qrels, Run, compare

    q = Qrels.from_file(qrels, kind="trec")
    a = Run.from_file(run, kind="trec", name="a")
    b = Run.from_file(run_b, kind="trec", name="b")
    shared = set(q.qrels) & set(a.run) & set(b.run)
    for table in (q.qrels, a.run, b.run):
        for qid in [k for k in table if k not in shared]:
            del table[qid]
    t1 = time.perf_counter()
    report = compare(q, [a, b], ["precision@10", "recall@100"], stat_test="student")
    t2 = time.perf_counter()
    scores = report.to_dict()
    return {
        "values": {run_name: scores[run_name]["scores"] for run_name in ("a", "b")},
        "phases": {"read_s": t1 - t0, "eval_s": t2 - t1},
    }


def sklearn_classify(labels: str) -> dict[str, Any]:
    """pandas and scikit-learn: the labels file read with ``pandas.read_csv(engine="pyarrow")``
    (Arrow's multi-threaded CSV reader), then ``classification_report``: per-class precision,
    recall, F1 and support with the macro and weighted averages and accuracy."""
    t0 = time.perf_counter()
    import pandas as pd
    from sklearn.metrics import classification_report

    frame = pd.read_csv(labels, engine="pyarrow")
    t1 = time.perf_counter()
    report = classification_report(frame["true"], frame["pred"], output_dict=True, digits=4)
    t2 = time.perf_counter()
    return {
        "values": {"macro": report["macro avg"], "accuracy": report["accuracy"]},
        "phases": {"read_s": t1 - t0, "eval_s": t2 - t1},
    }


def _pytrec(qrels: str, run: str, measures: set[str]) -> dict[str, Any]:
    """pytrec_eval-terrier: its own readers, then RelevanceEvaluator over ``measures``."""
    t0 = time.perf_counter()
    import pytrec_eval

    with open(qrels) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run) as f:
        scores = pytrec_eval.parse_run(f)
    t1 = time.perf_counter()
    per_query = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(scores)
    keys = sorted({k for values in per_query.values() for k in values})
    values = {
        k: pytrec_eval.compute_aggregated_measure(k, [q[k] for q in per_query.values()])
        for k in keys
    }
    t2 = time.perf_counter()
    return {"values": values, "phases": {"read_s": t1 - t0, "eval_s": t2 - t1}}


def pytrec_ranked(qrels: str, run: str) -> dict[str, Any]:
    """pytrec_eval: AP and nDCG@10 (trec_eval's map and ndcg_cut_10)."""
    return _pytrec(qrels, run, {"map", "ndcg_cut_10"})


#: trec_eval's all_trec measures, by the names pytrec_eval takes.
ALL_TREC = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
    "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map",
    "set_F", "num_nonrel_judged_ret",
)


def pytrec_all_trec(qrels: str, run: str) -> dict[str, Any]:
    """pytrec_eval: every all_trec measure (what trec_eval -m all_trec computes)."""
    return _pytrec(qrels, run, set(ALL_TREC))


def ir_measures_ranked(qrels: str, run: str) -> dict[str, Any]:
    """ir_measures: AP and nDCG@10 through its default pipeline (pytrec_eval underneath)."""
    t0 = time.perf_counter()
    import ir_measures
    from ir_measures import AP, nDCG

    measures = [AP, nDCG @ 10]
    result = ir_measures.calc_aggregate(
        measures, ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run)
    )
    t1 = time.perf_counter()
    return {
        "values": {str(m): float(result[m]) for m in measures},
        "phases": {"read_s": None, "eval_s": t1 - t0},
    }


#: Job name -> (function, the files it reads, by name).
JOBS: dict[str, tuple[Callable[..., dict[str, Any]], tuple[str, ...]]] = {
    "ranx-compare": (ranx_compare, ("QRELS", "RUN", "RUN_B")),
    "sklearn-classify": (sklearn_classify, ("LABELS_CSV",)),
    "pytrec-ranked": (pytrec_ranked, ("QRELS", "RUN")),
    "pytrec-all-trec": (pytrec_all_trec, ("QRELS", "RUN")),
    "ir_measures-ranked": (ir_measures_ranked, ("QRELS", "RUN")),
}


def main(argv: list[str]) -> int:
    """Run one job and print its JSON report; return the exit status."""
    job = JOBS.get(argv[0]) if argv else None
    if job is None or len(argv) - 1 < len(job[1]):
        usage = " | ".join(f"{name} {' '.join(files)}" for name, (_, files) in JOBS.items())
        print(f"usage: peer_jobs.py {usage}", file=sys.stderr)
        return 2
    function, files = job
    report = function(*argv[1 : 1 + len(files)])
    json.dump({"job": argv[0], **report}, sys.stdout, default=float)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
