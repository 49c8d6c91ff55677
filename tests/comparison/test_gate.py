"""``prfeval gate``: a regression gate for CI, checked on a regression built by hand.

The candidate is the baseline with the relevant documents of some queries demoted below the
rest, so which queries regressed, and by how much, is known before anything is measured. The
means are checked against pytrec_eval (trec_eval 9.0.8) on the same TREC files; the p-values
against ``prfeval compare`` on the same inputs (they must be the same numbers) and against
independent computations: scipy's paired t-test on pytrec_eval's per-query values, and an
exact enumeration of every sign assignment for a small randomization case.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import itertools
import json
import math
import random
import re
import sys
from pathlib import Path

import pytest

from support.cli import run_cli
from support.hand_made import run_lines, write_lines

pytrec_eval = pytest.importorskip("pytrec_eval")

N_QUERIES = 40
#: Queries whose relevant documents the regressed candidate pushes below the rest.
DEMOTED = tuple(str(q) for q in range(1, 26))
#: The two queries the slightly worse candidate demotes: a drop no test can call significant.
SLIGHT = ("7", "31")
FAST = ["--permutations", "2000"]
MEASURES = "P@10 AP nDCG@10 R@20"
TREC_NAMES = {"P@10": "P_10", "AP": "map", "nDCG@10": "ndcg_cut_10", "R@20": "recall_20"}


# --- The data -----------------------------------------------------------------------------


def _rankings(seed: int = 20240611) -> tuple[dict[str, dict[str, int]], dict[str, list[str]]]:
    """40 queries, each with 8 relevant documents (grades 1 and 2), 10 judged non-relevant
    and 12 unjudged, ranked with the relevant ones drawn upwards."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    ranked: dict[str, list[str]] = {}
    for q in range(1, N_QUERIES + 1):
        qid = str(q)
        relevant = [f"r{q}-{i}" for i in range(8)]
        judged_out = [f"n{q}-{i}" for i in range(10)]
        unjudged = [f"u{q}-{i}" for i in range(12)]
        qrels[qid] = {d: rng.choice([1, 2]) for d in relevant} | {d: 0 for d in judged_out}
        score = {d: rng.random() + (0.7 if d in relevant else 0.0) for d in relevant}
        score |= {d: rng.random() for d in judged_out + unjudged}
        ranked[qid] = sorted(score, key=lambda d: -score[d])
    return qrels, ranked


def demoted(ranked: dict[str, list[str]], qrels: dict[str, dict[str, int]],
            queries: tuple[str, ...]) -> dict[str, list[str]]:  # fmt: skip
    """``ranked`` with every relevant document of ``queries`` moved below all the others."""
    out = {}
    for q, docs in ranked.items():
        if q in queries:
            good = [d for d in docs if qrels[q].get(d, 0) > 0]
            out[q] = [d for d in docs if d not in good] + good
        else:
            out[q] = list(docs)
    return out


def write_run(path: Path, ranked: dict[str, list[str]], tag: str) -> str:
    """A TREC run, scores descending and all distinct (no tie for any tool to break): n, n - 1,
    ..., 1 for a query's n documents."""
    rankings = [(q, [(d, float(len(docs) - i)) for i, d in enumerate(docs)])
                for q, docs in ranked.items()]  # fmt: skip
    return str(write_lines(path, run_lines(rankings, tag)))


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("gate")
    qrels, ranked = _rankings()
    (d / "qrels.trec").write_text(
        "".join(f"{q} 0 {doc} {g}\n" for q, docs in qrels.items() for doc, g in docs.items())
    )
    paths = {"qrels": str(d / "qrels.trec"), "dir": str(d)}
    paths["base"] = write_run(d / "base.run", ranked, "base")
    paths["worse"] = write_run(d / "worse.run", demoted(ranked, qrels, DEMOTED), "worse")
    paths["slight"] = write_run(d / "slight.run", demoted(ranked, qrels, SLIGHT), "slight")
    # A baseline that never answered queries 39 and 40 (the candidates answer every one).
    partial = {q: docs for q, docs in ranked.items() if q not in ("39", "40")}
    paths["partial"] = write_run(d / "partial.run", partial, "partial")
    return paths


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in Path(path).read_text().splitlines():
        q, _, d, g = line.split()
        out.setdefault(q, {})[d] = int(g)
    return out


