"""Time prfeval and its peers on the same files, in the same run, and check they agree.

Usage::

    python bench/run.py [--size {tiny,small,1m,10m,20m}] [--reps 3] [--warmup 1]
                        [--tools polars,prfeval,...] [--no-loop] [--loop-only]
                        [--scenarios curve,compare,classify,...] [--label-items 5000000]

What it does, for the chosen size:

1. generates the seeded run and judgments under ``bench/data/SIZE`` (once; ``meta.json``
   records the parameters), and reads both files once so the page cache is warm for everyone;
2. runs every tool as its own child process, end to end from the files, ``--warmup`` untimed
   times and then ``--reps`` timed times, round robin so drift in the machine hits every tool
   alike: the polars read of the run's columns (the floor), the prfeval CLI (in memory and
   ``--stream``), pytrec_eval-terrier, ir_measures, ranx and, when it is on the PATH, trec_eval;
3. reports per tool the median wall time, the median peak RSS and the ratios the speed issue
   sets targets on, and checks that every tool printed the same macro values;
4. measures the small-evaluation loop: ``import prfeval``, ``prfeval.evaluate`` on in-memory
   dicts against pytrec_eval, and the CLI on a 100-line run;
5. prints a markdown report and writes it, with all samples as JSON, to
   ``bench/results/SIZE.{md,json}`` and ``bench/results/latest.{md,json}``.

How it measures. Wall time is taken by this script around each child, from spawn to reaping,
so interpreter start-up and imports count, as they do for a user. Peak memory is the child's
own ``ru_maxrss`` as the kernel reports it to ``os.wait4`` for exactly that process (the peak
resident set, shared library pages included; KiB on Linux, bytes on macOS): not a delta of
``RUSAGE_CHILDREN``, which only ever holds the largest child so far, and with no sampling that
could miss a short peak. A tool that is not installed is skipped with a note; one that fails
is reported with the tail of its stderr, and the rest of the benchmark goes on.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import resource
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from children import Sample, run_child
from peers import MEASURES, TREC_EVAL_NAMES, normalise
from scenarios import LABEL_SCENARIOS, SCENARIOS, Files, bench_scenarios, render_scenarios

BENCH = Path(__file__).resolve().parent

SIZES: dict[str, list[str]] = {
    "tiny": [
        "--queries",
        "10",
        "--docs-per-query",
        "10",
        "--judged-min",
        "5",
        "--judged-max",
        "20",
    ],
    "small": ["--queries", "1000", "--docs-per-query", "100"],
    "1m": ["--queries", "1000", "--docs-per-query", "1000"],
    "10m": ["--queries", "10000", "--docs-per-query", "1000"],
    "20m": ["--queries", "20000", "--docs-per-query", "1000"],
}
"""The data sets by name, as ``generate.py`` arguments: 100 lines (the CLI's start-up), 100k,
1M, 10M and 20M lines. The other parameters keep ``generate.Spec``'s defaults."""

MEASURE_ARG = " ".join(MEASURES)
MIB = 1024 * 1024
HEAVY_MODULES = (
    "numpy",
    "pyarrow",
    "pandas",
    "polars",
    "scipy",
    "matplotlib",
    "sklearn",
    "numba",
    "rich",
    "click",
)
"""Modules whose presence after ``import prfeval`` the report lists."""


# --------------------------------------------------------------------------- child processes


def ensure_data(size: str, seed: int, data_dir: Path, timeout_s: float) -> dict[str, Any]:
    """Generate the data set ``size`` under ``data_dir/size`` unless it is current; its meta.

    ``generate.py`` runs as a child so that numpy and the generated arrays never enter this
    process: a child's peak RSS as the kernel reports it is never below its parent's peak at
    the fork (Linux carries the old address space's high-water mark across ``exec``), so this
    process must stay small for the figures of small children to be exact.
    """
    folder = data_dir / size
    cmd = [sys.executable, str(BENCH / "generate.py"), *SIZES[size]]
    cmd += ["--seed", str(seed), "--out", str(folder), "--reuse"]
    sample = run_child(cmd, timeout_s)
    if sample.returncode != 0:
        raise SystemExit(f"run.py: generating {folder} failed: {tail(sample.stderr)}")
    meta: dict[str, Any] = json.loads((folder / "meta.json").read_text())
    return meta


def ensure_labels(items: int, seed: int, data_dir: Path, timeout_s: float) -> Path:
    """The classify benchmark's labels file (``items`` labels of 10 classes), generated
    under ``data_dir/labels-ITEMS`` unless it is current; generated in a child, as
    :func:`ensure_data` does, so that this process stays small."""
    folder = data_dir / f"labels-{items}"
    cmd = [sys.executable, str(BENCH / "generate_labels.py"), "--items", str(items)]
    cmd += ["--classes", "10", "--seed", str(seed), "--out", str(folder), "--reuse"]
    sample = run_child(cmd, timeout_s)
    if sample.returncode != 0:
        raise SystemExit(f"run.py: generating {folder} failed: {tail(sample.stderr)}")
    return folder / "labels.csv"


def tail(text: str, lines: int = 5) -> str:
    """The last ``lines`` non-empty lines of ``text``, joined with `` | `` for a table cell."""
    kept = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(kept[-lines:])


# --------------------------------------------------------------------------- the tools


@dataclass(frozen=True)
class Tool:
    """A benchmarked tool: how to start it, how to read its values, what to expect of them.

    ``query_set`` says over which queries the tool averages by default: ``"shared"`` (in both
    the run and the judgments, trec_eval's default) or ``"judged"`` (every judged query,
    missing ones scoring 0: trec_eval's ``-c``).
    """

    name: str
    missing: Callable[[], str | None]
    command: Callable[[Path, Path, Path], list[str]]
    values: Callable[[Sample, Path], dict[str, Any]]
    query_set: str = "shared"
    ties_differ: bool = False
    note: str = ""


def _module_missing(module: str, dist: str) -> Callable[[], str | None]:
    def check() -> str | None:
        if importlib.util.find_spec(module) is None:
            return f"{dist} is not installed (pip install {dist}, or the `bench` extra)"
        return None

    return check


def _prfeval_exe() -> str | None:
    beside = Path(sys.executable).with_name("prfeval")
    if beside.exists():
        return str(beside)
    return shutil.which("prfeval")


def compile_prfeval() -> None:
    """Write prfeval's bytecode, as ``pip install`` does for the peers' wheels.

    An editable install has none, and with ``PYTHONDONTWRITEBYTECODE`` set (as on some CI
    machines) every run would compile prfeval's modules again: about 0.03 s that a user's
    installed copy never pays.
    """
    spec = importlib.util.find_spec("prfeval")
    if spec is None or not spec.submodule_search_locations:
        return
    import compileall

    for folder in spec.submodule_search_locations:
        compileall.compile_dir(folder, quiet=1)


def _prfeval_missing() -> str | None:
    if importlib.util.find_spec("prfeval") is None:
        return "prfeval is not installed (pip install -e .)"
    if _prfeval_exe() is None:
        return "the prfeval command is not on the PATH"
    return None


def _peer_command(tool: str) -> Callable[[Path, Path, Path], list[str]]:
    def command(qrels: Path, run: Path, out: Path) -> list[str]:
        return [sys.executable, str(BENCH / "peers.py"), tool, str(qrels), str(run)]

    return command


def _peer_values(sample: Sample, out: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(sample.stdout.strip().splitlines()[-1])
    return report


def _prfeval_command(*extra: str) -> Callable[[Path, Path, Path], list[str]]:
    def command(qrels: Path, run: Path, out: Path) -> list[str]:
        exe = _prfeval_exe() or "prfeval"
        args = ["evaluate", str(qrels), str(run), "-m", MEASURE_ARG, "--format", "json"]
        return [exe, *args, *extra, "-o", str(out)]

    return command


def _prfeval_values(sample: Sample, out: Path) -> dict[str, Any]:
    data = json.loads(out.read_text())
    settings = data.get("settings", {})
    try:
        version = metadata.version("prfeval")
    except metadata.PackageNotFoundError:
        version = "?"
    return {"version": version, "values": normalise(data.get("macro", {})), "settings": settings}


def _trec_eval_command(qrels: Path, run: Path, out: Path) -> list[str]:
    cmd = ["trec_eval"]
    for trec in TREC_EVAL_NAMES.values():
        cmd += ["-m", trec.replace("_", ".", 1) if trec[-1].isdigit() else trec]
    return [*cmd, str(qrels), str(run)]


def _trec_eval_values(sample: Sample, out: Path) -> dict[str, Any]:
    raw: dict[str, float] = {}
    for line in sample.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            raw[parts[0]] = float(parts[2])
    return {"values": normalise(raw)}


TOOLS: dict[str, Tool] = {
    "polars": Tool(
        "polars",
        _module_missing("polars", "polars"),
        _peer_command("polars"),
        _peer_values,
        note="reads the run's six columns only: the floor",
    ),
    "prfeval": Tool("prfeval", _prfeval_missing, _prfeval_command(), _prfeval_values),
    "prfeval-stream": Tool(
        "prfeval-stream", _prfeval_missing, _prfeval_command("--stream"), _prfeval_values
    ),
    "prfeval-memory": Tool(
        "prfeval-memory",
        _prfeval_missing,
        _prfeval_command("--no-stream"),
        _prfeval_values,
        note="the whole run read at once (--no-stream)",
    ),
    "pytrec_eval": Tool(
        "pytrec_eval",
        _module_missing("pytrec_eval", "pytrec-eval-terrier"),
        _peer_command("pytrec_eval"),
        _peer_values,
    ),
    "ir_measures": Tool(
        "ir_measures",
        _module_missing("ir_measures", "ir-measures"),
        _peer_command("ir_measures"),
        _peer_values,
        query_set="judged",
        note="averages over every judged query, missing ones as 0 (trec_eval -c)",
    ),
    "ranx": Tool(
        "ranx",
        _module_missing("ranx", "ranx"),
        _peer_command("ranx"),
        _peer_values,
        ties_differ=True,
        note="breaks score ties its own way, so cutoff measures drift",
    ),
    "trec_eval": Tool(
        "trec_eval",
        lambda: None if shutil.which("trec_eval") else "trec_eval (C) is not on the PATH",
        _trec_eval_command,
        _trec_eval_values,
    ),
}
DEFAULT_TOOLS = (
    "polars",
    "prfeval",
    "prfeval-stream",
    "prfeval-memory",
    "pytrec_eval",
    "ir_measures",
    "ranx",
    "trec_eval",
)
REFERENCES = ("pytrec_eval", "trec_eval", "prfeval")
"""Whose values the others are checked against, first available first."""


@dataclass
class ToolResult:
    """Everything measured for one tool on one data set."""

    name: str
    status: str = "ok"  # ok | skipped | failed
    reason: str = ""
    samples: list[Sample] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)

    @property
    def wall(self) -> float | None:
        return statistics.median(s.wall_s for s in self.samples) if self.samples else None

    @property
    def rss(self) -> float | None:
        if not self.samples:
            return None
        return statistics.median(s.max_rss_bytes for s in self.samples)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready view, samples included (stdout/stderr cut short)."""
        return {
            "name": self.name,
            "status": self.status,
            "reason": self.reason,
            "median_wall_s": self.wall,
            "median_max_rss_bytes": self.rss,
            "samples": [
                {
                    "wall_s": s.wall_s,
                    "max_rss_bytes": s.max_rss_bytes,
                    "returncode": s.returncode,
                    "timed_out": s.timed_out,
                }
                for s in self.samples
            ],
            "report": self.report,
        }


def attempt(tool: Tool, qrels: Path, run: Path, timeout_s: float) -> tuple[Sample, Any]:
    """Run ``tool`` once; return the sample and its parsed report, or the error as a string."""
    with tempfile.TemporaryDirectory(prefix="prfeval-bench-") as tmp:
        out = Path(tmp) / "out.json"
        sample = run_child(tool.command(qrels, run, out), timeout_s)
        if sample.timed_out:
            return sample, f"timed out after {timeout_s:.0f} s"
        if sample.returncode != 0:
            return sample, f"exit {sample.returncode}: {tail(sample.stderr) or '(no stderr)'}"
        try:
            return sample, tool.values(sample, out)
        except (OSError, ValueError, KeyError, IndexError) as exc:
            return sample, f"unreadable output ({type(exc).__name__}: {exc})"


def bench_tools(
    names: Sequence[str], qrels: Path, run: Path, reps: int, warmup: int, timeout_s: float
) -> dict[str, ToolResult]:
    """Warm up, then time every available tool ``reps`` times, round robin."""
    results: dict[str, ToolResult] = {}
    for name in names:
        reason = TOOLS[name].missing()
        results[name] = ToolResult(name, "skipped", reason) if reason else ToolResult(name)
    live = [n for n in names if results[n].status == "ok"]
    for rep in range(-warmup, reps):
        for name in list(live):
            sample, outcome = attempt(TOOLS[name], qrels, run, timeout_s)
            label = "warm-up" if rep < 0 else f"rep {rep + 1}/{reps}"
            if isinstance(outcome, str):
                results[name].status, results[name].reason = "failed", outcome
                live.remove(name)
                print(f"  {name:15} {label:9} FAILED: {outcome}", file=sys.stderr)
                continue
            print(
                f"  {name:15} {label:9} {sample.wall_s:8.2f} s "
                f"{sample.max_rss_bytes / MIB:9.0f} MiB",
                file=sys.stderr,
            )
            if rep >= 0:
                results[name].samples.append(sample)
                results[name].report = outcome
    return results


# --------------------------------------------------------------------------- agreement


def check_values(
    results: dict[str, ToolResult], meta: dict[str, Any], tol: float
) -> dict[str, dict[str, Any]]:
    """Compare every tool's macro values with the reference tool's.

    A tool that averages over every judged query (``query_set == "judged"``) is compared with
    the reference rescaled to that query set: the shared queries' sum over the number of judged
    queries, since the missing ones score 0. The verdict is ``"same"``, ``"missing"`` (the tool
    lacks a measure), ``"tie drift"`` (a tool known to order ties differently, off only on the
    cutoff measures, its set measures within ``tol``) or ``"differs"``.
    """
    ref_name = next(
        (n for n in REFERENCES if n in results and results[n].report.get("values")), None
    )
    checks: dict[str, dict[str, Any]] = {}
    if ref_name is None:
        return checks
    ref = results[ref_name].report["values"]
    judged_scale = meta["shared_queries"] / meta["qrels_queries"]
    for name, res in results.items():
        values = res.report.get("values")
        if not values:
            continue
        scale = judged_scale if TOOLS[name].query_set == "judged" else 1.0
        diffs = {m: abs(values[m] - ref[m] * scale) for m in MEASURES if m in values and m in ref}
        missing = [m for m in MEASURES if m not in values]
        worst = max(diffs, key=lambda m: diffs[m]) if diffs else None
        agree = bool(diffs) and not missing and diffs[worst] <= tol  # type: ignore[index]
        sets_agree = all(diffs.get(m, 0.0) <= tol for m in MEASURES if m.startswith("Set"))
        if agree:
            verdict = "same"
        elif missing:
            verdict = "missing"
        elif TOOLS[name].ties_differ and sets_agree:
            verdict = "tie drift"
        else:
            verdict = "differs"
        checks[name] = {
            "reference": ref_name,
            "query_set": TOOLS[name].query_set,
            "max_abs_diff": diffs[worst] if worst else None,
            "worst_measure": worst,
            "diffs": diffs,
            "missing": missing,
            "agree": agree,
            "verdict": verdict,
        }
    return checks


# --------------------------------------------------------------------------- small loop


def bench_loop(reps: int, seed: int, data_dir: Path, timeout_s: float) -> dict[str, Any]:
    """Import time, in-memory dicts against pytrec_eval, and the CLI on a 100-line run."""
    py = sys.executable
    out: dict[str, Any] = {"reps": reps}
    if _prfeval_missing() is None:
        bare, imp = [], []
        for _ in range(reps):
            bare.append(run_child([py, "-c", "pass"], timeout_s).wall_s)
            s = run_child([py, "-c", "import prfeval"], timeout_s)
            if s.returncode != 0:
                out["import_error"] = tail(s.stderr)
                break
            imp.append(s.wall_s)
        if imp:
            out["python_startup_s"] = statistics.median(bare)
            out["python_import_prfeval_s"] = statistics.median(imp)
            out["import_prfeval_s"] = out["python_import_prfeval_s"] - out["python_startup_s"]
        s = run_child([py, "-X", "importtime", "-c", "import prfeval"], timeout_s)
        for line in s.stderr.splitlines():
            parts = [p.strip() for p in line.split("|")]
            if len(parts) == 3 and parts[2] == "prfeval" and parts[1].isdigit():
                out["importtime_cumulative_s"] = int(parts[1]) / 1e6
        probe = (
            "import json, sys, prfeval; "
            f"print(json.dumps(sorted(m for m in {list(HEAVY_MODULES)!r} if m in sys.modules)))"
        )
        s = run_child([py, "-c", probe], timeout_s)
        if s.returncode == 0:
            out["modules_after_import"] = json.loads(s.stdout)
    cmd = [py, str(BENCH / "small_loop.py"), "--reps", str(reps), "--seed", str(seed)]
    s = run_child(cmd, timeout_s)
    if s.returncode == 0:
        out["dicts"] = json.loads(s.stdout.strip().splitlines()[-1])
    else:
        out["dicts_error"] = tail(s.stderr)
    ensure_data("tiny", seed, data_dir, timeout_s)
    tiny = data_dir / "tiny"
    if _prfeval_missing() is None:
        walls: list[float] = []
        for _ in range(reps):
            sample, outcome = attempt(
                TOOLS["prfeval"], tiny / "qrels.trec", tiny / "run.trec", timeout_s
            )
            if isinstance(outcome, str):
                out["cli_100_error"] = outcome
                break
            walls.append(sample.wall_s)
        if walls:
            out["cli_100_lines_s"] = statistics.median(walls)
    return out


# --------------------------------------------------------------------------- report


def _fmt(x: float | None, digits: int = 2, suffix: str = "") -> str:
    return "n/a" if x is None else f"{x:.{digits}f}{suffix}"


def _size(n: int) -> str:
    return f"{n / MIB:.1f} MiB" if n >= MIB else f"{n / 1024:.1f} KiB"


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def targets(
    results: dict[str, ToolResult], loop: dict[str, Any] | None
) -> list[tuple[str, str, str]]:
    """The speed issue's targets as (target, measured, verdict) rows."""

    def wall(name: str) -> float | None:
        return results[name].wall if name in results else None

    def rss(name: str) -> float | None:
        return results[name].rss if name in results else None

    stream_rss = rss("prfeval-stream")
    checks: list[tuple[str, float | None, str, Callable[[float], bool]]] = []
    if results:
        checks += [
            (
                "prfeval wall <= 1.5x polars read",
                _ratio(wall("prfeval"), wall("polars")),
                "x",
                lambda v: v <= 1.5,
            ),
            (
                "prfeval >= 4x faster than pytrec_eval",
                _ratio(wall("pytrec_eval"), wall("prfeval")),
                "x",
                lambda v: v >= 4,
            ),
            (
                "prfeval peak RSS <= 1.2x polars read",
                _ratio(rss("prfeval"), rss("polars")),
                "x",
                lambda v: v <= 1.2,
            ),
            (
                "--stream peak RSS < 0.5 GiB (set for 20M lines)",
                stream_rss / 2**30 if stream_rss else None,
                " GiB",
                lambda v: v < 0.5,
            ),
            (
                "--stream wall <= 2x in memory",
                _ratio(wall("prfeval-stream"), wall("prfeval-memory") or wall("prfeval")),
                "x",
                lambda v: v <= 2,
            ),
        ]
    if loop is not None:
        d = loop.get("dicts", {})
        fast = _ratio(
            d.get("pytrec_eval", {}).get("median_s"), d.get("prfeval", {}).get("median_s")
        )
        shape = f"{d.get('queries', '?')}x{d.get('docs_per_query', '?')}"
        checks += [
            (
                "import prfeval < 0.15 s (minus bare start-up)",
                loop.get("import_prfeval_s"),
                " s",
                lambda v: v < 0.15,
            ),
            (f"evaluate() on dicts {shape} faster than pytrec_eval", fast, "x", lambda v: v > 1),
            ("CLI on a 100-line run < 0.4 s", loop.get("cli_100_lines_s"), " s", lambda v: v < 0.4),
        ]
    rows = []
    for label, value, unit, ok in checks:
        verdict = "n/a" if value is None else ("PASS" if ok(value) else "FAIL")
        rows.append((label, _fmt(value, 3 if unit == " s" else 2, unit), verdict))
    return rows


def render(
    meta: dict[str, Any] | None,
    results: dict[str, ToolResult],
    checks: dict[str, dict[str, Any]],
    loop: dict[str, Any] | None,
    env: dict[str, Any],
    scenario_lines: Sequence[str] = (),
    scenario_rows: Sequence[tuple[str, str, str]] = (),
) -> str:
    """The markdown report; ``meta`` is None when only the small loop ran."""
    machine = (
        f"Machine: {env['machine']}, {env['cpus']} CPUs, Python {env['python']}; {env['date']}. "
        f"Peak RSS per child process from wait4 (floor: this runner's own peak, "
        f"{env['runner_max_rss_mib']:.0f} MiB). Load average (1 min) before "
        f"{env['load_before']:.2f}, after {env['load_after']:.2f}: other work on the machine "
        "skews the figures; compare ratios within one run."
    )
    if meta is None:
        lines = ["## Small evaluations only", "", machine]
        results = {}
    else:
        spec = meta["spec"]
        lines = [
            f"## Size `{env['size']}`: {spec['queries']:,} queries x "
            f"{spec['docs_per_query']:,} documents",
            "",
            f"Run: {meta['run_lines']:,} lines, {_size(meta['run_bytes'])}; judgments: "
            f"{meta['qrels_lines']:,} lines; {meta['shared_queries']:,} queries in both, "
            f"{meta['qrels_queries']:,} judged. Seed {spec['seed']}. Median of {env['reps']} "
            f"runs after {env['warmup']} warm-up, page cache warm.",
            machine,
            "",
            "| tool | version | median wall (s) | min-max (s) | peak RSS (MiB) | wall / polars "
            "| RSS / polars | pytrec_eval wall / tool |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
    floor, pt = results.get("polars"), results.get("pytrec_eval")
    notes: list[str] = []
    for name, res in results.items():
        if res.status != "ok":
            notes.append(f"- **{name}** {res.status}: {res.reason}")
            lines.append(f"| {name} | | {res.status} | | | | | |")
            continue
        walls = [s.wall_s for s in res.samples]
        version = res.report.get("version", "")
        lines.append(
            f"| {name} | {version} | {_fmt(res.wall)} | {min(walls):.2f}-{max(walls):.2f} "
            f"| {_fmt(res.rss / MIB if res.rss else None, 0)} "
            f"| {_fmt(_ratio(res.wall, floor.wall if floor else None), 2)} "
            f"| {_fmt(_ratio(res.rss, floor.rss if floor else None), 2)} "
            f"| {_fmt(_ratio(pt.wall if pt else None, res.wall), 2)} |"
        )
        if TOOLS[name].note:
            notes.append(f"- {name}: {TOOLS[name].note}.")
    if checks:
        ref = next(iter(checks.values()))["reference"]
        lines += [
            "",
            f"Macro values (checked against {ref}, tolerance {env['tol']:g}):",
            "",
            "| tool | " + " | ".join(MEASURES) + " | agreement |",
            "| --- | " + " | ".join("---:" for _ in MEASURES) + " | --- |",
        ]
        for name, chk in checks.items():
            vals = results[name].report["values"]
            cells = " | ".join(_fmt(vals.get(m), 4) for m in MEASURES)
            diff = f"max abs diff {chk['max_abs_diff']:.2g} ({chk['worst_measure']})"
            how = {
                "same": "same" if chk["query_set"] == "shared" else "same, over judged queries",
                "missing": f"missing {', '.join(chk['missing'])}",
                "tie drift": f"tie drift: {diff}; set measures same",
                "differs": f"DIFFERS: {diff}",
            }[chk["verdict"]]
            lines.append(f"| {name} | {cells} | {how} |")
    if scenario_lines:
        lines += ["", "## Other commands on the same run", *scenario_lines]
    rows = [*targets(results, loop), *scenario_rows]
    lines += [
        "",
        "Targets:",
        "",
        "| target | measured | |",
        "| --- | ---: | --- |",
    ]
    lines += [f"| {t} | {m} | {v} |" for t, m, v in rows]
    if loop is not None:
        lines += ["", "Small evaluations:", ""]
        if "import_prfeval_s" in loop:
            lines.append(
                f"- `python -c 'import prfeval'` {loop['python_import_prfeval_s']:.3f} s, bare "
                f"`python -c pass` {loop['python_startup_s']:.3f} s: import "
                f"{loop['import_prfeval_s']:.3f} s (`-X importtime` cumulative: "
                f"{_fmt(loop.get('importtime_cumulative_s'), 3)} s). Loaded after import: "
                f"{', '.join(loop.get('modules_after_import', [])) or 'none of the heavy ones'}."
            )
        d = loop.get("dicts")
        if d:
            for name in ("prfeval", "pytrec_eval"):
                r = d[name]
                shown = (
                    f"{r['median_s'] * 1e3:.1f} ms per call (first call "
                    f"{r['first_call_s'] * 1e3:.1f} ms)"
                    if r["ok"]
                    else f"failed: {r['error']}"
                )
                lines.append(
                    f"- {name} on dicts of {d['queries']} x {d['docs_per_query']}: {shown}"
                )
        for key in ("import_error", "dicts_error", "cli_100_error"):
            if key in loop:
                lines.append(f"- {key.replace('_', ' ')}: {loop[key]}")
        if "cli_100_lines_s" in loop:
            lines.append(f"- `prfeval evaluate` on a 100-line run: {loop['cli_100_lines_s']:.3f} s")
    if notes:
        lines += ["", "Notes:", "", *notes]
    return "\n".join(lines) + "\n"


def warm_cache(*paths: Path) -> None:
    """Read the files once so that no tool pays for the first read from disk."""
    for path in paths:
        with path.open("rb") as f:
            while f.read(1 << 20):  # small chunks: this process's peak RSS must stay low
                pass


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line of ``bench/run.py``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", choices=list(SIZES), default="1m")
    p.add_argument("--reps", type=int, default=3, help="timed runs per tool (median)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs per tool first")
    p.add_argument(
        "--tools",
        default=",".join(DEFAULT_TOOLS),
        help=f"comma-separated subset of {','.join(TOOLS)}",
    )
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--tol", type=float, default=1e-4, help="agreement tolerance (absolute)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per child process")
    p.add_argument("--loop-reps", type=int, default=7, help="repetitions of the small loop")
    p.add_argument("--no-loop", action="store_true", help="skip the small-evaluation loop")
    p.add_argument("--loop-only", action="store_true", help="only the small-evaluation loop")
    p.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help=f"comma-separated subset of {','.join(SCENARIOS)} (other commands), or 'none'",
    )
    p.add_argument(
        "--label-items",
        type=int,
        default=5_000_000,
        help="labels in the classify scenario's file (10 classes)",
    )
    p.add_argument("--data-dir", type=Path, default=BENCH / "data")
    p.add_argument("--results-dir", type=Path, default=BENCH / "results")
    args = p.parse_args(argv)
    if args.loop_only and args.no_loop:
        p.error("--loop-only and --no-loop exclude each other")
    if args.reps < 1 or args.warmup < 0 or args.loop_reps < 1:
        p.error("need --reps >= 1, --warmup >= 0 and --loop-reps >= 1")
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    args.scenarios = [
        s.strip() for s in args.scenarios.split(",") if s.strip() and s.strip() != "none"
    ]
    bad = [s for s in args.scenarios if s not in SCENARIOS]
    if bad:
        p.error(f"unknown scenario(s) {', '.join(bad)}; choose from {', '.join(SCENARIOS)}")
    unknown = [t for t in args.tools if t not in TOOLS]
    if unknown:
        p.error(f"unknown tool(s) {', '.join(unknown)}; choose from {', '.join(TOOLS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; write and print the report. Exit 0 even when a tool failed."""
    args = parse_args(argv)
    env: dict[str, Any] = {
        "machine": f"{platform.system()} {platform.machine()}",
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "reps": args.reps,
        "warmup": args.warmup,
        "tol": args.tol,
        "size": args.size,
        "load_before": os.getloadavg()[0],
    }
    meta: dict[str, Any] | None = None
    results: dict[str, ToolResult] = {}
    compile_prfeval()
    if not args.loop_only:
        folder = args.data_dir / args.size
        print(f"data: {folder} (generated if missing)", file=sys.stderr)
        meta = ensure_data(args.size, args.seed, args.data_dir, args.timeout)
        qrels, run = folder / "qrels.trec", folder / "run.trec"
        warm_cache(qrels, run)
        results = bench_tools(args.tools, qrels, run, args.reps, args.warmup, args.timeout)
    scenario_results = []
    if meta and args.scenarios:
        print("scenarios: " + ", ".join(args.scenarios), file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="prfeval-bench-") as tmp:
            labels = None
            if LABEL_SCENARIOS & set(args.scenarios):
                labels = ensure_labels(args.label_items, args.seed, args.data_dir, args.timeout)
                warm_cache(labels)
            files = Files(qrels, run, folder / "run_b.trec", Path(tmp), labels)
            scenario_results = bench_scenarios(
                args.scenarios, files, args.reps, args.warmup, run_child, args.timeout
            )
    checks = check_values(results, meta, args.tol) if meta else {}
    loop = None
    if not args.no_loop:
        print("small-evaluation loop", file=sys.stderr)
        loop = bench_loop(args.loop_reps, args.seed, args.data_dir, args.timeout)
    env["load_after"] = os.getloadavg()[0]
    scale = 1 if sys.platform == "darwin" else 1024
    env["runner_max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / MIB
    evaluate_wall = results["prfeval"].wall if "prfeval" in results else None
    scenario_lines, scenario_rows = render_scenarios(
        args.scenarios if meta else [], scenario_results, evaluate_wall
    )
    text = render(meta, results, checks, loop, env, scenario_lines, scenario_rows)
    print(text)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    payload = {
        "env": env,
        "meta": meta,
        "tools": {n: r.summary() for n, r in results.items()},
        "agreement": checks,
        "targets": [
            {"target": t, "measured": m, "verdict": v}
            for t, m, v in [*targets(results, loop), *scenario_rows]
        ],
        "scenarios": [
            {"scenario": r.scenario, "contender": r.name, "status": r.status,
             "reason": r.reason, "walls": r.walls, "rss": r.rss}
            for r in scenario_results
        ],
        "loop": loop,
    }
    for stem in ("loop" if args.loop_only else args.size, "latest"):
        (args.results_dir / f"{stem}.md").write_text(text)
        (args.results_dir / f"{stem}.json").write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
