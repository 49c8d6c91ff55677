"""Generate a synthetic, seeded TREC run and its judgments for the benchmarks.

Usage::

    python bench/generate.py --queries 10000 --docs-per-query 1000 --out bench/data/10m

writes ``run.trec`` (``qid Q0 docid rank score tag``), ``run_b.trec`` (the same documents with
perturbed scores: a second system to compare with), ``qrels.trec`` (``qid 0 docid grade``) and
``meta.json`` (the parameters, so that ``--reuse`` can tell whether the files are current).

What the data looks like, so that every tool has real work to do:

- document ids ``doc0012345`` drawn from a collection of ``--collection`` documents; each
  query retrieves ``--docs-per-query`` distinct documents, grouped by query, in rank order;
- scores rounded to ``--score-decimals`` decimals, so that ties are common, and within a tie
  the file order is random (not doc id order), so a tool's tie rule matters;
- between ``--judged-min`` and ``--judged-max`` judged documents per query with grades
  -1 (rare), 0, 1 and 2, of which only a fraction is retrieved; relevant documents score
  higher on average, so precision at the top is above the base rate;
- about 1 % of the run's queries have no judgments, about 1 % of the judged queries are not
  in the run and about 2 % of the judged queries have no relevant document.

Everything is built as numpy columns and written with pyarrow's CSV writer (space separated),
so ten million lines take seconds, not minutes. No Python loop runs per query or per line.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

UNJUDGED = np.int8(-128)
"""Grade stored for a pooled document that has no judgment (never written to the qrels)."""

RUN_TAG = "prfeval-bench"

FORMAT = 4
"""Bumped whenever the generator's output for a given spec changes, so old files are rebuilt."""


@dataclass(frozen=True)
class Spec:
    """Every parameter that determines the generated files (same spec, same bytes).

    Parameters
    ----------
    queries
        Number of queries in the run.
    docs_per_query
        Number of documents each run query retrieves (the run has ``queries * docs_per_query``
        lines).
    collection
        Number of documents in the collection the ids are drawn from.
    judged_min, judged_max
        Range (inclusive) of the number of judged documents per judged query.
    score_decimals
        Scores are rounded to this many decimals; fewer decimals, more ties.
    run_only_fraction
        Fraction of the run's queries that have no judgments.
    qrels_only_fraction
        Extra judged queries that are not in the run, as a fraction of ``queries``.
    no_relevant_fraction
        Fraction of judged queries whose judgments are all non-relevant (grade <= 0).
    seed
        Seed of numpy's default generator.
    """

    queries: int
    docs_per_query: int
    collection: int = 1_000_000
    judged_min: int = 100
    judged_max: int = 300
    score_decimals: int = 2
    run_only_fraction: float = 0.01
    qrels_only_fraction: float = 0.01
    no_relevant_fraction: float = 0.02
    seed: int = 42

    def check(self) -> None:
        """Raise ``ValueError`` when the parameters cannot produce a valid data set."""
        if self.queries < 1 or self.docs_per_query < 1:
            raise ValueError("--queries and --docs-per-query must be at least 1")
        if not 0 <= self.judged_min <= self.judged_max:
            raise ValueError("need 0 <= --judged-min <= --judged-max")
        if self.collection < self.docs_per_query + self.judged_max:
            raise ValueError(
                "--collection must hold at least docs-per-query + judged-max documents "
                f"({self.docs_per_query + self.judged_max})"
            )
        for name in ("run_only_fraction", "qrels_only_fraction", "no_relevant_fraction"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"{name} must be in [0, 1)")


@dataclass(frozen=True)
class Dataset:
    """The generated data as columns, before formatting.

    ``qids`` labels every query (run and judged ones); the run and qrels columns index into it
    and into the collection's document ids.
    """

    qids: pa.Array
    doc_names: pa.Array
    run_q: npt.NDArray[np.int64]
    run_doc: npt.NDArray[np.int64]
    run_rank: npt.NDArray[np.int32]
    run_score: npt.NDArray[np.float64]
    qrels_q: npt.NDArray[np.int64]
    qrels_doc: npt.NDArray[np.int64]
    qrels_grade: npt.NDArray[np.int8]
    run_b_doc: npt.NDArray[np.int64]
    run_b_score: npt.NDArray[np.float64]


def doc_names(n: int) -> pa.Array:
    """Return the ids ``doc0000000`` ... of a collection of ``n`` documents (pyarrow strings)."""
    width = max(7, len(str(n - 1)))
    digits = pc.cast(pa.array(np.arange(n, dtype=np.int64)), pa.string())
    return pc.binary_join_element_wise("doc", pc.utf8_lpad(digits, width, padding="0"), "")


def _coprime_strides(rng: np.random.Generator, n: int, modulus: int) -> npt.NDArray[np.int64]:
    """Draw ``n`` strides in [1, modulus) coprime with ``modulus`` (rejection sampling)."""
    strides = rng.integers(1, modulus, size=n, dtype=np.int64)
    bad = np.gcd(strides, modulus) != 1
    while bad.any():
        strides[bad] = rng.integers(1, modulus, size=int(bad.sum()), dtype=np.int64)
        bad = np.gcd(strides, modulus) != 1
    return strides