def read_run(path: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in Path(path).read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        out.setdefault(q, {})[d] = float(s)
    return out


def pytrec_per_query(data: dict[str, str], run: str, measure: str) -> dict[str, float]:
    """pytrec_eval's value of ``measure`` (prfeval's name) per query of ``run``."""
    trec = TREC_NAMES[measure]
    evaluator = pytrec_eval.RelevanceEvaluator(read_qrels(data["qrels"]), {trec})
    return {q: v[trec] for q, v in evaluator.evaluate(read_run(data[run])).items()}


def gate_json(capsys, *argv: str) -> tuple[int, dict, str]:
    code, out, err = run_cli(capsys, "gate", *argv, "--format", "json")
    assert code in (0, 1), err
    return code, json.loads(out), err


def verdicts(report: dict) -> dict[str, dict]:
    return {v["measure"]: v for v in report["measures"]}


# --- Verdicts and exit statuses -----------------------------------------------------------


def test_identical_runs_pass(data, capsys) -> None:
    code, out, err = run_cli(capsys, "gate", data["qrels"], data["base"], data["base"],
                             "-m", MEASURES, *FAST)  # fmt: skip
    assert code == 0, err
    assert out.startswith("prfeval gate: pass: 4 measures, none regressed")


def test_a_regression_fails_and_names_the_measures_and_queries(data, capsys) -> None:
    code, out, err = run_cli(capsys, "gate", data["qrels"], data["base"], data["worse"],
                             "-m", MEASURES, *FAST)  # fmt: skip
    assert code == 1, err
    first = out.splitlines()[0]
    assert first.startswith("prfeval gate: FAIL: ")
    for measure in MEASURES.split():
        assert measure in first
    # The queries that regressed most are demoted ones, each with its two values.
    (listed,) = [ln for ln in out.splitlines() if ln.startswith("  P@10: ")]
    named = re.findall(r"'(\d+)' (\d\.\d{4}) → (\d\.\d{4})", listed)
    assert len(named) == 5 and all(q in DEMOTED for q, _, _ in named)
    before, after = pytrec_per_query(data, "base", "P@10"), pytrec_per_query(data, "worse",
                                                                               "P@10")
    for q, b, c in named:
        assert (float(b), float(c)) == (round(before[q], 4), round(after[q], 4))
    # The largest drops, largest first: no query left out lost more than the last one shown.
    drops = {q: before[q] - after[q] for q in before}
    shown = [drops[q] for q, _, _ in named]
    assert shown == sorted(shown, reverse=True)
    assert max(v for q, v in drops.items() if q not in {q for q, _, _ in named}) <= shown[-1]


def test_a_significant_regression_fails_with_alpha(data, capsys) -> None:
    code, report, _ = gate_json(capsys, data["qrels"], data["base"], data["worse"],
                                "-m", MEASURES, "--alpha", "0.05", *FAST)  # fmt: skip
    assert code == 1 and report["exit_status"] == 1 and report["status"] == "fail"
    for v in report["measures"]:
        assert v["verdict"] == "fail" and v["significant"] is True
        assert v["p_adjusted"] <= 0.05


def test_a_drop_within_budget_passes(data, capsys) -> None:
    _, report, _ = gate_json(capsys, data["qrels"], data["base"], data["worse"], "-m", "P@10",
                             *FAST)  # fmt: skip
    drop = verdicts(report)["P@10"]["drop"]
    base = verdicts(report)["P@10"]["baseline"]
    assert drop > 0.05
    # An absolute budget above the drop, and a share of the baseline's mean above it.
    for budget in (f"P@10={drop + 0.001}", f"P@10={100 * (drop + 0.001) / base}%",
                   f"ALL={drop + 0.001}"):  # fmt: skip
        code, out, err = run_cli(capsys, "gate", data["qrels"], data["base"], data["worse"],
                                 "-m", "P@10", "--max-drop", budget, *FAST)  # fmt: skip
        assert code == 0, (budget, out, err)
    # Just under the drop: over budget.
    code, _, _ = run_cli(capsys, "gate", data["qrels"], data["base"], data["worse"], "-m",
                         "P@10", "--max-drop", f"P@10={drop - 0.001}", *FAST)  # fmt: skip
    assert code == 1


def test_a_measure_budget_overrides_all(data, capsys) -> None:
    code, report, _ = gate_json(capsys, data["qrels"], data["base"], data["worse"],
                                "-m", "P@10 AP", "--max-drop", "ALL=1",
                                "--max-drop", "AP=0", *FAST)  # fmt: skip
    assert code == 1 and report["failed"] == ["AP"]
    v = verdicts(report)
    assert v["P@10"]["budget"] == {"amount": 1.0, "relative": False, "given_as": "ALL",
                                   "off": False}  # fmt: skip
    assert v["AP"]["budget"] == {"amount": 0.0, "relative": False, "given_as": "AP",
                                 "off": False}  # fmt: skip


def test_a_relative_budget_is_a_share_of_the_baseline_mean(data, capsys) -> None:
    _, report, _ = gate_json(capsys, data["qrels"], data["base"], data["worse"], "-m", "AP",
                             "--max-drop", "AP=10%", *FAST)  # fmt: skip
    v = verdicts(report)["AP"]
    ap = pytrec_per_query(data, "base", "AP")
    assert v["allowed_drop"] == pytest.approx(0.10 * sum(ap.values()) / len(ap), abs=1e-12)


def test_a_drop_no_test_calls_significant_passes_with_alpha(data, capsys) -> None:
    argv = [data["qrels"], data["base"], data["slight"], "-m", "P@10 AP", *FAST]
    code, report, _ = gate_json(capsys, *argv)
    assert code == 1  # without --alpha, any drop over budget fails
    for v in report["measures"]:
        assert v["drop"] > 0 and v["queries_worse"] <= 2
    code, report, _ = gate_json(capsys, *argv, "--alpha", "0.05")
    assert code == 0 and report["status"] == "pass"
    for v in report["measures"]:
        assert v["verdict"] == "not significant" and v["over_budget"] is True
        # Two queries moved: of the four sign assignments, at least the observed one and its
        # mirror image are as extreme, so p >= 1/2 whatever the draws.
        assert v["p_value"] >= 0.45
    code, out, _ = run_cli(capsys, "gate", *argv, "--alpha", "0.05")
    assert code == 0
    assert out.startswith("prfeval gate: pass: 2 measures; over budget but not significant: "
                          "P@10, AP\n")  # fmt: skip


def test_a_floor_fails_a_candidate_below_it(data, capsys) -> None:
    p10 = pytrec_per_query(data, "base", "P@10")
    mean = sum(p10.values()) / len(p10)
    argv = [data["qrels"], data["base"], data["base"], "-m", "P@10", *FAST]
    code, report, _ = gate_json(capsys, *argv, "--min", f"P@10={mean + 0.01}")
    assert code == 1 and verdicts(report)["P@10"]["below_minimum"] is True
    code, _, _ = gate_json(capsys, *argv, "--min", f"P@10={mean - 0.01}")
    assert code == 0


def test_lower_is_better_fails_on_a_rise(data, capsys) -> None:
    """SetE (1 - SetF), where lower is better: demoting changes nothing in the whole retrieved
    set, so the rankings are cut to their top 10 (-M), where the candidate has fewer relevant
    documents: SetE rises, and that is the drop."""
    argv = [data["qrels"], data["base"], data["worse"], "-m", "SetE", "-M", "10", *FAST]
    code, report, _ = gate_json(capsys, *argv)
    v = verdicts(report)["SetE"]
    assert code == 1 and v["higher_is_better"] is False
    assert v["delta"] > 0 and v["drop"] == pytest.approx(v["delta"])
    assert v["reason"].startswith("rose ")
    code, _, err = run_cli(capsys, "gate", *argv, "--min", "SetE=0.5")
    assert code == 2 and "lower is better" in err


# --- Exit status 2 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "budget",
    ["P@10", "P@10=", "=0.1", "P@10=abc", "P@10=-0.1", "P@10=nan", "P@10=inf", "P@10=1%%",
     "P@5=0.1", "Bogus@3=0.1"],
)  # fmt: skip
def test_bad_max_drop_is_one_line_and_exit_2(data, capsys, budget) -> None:
    code, out, err = run_cli(capsys, "gate", data["qrels"], data["base"], data["worse"],
                             "-m", "P@10", "--max-drop", budget, *FAST)  # fmt: skip
    assert code == 2 and out == ""
    assert err.startswith("prfeval: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_a_measure_given_two_budgets_is_refused(data, capsys) -> None:
    code, _, err = run_cli(capsys, "gate", data["qrels"], data["base"], data["worse"], "-m",
                           "P@10", "--max-drop", "P@10=0.1", "--max-drop", "P_10=0.2")
    assert code == 2 and "two budgets" in err


def test_a_count_cannot_be_gated(data, capsys) -> None:
    code, _, err = run_cli(capsys, "gate", data["qrels"], data["base"], data["worse"],
                           "-m", "NumRet")  # fmt: skip
    assert code == 2 and "NumRet is a count" in err


def _saved(capsys, data, run: str, name: str, *options: str) -> str:
    path = str(Path(data["dir"]) / name)
    code, _, err = run_cli(capsys, "evaluate", data["qrels"], data[run], "-m", MEASURES,
                           "--format", "json", "-q", "-o", path, *options)  # fmt: skip
    assert code == 0, err
    return path


@pytest.mark.parametrize(
    ("saved_with", "gated_with", "words"),
    [
        (["-l", "2"], [], ["at level 2", "at level 1"]),
        (["-c"], [], ["with -c", "without -c"]),
        (["-M", "10"], [], ["with -M 10", "without -M"]),
        (["-J"], [], ["dropped (-J)", "taken as non-relevant"]),
        ([], ["-l", "2"], ["at level 1", "at level 2"]),
    ],
)
def test_evaluations_measured_differently_are_not_comparable(
    data, capsys, saved_with, gated_with, words
) -> None:
    saved = _saved(capsys, data, "base", "odd.json", *saved_with)
    code, out, err = run_cli(capsys, "gate", data["qrels"], saved, data["worse"], "-m",
                             MEASURES, *gated_with, *FAST)  # fmt: skip
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("prfeval: not comparable: the baseline odd.json was measured ")
    assert "the candidate worse.run" in err
    assert all(w in err for w in words), err


def test_a_measure_the_saved_baseline_lacks_is_not_comparable(data, capsys) -> None:
    saved = _saved(capsys, data, "base", "base.json")
    code, _, err = run_cli(capsys, "gate", data["qrels"], saved, data["worse"], "-m", "P@5")
    assert code == 2 and "base.json has no P@5" in err and "P@10" in err


def test_two_saved_evaluations_must_match_the_gate_options(data, capsys) -> None:
    a = _saved(capsys, data, "base", "a.json", "-l", "2")
    b = _saved(capsys, data, "worse", "b.json", "-l", "2")
    code, _, err = run_cli(capsys, "gate", data["qrels"], a, b, "-m", "P@10", *FAST)
    assert code == 2 and "this gate measures at level 1" in err
    code, _, err = run_cli(capsys, "gate", data["qrels"], a, b, "-m", "P@10", "-l", "2", *FAST)
    assert code == 1, err


def test_a_saved_evaluation_without_per_query_values_is_refused(data, capsys) -> None:
    path = Path(data["dir"]) / "noq.json"
    code, _, _ = run_cli(capsys, "evaluate", data["qrels"], data["base"], "-m", "P@10",
                         "--format", "json", "-o", str(path))  # fmt: skip
    assert code == 0
    code, _, err = run_cli(capsys, "gate", data["qrels"], str(path), data["worse"], "-m", "P@10")
    assert code == 2 and "no per-query values" in err and "-q" in err


def test_a_broken_saved_evaluation_names_file_and_line(data, capsys) -> None:
    good = Path(_saved(capsys, data, "base", "good.json")).read_text().splitlines()
    broken = Path(data["dir"]) / "broken.json"
    broken.write_text("\n".join([*good[:5], "  oops", *good[5:]]) + "\n")
    code, _, err = run_cli(capsys, "gate", data["qrels"], str(broken), data["worse"],
                           "-m", "P@10")  # fmt: skip
    assert code == 2 and err.startswith(f"prfeval: {broken}:6: not valid JSON"), err
    typed = json.loads("\n".join(good))
    typed["per_query"]["3"]["P@10"] = "high"
    wrong = Path(data["dir"]) / "wrong.json"
    wrong.write_text(json.dumps(typed, indent=2))
    code, _, err = run_cli(capsys, "gate", data["qrels"], str(wrong), data["worse"],
                           "-m", "P@10")  # fmt: skip
    assert code == 2 and 'per_query."3"."P@10": expected a number' in err, err


# --- The numbers, against independent sources ---------------------------------------------


def test_means_are_pytrec_evals(data, capsys) -> None:
    _, report, _ = gate_json(capsys, data["qrels"], data["base"], data["worse"], "-m",
                             MEASURES, *FAST)  # fmt: skip
    for measure, v in verdicts(report).items():
        for side, run in (("baseline", "base"), ("candidate", "worse")):
            theirs = pytrec_per_query(data, run, measure)
            assert len(theirs) == N_QUERIES == report["queries"]["n_compared"]
            assert v[side] == pytest.approx(sum(theirs.values()) / N_QUERIES, abs=1e-12)
        assert v["delta"] == pytest.approx(v["candidate"] - v["baseline"], abs=1e-15)
        worse = sum(pytrec_per_query(data, "worse", measure)[q]
                    < pytrec_per_query(data, "base", measure)[q] - 1e-12 for q in DEMOTED)
        assert v["queries_worse"] == worse  # fmt: skip


@pytest.mark.parametrize("test", ["randomization", "ttest", "wilcoxon", "bootstrap"])
def test_p_values_are_compares(data, capsys, test) -> None:
    """The p-values and adjusted p-values ``prfeval compare`` gives, to the last bit."""
    import prfeval

    draws = {"n_permutations": 999, "n_bootstrap": 999, "seed": 3}
    _, report, _ = gate_json(capsys, data["qrels"], data["base"], data["slight"], "-m",
                             MEASURES, "--test", test, "--permutations", "999",
                             "--bootstrap", "999", "--seed", "3")  # fmt: skip
    result = prfeval.compare(data["qrels"], {"base": data["base"], "slight": data["slight"]},
                             MEASURES, test=test, **draws)  # fmt: skip
    for measure, v in verdicts(report).items():
        row = result.row(measure, "slight")
        assert (v["p_value"], v["p_adjusted"]) == (row.p_value, row.p_adjusted), measure
        assert v["candidate"] == row.macro and v["delta"] == row.delta


def test_the_t_test_is_scipys_on_pytrec_evals_values(data, capsys) -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    _, report, _ = gate_json(capsys, data["qrels"], data["base"], data["worse"], "-m",
                             MEASURES, "--test", "ttest", "--correction", "none")  # fmt: skip
    for measure, v in verdicts(report).items():
        before = pytrec_per_query(data, "base", measure)
        after = pytrec_per_query(data, "worse", measure)
        queries = sorted(before, key=int)
        expected = scipy_stats.ttest_rel([after[q] for q in queries],
                                         [before[q] for q in queries]).pvalue  # fmt: skip
        assert v["p_value"] == pytest.approx(expected, rel=1e-9), measure
        assert v["p_adjusted"] == v["p_value"]  # no correction


def test_randomization_p_value_is_the_exact_enumeration(tmp_path, capsys) -> None:
    """Ten queries, one relevant document each, found at rank 1 by the baseline and at ranks
    1 to 10 by the candidate (RR = 1/rank): with every one of the 2^10 sign assignments
    enumerated, the exact p-value is the share at least as extreme as the observed mean
    difference. The Monte Carlo estimate from 200,000 draws is within 4 standard errors."""
    qrels = "".join(f"{q} 0 rel{q} 1\n" for q in range(1, 11))
    base = "".join(f"{q} Q0 rel{q} 1 10.0 b\n" + "".join(
        f"{q} Q0 x{q}-{i} {i + 2} {9 - i}.0 b\n" for i in range(9)) for q in range(1, 11))
    lines = []
    ranks = {q: (q * 7) % 10 + 1 for q in range(1, 11)}  # a mix of small and large drops
    for q in range(1, 11):
        docs = [f"x{q}-{i}" for i in range(9)]
        docs.insert(ranks[q] - 1, f"rel{q}")
        lines += [f"{q} Q0 {d} {i + 1} {10 - i}.0 c\n" for i, d in enumerate(docs)]
    paths = {}
    for name, text in (("qrels", qrels), ("base", base), ("cand", "".join(lines))):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    files = [str(paths[name]) for name in ("qrels", "base", "cand")]
    _, report, _ = gate_json(capsys, *files, "-m", "RR", "--permutations", "200000")
    d = [1.0 / ranks[q] - 1.0 for q in range(1, 11)]
    observed = abs(sum(d))
    extreme = sum(
        abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed - 1e-12
        for signs in itertools.product((1, -1), repeat=10)
    )
    exact = extreme / 2**10
    p = verdicts(report)["RR"]["p_value"]
    assert 0.001 < exact < 0.2  # a case where the estimate has something to get right
    assert abs(p - exact) <= 4 * math.sqrt(exact * (1 - exact) / 200_000) + 1 / 200_000


# --- Saved evaluations --------------------------------------------------------------------


def _without_provenance(report: dict) -> dict:
    out = dict(report)
    for key in ("inputs", "baseline", "candidate", "notes"):
        out.pop(key)
    return out


@pytest.mark.parametrize(("run", "candidate"), [("base", "worse"), ("partial", "worse"),
                                                ("base", "slight")])  # fmt: skip
def test_a_saved_baseline_gives_the_run_files_verdict(data, capsys, run, candidate) -> None:
    """The JSON of ``evaluate --format json -q`` as BASELINE: the same means, p-values,
    queries and verdicts as the run file, with and without --alpha (also for a baseline that
    never answered two queries, which then score as empty rankings on both paths)."""
    saved = _saved(capsys, data, run, f"{run}.json")
    for extra in ([], ["--alpha", "0.05"]):
        argv = ["-m", MEASURES, *FAST, *extra]
        code_run, from_run, _ = gate_json(capsys, data["qrels"], data[run], data[candidate],
                                          *argv)  # fmt: skip
        code_saved, from_saved, _ = gate_json(capsys, data["qrels"], saved, data[candidate],
                                              *argv)  # fmt: skip
        assert code_run == code_saved
        assert _without_provenance(from_saved) == _without_provenance(from_run)
        assert from_saved["inputs"]["baseline"]["kind"] == "saved evaluation"
        assert from_run["inputs"]["baseline"]["kind"] == "run"
    if run == "partial":
        assert from_saved["queries"]["n_compared"] == N_QUERIES
        assert any("partial.json has no results for 2 compared queries" in n
                   for n in from_saved["notes"])  # fmt: skip


def test_a_saved_candidate_works_too(data, capsys) -> None:
    saved = _saved(capsys, data, "worse", "worse.json")
    code, from_saved, _ = gate_json(capsys, data["qrels"], data["base"], saved, "-m", MEASURES,
                                    *FAST)  # fmt: skip
    _, from_run, _ = gate_json(capsys, data["qrels"], data["base"], data["worse"], "-m",
                               MEASURES, *FAST)  # fmt: skip
    assert code == 1
    assert _without_provenance(from_saved) == _without_provenance(from_run)


# --- The held-out queries of a split -------------------------------------------------------


def test_the_held_out_queries_of_a_split_gate_the_build(data, capsys, tmp_path) -> None:
    out = tmp_path / "split"
    code, _, err = run_cli(capsys, "split", data["qrels"], "--holdout", "0.3", "--seed", "5",
                           "--out", str(out))  # fmt: skip
    assert code == 0, err
    held = json.loads((out / "split.json").read_text())["heldout"]
    argv = [data["qrels"], data["base"], data["worse"], "-m", "P@10", *FAST,
            "--queries", str(out / "heldout.queries")]  # fmt: skip
    code, report, _ = gate_json(capsys, *argv)
    assert report["queries"]["compared"] == sorted(held, key=int)
    p10 = pytrec_per_query(data, "worse", "P@10")
    v = verdicts(report)["P@10"]
    assert v["candidate"] == pytest.approx(sum(p10[q] for q in held) / len(held), abs=1e-12)
    assert code == (1 if set(held) & set(DEMOTED) else 0)
    # A baseline saved on every query is not the held-out set's.
    saved = _saved(capsys, data, "base", "all.json")
    code, _, err = run_cli(capsys, "gate", data["qrels"], saved, *argv[2:])
    assert code == 2 and "not comparable" in err and "heldout.queries" in err


# --- The report ---------------------------------------------------------------------------


def test_the_json_report_records_the_digests_of_the_inputs(data, capsys, tmp_path) -> None:
    gz = tmp_path / "worse.run.gz"
    gz.write_bytes(gzip.compress(Path(data["worse"]).read_bytes()))
    saved = _saved(capsys, data, "base", "digest.json")
    code, report, _ = gate_json(capsys, data["qrels"], saved, str(gz), "-m", MEASURES, *FAST)
    assert code == 1
    for role, path in (("qrels", data["qrels"]), ("baseline", saved), ("candidate", gz)):
        recorded = report["inputs"][role]
        assert recorded["sha256"] == hashlib.sha256(Path(path).read_bytes()).hexdigest(), role
        assert recorded["size"] == Path(path).stat().st_size
    assert report["prfeval_version"] and report["settings"]["level"] == 1
    assert report["settings"]["test"] == "randomization" and report["settings"]["alpha"] is None


def test_a_run_from_stdin_is_hashed_as_read(data, capsys, monkeypatch) -> None:
    raw = Path(data["base"]).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    code, report, _ = gate_json(capsys, data["qrels"], "-", data["worse"], "-m", "P@10", *FAST)
    assert code == 1 and report["baseline"] == "<stdin>"
    assert report["inputs"]["baseline"]["sha256"] == hashlib.sha256(raw).hexdigest()


def _markdown_rows(text: str, header: str) -> list[list[str]]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(header))
    rows = []
    for ln in lines[start + 2 :]:
        if not ln.startswith("|"):
            break
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]])
    return rows


