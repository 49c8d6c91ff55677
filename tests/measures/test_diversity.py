"""Diversity measures over judgments per subtopic: hand counts, and agreement with ndeval
(pyndeval) and ir_measures on random cases."""

from __future__ import annotations

import math
import random

import pytest

from prfeval import evaluate
from prfeval._core.errors import InputFormatError, PrfevalError
from prfeval._io.subtopics import load_subtopic_qrels
from support.random_data import random_subtopic_case

pyndeval = pytest.importorskip("pyndeval")

NDEVAL = {
    "ERR-IA@5": "ERR_IA@5", "ERR-IA@10": "ERR_IA@10", "ERR-IA@20": "ERR_IA@20",
    "nERR-IA@5": "nERR_IA@5", "nERR-IA@10": "nERR_IA@10", "nERR-IA@20": "nERR_IA@20",
    "alpha-DCG@5": "alpha_DCG@5", "alpha-DCG@20": "alpha_DCG@20",
    "alpha-nDCG@5": "alpha_nDCG@5", "alpha-nDCG@10": "alpha_nDCG@10",
    "alpha-nDCG@20": "alpha_nDCG@20", "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "MAP_IA",
    "P-IA@5": "P_IA@5", "P-IA@20": "P_IA@20", "strec@5": "S_recall@5",
    "strec@10": "S_recall@10", "strec@20": "S_recall@20",
}

QRELS = b"""q1 a d1 1
q1 a d2 1
q1 b d2 1
q1 b d3 0
q1 c d4 2
"""
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d5": 1.5, "d4": 1.0}}


def per_query(qrels, run, names):
    rows = evaluate(qrels, run, names).per_query
    return {m: {q: row[m] for q, row in rows.items()} for m in names.split()}


def test_hand_computed():
    # Subtopics a, b, c (S = 3). Ranking d1 (a), d2 (a, b), d5 (unjudged), d4 (c).
    # alpha = 0.5: gains g = 1, 0.5 + 1 = 1.5, 0, 1. DCG@5 = 1 + 1.5/log2(3) + 1/log2(5).
    # Greedy ideal: d2 (a, b: 2), then d4 (c: 1), then d1 (a: 0.5): 2 + 1/log2(3) + 0.5/2.
    got = per_query(load_subtopic_qrels(QRELS), RUN, "alpha_nDCG@5 S_recall@2 P_IA@5 MAP_IA")
    dcg = 1 + 1.5 / math.log2(3) + 1 / math.log2(5)
    ideal = 2 + 1 / math.log2(3) + 0.5 / 2
    assert got["alpha_nDCG@5"]["q1"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert got["S_recall@2"]["q1"] == pytest.approx(2 / 3)  # a, b in the top 2
    assert got["P_IA@5"]["q1"] == pytest.approx(4 / (5 * 3))  # 1 + 2 + 0 + 1 pairs
    # AP_a = (1/1 + 2/2) / 2, AP_b = (1/2) / 1, AP_c = (1/4) / 1
    assert got["MAP_IA"]["q1"] == pytest.approx((1 + 0.5 + 0.25) / 3)


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_ndeval(seed):
    rng = random.Random(seed)
    qrels, run = random_subtopic_case(rng)
    alpha = rng.choice([0.5, 0.5, 0.3, 0.8])
    ref = pyndeval.ndeval(
        qrels, [(q, d, s) for q in run for d, s in run[q].items()], list(NDEVAL), alpha=alpha
    )
    mapping = {}
    for q, s, d, g in qrels:
        mapping.setdefault(q, {}).setdefault(s, {})[d] = g
    def with_alpha(n: str) -> str:
        if n.startswith(("P_IA", "S_recall", "MAP")):  # no alpha in them
            return n
        name, _, k = n.partition("@")
        return f"{name}(alpha={alpha})" + (f"@{k}" if k else "")

    ours = {theirs: with_alpha(n) for theirs, n in NDEVAL.items()}
    got = per_query(load_subtopic_qrels(mapping), run, " ".join(ours.values()))
    for theirs, name in ours.items():
        for q, v in ref.items():
            expected = v[theirs]
            if math.isnan(expected):  # ndeval's nNRBP with no relevant subtopic: 0/0
                expected = 0.0
            assert got[name][q] == pytest.approx(expected, abs=1e-4), (theirs, q)


@pytest.mark.parametrize("seed", range(8))
def test_alpha_zero_is_accepted_as_ndeval_accepts_it(seed):
    """alpha = 0: no penalty for a subtopic seen before, each document's gain its count of
    relevant subtopics (plain nDCG over subtopics), as ndeval computes with -alpha 0."""
    rng = random.Random(500 + seed)
    qrels, run = random_subtopic_case(rng)
    ref = pyndeval.ndeval(qrels, [(q, d, s) for q in run for d, s in run[q].items()],
                          ["alpha-nDCG@5", "alpha-nDCG@20", "ERR-IA@20"], alpha=0.0)
    mapping = {}
    for q, s, d, g in qrels:
        mapping.setdefault(q, {}).setdefault(s, {})[d] = g
    names = "alpha_nDCG(alpha=0)@5 alpha_nDCG(alpha=0)@20 ERR_IA(alpha=0)@20"
    got = per_query(load_subtopic_qrels(mapping), run, names)
    for theirs, ours in zip(["alpha-nDCG@5", "alpha-nDCG@20", "ERR-IA@20"], names.split(),
                            strict=True):
        for q, v in ref.items():
            assert got[ours][q] == pytest.approx(v[theirs], abs=1e-4), (theirs, q)


# -- ir_measures -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_agrees_with_ir_measures_alpha_ndcg(seed):
    ir_measures = pytest.importorskip("ir_measures")
    rng = random.Random(100 + seed)
    qrels, run = random_subtopic_case(rng)
    irq = [ir_measures.GenericQrel(q, d, g, s) for q, s, d, g in qrels]
    irr = [ir_measures.ScoredDoc(q, d, sc) for q in run for d, sc in run[q].items()]
    # ir_measures' alpha_nDCG with an alpha other than its default gives 0 (0.4.3), so
    # only the default, 0.5, is compared.
    for k in (5, 10, 20):
        ref = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.alpha_nDCG @ k],
                                                                 irq, irr)}
        got = per_query(load_subtopic_qrels(_text(qrels)), run, f"alpha_nDCG@{k}")
        for q, v in ref.items():
            assert got[f"alpha_nDCG@{k}"][q] == pytest.approx(v, abs=1e-4), (k, q)


