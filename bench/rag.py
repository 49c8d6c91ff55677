"""The retrieval engineer's loop: prfeval beside toolkit-rag-quality, in one run.

Usage::

    python bench/rag.py [--reps 3] [--queries 10000] [--docs 100] [--k 10] [--processes 3]
                        [-o FILE]

Generates seeded TREC files with ``bench/generate.py`` (``--queries`` x ``--docs`` run lines,
two runs, 5 to 50 judgments a query, under ``bench/data/rag-QxD/``, made once) and times, on
this machine in this one invocation, round robin (every job of both tools in rep 1, then rep
2, ...), the jobs a retrieval engineer repeats:

* scoring a run at one cutoff k: ``prfeval evaluate QRELS RUN -m "P@k R@k ndcg_cut_k
  map_cut_k recip_rank success_k" -c -M k -q --format json -o FILE`` beside ``toolkit-rag
  score --queries QRELS --retrieved RUN --k k --out FILE`` (both runs, so that the next jobs
  have saved reports to read);
* the CI gate: ``prfeval gate QRELS RUN RUN_B`` on the two runs (budgets of 2 % of the
  baseline's mean, then also ``--alpha 0.05``) beside ``prfeval compare`` on the same runs,
  and both tools' gate on their saved reports: ``prfeval gate QRELS A.json B.json`` and
  ``toolkit-rag compare --baseline A.json --candidate B.json`` with the same budgets
  (``--max-recall-regression-pct 2 --max-regression-pct 2``), then with ``--alpha 0.05``;
* one question at a time: ``prfeval.Evaluator`` (``add(qid, ranked_ids)`` per question, then
  ``result()``) beside collecting the ranked lists and calling toolkit-rag's ``score_run``,
  on the rankings of ``bench/incremental.py`` (``--queries`` questions of ``--docs``
  results), in a child process per tool, timed after one untimed pass;
* starting up, in fresh interpreters (``--processes`` per tool and rep):
  ``import prfeval`` and the first ``prfeval.evaluate`` on 1,000 x 100 dicts
  (``bench/import_cost.py``), beside ``import toolkit_rag_quality`` and its first
  ``score_run`` on the same dicts (as ranked lists, made before the clock starts).

Wall time is taken around each child, spawn to reaping; CPU time is the child's user + system
time from ``os.wait4`` (or, for the in-process jobs, ``time.process_time`` in the child).
The report gives medians, the ratio toolkit-rag / prfeval, the load average before and after,
the machine, the date and the prfeval commit.

Before anything is reported, the two tools' numbers are compared: every mean and every
query's value of the score reports (recall_at_k = R@k, precision_at_k = P@k, ndcg_at_k =
ndcg_cut_k, map_at_k = map_cut_k, mrr_at_k = recip_rank of the run cut at k, hit_rate_at_k =
success_k), the means of the one-question-at-a-time loop, and each measure's gate verdict.
Any disagreement is printed, and the exit status is then 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import children  # noqa: E402 (bench/children.py)
import import_cost  # noqa: E402 (bench/import_cost.py)
from trec_eval_drop_in import Timing  # noqa: E402 (the samples of one job: medians of each)

TOLERANCE = 1e-9
"""Largest difference between the two tools' values taken as agreement (sums in another
order differ by about 1e-15)."""

BUDGET_PCT = 2.0
"""Each gate's budget: a drop of 2 % of the baseline's mean (both tools' relative budget)."""

ALPHA = 0.05
"""The significance level of the gates run with a paired test."""

JUDGED = {"judged_min": 5, "judged_max": 50}
"""Judgments per query of the generated data: a RAG set judges a few passages a question,
not a TREC pool (``generate.py``'s default is 100 to 300)."""

#: toolkit-rag's summary key, its per-query field, and prfeval's measure at cutoff ``{k}``.
METRICS: tuple[tuple[str, str, str], ...] = (
    ("recall_at_k", "recall", "R@{k}"),
    ("precision_at_k", "precision", "P@{k}"),
    ("ndcg_at_k", "ndcg", "ndcg_cut_{k}"),
    ("map_at_k", "ap", "map_cut_{k}"),
    ("mrr_at_k", "mrr", "recip_rank"),
    ("hit_rate_at_k", "hit", "success_{k}"),
)

PRFEVAL = "prfeval"
TOOLKIT = "toolkit-rag"


def prfeval_measures(k: int) -> list[str]:
    """prfeval's names of toolkit-rag's six metrics at cutoff ``k`` (in ``METRICS`` order).

    ``recip_rank`` equals toolkit-rag's ``mrr_at_k`` only on rankings cut at k (``-M k``).
    """
    return [name.format(k=k) for _, _, name in METRICS]


# ------------------------------------------------------------------------------- agreement


@dataclass
class Agreement:
    """The outcome of comparing the two tools: how many values, the largest difference, and
    one line per disagreement (empty when they agree)."""

    values: int = 0
    largest_difference: float = 0.0
    problems: list[str] = field(default_factory=list)
    unit: str = "values"
    """What is compared: ``values`` (numbers, with a largest difference) or ``verdicts``."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def same(self, prfeval_value: Any, toolkit_value: Any, tol: float) -> bool:
        """Count one compared value; whether the two are numbers within ``tol``."""
        self.values += 1
        try:
            a, b = float(prfeval_value), float(toolkit_value)
        except (TypeError, ValueError):  # missing (None) or not a number
            return False
        diff = abs(a - b) if math.isfinite(a) and math.isfinite(b) else math.inf
        self.largest_difference = max(self.largest_difference, diff)
        return diff <= tol

    def check(self, what: str, prfeval_value: Any, toolkit_value: Any, tol: float) -> None:
        """Compare one value and record a problem when the two differ."""
        if not self.same(prfeval_value, toolkit_value, tol):
            self.problems.append(f"{what}: prfeval {prfeval_value!r}, toolkit-rag "
                                 f"{toolkit_value!r}")  # fmt: skip


def _predicate(envelope: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    """The predicate of a toolkit-rag report envelope of ``kind`` (a ``ValueError`` if not)."""
    predicate = envelope.get("predicate")
    if not isinstance(predicate, Mapping) or predicate.get("kind") != kind:
        raise ValueError(f"not a toolkit-rag {kind} report")
    return predicate


def macro_agreement(
    prfeval_macro: Mapping[str, float],
    toolkit_summary: Mapping[str, Any],
    k: int,
    tol: float = TOLERANCE,
    into: Agreement | None = None,
) -> Agreement:
    """Compare prfeval's means (``{measure: mean}``) with toolkit-rag's summary at ``k``."""
    out = into if into is not None else Agreement()
    if toolkit_summary.get("k") != k:
        out.problems.append(f"toolkit-rag scored at k={toolkit_summary.get('k')}, not {k}")
    for key, _, template in METRICS:
        name = template.format(k=k)
        out.check(f"mean {key} / {name}", prfeval_macro.get(name), toolkit_summary.get(key), tol)
    return out


def score_agreement(
    prfeval_json: Mapping[str, Any],
    toolkit_envelope: Mapping[str, Any],
    k: int,
    tol: float = TOLERANCE,
) -> Agreement:
    """Where ``prfeval evaluate`` and ``toolkit-rag score`` disagree on one run.

    Parameters
    ----------
    prfeval_json
        The JSON of ``prfeval evaluate QRELS RUN -m "<prfeval_measures(k)>" -c -M k -q
        --format json``: ``macro``, ``per_query``, ``queries`` and ``settings``.
    toolkit_envelope
        The report ``toolkit-rag score --k k --out FILE`` writes (an in-toto envelope whose
        predicate holds ``summary`` and ``details.per_query``).
    k
        The cutoff both were run at.
    tol
        Largest absolute difference taken as equal.

    Returns
    -------
    Agreement
        Compared: the settings that make the numbers comparable (prfeval's ``-c``, which
        averages over every judged query as toolkit-rag does, ``-M k``, and ranking by score
        with ties by doc id descending, as both do by default), the number of
        queries averaged, the two query sets, the six means, and each query's six values
        (toolkit-rag's ``hit`` is a boolean, compared as 0 or 1). A query's disagreement is
        reported once per metric, with the first few query ids.
    """
    out = Agreement()
    settings = prfeval_json.get("settings", {})
    if settings.get("max_results") != k or settings.get("complete") is not True:
        out.problems.append(
            f"prfeval was run with -M {settings.get('max_results')} and complete="
            f"{settings.get('complete')}; comparable numbers need -M {k} and -c"
        )
    if settings.get("order") != "score":  # toolkit-rag ranks by score, ties by doc id desc.
        out.problems.append(f"prfeval ranked by {settings.get('order')}, toolkit-rag by score")
    predicate = _predicate(toolkit_envelope, "rag.score")
    summary = predicate["summary"]
    macro_agreement(prfeval_json.get("macro", {}), summary, k, tol, into=out)
    evaluated = prfeval_json.get("queries", {}).get("evaluated")
    if evaluated != summary.get("queries"):
        out.problems.append(
            f"queries averaged: prfeval {evaluated}, toolkit-rag {summary.get('queries')}"
        )
    per_query: Mapping[str, Mapping[str, float]] = prfeval_json.get("per_query") or {}
    rows = {str(row["id"]): row for row in predicate.get("details", {}).get("per_query", [])}
    only_prfeval = sorted(set(per_query) - set(rows))
    only_toolkit = sorted(set(rows) - set(per_query))
    for who, ids in (("prfeval", only_prfeval), ("toolkit-rag", only_toolkit)):
        if ids:
            out.problems.append(f"{len(ids)} queries only {who} scored: {', '.join(ids[:5])}")
    shared = [q for q in per_query if q in rows]
    for _, row_field, template in METRICS:
        name = template.format(k=k)
        differ = []
        for q in shared:  # reported once per metric, not once per query
            if not out.same(per_query[q].get(name), rows[q].get(row_field), tol):
                differ.append(q)
        if differ:
            out.problems.append(
                f"{row_field} / {name}: {len(differ)} of {len(shared)} queries differ, e.g. "
                + ", ".join(f"{q} ({per_query[q].get(name)!r} vs {rows[q].get(row_field)!r})"
                            for q in differ[:3])
            )  # fmt: skip
    return out


def verdict_agreement(
    gate_json: Mapping[str, Any], toolkit_envelope: Mapping[str, Any], k: int
) -> Agreement:
    """Where ``prfeval gate --format json`` and ``toolkit-rag compare --out`` reach different
    verdicts: each of the six measures passed or failed, and the gate as a whole."""
    out = Agreement(unit="verdicts")
    summary = _predicate(toolkit_envelope, "rag.compare")["summary"]
    failed = {m["measure"]: bool(m["failed"]) for m in gate_json.get("measures", [])}
    for key, _, template in METRICS:
        name = template.format(k=k)
        out.values += 1
        theirs = summary.get("metrics", {}).get(key, {}).get("passed")
        mine = None if name not in failed else not failed[name]
        if mine is None or theirs is None or mine != theirs:
            out.problems.append(f"verdict of {name} / {key}: prfeval passed={mine}, "
                                f"toolkit-rag passed={theirs}")  # fmt: skip
    out.values += 1
    if (gate_json.get("status") == "pass") != bool(summary.get("passed")):
        out.problems.append(f"gate: prfeval {gate_json.get('status')}, toolkit-rag "
                            f"passed={summary.get('passed')}")  # fmt: skip
    return out


# ----------------------------------------------------------------------------- the commands


@dataclass(frozen=True)
class Files:
    """The generated inputs and the scratch folder the reports go to."""

    qrels: Path
    run: Path
    run_b: Path
    scratch: Path

    def out(self, name: str) -> Path:
        return self.scratch / name


def executable(name: str) -> str:
    """The console script ``name`` beside this interpreter (the venv's), else the name."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else name


def prfeval_score(files: Files, run: Path, k: int, out: Path) -> list[str]:
    """``prfeval evaluate`` of one run at ``k``, per-query values saved as JSON to ``out``."""
    return [executable("prfeval"), "evaluate", str(files.qrels), str(run), "-m",
            " ".join(prfeval_measures(k)), "-c", "-M", str(k), "--format", "json", "-q",
            "-o", str(out)]  # fmt: skip


def toolkit_score(files: Files, run: Path, k: int, out: Path) -> list[str]:
    """``toolkit-rag score`` of one run at ``k``; the report envelope goes to ``out`` (and its
    summary table to stdout, the shortest output it prints)."""
    return [executable("toolkit-rag"), "score", "--queries", str(files.qrels), "--retrieved",
            str(run), "--k", str(k), "--out", str(out), "--format", "table"]  # fmt: skip


def prfeval_gate(
    files: Files, baseline: Path, candidate: Path, k: int, out: Path, alpha: float | None
) -> list[str]:
    """``prfeval gate`` with a budget of ``BUDGET_PCT`` % on every measure."""
    cmd = [executable("prfeval"), "gate", str(files.qrels), str(baseline), str(candidate),
           "-m", " ".join(prfeval_measures(k)), "-c", "-M", str(k), "--max-drop",
           f"ALL={BUDGET_PCT:g}%", "--format", "json", "-o", str(out)]  # fmt: skip
    return cmd + ([] if alpha is None else ["--alpha", str(alpha)])


def prfeval_compare(files: Files, k: int, out: Path) -> list[str]:
    """``prfeval compare`` of the two runs on the gate's measures and settings."""
    return [executable("prfeval"), "compare", str(files.qrels), str(files.run),
            str(files.run_b), "-m", " ".join(prfeval_measures(k)), "-c", "-M", str(k),
            "--format", "json", "-o", str(out)]  # fmt: skip


def toolkit_compare(baseline: Path, candidate: Path, out: Path, alpha: float | None) -> list[str]:
    """``toolkit-rag compare`` of two saved score reports with budgets of ``BUDGET_PCT`` %."""
    cmd = [
        executable("toolkit-rag"),
        "compare",
        "--baseline",
        str(baseline),
        "--candidate",
        str(candidate),
        "--max-recall-regression-pct",
        f"{BUDGET_PCT:g}",
        "--max-regression-pct",
        f"{BUDGET_PCT:g}",
        "--out",
        str(out),
        "--format",
        "table",
    ]
    return cmd + ([] if alpha is None else ["--alpha", str(alpha)])


@dataclass(frozen=True)
class Job:
    """One timed child: which row of the report, which tool, the command, and the exit
    statuses that mean it ran (a gate that finds a regression exits 1 or 4 by design)."""

    row: str
    tool: str
    cmd: list[str]
    ok: frozenset[int] = frozenset({0})


#: Row key -> its label in the report, in the report's order.
ROWS: dict[str, str] = {
    "score_a": "score a run at k (`evaluate` / `score`)",
    "score_b": "score the second run",
    "gate_runs": "prfeval gate on the two runs, budgets",
    "gate_runs_alpha": "prfeval gate on the two runs, budgets + alpha",
    "compare_runs": "prfeval compare on the two runs",
    "gate_saved": "gate on the saved reports, budgets (`gate` / `compare`)",
    "gate_saved_alpha": "gate on the saved reports, budgets + alpha",
}


def file_jobs(files: Files, k: int, with_toolkit: bool) -> list[Job]:
    """The jobs on the files, in the order one rep runs them (each tool's saved reports are
    written before the gates that read them)."""
    gate_codes = frozenset({0, 1})
    jobs = [
        Job("score_a", PRFEVAL, prfeval_score(files, files.run, k, files.out("pf_a.json"))),
        Job("score_a", TOOLKIT, toolkit_score(files, files.run, k, files.out("tk_a.json"))),
        Job("score_b", PRFEVAL, prfeval_score(files, files.run_b, k, files.out("pf_b.json"))),
        Job("score_b", TOOLKIT, toolkit_score(files, files.run_b, k, files.out("tk_b.json"))),
        Job("gate_runs", PRFEVAL, prfeval_gate(files, files.run, files.run_b, k,
                                               files.out("gate_runs.json"), None), gate_codes),
        Job("gate_runs_alpha", PRFEVAL, prfeval_gate(files, files.run, files.run_b, k,
                                                     files.out("gate_runs_alpha.json"), ALPHA),
            gate_codes),
        Job("compare_runs", PRFEVAL, prfeval_compare(files, k, files.out("compare.json"))),
        Job("gate_saved", PRFEVAL, prfeval_gate(files, files.out("pf_a.json"),
                                                files.out("pf_b.json"), k,
                                                files.out("gate_saved.json"), None), gate_codes),
        Job("gate_saved", TOOLKIT, toolkit_compare(files.out("tk_a.json"), files.out("tk_b.json"),
                                                   files.out("tk_gate.json"), None),
            frozenset({0, 4})),
        Job("gate_saved_alpha", PRFEVAL, prfeval_gate(files, files.out("pf_a.json"),
                                                      files.out("pf_b.json"), k,
                                                      files.out("gate_saved_alpha.json"), ALPHA),
            gate_codes),
        Job("gate_saved_alpha", TOOLKIT, toolkit_compare(files.out("tk_a.json"),
                                                         files.out("tk_b.json"),
                                                         files.out("tk_gate_alpha.json"), ALPHA),
            frozenset({0, 4})),
    ]  # fmt: skip
    return [j for j in jobs if with_toolkit or j.tool == PRFEVAL]


# ---------------------------------------------------------------------- timing the children


@dataclass(frozen=True)
class Ran:
    """One child: wall and CPU seconds, exit status, and what it printed."""

    wall: float
    cpu: float
    status: int
    stdout: str
    stderr: str


def run_child(cmd: Sequence[str], timeout_s: float) -> Ran:
    """Run ``cmd`` as every benchmark script runs a child (``children.run_child``: output in
    temporary files, reaped with ``os.wait4`` for its own CPU time, killed after
    ``timeout_s``)."""
    s = children.run_child(cmd, timeout_s)
    return Ran(s.wall_s, s.cpu_s, s.returncode, s.stdout, s.stderr)


def tail(text: str, lines: int = 3) -> str:
    """The last lines of a child's stderr, for a failure's message."""
    return " | ".join(text.strip().splitlines()[-lines:])


# ------------------------------------------------------------------- the in-process children


LOOP_CHILDREN = ("loop-prfeval", "loop-toolkit")


def loop_child(which: str, queries: int, docs: int, k: int) -> dict[str, Any]:
    """One question at a time, in this process: one untimed pass, then one timed pass.

    The rankings are ``bench/incremental.py``'s (``build``: seeded, ``docs`` results a
    question, about 15 judged documents each), passed as ranked id lists, best first, to
    both tools: prfeval's ``Evaluator(qrels, measures, max_results=k, complete=True)`` gets
    ``add(qid, ranked_ids)`` per question and then ``result()``; toolkit-rag, which has no
    incremental API, gets the lists collected in a dict (the "add") and ``score_run(qrels=,
    run=, k=)`` (the "result"). Returns the seconds of each step, the CPU seconds of the
    adds and the result, and the means under prfeval's names.
    """
    import incremental

    qrels, rankings = incremental.build(queries, docs)
    measures = " ".join(prfeval_measures(k))
    if which == "loop-prfeval":
        import prfeval

        def one_pass() -> tuple[dict[str, float], dict[str, float]]:
            t0 = time.perf_counter()
            ev = prfeval.Evaluator(qrels, measures, max_results=k, complete=True)
            t1 = time.perf_counter()
            cpu = time.process_time()
            for q, ranked, _ in rankings:
                ev.add(q, ranked)
            t2 = time.perf_counter()
            macro = ev.result().macro
            t3 = time.perf_counter()
            cpu = time.process_time() - cpu
            return {"make": t1 - t0, "adds": t2 - t1, "result": t3 - t2, "cpu": cpu}, macro

    else:
        from toolkit_rag_quality.retrieval import score_run

        def one_pass() -> tuple[dict[str, float], dict[str, float]]:
            t1 = time.perf_counter()
            cpu = time.process_time()
            run: dict[str, list[str]] = {}
            for q, ranked, _ in rankings:
                run[q] = ranked
            t2 = time.perf_counter()
            summary = score_run(qrels=qrels, run=run, k=k).summary
            t3 = time.perf_counter()
            cpu = time.process_time() - cpu
            names = dict(zip(prfeval_measures(k), (key for key, _, _ in METRICS), strict=True))
            macro = {name: summary[key] for name, key in names.items()}
            return {"make": 0.0, "adds": t2 - t1, "result": t3 - t2, "cpu": cpu}, macro

    one_pass()  # warm-up: imports, first allocations
    times, macro = one_pass()
    return {**times, "macro": macro, "queries": queries}


TOOLKIT_IMPORT_CHILD = import_cost.DICTS + textwrap.dedent(
    """
    cutoff = {cutoff}
    ranked = {{q: sorted(s, key=lambda d: (s[d], d), reverse=True) for q, s in run.items()}}
    t0, c0 = time.perf_counter(), time.process_time()
    import toolkit_rag_quality
    from toolkit_rag_quality.retrieval import score_run
    t1 = time.perf_counter()
    r = score_run(qrels=qrels, run=ranked, k=cutoff)
    t2, c2 = time.perf_counter(), time.process_time()
    score_run(qrels=qrels, run=ranked, k=cutoff)
    t3 = time.perf_counter()
    print(json.dumps({{
        "import": t1 - t0, "first_call": t2 - t1, "second_call": t3 - t2, "cpu": c2 - c0,
        "queries": r.summary["queries"],
        "loaded": [m for m in {heavy!r} if m in sys.modules],
    }}))
    """
)
"""``bench/import_cost.py``'s child for toolkit-rag: the same dicts from the same random
draws (the run then ordered as trec_eval orders it, toolkit-rag's input being ranked lists),
then the timed ``import`` and first ``score_run`` at the cutoff."""


def toolkit_import_process(n_queries: int, per_query: int, k: int, cutoff: int) -> dict[str, Any]:
    """The start-up timings of one fresh interpreter importing toolkit-rag-quality."""
    code = TOOLKIT_IMPORT_CHILD.format(n_queries=n_queries, per_query=per_query, k=k,
                                       cutoff=cutoff, heavy=import_cost.HEAVY)  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=600)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


# -------------------------------------------------------------------------------- the report


def ensure_data(queries: int, docs: int) -> tuple[Path, dict[str, Any]]:
    """The generated files for ``queries`` x ``docs`` under ``bench/data/rag-QxD`` (kept when
    their ``meta.json`` is current) and that ``meta.json``."""
    import generate

    spec = generate.Spec(queries=queries, docs_per_query=docs, **JUDGED)
    out = BENCH / "data" / f"rag-{queries}x{docs}"
    meta = generate.current_meta(spec, out) or generate.write_dataset(spec, out)
    return out, meta


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def commit() -> str:
    """prfeval's commit, and whether ``src/`` differs from it (other work in the tree)."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "src")
    return f"{head}, with uncommitted changes in src/" if dirty else head


def machine() -> str:
    """OS, architecture, CPU model and count, memory, Python."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip() + ", "
                break
        kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:"))  # fmt: skip
        memory = f", {kib / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        memory = ""
    return (f"{platform.system()} {platform.machine()}, {model}{os.cpu_count()} CPUs{memory}, "
            f"Python {platform.python_version()}")  # fmt: skip


def _load(load: tuple[float, float, float]) -> str:
    return ", ".join(f"{x:.2f}" for x in load)


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None or b <= 0 else f"{a / b:.2f}x"


def _bytes(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n / 1024:.0f} KiB"


def _s(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


@dataclass
class Results:
    """Everything one invocation measured and checked."""

    timings: dict[tuple[str, str], Timing] = field(default_factory=dict)
    loops: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    imports: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    checks: dict[str, Agreement] = field(default_factory=dict)

    def wall(self, row: str, tool: str) -> float | None:
        t = self.timings.get((row, tool))
        return t.wall if t and t.walls else None

    def cpu(self, row: str, tool: str) -> float | None:
        t = self.timings.get((row, tool))
        return t.cpu if t and t.cpus else None


def run_all(args: argparse.Namespace, files: Files, with_toolkit: bool) -> Results:
    """Every job of both tools, ``args.reps`` times, round robin; then the checks."""

    res = Results()
    jobs = file_jobs(files, args.k, with_toolkit)
    loops = [c for c in LOOP_CHILDREN if with_toolkit or c == "loop-prfeval"]
    for rep in range(args.reps):
        label = f"rep {rep + 1}/{args.reps}"
        for job in jobs:
            ran = run_child(job.cmd, args.timeout)
            if ran.status not in job.ok:
                res.failures.append(f"{job.tool} {job.row} ({label}) exited {ran.status}: "
                                    f"{tail(ran.stderr)}")  # fmt: skip
                continue
            t = res.timings.setdefault((job.row, job.tool), Timing())
            t.walls.append(ran.wall)
            t.cpus.append(ran.cpu)
            print(f"  {label} {job.row:16} {job.tool:11} {ran.wall:8.3f} s  cpu {ran.cpu:8.3f} s",
                  file=sys.stderr)  # fmt: skip
        for which in loops:
            cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                which,
                "--queries",
                str(args.queries),
                "--docs",
                str(args.docs),
                "--k",
                str(args.k),
            ]
            ran = run_child(cmd, args.timeout)
            if ran.status != 0:
                res.failures.append(f"{which} ({label}) exited {ran.status}: {tail(ran.stderr)}")
                continue
            sample = json.loads(ran.stdout.strip().splitlines()[-1])
            res.loops.setdefault(which, []).append(sample)
            per_q = (sample["adds"] + sample["result"]) / sample["queries"] * 1e6
            print(f"  {label} {which:16} {per_q:8.2f} us a question", file=sys.stderr)
        for p in range(args.processes):
            seed = rep * args.processes + p
            starts = [(PRFEVAL, lambda s=seed: import_cost.one_process(1000, 100, s))]
            if with_toolkit:
                starts.append(
                    (TOOLKIT, lambda s=seed: toolkit_import_process(1000, 100, s, args.k))
                )
            for tool, start_up in starts:
                try:
                    res.imports.setdefault(tool, []).append(start_up())
                except (subprocess.SubprocessError, ValueError) as exc:
                    res.failures.append(f"{tool} start-up ({label}): {exc}")
        print(f"  {label} start-up: {args.processes} fresh processes a tool", file=sys.stderr)
    check(res, files, args.k, with_toolkit)
    return res


def check(res: Results, files: Files, k: int, with_toolkit: bool) -> None:
    """Compare the tools' outputs of the last rep (the same every rep: the inputs are)."""
    if not with_toolkit:
        return

    def read(name: str) -> Any:
        path = files.out(name)
        return json.loads(path.read_text()) if path.exists() else None

    for run, pf, tk in (("run", "pf_a.json", "tk_a.json"), ("run_b", "pf_b.json", "tk_b.json")):
        a, b = read(pf), read(tk)
        if a is not None and b is not None:
            res.checks[f"score of {run}.trec"] = score_agreement(a, b, k)
    for gate, tk in (("gate_saved.json", "tk_gate.json"),
                     ("gate_saved_alpha.json", "tk_gate_alpha.json")):  # fmt: skip
        a, b = read(gate), read(tk)
        if a is not None and b is not None:
            res.checks[f"verdicts, {gate.removesuffix('.json')}"] = verdict_agreement(a, b, k)
    for a_name, b_name in (("gate_runs.json", "gate_saved.json"),
                           ("gate_runs_alpha.json", "gate_saved_alpha.json")):  # fmt: skip
        a, b = read(a_name), read(b_name)
        if a is not None and b is not None:  # the gate reaches one verdict from runs or saves
            same = Agreement(values=len(a["measures"]), unit="verdicts")
            if [m["failed"] for m in a["measures"]] != [m["failed"] for m in b["measures"]]:
                same.problems.append(f"{a_name} and {b_name} differ")
            res.checks[f"prfeval {a_name} = {b_name}"] = same
    pf_loop, tk_loop = res.loops.get("loop-prfeval"), res.loops.get("loop-toolkit")
    if pf_loop and tk_loop:
        names = dict(zip(prfeval_measures(k), (key for key, _, _ in METRICS), strict=True))
        summary = {"k": k, **{key: tk_loop[-1]["macro"][name] for name, key in names.items()}}
        res.checks["one question at a time, means"] = macro_agreement(
            pf_loop[-1]["macro"], summary, k
        )


def command_lines(k: int, with_toolkit: bool) -> list[str]:
    """One markdown bullet per job, its command with placeholders for the paths."""
    files = Files(Path("QRELS"), Path("RUN"), Path("RUN_B"), Path("OUT"))
    names = {"OUT/pf_a.json": "A.json", "OUT/pf_b.json": "B.json", "OUT/tk_a.json": "A.json",
             "OUT/tk_b.json": "B.json"}  # fmt: skip
    lines = []
    for job in file_jobs(files, k, with_toolkit):
        words = [Path(job.cmd[0]).name, *(names.get(w, w) for w in job.cmd[1:])]
        lines.append(f"- {ROWS[job.row]}, {job.tool}: `{shlex.join(words)}`")
    return lines


def render(args: argparse.Namespace, meta: Mapping[str, Any], res: Results,
           loads: tuple[tuple[float, float, float], tuple[float, float, float]],
           with_toolkit: bool, started: dt.datetime) -> str:  # fmt: skip
    """The markdown report."""
    k = args.k
    lines = [
        f"### The retrieval engineer's loop ({started:%Y-%m-%d %H:%M} UTC)",
        "",
        f"Machine: {machine()}. prfeval {version('prfeval')} at commit {commit()}; "
        f"toolkit-rag-quality {version('toolkit-rag-quality')}; numpy {version('numpy')}, "
        f"pyarrow {version('pyarrow')}. Load average (1, 5, 15 min) before {_load(loads[0])}, "
        f"after {_load(loads[1])}.",
        "",
        f"Command: `python bench/rag.py --reps {args.reps} --queries {args.queries} --docs "
        f"{args.docs} --k {k} --processes {args.processes}`. Data: two runs of "
        f"{meta['run_lines']:,} lines ({args.queries:,} queries x {args.docs}, "
        f"{_bytes(meta['run_bytes'])} each), {meta['qrels_lines']:,} judgments "
        f"({JUDGED['judged_min']} to {JUDGED['judged_max']} a query), scores to 2 decimals "
        "(ties common). Median of "
        f"{args.reps} reps, round robin, page cache warm; CPU is the child's user + system "
        f"time. Measures at k = {k}: `{' '.join(prfeval_measures(k))}` with `-c -M {k}`; "
        f"gates: a drop of {BUDGET_PCT:g} % of the baseline's mean, then also alpha {ALPHA}.",
        "",
        "| job | prfeval wall (s) | CPU (s) | toolkit-rag wall (s) | CPU (s) "
        "| toolkit-rag / prfeval (wall) | (CPU) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row, label in ROWS.items():
        pw, pc, tw, tc = (res.wall(row, PRFEVAL), res.cpu(row, PRFEVAL), res.wall(row, TOOLKIT),
                          res.cpu(row, TOOLKIT))  # fmt: skip
        lines.append(f"| {label} | {_s(pw, 2)} | {_s(pc, 2)} | {_s(tw, 2)} | {_s(tc, 2)} | "
                     f"{_ratio(tw, pw)} | {_ratio(tc, pc)} |")  # fmt: skip
    for row, gate in (("gate_saved", "gate_runs"), ("gate_saved_alpha", "gate_runs_alpha")):
        parts = [res.wall(r, TOOLKIT) for r in ("score_a", "score_b", row)]
        cpus = [res.cpu(r, TOOLKIT) for r in ("score_a", "score_b", row)]
        tw = None if None in parts else sum(p for p in parts if p is not None)
        tc = None if None in cpus else sum(c for c in cpus if c is not None)
        pw, pc = res.wall(gate, PRFEVAL), res.cpu(gate, PRFEVAL)
        lines.append(f"| from two runs to a verdict{', + alpha' if 'alpha' in row else ''} "
                     f"(prfeval `gate` on the runs; toolkit-rag: 2 `score` + `compare`, sum of "
                     f"medians) | {_s(pw, 2)} | {_s(pc, 2)} | {_s(tw, 2)} | {_s(tc, 2)} | "
                     f"{_ratio(tw, pw)} | {_ratio(tc, pc)} |")  # fmt: skip
    lines += ["", "The commands (QRELS, RUN, RUN_B the generated files; A and B the saved reports "
              "of RUN and RUN_B):", "", *command_lines(k, with_toolkit)]  # fmt: skip
    gw, cw = res.wall("gate_runs", PRFEVAL), res.wall("compare_runs", PRFEVAL)
    gc, cc = res.cpu("gate_runs", PRFEVAL), res.cpu("compare_runs", PRFEVAL)
    aw, ac = res.wall("gate_runs_alpha", PRFEVAL), res.cpu("gate_runs_alpha", PRFEVAL)
    lines += ["", f"prfeval `gate` / `compare` on the same two runs: {_ratio(gw, cw)} (wall), "
              f"{_ratio(gc, cc)} (CPU); with alpha, {_ratio(aw, cw)} (wall), {_ratio(ac, cc)} "
              "(CPU)."]  # fmt: skip

    lines += ["", f"One question at a time ({args.queries:,} questions of {args.docs} ranked "
              f"results, median of {args.reps} child processes, each timed after one untimed "
              "pass):", "",
              "| tool | make (s) | adds (s) | result (s) | per question, wall (us) "
              "| per question, CPU (us) |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    per_q: dict[str, tuple[float, float]] = {}
    for which, label in (
        ("loop-prfeval", "prfeval `Evaluator.add` + `result()`"),
        ("loop-toolkit", "toolkit-rag lists in a dict + `score_run`"),
    ):
        samples = res.loops.get(which)
        if not samples:
            continue
        med = {
            key: statistics.median(s[key] for s in samples) for key in ("make", "adds", "result")
        }
        wall_q = statistics.median((s["adds"] + s["result"]) / s["queries"] for s in samples)
        cpu_q = statistics.median(s["cpu"] / s["queries"] for s in samples)
        per_q[which] = (wall_q, cpu_q)
        lines.append(f"| {label} | {_s(med['make'])} | {_s(med['adds'])} | {_s(med['result'])} "
                     f"| {wall_q * 1e6:.1f} | {cpu_q * 1e6:.1f} |")  # fmt: skip
    if len(per_q) == 2:
        (pw, pc), (tw, tc) = per_q["loop-prfeval"], per_q["loop-toolkit"]
        lines += ["", f"toolkit-rag / prfeval a question: {_ratio(tw, pw)} (wall), "
                  f"{_ratio(tc, pc)} (CPU)."]  # fmt: skip

    n = len(res.imports.get(PRFEVAL, []))
    lines += ["", f"Start-up ({n} fresh processes a tool, medians; 1,000 x 100 dicts built "
              "before the clock starts; prfeval's first call `evaluate(qrels, run, \"P@10 "
              f"recall@100\")` as `bench/import_cost.py` makes it, toolkit-rag's "
              f"`score_run(..., k={k})` on the same run as ranked lists):", "",
              "| tool | import (s) | first call (s) | import + first call (s) | its CPU (s) "
              "| second call (s) | heavy modules loaded |",
              "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]  # fmt: skip
    starts: dict[str, float] = {}
    for tool, label in ((PRFEVAL, "`import prfeval`"), (TOOLKIT, "`import toolkit_rag_quality`")):
        samples = res.imports.get(tool)
        if not samples:
            continue
        med = {
            key: statistics.median(s[key] for s in samples)
            for key in ("import", "first_call", "second_call", "cpu")
        }
        both = statistics.median(s["import"] + s["first_call"] for s in samples)
        starts[tool] = med["import"]
        loaded = ", ".join(sorted({m for s in samples for m in s["loaded"]})) or "none"
        lines.append(f"| {label} | {_s(med['import'])} | {_s(med['first_call'])} | {_s(both)} "
                     f"| {_s(med['cpu'])} | {_s(med['second_call'])} | {loaded} |")  # fmt: skip
    if len(starts) == 2:
        lines += ["", f"toolkit-rag / prfeval import: {_ratio(starts[TOOLKIT], starts[PRFEVAL])}."]

    lines += ["", "Agreement (tolerance 1e-9):", ""]
    if not with_toolkit:
        lines.append("- toolkit-rag-quality is not installed: nothing to compare with.")
    for name, agreement in res.checks.items():
        if agreement.ok and agreement.unit == "values":
            lines.append(f"- {name}: {agreement.values:,} values agree (largest difference "
                         f"{agreement.largest_difference:.1e}).")  # fmt: skip
        elif agreement.ok:
            lines.append(f"- {name}: {agreement.values} {agreement.unit} agree.")
        else:
            lines.append(f"- {name}: **{len(agreement.problems)} disagreements**")
            lines += [f"  - {p}" for p in agreement.problems[:20]]
    for failure in res.failures:
        lines.append(f"- FAILED: {failure}")
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=3, help="timed reps of every job (default 3)")
    p.add_argument("--queries", type=int, default=10_000, help="queries a run (default 10,000)")
    p.add_argument("--docs", type=int, default=100, help="results a query (default 100)")
    p.add_argument("--k", type=int, default=10, help="the cutoff of every measure (default 10)")
    p.add_argument(
        "--processes",
        type=int,
        default=3,
        help="fresh interpreters a tool and rep for the start-up times (default 3)",
    )
    p.add_argument("--timeout", type=float, default=900, help="seconds a child may take")
    p.add_argument("-o", "--output", type=Path, help="also write the report to this file")
    p.add_argument("--child", choices=LOOP_CHILDREN, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    for name in ("reps", "queries", "docs", "k", "processes"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        print(json.dumps(loop_child(args.child, args.queries, args.docs, args.k)))
        return 0
    with_toolkit = importlib.util.find_spec("toolkit_rag_quality") is not None
    if not with_toolkit:
        print("toolkit-rag-quality is not installed (pip install -e '.[bench]'): timing "
              "prfeval alone", file=sys.stderr)  # fmt: skip
    folder, meta = ensure_data(args.queries, args.docs)
    for name in ("qrels.trec", "run.trec", "run_b.trec"):  # page cache warm for both tools
        (folder / name).read_bytes()
    started = dt.datetime.now(dt.UTC)
    before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-rag-") as scratch:
        files = Files(folder / "qrels.trec", folder / "run.trec", folder / "run_b.trec",
                      Path(scratch))  # fmt: skip
        res = run_all(args, files, with_toolkit)
    after = os.getloadavg()
    text = render(args, meta, res, (before, after), with_toolkit, started)
    print(text)
    if args.output:
        args.output.write_text(text)
    ok = not res.failures and all(a.ok for a in res.checks.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