def test_the_markdown_summary(data, capsys) -> None:
    argv = [data["qrels"], data["base"], data["worse"], "-m", "P@10 AP", "--max-drop",
            "P@10=0.5", *FAST]  # fmt: skip
    code, out, err = run_cli(capsys, "gate", *argv, "--format", "markdown")
    assert code == 1
    assert out.startswith("### prfeval gate: FAIL\n")
    assert err.startswith("prfeval: gate: FAIL: AP regressed")  # for the job's log
    _, report, _ = gate_json(capsys, *argv)
    rows = _markdown_rows(out, "| measure | baseline | candidate | Δ [95% CI] | worse/better/tied "
                               "| budget | p | p adj. |")  # fmt: skip
    assert [r[0] for r in rows] == ["`P@10`", "`AP`"]
    for row in rows:
        v = verdicts(report)[row[0].strip("`")]
        assert row[1:3] == [f"{v['baseline']:.4f}", f"{v['candidate']:.4f}"]
        assert row[3].startswith(f"{v['delta']:+.4f} \\[")
        assert row[4] == f"{v['queries_worse']}/{v['queries_better']}/{v['queries_same']}"
        assert row[6] == f"{v['p_value']:.4f}"
        assert row[8].startswith("**fail**" if v["failed"] else "pass")
    queries = _markdown_rows(out, "| measure | query |")
    regressed = verdicts(report)["AP"]["regressed"]
    assert [r[1].strip("`") for r in queries] == [c["query_id"] for c in regressed]
    assert all(r[0] == "`AP`" for r in queries)  # P@10 passed: its queries are not listed


