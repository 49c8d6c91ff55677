"""The Spark engine against the local engine, in Spark's local mode: the same per-query values,
the same macro, micro and F of means to the last digit, the same accounting.

Every registered measure is evaluated (one job for all of them), on seeded data with score
ties, repeated documents, negative grades and queries missing on either side, under each
option that changes how a ranking is built or averaged (-c, -l 2, --unjudged, -J, -M,
duplicates, the query set, rank and file order, --bounds); then the readers (TREC text,
Parquet, CSV, TSV, JSON Lines), a batch size that cuts every query, many partitions, errors,
and pytrec_eval-terrier's P@10. One local[2] session serves the module (``spark`` fixture).
"""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

pytest.importorskip("pyspark")

import prfeval
import prfeval.spark
from prfeval._core.errors import InputFormatError, PrfevalWarning, UsageError
from prfeval._report.evaluation import FORMATS, format_evaluation
from support.measure_specs import every_measure

# The local engine says how many comment lines it skipped; the Spark engine's readers skip
# them in a column expression and do not count them (docs/spark.md). The outputs compared
# here are the same either way.
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*comment lines? starting with:prfeval._core.errors.PrfevalWarning"
)

N_DOCS = 300  # the collection size for the measures that need TN
DEFAULT = "NumQ NumRet NumRel NumRelRet SetP SetR SetF P@5 P@10 R@10 F@10 Rprec IPrec@0.5"


