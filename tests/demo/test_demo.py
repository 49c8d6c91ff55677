"""The demo reproduces seed 000's Cranfield numbers from real data, a real ranker and prfeval.

Expected values are the seed's printed numbers (three decimals; counts and ranks exactly) and,
for the whole run, pytrec_eval-terrier's P_10 and recall_100 on the files the demo wrote. All
is read from the session's one ``prfeval demo`` (tests/conftest.py, ``cranfield_demo``), run in
a process of its own as a new user runs it: what it printed and the files it wrote.
"""

from __future__ import annotations

import json
import re

import pytest

SEED_TABLE = {  # k: (relevant retrieved, P, R, F1), seed 000
    9: (5, 0.556, 0.208, 0.303),
    10: (5, 0.500, 0.208, 0.294),
    50: (8, 0.160, 0.333, 0.216),
    200: (12, 0.060, 0.500, 0.107),
    1400: (24, 0.017, 1.000, 0.034),
}


def _trec(path, columns: tuple[int, int, int]) -> dict[str, dict[str, str]]:
    """``{query: {doc: field}}`` of a TREC file: the columns of the query, doc and field."""
    out: dict[str, dict[str, str]] = {}
    q, d, f = columns
    for line in path.read_text().splitlines():
        parts = line.split()
        out.setdefault(parts[q], {})[parts[d]] = parts[f]
    return out


def test_seed_table_for_query_2(cranfield_demo):
    out = cranfield_demo.stdout
    assert "Cranfield query 2 ranked by BM25 (24 relevant of 1,400):" in out
    # The table's rows: "  9   5   0.556   0.208   0.303", k with thousands separators.
    rows = re.findall(r"^  ([\d,]+) +(\d+) +([\d.]+) +([\d.]+) +([\d.]+)$", out, re.M)
    got = {int(k.replace(",", "")): (int(n), float(p), float(r), float(f))
           for k, n, p, r, f in rows}  # fmt: skip
    assert got == SEED_TABLE


def test_best_cutoff_recall_half_and_unscored(cranfield_demo):
    out = cranfield_demo.stdout
    assert "Best F1: 0.303 at k = 9 (P = 0.556, R = 0.208)." in out
    assert "Recall first reaches 0.5 at rank 173, where P = 0.069." in out
    assert "Documents with a positive score: 783." in out
    assert "Relevant documents sharing no term with the query: 3;" in out
    # "the first three results are relevant": the run file's top three for query 2, judged
    # 1 or more (Cranfield's -1 is "not relevant").
    ranks = _trec(cranfield_demo.out / "run.trec", (0, 2, 3))["2"]
    grades = _trec(cranfield_demo.out / "qrels.trec", (0, 2, 3))["2"]
    top = sorted(ranks, key=lambda d: int(ranks[d]))[:3]
    assert all(int(grades.get(d, 0)) >= 1 for d in top), top


def test_whole_run_against_pytrec_eval(cranfield_demo):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    grades = _trec(cranfield_demo.out / "qrels.trec", (0, 2, 3))
    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in grades.items()}
    scores = _trec(cranfield_demo.out / "run.trec", (0, 2, 4))
    run = {q: {d: float(s) for d, s in docs.items()} for q, docs in scores.items()}
    assert len(run) == 225 and all(len(docs) == 1400 for docs in run.values())
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"P_10", "recall_100"}).evaluate(run)
    p10 = sum(v["P_10"] for v in per_query.values()) / len(per_query)
    r100 = sum(v["recall_100"] for v in per_query.values()) / len(per_query)
    assert round(p10, 4) == 0.2342
    assert round(r100, 4) == 0.7373
    saved = json.loads((cranfield_demo.out / "evaluation.json").read_text())
    assert saved["macro"]["P@10"] == pytest.approx(p10, abs=1e-12)
    assert saved["macro"]["R@100"] == pytest.approx(r100, abs=1e-12)


def test_files_written(cranfield_demo):
    out = cranfield_demo.out
    saved = json.loads((out / "evaluation.json").read_text())
    assert saved["queries"]["evaluated"] == 225
    assert round(saved["macro"]["P@10"], 4) == 0.2342
    for name in ("query2_tradeoff", "macro_tradeoff", "f1_contours", "fbeta_contours"):
        data = (out / f"{name}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, name
    assert (out / "run.trec").exists()
    assert "Traceback" not in cranfield_demo.stderr
