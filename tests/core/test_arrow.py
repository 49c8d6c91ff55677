"""The small Arrow-to-numpy helpers read buffers directly: check them on sliced arrays."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from prfeval._core.arrow import ints_or


@pytest.mark.parametrize("arrow_type", [pa.int32(), pa.int64()])
def test_ints_or_fills_nulls_at_any_offset_and_length(arrow_type):
    values = pa.array([1, None, 3, None, 5, 6, 7, 8, None, 10, 11, None], arrow_type)
    for offset in range(len(values)):
        for length in range(len(values) - offset + 1):
            part = values.slice(offset, length)
            expected = [-1 if v is None else v for v in part.to_pylist()]
            got = ints_or(part, -1)
            assert got.dtype == np.int64
            assert got.tolist() == expected