def tables(seed: int, *, ranks: bool = False) -> tuple[pa.Table, pa.Table]:
    """Seeded judgments (grades -1 to 3, some queries with no relevant document) and a run
    with many score ties and some repeated documents; queries 0-3 are only judged, 40-44
    only in the run."""
    rng = np.random.default_rng(seed)
    q, d, g = [], [], []
    for i in range(40):
        for doc in rng.choice(N_DOCS // 2, int(rng.integers(1, 30)), replace=False):
            q.append(f"q{i}")
            d.append(f"d{doc}")
            g.append(int(rng.choice([-1, 0, 0, 1, 2, 3])))
    qrels = pa.table({"query_id": q, "doc_id": d, "relevance": pa.array(g, pa.int64())})
    q, d, s = [], [], []
    for i in range(4, 45):
        docs = rng.choice(N_DOCS // 2, int(rng.integers(1, 40)), replace=False).tolist()
        docs += rng.choice(docs, len(docs) // 8).tolist()  # repeats
        for doc in docs:
            q.append(f"q{i}")
            d.append(f"d{doc}")
            s.append(float(rng.integers(0, 6)) / 2)
    columns = {"query_id": q, "doc_id": d, "score": s}
    if ranks:
        columns["rank"] = [float(x) for x in rng.integers(1, 20, len(q))]
    return qrels, pa.table(columns)


def frames(spark, qrels: pa.Table, run: pa.Table):
    return spark.createDataFrame(qrels), spark.createDataFrame(run)


def assert_same(result, local, *, settings_too: bool = False) -> None:
    """``result`` (Spark) and ``local`` agree on everything, to the last digit."""
    assert result.labels == local.labels
    assert result.macro == local.macro
    assert result.micro == local.micro
    assert result.f_of_means == local.f_of_means
    assert result.accounting == local.accounting
    names = {"qrels", "run"}
    spark_settings = {k: v for k, v in result.settings.items() if settings_too or k not in names}
    local_settings = {k: v for k, v in local.settings.items() if settings_too or k not in names}
    assert spark_settings == local_settings
    collected = result.to_evaluation()
    assert collected.query_ids == local.query_ids
    assert np.array_equal(collected.values, local.values, equal_nan=True)
    assert collected.macro == local.macro and collected.micro == local.micro
    assert collected.coverage.judged == local.coverage.judged
    assert collected.coverage.unjudged == local.coverage.unjudged
    for k in local.coverage.cutoffs:
        assert np.array_equal(
            collected.coverage.per_query_unjudged[k], local.coverage.per_query_unjudged[k]
        )
    summary = result.to_evaluation(per_query=False)
    assert summary.coverage.judged == local.coverage.judged
    assert summary.coverage.unjudged == local.coverage.unjudged
    if local.upper is not None:
        assert result.upper.macro == local.upper.macro
        assert result.upper.micro == local.upper.micro
        assert result.upper.f_of_means == local.upper.f_of_means
        assert result.upper.accounting == local.upper.accounting
        assert np.array_equal(collected.upper.values, local.upper.values, equal_nan=True)
    defined = (~np.isnan(local.values)).sum(axis=1)
    assert result.n_queries == dict(zip(local.labels, defined.tolist(), strict=True))
    result.unpersist()


# -- every measure, every option --------------------------------------------------------------


def test_every_registered_measure(spark):
    qrels, run = tables(1)
    specs = every_measure(subtopics=False)  # the engine refuses them (test_spark_errors.py)
    local = prfeval.evaluate(qrels, run, specs, collection_size=N_DOCS)
    result = prfeval.spark.evaluate(*frames(spark, qrels, run), specs, collection_size=N_DOCS)
    assert len(local.labels) > 50
    assert_same(result, local)


OPTIONS = {
    "complete": {"complete": True},
    "level 2": {"level": 2},
    "unjudged relevant": {"unjudged": "relevant", "unjudged_grade": 2},
    "unjudged drop": {"unjudged": "drop"},
    "judged only": {"judged_only": True},
    "max results": {"max_results": 7},
    "duplicates first": {"duplicates": "first"},
    "query set": {"queries": [f"q{i}" for i in range(0, 45, 2)], "query_set": "even"},
    "excluded": {"exclude_queries": ["q5", "q6", "q44"], "complete": True},
}


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_options(spark, options):
    qrels, run = tables(2)
    local = prfeval.evaluate(qrels, run, DEFAULT, **options)
    result = prfeval.spark.evaluate(*frames(spark, qrels, run), DEFAULT, **options)
    assert_same(result, local)


@pytest.mark.parametrize("order", ["rank", "file"])
def test_rank_and_file_order(spark, order):
    qrels, run = tables(3, ranks=True)
    local = prfeval.evaluate(qrels, run, DEFAULT, order=order)
    result = prfeval.spark.evaluate(*frames(spark, qrels, run), DEFAULT, order=order)
    assert result.settings["order"] == order
    assert_same(result, local)


def test_a_run_without_scores_is_in_its_own_order(spark):
    qrels, run = tables(4)
    run = run.drop(["score"])
    local = prfeval.evaluate(qrels, run, "P@5 SetP Rprec")
    result = prfeval.spark.evaluate(*frames(spark, qrels, run), "P@5 SetP Rprec")
    assert result.settings["order"] == "file"
    assert_same(result, local)
    with pytest.raises(UsageError, match="has no scores to order by"):
        prfeval.spark.evaluate(*frames(spark, qrels, run), "P@5", order="score")


def test_bounds(spark):
    qrels, run = tables(5)
    local = prfeval.evaluate(qrels, run, DEFAULT, bounds=True)
    result = prfeval.spark.evaluate(*frames(spark, qrels, run), DEFAULT, bounds=True)
    assert_same(result, local)
    assert result.upper.per_query.count() == len(local.query_ids) * len(local.labels)


def test_batches_that_cut_every_query_and_many_partitions(spark):
    """A 3-row Arrow batch cuts every query; 7 partitions and one-row blocks change nothing."""
    qrels, run = tables(6)
    local = prfeval.evaluate(qrels, run, DEFAULT)
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    spark.conf.set(key, "3")
    try:
        result = prfeval.spark.evaluate(
            *frames(spark, qrels, run), DEFAULT, partitions=7, block_rows=1
        )
        assert result.partitions == result.rows.rdd.getNumPartitions() == 7
        assert_same(result, local)
    finally:
        spark.conf.unset(key)


def test_per_query_is_a_long_dataframe(spark):
    qrels, run = tables(7)
    local = prfeval.evaluate(qrels, run, "P@5 SetF")
    result = prfeval.spark.evaluate(*frames(spark, qrels, run), "P@5 SetF")
    rows = {(r.query_id, r.measure): r.value for r in result.per_query.collect()}
    expected = {(r.query_id, r.measure): r.value for r in local.to_frame().itertuples()}
    assert rows == expected
    assert result.skipped == {"missing_from_run": 4, "not_in_qrels": 5}
    assert result.unjudged["retrieved"] == local.accounting.unjudged_retrieved


def test_macro_p10_equals_pytrec_eval(spark):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = tables(8)
    # pytrec_eval takes dicts: no repeated documents, so keep each (query, doc) once.
    seen: dict[tuple[str, str], float] = {}
    for q, d, s in zip(*(run.column(c).to_pylist() for c in ("query_id", "doc_id", "score")),
                       strict=True):
        seen.setdefault((q, d), s)
    run = pa.table({"query_id": [q for q, _ in seen], "doc_id": [d for _, d in seen],
                    "score": list(seen.values())})
    run_dict: dict[str, dict[str, float]] = {}
    for (q, d), s in seen.items():
        run_dict.setdefault(q, {})[d] = s
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, g in zip(*(qrels.column(c).to_pylist() for c in ("query_id", "doc_id", "relevance")),
                       strict=True):
        qrels_dict.setdefault(q, {})[d] = g
    per_query = pytrec_eval.RelevanceEvaluator(qrels_dict, {"P_10"}).evaluate(run_dict)
    reference = np.mean([v["P_10"] for v in per_query.values()])
    result = prfeval.spark.evaluate(*frames(spark, qrels, run), "P_10")
    assert result.macro["P_10"] == pytest.approx(reference, abs=1e-15)


# -- reading files ----------------------------------------------------------------------------


def trec_files(tmp_path: Path, qrels: pa.Table, run: pa.Table) -> tuple[str, str]:
    """TREC text with the quirks the readers must take: tabs, runs of spaces, comments,
    blank lines, CRLF line ends and run lines with fields after the tag."""
    lines = ["# judgments", ""]
    for i, (q, d, g) in enumerate(
        zip(*(qrels.column(c).to_pylist() for c in ("query_id", "doc_id", "relevance")),
            strict=True)
    ):
        lines.append(f"{q}\t0  {d} {g}" if i % 3 else f"  {q} 0 {d}\t{g}  ")
    (tmp_path / "qrels.txt").write_text("\n".join(lines) + "\n")
    lines = []
    for i, (q, d, s) in enumerate(
        zip(*(run.column(c).to_pylist() for c in ("query_id", "doc_id", "score")), strict=True)
    ):
        extra = " more fields" if i % 7 == 3 else ""  # read past the tag, as trec_eval does
        lines.append(f"{q} Q0 {d} {i + 1} {s} tag{extra}" + ("\r" if i % 5 == 0 else ""))
    (tmp_path / "run.txt").write_text("\n".join(lines) + "\n")
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def test_trec_text_prints_what_the_local_engine_prints_in_every_format(spark, tmp_path):
    qrels, run = tables(9)
    qrels_path, run_path = trec_files(tmp_path, qrels, run)
    local = prfeval.evaluate(qrels_path, run_path, DEFAULT)
    result = prfeval.spark.evaluate(qrels_path, run_path, DEFAULT, spark=spark)
    assert_same(result, local, settings_too=True)
    collected, summary = result.to_evaluation(), result.to_evaluation(per_query=False)
    for fmt in FORMATS:
        assert format_evaluation(summary, fmt) == format_evaluation(local, fmt)
        assert format_evaluation(collected, fmt, per_query=True) == format_evaluation(
            local, fmt, per_query=True
        )


TEXT_CASES = {
    "by rank": {"order": "rank"},
    "in file order": {"order": "file", "duplicates": "first"},
    "a query set": {"queries": [f"q{i}" for i in range(0, 45, 3)], "complete": True},
    "bounds": {"bounds": True},
}


@pytest.mark.parametrize("options", TEXT_CASES.values(), ids=TEXT_CASES.keys())
def test_trec_text_lines_parsed_on_the_executors(spark, tmp_path, options):
    """TREC text travels as raw lines and is parsed per block: every order and option, and
    3-row Arrow batches with one-row blocks (a block per query), give the local numbers."""
    qrels, run = tables(12, ranks=True)
    qrels_path, run_path = trec_files(tmp_path, qrels, run)
    local_options = {k: v for k, v in options.items() if k != "bounds"}
    local = prfeval.evaluate(
        qrels_path, run_path, DEFAULT, bounds=options.get("bounds", False), **local_options
    )
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    spark.conf.set(key, "3")
    try:
        result = prfeval.spark.evaluate(
            qrels_path, run_path, DEFAULT, spark=spark, partitions=5, block_rows=1, **options
        )
    finally:
        spark.conf.unset(key)
    assert_same(result, local, settings_too=True)


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "lines shuffled"])
@pytest.mark.parametrize("order", ["score", "file"])
def test_a_run_file_in_splits_and_one_not_grouped_by_query(
    spark, tmp_path, monkeypatch, grouped, order
):
    """A TREC run read in many splits (queries cut by them: every split's first and last
    measured once their rows meet), and one whose lines are shuffled (no query in one place:
    found out, and measured by the shuffle), give the local numbers; with the judgments too
    large to broadcast, the shuffle measures it."""
    qrels, run = tables(14)
    qrels_path, run_path = trec_files(tmp_path, qrels, run)
    if not grouped:
        lines = Path(run_path).read_text().splitlines(keepends=True)
        order_of = np.random.default_rng(3).permutation(len(lines))
        Path(run_path).write_text("".join(lines[i] for i in order_of))
    options = {"order": order, "duplicates": "first"} if order == "file" else {}
    monkeypatch.setattr("prfeval.spark._routes.SPLIT_BYTES", 500)  # dozens of splits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrfevalWarning)  # a run not grouped is read whole
        local = prfeval.evaluate(qrels_path, run_path, DEFAULT, **options)
    for broadcast in (1 << 20, 0):
        result = prfeval.spark.evaluate(
            qrels_path, run_path, DEFAULT, spark=spark, block_rows=7, broadcast=broadcast,
            **options,
        )
        assert_same(result, local, settings_too=True)


@pytest.mark.parametrize(
    "options", [{}, {"duplicates": "first", "complete": True}, {"order": "file", "level": 2}]
)
def test_a_run_file_in_splits_read_by_the_compiled_pass(spark, tmp_path, monkeypatch, options):
    """Plain TREC files (the layout the compiled pass takes), read in dozens of splits by
    the pass on the executors: the local numbers (the local engine reads them by the pass
    too, and the shuffled route, which parses with Arrow, agrees)."""
    from prfeval._io import native
    from prfeval._io.plan import compiled_unavailable

    if compiled_unavailable() is not None:
        pytest.skip(f"the compiled pass is not available: {compiled_unavailable()}")
    qrels, run = tables(15)
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    judgments = zip(*(qrels.column(c).to_pylist() for c in ("query_id", "doc_id", "relevance")),
                    strict=True)  # fmt: skip
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in judgments))
    lines = zip(*(run.column(c).to_pylist() for c in ("query_id", "doc_id", "score")), strict=True)
    run_path.write_text(
        "".join(f"{q} Q0 {d} {i + 1} {s} tag\n" for i, (q, d, s) in enumerate(lines))
    )
    monkeypatch.setenv("PRFEVAL_NATIVE", "1")  # the pass, however small the files
    monkeypatch.setattr("prfeval.spark._routes.SPLIT_BYTES", 500)
    taken = []
    pass_takes = native.pass_takes
    monkeypatch.setattr(native, "pass_takes", lambda *a: taken.append(pass_takes(*a)) or taken[-1])
    local = prfeval.evaluate(str(qrels_path), str(run_path), DEFAULT, **options)
    for broadcast in (1 << 20, 0):
        result = prfeval.spark.evaluate(
            str(qrels_path), str(run_path), DEFAULT, spark=spark, broadcast=broadcast, **options
        )
        assert_same(result, local, settings_too=True)
    assert taken == [True]  # the driver sent the splits to the pass (the shuffle reads none)


