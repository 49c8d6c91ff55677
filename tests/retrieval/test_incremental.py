"""``prfeval.Evaluator``: one question at a time gives the batch evaluation, to the last digit.

Seeded random judgments and rankings, with what makes evaluation particular (graded and
negative judgments, tied scores, repeated documents, empty rankings, questions with no
judgments, judged questions never added), are added one question at a time, in blocks of a few
questions so that the pipeline runs many times, and compared with ``prfeval.evaluate`` over the
same rankings with ``==`` (every registered measure, every average, the accounting and the
settings). That is consistency; correctness comes from pytrec_eval (trec_eval 9.0.8), which the
incremental values must match too, and from hand counts.
"""

from __future__ import annotations

import math
import re
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import prfeval
from prfeval import Evaluation, Evaluator, evaluate
from prfeval._core.errors import InputFormatError, PrfevalWarning, UsageError
from support.hand_made import qrels_lines, run_lines, write_lines
from support.measure_specs import every_measure
from support.random_data import judged_runs, rounded, trec_edge_case, with_repeats

ROOT = Path(__file__).resolve().parents[2]
#: Every registered measure (at two cutoffs, with beta and rel), and the two text measures.
SPECS = [*every_measure(), "runid", "relstring@5"]
N_DOCS = 60  # the collection size, for the measures built on TN


# --- Comparing two evaluations ----------------------------------------------------------