# -- every input form of subtopic judgments ----------------------------------------------------


def _text(qrels) -> bytes:
    return "".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels).encode()


ROWS = [("q1", "a", "d1", 1), ("q1", "a", "d2", 1), ("q1", "b", "d2", 1),
        ("q1", "b", "d3", 0), ("q1", "c", "d4", 2)]
NAMES = "alpha_nDCG@5 S_recall@2 P_IA@5 MAP_IA NRBP"


def flat(d):
    """{(measure, query): value}, which pytest.approx compares."""
    return {(m, q): v for m, r in d.items() for q, v in r.items()}


def _expected():
    return per_query(load_subtopic_qrels(QRELS), RUN, NAMES)


def _frame():
    import pandas as pd

    return pd.DataFrame(ROWS, columns=["query_id", "subtopic", "doc_id", "relevance"])


def test_every_input_form(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    expected = _expected()
    frame = _frame()
    forms = {
        "text bytes": load_subtopic_qrels(QRELS),
        "mapping": {"q1": {"a": {"d1": 1, "d2": 1}, "b": {"d2": 1, "d3": 0}, "c": {"d4": 2}}},
        "pandas": frame,
        "arrow": pa.Table.from_pandas(frame),
    }
    text = tmp_path / "qrels.txt"
    text.write_bytes(QRELS.replace(b" ", b"\t"))  # any whitespace
    csv = tmp_path / "qrels.csv"
    frame.to_csv(csv, index=False)
    tsv = tmp_path / "qrels.tsv"
    frame.to_csv(tsv, index=False, sep="\t")
    jsonl = tmp_path / "qrels.jsonl"
    frame.to_json(jsonl, orient="records", lines=True)
    parquet = tmp_path / "qrels.parquet"
    pq.write_table(pa.Table.from_pandas(frame), parquet)
    for path in (csv, tsv, jsonl, parquet):
        forms[path.suffix] = str(path)  # found by its subtopic column
    try:
        import polars as pl
    except ImportError:
        pl = None
    if pl is not None:
        forms["polars"] = pl.from_pandas(frame)
    for name, source in forms.items():
        assert flat(per_query(source, RUN, NAMES)) == pytest.approx(flat(expected)), name
    # ndeval's text is TREC's four columns: it is read so only when asked.
    got = evaluate(str(text), RUN, NAMES, qrels_format="ndeval").per_query
    assert {(m, "q1"): got["q1"][m] for m in NAMES.split()} == pytest.approx(flat(expected))


def test_judgments_without_subtopics_are_one_subtopic_per_query():
    # TREC qrels: one subtopic holding d1 and d4. Ranking d1, d2, d5, d4: gains 1, 0, 0,
    # 0.5; the ideal d4, d1 (ties alike): 1, 0.5.
    got = per_query({"q1": {"d1": 1, "d4": 2, "d2": 0}}, RUN, "alpha_nDCG@5 S_recall@1")
    dcg = 1 + 0.5 / math.log2(5)
    assert got["alpha_nDCG@5"]["q1"] == pytest.approx(dcg / (1 + 0.5 / math.log2(3)))
    assert got["S_recall@1"]["q1"] == 1.0


def test_a_streamed_run_gives_the_same(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q1 Q0 {d} {i} {s} t\n" for i, (d, s) in enumerate(RUN["q1"].items())))
    got = evaluate(QRELS, str(run), NAMES, qrels_format="ndeval", stream=True).per_query
    assert {(m, "q1"): got["q1"][m] for m in NAMES.split()} == pytest.approx(flat(_expected()))


def test_query_set_keeps_the_subtopics():
    qrels = QRELS + b"q2 a d9 1\n"
    got = evaluate(qrels, {**RUN, "q2": {"d9": 1.0}}, NAMES, qrels_format="ndeval",
                   queries=["q1"]).per_query
    assert list(got) == ["q1"]
    assert {(m, "q1"): got["q1"][m] for m in NAMES.split()} == pytest.approx(flat(_expected()))


# -- bad input -------------------------------------------------------------------------------


def test_repeated_judgment_names_its_line():
    message = r":3: judgment repeated for query 'q1', subtopic 'a', doc 'd1'"
    with pytest.raises(InputFormatError, match=message):
        evaluate(b"q1 a d1 1\nq1 b d1 1\nq1 a d1 0\n", RUN, "alpha_nDCG@5",
                 qrels_format="ndeval")


def test_malformed_line_names_its_line():
    with pytest.raises(InputFormatError, match=r":2:"):
        load_subtopic_qrels(b"q1 a d1 1\nq1 a d2\n")


def test_grade_not_a_number_names_its_line():
    with pytest.raises(InputFormatError, match=r":2:"):
        load_subtopic_qrels(b"q1 a d1 1\nq1 a d2 x\n")


def test_bad_mapping():
    with pytest.raises(InputFormatError, match="subtopic 'a'"):
        load_subtopic_qrels({"q1": {"a": [1, 2]}})
    with pytest.raises(PrfevalError):
        load_subtopic_qrels({"q1": {"a": {"d1": "high"}}})


def test_table_without_subtopic_column():
    import pyarrow as pa

    with pytest.raises(InputFormatError, match="no subtopic column"):
        load_subtopic_qrels(pa.table({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]}))


def test_ndeval_is_not_a_run_format():
    with pytest.raises(PrfevalError, match="not of runs"):
        evaluate(QRELS, b"q1 Q0 d1 1 1 t\n", "alpha_nDCG@5", qrels_format="ndeval",
                 run_format="ndeval")


def test_cli(tmp_path, capsys):
    from support.cli import run_cli

    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS)
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q1 Q0 {d} {i} {s} t\n" for i, (d, s) in enumerate(RUN["q1"].items())))
    code, out, err = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "alpha_nDCG@5",
                             "--qrels-format", "ndeval", "--format", "json")
    assert code == 0, err
    expected = _expected()["alpha_nDCG@5"]["q1"]
    assert f"{expected:.4f}"[:5] in out
    code, out, err = run_cli(capsys, "measures")
    assert code == 0 and "alpha_nDCG" in out and "Clarke et al., 2008" in out


