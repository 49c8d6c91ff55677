"""What the judgments don't say: Judged@k, unj@k, the unjudged rules and --bounds.

Judged@k is checked against ir_measures on rankings without ties and by hand with ties; the
``relevant`` and ``drop`` rules against pytrec_eval on judgments and runs transformed the
way the rule describes (the unjudged retrieved documents added to the judgments at the
level; the unjudged, and as in trec_eval's -J the negatively graded, removed from the run).
"""

from __future__ import annotations

import numpy as np
import pytest

from prfeval import evaluate
from prfeval._core.errors import UsageError
from prfeval.cli import main
from support.random_data import distinct, judged_runs, rounded

ir_measures = pytest.importorskip("ir_measures")
pytrec_eval = pytest.importorskip("pytrec_eval")

PYTREC = {
    "P@5": "P_5",
    "P@10": "P_10",
    "R@10": "recall_10",
    "R@50": "recall_50",
    "SetP": "set_P",
    "SetR": "set_recall",
    "SetF": "set_F",
    "Rprec": "Rprec",
    "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret",
    "IPrec@0.5": "iprec_at_recall_0.50",
    "AP": "map",
    "AP@10": "map_cut_10",
    "nDCG": "ndcg",
    "nDCG@10": "ndcg_cut_10",
    "RR": "recip_rank",
    "Bpref": "bpref",
    "infAP": "infAP",
    "Success@5": "success_5",
    "RelativeP@10": "relative_P_10",
    "BinG": "binG",
    "G": "G",
    "RprecMult@0.5": "Rprec_mult_0.50",
}


def random_case(seed: int, *, ties: bool):
    """Ten queries judging 3 to 29 of 80 documents (grades -1 to 2) and ranking 1 to 39 of
    them: scores of one decimal (ties) or all distinct."""
    qrels, (run,) = judged_runs(seed, queries=[f"q{q}" for q in range(10)], n_docs=80,
                                judged=(3, 30), grades=[-1, 0, 0, 1, 2], retrieved=(1, 40),
                                scores=rounded(1) if ties else distinct())  # fmt: skip
    # Every query with something relevant, as pytrec_eval needs a judged query in both.
    for q in qrels:
        qrels[q].setdefault("d999", 1)
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
def test_judged_at_k_equals_ir_measures_without_ties(seed):
    qrels, run = random_case(seed, ties=False)
    ks = (1, 3, 10, 50)
    e = evaluate(qrels, run, [f"Judged@{k}" for k in ks])
    measures = [ir_measures.Judged @ k for k in ks]
    q = [ir_measures.Qrel(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()]
    r = [ir_measures.ScoredDoc(qid, d, s) for qid, docs in run.items() for d, s in docs.items()]
    calc = ir_measures.iter_calc(measures, q, r)
    expected = {(m.query_id, str(m.measure)): m.value for m in calc}
    for qid in e.query_ids:
        for k in ks:
            assert e.per_query[qid][f"Judged@{k}"] == pytest.approx(
                expected[(qid, f"Judged@{k}")], abs=1e-12
            )


def test_judged_and_unjudged_at_k_by_hand_with_ties_and_repeats():
    # Rank order (score desc, ties by doc id desc): z (3, unjudged), c (2, judged -1),
    # b (2, judged 0), b again (repeat, still judged), y (1, unjudged).
    qrels = {"q": {"a": 1, "b": 0, "c": -1}}
    lines = b"q Q0 b 1 2 t\nq Q0 z 2 3 t\nq Q0 c 3 2 t\nq Q0 y 4 1 t\nq Q0 b 5 2 t\n"
    e = evaluate(qrels, lines, "Judged@1 Judged@2 Judged@4 Judged@10 Judged Unjudged@2 "
                 "Unjudged@10 unj.5")
    v = e.per_query["q"]
    assert v["Judged@1"] == 0.0  # z
    assert v["Judged@2"] == 0.5  # z, c: a negative grade is judged
    assert v["Judged@4"] == 0.75  # z, c, b, b
    assert v["Judged@10"] == pytest.approx(3 / 5)  # all five places, over min(10, 5)
    assert v["Judged"] == pytest.approx(3 / 5)
    # trec_eval 10's unj counts a negative grade (c) as unjudged: z, c, y.
    assert v["Unjudged@2"] == 1.0
    assert v["Unjudged@10"] == pytest.approx(3 / 10)  # divides by k, not by 5
    assert v["unj.5"] == pytest.approx(3 / 5)  # trec_eval 10's name, labelled as typed
    empty = evaluate({"q": {"a": 1}, "r": {"b": 1}}, {"q": {}, "r": {"b": 1.0}}, "Judged@5")
    assert empty.per_query["q"]["Judged@5"] == 0.0  # an empty ranking gives 0


def _pytrec(qrels, run, level=1):
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values()), relevance_level=level)
    return ev.evaluate(run)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("level", [1, 2])
