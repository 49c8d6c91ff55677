"""The pipeline end to end, against pytrec_eval-terrier (trec_eval 9.0.8) as the oracle.

Seeded random judgments and runs (graded and negative grades, tied scores broken by doc id
descending, queries missing on either side, queries with nothing relevant, runs shorter than
the cutoffs) are written as TREC files and evaluated through three sources: the file read
whole, the same file read in blocks of a few whole queries (the compiled pass, its blocks
made small), and plain dicts. Every expected number is
pytrec_eval's, or for ``-c`` a hand rule over pytrec_eval's values (a judged query the run
lacks scores 0, with NumRel its relevant count). Then the pieces: the streamed source's last
block, QueryAccounting.merge, MeasuredQueries.concat/take, what a ranking is valid for, the
fallback from streaming to reading whole, and the two encoders.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

from prfeval import evaluate  # noqa: E402
from prfeval._core.errors import PrfevalWarning  # noqa: E402
from prfeval._core.options import EvalOptions  # noqa: E402
from prfeval._core.ranking import QueryAccounting, RankingNeeds  # noqa: E402
from prfeval._io import load_qrels, load_run, native_blocks  # noqa: E402
from prfeval._io.blocks import WholeSource  # noqa: E402
from prfeval._io.native_lib import compiled_unavailable  # noqa: E402
from prfeval._measures import parse_measures, ranking_needs  # noqa: E402
from prfeval._retrieval.encode import encode_dicts, encode_tables  # noqa: E402
from prfeval._retrieval.evaluate import summarise  # noqa: E402
from prfeval._retrieval.kernel import MeasuredQueries, measure_queries  # noqa: E402
from prfeval._retrieval.pipeline import (  # noqa: E402
    MeasureSink,
    align,
    drain,
    open_source,
    run_pipeline,
)
from support.hand_made import qrels_lines, run_lines, write_lines  # noqa: E402
from support.measure_specs import every_measure  # noqa: E402
from support.random_data import Hits, Roles, role_case, shaped_ids  # noqa: E402

TOL = 1e-9

# prfeval label -> pytrec_eval measure (also the key of its answer)
PYTREC = {
    "P@5": "P_5",
    "P@10": "P_10",
    "R@10": "recall_10",
    "R@100": "recall_100",
    "SetP": "set_P",
    "SetR": "set_recall",
    "SetF": "set_F",
    "Rprec": "Rprec",
    "NumRet": "num_ret",
    "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret",
}
MEASURES = " ".join(PYTREC)
TOTALS = {"NumRet", "NumRel", "NumRelRet"}

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


# -- data ------------------------------------------------------------------------------------


def random_data(seed: int) -> tuple[Qrels, Run]:
    """Judgments and a run (no repeated documents, so pytrec_eval can take it as a dict).

    Query roles by position: every 7th only in the run, every 7th (offset 4) only in the
    judgments, every 7th (offset 2) judged with nothing relevant.
    """
    qids = [str(i) for i in range(1, 22)]
    if seed % 2:  # not all numeric: output order by bytes
        qids += ["q7", "Q10", "topic-3"]
    return role_case(
        seed, queries=qids, roles=Roles(period=7, only_in_run=6, only_judged=4,
                                        nothing_relevant=2),
        pool=lambda rng: shaped_ids(rng, 260, below=80), judged=(1, 35),
        retrieved=(1, 3, 7, 12, 40, 90), hits=Hits(above=3),
    )  # fmt: skip


def write_trec(tmp_path: Path, qrels: Qrels, run: Run, *, seed: int) -> tuple[Path, Path]:
    """TREC files: the run grouped by query (in a shuffled query order), lines shuffled within
    each query (the order of the lines must not matter), single spaces."""
    rng = np.random.default_rng(seed + 100)
    rankings = []
    for qi in rng.permutation(len(run)):
        q = list(run)[qi]
        items = list(run[q].items())
        rankings.append((q, [items[j] for j in rng.permutation(len(items))]))
    return (
        write_lines(tmp_path / "qrels.txt", qrels_lines(qrels)),
        write_lines(tmp_path / "run.txt", run_lines(rankings)),
    )


def pytrec(qrels: Qrels, run: Run, level: int = 1) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query values, keyed by prfeval label."""
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values()), relevance_level=level)
    return {
        q: {label: values[name] for label, name in PYTREC.items()}
        for q, values in ev.evaluate(run).items()
    }


def expected_macro(per_query: dict[str, dict[str, float]], label: str) -> float:
    values = [v[label] for v in per_query.values()]
    return float(np.sum(values)) if label in TOTALS else float(np.mean(values))


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """The compiled pass's blocks of whole queries, about 16 lines each: many blocks."""
    monkeypatch.setattr(native_blocks, "BLOCK_ROWS", 16)


