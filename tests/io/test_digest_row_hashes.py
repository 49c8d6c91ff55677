"""The judgments digest's per-row hash, computed in chunks with inverse powers, against
its definition written out one byte at a time in plain Python: a saved baseline's
per-query digests must not change with the way they are computed."""

from __future__ import annotations

import numpy as np
import pytest

from prfeval._io import judgments_digest as jd

MASK = (1 << 64) - 1
P = 0x100000001B3
M2 = 0x94D049BB133111EB


def _mix(x: int) -> int:
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def _by_definition(rows: list[bytes]) -> list[int]:
    """sum over a row's bytes i of (byte + 1) * P**(i + 1), xor its length * M2, mixed."""
    out = []
    for row in rows:
        total = sum((b + 1) * pow(P, i + 1, 1 << 64) for i, b in enumerate(row)) & MASK
        out.append(_mix(total ^ ((len(row) * M2) & MASK)))
    return out


@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1 << 20])
def test_row_hashes_match_the_definition(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(jd, "_HASH_CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for _ in range(40):
        n = int(rng.integers(1, 30))
        rows = [bytes(rng.integers(0, 256, int(rng.integers(1, 25))).astype(np.uint8))
                for _ in range(n)]
        data = np.frombuffer(b"".join(rows), dtype=np.uint8)
        offsets = np.concatenate(([0], np.cumsum([len(r) for r in rows]))).astype(np.int64)
        got = jd._row_hashes(data, offsets)
        assert [int(h) for h in got] == _by_definition(rows)


def test_no_rows() -> None:
    assert jd._row_hashes(np.zeros(0, dtype=np.uint8), np.zeros(1, dtype=np.int64)).size == 0
