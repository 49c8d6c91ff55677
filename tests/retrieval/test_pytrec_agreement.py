"""Differential tests: prfeval against pytrec_eval-terrier (trec_eval 9.0.8 semantics).

Seeded random judgments and runs exercise what trec_eval is particular about: graded and
negative judgments, score ties broken by doc id descending in byte order, queries missing on
either side, queries with no relevant documents, runs shorter than the cutoff, relevance
levels, ``-J``, and ``set_F.x`` taking x as beta squared. Every expected number comes from
pytrec_eval (or, for ``-c`` and micro averages, from a hand computation over pytrec_eval's
per-query values); nothing is compared with prfeval's own output.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

from prfeval import evaluate  # noqa: E402
from prfeval.cli import main  # noqa: E402
from support.hand_made import write_trec  # noqa: E402
from support.random_data import Hits, Roles, role_case, shaped_ids  # noqa: E402

SEEDS = (0, 1, 2, 3, 7, 42)
TOL = 1e-9

# prfeval label (trec_eval name) -> pytrec_eval measure, key in pytrec_eval's answer.
PYTREC = {
    "P_5": ("P_5", "P_5"),
    "P_10": ("P_10", "P_10"),
    "P_100": ("P_100", "P_100"),
    "recall_5": ("recall_5", "recall_5"),
    "recall_10": ("recall_10", "recall_10"),
    "recall_100": ("recall_100", "recall_100"),
    "Rprec": ("Rprec", "Rprec"),
    "set_P": ("set_P", "set_P"),
    "set_recall": ("set_recall", "set_recall"),
    "set_F": ("set_F", "set_F"),
    "set_F.0.5": ("set_F.0.5", "set_F"),
    "set_F.2": ("set_F.2", "set_F"),
    "num_q": ("num_q", "num_q"),
    "num_ret": ("num_ret", "num_ret"),
    "num_rel": ("num_rel", "num_rel"),
    "num_rel_ret": ("num_rel_ret", "num_rel_ret"),
}
LABELS = list(PYTREC)
#: Doc ids whose byte order differs from their numeric and case-folded order.
POOL_SHAPES = ("d{}", "D{}", "doc-{}", "d{}x", "{}", "Z_{}", "a.{}", "dé{}")
COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret")


def random_data(
    seed: int,
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels and a run with ties, graded/negative judgments and queries missing on each side:
    every 8th query only in the run, every 8th (offset 5) only judged, every 8th (offset 3)
    judged with nothing relevant; runs of 1 to 160 documents, about the cutoff 100 too."""
    return role_case(
        seed, queries=[str(i) for i in range(1, 15)] + ["q7", "Q10"],
        roles=Roles(period=8, only_in_run=7, only_judged=5, nothing_relevant=3),
        pool=lambda rng: shaped_ids(rng, 220, below=60, shapes=POOL_SHAPES), judged=(1, 40),
        retrieved=(1, 3, 4, 9, 30, 99, 100, 101, 160), hits=Hits(above=5, sorted=True),
        nothing_relevant_drawn_again=True, positive_zero=False,
    )  # fmt: skip


def pytrec_per_query(
    qrels: dict[str, dict[str, int]],
    run: dict[str, dict[str, float]],
    *,
    level: int = 1,
    judged_only: bool = False,
) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query values, keyed by the prfeval label."""
    out: dict[str, dict[str, float]] = {}
    for label, (measure, key) in PYTREC.items():
        ev = pytrec_eval.RelevanceEvaluator(
            qrels, {measure}, relevance_level=level, judged_docs_only_flag=judged_only
        )
        for q, values in ev.evaluate(run).items():
            out.setdefault(q, {})[label] = values[key]
    return out


def expected_average(per_query: dict[str, dict[str, float]], label: str) -> float:
    """trec_eval's ``all`` line: the sum for num_*, else the mean over the evaluated queries."""
    values = [v[label] for v in per_query.values()]
    return float(sum(values)) if label in COUNTS else float(np.mean(values))


def test_data_exercises_the_edge_cases() -> None:
    """The generator really produces ties, negative grades and one-sided queries."""
    qrels, run = random_data(0)
    assert set(qrels) - set(run) and set(run) - set(qrels)
    assert any(g < 0 for docs in qrels.values() for g in docs.values())
    assert any(all(g <= 0 for g in docs.values()) for q, docs in qrels.items() if q in run)
    scores = [s for docs in run.values() for s in docs.values()]
    assert len(set(scores)) < len(scores) / 3
    assert any(len(docs) < 5 for docs in run.values())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("level", [1, 2, 3])
def test_per_query_and_average_agree(seed: int, level: int) -> None:
    """Each query's value and the average of every measure equal pytrec_eval's, at -l 1 and 2."""
    qrels, run = random_data(seed)
    expected = pytrec_per_query(qrels, run, level=level)
    result = evaluate(qrels, run, LABELS, level=level)
    assert set(result.query_ids) == set(expected), "the default query set is trec_eval's"
    got = result.per_query
    for q, values in expected.items():
        for label, value in values.items():
            assert got[q][label] == pytest.approx(value, abs=TOL), (q, label)
    for label in LABELS:
        assert result.macro[label] == pytest.approx(expected_average(expected, label), abs=TOL), (
            label
        )


