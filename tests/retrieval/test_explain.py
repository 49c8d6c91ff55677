"""explain: one query's ranking read as a person would, against hand-computed rankings."""

from __future__ import annotations

import json

import pytest

from prfeval._core.errors import UsageError
from prfeval._retrieval.explain import explain, explain_queries
from prfeval.cli import main

QRELS = {
    "q1": {"a": 2, "b": 0, "c": 1, "d": -1, "e": 1, "m": 1},
    "q2": {"x": 0},  # judged, nothing relevant
    "q3": {"n": 1},  # judged, not in the run
}
# q1 in file order; ranked by score, ties by doc id descending: z(5) c(4) b(4) a(4) d(3)
# then the repeat of c at 2 (a repeat takes a place, counts once) and y (1).
RUN_LINES = [
    "q1 Q0 a 1 4 t",
    "q1 Q0 b 2 4 t",
    "q1 Q0 z 3 5 t",
    "q1 Q0 c 4 4 t",
    "q1 Q0 d 5 3 t",
    "q1 Q0 c 6 2 t",
    "q1 Q0 y 7 1 t",
    "q2 Q0 x 1 1 t",
    "q2 Q0 w 2 0.5 t",
]


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    (tmp_path / "run").write_text("\n".join(RUN_LINES) + "\n")
    return tmp_path / "qrels", tmp_path / "run"


def test_ranking_with_ties_repeats_unjudged_and_negative_grades(files):
    qrels, run = files
    e = explain(qrels, run, "q1", "P@3 R@3 SetP", depth=10)
    got = [(d.rank, d.doc_id, d.grade, d.relevant, d.repeat) for d in e.ranking]
    assert got == [
        (1, "z", None, False, False),
        (2, "c", 1, True, False),
        (3, "b", 0, False, False),
        (4, "a", 2, True, False),
        (5, "d", -1, False, False),
        (6, "c", 1, False, True),
        (7, "y", None, False, False),
    ]
    # 4 relevant (a, c, e, m): P and R at each rank, by hand.
    expected_p = [0.0, 0.5, 0.3333, 0.5, 0.4, 0.3333, 0.2857]
    assert [round(d.precision, 4) for d in e.ranking] == expected_p
    assert [d.recall for d in e.ranking] == [0, 0.25, 0.25, 0.5, 0.5, 0.5, 0.5]
    assert e.missed == (("e", 1), ("m", 1))
    assert (e.n_retrieved, e.n_relevant) == (7, 4)
    assert e.recall_reached == {0.25: (2, 0.5), 0.5: (4, 0.5), 0.75: None, 1.0: None}
    # F1 = 2 TP / (k + R): 0, 2/6, 2/7, 4/8, 4/9, ...: best at k = 4.
    assert e.best == (4, 0.5, 0.5, 0.5)
    assert e.values == {"P@3": pytest.approx(1 / 3), "R@3": 0.25, "SetP": pytest.approx(2 / 7)}
    # k = 3 cuts the tie at score 4 (ranks 2-4): its order decides P@3 and R@3.
    (tie,) = e.cut_ties
    assert (tie.k, tie.first, tie.last, tie.score, tie.doc_ids) == (3, 2, 4, 4.0, ("c", "b", "a"))
    assert tie.measures == ("P@3", "R@3")


def test_depth_defaults_to_the_deepest_cutoff_or_twenty(files):
    qrels, run = files
    assert explain(qrels, run, "q1", "P@2 R@5").depth == 5
    assert len(explain(qrels, run, "q1", "P@2 R@5").ranking) == 5
    assert explain(qrels, run, "q1", "SetP").depth == 20


def test_a_query_with_no_relevant_and_one_with_no_results(files):
    qrels, run = files
    none, absent = explain_queries(qrels, run, ["q2", "q3"], "P@2 R@2")
    assert [(d.doc_id, d.grade, d.relevant) for d in none.ranking] == [
        ("x", 0, False),
        ("w", None, False),
    ]
    assert none.n_relevant == 0 and none.missed == () and none.values["R@2"] == 0.0
    assert none.recall_reached == {0.25: None, 0.5: None, 0.75: None, 1.0: None}
    # A judged query with no results: what it can, the relevant documents it missed.
    assert absent.ranking == () and absent.n_retrieved == 0 and absent.best is None
    assert absent.missed == (("n", 1),)


