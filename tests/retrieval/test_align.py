"""The join of a run with its judgments: order, ties, repeats, -M, -J and query accounting.

Expected values are hand counts on tiny inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from prfeval._core.errors import InputFormatError, UsageError
from prfeval._core.ranking import UNJUDGED, RankingNeeds
from prfeval._io import load_qrels, load_run
from prfeval._retrieval.pipeline import align


def ranked_docs(jr, i=0):
    lo, hi = jr.offsets[i], jr.offsets[i + 1]
    return jr.doc_vocab.take(jr.doc_codes[lo:hi]).to_pylist()


QRELS = {"q1": {"a": 1, "b": 0, "c": 2, "d": -1}, "q2": {"x": 1}}


def test_score_ties_broken_by_doc_id_descending_like_trec_eval():
    run = load_run({"q1": {"a": 1.0, "b": 1.0, "c": 2.0, "B": 1.0, "aa": 1.0}})
    jr = align(load_qrels(QRELS), run)
    # strcmp order descending: "b" > "aa" > "a" > "B"
    assert ranked_docs(jr) == ["c", "b", "aa", "a", "B"]


def test_rank_and_file_orders_ignore_scores():
    text = b"q1 Q0 a 2 9.0 t\nq1 Q0 b 1 1.0 t\nq1 Q0 c 3 5.0 t\n"
    run = load_run(text)
    qrels = load_qrels(QRELS)
    assert ranked_docs(align(qrels, run)) == ["a", "c", "b"]
    assert ranked_docs(align(qrels, run, order="rank")) == ["b", "a", "c"]
    assert ranked_docs(align(qrels, run, order="file")) == ["a", "b", "c"]


def test_ranked_lists_keep_their_order():
    jr = align(load_qrels(QRELS), load_run({"q1": ["d", "a", "c"]}))
    assert ranked_docs(jr) == ["d", "a", "c"]
    with pytest.raises(UsageError):
        align(load_qrels(QRELS), load_run({"q1": ["d"]}), order="score")


def test_grades_unjudged_and_negative():
    jr = align(load_qrels(QRELS), load_run({"q1": ["a", "b", "c", "d", "zz"]}))
    assert jr.grades.tolist() == [1, 0, 2, -1, UNJUDGED]
    assert jr.accounting.unjudged_retrieved == 1
    assert jr.n_relevant(1).tolist() == [2]
    assert jr.n_relevant(2).tolist() == [1]
    assert jr.tp_at(None, 1).tolist() == [2]


def test_repeated_document_takes_a_place_and_counts_once():
    jr = align(load_qrels(QRELS), load_run({"q1": ["a", "a", "c"]}))
    assert jr.first.tolist() == [True, False, True]
    assert jr.tp_at(2).tolist() == [1]
    assert jr.tp_at(3).tolist() == [2]
    assert jr.n_retrieved.tolist() == [3]
    assert jr.accounting.duplicates == 1


def test_duplicate_policies():
    run = b"q1 Q0 a 1 3 t\nq1 Q0 c 2 2 t\nq1 Q0 a 3 1 t\n"
    first = align(load_qrels(QRELS), load_run(run), duplicates="first")
    assert ranked_docs(first) == ["a", "c"]
    assert first.accounting.duplicates == 1
    with pytest.raises(InputFormatError, match=r"<bytes>:3: document 'a' repeated"):
        align(load_qrels(QRELS), load_run(run), duplicates="error")


def test_max_results_applies_before_judged_only_as_trec_eval():
    run = load_run({"q1": ["zz", "a", "yy", "c", "b"]})
    jr = align(load_qrels(QRELS), run, max_results=3, judged_only=True)
    assert ranked_docs(jr) == ["a"]
    assert jr.accounting.truncated == 2
    assert jr.accounting.dropped_unjudged == 2


def test_query_accounting_default_and_complete():
    run = load_run({"q1": ["a"], "q9": ["a"]})
    jr = align(load_qrels(QRELS), run)
    assert list(jr.query_ids) == ["q1"]
    assert jr.accounting.missing_from_run == ("q2",)
    assert jr.accounting.not_in_qrels == ("q9",)
    complete = align(load_qrels(QRELS), run, complete=True)
    assert list(complete.query_ids) == ["q1", "q2"]
    assert complete.n_retrieved.tolist() == [1, 0]
    assert complete.n_relevant().tolist() == [2, 1]


def test_numeric_query_ids_in_numeric_order():
    qrels = {"10": {"a": 1}, "9": {"a": 1}, "100": {"a": 1}}
    run = {"100": ["a"], "9": ["a"], "10": ["a"]}
    assert list(align(load_qrels(qrels), load_run(run)).query_ids) == ["9", "10", "100"]


def test_repeated_judgment_is_an_error_naming_the_line():
    qrels = load_qrels(b"q1 0 a 1\nq1 0 b 1\nq1 0 a 0\n")
    with pytest.raises(InputFormatError, match=r"<bytes>:3: judgment repeated"):
        align(qrels, load_run({"q1": ["a"]}))


def test_counts_at_cutoff_pad_missing_places_as_non_relevant():
    jr = align(load_qrels(QRELS), load_run({"q1": ["a", "c"]}))
    c = jr.counts(5)
    assert (c.tp[0], c.fp[0], c.fn[0]) == (2, 3, 0)
    c = jr.counts(None, collection_size=10)
    assert (c.tp[0], c.fp[0], c.fn[0], c.tn[0]) == (2, 0, 0, 8)
    per_query_k = jr.counts(np.array([1]))
    assert per_query_k.tp.tolist() == [1]


def _relevance_pattern(jr, level):
    """Per query, the (grade, counts-as-relevant) sequence in rank order: what measures see."""
    relevant = (jr.grades >= level) & jr.first
    return [
        list(zip(jr.grades[a:b].tolist(), relevant[a:b].tolist(), strict=True))
        for a, b in zip(jr.offsets[:-1], jr.offsets[1:], strict=True)
    ]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "options",
    [{}, {"duplicates": "first"}, {"judged_only": True}, {"max_results": 7}],
    ids=["keep", "first", "J", "M"],
)
def test_tied_documents_ordered_only_where_it_shows_gives_the_full_order(seed, options):
    # doc_order="ties" leaves tie groups of one grade without repeats in file order; the
    # measures must not see the difference from the full doc id order ("sorted").
    judgments, table = _tied_run(seed)
    full = align(judgments, table, needs=RankingNeeds.everything(), **options)
    ties = align(judgments, table, needs=RankingNeeds(None), **options)
    assert list(ties.query_ids) == list(full.query_ids)
    assert np.array_equal(ties.offsets, full.offsets)
    for level in (1, 2):
        assert _relevance_pattern(ties, level) == _relevance_pattern(full, level)
    assert ties.accounting == full.accounting


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "options", [{}, {"max_results": 7}, {"judged_only": True}], ids=["keep", "M", "J"]
)
def test_ties_ordered_only_across_the_cutoffs_read_give_the_same_counts(seed, options):
    # With cutoffs, only ties straddling a cutoff are ordered: the top-k sets and the whole
    # ranking must still hold the same judged documents as under the full doc id order.
    judgments, table = _tied_run(seed)
    full = align(judgments, table, needs=RankingNeeds.everything(), **options)
    cut = align(judgments, table, needs=RankingNeeds(frozenset({1, 3, 10})), **options)
    assert np.array_equal(cut.offsets, full.offsets)
    for level in (1, 2):
        for k in (None, 1, 3, 10):
            assert np.array_equal(cut.tp_at(k, level), full.tp_at(k, level))
    assert cut.accounting == full.accounting


def _tied_run(seed):
    """A run with big tie groups, repeated documents and graded judgments (-1 to 2)."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(12):
        n = int(rng.integers(1, 40))
        docs = [f"d{d}" for d in rng.integers(0, 25, size=n)]  # repeats, often tied
        scores = rng.integers(0, 4, size=n).astype(float)  # few scores: big tie groups
        if seed % 2:  # written best first, as TREC runs are (the presorted path)
            scores = -np.sort(-scores)
        run[f"q{q}"] = list(zip(docs, scores.tolist(), strict=True))
        judged = rng.choice(25, size=int(rng.integers(0, 20)), replace=False)
        qrels[f"q{q}"] = {f"d{d}": int(rng.integers(-1, 3)) for d in judged}
    lines = [f"{q} Q0 {d} 0 {s} t" for q, pairs in run.items() for d, s in pairs]
    table = load_run(lines_to_run(lines))
    judgments = load_qrels({q: g for q, g in qrels.items() if g})
    return judgments, table