def n_run_only(spec: Spec) -> int:
    """Number of the run's queries that get no judgments."""
    return math.ceil(spec.run_only_fraction * spec.queries)


def n_qrels_only(spec: Spec) -> int:
    """Number of judged queries that are not in the run."""
    return math.ceil(spec.qrels_only_fraction * spec.queries)


def generate(spec: Spec) -> Dataset:
    """Build the run and the judgments of ``spec`` as columns (see the module docstring).

    Each query draws a pool of ``docs_per_query + judged_max`` distinct documents: the first
    ``docs_per_query`` are retrieved, and a window of the pool that overlaps the retrieved part
    by a random fraction (30 % to 90 %) is judged. Distinctness without a per-query loop comes
    from walking a random permutation of the collection along an arithmetic progression whose
    stride is coprime with the collection size.
    """
    spec.check()
    rng = np.random.default_rng(spec.seed)
    n_run = spec.queries
    n_extra = n_qrels_only(spec)
    n_total = n_run + n_extra
    depth = spec.docs_per_query
    pool = depth + spec.judged_max

    # Distinct documents per query: perm[(start + stride * j) mod N], j < pool.
    perm = rng.permutation(spec.collection).astype(np.int64)
    start = rng.integers(0, spec.collection, size=n_total, dtype=np.int64)
    stride = _coprime_strides(rng, n_total, spec.collection)
    steps = np.arange(pool, dtype=np.int64)
    docs = perm[(start[:, None] + stride[:, None] * steps[None, :]) % spec.collection]

    # Judged window [lo, hi) of the pool; its first `overlap` positions are retrieved.
    n_judged = rng.integers(spec.judged_min, spec.judged_max + 1, size=n_total)
    overlap = np.minimum(np.rint(rng.uniform(0.3, 0.9, size=n_total) * n_judged), depth)
    lo = (depth - overlap).astype(np.int64)
    hi = lo + n_judged
    cols = np.arange(pool)[None, :]
    judged = (cols >= lo[:, None]) & (cols < hi[:, None])

    # Grades: a per-query relevance rate; a few -1; some queries with nothing relevant.
    rate = rng.uniform(0.05, 0.4, size=n_total)[:, None]
    u = rng.random(size=(n_total, pool))
    grades = np.where(u < 0.3 * rate, 2, np.where(u < rate, 1, np.where(u > 0.98, -1, 0)))
    no_rel = rng.random(n_total) < spec.no_relevant_fraction
    grades[no_rel] = np.minimum(grades[no_rel], 0)
    grades = np.where(judged, grades, UNJUDGED).astype(np.int8)

    # Query ids "1" .. "n_total"; run-only queries lose their judgments.
    qids = pc.cast(pa.array(np.arange(1, n_total + 1, dtype=np.int64)), pa.string())
    run_only = rng.choice(n_run, size=n_run_only(spec), replace=False)
    in_qrels = np.ones(n_total, dtype=bool)
    in_qrels[run_only] = False

    # Scores of the retrieved part: noise plus a boost for relevant documents, rounded.
    g = grades[:n_run, :depth]
    noise = rng.normal(size=(n_run, depth))
    raw = 50.0 + 5.0 * noise + 5.0 * (g == 1) + 10.0 * (g == 2)
    score = np.round(np.maximum(raw, 0.01), spec.score_decimals)
    # Rank order: score descending; within a tie, pool order, which is random in doc id.
    order = np.argsort(-score, axis=1, kind="stable")
    run_doc = np.take_along_axis(docs[:n_run, :depth], order, axis=1).ravel()
    run_score = np.take_along_axis(score, order, axis=1).ravel()
    run_q = np.repeat(np.arange(n_run, dtype=np.int64), depth)
    run_rank = np.tile(np.arange(1, depth + 1, dtype=np.int32), n_run)

    # The second run: the same documents, each score moved by more noise (drawn last, so the
    # first run is the same with or without it).
    raw_b = raw + 4.0 * rng.normal(size=(n_run, depth))
    score_b = np.round(np.maximum(raw_b, 0.01), spec.score_decimals)
    order_b = np.argsort(-score_b, axis=1, kind="stable")
    run_b_doc = np.take_along_axis(docs[:n_run, :depth], order_b, axis=1).ravel()
    run_b_score = np.take_along_axis(score_b, order_b, axis=1).ravel()

    keep = judged & in_qrels[:, None]
    qrels_q, qrels_col = np.nonzero(keep)
    return Dataset(
        qids=qids,
        doc_names=doc_names(spec.collection),
        run_q=run_q,
        run_doc=run_doc,
        run_rank=run_rank,
        run_score=run_score,
        qrels_q=qrels_q.astype(np.int64),
        qrels_doc=docs[qrels_q, qrels_col],
        qrels_grade=grades[qrels_q, qrels_col],
        run_b_doc=run_b_doc,
        run_b_score=run_b_score,
    )