def test_ties_follow_doc_ids():
    # Equal scores: ranked by doc id descending (trec_eval's and ndeval's order), d2 first.
    got = per_query(load_subtopic_qrels(b"q1 a d1 1\nq1 b d2 1\nq1 b d3 1\n"),
                    {"q1": {"d1": 1.0, "d2": 1.0, "d3": 1.0}},
                    "S_recall@1")
    assert got["S_recall@1"]["q1"] == pytest.approx(0.5)


def test_s_precision_hand_computed():
    # S = 3 (a, b, c). The run covers a at rank 1, b at rank 2, c at rank 4; the greedy
    # cover takes d2 (a, b), then d4 (c): 2 subtopics at rank 1, 3 at rank 2.
    got = per_query(load_subtopic_qrels(QRELS), RUN,
                    "S_precision@0.3 S_precision@0.5 S_precision@1")
    assert got["S_precision@0.3"]["q1"] == 1 / 1  # 1 subtopic: rank 1 either way
    assert got["S_precision@0.5"]["q1"] == 1 / 2  # 2 subtopics: rank 1 vs rank 2
    assert got["S_precision@1"]["q1"] == 2 / 4  # all 3: rank 2 vs rank 4
    short = per_query(load_subtopic_qrels(QRELS), {"q1": {"d1": 1.0}}, "S_precision@1")
    assert short["S_precision@1"]["q1"] == 0.0  # never reaches S-recall 1


