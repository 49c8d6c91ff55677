"""The demo reproduces seed 000's Cranfield numbers from real data, a real ranker and prfeval.

Expected values are the seed's printed numbers (three decimals; counts and ranks exactly) and,
for the whole run, pytrec_eval-terrier's P_10 and recall_100 on the files the demo wrote.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("bm25s")
pytest.importorskip("Stemmer")
pytest.importorskip("matplotlib")

from prfeval._demo.run import run_demo

SEED_TABLE = {  # k: (relevant retrieved, P, R, F1), seed 000
    9: (5, 0.556, 0.208, 0.303),
    10: (5, 0.500, 0.208, 0.294),
    50: (8, 0.160, 0.333, 0.216),
    200: (12, 0.060, 0.500, 0.107),
    1400: (24, 0.017, 1.000, 0.034),
}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return run_demo(tmp_path_factory.mktemp("demo"))


def test_seed_table_for_query_2(report):
    assert report.n_relevant == 24
    got = {r.k: (r.relevant_retrieved, round(r.precision, 3), round(r.recall, 3), round(r.f1, 3))
           for r in report.rows}
    assert got == SEED_TABLE


def test_best_cutoff_recall_half_and_unscored(report):
    assert (report.best.k, round(report.best.f1, 3)) == (9, 0.303)
    assert (report.recall_half.k, round(report.recall_half.precision, 3)) == (173, 0.069)
    assert report.n_scored == 783
    assert len(report.relevant_unscored) == 3
    first_three = report.curves["2"].tp[:3].tolist()
    assert first_three == [1, 2, 3]  # "the first three results are relevant"


def test_whole_run_against_pytrec_eval(report):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for line in report.files["qrels"].read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: dict[str, dict[str, float]] = {}
    for line in report.files["run"].read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    assert len(run) == 225 and all(len(docs) == 1400 for docs in run.values())
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"P_10", "recall_100"}).evaluate(run)
    p10 = sum(v["P_10"] for v in per_query.values()) / len(per_query)
    r100 = sum(v["recall_100"] for v in per_query.values()) / len(per_query)
    assert round(p10, 4) == 0.2342
    assert round(r100, 4) == 0.7373
    assert report.evaluation.macro["P@10"] == pytest.approx(p10, abs=1e-12)
    assert report.evaluation.macro["R@100"] == pytest.approx(r100, abs=1e-12)


def test_files_written(report):
    saved = json.loads(report.files["evaluation"].read_text())
    assert saved["queries"]["evaluated"] == 225
    assert round(saved["macro"]["P@10"], 4) == 0.2342
    for role in ("query_tradeoff", "macro_tradeoff", "f1_contours", "fbeta_contours"):
        data = report.files[role].read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, role


def test_demo_command_as_a_new_user_runs_it(cranfield_demo):
    """`prfeval demo --out DIR` (what `make demo` runs), in a process of its own, prints the
    seed's numbers. The session's one run (tests/conftest.py), which fails on a non-zero
    exit."""
    out = cranfield_demo
    assert "0.303 at k = 9" in out.stdout
    assert "rank 173, where P = 0.069" in out.stdout
    assert "positive score: 783" in out.stdout
    assert "Traceback" not in out.stderr
    assert (out.out / "run.trec").exists()