@pytest.mark.parametrize("text", ["qrels", "run"])
def test_one_side_text_the_other_parquet(spark, tmp_path, text):
    qrels, run = tables(13)
    qrels_path, run_path = trec_files(tmp_path, qrels, run)
    if text == "qrels":
        run_path = write_tabular(tmp_path / "run.parquet", run, "parquet")
    else:
        qrels_path = write_tabular(tmp_path / "qrels.parquet", qrels, "parquet")
    local = prfeval.evaluate(qrels_path, run_path, DEFAULT)
    result = prfeval.spark.evaluate(qrels_path, run_path, DEFAULT, spark=spark)
    assert_same(result, local, settings_too=True)


def test_gzipped_trec_text(spark, tmp_path):
    qrels, run = tables(10)
    qrels_path, run_path = trec_files(tmp_path, qrels, run)
    gz = tmp_path / "run.txt.gz"
    gz.write_bytes(gzip.compress(Path(run_path).read_bytes()))
    local = prfeval.evaluate(qrels_path, str(gz), DEFAULT)
    result = prfeval.spark.evaluate(qrels_path, str(gz), DEFAULT, spark=spark)
    assert_same(result, local, settings_too=True)


def write_tabular(path: Path, table: pa.Table, kind: str) -> str:
    if kind == "parquet":
        pq.write_table(table, path)
    elif kind in ("csv", "tsv"):
        delimiter = "\t" if kind == "tsv" else ","
        pacsv.write_csv(table, path, pacsv.WriteOptions(delimiter=delimiter))
    else:
        path.write_text("".join(json.dumps(row) + "\n" for row in table.to_pylist()))
    return str(path)


