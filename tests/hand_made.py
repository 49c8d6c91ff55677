"""Small references the tests build by hand, shared so that each is written once: Holm's
correction step by step, random cases of judgments (per subtopic, and graded with queries
missing from the run), and the TREC lines and files the tests write from dicts."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]


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


def random_graded_case(
    seed: int,
    *,
    n_queries: int,
    grades: list[int],
    skip_every: int,
    id_width: int = 0,
    ties: bool = False,
    tie_order: bool = False,
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Queries ``1..n_queries``, each judging 25 of 40 documents with grades drawn from
    ``grades``; every ``skip_every``-th query is judged but not in the run. A run ranks 1 to 50
    of the 40 judged-pool documents and 20 unjudged ``x`` ones. Scores are distinct (0.00 to
    99.99) or, with ``ties``, drawn from 0 to 5. ``id_width`` zero-pads the ids; ``tie_order``
    lists each query's documents in prfeval's tie order (score descending, doc id descending),
    the order ir_measures keeps for tied documents."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(1, n_queries + 1):
        pool = [f"d{i:0{id_width}d}" for i in range(40)]
        qrels[str(q)] = {d: rng.choice(grades) for d in rng.sample(pool, 25)}
        if q % skip_every == 0:
            continue  # judged, not in the run
        unjudged = [f"x{i:0{id_width}d}" for i in range(20)]
        docs = rng.sample([*pool, *unjudged], rng.randint(1, 50))
        if ties:
            scored = [(float(rng.randint(0, 5)), d) for d in docs]
        else:
            draws = rng.sample(range(10_000), len(docs))
            scored = [(s / 100, d) for s, d in zip(draws, docs, strict=True)]
        if tie_order:
            scored.sort(key=lambda sd: (-sd[0], [-ord(c) for c in sd[1]]))
        run[str(q)] = {d: s for s, d in scored}
    return qrels, run


# -- TREC files ---------------------------------------------------------------------------


def qrels_lines(qrels: Qrels) -> list[str]:
    """Judgments as TREC qrels lines ``query 0 doc grade``, in the dicts' order."""
    return [f"{q} 0 {d} {g}" for q, docs in qrels.items() for d, g in docs.items()]


def run_lines(
    rankings: Iterable[tuple[str, Iterable[tuple[str, float]]]], tag: str = "tag"
) -> list[str]:
    """Rankings ``[(query, [(doc, score), ...])]`` as TREC run lines ``query Q0 doc rank score
    tag``: ranks from 1 in the order given (a document may repeat), scores written by
    ``repr`` so that they read back to the same float."""
    return [
        f"{q} Q0 {d} {rank} {s!r} {tag}"
        for q, pairs in rankings
        for rank, (d, s) in enumerate(pairs, start=1)
    ]


def run_dict_lines(run: Run, tag: str = "tag") -> list[str]:
    """A run ``{query: {doc: score}}`` as TREC run lines, in the dicts' order."""
    return run_lines(((q, docs.items()) for q, docs in run.items()), tag)


def write_lines(path: Path, lines: Iterable[str]) -> Path:
    """``lines`` to ``path``, each ended by a newline, as UTF-8."""
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def write_trec(folder: Path, qrels: Qrels, run: Run) -> tuple[Path, Path]:
    """The dicts as ``folder/qrels.txt`` and ``folder/run.txt``, in the dicts' order."""
    return (
        write_lines(folder / "qrels.txt", qrels_lines(qrels)),
        write_lines(folder / "run.txt", run_dict_lines(run)),
    )


def write_texts(folder: Path, texts: Mapping[str, str]) -> tuple[str, ...]:
    """Each ``{file name: text}`` written in ``folder``: the paths, as strings, in that order."""
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return tuple(str(folder / name) for name in texts)
