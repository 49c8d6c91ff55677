"""Additive partials and the one assembler: a result reduced from ANY split of the units
(random partitions, added in random orders) equals the whole's bit for bit, for every
registry measure's macro, micro and F of means, for classification's averages and for the
numbers trec_eval's summary rows print.

The whole's numbers are checked against references computed here by hand: ``math.fsum`` (the
correctly rounded sum) over the defined values for a mean, a plain Python loop in byte order
of the ids for trec_eval's sums, Python's integer sums of the cells for a micro average.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import random

import numpy as np
import pytest

import prfeval
from prfeval._classification.averages import MEASURES, averages, measures
from prfeval._core.aggregate import assemble
from prfeval._core.counts import Counts
from prfeval._core.options import EvalOptions
from prfeval._core.partials import Cells, Partial
from prfeval._measures import REGISTRY, Measure, parse_measures
from prfeval._retrieval.evaluate import plan_evaluation
from prfeval._retrieval.kernel import MeasuredQueries
from prfeval._retrieval.pipeline import run_pipeline
from support.measure_specs import every_measure
from support.random_data import random_graded_case

N_DOCS = 200
SPECS = every_measure(subtopics=False)


def same(a: float | None, b: float | None) -> bool:
    """Equal to the last bit (NaN equal to NaN, and 0.0 not -0.0)."""
    if a is None or b is None:
        return a is b
    return np.float64(a).tobytes() == np.float64(b).tobytes() or (math.isnan(a) and math.isnan(b))


def random_split(rng: random.Random, n: int) -> list[np.ndarray]:
    """The positions 0..n-1 shuffled and cut into 1 to 6 parts (some maybe empty)."""
    order = list(range(n))
    rng.shuffle(order)
    cuts = sorted(rng.randint(0, n) for _ in range(rng.randint(0, 5)))
    bounds = [0, *cuts, n]
    return [np.array(order[a:b], dtype=np.int64) for a, b in itertools.pairwise(bounds)]


def reduced(rng: random.Random, measured: MeasuredQueries, *, ids: bool = False) -> Partial:
    """The partials of a random split of the queries, added in a random order and grouping."""
    n = len(measured.query_ids)
    parts = [measured.take(idx).partial(ids=ids) for idx in random_split(rng, n)]
    rng.shuffle(parts)
    while len(parts) > 1:  # add neighbours at random places: any bracketing
        i = rng.randrange(len(parts) - 1)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return parts[0]


@functools.cache
def measured_case(seed: int) -> MeasuredQueries:
    """Every numeric registry measure (subtopic ones aside) of a random graded case with
    ties and queries missing from the run, each query's values and tables."""
    qrels, run = random_graded_case(seed, n_queries=23, grades=[-1, 0, 1, 2, 3], skip_every=5,
                                    ties=True)  # fmt: skip
    opts = EvalOptions.build(None, collection_size=N_DOCS)
    planned = plan_evaluation(SPECS, opts, bounds=False)
    sink, _ = run_pipeline(qrels, run, opts, planned.needs, planned.new_sink)
    return sink.result().only(list(range(planned.n_numeric)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_any_split_of_the_queries_assembles_to_the_whole(seed):
    measured = measured_case(seed)
    assert len(measured.measures) > 50
    whole = assemble(measured.partial())
    rng = random.Random(seed)
    for _ in range(5):
        split = assemble(reduced(rng, measured))
        for m, a, b in zip(measured.measures, whole, split, strict=True):
            assert same(a.macro, b.macro), str(m)
            assert same(a.micro, b.micro), str(m)
            assert same(a.of_means, b.of_means), str(m)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_whole_is_the_correctly_rounded_average(seed):
    """The reference: fsum of the defined values over their number (trec_eval's mean for a
    measure of the ranking: NaN when one is NaN), Python's sum for totals, the measure of the
    integer cell sums for micro."""
    measured = measured_case(seed)
    whole = assemble(measured.partial())
    checked_micro = 0
    for i, (m, s) in enumerate(zip(measured.measures, whole, strict=True)):
        d = m.definition
        v = [float(x) for x in measured.values[i]]
        defined = [x for x in v if not math.isnan(x)]
        if d.aggregation == "sum":
            assert same(s.macro, math.fsum(defined)), str(m)
        elif d.aggregation == "gmean":
            logs = [math.log(max(x, 0.00001)) for x in defined]
            assert same(s.macro, math.exp(math.fsum(logs) / len(logs))), str(m)
        elif d.ranked is not None and len(defined) < len(v):
            assert math.isnan(s.macro), str(m)
        else:
            expected = math.fsum(defined) / len(defined) if defined else 0.0
            assert same(s.macro, expected), str(m)
        c = measured.counts[i]
        if c is not None and d.aggregation != "sum":
            cells = [np.array([float(sum(int(x) for x in cell))])
                     for cell in (c.tp, c.fp, c.fn, c.tn) if cell is not None]  # fmt: skip
            expected = float(d.counts(Counts(*cells), m, 0.0)[0])
            assert same(s.micro, expected), str(m)
            checked_micro += 1
    assert checked_micro > 20


def test_evaluate_reads_the_sum_of_the_blocks_partials():
    """``evaluate``'s averages are the assembler's of the whole partial, which no split
    changes: the same whichever order the run's queries come in."""
    qrels, run = random_graded_case(4, n_queries=30, grades=[0, 1, 2], skip_every=7, ties=True)
    whole = prfeval.evaluate(qrels, run, SPECS, collection_size=N_DOCS)
    reordered = dict(reversed(list(run.items())))
    other = prfeval.evaluate(qrels, reordered, SPECS, collection_size=N_DOCS)
    for label in whole.labels:
        assert same(whole.macro[label], other.macro[label]), label
        assert same(whole.micro.get(label), other.micro.get(label)), label
        assert same(whole.f_of_means.get(label), other.f_of_means.get(label)), label


@pytest.mark.parametrize("seed", [5, 6])
def test_trec_eval_sums_in_byte_order_from_any_split(seed):
    """trec_eval's summary: values added one after another in byte order of the ids, over
    more queries than measured (``-c``), whatever the split."""
    measured = measured_case(seed)
    numeric = [i for i, m in enumerate(measured.measures) if m.definition.aggregation != "gmean"]
    measured = measured.only(numeric[:30])
    n_queries = len(measured.query_ids) + 3
    rng = random.Random(seed)
    ids = [str(q) for q in measured.query_ids]
    order = sorted(range(len(ids)), key=lambda i: ids[i].encode())
    assert order != list(range(len(ids)))  # "10" < "2": byte order is not the ids' order
    whole = assemble(measured.partial(ids=True), trec_eval_queries=n_queries)
    for i, (m, s) in enumerate(zip(measured.measures, whole, strict=True)):
        total = 0.0
        for j in order:  # C's loop
            total += float(measured.values[i, j])
        expected = total if m.definition.aggregation == "sum" else total / n_queries
        assert same(s.macro, expected), str(m)
    for _ in range(5):
        split = assemble(reduced(rng, measured, ids=True), trec_eval_queries=n_queries)
        assert all(same(a.macro, b.macro) for a, b in zip(whole, split, strict=True))


@pytest.mark.parametrize("weighted", [False, True], ids=["counts", "sample weights"])
@pytest.mark.parametrize("zd", [0.0, 1.0, math.nan], ids=["zd0", "zd1", "zdnan"])
def test_classification_averages_from_any_split_of_the_classes(weighted, zd):
    rng = np.random.default_rng(7)
    split_rng = random.Random(7)
    beta = 2.0
    for _ in range(20):
        k = int(rng.integers(1, 9))
        cells = [rng.random(k) * 4 if weighted else rng.integers(0, 4, k) * 1.0
                 for _ in range(4)]  # fmt: skip
        c = Counts(*cells)
        values = measures(c, beta, zd)
        whole = averages(c, values, beta, zd)
        matrix = np.vstack([values[key] for key in MEASURES])
        by_key = {d.classification: d for d in REGISTRY.values() if d.classification}
        defs = tuple(Measure(by_key[key], beta=beta) for key in MEASURES)
        parts = [
            Partial.of(defs, matrix[:, idx], tuple(c.select(idx) for _ in defs),
                       weights=c.relevant[idx], zero_division=zd)
            for idx in random_split(split_rng, k)
        ]  # fmt: skip
        split_rng.shuffle(parts)
        summed = functools.reduce(operator.add, parts)
        split = dict(zip(MEASURES, assemble(summed, empty=zd, zero_division=zd), strict=True))
        for key in MEASURES:
            assert same(whole["macro"][key], split[key].macro), key
            assert same(whole["micro"][key], split[key].micro), key
            assert same(whole["weighted"][key], split[key].weighted), key
        assert same(whole["f_of_means"]["f"], split["f"].of_means)
        # The reference for the macro precision: fsum over the defined classes.
        p = [float(x) for x in values["precision"] if not math.isnan(x)]
        assert same(whole["macro"]["precision"], math.fsum(p) / len(p) if p else zd)


def test_cells_add_exactly():
    a = Cells.of(Counts(np.array([0.1, 0.2]), np.array([1.0, 0.0]), np.array([0.0, 0.0])))
    b = Cells.of(Counts(np.array([0.3]), np.array([2.0]), np.array([5.0])))
    pooled = (a + b).counts()
    assert pooled.tp[0] == math.fsum([0.1, 0.2, 0.3]) == 0.6  # (0.1 + 0.2) + 0.3 is not
    assert (pooled.fp[0], pooled.fn[0]) == (3.0, 5.0)


def test_partials_of_other_measures_do_not_add():
    a = MeasuredQueries.empty(parse_measures("P@5")).partial()
    b = MeasuredQueries.empty(parse_measures("P@10")).partial()
    with pytest.raises(ValueError, match="different measures"):
        a + b


@pytest.mark.slow
@pytest.mark.spark
def test_spark_reduces_to_the_local_result(spark):
    """Spark's partitions emit their partials; the driver's result equals the local one to
    the last bit, for every measure, with many partitions."""
    import pyarrow as pa

    import prfeval.spark

    qrels, run = random_graded_case(8, n_queries=40, grades=[-1, 0, 1, 2], skip_every=6,
                                    ties=True)  # fmt: skip
    q_rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    r_rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    q_table = pa.table({"query_id": [r[0] for r in q_rows], "doc_id": [r[1] for r in q_rows],
                        "relevance": pa.array([r[2] for r in q_rows], pa.int64())})
    r_table = pa.table({"query_id": [r[0] for r in r_rows], "doc_id": [r[1] for r in r_rows],
                        "score": [r[2] for r in r_rows]})  # fmt: skip
    local = prfeval.evaluate(q_table, r_table, SPECS, collection_size=N_DOCS)
    result = prfeval.spark.evaluate(
        spark.createDataFrame(q_table), spark.createDataFrame(r_table), SPECS,
        collection_size=N_DOCS, partitions=7, persist=False,
    )  # fmt: skip
    for label in local.labels:
        assert same(result.macro[label], local.macro[label]), label
        assert same(result.micro.get(label), local.micro.get(label)), label
        assert same(result.f_of_means.get(label), local.f_of_means.get(label)), label


def test_trec_eval_sums_of_logged_values_and_missing_queries():
    """trec_eval's summary from a partial with ids (hand counts): values added in byte
    order of the ids; with ``-c`` the third, missing query adds 0 to a mean and the floor
    0.00001 to a geometric mean; with ``logged`` (the z-scores of ``-Z``), a geometric mean's
    values are already logs, summed as they are."""
    (gmap,) = parse_measures("GMAP")
    (p5,) = parse_measures("P@5")
    ids = ["q2", "q10"]  # byte order: q10 before q2
    partial = Partial.of((p5, gmap), [[0.4, 0.2], [0.5, 0.25]], ids=ids)
    p, g = assemble(partial, trec_eval_queries=3)
    assert p.macro == (0.2 + 0.4) / 3
    assert g.macro == math.exp((math.log(0.25) + math.log(0.5) + math.log(0.00001)) / 3)
    logged = Partial.of((gmap,), [[-1.5, 0.5]], ids=ids)
    (z,) = assemble(logged, trec_eval_queries=3, logged=True)
    assert z.macro == math.exp((0.5 + -1.5 + math.log(0.00001)) / 3)
    with pytest.raises(ValueError, match="ids"):
        assemble(Partial.of((p5,), [[0.4]]), trec_eval_queries=1)


def test_weighted_mean_without_tables():
    """Weights without contingency tables still give the weighted mean over the defined
    units (NaN left out): (0.5 * 3 + 1.0 * 1) / 4 by hand."""
    (p5,) = parse_measures("P@5")
    (s,) = assemble(Partial.of((p5,), [[0.5, math.nan, 1.0]], weights=[3, 7, 1]))
    assert s.weighted == (0.5 * 3 + 1.0 * 1) / 4
    assert s.macro == 0.75