def test_unknown_queries_are_named_with_close_ids(files):
    qrels, run = files
    with pytest.raises(UsageError, match=r"'q11' is in neither the run nor the judgments; "
                       r"did you mean 'q1'"):
        explain(qrels, run, "q11")
    (qrels.parent / "run2").write_text("q9 Q0 a 1 1 t\n")
    with pytest.raises(UsageError, match="in the run but has no judgments"):
        explain(qrels, qrels.parent / "run2", "q9")


def test_unjudged_taken_as_relevant_keeps_the_grade_unknown(files):
    qrels, run = files
    e = explain(qrels, run, "q1", "P@1", unjudged="relevant", depth=1)
    (z,) = e.ranking
    assert (z.doc_id, z.grade, z.relevant) == ("z", None, True)
    assert e.n_relevant == 6  # a, c, e, m and the unjudged z and y


def test_cli_json_has_the_fields_and_worst_picks_the_lowest(files, capsys):
    qrels, run = files
    with pytest.raises(SystemExit) as done:
        main(["explain", str(qrels), str(run), "--query", "q1", "-m", "P@3", "--format", "json"])
    assert done.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["query"] == "q1"
    assert data["ranking"][0] == {
        "rank": 1,
        "doc_id": "z",
        "score": 5.0,
        "grade": None,
        "relevant": False,
        "repeat": False,
        "precision": 0.0,
        "recall": 0.0,
    }
    assert data["missed"] == [{"doc_id": "e", "grade": 1}, {"doc_id": "m", "grade": 1}]
    assert data["values"] == {"P@3": pytest.approx(1 / 3)}
    with pytest.raises(SystemExit) as done:
        main(["explain", str(qrels), str(run), "--worst", "1", "-m", "P@3", "--format", "json"])
    assert done.value.code == 0
    assert json.loads(capsys.readouterr().out)["query"] == "q2"  # P@3 = 0, the lowest


