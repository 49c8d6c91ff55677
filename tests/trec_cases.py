"""Shared by the trec_eval tests: seeded random judgments and runs with every edge trec_eval
has, trec_eval 9's ranking order, and pytrec_eval's C evaluator."""

from __future__ import annotations

import random

import numpy as np


def random_case(seed: int, n_queries: int = 24) -> tuple[dict, dict]:
    """Judgments and a run with every edge trec_eval has (see the module docstring)."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(n_queries):
        q = f"q{i}" if i % 5 else str(100 + i)
        role = i % 9
        pool = [f"d{j:02d}" for j in range(rng.randint(1, 30))] + ["D1", "D2", "é3"]
        if role != 8:  # every 9th query is only in the run
            grades = [0, 0, 0, 1, 1, 2, 3, 4, -1, -2] if rng.random() < 0.6 else [0, 1]
            if role == 4:  # judged, nothing relevant
                grades = [0, 0, -1]
            judged = {d: rng.choice(grades) for d in pool if rng.random() < 0.6}
            if not judged or max(judged.values()) < 0:
                judged[pool[0]] = 0  # pytrec_eval crashes on a query with only negative grades
            qrels[q] = judged
        if role == 7:  # every 9th query is only in the judgments
            continue
        n = 1 if role == 3 else rng.randint(1, len(pool) + 8)
        docs = rng.sample(pool + [f"x{j}" for j in range(10)], min(n, len(pool) + 10))
        scores = {}
        for d in docs:
            mode = rng.random()
            if mode < 0.3:
                scores[d] = float(rng.randint(0, 4))  # ties: doc id descending
            elif mode < 0.45:
                scores[d] = 1.0 + rng.choice([0.0, 1e-9, 3e-9, 1e-7])  # ties in float32 only
            else:
                scores[d] = rng.uniform(-5, 5)
        run[q] = scores
    return qrels, run


def trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval 9's ranking: score (as a C float) descending, doc id descending in bytes."""
    by_id = sorted(docs, key=lambda d: d.encode(), reverse=True)
    return sorted(by_id, key=lambda d: -float(np.float32(docs[d])))


def pytrec(qrels, run, measures, level=1, judged_only=False):
    """pytrec_eval's C evaluator, which takes trec_eval's measure syntax as it is."""
    import pytrec_eval_ext

    evaluator = pytrec_eval_ext.RelevanceEvaluator(qrels, set(measures), level, int(judged_only))
    return evaluator.evaluate(run)
