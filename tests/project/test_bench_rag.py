"""bench/rag.py's agreement check: on small generated files with many tied scores,
``prfeval evaluate -c -M k`` and toolkit-rag-quality's ``score`` (pure Python, written
independently of prfeval) give the same six values for every query, and the same gate
verdicts; and the check does report a value, a query or a verdict that differs.

Nothing here is timed: the benchmark's figures live in docs/benchmarks.md.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip(
    "toolkit_rag_quality",
    reason="toolkit-rag-quality (the bench extra) is not installed: nothing to agree with",
)

BENCH = Path(__file__).resolve().parents[2] / "bench"
K = 5


def _load(name: str) -> ModuleType:
    """A bench script as a module, under a name no other module takes."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, object, Path]:
    """The rag module, the generated files and a folder of both tools' score reports."""
    saved = list(sys.path)
    try:
        rag = _load("rag")  # it puts bench/ on sys.path for its own imports
        generate = _load("generate")
    finally:
        sys.path[:] = saved
    root = tmp_path_factory.mktemp("rag")
    # Whole-number scores: ties everywhere, so the tie order (doc id descending) matters.
    spec = generate.Spec(queries=40, docs_per_query=25, collection=5_000, judged_min=3,
                         judged_max=20, score_decimals=0, seed=11)  # fmt: skip
    generate.write_dataset(spec, root)
    files = rag.Files(root / "qrels.trec", root / "run.trec", root / "run_b.trec", root)
    for run, pf, tk in ((files.run, "pf_a.json", "tk_a.json"),
                        (files.run_b, "pf_b.json", "tk_b.json")):  # fmt: skip
        for cmd in (rag.prfeval_score(files, run, K, root / pf),
                    rag.toolkit_score(files, run, K, root / tk)):  # fmt: skip
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr
    return rag, files, root


def _json(path: Path) -> dict:
    return json.loads(path.read_text())


def _ties_across_the_cutoff(run: Path) -> int:
    """Queries whose scores at ranks K and K + 1 are equal (counted from the file)."""
    scores: dict[str, list[float]] = {}
    for line in run.read_text().splitlines():
        qid, _, _, _, score, _ = line.split()
        scores.setdefault(qid, []).append(float(score))
    ranked = [sorted(s, reverse=True) for s in scores.values()]
    return sum(1 for s in ranked if len(s) > K and s[K - 1] == s[K])


def test_the_two_tools_agree_on_every_query(bench):
    rag, files, root = bench
    assert _ties_across_the_cutoff(files.run) >= 5  # the data does test the tie order
    for pf, tk in (("pf_a.json", "tk_a.json"), ("pf_b.json", "tk_b.json")):
        prf, tool = _json(root / pf), _json(root / tk)
        agreement = rag.score_agreement(prf, tool, K)
        assert agreement.ok, agreement.problems
        # Every judged query (-c: those the run missed too) times six values, and six means.
        judged = {line.split()[0] for line in files.qrels.read_text().splitlines()}
        assert len(prf["per_query"]) == len(judged)
        assert agreement.values == 6 * len(judged) + 6
        assert agreement.largest_difference < 1e-12


def test_a_difference_is_reported(bench):
    rag, _, root = bench
    prf, tool = _json(root / "pf_a.json"), _json(root / "tk_a.json")
    changed = copy.deepcopy(tool)
    target = next(r for r in changed["predicate"]["details"]["per_query"] if r["ndcg"] > 0)
    target["ndcg"] += 0.01
    problems = rag.score_agreement(prf, changed, K).problems
    assert len(problems) == 1 and "ndcg_cut_5" in problems[0] and target["id"] in problems[0]

    changed = copy.deepcopy(tool)
    changed["predicate"]["summary"]["mrr_at_k"] += 1e-6
    problems = rag.score_agreement(prf, changed, K).problems
    assert problems == [f"mean mrr_at_k / recip_rank: prfeval {prf['macro']['recip_rank']!r}, "
                        f"toolkit-rag {changed['predicate']['summary']['mrr_at_k']!r}"]  # fmt: skip

    changed = copy.deepcopy(tool)
    dropped = changed["predicate"]["details"]["per_query"].pop()
    problems = rag.score_agreement(prf, changed, K).problems
    assert problems == [f"1 queries only prfeval scored: {dropped['id']}"]

    # Numbers measured without -c or -M k are not comparable, and the check says so.
    uncut = copy.deepcopy(prf)
    uncut["settings"]["max_results"] = None
    assert "comparable numbers need -M 5 and -c" in rag.score_agreement(uncut, tool, K).problems[0]


def test_the_gates_reach_the_same_verdicts(bench):
    rag, files, root = bench
    prf_a, tool_a = _json(root / "pf_a.json"), _json(root / "tk_a.json")
    assert rag.score_agreement(prf_a, tool_a, K).ok
    gate = rag.prfeval_gate(files, root / "pf_a.json", root / "pf_b.json", K,
                            root / "gate.json", None)  # fmt: skip
    compare = rag.toolkit_compare(root / "tk_a.json", root / "tk_b.json", root / "tk_gate.json",
                                  None)  # fmt: skip
    gate_done = subprocess.run(gate, capture_output=True, text=True, timeout=120)
    compare_done = subprocess.run(compare, capture_output=True, text=True, timeout=120)
    assert gate_done.returncode in (0, 1), gate_done.stderr
    assert compare_done.returncode in (0, 4), compare_done.stderr
    verdicts, tool = _json(root / "gate.json"), _json(root / "tk_gate.json")
    agreement = rag.verdict_agreement(verdicts, tool, K)
    assert agreement.ok, agreement.problems
    assert agreement.values == 7
    # The budgets, recomputed here from the means: a measure fails when it dropped by more
    # than 2 % of the baseline's mean.
    means_a, means_b = prf_a["macro"], _json(root / "pf_b.json")["macro"]
    expected = {m: means_a[m] - means_b[m] > 0.02 * means_a[m] for m in rag.prfeval_measures(K)}
    assert {m["measure"]: m["failed"] for m in verdicts["measures"]} == expected
    assert (gate_done.returncode == 1) == any(expected.values())

    flipped = copy.deepcopy(tool)
    metric = flipped["predicate"]["summary"]["metrics"]["hit_rate_at_k"]
    metric["passed"] = not metric["passed"]
    problems = rag.verdict_agreement(verdicts, flipped, K).problems
    assert len(problems) == 1 and "success_5 / hit_rate_at_k" in problems[0]