needs_pass = pytest.mark.skipif(compiled_unavailable() is not None,
                                reason="the compiled pass is the reader in blocks")


def streamed_source(qrels_path, run_path, opts, measures=MEASURES):
    """The run read in blocks (the compiled pass; without it, read whole)."""
    needs = ranking_needs(parse_measures(measures))
    return open_source(str(qrels_path), str(run_path), opts, needs, stream=True)


def evaluate_streamed(qrels_path, run_path, measures=MEASURES, **options):
    """The run read in blocks through the pipeline."""
    opts = EvalOptions(**options)
    parsed = parse_measures(measures)
    source = streamed_source(qrels_path, run_path, opts, parsed)
    sink, done = drain(source, opts, ranking_needs(parsed), MeasureSink(parsed, opts))
    return summarise(sink.result(), done.accounting, done.settings(opts)), sink, done


def assert_agrees(result, expected) -> None:
    assert set(result.query_ids) == set(expected)
    got = result.per_query
    for q, values in expected.items():
        for label, value in values.items():
            assert got[q][label] == pytest.approx(value, abs=TOL), (q, label)
    for label in PYTREC:
        assert result.macro[label] == pytest.approx(expected_macro(expected, label), abs=TOL), (
            label
        )


@pytest.fixture(params=[0, 1, 2], ids=lambda s: f"seed{s}")
def data(request, tmp_path):
    qrels, run = random_data(request.param)
    qrels_path, run_path = write_trec(tmp_path, qrels, run, seed=request.param)
    return qrels, run, qrels_path, run_path


def test_the_data_exercises_the_edge_cases(data):
    qrels, run, _, run_path = data
    assert set(qrels) - set(run) and set(run) - set(qrels)
    assert any(g < 0 for docs in qrels.values() for g in docs.values())
    assert any(all(g <= 0 for g in qrels[q].values()) for q in set(qrels) & set(run))
    scores = [s for docs in run.values() for s in docs.values()]
    assert len(set(scores)) < len(scores) / 3  # many ties
    assert any(len(docs) < 5 for docs in run.values())
    assert run_path.stat().st_size > 10 * 512  # many blocks when streamed


# -- three sources, one oracle ---------------------------------------------------------------


def test_file_read_whole_agrees_with_pytrec_eval(data):
    qrels, run, qrels_path, run_path = data
    result = evaluate(qrels_path, run_path, MEASURES, stream=False)
    assert not result.settings["streamed"]
    assert_agrees(result, pytrec(qrels, run))


@needs_pass
def test_file_streamed_in_small_blocks_agrees_with_pytrec_eval(data):
    qrels, run, qrels_path, run_path = data
    result, sink, done = evaluate_streamed(qrels_path, run_path)
    assert done.streamed and len(sink.parts) > 5  # measured block by block
    assert_agrees(result, pytrec(qrels, run))


@needs_pass
def test_every_measure_streamed_in_small_blocks_equals_the_whole_run_bit_for_bit(data):
    # A query's value must not depend on the block it is measured in: running sums, means
    # and maxima are all per query, never over the block.
    _, _, qrels_path, run_path = data
    specs = every_measure()
    streamed, sink, _ = evaluate_streamed(qrels_path, run_path, specs, collection_size=300)
    whole = evaluate(qrels_path, run_path, specs, collection_size=300, stream=False)
    assert len(sink.parts) > 5 and len(whole.labels) > 50
    assert streamed.query_ids == whole.query_ids
    for row, label in enumerate(whole.labels):
        assert np.array_equal(streamed.values[row], whole.values[row], equal_nan=True), label
    assert streamed.macro == pytest.approx(whole.macro, nan_ok=True, rel=0, abs=0)


def test_dicts_agree_with_pytrec_eval(data):
    qrels, run, _, _ = data
    result = evaluate(qrels, run, MEASURES)
    assert_agrees(result, pytrec(qrels, run))


@pytest.mark.parametrize("level", [2, 3])
def test_sources_agree_at_a_higher_relevance_level(data, level):
    qrels, run, qrels_path, run_path = data
    expected = pytrec(qrels, run, level=level)
    assert_agrees(evaluate(qrels_path, run_path, MEASURES, level=level, stream=False), expected)
    assert_agrees(evaluate_streamed(qrels_path, run_path, level=level)[0], expected)
    assert_agrees(evaluate(qrels, run, MEASURES, level=level), expected)