def _without_negative_grades(qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_judged_only_agrees_with_pytrec_J(seed: int) -> None:
    """judged_only=True equals trec_eval -J (judged_docs_only_flag) when no grade is negative."""
    qrels, run = random_data(seed)
    qrels = _without_negative_grades(qrels)
    expected = pytrec_per_query(qrels, run, judged_only=True)
    got = evaluate(qrels, run, LABELS, judged_only=True).per_query
    assert set(got) == set(expected)
    for q, values in expected.items():
        for label, value in values.items():
            assert got[q][label] == pytest.approx(value, abs=TOL), (q, label)


def test_judged_only_drops_negative_grades_like_trec_eval() -> None:
    """Under -J trec_eval drops documents with a negative grade as if unjudged (pytrec_eval)."""
    qrels = {"1": {"a": 1, "b": 0, "c": -1, "d": -2, "e": 2}}
    run = {"1": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0, "x": 0.0}}
    expected = pytrec_per_query(qrels, run, judged_only=True)["1"]
    assert expected["num_ret"] == 3  # a, b, e
    got = evaluate(qrels, run, LABELS, judged_only=True).per_query["1"]
    for label, value in expected.items():
        assert got[label] == pytest.approx(value, abs=TOL), label


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_judged_only_agrees_with_negative_grades(seed: int) -> None:
    """The random data with its -1/-2 grades under -J, per query, against pytrec_eval."""
    qrels, run = random_data(seed)
    expected = pytrec_per_query(qrels, run, judged_only=True)
    got = evaluate(qrels, run, LABELS, judged_only=True).per_query
    for q, values in expected.items():
        for label, value in values.items():
            assert got[q][label] == pytest.approx(value, abs=TOL), (q, label)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_rel_parameter_equals_relevance_level(seed: int) -> None:
    """``P(rel=2)@10`` at level 1 equals pytrec_eval's P_10 at relevance_level=2."""
    qrels, run = random_data(seed)
    expected = pytrec_per_query(qrels, run, level=2)
    spec = ["P(rel=2)@10", "R(rel=2)@100", "SetF(rel=2)", "Rprec(rel=2)", "NumRel(rel=2)"]
    got = evaluate(qrels, run, spec).per_query
    pairs = dict(zip(spec, ["P_10", "recall_100", "set_F", "Rprec", "num_rel"], strict=True))
    for q, values in expected.items():
        for ours, theirs in pairs.items():
            assert got[q][ours] == pytest.approx(values[theirs], abs=TOL), (q, ours)


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("beta", [0.25, 0.5, 1.0, 2.0, 3.0])
def test_setf_beta_is_trec_set_f_of_beta_squared(seed: int, beta: float) -> None:
    """prfeval's SetF(beta=b) is trec_eval's set_F.(b^2); its set_F.x is trec_eval's set_F.x."""
    qrels, run = random_data(seed)
    x = beta * beta
    ev = pytrec_eval.RelevanceEvaluator(qrels, {f"set_F.{x:g}"})
    expected = {q: v["set_F"] for q, v in ev.evaluate(run).items()}
    result = evaluate(qrels, run, [f"SetF(beta={beta:g})", f"set_F.{x:g}"])
    for q, value in expected.items():
        assert result.per_query[q][f"SetF(beta={beta:g})"] == pytest.approx(value, abs=TOL)
        assert result.per_query[q][f"set_F.{x:g}"] == pytest.approx(value, abs=TOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_complete_averages_over_every_judged_query(seed: int) -> None:
    """complete=True is trec_eval -c: every judged query counts, missing ones as empty runs.

    pytrec_eval has no -c, so the expectation is built by hand: pytrec_eval's per-query values
    for queries in both, and for a judged query the run lacks 0 for every ratio measure,
    num_ret = num_rel_ret = 0, num_q = 1 and num_rel its count of grades >= level.
    """
    qrels, run = random_data(seed)
    per_query = pytrec_per_query(qrels, run)
    for q, docs in qrels.items():
        if q not in run:
            per_query[q] = {label: 0.0 for label in LABELS}
            per_query[q]["num_q"] = 1.0
            per_query[q]["num_rel"] = float(sum(g >= 1 for g in docs.values()))
    result = evaluate(qrels, run, LABELS, complete=True)
    assert set(result.query_ids) == set(qrels)
    got = result.per_query
    for q, values in per_query.items():
        for label, value in values.items():
            assert got[q][label] == pytest.approx(value, abs=TOL), (q, label)
    for label in LABELS:
        assert result.macro[label] == pytest.approx(expected_average(per_query, label), abs=TOL), (
            label
        )


def _micro_from_counts(tp: float, ret: float, rel: float, beta2: float = 1.0) -> dict[str, float]:
    p = tp / ret if ret else 0.0
    r = tp / rel if rel else 0.0
    denom = (1 + beta2) * tp + beta2 * (rel - tp) + (ret - tp)
    return {"P": p, "R": r, "F": (1 + beta2) * tp / denom if denom else 0.0}


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_micro_is_the_measure_of_pooled_pytrec_counts(seed: int) -> None:
    """Micro SetP/SetR/SetF and P@k/R@k from the sums of pytrec_eval's per-query counts."""
    qrels, run = random_data(seed)
    pq = pytrec_per_query(qrels, run)
    tp = sum(v["num_rel_ret"] for v in pq.values())
    ret = sum(v["num_ret"] for v in pq.values())
    rel = sum(v["num_rel"] for v in pq.values())
    result = evaluate(qrels, run, LABELS)
    pooled = _micro_from_counts(tp, ret, rel)
    assert result.micro["set_P"] == pytest.approx(pooled["P"], abs=TOL)
    assert result.micro["set_recall"] == pytest.approx(pooled["R"], abs=TOL)
    assert result.micro["set_F"] == pytest.approx(pooled["F"], abs=TOL)
    assert result.micro["set_F.2"] == pytest.approx(
        _micro_from_counts(tp, ret, rel, beta2=2.0)["F"], abs=TOL
    )
    for k in (5, 10, 100):
        tp_k = sum(round(v[f"P_{k}"] * k) for v in pq.values())
        n_q = len(pq)
        assert result.micro[f"P_{k}"] == pytest.approx(tp_k / (k * n_q), abs=TOL)
        assert result.micro[f"recall_{k}"] == pytest.approx(tp_k / rel, abs=TOL)
    tp_r = sum(round(v["Rprec"] * v["num_rel"]) for v in pq.values())
    assert result.micro["Rprec"] == pytest.approx(tp_r / rel, abs=TOL)
    for label in COUNTS:
        assert result.micro[label] == expected_average(pq, label)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_cli_trec_output_matches_pytrec(
    seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``prfeval evaluate --format trec -q`` prints pytrec_eval's values to 4 decimals.

    The rank column is written in arbitrary (dict) order: the default ranks by score.
    """
    qrels, run = random_data(seed)
    expected = pytrec_per_query(qrels, run)
    qrels_path, run_path = map(str, write_trec(tmp_path, qrels, run))
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", qrels_path, run_path, "-m", " ".join(LABELS), "--format", "trec", "-q"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    seen: dict[tuple[str, str], str] = {}
    for line in out.splitlines():
        label, qid, value = (part.strip() for part in line.split("\t"))
        # trec_eval's printed names: set_F.0.5 is printed set_F_0.5
        seen[(label.replace("set_F_", "set_F."), qid)] = value
    for q, values in expected.items():
        for label, value in values.items():
            shown = seen[(label, q)]
            if label in COUNTS:
                assert shown == str(round(value)), (q, label)
            else:
                assert math.isclose(float(shown), value, abs_tol=5e-5 + 1e-12), (q, label, shown)
    for label in LABELS:
        average = expected_average(expected, label)
        shown = seen[(label, "all")]
        if label in COUNTS:
            assert shown == str(round(average))
        else:
            assert math.isclose(float(shown), average, abs_tol=5e-5 + 1e-12), (label, shown)
    assert {q for _, q in seen} == {*expected, "all"}


def test_tie_break_is_doc_id_descending_in_byte_order() -> None:
    """All scores tied: trec_eval ranks by doc id descending (byte order, so 'd' > 'D' > '9')."""
    docs = ["d1", "d10", "D2", "doc-3", "d9", "9", "é", "Z"]
    run = {"1": dict.fromkeys(docs, 1.0)}
    for relevant in docs:
        qrels = {"1": {relevant: 1, "zz-unretrieved": 1}}
        for k in (1, 2, 3, 5):
            ev = pytrec_eval.RelevanceEvaluator(qrels, {f"P_{k}"})
            expected = ev.evaluate(run)["1"][f"P_{k}"]
            got = evaluate(qrels, run, f"P_{k}").per_query["1"][f"P_{k}"]
            assert got == pytest.approx(expected, abs=TOL), (relevant, k)
    # And the order is the one stated: byte order descending.
    ranked = sorted((d.encode() for d in docs), reverse=True)
    assert ranked[0] == "é".encode()


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_bare_p_and_recall_expand_like_trec_eval(seed: int) -> None:
    """``P`` and ``recall`` alone are trec_eval's cutoffs 5 ... 1000, value for value."""
    qrels, run = random_data(seed)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P", "recall"}).evaluate(run)
    result = evaluate(qrels, run, "P recall")
    labels = set(result.labels)
    assert labels == {k for values in expected.values() for k in values}
    for q, values in expected.items():
        for label, value in values.items():
            assert result.per_query[q][label] == pytest.approx(value, abs=TOL), (q, label)
