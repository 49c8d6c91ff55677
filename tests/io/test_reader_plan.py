"""The reader plan (``_io/plan.py``): one decision, from the inputs and the options, of how
each input is read, and why; and the recipe for a new layout, performed with a toy one.

What must hold: each kind of input gets the reader docs/architecture.md names, with a
reason; ``PRFEVAL_NATIVE`` and the options' limits turn the compiled pass off there; the
result keeps the plan and ``--verbose`` prints it; and a layout added as one ``Layout``
entry is read through the planner and evaluates to pytrec_eval's values.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import pytrec_eval

import prfeval
from prfeval._core.options import EvalOptions
from prfeval._io import plan
from prfeval._io.load import load_qrels, load_run
from prfeval._retrieval.encode import encode_tables
from prfeval._retrieval.pipeline import align
from support.cli import run_cli

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 d 1\nq2 0 e 1\n"
RUN = (
    "q1 Q0 a 1 3.0 r\nq1 Q0 x 2 2.5 r\nq1 Q0 c 3 2.0 r\n"
    "q2 Q0 y 1 1.0 r\nq2 Q0 e 2 0.5 r\n"
)


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


def _reference() -> dict[str, dict[str, float]]:
    judged: dict[str, dict[str, int]] = {}
    for line in QRELS.splitlines():
        q, _, d, g = line.split()
        judged.setdefault(q, {})[d] = int(g)
    ranked: dict[str, dict[str, float]] = {}
    for line in RUN.splitlines():
        q, _, d, _, s, _ = line.split()
        ranked.setdefault(q, {})[d] = float(s)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"map", "P_2", "ndcg_cut_3"})
    return evaluator.evaluate(ranked)  # type: ignore[no-any-return]


def test_each_input_gets_its_reader_and_a_reason(files, monkeypatch):
    qrels, run = files
    options = EvalOptions()
    monkeypatch.setenv("PRFEVAL_NATIVE", "")
    chosen = plan.plan_reading(qrels, run, options)
    if plan.compiled_unavailable() is None:
        assert (chosen.reader, chosen.in_blocks) == (plan.COMPILED, False)
        assert chosen.fallback is not None and chosen.fallback.reader == plan.ARROW
    streamed = plan.plan_reading(qrels, run, options, stream=True)
    assert streamed.in_blocks == (plan.compiled_unavailable() is None)
    monkeypatch.setenv("PRFEVAL_NATIVE", "0")
    off = plan.plan_reading(qrels, run, options, stream=True)
    assert (off.reader, off.in_blocks) == (plan.ARROW, False)  # only the pass reads in blocks
    assert "PRFEVAL_NATIVE=0" in off.run.why and "PRFEVAL_NATIVE=0" in off.judgments.why
    assert off.warning and "only the compiled pass reads a run in blocks" in off.warning
    monkeypatch.setenv("PRFEVAL_NATIVE", "")
    ranked = plan.plan_reading(qrels, run, EvalOptions(order="rank"))
    assert ranked.reader == plan.ARROW and "order" in ranked.run.why
    dicts = {"q1": {"a": 1}}, {"q1": {"a": 1.0}}
    assert plan.plan_reading(*dicts, options, doc_ids=False).reader == plan.DICTS
    assert plan.plan_reading(*dicts, options, doc_ids=True).reader == plan.ARROW
    lines = plan.plan_reading(qrels, run, options).lines()
    assert lines[0].startswith(f"judgments {qrels}: ") and lines[1].startswith(f"run {run}: ")


def test_the_result_keeps_the_plan_and_verbose_prints_it(files, capsys, monkeypatch):
    qrels, run = files
    monkeypatch.setenv("PRFEVAL_NATIVE", "0")
    result = prfeval.evaluate(qrels, run, "P@2")
    assert result.reading == (
        f"judgments {qrels}: Arrow, whole (not the compiled pass: PRFEVAL_NATIVE=0)",
        f"run {run}: Arrow, whole (a TREC run of {len(RUN)} bytes, read whole; not the "
        "compiled pass: PRFEVAL_NATIVE=0)",
    )
    code, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", "P@2", "--verbose")
    assert code == 0, err
    assert f"prfeval: read: run {run}: Arrow, whole" in err
    code, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", "P@2")
    assert "read:" not in err


def test_a_run_the_pass_refuses_on_its_first_segment_says_why(tmp_path, monkeypatch):
    if plan.compiled_unavailable() is not None:
        pytest.skip(plan.compiled_unavailable())
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN.replace("q1 Q0 x", "q1\tQ0 x"))  # a tab: not the plain layout
    result = prfeval.evaluate(str(qrels), str(run), "P@2")
    assert "the compiled pass refused it on its first segment" in result.reading[1]
    assert result.reading[1].startswith(f"run {run}: Arrow, whole")
    assert result.macro["P@2"] == pytest.approx(
        sum(v["P_2"] for v in _reference().values()) / 2, abs=1e-15)


# -- the recipe: a new layout is one Layout entry ---------------------------------------------


@dataclass(frozen=True)
class ToyRun:
    """A toy layout: a run as (query, doc, score) triples."""

    triples: tuple[tuple[str, str, float], ...]


@dataclass(frozen=True)
class ToyGold:
    """Its judgments as (query, doc, grade) triples."""

    triples: tuple[tuple[str, str, int], ...]


def _toy_tables(qrels, run, options):
    judged: dict[str, dict[str, int]] = {}
    for q, d, g in qrels.triples:
        judged.setdefault(q, {})[d] = g
    ranked: dict[str, dict[str, float]] = {}
    for q, d, s in run.triples:
        ranked.setdefault(q, {})[d] = s
    return load_qrels(judged), load_run(ranked, name="toy")


def _toy_block(qrels, run, options, compiled):
    judged, ranked = _toy_tables(qrels, run, options)
    encoded = encode_tables(judged, ranked, complete=options.complete, sorted_docs=True,
                            qrels_duplicates=options.qrels_duplicates)  # fmt: skip
    return encoded


TOY = plan.Layout(
    "toy triples", "(query, doc, value) triples",
    lambda qrels, run: isinstance(run, ToyRun), _toy_block, _toy_tables,
)


def test_a_new_layout_is_one_planner_entry(monkeypatch):
    monkeypatch.setattr(plan, "LAYOUTS", [*plan.LAYOUTS, TOY])
    gold = ToyGold(tuple((q, d, int(g)) for q, _, d, g in map(str.split, QRELS.splitlines())))
    run = ToyRun(tuple((q, d, float(s)) for q, _, d, _, s, _ in map(str.split,
                                                                     RUN.splitlines())))
    chosen = plan.plan_reading(gold, run, EvalOptions())
    assert chosen.reader == "toy triples" and chosen.layout is TOY
    result = prfeval.evaluate(gold, run, "AP P@2 nDCG@3")
    assert result.reading[1] == "run a ToyRun: toy triples, whole ((query, doc, value) triples)"
    expected = _reference()
    per_query = result.per_query
    assert sorted(per_query) == sorted(expected)
    for measure, name in (("AP", "map"), ("P@2", "P_2"), ("nDCG@3", "ndcg_cut_3")):
        for q, values in per_query.items():
            assert values[measure] == pytest.approx(expected[q][name], abs=1e-12)
    # The readers of document ids take the layout's tables: every place, its judgment.
    ranking = align(gold, run)
    assert sorted(map(str, ranking.query_ids)) == ["q1", "q2"]
    assert int(ranking.n_relevant().sum()) == 4  # q1: a (2), c (1); q2: d, e