def test_streamed_micro_is_the_measure_of_pooled_pytrec_counts(data):
    qrels, run, qrels_path, run_path = data
    pq = pytrec(qrels, run)
    tp = sum(v["NumRelRet"] for v in pq.values())
    ret = sum(v["NumRet"] for v in pq.values())
    rel = sum(v["NumRel"] for v in pq.values())
    result = evaluate_streamed(qrels_path, run_path)[0]
    assert result.micro["SetP"] == pytest.approx(tp / ret, abs=TOL)
    assert result.micro["SetR"] == pytest.approx(tp / rel, abs=TOL)
    assert result.micro["SetF"] == pytest.approx(2 * tp / (ret + rel), abs=TOL)
    # P@10 pooled: 10 places per query, TP@10 = P@10 * 10
    tp10 = sum(round(v["P@10"] * 10) for v in pq.values())
    assert result.micro["P@10"] == pytest.approx(tp10 / (10 * len(pq)), abs=TOL)


# -- the streamed source's last block --------------------------------------------------------


class Recorder:
    """A sink keeping each block's query ids, retrieved counts and accounting."""

    def __init__(self) -> None:
        self.blocks: list[tuple[list[str], list[int], QueryAccounting]] = []

    def add(self, ranking) -> None:
        self.blocks.append(
            ([str(q) for q in ranking.query_ids], ranking.n_retrieved.tolist(),
             ranking.accounting)
        )


def output_order(ids) -> tuple[str, ...]:
    """Numeric order when every id is a number, else byte order (DESIGN.md)."""
    ids = list(ids)
    if all(i.isdigit() for i in ids):
        return tuple(sorted(ids, key=int))
    return tuple(sorted(ids, key=str.encode))


@needs_pass
def test_streamed_last_block_accounts_for_judged_queries_never_retrieved(data):
    qrels, run, qrels_path, run_path = data
    missing = output_order(set(qrels) - set(run))
    opts = EvalOptions()
    source = streamed_source(qrels_path, run_path, opts)
    sink, done = drain(source, opts, ranking_needs(parse_measures(MEASURES)), Recorder())
    last_ids, last_retrieved, last_accounting = sink.blocks[-1]
    assert last_ids == [] and last_retrieved == []
    assert last_accounting.missing_from_run == missing
    assert done.accounting.missing_from_run == missing
    assert done.accounting.not_in_qrels == output_order(set(run) - set(qrels))
    assert done.accounting.evaluated == len(set(qrels) & set(run))


@needs_pass
def test_streamed_complete_evaluates_missing_queries_as_empty(data):
    qrels, run, qrels_path, run_path = data
    missing = set(qrels) - set(run)
    opts = EvalOptions(complete=True)
    source = streamed_source(qrels_path, run_path, opts)
    recorded, _ = drain(source, opts, ranking_needs(parse_measures(MEASURES)), Recorder())
    last_ids, last_retrieved, _ = recorded.blocks[-1]
    assert sorted(last_ids) == sorted(missing)
    assert last_retrieved == [0] * len(missing)

    result, _, done = evaluate_streamed(qrels_path, run_path, complete=True)
    expected = pytrec(qrels, run)
    for q in missing:
        expected[q] = {label: 0.0 for label in PYTREC}
        expected[q]["NumRel"] = float(sum(g >= 1 for g in qrels[q].values()))
    assert_agrees(result, expected)
    assert done.accounting.complete
    assert done.accounting.evaluated == len(qrels)
    assert done.accounting.missing_from_run == output_order(missing)


# -- accounting and measured parts -----------------------------------------------------------


def test_query_accounting_merge_adds_counts_and_orders_ids():
    a = QueryAccounting(2, missing_from_run=("10",), not_in_qrels=("30",), duplicates=1,
                        unjudged_retrieved=3)
    b = QueryAccounting(3, missing_from_run=("9", "2"), duplicates=2, unjudged_retrieved=4,
                        dropped_unjudged=1, truncated=5)
    merged = QueryAccounting.merge([a, b], complete=True)
    assert merged == QueryAccounting(
        evaluated=5,
        missing_from_run=("2", "9", "10"),  # numeric ids: by number
        not_in_qrels=("30",),
        duplicates=3,
        unjudged_retrieved=7,
        dropped_unjudged=1,
        truncated=5,
        complete=True,
    )
    mixed = QueryAccounting.merge(
        [QueryAccounting(1, missing_from_run=("q2", "9")), QueryAccounting(1, ("10",))],
        complete=False,
    )
    assert mixed.missing_from_run == ("10", "9", "q2")  # not all numbers: by bytes
    assert not mixed.complete and mixed.evaluated == 2
    assert merged.to_dict()["missing_from_run"] == ["2", "9", "10"]


