"""No measure reads more of a ranking than it declares.

The aligner puts tied documents in trec_eval's order (score descending, then doc id
descending) only where the measures asked for can tell the difference: at the cutoffs they
read, and among the documents they can tell apart. A measure that declares less than it
reads gets a ranking whose ties are in file order, and a value that depends on the order of
the run file's lines. So every registered measure, under every policy, is measured twice on
random runs whose scores tie across every cutoff: on the ranking aligned for what it declares,
and on one in full trec_eval order. The two must agree exactly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from prfeval import evaluate
from prfeval._core.options import EvalOptions
from prfeval._core.ranking import JudgedRanking, RankingNeeds
from prfeval._measures import parse_measures, ranking_needs
from prfeval._retrieval.kernel import measure_queries
from prfeval._retrieval.pipeline import align
from support.hand_made import qrels_lines, run_lines, write_lines
from support.measure_specs import every_measure
from support.random_data import judged_runs, whole, with_repeats

SPECS = [*every_measure(), "RelString", "RelString@5", "Judged@5", "Unjudged@5"]

POLICIES = [
    {},
    {"level": 2},
    {"unjudged": "drop"},
    {"unjudged": "relevant"},
    {"duplicates": "first"},
    {"max_results": 7},
    {"max_results": 7, "unjudged": "drop"},
    {"complete": True},
]


def tied_case(seed: int, folder: Path) -> tuple[str, str]:
    """TREC judgments and a run (tests/support/random_data.py) whose scores take three values, so
    that every cutoff cuts through a tie mixing unjudged, judged non-relevant, negatively
    judged and relevant documents: 24 queries judging 20 of 40 documents, each ranking 5 to
    29 of them; some documents repeat, and the run's lines are shuffled."""
    qrels, (run,) = judged_runs(seed, queries=[f"q{q}" for q in range(24)], n_docs=40,
                                judged=20, grades=[-1, 0, 0, 1, 2], retrieved=(5, 30),
                                scores=whole(1, 4), doc="d{:02d}")  # fmt: skip
    rng = np.random.default_rng((seed, 1))  # a stream of its own, not judged_runs' again
    lines = run_lines(with_repeats(rng, run, repeats=(0, 6), scores=whole(1, 4)))
    rng.shuffle(lines)  # file order is not rank order, across and within queries
    return (str(write_lines(folder / "qrels", qrels_lines(qrels))),
            str(write_lines(folder / "run", lines)))  # fmt: skip


@pytest.fixture(scope="module")
def case(tmp_path_factory) -> tuple[str, str]:
    # One case of 24 queries: each query is a trial of its own, so three cases of 8 queries
    # each only parsed and aligned the same kinds of ties three times.
    return tied_case(0, tmp_path_factory.mktemp("tied"))


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: ",".join(map(str, p.items())) or "-")
def test_every_measure_reads_no_more_than_it_declares(case, policy) -> None:
    qrels, run = case
    options = EvalOptions.build(None, **policy)
    exact = align(qrels, run, options, RankingNeeds.everything())
    aligned: dict[RankingNeeds, JudgedRanking] = {}  # the specs declare a dozen needs in all
    for spec in SPECS:
        measures = parse_measures(spec)
        if any(m.definition.needs_tn for m in measures):
            continue  # the TN family reads the same tables as the others, given -N
        needs = ranking_needs(measures)
        if needs not in aligned:
            aligned[needs] = align(qrels, run, options, needs)
        declared = aligned[needs]
        got = measure_queries(declared, measures, level=options.level)
        want = measure_queries(exact, measures, level=options.level)
        assert got.query_ids.tolist() == want.query_ids.tolist()
        np.testing.assert_array_equal(got.values, want.values, err_msg=spec)
        assert [t.tolist() for t in got.texts] == [t.tolist() for t in want.texts], spec


def test_judged_share_follows_trec_eval_tie_order() -> None:
    """Six documents tied on one score are ranked d6, d5, ..., d1 (doc id descending): the
    top 5 hold d6 (judged 0) and four unjudged documents."""
    qrels = {"q1": {"d6": 0, "d9": 1}}
    run = {"q1": {f"d{i}": 1.0 for i in range(1, 7)}}
    e = evaluate(qrels, run, "Judged@5 Unjudged@5 P@5")
    assert e.macro["Judged@5"] == pytest.approx(0.2)
    assert e.macro["Unjudged@5"] == pytest.approx(0.8)
    # The judged share shown beside P@5 is the same Judged@5.
    assert e.judged_at("P@5") == pytest.approx(0.2)