def test_output_goes_to_a_file_and_the_status_stays(data, capsys, tmp_path) -> None:
    target = tmp_path / "summary.md"
    code, out, _ = run_cli(capsys, "gate", data["qrels"], data["base"], data["worse"], "-m",
                           "P@10", "--format", "markdown", "-o", str(target), *FAST)  # fmt: skip
    assert code == 1 and out == ""
    assert target.read_text().startswith("### prfeval gate: FAIL")


def test_the_api_returns_the_same_verdicts(data, capsys) -> None:
    from prfeval._comparison.gate import gate

    result = gate(data["qrels"], data["base"], data["worse"], "P@10 AP", n_permutations=2000,
                  max_drop={"ALL": "5%"})  # fmt: skip
    _, report, _ = gate_json(capsys, data["qrels"], data["base"], data["worse"], "-m",
                             "P@10 AP", "--max-drop", "ALL=5%", *FAST)  # fmt: skip
    assert result.exit_status == report["exit_status"] == 1
    assert [v.to_dict() for v in result.verdicts] == report["measures"]


def test_a_saved_baseline_scores_its_unanswered_queries_as_empty_rankings(data, capsys) -> None:
    """SetE of an empty ranking is 1, not 0: the two queries the saved baseline never
    answered take that value, as they do when the run file is measured."""
    path = str(Path(data["dir"]) / "partial-sete.json")
    code, _, err = run_cli(capsys, "evaluate", data["qrels"], data["partial"], "-m", "SetE",
                           "-M", "10", "--format", "json", "-q", "-o", path)  # fmt: skip
    assert code == 0, err
    argv = ["-m", "SetE", "-M", "10", *FAST]
    _, from_saved, _ = gate_json(capsys, data["qrels"], path, data["base"], *argv)
    _, from_run, _ = gate_json(capsys, data["qrels"], data["partial"], data["base"], *argv)
    assert _without_provenance(from_saved) == _without_provenance(from_run)
    saved = json.loads(Path(path).read_text())
    answered = saved["per_query"]
    v = verdicts(from_saved)["SetE"]
    expected = (sum(q["SetE"] for q in answered.values()) + 2 * 1.0) / N_QUERIES
    assert v["baseline"] == pytest.approx(expected, abs=1e-12)


