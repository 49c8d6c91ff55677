"""Scenarios beyond ``evaluate``: the other commands on the same data, beside their peers.

Each :class:`Scenario` is a command line job on the benchmark's files (the run, a second run
with perturbed scores, the judgments) and the contenders that do it: prfeval, and a peer
where one does the same job. ``bench/run.py`` times every contender as a child process, round
robin, in the same invocation as ``evaluate``, and reports each one's median wall time and
peak memory and its ratio to prfeval's own ``evaluate`` of the run (the yardstick the targets
are set against) measured in that same invocation.

Adding a scenario is one :class:`Scenario` in :data:`SCENARIOS`.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Files:
    """The files a scenario reads, and a scratch folder for what it writes."""

    qrels: Path
    run: Path
    run_b: Path
    scratch: Path
    labels: Path | None = None  # a classifier's true and predicted labels (CSV)


@dataclass(frozen=True)
class Contender:
    """One way to do a scenario's job: how to start it and what it needs."""

    name: str
    command: Callable[[Files], list[str]]
    missing: Callable[[], str | None] = lambda: None
    note: str = ""


@dataclass(frozen=True)
class Target:
    """A bound on ``contender``'s wall time (or peak memory) set by an issue.

    ``per`` is ``"evaluate"`` for a ratio to prfeval's evaluate of the run measured in the
    same invocation, ``"GiB"`` for an absolute peak memory, ``"s"`` for an absolute time, or
    ``"faster"`` for how many times faster ``contender`` is than the contender ``against``
    of the same scenario (then ``bound`` is a minimum), or ``"ratio"`` for ``contender``'s
    wall over ``against``'s (a maximum).
    """

    label: str
    contender: str
    bound: float
    per: str = "evaluate"
    measure: str = "wall"  # or "rss"
    against: str = ""


