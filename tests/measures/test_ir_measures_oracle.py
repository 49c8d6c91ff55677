"""ERR@k, RBP and nDCG with exponential gains against ir_measures' own implementations.

ir_measures computes ERR@k and nDCG(dcg='exp-log2')@k with gdeval (Chapelle et al., 2009:
stop probability (2^g - 1) / 16, printed to 5 decimals) and RBP(p, rel) with cwl_eval
(Moffat and Zobel, 2008). Both average over every judged query, a query without results
scoring 0, which is prfeval's ``complete=True``. Scores are distinct, since gdeval and
cwl_eval break ties their own ways; qids are numbers, which gdeval requires.
"""

from __future__ import annotations

import shutil

import pytest

ir_measures = pytest.importorskip("ir_measures")

from prfeval import evaluate  # noqa: E402
from support.random_data import random_graded_case  # noqa: E402

GDEVAL_TOL = 5e-6 + 1e-12  # gdeval prints 5 decimals


def random_case(seed: int) -> tuple[dict, dict]:
    """24 queries graded -1..4, every 7th judged but not in the run (0 there); distinct
    scores, so no tie rule is involved."""
    return random_graded_case(seed, n_queries=24, grades=[0, 0, 1, 2, 3, 4, -1], skip_every=7)


def per_query(provider, measures, qrels, run) -> dict[tuple[str, str], float]:
    return {(m.query_id, str(m.measure)): m.value for m in provider.iter_calc(measures, qrels, run)}


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")
@pytest.mark.parametrize("seed", range(3))
def test_err_and_exp_ndcg_match_gdeval(seed: int) -> None:
    from ir_measures import ERR, nDCG

    qrels, run = random_case(seed)
    pairs = {
        "ERR@10": ERR @ 10,
        "ERR@5": ERR @ 5,
        "ERR@20": ERR @ 20,
        "nDCG(dcg='exp-log2')@10": nDCG(dcg="exp-log2") @ 10,
    }
    theirs = per_query(ir_measures.gdeval, list(pairs.values()), qrels, run)
    ours = evaluate(qrels, run, list(pairs), complete=True)
    for q in qrels:
        for label, m in pairs.items():
            want = theirs.get((q, str(m)), 0.0)  # gdeval prints nothing for some: 0
            assert abs(ours.per_query[q][label] - want) <= GDEVAL_TOL, (q, label)
    for label, m in pairs.items():
        want = ir_measures.gdeval.calc_aggregate([m], qrels, run)[m]
        assert abs(ours.macro[label] - want) <= GDEVAL_TOL, label


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("p", "rel"), [(0.8, 1), (0.5, 2), (0.95, 1)])
def test_rbp_matches_cwl_eval(seed: int, p: float, rel: int) -> None:
    pytest.importorskip("cwl")
    from ir_measures import RBP

    qrels, run = random_case(10 + seed)
    m = RBP(p=p, rel=rel)
    theirs = per_query(ir_measures.cwl_eval, [m], qrels, run)
    label = f"RBP(p={p},rel={rel})"
    ours = evaluate(qrels, run, label, complete=True)
    for q in qrels:
        assert ours.per_query[q][label] == pytest.approx(theirs.get((q, str(m)), 0.0), abs=1e-12)
    want = ir_measures.cwl_eval.calc_aggregate([m], qrels, run)[m]
    assert ours.macro[label] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(2))
def test_ir_measures_names_give_trec_evals_numbers(seed: int) -> None:
    """Where ir_measures computes a measure with trec_eval, prfeval gives that number."""
    qrels, run = random_case(20 + seed)
    names = [
        "AP", "AP@10", "RR", "nDCG", "nDCG@10", "nDCG(gains={0:0,1:1,2:3,3:7,4:15})@10",
        "Bpref", "infAP", "Success@5", "Rprec", "SetAP", "NumQ", "NumRet", "NumRelRet",
        "NumRel", "IPrec@0.3", "P@10", "R@100", "SetF", "SetP",
    ]
    parsed = [ir_measures.parse_measure(n) for n in names]
    theirs = per_query(ir_measures.pytrec_eval, parsed, qrels, run)
    ours = evaluate(qrels, run, names)
    for q, values in ours.per_query.items():
        for name, m in zip(names, parsed, strict=True):
            assert values[name] == pytest.approx(theirs[(q, str(m))], abs=1e-9), (q, name)