def test_unjudged_relevant_equals_pytrec_eval_with_them_judged_relevant(seed, level):
    qrels, run = random_case(seed, ties=True)
    e = evaluate(qrels, run, list(PYTREC), unjudged="relevant", level=level)
    augmented = {
        q: {**docs, **{d: level for d in run.get(q, {}) if d not in docs}}
        for q, docs in qrels.items()
    }
    expected = _pytrec(augmented, run, level)
    for qid in e.query_ids:
        for label, name in PYTREC.items():
            assert e.per_query[qid][label] == pytest.approx(expected[qid][name], abs=1e-9), (
                qid,
                label,
            )
    for label, name in PYTREC.items():
        mean = np.mean([expected[q][name] for q in e.query_ids])
        if label.startswith("Num"):
            mean = sum(expected[q][name] for q in e.query_ids)
        assert e.macro[label] == pytest.approx(mean, abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_unjudged_drop_equals_pytrec_eval_on_the_condensed_run(seed):
    qrels, run = random_case(seed, ties=True)
    e = evaluate(qrels, run, list(PYTREC), unjudged="drop")
    condensed = {
        q: {d: s for d, s in docs.items() if qrels.get(q, {}).get(d, -1) >= 0}
        for q, docs in run.items()
    }
    expected = _pytrec(qrels, {q: d for q, d in condensed.items() if d})
    for qid in e.query_ids:
        if qid not in expected:  # nothing left in the condensed list: every measure 0
            assert all(v == 0 for k, v in e.per_query[qid].items() if k != "NumRel")
            continue
        for label, name in PYTREC.items():
            assert e.per_query[qid][label] == pytest.approx(expected[qid][name], abs=1e-9)
    assert e.settings["unjudged"] == "drop" and e.settings["judged_only"]
    j = evaluate(qrels, run, list(PYTREC), judged_only=True)  # -J: the same rule
    np.testing.assert_array_equal(j.values, e.values)


def test_unjudged_relevant_counts_after_max_results_and_at_another_grade():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"x": 5.0, "a": 4.0, "y": 3.0, "z": 2.0, "b": 1.0}}
    e = evaluate(qrels, run, "NumRel SetR R@2 P@5", unjudged="relevant", max_results=3)
    # After -M 3: x, a, y; unjudged x and y join the relevant: R = 2 + 2.
    assert e.per_query["q"]["NumRel"] == 4
    assert e.per_query["q"]["SetR"] == pytest.approx(3 / 4)
    assert e.accounting.assumed_relevant == 2
    high = evaluate(qrels, run, "NumRel R@5", unjudged="relevant", unjudged_grade=2, level=2)
    # At level 2 the unjudged count at grade 2: relevant are b, x, y, z.
    assert high.per_query["q"]["NumRel"] == 4
    low = evaluate(qrels, run, "NumRel", unjudged="relevant", unjudged_grade=1, level=2)
    assert low.per_query["q"]["NumRel"] == 1  # grade 1 is below the level: only b