def lines_to_run(lines):
    import io

    return io.BytesIO(("\n".join(lines) + "\n").encode())


@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("shape", ["runs", "dictionary", "plain", "long", "wide"])
def test_factorize_shortcuts_give_codes_of_the_same_ids(sort, shape):
    # plain and long: ids told apart by their last 8 bytes (sorted as integers); wide: not.
    import pyarrow as pa
    import pyarrow.compute as pc

    from prfeval._core.codes import byte_order_keys, factorize

    rng = np.random.default_rng(7)
    ids = [f"d{v}" for v in rng.integers(0, 30, size=200)]
    if shape in ("long", "wide"):
        ids = [f"clueweb09-en{v:04d}-{v % 7}" for v in rng.integers(0, 30, size=200)]
        if shape == "wide":
            ids += [f"{v}-\u00e9t\u00e9-{v:012d}" for v in rng.integers(0, 3, size=20)]
        assert (byte_order_keys(pa.array(ids)) is None) == (shape == "wide")
    if shape == "runs":
        ids = [i for i in ids[:40] for _ in range(int(rng.integers(1, 6)))]
    first = pa.array(ids)
    if shape == "dictionary":
        first = pc.dictionary_encode(first)
    others = [pa.array([f"d{v}" for v in rng.integers(20, 50, size=60)]), pa.array([], pa.string())]
    codes, vocab = factorize([first, *others], sort=sort, runs=shape == "runs")
    words = vocab.to_pylist()
    assert len(set(words)) == len(words)
    for array, c in zip([pa.array(ids), *others], codes, strict=True):
        assert [words[i] for i in c] == array.to_pylist()
    if sort:
        assert words == sorted(words, key=str.encode)


