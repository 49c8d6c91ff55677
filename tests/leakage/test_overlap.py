"""``prfeval overlap``: documents of one corpus copied, exactly or lightly edited, into another.

Exact and near duplicates are planted among unrelated random documents, and every reported
similarity is checked against Jaccard's formula computed here in plain Python
(``re.findall`` words, sets of 3-grams), never with prfeval's tokeniser; a brute force over
every pair of a smaller collection checks that nothing at or above the threshold is missed
and nothing below it reported.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from prfeval import find_overlap
from prfeval._leakage.minhash import bands_for, candidates, signatures
from support.cli import run_cli

VOCAB = [f"w{i}" for i in range(3000)]


def _words(text: str | None) -> list[str]:
    """By hand: NFKC, lowercase, runs of letters and digits."""
    return re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text or "").lower())


def _jaccard(x: str, y: str) -> float:
    def grams(t: str) -> set[tuple[str, ...]]:
        w = _words(t)
        return {tuple(w[i : i + 3]) for i in range(len(w) - 2)}

    a, b = grams(x), grams(y)
    return len(a & b) / len(a | b)


def _doc(rng: random.Random, n: int = 60) -> str:
    return " ".join(rng.choice(VOCAB) for _ in range(n))


def _write(path: Path, docs: dict[str, str | None], id_field: str = "id",
           text_field: str = "text") -> str:
    path.write_text("".join(json.dumps({id_field: k, text_field: v}) + "\n"
                            for k, v in docs.items()))  # fmt: skip
    return str(path)


def _edited(rng: random.Random, text: str, changes: int) -> str:
    words = text.split()
    for i in rng.sample(range(len(words)), changes):
        words[i] = "EDIT" + str(i)
    return " ".join(words)


@pytest.fixture
def planted(tmp_path: Path) -> dict:
    rng = random.Random(7)
    a = {f"a{i}": _doc(rng) for i in range(300)}
    b = {f"b{i}": _doc(rng) for i in range(300)}
    b["b10"] = a["a3"].upper().replace(" ", " , ")  # the same words: exact
    b["b20"] = _edited(rng, a["a5"], 1)  # one word of 60 changed: near
    b["b30"] = _edited(rng, a["a9"], 12)  # twelve changed: far below 0.8
    return {"a": a, "b": b, "pa": _write(tmp_path / "a.jsonl", a),
            "pb": _write(tmp_path / "b.jsonl", b)}  # fmt: skip


def test_planted_pairs_are_found_and_no_false_pair(planted) -> None:
    result = find_overlap(planted["pa"], planted["pb"])
    found = {(p.kind, p.a_ids, p.b_ids) for p in result.pairs}
    assert found == {("exact", ("a3",), ("b10",)), ("near", ("a5",), ("b20",))}
    near = result.near[0]
    # By hand: one word changed in 60 removes 3 of 58 3-grams and adds 3: 55 / 61.
    assert (near.shared, near.union) == (55, 61)
    assert near.jaccard == pytest.approx(55 / 61, abs=0)
    assert near.jaccard == pytest.approx(_jaccard(planted["a"]["a5"], planted["b"]["b20"]))
    assert _jaccard(planted["a"]["a9"], planted["b"]["b30"]) < 0.8  # rightly not reported


def test_every_pair_at_the_threshold_is_found_by_brute_force(tmp_path) -> None:
    rng = random.Random(11)
    a = {f"a{i}": _doc(rng, 40) for i in range(60)}
    b = {}
    for i in range(60):  # edits from 0 to 5 words: similarities on both sides of 0.7
        b[f"b{i}"] = _edited(rng, a[f"a{i}"], i % 6) if i % 2 else _doc(rng, 40)
    threshold = 0.7
    expected = {(x, y) for x, y in itertools.product(a, b)
                if _words(a[x]) != _words(b[y]) and _jaccard(a[x], b[y]) >= threshold}
    result = find_overlap(_write(tmp_path / "a.jsonl", a), _write(tmp_path / "b.jsonl", b),
                          threshold=threshold)  # fmt: skip
    got = {(p.a_ids[0], p.b_ids[0]) for p in result.near}
    assert got == expected and expected
    for p in result.near:
        assert p.jaccard == pytest.approx(_jaccard(a[p.a_ids[0]], b[p.b_ids[0]]))


def test_identical_copies_are_one_row(tmp_path) -> None:
    text = "the quick brown fox jumps over the lazy dog again"
    a = {"a1": text, "a2": "other words entirely here now", "a3": text.upper(), "a4": text}
    b = {"b1": text + "!", "b2": "nothing alike at all in this one", "b3": text}
    result = find_overlap(_write(tmp_path / "a.jsonl", a), _write(tmp_path / "b.jsonl", b))
    assert [(p.kind, p.a_ids, p.b_ids) for p in result.pairs] == [
        ("exact", ("a1", "a3", "a4"), ("b1", "b3"))]


def test_empty_and_short_texts(tmp_path) -> None:
    a = {"a1": "", "a2": None, "a3": "hello world", "a4": "...!"}
    b = {"b1": "Hello, WORLD", "b2": "hello there"}
    result = find_overlap(_write(tmp_path / "a.jsonl", a), _write(tmp_path / "b.jsonl", b))
    assert (result.empty_a, result.empty_b) == (3, 0)
    assert result.short == 3
    assert [(p.kind, p.a_ids, p.b_ids) for p in result.pairs] == [("exact", ("a3",), ("b1",))]


def test_templated_text_stays_linear_in_candidates(tmp_path) -> None:
    """2,000 documents a side, each a template with two words changed: every pair is a
    near-duplicate (about 4 million), which banding alone would all make candidates. The
    crowded buckets pair in a star: candidates stay linear, and every document of A is
    still reported with a near-duplicate (or an exact copy)."""
    rng = random.Random(3)
    template = _doc(rng, 80)
    a = {f"a{i}": _edited(rng, template, 2) for i in range(2000)}
    b = {f"b{i}": _edited(rng, template, 2) for i in range(2000)}
    result = find_overlap(_write(tmp_path / "a.jsonl", a), _write(tmp_path / "b.jsonl", b))
    assert result.starred > 0
    # At most each document with two partners a band: linear, against 4 million pairs.
    assert len(result.pairs) <= 2 * bands_for(0.8)[0] * 4000 < 1_000_000
    reported_a = {x for p in result.pairs for x in p.a_ids}
    assert len(reported_a) == 2000
    for p in result.pairs[:50]:
        assert p.jaccard == pytest.approx(_jaccard(a[p.a_ids[0]], b[p.b_ids[0]]))


def test_candidate_count_is_bounded_for_one_crowded_bucket() -> None:
    # 500 documents with one identical signature, 250 a side: a star, not 62,500 pairs.
    n = 500
    keys = np.arange(10, dtype=np.uint64)
    owner = np.repeat(np.arange(n), 10)
    sig = signatures(owner, np.tile(keys, n), n)
    has_a = np.arange(n) < 250
    found = candidates(sig, has_a, ~has_a, 0.8)
    assert found.first.size <= 2 * n and found.starred == bands_for(0.8)[0]


def test_the_command_line(planted, capsys, tmp_path) -> None:
    code, out, _ = run_cli(capsys, "overlap", planted["pa"], planted["pb"])
    assert code == 1
    assert "exact" in out and "a3" in out and "b10" in out and "0.902" in out
    code, out, _ = run_cli(capsys, "overlap", planted["pa"], planted["pb"], "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["exact_pairs"] == 1 and report["near_pairs"] == 1
    assert report["pairs"][1]["jaccard"] == 55 / 61
    code, out, _ = run_cli(capsys, "overlap", planted["pa"], planted["pb"], "--format",
                           "markdown")  # fmt: skip
    assert code == 1 and out.startswith("**Documents of A found in B**")
    code, out, _ = run_cli(capsys, "overlap", planted["pa"], planted["pa"], "--format", "json")
    assert code == 1  # a corpus against itself: every document, exactly
    assert json.loads(out)["exact_pairs"] == 300


def test_no_pair_exits_0_and_columns_map(tmp_path, capsys) -> None:
    rng = random.Random(5)
    a = _write(tmp_path / "a.jsonl", {f"a{i}": _doc(rng) for i in range(50)}, "doc", "body")
    b = _write(tmp_path / "b.jsonl", {f"b{i}": _doc(rng) for i in range(50)}, "doc", "body")
    code, out, err = run_cli(capsys, "overlap", a, b, "--id-field", "doc", "--text-field",
                             "body")  # fmt: skip
    assert code == 0, err
    assert "none" in out


@pytest.mark.parametrize("line, says", [
    ('{"id": "x"}\n', "no field 'text'"),
    ('{"id": "x", "text": 3}\n', "field 'text' is a number"),
    ('{"text": "a b c"}\n', "no '_id' or 'id' field"),
    ("not json\n", "not valid JSON"),
])  # fmt: skip
def test_bad_input_exits_2_naming_the_line(tmp_path, capsys, line, says) -> None:
    good = _write(tmp_path / "a.jsonl", {"a1": "one two three"})
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"id": "b0", "text": "fine text here"}\n' + line)
    code, _, err = run_cli(capsys, "overlap", good, str(bad))
    assert code == 2
    assert f"{bad}:2:" in err and says in err and "Traceback" not in err


def test_bad_threshold(tmp_path, capsys) -> None:
    good = _write(tmp_path / "a.jsonl", {"a1": "one two three"})
    code, _, err = run_cli(capsys, "overlap", good, good, "--threshold", "0")
    assert code == 2 and "--threshold" in err