def test_a_saved_held_out_baseline_matches_the_same_ids_under_another_path(
    data, capsys, tmp_path
) -> None:
    out = tmp_path / "split"
    assert run_cli(capsys, "split", data["qrels"], "--holdout", "0.3", "--out", str(out))[0] == 0
    elsewhere = tmp_path / "ci" / "held.txt"
    elsewhere.parent.mkdir()
    elsewhere.write_text((out / "heldout.queries").read_text())
    saved = _saved(capsys, data, "base", "held.json", "--queries", str(out / "heldout.queries"))
    argv = ["-m", MEASURES, *FAST, "--queries", str(elsewhere)]
    code_saved, from_saved, _ = gate_json(capsys, data["qrels"], saved, data["worse"], *argv)
    code_run, from_run, _ = gate_json(capsys, data["qrels"], data["base"], data["worse"], *argv)
    assert code_saved == code_run
    assert _without_provenance(from_saved) == _without_provenance(from_run)


def test_an_evaluation_object_is_a_saved_side(data) -> None:
    import prfeval
    from prfeval._comparison.gate import gate

    evaluation = prfeval.evaluate(data["qrels"], data["partial"], MEASURES)
    from_object = gate(data["qrels"], evaluation, data["worse"], MEASURES, n_permutations=500)
    from_run = gate(data["qrels"], data["partial"], data["worse"], MEASURES, n_permutations=500)
    assert [v.to_dict() for v in from_object.verdicts] == [v.to_dict() for v in from_run.verdicts]
    assert from_object.inputs[1].kind == "saved evaluation" and from_object.inputs[1].sha256 is None


@pytest.mark.parametrize(
    ("option", "value"),
    [("alpha", 1.0), ("alpha", 0.0), ("top", -1), ("seed", -2), ("test", "z"),
     ("correction", "sidak"), ("n_permutations", 0), ("max_drop", {"P@10": -1}),
     ("minimum", {"P@10": "x"}), ("names", ("a",))],
)  # fmt: skip
def test_the_api_checks_its_arguments(data, option, value) -> None:
    from prfeval._comparison.gate import gate
    from prfeval._core.errors import UsageError

    with pytest.raises(UsageError):
        gate(data["qrels"], data["base"], data["worse"], "P@10", **{option: value})