def test_cli_table_fits_80_columns(files, capsys):
    qrels, run = files
    with pytest.raises(SystemExit) as done:
        main(["explain", str(qrels), str(run), "--query", "q1", "-m", "P@3 R@3 SetF"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "Ranks 2-4 tie at score 4" in out
    assert "Relevant, never retrieved (2): e (1), m (1)." in out
    with pytest.raises(SystemExit) as done:
        main(["explain", str(qrels), str(run)])
    assert done.value.code == 2
    assert "--query" in capsys.readouterr().err


def _tied_tables(seed: int) -> tuple[dict, dict]:
    """Rankings with long ties of every kind: one grade, mixed grades, unjudged, repeats."""
    import random

    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(40):
        pool = [f"d{i:03d}" for i in range(120)]
        qrels[f"q{q}"] = {d: rng.choice([-1, 0, 0, 1, 1, 2]) for d in rng.sample(pool, 60)}
        docs = rng.sample(pool, rng.randint(1, 110))
        docs += rng.sample(docs, len(docs) // 10)  # repeats
        # Short ties, often of one grade.
        run[f"q{q}"] = [(d, float(rng.randint(0, 40))) for d in docs]
    return qrels, run


@pytest.mark.parametrize("options", [{}, {"judged_only": True}, {"duplicates": "first"}])
@pytest.mark.parametrize(
    ("measures", "depth"), [("P@10 Rprec R@50", 5), ("P@5 Rprec", 3), ("P@5 nDCG@20", 30)]
)
def test_a_reports_explanations_equal_explain_for_every_query(tmp_path, options, measures, depth):
    """A report orders ties exactly in the top ranks only (and down to its deepest cutoff);
    its explanations must still be explain's, whose every rank is exact: the same places,
    the same cut ties (Rprec cuts at R, below the depth), the same misses."""
    from prfeval._comparison.study import study

    qrels, run = _tied_tables(len(measures) + depth)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    run_path.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {s} t\n"
            for q, docs in run.items()
            for i, (d, s) in enumerate(docs)
        )
    )
    s = study(str(qrels_path), {"r": str(run_path)}, measures, depth=depth, **options)
    (reported,) = s.runs
    queries = list(reported.explanations)
    direct = explain_queries(
        str(qrels_path), str(run_path), queries, measures, depth=depth, **options
    )
    assert len(queries) == 40
    assert any(e.cut_ties for e in direct)  # the data has ties cut by a cutoff
    for e in direct:
        got, want = reported.explanations[e.query].to_dict(), e.to_dict()
        got.pop("settings"), want.pop("settings")
        assert got == want


def test_a_reports_cut_tie_below_its_exact_ranks_is_named_in_trec_eval_order(tmp_path):
    """R = 3 cuts the tie of unjudged a and b (ranks 3 and 4), below the one rank a report
    of P@1 orders exactly: the tie keeps the file's order (a, b) in the ranking, which no
    measure tells apart, but is named as trec_eval ranks it, b before a."""
    from prfeval._comparison.study import study

    (tmp_path / "qrels").write_text("q 0 r1 1\nq 0 r2 1\nq 0 r3 1\n")
    (tmp_path / "run").write_text("q Q0 r1 1 10 t\nq Q0 r2 2 9 t\nq Q0 a 3 8 t\nq Q0 b 4 8 t\n")
    s = study(str(tmp_path / "qrels"), {"r": str(tmp_path / "run")}, "P@1 Rprec", depth=1)
    (cut,) = s.runs[0].explanations["q"].cut_ties
    assert (cut.k, cut.first, cut.last, cut.doc_ids) == (3, 3, 4, ("b", "a"))
    (direct,) = explain(str(tmp_path / "qrels"), str(tmp_path / "run"), "q", "P@1 Rprec").cut_ties
    assert direct.doc_ids == ("b", "a")


def test_places_read_as_a_sequence_of_ranked_documents():
    from prfeval._retrieval.explain_columns import Places
    from prfeval._retrieval.explanation import RankedDocument

    places = Places(["x", "y"], [2.0, 1.0], [None, 1], [False, True], [False, False],
                    [0.0, 0.5], [0.0, 1.0])  # fmt: skip
    first = RankedDocument(1, "x", 2.0, None, False, False, 0.0, 0.0)
    second = RankedDocument(2, "y", 1.0, 1, True, False, 0.5, 1.0)
    assert len(places) == 2 and places[0] == first and places[-1] == second
    assert places[1:] == (second,) and list(places) == [first, second]
    assert places == (first, second) and places != (first,)
    assert places.flags() == ".r"
    with pytest.raises(IndexError):
        places[2]
    assert Places([], None, [], [], [], [], []) == ()


def test_cut_ties_and_missed_documents_by_hand(tmp_path):
    """Every query's cut ties and missed documents against a count made here from the
    tables: each ranking sorted as trec_eval sorts it (score descending, doc id descending;
    a repeat keeps its places), the cutoffs 5 and R (the relevant judged documents), and the
    relevant documents the ranking never names, in doc id order."""
    qrels, run = _tied_tables(11)
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    (tmp_path / "run").write_text(
        "".join(f"{q} Q0 {d} 1 {s} t\n" for q, docs in run.items() for d, s in docs)
    )
    explained = explain_queries(str(tmp_path / "qrels"), str(tmp_path / "run"), list(run),
                                "P@5 Rprec", depth=5)  # fmt: skip
    n_cut = 0
    for e in explained:
        ranking = sorted(run[e.query], key=lambda x: (x[1], x[0]), reverse=True)
        scores = [s for _, s in ranking]
        relevant = sorted(d for d, g in qrels[e.query].items() if g >= 1)
        named = {d for d, _ in ranking}
        assert e.missed == tuple((d, qrels[e.query][d]) for d in relevant if d not in named)
        expected = []
        for k, labels in sorted({5: ("P@5",), len(relevant): ("Rprec",)}.items()):
            if len(relevant) == 5:
                labels = ("P@5", "Rprec")
            if 0 < k < len(scores) and scores[k - 1] == scores[k]:
                tied = [i for i, s in enumerate(scores) if s == scores[k]]
                expected.append((k, labels, tied[0] + 1, tied[-1] + 1, scores[k],
                                 tuple(ranking[i][0] for i in tied)))  # fmt: skip
        got = [(t.k, t.measures, t.first, t.last, t.score, t.doc_ids) for t in e.cut_ties]
        assert got == expected
        n_cut += len(got)
    assert n_cut > 5  # the tables have ties cut by both cutoffs


def test_missed_reads_as_a_sequence_of_pairs():
    import pyarrow as pa

    from prfeval._retrieval.explain_columns import Missed

    missed = Missed(pa.array(["a", "c", "d"]), [2, 1, 1])
    assert len(missed) == 3 and missed[0] == ("a", 2) and missed[-1] == ("d", 1)
    assert missed[1:] == (("c", 1), ("d", 1)) and list(missed) == [("a", 2), ("c", 1), ("d", 1)]
    assert missed == (("a", 2), ("c", 1), ("d", 1)) and missed != (("a", 2),)
    assert repr(missed) == "(('a', 2), ('c', 1), ('d', 1))"
    assert Missed((), ()) == () and not Missed([], [])
    with pytest.raises(IndexError):
        missed[3]