@dataclass(frozen=True)
class Scenario:
    """A job, its contenders and the targets it is held to."""

    name: str
    title: str
    contenders: tuple[Contender, ...]
    targets: tuple[Target, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


def prfeval_exe() -> str:
    """The prfeval command beside this interpreter, else the one on the PATH."""
    beside = Path(sys.executable).with_name("prfeval")
    return str(beside) if beside.exists() else (shutil.which("prfeval") or "prfeval")


def trec_eval_exe() -> str | None:
    """The trec_eval binary: ``$TREC_EVAL``, else ``trec_eval`` on the PATH (``None``: none)."""
    given = os.environ.get("TREC_EVAL")
    if given:
        return given if os.access(given, os.X_OK) else None
    return shutil.which("trec_eval")


def _trec_eval(*args: str) -> Callable[[Files], list[str]]:
    def command(files: Files) -> list[str]:
        return [trec_eval_exe() or "trec_eval", *args, str(files.qrels), str(files.run)]

    return command


def _trec_eval_missing() -> str | None:
    if trec_eval_exe() is None:
        return "no trec_eval binary (set TREC_EVAL=/path/to/trec_eval, or put it on the PATH)"
    return None


def _prfeval(*args: str) -> Callable[[Files], list[str]]:
    """``prfeval ARGS`` with ``{qrels}``, ``{run}``, ``{run_b}`` and ``{scratch}`` filled in."""

    def command(files: Files) -> list[str]:
        values = {
            "qrels": str(files.qrels),
            "run": str(files.run),
            "run_b": str(files.run_b),
            "scratch": str(files.scratch),
            "labels": str(files.labels),
        }
        return [prfeval_exe(), *(a.format(**values) for a in args)]

    return command


def _peer(tool: str, *extra: str) -> Callable[[Files], list[str]]:
    def command(files: Files) -> list[str]:
        args = [str(files.qrels), str(files.run), str(files.run_b), *extra]
        return [sys.executable, str(BENCH / "peer_jobs.py"), tool, *args]

    return command


def _labels_peer(tool: str) -> Callable[[Files], list[str]]:
    def command(files: Files) -> list[str]:
        return [sys.executable, str(BENCH / "peer_jobs.py"), tool, str(files.labels)]

    return command


def _modules_missing(*pairs: tuple[str, str]) -> Callable[[], str | None]:
    def check() -> str | None:
        for module, dist in pairs:
            reason = _module_missing(module, dist)()
            if reason:
                return reason
        return None

    return check


def _module_missing(module: str, dist: str) -> Callable[[], str | None]:
    def check() -> str | None:
        if importlib.util.find_spec(module) is None:
            return f"{dist} is not installed (pip install {dist}, or the `bench` extra)"
        return None

    return check


#: The set measures of the issue's yardstick, and the rank measures held to it.
SET_MEASURES = "P@10 R@100 SetF"
RANK_MEASURES = "AP nDCG@10"

SCENARIOS: dict[str, Scenario] = {
    "per_query": Scenario(
        "per_query",
        "`prfeval evaluate -q`: every query's values printed as a table, beside the summary",
        (
            Contender(
                f"prfeval {SET_MEASURES} (summary)",
                _prfeval(
                    "evaluate", "{qrels}", "{run}", "-m", SET_MEASURES,
                    "-o", "{scratch}/summary.txt",
                ),
                note="the yardstick: the summary table alone",
            ),
            Contender(
                f"prfeval {SET_MEASURES} -q",
                _prfeval(
                    "evaluate", "{qrels}", "{run}", "-m", SET_MEASURES, "-q",
                    "-o", "{scratch}/per_query.txt",
                ),
                note="the summary and a table of every query",
            ),
        ),
        (
            Target(
                "-q wall <= 1.25x the summary alone",
                f"prfeval {SET_MEASURES} -q",
                1.25,
                per="ratio",
                against=f"prfeval {SET_MEASURES} (summary)",
            ),
        ),
    ),
    "ranked": Scenario(
        "ranked",
        f'`prfeval evaluate -m "{RANK_MEASURES}"`: rank measures in the same pass as P@k',
        (
            Contender(
                f"prfeval {SET_MEASURES}",
                _prfeval(
                    "evaluate", "{qrels}", "{run}", "-m", SET_MEASURES, "--format", "json",
                    "-o", "{scratch}/set.json",
                ),
                note="the yardstick: set and top-k measures",
            ),
            Contender(
                f"prfeval {RANK_MEASURES}",
                _prfeval(
                    "evaluate", "{qrels}", "{run}", "-m", RANK_MEASURES, "--format", "json",
                    "-o", "{scratch}/ranked.json",
                ),
            ),
            Contender(
                "pytrec_eval map ndcg_cut_10",
                _peer("pytrec-ranked"),
                _module_missing("pytrec_eval", "pytrec-eval-terrier"),
                note="its own parse_qrel/parse_run, RelevanceEvaluator({map, ndcg_cut_10})",
            ),
            Contender(
                "ir_measures AP nDCG@10",
                _peer("ir_measures-ranked"),
                _module_missing("ir_measures", "ir-measures"),
                note="read_trec_qrels/read_trec_run, calc_aggregate([AP, nDCG@10]) "
                "(it runs pytrec_eval, and averages over every judged query)",
            ),
        ),
        (
            Target(
                f"{RANK_MEASURES} wall <= 1.3x {SET_MEASURES}",
                f"prfeval {RANK_MEASURES}",
                1.3,
                per="ratio",
                against=f"prfeval {SET_MEASURES}",
            ),
            Target(
                f"{RANK_MEASURES} >= 5x faster than pytrec_eval",
                f"prfeval {RANK_MEASURES}",
                5.0,
                per="faster",
                against="pytrec_eval map ndcg_cut_10",
            ),
        ),
    ),
    "all_trec": Scenario(
        "all_trec",
        "`prfeval trec_eval -m all_trec QRELS RUN`: every measure of trec_eval's all_trec",
        (
            Contender(
                f"prfeval {SET_MEASURES}",
                _prfeval(
                    "evaluate", "{qrels}", "{run}", "-m", SET_MEASURES, "--format", "json",
                    "-o", "{scratch}/set2.json",
                ),
                note="the yardstick: set and top-k measures",
            ),
            Contender(
                "prfeval trec_eval -m all_trec",
                _prfeval("trec_eval", "-m", "all_trec", "{qrels}", "{run}"),
                note="94 summary rows, printed as trec_eval prints them",
            ),
            Contender(
                "pytrec_eval all_trec",
                _peer("pytrec-all-trec"),
                _module_missing("pytrec_eval", "pytrec-eval-terrier"),
                note="RelevanceEvaluator with the 34 all_trec measures, averaged",
            ),
            Contender(
                "trec_eval -m all_trec",
                _trec_eval("-m", "all_trec"),
                _trec_eval_missing,
            ),
            Contender(
                "prfeval trec_eval -q -m all_trec",
                _prfeval(
                    "trec_eval", "-q", "-m", "all_trec", "{qrels}", "{run}",
                ),
                note="about 100 rows a query as well (see bench/trec_eval_drop_in.py)",
            ),
            Contender(
                "trec_eval -q -m all_trec",
                _trec_eval("-q", "-m", "all_trec"),
                _trec_eval_missing,
            ),
        ),
        (
            Target(
                f"all_trec wall <= 3x {SET_MEASURES}",
                "prfeval trec_eval -m all_trec",
                3.0,
                per="ratio",
                against=f"prfeval {SET_MEASURES}",
            ),
            Target(
                "all_trec faster than pytrec_eval",
                "prfeval trec_eval -m all_trec",
                1.0,
                per="faster",
                against="pytrec_eval all_trec",
            ),
            Target(
                "trec_eval -q -m all_trec >= 3x faster than the binary",
                "prfeval trec_eval -q -m all_trec",
                3.0,
                per="faster",
                against="trec_eval -q -m all_trec",
            ),
        ),
    ),
    "report": Scenario(
        "report",
        "`prfeval report QRELS RUN RUN_B -o report.html`: two runs, one self-contained page",
        (
            Contender(
                "prfeval report",
                _prfeval(
                    "report", "{qrels}", "{run}", "{run_b}", "-m", "P@10 R@100",
                    "-o", "{scratch}/report.html",
                ),
                note="drill-down depth 100; the page's size is in the scratch folder",
            ),
        ),
        (
            Target(
                "report of two runs <= 3x evaluating both (6x one evaluate)",
                "prfeval report",
                6.0,
            ),
        ),
    ),
    "bounds": Scenario(
        "bounds",
        "`prfeval evaluate --bounds`: every measure under both unjudged rules, in one pass",
        (
            Contender(
                "prfeval evaluate --bounds",
                _prfeval(
                    "evaluate", "{qrels}", "{run}", "-m", "P@10 R@100 SetP SetR SetF",
                    "--bounds", "--format", "json", "-o", "{scratch}/b.json",
                ),
            ),
        ),
        (Target("--bounds wall <= 1.5x evaluate", "prfeval evaluate --bounds", 1.5),),
    ),
    "explain": Scenario(
        "explain",
        "`prfeval explain QRELS RUN --query 7`: one query of the run, read in bounded memory",
        (
            Contender(
                "prfeval explain",
                _prfeval(
                    "explain", "{qrels}", "{run}", "--query", "7", "-m", "P@10 R@100",
                    "--format", "json", "-o", "{scratch}/x.json",
                ),
            ),
        ),
        (
            Target("explain wall < 2x evaluate", "prfeval explain", 2.0),
            Target("explain peak RSS < 0.6 GiB", "prfeval explain", 0.6, per="GiB", measure="rss"),
        ),
    ),
    "curve": Scenario(
        "curve",
        "`prfeval curve QRELS RUN`: P, R and F at every cutoff, the averages table",
        (
            Contender(
                "prfeval curve", _prfeval("curve", "{qrels}", "{run}", "-o", "{scratch}/c.txt")
            ),
        ),
        (
            Target("curve wall <= 2.5x evaluate", "prfeval curve", 2.5),
            Target("curve peak RSS < 0.6 GiB", "prfeval curve", 0.6, per="GiB", measure="rss"),
        ),
    ),
    "curve-csv": Scenario(
        "curve-csv",
        "`prfeval curve QRELS RUN --format csv`: every k of every query, written as CSV",
        (
            Contender(
                "prfeval curve csv",
                _prfeval("curve", "{qrels}", "{run}", "--format", "csv", "-o", "{scratch}/c.csv"),
            ),
        ),
        (Target("curve csv wall <= 60 s (was 58 s)", "prfeval curve csv", 60, per="s"),),
    ),
    "compare": Scenario(
        "compare",
        '`prfeval compare QRELS RUN_A RUN_B -m "P@10 R@100"`: two runs, paired tests',
        (
            Contender(
                "prfeval compare",
                _prfeval(
                    "compare",
                    "{qrels}",
                    "{run}",
                    "{run_b}",
                    "-m",
                    "P@10 R@100",
                    "--format",
                    "json",
                    "-o",
                    "{scratch}/cmp.json",
                ),
                note="randomization test (10,000 sign flips) and bootstrap CIs (10,000 resamples)",
            ),
            Contender(
                "ranx compare",
                _peer("ranx-compare"),
                _module_missing("ranx", "ranx"),
                note="ranx.compare with a paired t-test (its fastest), both runs from files",
            ),
        ),
        (
            Target("compare wall <= 3.5x evaluate", "prfeval compare", 3.5),
            Target("compare peak RSS < 0.6 GiB", "prfeval compare", 0.6, per="GiB", measure="rss"),
        ),
    ),
    "classify": Scenario(
        "classify",
        "`prfeval classify LABELS.csv`: 5,000,000 labels of 10 classes, end to end from the file",
        (
            Contender(
                "prfeval classify",
                _prfeval("classify", "{labels}", "--format", "json", "-o", "{scratch}/cls.json"),
                note="confusion matrix, per-class and averaged P/R/F and the no-skill baseline",
            ),
            Contender(
                "pandas + sklearn",
                _labels_peer("sklearn-classify"),
                _modules_missing(("pandas", "pandas"), ("sklearn", "scikit-learn")),
                note="pandas.read_csv(engine='pyarrow'), then classification_report",
            ),
        ),
        (
            Target(
                "classify >= 3x faster than pandas + sklearn",
                "prfeval classify",
                3.0,
                per="faster",
                against="pandas + sklearn",
            ),
        ),
    ),
}

#: Scenarios that read the labels file rather than the run.
LABEL_SCENARIOS = frozenset({"classify"})


# ----------------------------------------------------------------------------- running them


@dataclass
class ContenderResult:
    """The samples of one contender of one scenario."""

    scenario: str
    name: str
    status: str = "ok"  # ok | skipped | failed
    reason: str = ""
    walls: list[float] = field(default_factory=list)
    rss: list[int] = field(default_factory=list)

    @property
    def wall(self) -> float | None:
        return _median(self.walls)

    @property
    def peak(self) -> float | None:
        return _median([float(r) for r in self.rss])


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def bench_scenarios(
    names: list[str],
    files: Files,
    reps: int,
    warmup: int,
    run_child: Callable[[list[str], float], object],
    timeout_s: float,
) -> list[ContenderResult]:
    """Time every contender of the named scenarios, round robin over repetitions."""
    results = []
    for scenario in (SCENARIOS[n] for n in names):
        for c in scenario.contenders:
            reason = c.missing()
            results.append(
                ContenderResult(scenario.name, c.name, "skipped" if reason else "ok", reason or "")
            )
    contenders = {
        (s.name, c.name): c for s in (SCENARIOS[n] for n in names) for c in s.contenders
    }
    live = [r for r in results if r.status == "ok"]
    files.scratch.mkdir(parents=True, exist_ok=True)
    for rep in range(-warmup, reps):
        for r in list(live):
            sample: Any = run_child(contenders[(r.scenario, r.name)].command(files), timeout_s)
            label = "warm-up" if rep < 0 else f"rep {rep + 1}/{reps}"
            if sample.returncode != 0 or sample.timed_out:
                r.status = "failed"
                tail = " | ".join(sample.stderr.strip().splitlines()[-3:])
                r.reason = "timed out" if sample.timed_out else f"exit {sample.returncode}: {tail}"
                live.remove(r)
                print(f"  {r.name:20} {label:9} FAILED: {r.reason}", file=sys.stderr)
                continue
            print(
                f"  {r.name:20} {label:9} {sample.wall_s:8.2f} s "
                f"{sample.max_rss_bytes / 2**20:9.0f} MiB",
                file=sys.stderr,
            )
            if rep >= 0:
                r.walls.append(sample.wall_s)
                r.rss.append(sample.max_rss_bytes)
    return results


def render_scenarios(
    names: list[str], results: list[ContenderResult], evaluate_wall: float | None
) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The markdown lines of the scenarios, and their target rows (target, measured, verdict)."""
    lines: list[str] = []
    rows: list[tuple[str, str, str]] = []
    by_name = {(r.scenario, r.name): r for r in results}
    for scenario in (SCENARIOS[n] for n in names):
        lines += [
            "",
            f"### {scenario.title}",
            "",
            "| contender | median wall (s) | peak RSS (MiB) | wall / prfeval evaluate |",
            "| --- | ---: | ---: | ---: |",
        ]
        for c in scenario.contenders:
            r = by_name[(scenario.name, c.name)]
            if r.status != "ok":
                lines.append(f"| {c.name} | {r.status}: {r.reason} | | |")
                continue
            ratio = r.wall / evaluate_wall if (r.wall and evaluate_wall) else None
            if scenario.name in LABEL_SCENARIOS:
                ratio = None  # another job on other data: no yardstick in evaluate
            lines.append(
                f"| {c.name} | {r.wall:.2f} | {r.peak / 2**20:.0f} | "
                f"{'n/a' if ratio is None else f'{ratio:.2f}x'} |"
            )
        lines += [f"- {c.name}: {c.note}" for c in scenario.contenders if c.note]
        for t in scenario.targets:
            r = by_name[(scenario.name, t.contender)]
            value: float | None = None
            if r.status == "ok":
                raw = r.wall if t.measure == "wall" else r.peak
                if raw is not None:
                    if t.per == "evaluate":
                        value = raw / evaluate_wall if evaluate_wall else None
                    elif t.per == "GiB":
                        value = raw / 2**30
                    elif t.per in ("faster", "ratio"):
                        other = by_name[(scenario.name, t.against)]
                        if other.status == "ok" and other.wall:
                            value = other.wall / raw if t.per == "faster" else raw / other.wall
                    else:
                        value = raw
            unit = {"evaluate": "x", "GiB": " GiB", "s": " s", "faster": "x faster", "ratio": "x"}[
                t.per
            ]
            shown = "n/a" if value is None else f"{value:.2f}{unit}"
            ok = value is not None and (value >= t.bound if t.per == "faster" else value <= t.bound)
            verdict = "n/a" if value is None else ("PASS" if ok else "FAIL")
            rows.append((t.label, shown, verdict))
    return lines, rows