def test_concat_then_take_in_output_order_equals_measuring_at_once(data):
    qrels, run, _, _ = data
    parsed = parse_measures(MEASURES)
    both = sorted(set(qrels) & set(run))
    first, second = both[::2], both[1::2]
    whole = measure_queries(align(qrels, run), parsed)
    part_1 = measure_queries(align(qrels, run, queries=first), parsed)
    part_2 = measure_queries(align(qrels, run, queries=second), parsed)
    joined = MeasuredQueries.concat([part_2, part_1])  # not in output order
    ids = [str(q) for q in joined.query_ids]
    assert sorted(ids) == sorted(both)
    expected_ids = output_order(ids)
    back = joined.take([ids.index(q) for q in expected_ids])
    assert tuple(str(q) for q in back.query_ids) == expected_ids
    assert tuple(str(q) for q in whole.query_ids) == expected_ids
    assert np.array_equal(back.values, whole.values)
    for c_back, c_whole in zip(back.counts, whole.counts, strict=True):
        assert np.array_equal(c_back.tp, c_whole.tp)
        assert np.array_equal(c_back.fp, c_whole.fp)
        assert np.array_equal(c_back.fn, c_whole.fn)
    assert back.query_counts.keys() == whole.query_counts.keys()
    for name in whole.query_counts:
        assert np.array_equal(back.query_counts[name], whole.query_counts[name])
    # And the values are pytrec_eval's.
    expected = pytrec(qrels, run)
    labels = [str(m) for m in parsed]
    for i, q in enumerate(expected_ids):
        for j, label in enumerate(labels):
            assert back.values[j, i] == pytest.approx(expected[q][label], abs=TOL)


def test_accounted_adds_up_the_chosen_queries():
    # Ranked lists may repeat a document: query 1 repeats "a" once and retrieves unjudged
    # "z" (4 places, "a" relevant once: SetP = 1/4); query 2 retrieves unjudged "y" and "x"
    # (SetP = 1/3).
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    run = {"1": ["a", "z", "a", "b"], "2": ["y", "c", "x"]}
    measured = measure_queries(align(qrels, run), parse_measures("NumRet SetP"))
    assert measured.values.tolist() == [[4.0, 3.0], [0.25, 1 / 3]]
    acc = measured.accounted(missing_from_run=())
    assert (acc.evaluated, acc.duplicates, acc.unjudged_retrieved) == (2, 1, 3)
    only_2 = measured.take([1]).accounted()
    assert (only_2.evaluated, only_2.duplicates, only_2.unjudged_retrieved) == (1, 0, 2)


# -- what a ranking is valid for --------------------------------------------------------------


def test_align_on_dicts_for_set_measures_has_no_document_ids(data):
    qrels, run, _, _ = data
    jr = align(qrels, run, needs=RankingNeeds(None))
    assert jr.doc_vocab is None
    assert jr.needs.cutoffs is None and not jr.needs.doc_ids
    measured = measure_queries(jr, parse_measures("Rprec SetP P@5"))
    expected = pytrec(qrels, run)
    for i, q in enumerate(map(str, measured.query_ids)):
        assert measured.values[0, i] == pytest.approx(expected[q]["Rprec"], abs=TOL)
        assert measured.values[2, i] == pytest.approx(expected[q]["P@5"], abs=TOL)


@pytest.mark.parametrize("spec", ["Rprec", "P@5", "R@100", "IPrec@0.5"])
def test_measure_queries_refuses_a_ranking_built_for_less(data, spec):
    qrels, run, _, _ = data
    jr = align(qrels, run, needs=RankingNeeds(frozenset({10})))
    with pytest.raises(RuntimeError, match="does not cover"):
        measure_queries(jr, parse_measures(spec))


def test_a_ranking_built_for_cutoff_ten_serves_p_at_ten(data):
    qrels, run, _, _ = data
    jr = align(qrels, run, needs=RankingNeeds(frozenset({10})))
    measured = measure_queries(jr, parse_measures("P@10 R@10 SetF NumRet"))
    expected = pytrec(qrels, run)
    for i, q in enumerate(map(str, measured.query_ids)):
        assert measured.values[0, i] == pytest.approx(expected[q]["P@10"], abs=TOL)
        assert measured.values[1, i] == pytest.approx(expected[q]["R@10"], abs=TOL)
        assert measured.values[2, i] == pytest.approx(expected[q]["SetF"], abs=TOL)


# -- sources and the fallback ----------------------------------------------------------------