def test_measures_without_a_relevant_subtopic_are_zero():
    got = per_query(load_subtopic_qrels(b"q1 a d1 0\nq2 a d2 1\n"),
                    {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}}, "alpha_nDCG@5 nNRBP MAP_IA P_IA@5")
    assert all(got[m]["q1"] == 0.0 for m in got)
    assert got["alpha_nDCG@5"]["q2"] == 1.0 and got["nNRBP"]["q2"] == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(5))
def test_order_of_measures_does_not_matter(seed):
    # nNRBP builds the whole ideal ranking, alpha_nDCG@20 reads its top 20 (which may be
    # longer than a query's ideal ranking): asked together, in either order.
    qrels, run = random_subtopic_case(random.Random(200 + seed))
    judged = load_subtopic_qrels(_text(qrels))
    a = per_query(judged, run, "nNRBP alpha_nDCG@20 nERR_IA@5")
    b = per_query(judged, run, "nERR_IA@5 alpha_nDCG@20 nNRBP")
    assert flat(a) == flat(b)


def test_nothing_relevant_anywhere():
    got = per_query(load_subtopic_qrels(b"q1 a d1 0\n"), {"q1": {"d1": 1.0}},
                    "S_precision@0.5 nNRBP alpha_nDCG@5 nERR_IA@10")
    assert flat(got) == {(m, "q1"): 0.0 for m in got}


def test_load_qrels_reads_subtopics():
    from prfeval import load_qrels

    judged = load_qrels(QRELS, format="ndeval")
    assert judged.subtopics is not None and len(judged.subtopics) == 5
    assert len(judged) == 4  # d1..d4, d2 at its best grade over a and b
    assert sorted(zip(judged.doc_ids.to_pylist(), judged.grades.tolist(), strict=True)) == [
        ("d1", 1), ("d2", 1), ("d3", 0), ("d4", 2)
    ]
    assert load_qrels(QRELS).subtopics is None  # TREC qrels unless asked


def test_other_measures_read_each_document_at_its_best_grade(tmp_path):
    # Judgments of q2 and q1 interleaved (not grouped by query), the run streamed.
    qrels = b"q2 x e1 1\n" + QRELS + b"q2 y e2 2\nq2 y e1 0\n"
    run = tmp_path / "run.txt"
    rows = [("q1", d, s) for d, s in RUN["q1"].items()] + [("q2", "e1", 2.0), ("q2", "e2", 1.0)]
    run.write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(rows)))
    names = "P@2 nDCG@5 alpha_nDCG@5 S_recall@1"
    got = evaluate(qrels, str(run), names, qrels_format="ndeval", stream=True).per_query
    flat_qrels = {"q1": {"d1": 1, "d2": 1, "d3": 0, "d4": 2}, "q2": {"e1": 1, "e2": 2}}
    plain = evaluate(flat_qrels, str(run), "P@2 nDCG@5").per_query
    for q in ("q1", "q2"):
        assert got[q]["P@2"] == plain[q]["P@2"] and got[q]["nDCG@5"] == plain[q]["nDCG@5"]
    assert got["q1"]["alpha_nDCG@5"] == pytest.approx(_expected()["alpha_nDCG@5"]["q1"])
    assert got["q2"]["S_recall@1"] == 0.5  # e1 covers x of x, y
    assert got["q2"]["alpha_nDCG@5"] == 1.0  # e1 (x), e2 (y): the ideal order