def test_bounds_are_the_two_rules_in_one_pass():
    qrels, run = random_case(3, ties=True)
    specs = ["P@5", "R@10", "SetF", "Rprec", "NumRelRet", "AP", "nDCG@10", "RR", "Success@5"]
    both = evaluate(qrels, run, specs, bounds=True)
    low = evaluate(qrels, run, specs)
    high = evaluate(qrels, run, specs, unjudged="relevant")
    np.testing.assert_array_equal(both.values, low.values)
    np.testing.assert_array_equal(both.upper.values, high.values)
    assert both.upper.macro == high.macro and both.upper.micro == high.micro
    # Precision at k, RR and Success read only the retrieved documents: they are bounded,
    # the fully judged value lies between, so low <= high.
    for label in ("P@5", "RR", "Success@5"):
        row = specs.index(label)
        assert np.all(both.values[row] <= both.upper.values[row]), label
    bounded = {m.label for m in both.measures if m.definition.bounded}
    assert {"P@5", "RR", "Success@5"} <= bounded and "AP" not in bounded
    with pytest.raises(UsageError, match="bounds"):
        evaluate(qrels, run, specs, bounds=True, unjudged="drop")


def test_coverage_counts_unjudged_places_per_query():
    qrels = {"q": {"a": 1}, "r": {"b": 1}}
    run = {"q": {"a": 3.0, "x": 2.0, "y": 1.0}, "r": {"b": 1.0}}
    e = evaluate(qrels, run, "P@2 R@10")
    c = e.coverage
    assert c.cutoffs == (2, 10)
    assert c.judged[2] == pytest.approx((1 / 2 + 1) / 2)
    assert c.per_query_unjudged[2].tolist() == [1, 0]
    assert c.per_query_unjudged[10].tolist() == [2, 0]
    assert c.unjudged_retrieved.tolist() == [2, 0]
    assert e.judged_at("P@2") == c.judged[2]
    assert c.thin(e.measures) == []
    thin = evaluate({"q": {"a": 1}}, {"q": {"x": 2.0, "y": 1.5, "a": 1.0}}, "P@3")
    (note,) = thin.coverage.thin(thin.measures)
    assert note.startswith("Less than half judged in the top k (macro Judged@k): 33% at k = 3")
    grouped = evaluate({"q": {"a": 1}}, {"q": {"x": 2.0, "y": 1.5, "a": 1.0}}, "P@3 R@3 P@1 R@2")
    (note,) = grouped.coverage.thin(grouped.measures)
    assert "0% at k = 1 (P@1), 0% at k = 2 (R@2), 33% at k = 3 (P@3, R@3)." in note


def test_cli_table_flags_thin_judgments_and_shows_bounds(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 x 1 3 t\n1 Q0 a 2 2 t\n1 Q0 y 3 1 t\n")
    with pytest.raises(SystemExit) as done:
        main([
            "evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@2 SetR", "--bounds",
        ])
    assert done.value.code == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.strip().startswith("P@2"))
    assert "0.5000 [0.5000, 1.0000]" in row and row.rstrip().endswith("50%")
    setr = next(line for line in out.splitlines() if line.strip().startswith("SetR"))
    assert "1.0000 (1.0000)" in setr  # recall: the value under the assumption, no brackets
    assert "Less than half judged" not in out  # 50% is not below half
    with pytest.raises(SystemExit) as done:
        main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@3",
              "--unjudged", "relevant", "--format", "json"])
    assert done.value.code == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["macro"]["P@3"] == 1.0 and data["settings"]["unjudged"] == "relevant"
    assert data["judgments"]["judged_at"] == {"3": pytest.approx(1 / 3)}


def test_bounds_in_csv_and_json_carry_both_values(tmp_path, capsys):
    import csv
    import io
    import json

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 3 t\n1 Q0 a 2 2 t\n2 Q0 c 1 1 t\n2 Q0 y 2 0.5 t\n")
    base = ["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@2 SetR", "--bounds",
            "-q"]
    with pytest.raises(SystemExit):
        main([*base, "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    with pytest.raises(SystemExit):
        main([*base, "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    upper = data["if_unjudged_relevant"]
    got = {(r["query_id"], r["aggregate"], r["measure"]): float(r["value"]) for r in rows}
    assert got[("", "macro", "P@2")] == data["macro"]["P@2"] == 0.5
    assert got[("", "if_unjudged_relevant.macro", "P@2")] == upper["macro"]["P@2"] == 1.0
    assert got[("1", "if_unjudged_relevant", "SetR")] == upper["per_query"]["1"]["SetR"]
    assert upper["bounded"] == ["P@2"]  # recall is not a bound: JSON says which are