def test_open_source_picks_the_source(data, monkeypatch):
    qrels, run, qrels_path, run_path = data
    opts, needs = EvalOptions(), ranking_needs(parse_measures(MEASURES))
    streamed = open_source(qrels_path, run_path, opts, needs, stream=True)
    if compiled_unavailable() is None:  # only the compiled pass reads in blocks
        assert streamed.plan.in_blocks and streamed.streamed
    monkeypatch.setenv("PRFEVAL_NATIVE", "0")  # no compiled pass: read whole, even asked
    assert isinstance(open_source(qrels_path, run_path, opts, needs, stream=True), WholeSource)
    assert isinstance(open_source(qrels_path, run_path, opts, needs), WholeSource)  # small
    assert isinstance(open_source(qrels_path, run_path, opts, needs, stream=False), WholeSource)
    source = open_source(qrels, run, opts, needs, stream=True)  # run_pipeline says why
    assert isinstance(source, WholeSource) and not source.streamed
    (block,) = source.blocks()
    assert block.dicts


def test_run_pipeline_falls_back_from_an_ungrouped_run(tmp_path, data):
    qrels, run, qrels_path, run_path = data
    lines = run_path.read_text(encoding="utf-8").splitlines()
    # Move the first line of a query with several lines to the end: that query is now in
    # two places.
    at = next(i for i in range(len(lines) - 1) if lines[i].split()[0] == lines[i + 1].split()[0])
    ungrouped = tmp_path / "ungrouped.txt"
    moved = [*lines[:at], *lines[at + 1 :], lines[at]]
    ungrouped.write_text("\n".join(moved) + "\n", encoding="utf-8")
    parsed = parse_measures(MEASURES)
    opts = EvalOptions()
    said = ("not grouped by query; reading it whole instead" if compiled_unavailable() is None
            else "only the compiled pass reads a run in blocks")  # fmt: skip
    with pytest.warns(PrfevalWarning, match=said):
        sink, done = run_pipeline(
            str(qrels_path), str(ungrouped), opts, ranking_needs(parsed),
            lambda: MeasureSink(parsed, opts), stream=True,
        )
    assert not done.streamed
    assert_agrees(summarise(sink.result(), done.accounting, done.settings(opts)),
                  pytrec(qrels, run))
    if compiled_unavailable() is not None:
        return
    # The grouped file streams with no warning and gives the same numbers.
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrfevalWarning)
        streamed = evaluate(qrels_path, run_path, MEASURES, stream=True)
    assert streamed.settings["streamed"]
    assert_agrees(streamed, pytrec(qrels, run))


# -- the two encoders --------------------------------------------------------------------------


def test_encoders_join_each_row_with_its_judgment():
    qrels = {"2": {"a": 2, "b": -1}, "10": {"c": 1}, "7": {"d": 0}}
    run = {"10": {"c": 1.0, "x": 0.5}, "2": {"b": 3.0, "a": 1.0, "y": 1.0}, "99": {"a": 1.0}}
    by_dicts = encode_dicts(qrels, run)
    by_tables = encode_tables(load_qrels(qrels), load_run(run))
    for enc in (by_dicts, by_tables):
        assert [str(q) for q in enc.query_ids] == ["2", "10"]  # numeric output order
        assert enc.missing_from_run == ("7",)
        assert enc.not_in_qrels == ("99",)
        rows = {
            enc.row_names(i)[:2]: (int(enc.grade[i]) if enc.found[i] else None)
            for i in range(len(enc.slot))
            if enc.slot[i] >= 0
        }
        assert rows == {
            ("2", "b"): -1, ("2", "a"): 2, ("2", "y"): None, ("10", "c"): 1, ("10", "x"): None,
        }
        assert sorted(enc.judged_grades.tolist()) == [-1, 1, 2]
        assert enc.judged_offsets.tolist() == [0, 2, 3]
    assert by_dicts.doc_vocab is None and by_tables.doc_vocab is not None
    with_complete = encode_dicts(qrels, run, complete=True)
    assert [str(q) for q in with_complete.query_ids] == ["2", "7", "10"]


def test_encode_dicts_leaves_what_it_does_not_take_to_the_tables():
    assert encode_dicts({"1": {"a": 1.5}}, {"1": {"a": 1.0}}) is None  # a grade not an integer
    assert encode_dicts({"1": {"a": 1}}, {"1": {"a": float("nan")}}) is None  # a bad score
    assert encode_dicts({"1": {}}, {"1": {"a": 1.0}}) is None  # no judgments at all
    kept = encode_dicts({"1": {"a": 1}, "2": {"b": 1}}, {"1": {"a": 1.0}, "2": {"b": 2.0}},
                        wants=lambda q: q == "2")
    assert [str(q) for q in kept.query_ids] == ["2"]
