"""Moving data between Arrow and numpy without pyarrow's pandas hook.

pyarrow's ``Array.to_numpy`` and ``pa.array(...)`` first check whether an object is a pandas
one, and that check imports pandas when it is installed: 0.15 s on every command line run.
These helpers go through the arrays' buffers instead, which is also zero-copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = [
    "MAX_BLOCK_BYTES",
    "arrow_ints",
    "arrow_strings",
    "bools_of",
    "ints_or",
    "is_long_line",
    "numpy_of",
    "read_growing",
]

T = TypeVar("T")

#: The largest block Arrow's text readers take (their offsets are 32-bit).
MAX_BLOCK_BYTES = (1 << 31) - 1


def is_long_line(exc: BaseException) -> bool:
    """Whether an Arrow text reader failed because one line is longer than its block
    ("straddling object straddles two block boundaries")."""
    return "straddl" in str(exc)


def read_growing(read: Callable[[int], T], block: int, size: int) -> T:
    """``read(block_size)``, again with a larger block while one line does not fit in one.

    Arrow's CSV and JSON readers cut their input into blocks of whole lines, so a line
    longer than the block (a 10 MB doc id) fails. ``size`` is what the input holds (for a
    gzipped file, its compressed size: the block grows again if that is not enough).
    """
    import pyarrow as pa

    while True:
        try:
            return read(block)
        except pa.ArrowInvalid as exc:
            if not is_long_line(exc) or block >= MAX_BLOCK_BYTES:
                raise
            block = min(max(block * 8, size + 1), MAX_BLOCK_BYTES)


def numpy_of(values: Any) -> npt.NDArray[Any]:
    """A numpy view (or, for several chunks, a copy) of a numeric Arrow array without nulls."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        parts = [numpy_of(c) for c in values.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=_dtype(values.type))
    if values.null_count:
        raise ValueError("numpy_of: the array has missing values")
    dtype = _dtype(values.type)
    data = values.buffers()[1]
    if data is None:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(
        data, dtype=dtype, count=len(values), offset=values.offset * dtype.itemsize
    )


_DTYPES = {
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "float": np.float32,
    "double": np.float64,
    "halffloat": np.float16,
}


def _dtype(arrow_type: Any) -> np.dtype[Any]:
    try:
        return np.dtype(_DTYPES[str(arrow_type)])
    except KeyError:
        raise TypeError(f"numpy_of: not a numeric Arrow type: {arrow_type}") from None


def ints_or(values: Any, missing: int) -> npt.NDArray[np.int64]:
    """An int64 numpy copy of an Arrow integer array, with ``missing`` where it is null.

    Reads the validity bitmap directly: ``pc.fill_null`` takes several times longer.
    """
    if not values.null_count:
        return numpy_of(values).astype(np.int64)
    dtype = _dtype(values.type)
    n, offset = len(values), values.offset
    validity, data = values.buffers()[:2]
    out = np.frombuffer(data, dtype=dtype, count=n, offset=offset * dtype.itemsize).astype(
        np.int64
    )
    bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
    out[~bits[offset : offset + n].astype(bool)] = missing
    return out


def bools_of(values: Any) -> npt.NDArray[np.bool_]:
    """A numpy bool array from an Arrow boolean array without nulls."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return numpy_of(pc.cast(values, pa.int8())).astype(bool)


def arrow_ints(values: npt.ArrayLike, *, bits: int = 64) -> Any:
    """An Arrow int64 (or int32) array over the same memory as the numpy array.

    Built from the buffer, not with ``pa.array``, which imports pandas (0.15 s) to check
    whether ``values`` is a pandas object.
    """
    import pyarrow as pa

    dtype, arrow_type = (np.int32, pa.int32()) if bits == 32 else (np.int64, pa.int64())
    array = np.ascontiguousarray(values, dtype=dtype)
    return pa.Array.from_buffers(arrow_type, array.size, [None, pa.py_buffer(array)])


def arrow_strings(values: Sequence[str]) -> Any:
    """An Arrow string array from Python strings (query ids, names, the doc ids of dicts).

    Built from their bytes, not with ``pa.array``, which imports pandas to check whether
    ``values`` is a pandas object. Past 2 GiB of text, whose offsets do not fit the 32 bits
    of ``pa.string()``, ``pa.array`` makes it (a chunked array).
    """
    import pyarrow as pa

    encoded = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    if offsets[-1] > MAX_BLOCK_BYTES:
        return pa.array(values, pa.string())
    offsets = offsets.astype(np.int32)
    return pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )
