"""One benchmarked tool, end to end from the files, as its users would call it.

Usage::

    python bench/peers.py TOOL QRELS RUN

``bench/run.py`` starts this script once per tool and repetition, as a child process, so that
the wall time and the peak memory it measures belong to that tool alone (interpreter start-up
and imports included, as a user pays them). The script prints one JSON object on stdout::

    {"tool": ..., "version": ..., "values": {"P@10": ..., ...}, "n_queries": ...,
     "phases": {"read_s": ..., "eval_s": ...}}

``values`` are macro averages over the queries present in both the run and the judgments
(trec_eval's default), under the canonical names of ``MEASURES``. Each tool imports only its own
libraries, inside its function, so no tool pays for another's imports.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

MEASURES: tuple[str, ...] = ("P@10", "R@100", "SetP", "SetR", "SetF")
"""The measures every tool computes, in prfeval's spelling."""

TREC_EVAL_NAMES: dict[str, str] = {
    "P@10": "P_10",
    "R@100": "recall_100",
    "SetP": "set_P",
    "SetR": "set_recall",
    "SetF": "set_F",
}
"""prfeval's name -> trec_eval's (and pytrec_eval's) name of the same measure."""

RANX_NAMES: dict[str, str] = {
    "P@10": "precision@10",
    "R@100": "recall@100",
    "SetP": "precision",
    "SetR": "recall",
    "SetF": "f1",
}
"""prfeval's name -> ranx's metric. Without ``@k`` ranx takes the whole retrieved list."""

ALIASES: dict[str, tuple[str, ...]] = {
    "P@10": ("P@10", "P_10", "precision@10"),
    "R@100": ("R@100", "recall_100", "recall@100"),
    "SetP": ("SetP", "set_P"),
    "SetR": ("SetR", "set_recall"),
    "SetF": ("SetF", "set_F", "SetF(beta=1)"),
}
"""Names a tool might print for each measure, so results from any of them line up."""


def normalise(values: Mapping[str, Any]) -> dict[str, float]:
    """Map a tool's ``{name: value}`` onto ``MEASURES``; measures it lacks are left out."""
    out: dict[str, float] = {}
    for name in MEASURES:
        for alias in ALIASES[name]:
            if alias in values:
                value = values[alias]
                if isinstance(value, Mapping):  # e.g. {"value": ..., "n": ...}
                    value = value.get("value", value.get("mean"))
                out[name] = float(value)
                break
    return out


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def polars_floor(qrels: str, run: str) -> dict[str, Any]:
    """Read the run's six columns with polars and nothing else: the floor for a Python tool."""
    t0 = time.perf_counter()
    import polars as pl

    schema = {
        "qid": pl.String,
        "q0": pl.String,
        "docid": pl.String,
        "rank": pl.Int64,
        "score": pl.Float64,
        "tag": pl.String,
    }
    frame = pl.read_csv(run, separator=" ", has_header=False, schema=schema)
    t1 = time.perf_counter()
    return {
        "version": _version("polars"),
        "values": {},
        "n_rows": frame.height,
        "phases": {"read_s": t1 - t0, "eval_s": 0.0},
    }


def pytrec_eval_tool(qrels: str, run: str) -> dict[str, Any]:
    """pytrec_eval-terrier: its own ``parse_qrel``/``parse_run``, then ``RelevanceEvaluator``."""
    t0 = time.perf_counter()
    import pytrec_eval

    with open(qrels) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run) as f:
        scores = pytrec_eval.parse_run(f)
    t1 = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, set(TREC_EVAL_NAMES.values()))
    per_query = evaluator.evaluate(scores)
    values = {
        name: sum(q[trec] for q in per_query.values()) / len(per_query)
        for name, trec in TREC_EVAL_NAMES.items()
    }
    t2 = time.perf_counter()
    return {
        "version": _version("pytrec-eval-terrier"),
        "values": values,
        "n_queries": len(per_query),
        "phases": {"read_s": t1 - t0, "eval_s": t2 - t1},
    }


def ir_measures_tool(qrels: str, run: str) -> dict[str, Any]:
    """ir_measures: ``read_trec_qrels``/``read_trec_run`` and ``calc_aggregate``."""
    t0 = time.perf_counter()
    import ir_measures
    from ir_measures import P, R, SetF, SetP, SetR

    measures = {"P@10": P @ 10, "R@100": R @ 100, "SetP": SetP, "SetR": SetR, "SetF": SetF}
    qrel_iter = ir_measures.read_trec_qrels(qrels)
    run_iter = ir_measures.read_trec_run(run)
    # ir_measures reads lazily inside calc_aggregate: reading and evaluating are one phase.
    result = ir_measures.calc_aggregate(list(measures.values()), qrel_iter, run_iter)
    values = {name: float(result[m]) for name, m in measures.items()}
    t1 = time.perf_counter()
    return {
        "version": _version("ir-measures"),
        "values": values,
        "n_queries": None,
        "phases": {"read_s": None, "eval_s": t1 - t0},
    }


def ranx_tool(qrels: str, run: str) -> dict[str, Any]:
    """ranx: ``Qrels.from_file``/``Run.from_file``, restricted to the shared queries, ``evaluate``.

    ranx refuses a run and judgments whose query sets differ; its ``make_comparable`` would
    score judged queries missing from the run as 0, which is trec_eval's ``-c``, not its
    default. So both sides are cut to the shared queries first, as trec_eval averages.
    """
    t0 = time.perf_counter()
    from ranx import Qrels, Run, evaluate

    q = Qrels.from_file(qrels, kind="trec")
    r = Run.from_file(run, kind="trec")
    t1 = time.perf_counter()
    shared = set(q.qrels.keys()) & set(r.run.keys())
    for qid in [k for k in q.qrels if k not in shared]:
        del q.qrels[qid]
    for qid in [k for k in r.run if k not in shared]:
        del r.run[qid]
    result = evaluate(q, r, list(RANX_NAMES.values()), save_results_in_run=False)
    values = {name: float(result[m]) for name, m in RANX_NAMES.items()}
    t2 = time.perf_counter()
    return {
        "version": _version("ranx"),
        "values": values,
        "n_queries": len(shared),
        "phases": {"read_s": t1 - t0, "eval_s": t2 - t1},
    }


TOOLS: dict[str, Callable[[str, str], dict[str, Any]]] = {
    "polars": polars_floor,
    "pytrec_eval": pytrec_eval_tool,
    "ir_measures": ir_measures_tool,
    "ranx": ranx_tool,
}


def main(argv: list[str]) -> int:
    """Run one tool on one pair of files and print its JSON report; return the exit status."""
    if len(argv) != 3 or argv[0] not in TOOLS:
        print(f"usage: peers.py {{{','.join(TOOLS)}}} QRELS RUN", file=sys.stderr)
        return 2
    tool, qrels, run = argv
    report = TOOLS[tool](qrels, run)
    report["tool"] = tool
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
