"""The compiled pass's boundary: its ABI version checked on load, its reasons in its own
words, a refused segment after a caught panic, and the run array's join equal to numpy's."""

from __future__ import annotations

import ctypes
import warnings

import numpy as np
import pytest

from prfeval._core.errors import PrfevalWarning
from prfeval._core.ranking import UNJUDGED
from prfeval._io import native_lib
from prfeval._io.native_segments import COUNTS, SegmentView
from prfeval._io.plan import compiled_unavailable

pytestmark = pytest.mark.skipif(
    compiled_unavailable() is not None,
    reason=f"the compiled pass is not available: {compiled_unavailable()}",
)


def test_a_library_of_another_abi_is_refused_in_one_line(monkeypatch):
    monkeypatch.setattr(native_lib, "ABI_VERSION", native_lib.ABI_VERSION + 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib, why = native_lib._load()
    assert lib is None
    assert f"needs ABI version {native_lib.ABI_VERSION}" in why
    assert "make native" in why
    assert [w.category for w in caught] == [PrfevalWarning]
    assert "\n" not in str(caught[0].message)


def test_reasons_come_from_the_library():
    assert native_lib.reason(0) is None
    assert native_lib.reason(3) == "the run is not grouped by query"
    assert native_lib.reason(7).startswith("the compiled pass failed")


def test_segment_view_fields_are_named_as_the_struct():
    names = [name for name, _ in SegmentView._fields_]
    assert names[: len(COUNTS)] == list(COUNTS)
    # Nine counts of 8 bytes, then fifteen (pointer, length) pairs.
    assert ctypes.sizeof(SegmentView) == 9 * 8 + 15 * 16


def test_a_segment_without_a_pass_is_refused_not_a_crash():
    from prfeval._io.native_segments import Segment

    segment = Segment(native_lib.library(), None)
    assert segment.refused is not None and "failed" in segment.refused
    assert segment.rows == 0 and segment.scores.size == 0


@pytest.mark.parametrize("code_type", [np.int32, np.int64])
def test_the_compiled_join_equals_numpy(monkeypatch, code_type):
    from prfeval._io.array_join import join_rows

    rng = np.random.default_rng(3)
    ids = rng.integers(-1, 30, size=(50, 12))
    row_slot = np.where(rng.random(50) < 0.2, -1, np.arange(50))
    per_row = [np.sort(rng.choice(30, int(rng.integers(0, 6)), replace=False)) for _ in range(50)]
    offsets = np.concatenate(([0], np.cumsum([r.size for r in per_row]))).astype(np.int64)
    docs = np.concatenate(per_row).astype(np.int64)
    grades = rng.integers(-1, 4, size=docs.size)
    compiled = join_rows(ids, None, row_slot, offsets, docs, grades, code_type)
    plain = join_rows(ids, None, row_slot, offsets, docs, grades, code_type, compiled=False)
    # By hand: the kept cells, their grades, and the doc ints met twice in their row.
    kept = [(r, int(d)) for r in range(50) if row_slot[r] >= 0 for d in ids[r] if d >= 0]
    judged = {(r, int(d)): int(g) for r in range(50)
              for d, g in zip(docs[offsets[r]:offsets[r + 1]], grades[offsets[r]:offsets[r + 1]],
                              strict=True)}
    twice = {(r, d) for r, d in kept if sum(1 for x in ids[r] if x == d) > 1}
    for cells in (compiled, plain):
        assert cells.slot.dtype == cells.doc.dtype == code_type
        assert cells.slot.tolist() == [int(row_slot[r]) for r, _ in kept]
        assert cells.doc.tolist() == [d for _, d in kept]
        assert cells.grade.tolist() == [judged.get(c, UNJUDGED) for c in kept]
        assert (cells.grade != UNJUDGED).tolist() == [c in judged for c in kept]
        assert cells.repeated.tolist() == [c in twice for c in kept]
        per_row = [sum(1 for r, _ in kept if r == row) for row in range(50)]
        assert cells.row_counts.tolist() == per_row
    for field in ("slot", "doc", "grade", "repeated", "row_counts"):
        np.testing.assert_array_equal(getattr(compiled, field), getattr(plain, field), field)


def test_a_doc_int_beyond_int32_leaves_a_narrow_join_to_numpy():
    from prfeval._io.native_join import native_join

    ids = np.array([[1, 2**31], [3, -1]])
    offsets = np.zeros(3, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    assert native_join(ids, np.array([0, 1]), offsets, none, none, np.int32) is None
    slot, doc, grade, repeated, counts = native_join(ids, np.array([0, 1]), offsets, none, none,
                                                     np.int64)
    assert doc.tolist() == [1, 2**31, 3] and slot.tolist() == [0, 0, 1]
    assert counts.tolist() == [2, 1]
    assert (grade == UNJUDGED).all() and not repeated.any()
