"""Seeded random judgments and runs: every generator the tests share, in one place.

``judged_runs`` and ``role_case`` draw with numpy; ``random_graded_case``,
``random_subtopic_case`` and ``trec_edge_case`` with Python's ``random``.

In ``judged_runs`` each query judges a sample of a collection's documents and each run ranks
another sample (numpy's ``Generator.choice`` without replacement); the tests differ only in
the sizes, the grades, the scores and the ids, which are its parameters. The draws are made
in one fixed order (a query's judged documents, their grades one by one, its retrieved
documents, their scores, then each further run's scores), so a seed always gives the same
data. ``role_case`` gives queries roles (only judged, only retrieved, nothing relevant) and
ids whose byte order is not their numeric or case-folded one. ``with_repeats`` turns a run
into rankings that give some documents twice, which a dict cannot hold.

The TREC lines and files are written by tests/support/hand_made.py (``qrels_lines``, ``run_lines``,
``run_dict_lines``, ``write_lines``, ``write_trec``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]
#: A sample's size: fixed (no draw), or drawn as ``integers(low, high)`` (high excluded).
Size = int | tuple[int, int]
#: Grades: ``integers(low, high)`` a document (a pair), or ``choice`` among a list.
Grades = tuple[int, int] | list[int]
#: A run's scores for ``n`` retrieved documents, drawn from the generator.
Scores = Callable[[np.random.Generator, int], np.ndarray]


def _size(rng: np.random.Generator, size: Size) -> int:
    return size if isinstance(size, int) else int(rng.integers(*size))


def _grade(rng: np.random.Generator, grades: Grades) -> int:
    return int(rng.integers(*grades)) if isinstance(grades, tuple) else int(rng.choice(grades))


def rounded(decimals: int, scale: float = 1.0) -> Scores:
    """Uniform scores in ``[0, scale)`` rounded to ``decimals``: few decimals, many ties."""
    return lambda rng, n: np.round(rng.random(n) * scale, decimals)  # * 1.0 changes nothing


def uniform_rounded(low: float, high: float, decimals: int) -> Scores:
    """Uniform scores in ``[low, high)`` rounded to ``decimals``."""
    return lambda rng, n: np.round(rng.uniform(low, high, n), decimals)


def distinct() -> Scores:
    """``n`` distinct scores, a random order of 0.5, 1.5, ...: no ties at all."""
    return lambda rng, n: rng.permutation(n).astype(float) + 0.5


def whole(low: int, high: int) -> Scores:
    """Whole-number scores drawn as ``integers(low, high)`` (high excluded): a few values, so
    ties at every cutoff."""
    return lambda rng, n: rng.integers(low, high, n).astype(float)


@dataclass(frozen=True)
class Noisy:
    """A further run over the same documents: the first run's score plus a normal draw of
    standard deviation ``sd`` (one a document), rounded to ``decimals`` as Python's ``round``
    does (correctly rounded: the value a ``:.{decimals}f`` format reads back as)."""

    sd: float
    decimals: int
    #: numpy's ``np.round`` instead (multiply, round half to even, divide).
    numpy_round: bool = False

    def __call__(self, rng: np.random.Generator, scores: np.ndarray) -> list[float]:
        out = []
        for s in scores:
            value = s + rng.normal(0, self.sd)
            out.append(float(np.round(value, self.decimals)) if self.numpy_round
                       else round(float(value), self.decimals))  # fmt: skip
        return out


def judged_runs(
    seed: int,
    *,
    queries: Iterable[str],
    n_docs: int,
    judged: Size,
    grades: Grades,
    retrieved: Size,
    scores: Scores,
    doc: str | Callable[[int], str] = "d{}",
    also: Sequence[Noisy] = (),
    grades_of: Callable[[int], Grades] | None = None,
    judged_only: Callable[[int], bool] = lambda i: False,
    run_only: Callable[[int], bool] = lambda i: False,
) -> tuple[Qrels, list[Run]]:
    """Judgments and runs over documents ``doc.format(i)`` (or ``doc(i)``), ``i`` in
    ``range(n_docs)``.

    For the ``i``-th query, in order: unless ``run_only(i)`` (in the runs, not judged),
    ``judged`` documents drawn without replacement, each given a grade drawn from ``grades``
    (or from ``grades_of(i)``); then, unless ``judged_only(i)`` (judged, not in the runs),
    ``retrieved`` documents drawn without replacement, scored by ``scores``, and one more run
    for each of ``also``, over the same documents. Returns the judgments and the runs (the
    first, then ``also``'s), each in the order drawn.
    """
    rng = np.random.default_rng(seed)
    name = doc.format if isinstance(doc, str) else doc
    qrels: Qrels = {}
    runs: list[Run] = [{} for _ in range(1 + len(also))]
    for i, q in enumerate(queries):
        if not run_only(i):  # no draws at all for it: the other queries' data stay as they were
            picked = rng.choice(n_docs, size=_size(rng, judged), replace=False)
            these = grades if grades_of is None else grades_of(i)
            qrels[q] = {name(int(d)): _grade(rng, these) for d in picked}
        if judged_only(i):
            continue
        docs = [name(int(d)) for d in rng.choice(n_docs, size=_size(rng, retrieved), replace=False)]
        first = scores(rng, len(docs))
        runs[0][q] = {d: float(s) for d, s in zip(docs, first, strict=True)}
        for run, noisy in zip(runs[1:], also, strict=True):
            run[q] = dict(zip(docs, noisy(rng, first), strict=True))
    return qrels, runs


#: Rankings ``[(query, [(doc, score), ...])]``, as hand_made.run_lines writes them.
Rankings = list[tuple[str, list[tuple[str, float]]]]


def with_repeats(
    rng: np.random.Generator,
    run: Run,
    *,
    repeats: Size,
    scores: Scores,
    where: Callable[[int, int], bool] = lambda i, n: True,
) -> Rankings:
    """The rankings of ``run``, in its order, as ``(doc, score)`` pairs; for the ``i``-th, of
    ``n`` documents, when ``where(i, n)`` holds: ``repeats`` of its documents (at most ``n``,
    drawn without replacement) given once more each, at a random place, with a new score drawn
    by ``scores``. A repeat takes a place in a ranking and counts once as relevant."""
    out: Rankings = []
    for i, (q, docs) in enumerate(run.items()):
        pairs = list(docs.items())
        if where(i, len(pairs)):
            n = min(_size(rng, repeats), len(pairs))
            again = [pairs[int(j)][0] for j in rng.choice(len(pairs), size=n, replace=False)]
            for d, s in zip(again, scores(rng, n), strict=True):
                pairs.insert(int(rng.integers(len(pairs) + 1)), (d, float(s)))
        out.append((q, pairs))
    return out


# -- Queries with roles, and ids whose byte order is not their numeric or case-folded one ----

#: Doc id shapes: byte order differs from numeric order ("10" < "9") and from case-folded
#: order ("D" < "a" < "d"), and a non-ASCII one.
ID_SHAPES = ("d{}", "D{}", "doc-{}", "{}", "Z_{}", "a.{}", "dé{}")
#: trec_eval's grades: negative ones, non-relevant 0 and relevant 1 to 3.
TREC_GRADES = (-2, -1, 0, 0, 1, 1, 2, 3)
NOT_RELEVANT = (-2, -1, 0)


def shaped_ids(rng: np.random.Generator, draws: int, *, below: int,
               shapes: Sequence[str] = ID_SHAPES) -> list[str]:  # fmt: skip
    """The distinct ids of ``draws`` draws (a shape, then a number below ``below``), sorted."""
    return sorted({shapes[int(rng.integers(len(shapes)))].format(int(rng.integers(below)))
                   for _ in range(draws)})  # fmt: skip


@dataclass(frozen=True)
class Roles:
    """What the ``i``-th query is, by ``i % period``: only in the run, only judged, or judged
    with nothing relevant at any level (the other queries are judged and retrieved)."""

    period: int
    only_in_run: int
    only_judged: int
    nothing_relevant: int


@dataclass(frozen=True)
class Hits:
    """Judged documents added to a query's ranking, so that there are hits to count: each
    judged one with probability 1/2, when more than ``above`` were drawn; ``sorted`` joins
    them as ``np.unique`` does (in byte order, without repeats), else they are appended (the
    ones not drawn already)."""

    above: int
    sorted: bool = False


def role_case(
    seed: int,
    *,
    queries: Sequence[str],
    roles: Roles,
    pool: Callable[[np.random.Generator], list[str]],
    judged: tuple[int, int],
    retrieved: Sequence[int],
    hits: Hits,
    nothing_relevant_drawn_again: bool = False,
    positive_zero: bool = True,
) -> tuple[Qrels, Run]:
    """Judgments and a run with every role of ``roles``: ``judged`` (an ``integers`` range)
    documents of ``pool`` judged with TREC_GRADES (NOT_RELEVANT for a query with nothing
    relevant), a ranking of ``retrieved`` (a ``choice`` of sizes, at most the pool) documents
    plus the ``hits``, scored in [-1, 2) to one decimal (ties; ``positive_zero`` writes -0.0
    as 0.0). ``nothing_relevant_drawn_again``: such a query's grades are drawn twice, the
    first draw thrown away (the draws of tests/retrieval/test_pytrec_agreement.py)."""
    rng = np.random.default_rng(seed)
    docs_pool = pool(rng)
    grades, not_relevant = np.array(TREC_GRADES), np.array(NOT_RELEVANT)
    qrels: Qrels = {}
    run: Run = {}
    for i, q in enumerate(queries):
        role = i % roles.period
        if role != roles.only_in_run:
            docs = rng.choice(docs_pool, size=int(rng.integers(*judged)), replace=False)
            nothing = role == roles.nothing_relevant
            if nothing and nothing_relevant_drawn_again:
                rng.choice(grades, size=docs.size)
            g = rng.choice(not_relevant if nothing else grades, size=docs.size)
            qrels[q] = {str(d): int(x) for d, x in zip(docs, g, strict=True)}
        if role == roles.only_judged:
            continue
        n_ret = min(int(rng.choice(retrieved)), len(docs_pool))
        ranked = list(rng.choice(docs_pool, size=n_ret, replace=False))
        if q in qrels and n_ret > hits.above:
            picked = [d for d in qrels[q] if rng.random() < 0.5]
            if hits.sorted:
                ranked = list(np.unique(np.array([*ranked, *picked], dtype=object)))
            else:
                ranked += [d for d in picked if d not in ranked]
        scores = np.round(rng.uniform(-1.0, 2.0, size=len(ranked)), 1)
        if positive_zero:
            scores = scores + 0.0  # -0.0 + 0.0 is 0.0
        run[q] = {str(d): float(s) for d, s in zip(ranked, scores, strict=True)}
    return qrels, run


# -- With Python's random: graded cases, ndeval's subtopics, trec_eval's edges ------------


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


def trec_edge_case(seed: int, n_queries: int = 24) -> tuple[dict, dict]:
    """Judgments and a run with every edge trec_eval has: numeric and other query ids, doc ids
    whose byte order is not their case-folded one, grades -2 to 4 (some queries judged 0/1
    only), every 9th query only in the run, every 9th (offset 7) only judged, every 9th
    (offset 4) with nothing relevant, one-document runs, unjudged documents, and scores tied
    exactly, tied only as C floats (trec_eval reads scores as float), or spread."""
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