def _same_value(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype == object or b.dtype == object:
            return a.shape == b.shape and all(x == y for x, y in zip(a.ravel(), b.ravel(),
                                                                     strict=True))
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, Evaluation) and isinstance(b, Evaluation):
        return not differences(a, b)
    if hasattr(a, "__dataclass_fields__") and type(a) is type(b):
        return all(_same_value(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return type(a) is type(b) and a == b


def differences(a: Evaluation, b: Evaluation, *, ignore=()) -> list[str]:
    """The fields in which two evaluations differ, compared exactly (NaN equals NaN)."""
    out = []
    for f in fields(Evaluation):
        if f.name == "reading":  # which reader read the inputs: not the numbers
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "settings":
            x = {k: v for k, v in x.items() if k not in ignore}
            y = {k: v for k, v in y.items() if k not in ignore}
        if f.name == "measures":
            x, y = [str(m) for m in x], [str(m) for m in y]
        if not _same_value(x, y):
            out.append(f.name)
    return out


# --- Random cases -----------------------------------------------------------------------


#: The last ids of the collection: not in byte order, non-ASCII, with a dot.
ODD_IDS = {N_DOCS - 4: "D1", N_DOCS - 3: "é2", N_DOCS - 2: "Z", N_DOCS - 1: "a.b"}
GRADES = [-1, 0, 0, 1, 1, 2, 3]


def random_rankings(seed: int, *, scored: bool, repeats: bool, empty: bool):
    """Judgments and rankings ``[(qid, ids, scores or None)]`` in the order they are added.

    Queries (tests/support/random_data.py): 25 to 44, judging 1 to 14 of the N_DOCS documents with
    graded and negative grades; every 11th (offset 5) with nothing relevant, every 7th
    (offset 3) only in the rankings, every 5th (offset 2) judged and never added; numeric and
    string ids. Scores take five values, so ties are common; ``repeats`` puts two documents
    twice in some rankings, ``empty`` makes some rankings empty. The rankings are added in an
    order of their own, not the judgments'.
    """
    rng = np.random.default_rng((seed, 1))  # a stream of its own, not judged_runs' again
    qids = [str(i) if i % 3 else f"q{i}" for i in range(int(rng.integers(25, 45)))]
    qrels, (run,) = judged_runs(
        seed, queries=qids, n_docs=N_DOCS, judged=(1, 15), grades=GRADES,
        grades_of=lambda i: [0, 0] if i % 11 == 5 else GRADES, retrieved=(1, 40),
        scores=rounded(0, 4.0), doc=lambda d: ODD_IDS.get(d, f"d{d}"),
        run_only=lambda i: i % 7 == 3, judged_only=lambda i: i % 5 == 2,
    )  # fmt: skip
    if repeats:
        ranked = with_repeats(rng, run, repeats=2, scores=rounded(0, 4.0),
                              where=lambda i, n: i % 2 == 1 and n > 3)  # fmt: skip
    else:
        ranked = [(q, list(docs.items())) for q, docs in run.items()]
    rankings = []
    for i in rng.permutation(len(ranked)):
        q, pairs = ranked[int(i)]
        if empty and int(i) % 6 == 1:
            pairs = []
        scores = [s for _, s in pairs] if scored else None
        rankings.append((q, [d for d, _ in pairs], scores))
    return qrels, rankings


# Blocks of 60 results are of about three questions: the pipeline still runs a dozen times
# for a case (blocks of one result and of everything are test_any_block_size_...'s).
def incremental(qrels, rankings, measures, *, block_results=60, **options) -> Evaluation:
    ev = Evaluator(qrels, measures, block_results=block_results, **options)
    for q, ids, scores in rankings:
        ev.add(q, ids, scores)
    return ev.result()


def as_dicts(rankings):
    """The batch run: ``{qid: {docid: score}}`` or ranked lists ``{qid: [docid, ...]}``."""
    return {
        q: list(ids) if scores is None else dict(zip(ids, scores, strict=True))
        for q, ids, scores in rankings
    }


def as_trec_file(rankings, path: Path) -> Path:
    """The batch run as a TREC file (which can repeat a document in a ranking)."""
    return write_lines(
        path, run_lines((q, zip(ids, scores, strict=True)) for q, ids, scores in rankings)
    )


OPTIONS = [
    {},
    {"complete": True},
    {"level": 2},
    {"level": 0, "complete": True},
    {"max_results": 7},
    {"judged_only": True},
    {"duplicates": "first"},
    {"trec_eval_version": 10},
    {"unjudged": "relevant"},
    {"queries": ["1", "2", "4", "q3", "q6", "nope"], "complete": True},
    {"exclude_queries": ["1", "q0"]},
]


# One case a setting: each holds every kind of query already, so a second seed only drew
# the same kinds again.
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(map(str, o.items())) or "-")
def test_scored_rankings_equal_the_batch_dicts(options) -> None:
    qrels, rankings = random_rankings(0, scored=True, repeats=False, empty=True)
    batch = evaluate(qrels, as_dicts(rankings), SPECS, collection_size=N_DOCS, **options)
    one_by_one = incremental(qrels, rankings, SPECS, collection_size=N_DOCS, **options)
    assert not differences(one_by_one, batch)
    assert one_by_one.accounting.evaluated > (2 if "queries" in options else 5)  # not empty


@pytest.mark.parametrize("options", OPTIONS[:7], ids=lambda o: ",".join(map(str, o.items())))
def test_ranked_lists_with_repeats_equal_the_batch_lists(options) -> None:
    qrels, rankings = random_rankings(2, scored=False, repeats=True, empty=True)
    batch = evaluate(qrels, as_dicts(rankings), SPECS, collection_size=N_DOCS, **options)
    one_by_one = incremental(qrels, rankings, SPECS, collection_size=N_DOCS, **options)
    assert not differences(one_by_one, batch)
    assert one_by_one.settings["order"] == "file"
    assert batch.accounting.duplicates > 0 or options.get("duplicates") == "first"


@pytest.mark.parametrize("options", [{}, {"complete": True}, {"duplicates": "first"},
                                     {"max_results": 5, "judged_only": True}])  # fmt: skip
def test_scored_rankings_with_repeats_equal_the_batch_run_file(tmp_path, options) -> None:
    qrels, rankings = random_rankings(3, scored=True, repeats=True, empty=False)
    run = as_trec_file(rankings, tmp_path / "run.trec")
    specs = [s for s in SPECS if s != "runid"]  # a file's runid is its tag column
    batch = evaluate(qrels, run, specs, collection_size=N_DOCS, **options)
    one_by_one = incremental(qrels, rankings, specs, collection_size=N_DOCS, **options)
    assert not differences(one_by_one, batch, ignore={"run"})
    assert batch.accounting.duplicates > 0 or options.get("duplicates") == "first"


@pytest.mark.parametrize("block_results", [1, 40, 10**6])
def test_any_block_size_gives_the_same_numbers(block_results) -> None:
    qrels, rankings = random_rankings(4, scored=True, repeats=False, empty=True)
    batch = evaluate(qrels, as_dicts(rankings), SPECS, collection_size=N_DOCS)
    got = incremental(qrels, rankings, SPECS, block_results=block_results,
                      collection_size=N_DOCS)  # fmt: skip
    assert not differences(got, batch)


def test_bounds_equal_the_batch_bounds() -> None:
    qrels, rankings = random_rankings(5, scored=True, repeats=False, empty=True)
    measures = "P@5 P@10 R@10 map ndcg_cut_10 SetF"
    batch = evaluate(qrels, as_dicts(rankings), measures, bounds=True)
    got = incremental(qrels, rankings, measures, bounds=True)
    assert got.upper is not None and not differences(got, batch)


def test_result_then_more_questions_then_result() -> None:
    """A result part way leaves the evaluator as it was: the next one counts everything."""
    qrels, rankings = random_rankings(6, scored=True, repeats=False, empty=True)
    ev = Evaluator(qrels, SPECS, collection_size=N_DOCS, complete=True, block_results=60)
    half = len(rankings) // 2
    for q, ids, scores in rankings[:half]:
        ev.add(q, ids, scores)
    first = ev.result()
    assert not differences(first, evaluate(qrels, as_dicts(rankings[:half]), SPECS,
                                           collection_size=N_DOCS, complete=True))  # fmt: skip
    assert not differences(ev.result(), first)  # asking again changes nothing
    for q, ids, scores in rankings[half:]:
        ev.add(q, ids, scores)
    assert len(ev) == len(rankings)
    assert not differences(ev.result(), evaluate(qrels, as_dicts(rankings), SPECS,
                                                 collection_size=N_DOCS, complete=True))


def test_add_many_takes_the_batch_dicts() -> None:
    qrels, rankings = random_rankings(7, scored=True, repeats=False, empty=True)
    run = as_dicts(rankings)
    ev = Evaluator(qrels, SPECS, collection_size=N_DOCS, block_results=60)
    ev.add_many(run)
    assert not differences(ev.result(), evaluate(qrels, run, SPECS, collection_size=N_DOCS))


def test_judgments_from_a_file_and_numbers_as_ids(tmp_path) -> None:
    qrels, rankings = random_rankings(8, scored=True, repeats=False, empty=False)
    path = tmp_path / "qrels.trec"
    write_lines(path, qrels_lines(qrels))
    batch = evaluate(path, as_dicts(rankings), SPECS, collection_size=N_DOCS)
    assert batch.settings["qrels"] == str(path)
    got = incremental(path, rankings, SPECS, collection_size=N_DOCS)
    assert not differences(got, batch)
    # Ids given as numbers are read as their str, as the batch call reads them.
    numeric = {"1": {"7": 1, "8": 0}}
    ev = Evaluator(numeric, "P@2 SetR")
    ev.add("1", [7, 8, 9])
    assert ev.result().macro == evaluate(numeric, {"1": {"7": 3.0, "8": 2.0, "9": 1.0}},
                                         "P@2 SetR").macro == {"P@2": 0.5, "SetR": 1.0}


def test_nothing_added_is_the_empty_run() -> None:
    qrels = {"a": {"d1": 1}, "b": {"d2": 1}}
    for complete in (False, True):
        with pytest.warns(PrfevalWarning, match="is empty"):
            batch = evaluate(qrels, {}, "P@5 map", complete=complete)
        with pytest.warns(PrfevalWarning, match="is empty"):
            got = Evaluator(qrels, "P@5 map", complete=complete).result()
        assert not differences(got, batch)
        assert got.accounting.evaluated == (2 if complete else 0)


def test_a_query_set_matching_nothing_is_refused_as_in_batch() -> None:
    qrels = {"a": {"d1": 1}}
    with pytest.raises(UsageError, match="'zz' is in neither") as batch:
        evaluate(qrels, {"a": {"d1": 1.0}}, "P@5", queries=["zz"])
    ev = Evaluator(qrels, "P@5", queries=["zz"])
    ev.add("a", ["d1"], [1.0])
    with pytest.raises(UsageError) as got:
        ev.result()
    assert str(got.value) == str(batch.value)


# --- Against pytrec_eval and hand counts ---------------------------------------------------

#: prfeval's label -> (trec_eval's name as pytrec_eval takes it, the key of its answer).
PYTREC = {"map": ("map", "map"), "ndcg_cut_10": ("ndcg_cut.10", "ndcg_cut_10"),
          "P_5": ("P.5", "P_5"), "recip_rank": ("recip_rank", "recip_rank"),
          "bpref": ("bpref", "bpref"), "recall_10": ("recall.10", "recall_10"),
          "set_F": ("set_F", "set_F"), "Rprec": ("Rprec", "Rprec")}  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_pytrec_eval(seed) -> None:
    pytest.importorskip("pytrec_eval")
    from support.trec_cases import pytrec

    qrels, run = trec_edge_case(seed)
    ev = Evaluator(qrels, list(PYTREC), block_results=30)
    for q, docs in run.items():  # in the dict's order, each question's results as given
        ev.add(q, list(docs), list(docs.values()))
    got = ev.result()
    expected = pytrec(qrels, run, {name for name, _ in PYTREC.values()})
    assert set(got.query_ids) == set(expected)
    for q, values in got.per_query.items():
        for label, (_, key) in PYTREC.items():
            assert values[label] == pytest.approx(expected[q][key], abs=1e-12), (q, label)


def test_hand_counts() -> None:
    """Two questions, counted by hand: q1 ranks d9, d1, d2 (no scores: the order given); q2
    is scored, so d8 (0.9) comes before d3 (0.2); q3 is judged and never asked."""
    qrels = {"q1": {"d1": 1, "d2": 2, "d4": 1}, "q2": {"d3": 1, "d8": 0}, "q3": {"d5": 1}}
    ev = Evaluator(qrels, "P@2 R@3 recip_rank map SetF", complete=True)
    ev.add("q1", ["d9", "d1", "d2"])
    with pytest.raises(UsageError, match="with scores, the queries before it without"):
        ev.add("q2", ["d3", "d8"], [0.2, 0.9])
    ev = Evaluator(qrels, "P@2 R@3 recip_rank map SetF", complete=True)
    ev.add("q1", ["d9", "d1", "d2"], [3, 2, 1])
    ev.add("q2", ["d3", "d8"], [0.2, 0.9])
    e = ev.result()
    assert e.query_ids == ("q1", "q2", "q3")
    pq = e.per_query
    assert pq["q1"]["P@2"] == 1 / 2 and pq["q2"]["P@2"] == 1 / 2 and pq["q3"]["P@2"] == 0
    assert pq["q1"]["R@3"] == 2 / 3 and pq["q2"]["R@3"] == 1 and pq["q3"]["R@3"] == 0
    assert (pq["q1"]["recip_rank"], pq["q2"]["recip_rank"]) == (1 / 2, 1 / 2)
    assert pq["q1"]["map"] == pytest.approx((1 / 2 + 2 / 3) / 3)  # d1 at 2, d2 at 3, d4 never
    assert pq["q1"]["SetF"] == pytest.approx(2 * (2 / 3) * (2 / 3) / (4 / 3))
    assert e.macro["P@2"] == pytest.approx(1 / 3)
    assert e.accounting.evaluated == 3 and e.accounting.missing_from_run == ("q3",)


def test_ties_and_repeats_by_hand() -> None:
    """Tied scores rank by doc id descending (trec_eval): b before a; a repeated document
    takes a place each time and counts once as relevant."""
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    ev = Evaluator(qrels, "P@1 P@3 SetR NumRet")
    ev.add("q", ["a", "b", "c", "c"], [1.0, 1.0, 0.5, 0.4])
    e = ev.result()
    assert e.macro == {"P@1": 0.0, "P@3": 2 / 3, "SetR": 1.0, "NumRet": 4}
    assert e.accounting.duplicates == 1


# --- What add refuses ------------------------------------------------------------------------


def test_a_question_added_twice_is_refused() -> None:
    ev = Evaluator({"q": {"a": 1}}, "P@5")
    ev.add("q", ["a"])
    with pytest.raises(UsageError, match="'q' was added already"):
        ev.add("q", ["b"])


@pytest.mark.parametrize(
    ("ids", "scores", "error", "message"),
    [
        (["a", None], None, InputFormatError, "query 'q': the id of result 2 is missing"),
        (["a", ""], None, InputFormatError, "the id of result 2 is empty"),
        (["a", float("nan")], None, InputFormatError, "result 2 is missing"),
        (["a", "b"], [1.0, float("inf")], InputFormatError,
         "query 'q', doc 'b' (result 2): expected a finite score, got inf"),
        (["a", "b"], [1.0, "x"], InputFormatError, "expected a finite score, got 'x'"),
        (["a", "b"], [1.0], UsageError, "1 scores for 2 results"),
        ("ab", None, UsageError, "ranked_ids must be a list"),
        (["a"], 1.0, UsageError, "scores must be a list of numbers"),
    ],
)  # fmt: skip
def test_bad_rankings_are_refused_naming_the_question(ids, scores, error, message) -> None:
    ev = Evaluator({"q": {"a": 1}}, "P@5")
    with pytest.raises(error, match=re.escape(message)):
        ev.add("q", ids, scores)
    assert len(ev) == 0  # nothing of it was kept
    ev.add("q", ["a"])  # the question can still be added, rightly
    assert ev.result().macro["P@5"] == 0.2


def test_bad_query_ids_are_refused() -> None:
    ev = Evaluator({"q": {"a": 1}}, "P@5")
    for bad in ("", None, 3):
        with pytest.raises(UsageError, match="query_id must be a non-empty string"):
            ev.add(bad, ["a"])  # type: ignore[arg-type]


def test_a_repeat_under_duplicates_error_fails_in_its_own_add() -> None:
    qrels = {"q": {"a": 1}, "r": {"a": 1}, "s": {"c": 1}}
    ev = Evaluator(qrels, "P@1 SetR", duplicates="error")
    ev.add("r", ["a", "b"])
    with pytest.raises(InputFormatError, match="document 'a' repeated for query 'q'"):
        ev.add("q", ["a", "b", "a"])
    # Refused whole: the evaluator is as it was, and the question can be added right.
    assert len(ev) == 1
    ev.add("s", ["c"])
    ev.add("q", ["b", "a"])
    expected = evaluate(qrels, {"r": ["a", "b"], "s": ["c"], "q": ["b", "a"]}, "P@1 SetR",
                        duplicates="error")  # fmt: skip
    assert not differences(ev.result(), expected)
    assert ev.result().macro == {"P@1": 2 / 3, "SetR": 1.0}


def test_a_repeated_judgment_is_refused_when_the_evaluator_is_made(tmp_path) -> None:
    path = tmp_path / "qrels.trec"
    path.write_text("q 0 a 1\nq 0 b 0\nq 0 a 2\n")
    with pytest.raises(InputFormatError, match=r"qrels.trec:3: judgment repeated"):
        Evaluator(path, "P@5")
    ev = Evaluator(path, "P@5", qrels_duplicates="max")
    ev.add("q", ["a"])
    assert ev.result().accounting.repeated_judgments == 1


def test_arguments_are_checked_before_any_work() -> None:
    qrels = {"q": {"a": 1}}
    with pytest.raises(UsageError, match="block_results must be an integer >= 1"):
        Evaluator(qrels, "P@5", block_results=0)
    with pytest.raises(UsageError, match="unknown option 'levl'"):
        Evaluator(qrels, "P@5", levl=2)  # type: ignore[call-arg]
    with pytest.raises(UsageError, match="needs true negatives"):
        Evaluator(qrels, "TN")
    with pytest.raises(InputFormatError, match="no judgments"):
        Evaluator({}, "P@5")
    with pytest.raises(UsageError, match="add_many takes"):
        Evaluator(qrels, "P@5").add_many([("q", ["a"])])  # type: ignore[arg-type]


def test_exported_lazily_from_the_package() -> None:
    assert prfeval.Evaluator is Evaluator and "Evaluator" in prfeval.__all__


# --- The README's example ------------------------------------------------------------------


def test_the_readme_example_runs_and_says_what_it_gives() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## One question at a time\n(.*?)(?=^## )", readme, re.S | re.M)
    assert match, "README has no section 'One question at a time'"
    (block,) = re.findall(r"^```python\n(.*?)^```", match.group(1), re.S | re.M)
    namespace: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    e = namespace["e"]
    assert isinstance(e, Evaluation)
    # The numbers its comments quote (worked out by hand from its judgments and rankings).
    comments = " ".join(line.partition("#")[2] for line in block.splitlines())
    quoted = re.findall(r"(\S+) = (\d\.\d{3})\b", comments)
    assert [label for label, _ in quoted] == list(e.macro)
    for label, value in quoted:
        assert f"{e.macro[label]:.3f}" == value, label
