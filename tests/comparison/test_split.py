"""Held-out queries: the split is disjoint, complete, deterministic and stable under growth."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest

from prfeval._comparison.split import split_queries, write_split
from prfeval._core.errors import InputFormatError, PrfevalWarning, UsageError
from prfeval._io.queries import read_query_ids

IDS = [str(i) for i in range(1, 401)]


def reference_heldout(qid: str, seed: int, holdout: float) -> bool:
    """The documented rule, written out: blake2b keyed by the seed, 8 bytes, / 2**64."""
    digest = hashlib.blake2b(qid.encode(), digest_size=8, key=str(seed).encode()).digest()
    return int.from_bytes(digest, "big") / 2**64 < holdout


def test_disjoint_complete_and_in_input_order() -> None:
    s = split_queries(IDS + IDS[:10], 0.25, seed=3)  # repeats taken once
    assert not set(s.dev) & set(s.heldout)
    assert sorted(s.dev + s.heldout, key=int) == IDS
    assert list(s.dev) == [q for q in IDS if q in set(s.dev)]
    assert list(s.heldout) == [q for q in IDS if q in set(s.heldout)]


def test_follows_the_documented_rule() -> None:
    s = split_queries(IDS, 0.3, seed=12)
    assert set(s.heldout) == {q for q in IDS if reference_heldout(q, 12, 0.3)}


def test_deterministic_and_seed_dependent() -> None:
    assert split_queries(IDS, 0.2, seed=5) == split_queries(list(IDS), 0.2, seed=5)
    assert split_queries(IDS, 0.2, seed=5).heldout != split_queries(IDS, 0.2, seed=6).heldout


def test_stable_when_queries_are_added_or_reordered() -> None:
    old = split_queries(IDS, 0.2, seed=1)
    grown = split_queries(["new-a", *reversed(IDS), *(f"x{i}" for i in range(300))], 0.2, seed=1)
    assert set(old.heldout) <= set(grown.heldout)
    assert set(old.dev) <= set(grown.dev)
    # Raising the share only moves queries from dev to held-out.
    assert set(old.heldout) <= set(split_queries(IDS, 0.35, seed=1).heldout)


def test_proportion_is_roughly_holdout() -> None:
    n, share = 5000, 0.2
    held = len(split_queries((f"q{i}" for i in range(n)), share, seed=0).heldout)
    sd = math.sqrt(n * share * (1 - share))
    assert abs(held - n * share) < 4 * sd


def test_extremes_and_bad_input() -> None:
    assert split_queries(IDS, 0.0).heldout == ()
    assert split_queries(IDS, 1.0).dev == ()
    for bad in (-0.1, 1.5, "0.2", True):
        with pytest.raises(UsageError):
            split_queries(IDS, bad)  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        split_queries(IDS, 0.2, seed=1.5)  # type: ignore[arg-type]


QRELS_TEXT = """# judgments
1 0 d1 1
1 0 d2 0
2\t0 d1 2

3 0 d9 1
10 0 d1 1
"""


def test_write_split_files(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_TEXT)
    out = tmp_path / "split"
    with pytest.warns(PrfevalWarning, match="skipped 1 comment line"):
        s = write_split(qrels, out, 0.5, seed=2)
    expected_held = [q for q in ("1", "2", "3", "10") if reference_heldout(q, 2, 0.5)]
    dev_ids = [q for q in ("1", "2", "3", "10") if q not in expected_held]
    assert dev_ids and expected_held  # seed 2 puts queries on both sides
    assert list(s.heldout) == expected_held
    assert read_query_ids(out / "heldout.queries") == expected_held
    assert read_query_ids(out / "dev.queries") == dev_ids
    judgment_lines = [ln.strip() for ln in QRELS_TEXT.splitlines() if ln.strip() and ln[0] != "#"]
    dev_lines = (out / "dev.qrels").read_text().splitlines()
    held_lines = (out / "heldout.qrels").read_text().splitlines()
    # Every judgment line goes to exactly one side, unchanged and in order.
    assert sorted(dev_lines + held_lines) == sorted(judgment_lines)
    assert held_lines == [ln for ln in judgment_lines if ln.split()[0] in expected_held]
    manifest = json.loads((out / "split.json").read_text())
    assert manifest["seed"] == 2 and manifest["heldout"] == expected_held
    assert (out / "heldout.queries").read_text().startswith("# prfeval split of")


def test_write_split_many_queries_and_csv(tmp_path: Path) -> None:
    lines = [f"q{i} 0 d{j} {j % 2}" for i in range(60) for j in range(3)]
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n")
    s = write_split(tmp_path / "qrels", tmp_path / "a", 0.3, seed=9)
    assert len(s.dev) + len(s.heldout) == 60 and s.dev and s.heldout
    held = set(read_query_ids(tmp_path / "a" / "heldout.queries"))
    assert held == set(s.heldout)
    csv = tmp_path / "qrels.csv"
    csv.write_text(
        "query_id,doc_id,relevance\n"
        + "\n".join(f"q{i},d{j},{j % 2}" for i in range(60) for j in range(3))
        + "\n"
    )
    t = write_split(csv, tmp_path / "b", 0.3, seed=9)
    assert t.heldout == s.heldout  # the same ids, whatever the file format
    assert (tmp_path / "b" / "dev.qrels").read_text().splitlines()[0] == (f"{s.dev[0]} 0 d0 0")


def test_write_split_bad_qrels(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.write_text("1 0 d1\n")
    with pytest.raises(InputFormatError, match="bad:1"):
        write_split(bad, tmp_path / "out")
    assert not (tmp_path / "out").exists()
