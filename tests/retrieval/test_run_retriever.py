"""``prfeval run-retriever``: any retriever asked every query, its answers a TREC run that
prfeval and pytrec_eval (trec_eval 9.0.8) evaluate to the same numbers.

The retrievers are real: plain functions of each shape the command takes, a subclass of
LangChain's ``BaseRetriever`` and one of LlamaIndex's, over a tiny corpus scored by counting
the query's words in each document (no network, no model). They live in a module written into
the test's folder, imported by name from the current folder as a user's would be. The run
file is read back here line by line (not by prfeval) for pytrec_eval.
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path

import pytest

from prfeval import evaluate
from prfeval._core.errors import InputFormatError, PrfevalWarning, UsageError
from prfeval._io.query_texts import read_queries
from prfeval._retrieval.retrievers import as_retriever, ranking_of, retrieve
from support.cli import run_cli

CORPUS = {
    "d1": "the cat sat on the mat",
    "d2": "a dog chased the cat",
    "d3": "the dog slept",
    "d4": "cats and dogs and birds",
    "d5": "a bird sang on the mat",
    "d6": "nothing here at all",
}
QUERIES = {"q1": "cat mat", "q2": "dog", "q3": "bird mat sang", "q4": "zebra"}
QRELS = {
    "q1": {"d1": 2, "d2": 1, "d4": 0},
    "q2": {"d2": 1, "d3": 1, "d6": 0},
    "q3": {"d5": 1, "d4": 1},
    "q4": {"d6": 1},
}
MEASURES = {"map": "map", "P_2": "P.2", "recip_rank": "recip_rank", "ndcg_cut_3": "ndcg_cut.3",
            "recall_3": "recall.3", "bpref": "bpref"}  # fmt: skip

# The module a user would write: a scorer, retrievers of every kind, and broken ones.
MODULE = '''
CORPUS = {corpus!r}


def scored(query):
    """Each document with a word of the query: (id, words matched), best first, ties by id
    descending (as a run is ranked, so the order returned is the order evaluated)."""
    words = set(query.split())
    hits = [(d, sum(w in words for w in text.split())) for d, text in CORPUS.items()]
    hits = [(d, s) for d, s in hits if s > 0]
    return sorted(sorted(hits, reverse=True), key=lambda h: -h[1])


def pairs(query):
    return [(d, float(s)) for d, s in scored(query)]


def ids_only(query):
    return [d for d, _ in scored(query)]


def dicts(query, k):  # told k: gives no more
    assert k == 3, k
    return [{{"doc_id": d, "score": s}} for d, s in scored(query)][:k]


def numbers(query):
    return [int(d[1:]) for d, _ in scored(query)]


def reversed_scores(query):  # scores that grow down the list
    return [(d, float(i)) for i, (d, _) in enumerate(scored(query))]


def no_id(query):
    return ["d1", {{"score": 1.0}}]


def repeated(query):
    return ["d1", "d2", "d1"]


def mixed(query):
    return [("d1", 2.0), "d2"]


def not_finite(query):
    return [("d1", float("nan"))]


def boom(query):
    raise ValueError("the index is not built")


def nothing_for_q4(query):
    return [] if query == "zebra" else ids_only(query)


class Factory:
    def __init__(self):
        self.calls = 0

    def __call__(self, query):
        self.calls += 1
        return pairs(query)


def make():
    return Factory()


def langchain_retriever(id_in="id"):
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    class KeywordRetriever(BaseRetriever):
        k: int = 3
        where: str = "id"

        def _get_relevant_documents(self, query, *, run_manager):
            docs = []
            for d, s in scored(query)[: self.k]:
                if self.where == "id":
                    docs.append(Document(page_content=CORPUS[d], id=d, metadata={{"score": s}}))
                else:
                    docs.append(Document(page_content=CORPUS[d], metadata={{self.where: d}}))
            return docs

    return KeywordRetriever(where=id_in)


def langchain_metadata():
    return langchain_retriever("doc_id")


def llamaindex_retriever(chunks=True):
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import (
        NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode,
    )

    class KeywordNodes(BaseRetriever):
        def _retrieve(self, query_bundle):
            out = []
            for d, s in scored(query_bundle.query_str)[:3]:
                if chunks:  # a node cut from document d: its own id is not d
                    node = TextNode(text=CORPUS[d], id_=d + "-chunk-0", relationships={{
                        NodeRelationship.SOURCE: RelatedNodeInfo(node_id=d)}})
                else:
                    node = TextNode(text=CORPUS[d], id_=d)
                out.append(NodeWithScore(node=node, score=float(s)))
            return out

    return KeywordNodes()


def llamaindex_nodes():
    return llamaindex_retriever(chunks=False)
'''


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A folder holding the user's module (a fresh name per test) and queries.tsv, as the
    current folder."""
    name = f"user_retrievers_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(MODULE.format(corpus=CORPUS))
    (tmp_path / "queries.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()))
    (tmp_path / "qrels.trec").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    monkeypatch.chdir(tmp_path)
    yield tmp_path, name
    sys.modules.pop(name, None)


def read_run(path: Path) -> tuple[dict[str, dict[str, float]], list[list[str]]]:
    """The run file read by hand: ``{qid: {doc: score}}`` and every line's fields."""
    fields = [line.split() for line in path.read_text().splitlines()]
    run: dict[str, dict[str, float]] = {}
    for q, _, d, _, s, _ in fields:
        run.setdefault(q, {})[d] = float(s)
    return run, fields


def assert_evaluates_as_pytrec_eval(path: Path) -> None:
    """prfeval reading the file gives pytrec_eval's numbers for every query."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, _ = read_run(path)
    expected = pytrec_eval.RelevanceEvaluator(QRELS, set(MEASURES.values())).evaluate(run)
    got = evaluate("qrels.trec", str(path), list(MEASURES)).per_query
    assert set(got) == set(expected)
    for q, values in expected.items():
        for label in MEASURES:
            assert got[q][label] == pytest.approx(values[label], abs=1e-12), (q, label)


def expected_top(query: str, k: int) -> list[tuple[str, int]]:
    """The toy scorer, computed again here: documents sharing a word, best first."""
    words = set(query.split())
    hits = [(d, sum(w in words for w in t.split())) for d, t in CORPUS.items()]
    return sorted((h for h in hits if h[1] > 0), key=lambda h: (-h[1], [-ord(c) for c in h[0]]))[:k]


# --- Plain callables --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attr", "k", "scores_given"),
    [("pairs", 100, True), ("ids_only", 100, False), ("dicts", 3, True), ("make()", 2, True)],
)
def test_each_shape_of_function_gives_a_run_pytrec_eval_agrees_on(
    folder, capsys, attr, k, scores_given
) -> None:
    path, module = folder
    code, out, err = run_cli(capsys, "run-retriever", "--retriever", f"{module}:{attr}",
                             "--queries", "queries.tsv", "--k", str(k),
                             "-o", "run.trec")  # fmt: skip
    assert code == 0, err
    assert out == ""
    run, fields = read_run(path / "run.trec")
    tag = attr.removesuffix("()")
    for q, text in QUERIES.items():
        top = expected_top(text, k)
        lines = [f for f in fields if f[0] == q]
        assert [f[2] for f in lines] == [d for d, _ in top], q
        assert [int(f[3]) for f in lines] == list(range(1, len(top) + 1))
        assert {f[1] for f in lines} <= {"Q0"} and {f[5] for f in lines} <= {tag}
        if scores_given:
            assert [float(f[4]) for f in lines] == [float(s) for _, s in top]
        else:  # k - rank + 1
            assert [int(f[4]) for f in lines] == [k - i for i in range(len(top))]
    assert "q4" not in run  # nothing shares a word with "zebra"
    assert "1 query got no results ('q4')" in err
    assert f"to run.trec (tag {tag})" in err
    assert_evaluates_as_pytrec_eval(path / "run.trec")


def test_numbers_as_ids_and_the_run_on_stdout(folder, capsys) -> None:
    _, module = folder
    code, out, err = run_cli(capsys, "run-retriever", "--retriever", f"{module}:numbers",
                             "--queries", "queries.tsv", "--tag", "mine")  # fmt: skip
    assert code == 0, err
    first = out.splitlines()[0].split()
    assert first == ["q1", "Q0", "1", "1", "100", "mine"]  # d1 -> 1, as its str


def test_k_truncates(folder, capsys) -> None:
    path, module = folder
    code, _, err = run_cli(capsys, "run-retriever", "--retriever", f"{module}:pairs",
                           "--queries", "queries.tsv", "--k", "1", "-o", "run.trec")  # fmt: skip
    assert code == 0, err
    run, _ = read_run(path / "run.trec")
    assert {q: list(docs) for q, docs in run.items()} == {
        q: [expected_top(t, 1)[0][0]] for q, t in QUERIES.items() if q != "q4"
    }


# --- LangChain and LlamaIndex -----------------------------------------------------------


@pytest.mark.parametrize("attr", ["langchain_retriever()", "langchain_metadata()"])
def test_a_langchain_retriever(folder, capsys, attr) -> None:
    pytest.importorskip("langchain_core", reason="needs langchain-core: pip install '.[langchain]'")
    path, module = folder
    code, _, err = run_cli(capsys, "run-retriever", "--retriever", f"{module}:{attr}",
                           "--queries", "queries.tsv", "-o", "run.trec")  # fmt: skip
    assert code == 0, err
    _, fields = read_run(path / "run.trec")
    for q, text in QUERIES.items():
        top = expected_top(text, 3)  # the retriever's own k
        assert [f[2] for f in fields if f[0] == q] == [d for d, _ in top]
        if attr == "langchain_retriever()":  # metadata["score"]
            assert [float(f[4]) for f in fields if f[0] == q] == [float(s) for _, s in top]
        else:  # no score: k - rank + 1
            assert [float(f[4]) for f in fields if f[0] == q] == [100 - i for i in range(len(top))]
    assert_evaluates_as_pytrec_eval(path / "run.trec")


def _llama_index_or_skip() -> None:
    """LlamaIndex, if it imports offline (it may fetch tokenizer data on first use)."""
    try:
        import llama_index.core.retrievers
        import llama_index.core.schema  # noqa: F401
    except Exception as exc:  # an ImportError, or a download that cannot happen here
        pytest.skip(f"llama-index-core cannot be imported here ({type(exc).__name__}: {exc}); "
                    "pip install '.[llamaindex]'")  # fmt: skip


@pytest.mark.parametrize("attr", ["llamaindex_retriever()", "llamaindex_nodes()"])
def test_a_llamaindex_retriever(folder, capsys, attr) -> None:
    _llama_index_or_skip()
    path, module = folder
    code, _, err = run_cli(capsys, "run-retriever", "--retriever", f"{module}:{attr}",
                           "--queries", "queries.tsv", "-o", "run.trec")  # fmt: skip
    assert code == 0, err
    _, fields = read_run(path / "run.trec")
    for q, text in QUERIES.items():
        top = expected_top(text, 3)
        # The document's id (ref_doc_id) for nodes cut from documents, else the node's id.
        assert [f[2] for f in fields if f[0] == q] == [d for d, _ in top]
        assert [float(f[4]) for f in fields if f[0] == q] == [float(s) for _, s in top]
    assert_evaluates_as_pytrec_eval(path / "run.trec")


# --- What is refused ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attr", "message"),
    [
        ("no_id", "query 'q1': result 2 has no id"),
        ("repeated", "query 'q1': doc 'd1' is returned twice (results 1 and 3)"),
        ("mixed", "query 'q1': result 1 has a score and result 2 has none"),
        ("not_finite", "query 'q1': result 1: the score nan is not finite"),
        ("boom", "failed on query 'q1': ValueError: the index is not built"),
        ("CORPUS", "is a dict: expected a function of a query text"),
        ("Factory", "'Factory' is a class: write"),
        ("nope", "has no attribute 'nope'"),
        ("scored.x", "has no attribute 'x'"),
    ],
)
def test_a_bad_result_is_one_line_naming_the_query_exit_2(folder, capsys, attr, message) -> None:
    path, module = folder
    (path / "run.trec").write_text("the old run\n")
    code, out, err = run_cli(capsys, "run-retriever", "--retriever", f"{module}:{attr}",
                             "--queries", "queries.tsv", "-o", "run.trec")  # fmt: skip
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("prfeval: ") and "Traceback" not in err
    assert message in err, err
    assert (path / "run.trec").read_text() == "the old run\n"  # replaced only when complete


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_colon", "must be named as module:attr"),
        ("no_such_module_xyz:f", "cannot import 'no_such_module_xyz'"),
        ("json:dumps(1)", "must be named as module:attr"),
    ],
)
def test_a_bad_retriever_name_is_one_line(folder, capsys, spec, message) -> None:
    code, _, err = run_cli(capsys, "run-retriever", "--retriever", spec, "--queries",
                           "queries.tsv")  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_a_bad_tag_and_a_bad_queries_file(folder, capsys) -> None:
    path, module = folder
    code, _, err = run_cli(capsys, "run-retriever", "--retriever", f"{module}:pairs",
                           "--queries", "queries.tsv", "--tag", "two words")  # fmt: skip
    assert code == 2 and "run tag must be a non-empty word" in err
    (path / "bad.tsv").write_text("q1\tfine\nq2 no tab\n")
    code, _, err = run_cli(capsys, "run-retriever", "--retriever", f"{module}:pairs",
                           "--queries", "bad.tsv")  # fmt: skip
    assert (code, err) == (2, "prfeval: bad.tsv:2: expected 'query id<TAB>text' (a "
                              "tab-separated line), found no tab\n")


def test_scores_that_reorder_are_said_and_scores_rank_keeps_the_order(folder, capsys) -> None:
    path, module = folder
    args = ["run-retriever", "--retriever", f"{module}:reversed_scores", "--queries",
            "queries.tsv", "-o", "run.trec"]  # fmt: skip
    code, _, err = run_cli(capsys, *args)
    assert code == 0 and "have scores that rank their results in another order" in err
    assert "'q1', 'q2', 'q3'" in err
    code, _, err = run_cli(capsys, *args, "--scores", "rank")
    assert code == 0 and "another order" not in err
    run, _ = read_run(path / "run.trec")
    evaluated = evaluate("qrels.trec", "run.trec", "P@1").per_query
    for q, text in QUERIES.items():
        if q in run:  # rank 1 is the scorer's best, so P@1 is whether that is relevant
            best = expected_top(text, 1)[0][0]
            assert evaluated[q]["P@1"] == float(QRELS[q].get(best, 0) >= 1)


def test_a_factory_in_a_package_of_the_current_folder(folder, capsys) -> None:
    """``examples.bm25:baseline()`` from a repository's root: a folder without __init__.py,
    a module in it, a factory giving the retriever."""
    path, module = folder
    package = f"examples_{module}"
    (path / package).mkdir()
    (path / package / "bm25.py").write_text(
        f"from {module} import pairs\n\n\ndef baseline():\n    return pairs\n"
    )
    try:
        code, out, err = run_cli(capsys, "run-retriever", "--retriever",
                                 f"{package}.bm25:baseline()",
                                 "--queries", "queries.tsv")  # fmt: skip
    finally:
        for name in [n for n in sys.modules if n.startswith(package)]:
            del sys.modules[name]
    assert code == 0, err
    assert out.splitlines()[0] == "q1 Q0 d1 1 2 baseline"  # the tag: the factory's name


def test_the_current_folder_is_importable_only_while_the_command_runs(folder, capsys) -> None:
    _, module = folder
    before = list(sys.path)
    code, _, err = run_cli(capsys, "run-retriever", "--retriever", f"{module}:pairs",
                           "--queries", "queries.tsv")  # fmt: skip
    assert code == 0, err
    assert sys.path == before


# --- The queries file ---------------------------------------------------------------------


def test_beir_jsonl_and_other_field_names(tmp_path) -> None:
    path = tmp_path / "queries.jsonl"
    path.write_text(
        json.dumps({"_id": "1", "text": "cat mat", "metadata": {}}) + "\n\n"
        + json.dumps({"id": 2, "query": "dog"}) + "\n"
        + json.dumps({"query_id": "x", "text": "é ü"}) + "\n"
    )  # fmt: skip
    assert [(q.query_id, q.text, q.line) for q in read_queries(path)] == [
        ("1", "cat mat", 1), ("2", "dog", 3), ("x", "é ü", 4)
    ]
    sniffed = tmp_path / "queries"  # no suffix: the first line says JSON
    sniffed.write_text(path.read_text())
    assert len(read_queries(sniffed)) == 3
    tsv = tmp_path / "queries.tsv"
    tsv.write_text("1\tcat\tand mat\r\n2\tdog\n")
    assert [(q.query_id, q.text) for q in read_queries(tsv)] == [("1", "cat\tand mat"),
                                                                 ("2", "dog")]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("q.jsonl", '{"_id": "1", "text": "a"}\n{"_id": "1", "text": "b"}\n',
         "q.jsonl:2: query '1' is listed twice (first on line 1)"),
        ("q.jsonl", '{"text": "a"}\n', "q.jsonl:1: no query id"),
        ("q.jsonl", '{"_id": "1", "text": "a"}\n{"_id": "2", "text": "b", "text": "c"}\n',
         "q.jsonl:2: duplicate key 'text' in a JSON object"),
        ("q.jsonl", '{"_id": 18446744073709551616, "text": "a"}\n{"_id": 1, "_id": 2}\n',
         "q.jsonl:2: duplicate key '_id'"),
        ("q.jsonl", '{"_id": "1"}\n', "q.jsonl:1: query '1' has no text"),
        ("q.jsonl", '{"_id": "1", "text": "a"}\n{"_id": "2", "text": "b",}\n', "q.jsonl:2:"),
        ("q.jsonl", '{"_id": "a b", "text": "a"}\n', "q.jsonl:1: query id 'a b' holds whitespace"),
        ("q.tsv", "\n\n", "q.tsv: no queries in the file"),
        ("q.tsv", "\tno id\n", "q.tsv:1: the query id is empty"),
    ],
)  # fmt: skip
def test_bad_queries_files_name_the_line(tmp_path, name, text, message) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputFormatError) as info:
        read_queries(path)
    assert str(info.value).replace(str(tmp_path) + "/", "").startswith(message), info.value


# --- The library's adapter ---------------------------------------------------------------


def test_progress_is_told_after_each_query() -> None:
    seen = []
    queries = read_queries(b"a\tcat\nb\tdog\nc\tbird\n")
    retriever = as_retriever(lambda text: [text])
    got = list(retrieve(retriever, queries, k=5, progress=lambda d, t: seen.append((d, t))))
    assert got == [("a", [("cat", 5.0)]), ("b", [("dog", 5.0)]), ("c", [("bird", 5.0)])]
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_ranking_of_each_kind_of_result() -> None:
    assert ranking_of(["a", ("b", 2)], "q", 10, scores="rank") == [("a", 10.0), ("b", 9.0)]
    assert ranking_of([{"id": "a", "score": 3}, {"doc_id": "b", "score": 1.5}], "q", 1) == [
        ("a", 3.0)
    ]
    assert ranking_of(iter(["a", "b", "c"]), "q", 2) == [("a", 2.0), ("b", 1.0)]  # a generator
    with pytest.raises(InputFormatError, match="returned a str, expected a list"):
        ranking_of("abc", "q", 10)
    with pytest.raises(InputFormatError, match="result 1 is a float"):
        ranking_of([1.5], "q", 10)
    with pytest.raises(InputFormatError, match="doc id 'a b' holds whitespace"):
        ranking_of(["a b"], "q", 10)
    with pytest.raises(UsageError, match="k must be an integer >= 1"):
        list(retrieve(as_retriever(lambda t: []), read_queries(b"a\tx\n"), k=0))
    with pytest.warns(PrfevalWarning, match=re.escape("1 of 1 queries ('a')")):
        list(retrieve(as_retriever(lambda t: [("a", 1.0), ("b", 1.0)]), read_queries(b"a\tx\n")))
