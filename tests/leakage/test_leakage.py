"""``prfeval leakage``: exact word 3-gram containment of eval items in a corpus.

Checked against an exhaustive computation written here (Python sets of 3-grams, every item
against every document), on hand-made cases counted by hand, and through the command line as
a process (exit statuses 0, 1 and 2). The README's example is run and its numbers recounted.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prfeval._leakage.containment as containment
import prfeval._leakage.records as records
from prfeval._core.errors import InputFormatError, UsageError
from prfeval._leakage.containment import find_leaks
from prfeval._leakage.words import tokenise, words
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
PY = [sys.executable, "-m", "prfeval"]


# --- The exhaustive computation, from the definition alone --------------------------------


def brute_words(text: str | None) -> list[str]:
    """The documented tokenisation: NFKC, lowercase, maximal runs of letters and digits."""
    if text is None:
        return []
    normal = unicodedata.normalize("NFKC", text).lower()
    out, word = [], ""
    for ch in normal:
        if ch.isalnum():
            word += ch
        elif word:
            out.append(word)
            word = ""
    return [*out, word] if word else out


def brute_grams(text: str | None) -> set[tuple[str, ...]]:
    w = brute_words(text)
    return {tuple(w[i : i + 3]) for i in range(len(w) - 2)}


def brute_leaks(
    docs: list[dict], items: list[dict], fields: list[str], corpus_fields: list[str], t: float
) -> dict[tuple[str, str], tuple[str, int, int, float]]:
    """(item, field) -> (best document, shared, |G(q)|, containment), for every leaking text:
    each item text against each document, the first document among equals."""
    doc_grams = [set().union(*(brute_grams(d[f]) for f in corpus_fields)) for d in docs]
    out = {}
    for item in items:
        for field in fields:
            q = brute_grams(item[field])
            if not q:
                continue
            best, shared = None, -1
            for d, g in zip(docs, doc_grams, strict=True):
                if len(q & g) > shared:
                    best, shared = d["_id"], len(q & g)
            if best is not None and shared / len(q) >= t:
                out[item["_id"], field] = (best, shared, len(q), shared / len(q))
    return out


def jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def ours(result) -> dict[tuple[str, str], tuple[str, int, int, float]]:
    return {(k.item_id, k.field): (k.doc_id, k.shared, k.grams, k.containment)
            for k in result.leaks}  # fmt: skip


# --- Against the exhaustive computation -----------------------------------------------------

#: Few words, so that 3-grams are shared often; a common one so that some 3-grams are in
#: most documents (prefix filtering must still count them exactly).
WORDS = ["the", "The", "of", "A", "b", "c", "dé", "de\u0301", "ﬁx", "fix", "x_y", "Σας"]
SEPARATORS = [" ", " ", " ", ", ", "? ", "\n", "-", " — "]


#: A word and the separator after it, drawn as one: the same as drawing the two apart (every
#: pair equally likely), at one draw a word instead of two; the strategies are built once, as
#: building one per draw cost most of the test's time.
WORD_AND_SEPARATOR = st.sampled_from([w + s for w in WORDS for s in SEPARATORS])
ONE_IN_16 = st.integers(0, 15)


@st.composite
def text(draw, max_words: int = 14) -> str | None:
    if draw(ONE_IN_16) == 0:
        return None
    n = draw(st.integers(0, max_words))
    return "".join(draw(WORD_AND_SEPARATOR) for _ in range(n))


@st.composite
def case(draw):
    n_docs, n_items = draw(st.integers(1, 25)), draw(st.integers(1, 12))
    docs = [{"_id": f"d{i}", "title": draw(text(4)), "text": draw(text(30))}
            for i in range(n_docs)]  # fmt: skip
    items = [{"_id": f"q{i}", "text": draw(text()), "answer": draw(text(6))}
             for i in range(n_items)]  # fmt: skip
    fields = draw(st.sampled_from([["text"], ["answer"], ["text", "answer"]]))
    corpus_fields = draw(st.sampled_from([["text"], ["title", "text"]]))
    threshold = draw(st.sampled_from([0.6, 1.0, 0.5, 1 / 3, 0.7, 0.25, 1e-9, 0.9]))
    return docs, items, fields, corpus_fields, threshold


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case(), st.sampled_from([1 << 22, 1, 5]), st.sampled_from([8192, 1, 4]))
def test_equals_the_exhaustive_computation(data, round_size, block_lines) -> None:
    """With the work cut in small rounds and the corpus in small blocks too: the pieces must
    join exactly."""
    docs, items, fields, corpus_fields, threshold = data
    sizes = containment.ROUND_SIZE, records.BLOCK_LINES
    containment.ROUND_SIZE, records.BLOCK_LINES = round_size, block_lines
    try:
        result = find_leaks(jsonl(docs), jsonl(items), fields=fields,
                            corpus_fields=corpus_fields, threshold=threshold)  # fmt: skip
    finally:
        containment.ROUND_SIZE, records.BLOCK_LINES = sizes
    expected = brute_leaks(docs, items, fields, corpus_fields, threshold)
    assert ours(result) == expected
    assert result.leaking_items == len({item for item, _ in expected})
    for summary in result.fields:
        counts = [len(brute_words(i[summary.field])) for i in items]
        assert summary.checked == sum(c >= 3 for c in counts)
        assert summary.short == sum(0 < c < 3 for c in counts)
        assert summary.empty == sum(c == 0 for c in counts)
    assert (result.documents, result.n_items) == (len(docs), len(items))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=30)), max_size=6))
def test_tokenise_gives_the_words_of_the_definition(texts) -> None:
    """Any Unicode (lone surrogates, combining marks, final sigma, ligatures, digits)."""
    got = tokenise(texts)
    assert got.words.to_pylist() == [w for t in texts for w in brute_words(t)]
    assert got.counts.tolist() == [len(brute_words(t)) for t in texts]
    assert all(words(t) == brute_words(t) for t in texts if t is not None)


def test_a_larger_corpus_with_very_common_grams() -> None:
    """300 documents that all hold "a a a" and most "a b a", with rare 3-grams among them."""
    import random

    rng = random.Random(3)
    vocab = ["a"] * 12 + ["b"] * 4 + [f"w{i}" for i in range(40)]
    docs = [{"_id": f"d{i}", "text": "a a a " + " ".join(rng.choice(vocab) for _ in range(60))}
            for i in range(300)]  # fmt: skip
    items = []
    for i in range(60):
        if i % 3 == 0:  # a span of a document, some words changed
            source = docs[rng.randrange(300)]["text"].split()
            at = rng.randrange(len(source) - 12)
            span = source[at : at + 12]
            for j in rng.sample(range(12), rng.randrange(4)):
                span[j] = rng.choice(vocab)
            items.append({"_id": f"q{i}", "text": " ".join(span)})
        else:
            items.append({"_id": f"q{i}", "text": " ".join(rng.choice(vocab) for _ in range(10))})
    for threshold in (0.3, 0.6, 0.9):
        result = find_leaks(jsonl(docs), jsonl(items), threshold=threshold)
        expected = brute_leaks(docs, items, ["text"], ["text"], threshold)
        assert ours(result) == expected
        assert len(expected) >= 5  # the case has leaks to find


# --- Counted by hand ------------------------------------------------------------------------

SEVEN = "alpha beta gamma delta epsilon zeta eta"  # 7 words, 5 distinct 3-grams


def run(docs: list[dict], items: list[dict], **options):
    return find_leaks(jsonl(docs), jsonl(items), **options)


def test_a_verbatim_copy_has_containment_1() -> None:
    docs = [{"_id": "d1", "text": "Intro words. " + SEVEN.upper() + ", and more after."}]
    (leak,) = run(docs, [{"_id": "q1", "text": SEVEN + "?"}]).leaks
    assert (leak.doc_id, leak.shared, leak.grams, leak.containment) == ("d1", 5, 5, 1.0)
    assert (leak.item_line, leak.doc_line) == (1, 1)


def test_a_partial_copy_exactly_at_the_threshold_leaks_and_below_it_does_not() -> None:
    # "alpha beta gamma delta epsilon": 3 of the 5 3-grams, 3/5 = 0.6 exactly.
    at = [{"_id": "d1", "text": "alpha beta gamma delta epsilon"}]
    (leak,) = run(at, [{"_id": "q", "text": SEVEN}]).leaks
    assert (leak.shared, leak.grams, leak.containment) == (3, 5, 0.6)
    # One word fewer: 2 of 5, 0.4.
    below = [{"_id": "d1", "text": "alpha beta gamma delta"}]
    assert run(below, [{"_id": "q", "text": SEVEN}]).leaks == ()
    assert len(run(below, [{"_id": "q", "text": SEVEN}], threshold=0.4).leaks) == 1
    assert run(at, [{"_id": "q", "text": SEVEN}], threshold=0.61).leaks == ()


def test_the_threshold_is_met_as_the_division_gives_it() -> None:
    """0.28 * 25 is 7.000000000000001 in floating point, yet 7 / 25 is 0.28: 7 of 25 3-grams
    leak at 0.28 (a least count taken as ceil(threshold * n) would ask for 8)."""
    assert 0.28 * 25 > 7 and 7 / 25 >= 0.28
    question = " ".join(f"w{i}" for i in range(27))  # 25 3-grams
    docs = [{"_id": "d", "text": " ".join(f"w{i}" for i in range(9))}]  # w0..w8: 7 of them
    (leak,) = run(docs, [{"_id": "q", "text": question}], threshold=0.28).leaks
    assert (leak.shared, leak.grams, leak.containment) == (7, 25, 0.28)
    assert run(docs, [{"_id": "q", "text": question}], threshold=0.2801).leaks == ()


def test_short_and_empty_texts_are_counted_not_checked() -> None:
    docs = [{"_id": "d", "text": "Paris is the Eiffel tower city"}]
    items = [
        {"_id": "1", "text": "Paris?"},  # 1 word: short
        {"_id": "2", "text": "Eiffel tower"},  # 2 words: short, though the document has them
        {"_id": "3", "text": ""},  # empty
        {"_id": "4", "text": None},  # null: empty
        {"_id": "5", "text": "?! ... --"},  # no word: empty
        {"_id": "6", "text": "the Eiffel tower"},  # 3 words, 1 3-gram, in the document
    ]
    result = run(docs, items)
    (summary,) = result.fields
    assert (summary.checked, summary.short, summary.empty) == (1, 2, 3)
    assert [(k.item_id, k.containment) for k in result.leaks] == [("6", 1.0)]


def test_a_second_field_is_checked_on_its_own_and_an_item_counts_once() -> None:
    docs = [{"_id": "d1", "text": "The answer is forty two, said the computer."},
            {"_id": "d2", "text": "What is the answer to everything in the end"}]  # fmt: skip
    items = [
        {"_id": "q1", "text": "What is the answer to everything?", "answer": "forty two said"},
        {"_id": "q2", "text": "Who wrote the guide?", "answer": "the answer is forty"},
        {"_id": "q3", "text": "Nothing here matches at all", "answer": "no"},
    ]
    result = run(docs, items, fields=["text", "answer"])
    assert ours(result) == {
        ("q1", "text"): ("d2", 4, 4, 1.0),
        ("q1", "answer"): ("d1", 1, 1, 1.0),
        ("q2", "answer"): ("d1", 2, 2, 1.0),
    }
    assert result.leaking_items == 2  # q1 twice, q2 once
    text, answer = result.fields
    assert (text.checked, text.leaking, answer.checked, answer.short) == (3, 1, 2, 1)
    assert [k.field for k in result.leaks[:2]] == ["text", "answer"]  # an item's fields in order


def test_repeated_grams_count_once() -> None:
    # "a b c a b c": 4 positions, 3 distinct 3-grams (abc, bca, cab); the document has abc.
    (leak,) = run([{"_id": "d", "text": "x a b c y"}], [{"_id": "q", "text": "a b c a b c"}],
                  threshold=0.3).leaks  # fmt: skip
    assert (leak.shared, leak.grams) == (1, 3)


def test_no_gram_spans_two_corpus_fields() -> None:
    docs = [{"_id": "d", "title": "New York", "text": "City hall is open"}]
    items = [{"_id": "q", "text": "new york city"}]
    assert run(docs, items, corpus_fields=["title", "text"]).leaks == ()
    docs = [{"_id": "d", "title": "In New York City", "text": "hall"}]
    (leak,) = run(docs, items, corpus_fields=["title", "text"]).leaks
    assert leak.containment == 1.0
    assert run(docs, items).leaks == ()  # by default only the text is read


def test_case_width_and_ligatures_are_normalised() -> None:
    docs = [{"_id": "d", "text": "the quick fish swims"}]
    (leak,) = run(docs, [{"_id": "q", "text": "ＴＨＥ QUICK ﬁsh"}]).leaks
    assert leak.containment == 1.0


def test_the_first_document_wins_a_tie() -> None:
    docs = [{"_id": "z", "text": "one two three"}, {"_id": "a", "text": "one two three four"}]
    (leak,) = run(docs, [{"_id": "q", "text": "one two three four five"}], threshold=0.3).leaks
    assert (leak.doc_id, leak.shared) == ("a", 2)  # "a" shares 2, "z" 1
    (leak,) = run(docs, [{"_id": "q", "text": "one two three"}]).leaks
    assert leak.doc_id == "z"  # both share the one 3-gram: the first in the file


def test_beir_ids_gzip_and_blank_lines(tmp_path) -> None:
    corpus = tmp_path / "corpus.jsonl.gz"
    corpus.write_bytes(gzip.compress(
        b'{"id": 7, "text": "one two three four"}\n\n{"_id": "x", "id": 1, "text": "zz"}\n'
    ))  # fmt: skip
    items = tmp_path / "queries.jsonl"
    items.write_text('\ufeff{"_id": "q1", "text": "One two three"}\n')
    (leak,) = find_leaks(corpus, items).leaks
    assert (leak.doc_id, leak.item_id, leak.doc_line) == ("7", "q1", 1)
    assert find_leaks(corpus, items).documents == 2  # "_id" before "id": x


def test_progress_reports_the_corpus_lines() -> None:
    docs = [{"_id": f"d{i}", "text": "a b c"} for i in range(10)]
    calls: list[tuple[int, int]] = []
    find_leaks(jsonl(docs), jsonl([{"_id": "q", "text": "a b c"}]),
               progress=lambda done, total: calls.append((done, total)))  # fmt: skip
    assert calls and calls[-1] == (10, 10)


@pytest.mark.parametrize(
    ("corpus", "items", "message"),
    [
        (b'{"_id": "d", "text": "x"}\n', b'{"_id": "q"}\n',
         "<bytes>:1: no field 'text' (the line has '_id')"),
        (b'{"_id": "d", "text": "x"}\n{"_id": "e"}\n', b'{"_id": "q", "text": "y"}\n',
         "<bytes>:2: no field 'text' (the line has '_id')"),
        (b'{"text": "x"}\n', b'{"_id": "q", "text": "y"}\n',
         "<bytes>:1: no '_id' or 'id' field: each line needs an id (BEIR's files have '_id')"),
        (b'{"_id": "d", "text": 3}\n', b'{"_id": "q", "text": "y"}\n',
         "<bytes>:1: field 'text' is a number; expected a string (or null)"),
        (b'{"_id": "d", "text": "x"}\n{"_id": "d", "text": "y"}\n', b'{"_id": "q", "text": "y"}\n',
         "<bytes>:2: id 'd' again (first on line 1): ids must be distinct"),
        (b'{"_id": "d", "text": "x"}\n', b'[1, 2]\n',
         "<bytes>:1: expected a JSON object per line, got a list"),
        (b'{"_id": "d", "text": "x"\n', b'{"_id": "q", "text": "y"}\n',
         "<bytes>:1: not valid JSON: Expecting ',' delimiter at column 25"),
        (b'{"_id": "d", "text": "\xff"}\n', b'{"_id": "q", "text": "y"}\n',
         "<bytes>:1: not UTF-8 text: byte 0xff at column 23"),
        (b'{"_id": true, "text": "x"}\n', b'{"_id": "q", "text": "y"}\n',
         "<bytes>:1: the id ('_id') is true/false; expected a string or an integer"),
        (b'{"_id": "d", "text": "x"}\n', b'{"id": "q\\ud800", "text": "y"}\n',
         "<bytes>:1: the id ('id') holds a lone surrogate (JSON's \\ud800 to \\udfff without "
         "its pair), which is no character"),
    ],
)  # fmt: skip
def test_bad_input_names_the_file_line_and_field(corpus, items, message) -> None:
    with pytest.raises(InputFormatError) as info:
        find_leaks(corpus, items)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "options",
    [{"threshold": 0}, {"threshold": 1.5}, {"threshold": float("nan")}, {"threshold": "0.6"},
     {"fields": []}, {"fields": ["text", "text"]}, {"corpus_fields": [3]}],
)  # fmt: skip
def test_bad_options_are_usage_errors(options) -> None:
    with pytest.raises(UsageError):
        find_leaks(b"", b"", **options)


# --- The command line, as a process ---------------------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "corpus.jsonl").write_bytes(jsonl([
        {"_id": "d1", "text": "Tourists ask: is the Eiffel tower in Paris, the capital of France?"},
        {"_id": "d2", "text": "Rome is the capital of Italy."},
    ]))  # fmt: skip
    (tmp_path / "items.jsonl").write_bytes(jsonl([
        {"_id": "q1", "text": "Why is the Eiffel tower in Paris?", "answer": "yes"},
        {"_id": "q2", "text": "What is the capital of Spain?", "answer": "Madrid is its capital"},
    ]))  # fmt: skip
    return tmp_path


@pytest.fixture
def leakage_cli(capsys, monkeypatch):
    """``prfeval leakage ARGS`` run in this process from the folder ``cwd``: its exit code and
    outputs (the tests of the process itself, closed stdout and stdin, start one)."""

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        monkeypatch.chdir(cwd)
        code, out, err = run_cli(capsys, "leakage", *args)
        return subprocess.CompletedProcess(["prfeval", "leakage", *args], code, out, err)

    return run


BASE = ("--corpus", "corpus.jsonl", "--items", "items.jsonl")


def test_exit_1_when_more_items_leak_than_allowed(files, leakage_cli) -> None:
    # q1: "why is the", "is the eiffel", "the eiffel tower", "eiffel tower in", "tower in
    # paris": d1 has the last 4 of 5 (0.8); q2: "what is the", "is the capital", "the capital
    # of", "capital of spain": d2 has 2 of 4 (0.5), d1 1.
    done = leakage_cli(*BASE, "--format", "json", cwd=files)
    assert done.returncode == 1
    assert done.stderr == "prfeval: 1 item leaks into the corpus, more than --max-leaks 0\n"
    report = json.loads(done.stdout)
    assert [(k["item_id"], k["doc_id"], k["shared"], k["grams"]) for k in report["leaks"]] == [
        ("q1", "d1", 4, 5)
    ]
    assert (report["leaking_items"], report["texts_checked"], report["documents"]) == (1, 2, 2)


def test_exit_0_within_max_leaks_or_with_no_leak(files, leakage_cli) -> None:
    assert leakage_cli(*BASE, "--max-leaks", "1", cwd=files).returncode == 0
    done = leakage_cli(*BASE, "--threshold", "0.81", cwd=files)
    assert (done.returncode, done.stderr) == (0, "")
    assert "  none" in done.stdout and "Leaking: 0 items (0 texts)." in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--field", "question"),
         "prfeval: items.jsonl:1: no field 'question' (the line has '_id', 'text', 'answer')"),
        (("--corpus-field", "title"),
         "prfeval: corpus.jsonl:1: no field 'title' (the line has '_id', 'text')"),
        (("--threshold", "0"),
         "prfeval: --threshold must be a finite number > 0 and <= 1, got 0.0"),
        (("--max-leaks", "-1"), "prfeval: leakage: Invalid value for '--max-leaks': -1 is not in "
         "the range x>=0. Run 'prfeval leakage --help' for help."),
        (("-o", "items.jsonl"), "prfeval: items.jsonl: is also an input (items.jsonl); writing "
         "there would destroy it: give another output file"),
    ],
)  # fmt: skip
def test_exit_2_on_bad_input_one_line(files, args, message, leakage_cli) -> None:
    done = leakage_cli(*BASE, *args, cwd=files)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")


def test_exit_2_for_a_missing_file_and_a_closed_stdout(files, leakage_cli) -> None:
    done = leakage_cli("--corpus", "nope.jsonl", "--items", "items.jsonl", cwd=files)
    assert (done.returncode, done.stderr) == (2, "prfeval: nope.jsonl: no such file\n")
    closed = subprocess.run([*PY, "leakage", *BASE], cwd=files, stderr=subprocess.PIPE,
                            text=True, timeout=120, preexec_fn=lambda: os.close(1))  # fmt: skip
    assert closed.returncode == 2
    assert closed.stderr == "prfeval: standard output is closed: nowhere to write the result\n"


def test_output_file_and_formats(files, leakage_cli) -> None:
    shown = leakage_cli(*BASE, "--field", "text", "--field", "answer", "--format", "markdown",
                    "--max-leaks", "5", cwd=files)  # fmt: skip
    assert shown.returncode == 0
    assert "| q1 | text | d1 | 0.800 | 4 of 5 |" in shown.stdout.splitlines()
    assert "- answer: 1 checked, 0 leaking, 1 short, 0 empty" in shown.stdout.splitlines()
    written = leakage_cli(*BASE, "--field", "text", "--field", "answer", "--format", "markdown",
                      "--max-leaks", "5", "-o", "leaks.md", cwd=files)  # fmt: skip
    assert (written.returncode, written.stdout) == (0, "")
    assert (files / "leaks.md").read_text() == shown.stdout
    assert not [p for p in files.iterdir() if p.name.startswith(".leaks.md")]  # no temporary


def test_ids_are_shown_as_they_are(tmp_path, leakage_cli) -> None:
    """An id that looks like rich's markup or Markdown is printed as its characters."""
    (tmp_path / "c.jsonl").write_bytes(jsonl([{"_id": "[b]d_1[/b]", "text": "one two three"}]))
    (tmp_path / "i.jsonl").write_bytes(jsonl([{"_id": "q|*x*", "text": "one two three"}]))
    args = ("--corpus", "c.jsonl", "--items", "i.jsonl", "--max-leaks", "1")
    text = leakage_cli(*args, cwd=tmp_path).stdout
    assert re.search(r"^  q\|\*x\*\s+text\s+\[b\]d_1\[/b\]\s+1\.000", text, re.M), text
    markdown = leakage_cli(*args, "--format", "markdown", cwd=tmp_path).stdout
    assert "| q\\|\\*x\\* | text | \\[b\\]d\\_1\\[/b\\] | 1.000 | 1 of 1 |" in markdown


