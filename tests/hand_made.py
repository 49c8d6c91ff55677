"""Small references the tests build by hand, shared so that each is written once: Holm's
correction step by step, and random cases of judgments per subtopic."""

from __future__ import annotations

import random
from typing import Any


def holm_by_hand(p: list[float]) -> list[float]:
    """Holm, step by step: the i-th smallest times (m - i + 1), running max, capped at 1."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


def random_subtopic_case(
    rng: random.Random, max_queries: int = 4
) -> tuple[list[tuple[str, str, str, int]], dict[str, dict[str, float]]]:
    """ndeval-style judgments ``(query, subtopic, doc, grade)`` and a run ``{qid: {doc:
    score}}`` of 1 to ``max_queries`` queries. Grades include 0 and -1; the run holds unjudged
    documents too. Scores are distinct, since ndeval orders tied documents its own way."""
    qrels: list[tuple[str, str, str, int]] = []
    run: dict[str, Any] = {}
    for q in range(rng.randint(1, max_queries)):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(1, 30))]
        for s in range(rng.randint(1, 5)):
            for d in rng.sample(docs, rng.randint(1, len(docs))):
                qrels.append((qid, f"s{s}", d, rng.choice([0, 0, 1, 2, -1])))
        pool = docs + [f"u{i}" for i in range(10)]
        ranked = rng.sample(pool, rng.randint(1, min(25, len(pool))))
        scores = rng.sample(range(1000), len(ranked))
        run[qid] = {d: float(sc) for d, sc in zip(ranked, scores, strict=True)}
    return qrels, run