@pytest.mark.parametrize("kind", ["numbers", "mixed"])
def test_query_output_order_is_the_same_for_small_and_large_sets(kind):
    # Small sets (a streamed block's queries) are ordered in Python, large ones in Arrow.
    from prfeval._core.arrow import arrow_strings
    from prfeval._core.ids import query_output_order

    rng = np.random.default_rng(3)
    numbers = [str(v) for v in rng.permutation(3000)[:1500]] + ["007", "0"]  # "007" after "7"
    others = [] if kind == "numbers" else ["b", "B", "é", "a10", "a9", "7x", "\uffff", "\U00010000",
                                           "\x7f", "字", "🙂"]
    ids = list(dict.fromkeys(numbers + others))
    ids = [ids[i] for i in rng.permutation(len(ids))]

    def expected(names):
        if all(n.isascii() and n.isdigit() and len(n) <= 18 for n in names):
            return sorted(names, key=lambda n: (int(n), n.encode()))
        return sorted(names, key=str.encode)

    for names in (ids, ids[:600]):
        order = query_output_order(arrow_strings(names))
        assert [names[i] for i in order] == expected(names)


@pytest.mark.parametrize("doc_order", ["sorted", "ties"])
def test_repeat_inside_a_tie_is_named_by_its_later_line(doc_order):
    # 'a' twice with one score, among tied judged and unjudged documents: the repeat is the
    # second line (line 4), whichever way the tied documents are put in order.
    lines = ["q1 Q0 c 1 2.0 t", "q1 Q0 a 2 1.0 t", "q1 Q0 b 3 1.0 t", "q1 Q0 a 4 1.0 t",
             "q1 Q0 z 5 1.0 t"]
    run = load_run(lines_to_run(lines))
    with pytest.raises(InputFormatError) as caught:
        needs = RankingNeeds.everything() if doc_order == "sorted" else RankingNeeds(frozenset({2}))
        align(load_qrels(QRELS), run, duplicates="error", needs=needs)
    assert caught.value.line_number == 4