@pytest.mark.parametrize("kind", ["parquet", "csv", "tsv", "jsonl"])
def test_tabular_files(spark, tmp_path, kind):
    qrels, run = tables(11)
    qrels = qrels.rename_columns(["qid", "docid", "grade"])  # aliases, as the local readers
    qrels_path = write_tabular(tmp_path / f"qrels.{kind}", qrels, kind)
    run_path = write_tabular(tmp_path / f"run.{kind}", run, kind)
    local = prfeval.evaluate(qrels_path, run_path, DEFAULT)
    result = prfeval.spark.evaluate(qrels_path, run_path, DEFAULT, spark=spark)
    assert_same(result, local, settings_too=True)


# -- errors and empty inputs ------------------------------------------------------------------


def test_a_repeated_document_under_duplicates_error(spark):
    qrels, run = tables(12)
    with pytest.raises(InputFormatError, match="repeated for query") as caught:
        prfeval.spark.evaluate(*frames(spark, qrels, run), "P@5", duplicates="error")
    assert str(caught.value).startswith("run DataFrame: document ")


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("q1 Q0 d1 1 2.0", "expected at least 6 fields, got 5"),
        ("q1 Q0 d1 1 high tag", "score is not a number: 'high'"),
        ("q1 Q0 d1 1 inf tag", "score is not finite: inf"),
    ],
)
def test_a_bad_run_line_names_the_file_and_the_line(spark, tmp_path, line, fragment):
    """A local file's bad line is named by its number, as the local engine names it (in a
    folder, by its text: tests/spark/test_spark_errors.py)."""
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "run.txt").write_text(f"q1 Q0 d2 1 3.0 tag\n{line}\n")
    paths = str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")
    with pytest.raises(InputFormatError) as caught:
        prfeval.spark.evaluate(*paths, "P@5", spark=spark)
    assert str(caught.value) == f"{tmp_path / 'run.txt'}:2: {fragment}"
    with pytest.raises(InputFormatError) as local:
        prfeval.evaluate(*paths, "P@5")
    assert str(caught.value) == str(local.value)