def test_the_corpus_can_come_from_stdin(files) -> None:
    done = subprocess.run(
        [*PY, "leakage", "--corpus", "-", "--items", "items.jsonl", "--format", "json"],
        cwd=files, input=(files / "corpus.jsonl").read_text(), capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and json.loads(done.stdout)["corpus"] == "<stdin>"


# --- The README's example -------------------------------------------------------------------

README = (ROOT / "README.md").read_text(encoding="utf-8")
TITLE = "Eval questions kept aside stay aside"
SECTION = re.search(rf"^## {TITLE}\n(.*?)(?=^## |\Z)", README, re.S | re.M)


def test_the_readme_example_prints_its_sample_and_its_numbers_are_right(
    capsys, monkeypatch
) -> None:
    """The section's command, run from the repository's folder as the README says (in this
    process, on an 80-column terminal), prints the sample below it byte for byte, and every
    row of the sample is the exhaustive count."""
    assert SECTION, "README has no section on prfeval leakage"
    blocks = re.findall(r"^```(\w*)\n(.*?)^```[ \t]*$", SECTION.group(1), re.S | re.M)
    (command,) = [b for lang, b in blocks if lang == "console"]
    (sample,) = [b for lang, b in blocks if lang == ""]
    argv = command.strip().removeprefix("$ ").split()
    assert argv[:2] == ["prfeval", "leakage"]
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(capsys, *argv[1:])
    assert out == sample
    leaks = int(re.search(r"Leaking: (\d+) items", sample).group(1))
    assert code == (1 if leaks else 0)
    # The sample's rows, recounted from the files by the exhaustive computation.
    corpus = [json.loads(x) for x in (ROOT / argv[argv.index("--corpus") + 1]).read_text()
              .splitlines()]  # fmt: skip
    items = [json.loads(x) for x in (ROOT / argv[argv.index("--items") + 1]).read_text()
             .splitlines()]  # fmt: skip
    fields = [argv[i + 1] for i, a in enumerate(argv) if a == "--field"]
    expected = brute_leaks(corpus, items, fields, ["text"], 0.6)
    rows = re.findall(r"^  (\S+)\s+(\S+)\s+(\S+)\s+(\d\.\d{3})\s+(\d+) of (\d+)$", sample, re.M)
    assert {(i, f): (d, int(s), int(n), round(float(c), 3)) for i, f, d, c, s, n in rows} == {
        key: (d, s, n, round(c, 3)) for key, (d, s, n, c) in expected.items()
    }
    assert len({i for i, _ in expected}) == leaks
    # Every option the section names is one of the command's.
    code, help_text, _ = run_cli(capsys, "leakage", "--help")
    assert code == 0
    prose = re.sub(r"^```.*?^```[ \t]*$", "", SECTION.group(1), flags=re.S | re.M)
    spans = [s for s in re.findall(r"`([^`]+)`", prose) if "bench/" not in s]
    named = {o for s in [command, *spans] for o in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", s)}
    assert {"--field", "--threshold", "--max-leaks", "--corpus-field", "--format"} <= named
    for option in named:
        assert f"  {option} " in help_text or f", {option} " in help_text, option


# -- Nothing to check is no pass; repeated text stays linear ----------------------------------


@pytest.mark.parametrize(("corpus", "items", "message"), [
    (b"", b'{"_id": "q", "text": "a b c"}\n', "corpus.jsonl: no documents in the corpus"),
    (b'{"_id": "d", "text": "a b c"}\n', b"\n", "items.jsonl: no eval items in the file"),
])  # fmt: skip
def test_an_empty_corpus_or_items_file_is_refused(tmp_path, corpus, items, message) -> None:
    (tmp_path / "corpus.jsonl").write_bytes(corpus)
    (tmp_path / "items.jsonl").write_bytes(items)
    with pytest.raises(InputFormatError, match=message):
        find_leaks(str(tmp_path / "corpus.jsonl"), str(tmp_path / "items.jsonl"))
    done = subprocess.run([*PY, "leakage", "--corpus", "corpus.jsonl", "--items", "items.jsonl"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"prfeval: {message}: " + (
        "nothing to check against\n" if "corpus" in message else "nothing to check for leakage\n")


def test_templated_items_and_documents_give_the_exhaustive_answer() -> None:
    """Items that differ in one word, documents that all hold the template (and some the
    varying word too), identical documents: the answer the exhaustive count gives."""
    import random

    rng = random.Random(7)
    template = "what is the capital city of the country called {} in the year"
    countries = [f"land{i}" for i in range(30)]
    items = [{"_id": f"q{i}", "text": template.format(c)} for i, c in enumerate(countries)]
    docs = []
    for i in range(200):
        filler = " ".join(rng.choice(WORDS) for _ in range(12))
        named = rng.choice(countries) if i % 7 == 0 else "nowhere"
        docs.append({"_id": f"d{i}", "text": f"{filler} {template.format(named)} {filler}"})
    docs += [{"_id": f"same{i}", "text": template.format("land3")} for i in range(50)]
    for threshold in (0.6, 0.9, 1.0):
        result = find_leaks(jsonl(docs), jsonl(items), threshold=threshold)
        assert ours(result) == brute_leaks(docs, items, ["text"], ["text"], threshold)


def test_documents_holding_the_same_item_grams_are_counted_once() -> None:
    import numpy as np

    # Documents 0, 2 and 3 hold item 3-grams {1, 4}; document 1 holds {1, 5}; 4 holds {2}.
    pairs = np.array([0 * 9 + 1, 0 * 9 + 4, 1 * 9 + 1, 1 * 9 + 5, 2 * 9 + 1, 2 * 9 + 4,
                      3 * 9 + 1, 3 * 9 + 4, 4 * 9 + 2])  # fmt: skip
    kept = containment._first_of_each_kind(pairs, 9)
    assert sorted(set((kept // 9).tolist())) == [0, 1, 4]
    # Sums that collide for every set (all weights 0): the exact check keeps each set.
    zero = np.zeros((2, 9), dtype=np.uint64)
    kept = containment._first_of_each_kind(pairs, 9, weights=zero)
    assert sorted(set((kept // 9).tolist())) == [0, 1, 4]
    assert kept.tolist() == sorted(kept.tolist())
