"""``prfeval gate`` against a saved baseline measured with other judgments (a stale baseline).

A baseline records a digest of what its judgments say; the gate refuses one whose judgments
differ in content (exit 2, both digests, the first query that differs), whatever the file
names, and passes the same judgments under another name or format without a word about them.
The digests are checked against SHA-256 computed here by hand over the canonical triples.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

import prfeval
from prfeval._io.judgments_digest import judgments_digest
from prfeval._io.load import load_qrels
from support.cli import run_cli

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq2 0 d4 1\n"
#: The same queries and documents; q2's d4 is no longer relevant.
CHANGED = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq2 0 d4 0\n"
RUN = "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d4 1 3.0 r\nq2 Q0 d3 2 2.0 r\n"


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _saved(capsys: pytest.CaptureFixture[str], tmp_path: Path, qrels: str) -> str:
    run = _write(tmp_path, "base.run", RUN)
    out = str(tmp_path / "base.json")
    code, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", "P@1", "-m", "AP",
                           "--format", "json", "-q", "-o", out)  # fmt: skip
    assert code == 0, err
    return out


def test_digest_is_sha256_of_the_sorted_triples() -> None:
    # By hand: the triples sorted by (query, document, grade), each "q NUL d NUL g NUL".
    rows = sorted([("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d3", 2), ("q2", "d4", 1)])
    canonical = "".join(f"{q}\0{d}\0{g}\0" for q, d, g in rows).encode()
    digest = judgments_digest(load_qrels(QRELS.encode()))
    assert digest.judgments == hashlib.sha256(canonical).hexdigest()
    assert digest.queries == hashlib.sha256(b"q1\0q2\0").hexdigest()
    assert set(digest.per_query) == {"q1", "q2"}


def test_same_content_in_another_order_and_format_has_the_same_digest(tmp_path: Path) -> None:
    shuffled = _write(tmp_path, "b.qrels", "".join(reversed(QRELS.splitlines(True))))
    jsonl = _write(tmp_path, "a.jsonl", "".join(
        json.dumps({"query_id": q, "doc_id": d, "relevance": int(g)}) + "\n"
        for q, _, d, g in (line.split() for line in QRELS.splitlines())
    ))  # fmt: skip
    a = judgments_digest(load_qrels(QRELS.encode()))
    assert judgments_digest(load_qrels(shuffled)) == a
    assert judgments_digest(load_qrels(jsonl)) == a
    changed = judgments_digest(load_qrels(CHANGED.encode()))
    assert changed.judgments != a.judgments
    assert changed.per_query["q1"] == a.per_query["q1"]
    assert changed.per_query["q2"] != a.per_query["q2"]


def test_stale_baseline_is_not_comparable(capsys, tmp_path: Path) -> None:
    qrels = _write(tmp_path, "gold.qrels", QRELS)
    base = _saved(capsys, tmp_path, qrels)
    # Same file name, other content: the name is no evidence either way.
    other_dir = tmp_path / "new"
    other_dir.mkdir()
    changed = _write(other_dir, "gold.qrels", CHANGED)
    cand = _write(tmp_path, "cand.run", RUN)  # the very same run
    code, out, err = run_cli(capsys, "gate", changed, base, cand, "-m", "P@1 AP")
    assert code == 2, (out, err)
    assert "not comparable" in err and "other judgments" in err
    saved = json.loads(Path(base).read_text())["digests"]["judgments"]
    here = judgments_digest(load_qrels(CHANGED.encode())).judgments
    shown = re.findall(r"\b[0-9a-f]{7,}\b", err)
    assert any(saved.startswith(h) for h in shown) and any(here.startswith(h) for h in shown)
    assert "'q2'" in err  # the first query whose judgments differ
    assert "Traceback" not in err


def test_same_content_under_another_name_passes_without_a_note(capsys, tmp_path) -> None:
    base = _saved(capsys, tmp_path, _write(tmp_path, "gold.qrels", QRELS))
    renamed = _write(tmp_path, "gold-v2.qrels", "".join(reversed(QRELS.splitlines(True))))
    cand = _write(tmp_path, "cand.run", RUN)
    code, out, err = run_cli(capsys, "gate", renamed, base, cand, "-m", "P@1 AP")
    assert code == 0, err
    assert "judgments" not in (out + err).lower()


def test_baseline_saved_before_digests_is_gated_with_one_line(capsys, tmp_path) -> None:
    base = _saved(capsys, tmp_path, _write(tmp_path, "gold.qrels", QRELS))
    document = json.loads(Path(base).read_text())
    del document["digests"]
    Path(base).write_text(json.dumps(document))
    cand = _write(tmp_path, "cand.run", RUN)
    code, out, err = run_cli(capsys, "gate", _write(tmp_path, "g.qrels", CHANGED), base, cand,
                             "-m", "P@1")  # fmt: skip
    assert code in (0, 1), err  # gated: no digest to refuse it by
    said = [line for line in (out + err).splitlines() if "could not be checked" in line]
    assert len(said) == 1


def test_python_gate_refuses_a_saved_evaluation_with_other_judgments(tmp_path) -> None:
    run = _write(tmp_path, "r.run", RUN)
    base = prfeval.evaluate(QRELS.encode(), run, "P@1")
    path = tmp_path / "base.json"
    path.write_text(json.dumps(base.to_dict(per_query=True)))
    with pytest.raises(prfeval.UsageError, match="other judgments"):
        prfeval.gate(CHANGED.encode(), str(path), run, "P@1")
    assert prfeval.gate(QRELS.encode(), str(path), run, "P@1").passed


def test_a_tampered_digest_is_refused_naming_the_field(capsys, tmp_path) -> None:
    base = _saved(capsys, tmp_path, _write(tmp_path, "gold.qrels", QRELS))
    document = json.loads(Path(base).read_text())
    document["digests"]["judgments"] = 7
    Path(base).write_text(json.dumps(document))
    code, _, err = run_cli(capsys, "gate", _write(tmp_path, "g.qrels", QRELS), base,
                           _write(tmp_path, "c.run", RUN), "-m", "P@1")  # fmt: skip
    assert code == 2
    assert "base.json" in err and "digests.judgments" in err


def test_the_dict_digest_equals_the_table_digest() -> None:
    """Judgments read as dicts (a small TREC file, a Python dict) and as a table have one
    digest: ids in other scripts (sorted by code point, as UTF-8 by byte), negative grades."""
    from prfeval._io.judgments_digest import dict_digest

    text = "q2 0 é 1\nq10 0 z -1\nq10 0 a 2\nq2 0 e 0\nq2 0 日本 3\nα 0 b 1\n"
    table = judgments_digest(load_qrels(text.encode()))
    by_hand: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        q, _, d, g = line.split()
        by_hand.setdefault(q, {})[d] = int(g)
    assert dict_digest(by_hand) == table
    rows = sorted((q, d, g) for q, docs in by_hand.items() for d, g in docs.items())
    canonical = "".join(f"{q}\0{d}\0{g}\0" for q, d, g in rows).encode()
    assert table.judgments == hashlib.sha256(canonical).hexdigest()