def test_a_bad_grade(spark, tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1.5\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d2 1 3.0 tag\n")
    bad = r"qrels\.txt:1: grade is not an integer: '1\.5'$"
    with pytest.raises(InputFormatError, match=bad):
        prfeval.spark.evaluate(
            str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), "P@5", spark=spark
        )


def test_no_judgments_is_an_error_and_an_empty_run_a_warning(spark, tmp_path):
    qrels, run = tables(13)
    empty_qrels = spark.createDataFrame(qrels.slice(0, 0))
    with pytest.raises(InputFormatError, match="no judgments"):
        prfeval.spark.evaluate(empty_qrels, spark.createDataFrame(run), "P@5")
    empty_run = run.slice(0, 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        local = prfeval.evaluate(qrels, empty_run, "P@5 SetP", complete=True)
        result = prfeval.spark.evaluate(*frames(spark, qrels, empty_run), "P@5 SetP",
                                        complete=True)
    messages = [str(w.message) for w in caught if issubclass(w.category, PrfevalWarning)]
    assert messages == [
        "the run 'run table' is empty: every measure is 0",
        "the run 'run DataFrame' is empty: every measure is 0",
    ]
    assert result.settings["empty_run"] is True
    assert_same(result, local)


def test_inputs_the_engine_does_not_read(spark):
    qrels, run = tables(14)
    with pytest.raises(InputFormatError, match="Spark DataFrame or a path"):
        prfeval.spark.evaluate(qrels, spark.createDataFrame(run), "P@5", spark=spark)
    with pytest.raises(InputFormatError, match="no doc id column"):
        prfeval.spark.evaluate(
            spark.createDataFrame(qrels), spark.createDataFrame(run.drop(["doc_id"])), "P@5"
        )
    with pytest.raises(UsageError, match="bounds"):
        prfeval.spark.evaluate(*frames(spark, qrels, run), "P@5", bounds=True, unjudged="drop")


# -- against MLlib's RankingEvaluator, where the two define the same measure ------------------


def mllib_data(seed: int) -> tuple[pa.Table, pa.Table]:
    """What RankingEvaluator can be compared on: no score ties, no repeated documents,
    binary grades, numeric doc ids (it takes arrays of doubles), every query in both the run
    and the judgments with at least one relevant document (it averages over the rows it is
    given, and has no notion of a judged non-relevant document)."""
    rng = np.random.default_rng(seed)
    qrels_rows, run_rows = [], []
    for q in range(60):
        judged = rng.choice(500, 30, replace=False)
        grades = rng.choice([0, 1], 30)
        grades[0] = 1
        qrels_rows += [(f"q{q}", str(d), int(g)) for d, g in zip(judged, grades, strict=True)]
        docs = rng.choice(500, int(rng.integers(5, 60)), replace=False)
        scores = rng.permutation(docs.size) + rng.random()  # distinct within the query
        run_rows += [(f"q{q}", str(d), float(s)) for d, s in zip(docs, scores, strict=True)]
    qrels = pa.table({k: list(v) for k, v in zip(("query_id", "doc_id", "relevance"),
                                                   zip(*qrels_rows, strict=True), strict=True)})
    run = pa.table({k: list(v) for k, v in zip(("query_id", "doc_id", "score"),
                                                 zip(*run_rows, strict=True), strict=True)})
    return qrels, run


def ranking_evaluator_input(qrels, run):
    """One row per query: the ranked doc ids and the relevant ones, as arrays of doubles."""
    from pyspark.sql import functions as F

    doc = F.col("doc_id").cast("double")
    ranked = run.groupBy("query_id").agg(
        F.sort_array(F.collect_list(F.struct(F.col("score"), doc.alias("d"))), asc=False)
        .alias("r")
    ).select("query_id", F.transform("r", lambda s: s["d"]).alias("prediction"))
    relevant = qrels.where("relevance > 0").groupBy("query_id").agg(
        F.collect_list(doc).alias("label")
    )
    return ranked.join(relevant, "query_id")


AGREE = {  # RankingEvaluator's metric -> prfeval's measure with the same definition
    "precisionAtK": "P@{k}",
    "recallAtK": "R@{k}",
    "ndcgAtK": "nDCG@{k}",  # binary grades: MLlib's nDCG is binary
    "meanAveragePrecision": "AP",  # MLlib's is over the whole ranking, whatever k
}
KS = (1, 5, 10, 100)


@pytest.fixture(scope="module")
def mllib(spark):
    qrels, run = mllib_data(16)
    qrels_df, run_df = frames(spark, qrels, run)
    data = ranking_evaluator_input(qrels_df, run_df).cache()
    yield qrels_df, run_df, data
    data.unpersist()


@pytest.mark.parametrize("metric", AGREE)
def test_ranking_evaluator_where_the_definitions_agree(mllib, metric):
    from pyspark.ml.evaluation import RankingEvaluator

    spec = AGREE[metric]
    qrels_df, run_df, data = mllib
    labels = list(dict.fromkeys(spec.format(k=k) for k in KS))
    result = prfeval.spark.evaluate(qrels_df, run_df, labels)
    for k, label in zip(KS, [spec.format(k=k) for k in KS], strict=True):
        theirs = RankingEvaluator(metricName=metric, k=k).evaluate(data)
        # The same definitions; the sums differ only in their order (MLlib's are not exact).
        assert result.macro[label] == pytest.approx(theirs, rel=1e-12, abs=1e-15), (label, k)