def _constant(value: str, n: int) -> pa.Array:
    """A string column of ``n`` copies of ``value``, built without a Python list."""
    return pa.array([value]).take(pa.array(np.zeros(n, dtype=np.int64)))


def _write_space_separated(table: pa.Table, path: Path) -> None:
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(table, str(path), write_options=options)


def write_trec(data: Dataset, out: Path) -> tuple[int, int]:
    """Write ``run.trec``, ``run_b.trec`` and ``qrels.trec`` under ``out``; return the line
    counts of the run and of the judgments."""
    out.mkdir(parents=True, exist_ok=True)
    n = len(data.run_q)
    run = pa.table(
        {
            "qid": data.qids.take(pa.array(data.run_q)),
            "q0": _constant("Q0", n),
            "docid": data.doc_names.take(pa.array(data.run_doc)),
            "rank": pa.array(data.run_rank),
            "score": pa.array(data.run_score),
            "tag": _constant(RUN_TAG, n),
        }
    )
    _write_space_separated(run, out / "run.trec")
    run_b = run.set_column(2, "docid", data.doc_names.take(pa.array(data.run_b_doc)))
    run_b = run_b.set_column(4, "score", pa.array(data.run_b_score))
    _write_space_separated(run_b, out / "run_b.trec")
    m = len(data.qrels_q)
    qrels = pa.table(
        {
            "qid": data.qids.take(pa.array(data.qrels_q)),
            "iter": _constant("0", m),
            "docid": data.doc_names.take(pa.array(data.qrels_doc)),
            "grade": pa.array(data.qrels_grade),
        }
    )
    _write_space_separated(qrels, out / "qrels.trec")
    return n, m


def current_meta(spec: Spec, out: Path) -> dict[str, object] | None:
    """The ``meta.json`` under ``out`` if it and both files are there and match ``spec``."""
    meta_path = out / "meta.json"
    files = ("run.trec", "run_b.trec", "qrels.trec")
    if meta_path.exists() and all((out / name).exists() for name in files):
        meta: dict[str, object] = json.loads(meta_path.read_text())
        if meta.get("format") == FORMAT and meta.get("spec") == asdict(spec):
            return meta
    return None


def write_dataset(spec: Spec, out: Path) -> dict[str, object]:
    """Generate and write the data set of ``spec``; write and return its ``meta.json``."""
    t0 = time.perf_counter()
    data = generate(spec)
    t1 = time.perf_counter()
    n_run, n_qrels = write_trec(data, out)
    t2 = time.perf_counter()
    meta: dict[str, object] = {
        "format": FORMAT,
        "spec": asdict(spec),
        "run_lines": n_run,
        "run_queries": spec.queries,
        "qrels_queries": spec.queries - n_run_only(spec) + n_qrels_only(spec),
        "shared_queries": spec.queries - n_run_only(spec),
        "qrels_lines": n_qrels,
        "run_bytes": (out / "run.trec").stat().st_size,
        "qrels_bytes": (out / "qrels.trec").stat().st_size,
        "generate_s": round(t1 - t0, 3),
        "write_s": round(t2 - t1, 3),
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line of ``bench/generate.py``."""
    defaults = Spec(queries=1, docs_per_query=1)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, required=True, help="queries in the run")
    p.add_argument("--docs-per-query", type=int, required=True, help="retrieved per query")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--collection", type=int, default=defaults.collection)
    p.add_argument("--judged-min", type=int, default=defaults.judged_min)
    p.add_argument("--judged-max", type=int, default=defaults.judged_max)
    p.add_argument("--score-decimals", type=int, default=defaults.score_decimals)
    p.add_argument("--run-only-fraction", type=float, default=defaults.run_only_fraction)
    p.add_argument("--qrels-only-fraction", type=float, default=defaults.qrels_only_fraction)
    p.add_argument("--no-relevant-fraction", type=float, default=defaults.no_relevant_fraction)
    p.add_argument("--seed", type=int, default=defaults.seed)
    p.add_argument(
        "--reuse",
        action="store_true",
        help="keep the files under --out when their meta.json matches these parameters",
    )
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    args = parse_args(argv)
    spec = Spec(
        queries=args.queries,
        docs_per_query=args.docs_per_query,
        collection=args.collection,
        judged_min=args.judged_min,
        judged_max=args.judged_max,
        score_decimals=args.score_decimals,
        run_only_fraction=args.run_only_fraction,
        qrels_only_fraction=args.qrels_only_fraction,
        no_relevant_fraction=args.no_relevant_fraction,
        seed=args.seed,
    )
    try:
        meta = (current_meta(spec, args.out) if args.reuse else None) or write_dataset(
            spec, args.out
        )
    except ValueError as exc:
        print(f"generate.py: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(meta, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
