"""A column of class labels: checked, then coded as integers into its sorted distinct labels.

Every classification entry point reads its labels here, so that a missing label, a mix of
strings and numbers or an integer beyond 64 bits is refused with the same words everywhere.
A column is coded once: integers of a small range by a lookup table, long string arrays by
Arrow's hash table, Arrow dictionary arrays by their own dictionary, anything else by
``np.unique``. Codes of several columns (truth, prediction, the labels asked for) are joined by
:func:`union_codes`, which takes the union over the few distinct labels only.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrow import numpy_of
from prfeval._core.errors import UsageError

__all__ = [
    "Label",
    "LabelCodes",
    "is_indicator",
    "is_label_sets",
    "label_codes",
    "label_sequence",
    "label_sets",
    "native",
    "requested_labels",
    "scalar_labels",
    "union_codes",
]

Label = Hashable
IntArray = npt.NDArray[np.int64]
#: A coded column: (its name for messages, its sorted distinct labels, each item's code).
LabelCodes = tuple[str, np.ndarray, IntArray]

_SETLIKE = (set, frozenset, list, tuple, np.ndarray)


def native(value: Any) -> Label:
    """A numpy scalar as the Python value it holds (labels are reported as Python values)."""
    return value.item() if isinstance(value, np.generic) else value


def _arrow_types() -> tuple[type[Any], ...]:
    """pyarrow's array types, if pyarrow is loaded (an Arrow input means it is)."""
    pa = sys.modules.get("pyarrow")
    return () if pa is None else (pa.Array, pa.ChunkedArray)


def _arrow_numpy(values: Any, name: str) -> np.ndarray:
    """An Arrow array of labels as numpy: a dictionary array by a take from its (few)
    decoded values, numbers through their buffers, anything else through Python objects.
    Not ``to_numpy``, which imports pandas."""
    import pyarrow as pa

    if values.null_count:
        return np.array(values.to_pylist(), dtype=object)  # scalar_labels names the None
    if pa.types.is_dictionary(values.type):
        distinct, codes = _arrow_codes(values, name)
        return distinct[codes]
    if _numeric(values.type):
        return numpy_of(values)
    return np.array(values.to_pylist(), dtype=object)


def scalar_labels(values: Any, name: str) -> np.ndarray:
    """A 1-D array of labels that are all numbers or all strings; missing labels refused."""
    arrow = _arrow_types()
    if arrow and isinstance(values, arrow):
        values = _arrow_numpy(values, name)
    if hasattr(values, "__array__"):
        a = np.asarray(values)
    else:
        # Not np.asarray: it would turn [1, "a"] into ["1", "a"] without a word.
        items = list(values)
        a = np.fromiter(items, dtype=object, count=len(items))
    if a.ndim != 1:
        raise UsageError(f"{name} must be one-dimensional, got shape {a.shape}")
    kind = a.dtype.kind
    if kind in "biu":
        return a
    if kind == "f":
        if np.isnan(a).any():
            raise UsageError(f"{name} has a missing label (NaN) at position "
                             f"{int(np.flatnonzero(np.isnan(a))[0])}")
        return a
    if kind == "U":
        return a
    if kind == "S":
        return a.astype(str)
    if kind != "O":
        raise UsageError(f"{name} must hold strings or numbers, got dtype {a.dtype}")
    items = a.tolist()
    types = set(map(type, items))
    if all(issubclass(t, str) for t in types):
        return np.array(items, dtype=str) if items else np.array([], dtype=str)
    if type(None) in types:
        raise UsageError(f"{name} has a missing label (None) at position {items.index(None)}")
    if all(issubclass(t, int | float | np.integer | np.floating | np.bool_) for t in types):
        huge = [i for i, v in enumerate(items) if isinstance(v, int) and not -2**63 <= v < 2**63]
        if huge:  # numpy would keep them as Python objects, which no label code can hold
            raise UsageError(f"{name} has an integer label beyond 64 bits at position "
                             f"{huge[0]}: give such labels as strings")
        return scalar_labels(np.array(items), name)
    shown = sorted(t.__name__ for t in types)
    raise UsageError(f"{name} must hold strings or numbers, not a mix of {', '.join(shown)}")


def _family(a: np.ndarray) -> str:
    return "strings" if a.dtype.kind == "U" else "numbers"


def _check_same_family(parts: Sequence[tuple[str, np.ndarray]]) -> None:
    present = [(name, _family(a)) for name, a in parts if a.size]
    families = {f for _, f in present}
    if len(families) > 1:
        described = ", ".join(f"{name} holds {family}" for name, family in present)
        raise UsageError(f"labels must all be strings or all numbers: {described}")


def is_indicator(y: Any) -> bool:
    """Whether ``y`` is a 2-D 0/1 indicator matrix (one column per class)."""
    return getattr(y, "ndim", 1) == 2


def is_label_sets(y: Any) -> bool:
    """Whether ``y`` holds a set (list, tuple, array) of labels per item."""
    if isinstance(y, np.ndarray):
        return y.ndim == 1 and y.dtype == object and y.size > 0 and isinstance(y[0], _SETLIKE)
    if isinstance(y, str | bytes):
        return False
    try:
        first = next(iter(y))
    except StopIteration:
        return False
    except TypeError:
        raise UsageError(f"labels must be a sequence, got {type(y).__name__}") from None
    return isinstance(first, _SETLIKE)


def label_sets(y: Any, name: str) -> tuple[list[Any], IntArray]:
    """Flatten a sequence of label sets: (all labels in order, item index of each)."""
    items = list(y)
    if not all(isinstance(s, _SETLIKE) for s in items):
        i = next(i for i, s in enumerate(items) if not isinstance(s, _SETLIKE))
        raise UsageError(f"{name} mixes label sets and single labels (position {i}: "
                         f"{items[i]!r})")
    lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    flat = list(itertools.chain.from_iterable(items))
    return flat, np.repeat(np.arange(len(items), dtype=np.int64), lengths)


def label_sequence(y: Any, name: str) -> Any:
    """``y`` itself if it has a length (list, array, Series), else its items as a list; an
    Arrow list array as Python lists (label sets)."""
    arrow = _arrow_types()
    if arrow and isinstance(y, arrow):
        import pyarrow as pa

        if pa.types.is_list(y.type) or pa.types.is_large_list(y.type):
            return y.to_pylist()
        return y
    if isinstance(y, str | bytes) or not hasattr(y, "__iter__"):
        raise UsageError(f"{name} must be a sequence of labels, got {type(y).__name__}")
    return y if hasattr(y, "__len__") else list(y)


def requested_labels(labels: Iterable[Label] | None) -> np.ndarray | None:
    """The ``labels=`` argument checked (a non-empty list of distinct labels), or ``None``."""
    if labels is None:
        return None
    if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
        raise UsageError(f"labels must be a list of labels, or None for all; got {labels!r}")
    lab = scalar_labels(list(labels), "labels")
    if lab.size == 0:
        raise UsageError("labels is empty: give at least one label, or None for all")
    distinct, codes = _unique_codes(lab)
    if distinct.size < lab.size:
        repeated = distinct[np.bincount(codes) > 1][0]
        raise UsageError(f"labels repeats {native(repeated)!r}")
    return lab


#: Integer labels spanning at most this many values more than twice the item count are coded
#: by a lookup table (O(n)) rather than by sorting.
_TABLE_SLACK = 1024
#: String arrays longer than this are coded by Arrow's hash table rather than by a sort.
_HASH_STRINGS_FROM = 100_000


def _unique_codes(a: np.ndarray) -> tuple[np.ndarray, IntArray]:
    """``np.unique(a, return_inverse=True)``: the sorted distinct labels and each item's code,
    in O(n) where it can be: integers of a small range by a table, long string arrays by
    Arrow's dictionary encoding (the distinct values alone are sorted)."""
    if a.size == 0:
        return a[:0], np.zeros(0, dtype=np.intp)
    kind = a.dtype.kind
    if kind in "iub":
        ints = a.view(np.uint8) if kind == "b" else a
        lo, hi = int(ints.min()), int(ints.max())
        span = hi - lo + 1
        if span <= 2 * a.size + _TABLE_SLACK:
            offset = (ints - lo).astype(np.intp, copy=False) if lo else ints.astype(np.intp)
            present = np.zeros(span, dtype=bool)
            present[offset] = True
            table = np.cumsum(present, dtype=np.intp) - 1
            values = (np.flatnonzero(present) + lo).astype(a.dtype)
            return values, table[offset]
    if kind == "U" and a.size > _HASH_STRINGS_FROM:
        import pyarrow as pa

        encoded = pa.array(a).dictionary_encode()
        return _sorted_dictionary(
            np.array(encoded.dictionary.to_pylist(), dtype=a.dtype),
            encoded.indices.to_numpy(zero_copy_only=False).astype(np.intp),
        )
    values, inverse = np.unique(a, return_inverse=True)
    return values, inverse.reshape(-1).astype(np.intp)


def _sorted_dictionary(values: np.ndarray, codes: IntArray) -> tuple[np.ndarray, IntArray]:
    """Codes into a dictionary of values (unsorted, maybe with repeats or unused entries) as
    codes into its sorted distinct used values."""
    used = np.bincount(codes, minlength=len(values)) > 0
    distinct, inverse = np.unique(values[used], return_inverse=True)
    table = np.full(len(values), -1, dtype=np.intp)
    table[used] = inverse.reshape(-1)
    return distinct, table[codes]


def _numeric(arrow_type: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type))


def _arrow_codes(y: Any, name: str) -> tuple[np.ndarray, IntArray]:
    """An Arrow array's labels as codes without decoding it: its dictionary (encoded first if
    it is not dictionary-encoded), checked as labels, and one code per item."""
    import pyarrow as pa

    chunked = y if isinstance(y, pa.ChunkedArray) else pa.chunked_array([y])
    if chunked.null_count:
        first = int(np.flatnonzero(chunked.is_null().to_numpy(zero_copy_only=False))[0])
        raise UsageError(f"{name} has a missing label (null) at position {first}")
    if not pa.types.is_dictionary(chunked.type):
        chunked = chunked.dictionary_encode()
    chunked = chunked.unify_dictionaries()
    if chunked.num_chunks == 0 or len(chunked) == 0:
        return scalar_labels(np.array([], dtype=str), name), np.zeros(0, dtype=np.intp)
    dictionary = chunked.chunk(0).dictionary
    values = scalar_labels(_arrow_numpy(dictionary, name), name)
    codes = np.concatenate([numpy_of(c.indices) for c in chunked.chunks]).astype(
        np.intp, copy=False
    )
    return _sorted_dictionary(values, codes)


def label_codes(y: Any, name: str) -> LabelCodes:
    """(name, sorted distinct labels, each item's code) of a column of single labels."""
    arrow = _arrow_types()
    if arrow and isinstance(y, arrow):
        return (name, *_arrow_codes(y, name))
    return (name, *_unique_codes(scalar_labels(y, name)))


def union_codes(parts: Sequence[LabelCodes]) -> tuple[np.ndarray, list[IntArray]]:
    """The sorted union of the parts' labels, and each part's codes into it.

    Each part is (name, its distinct labels, its items' codes into them): the union is taken
    over the few distinct labels, and each item is recoded by one lookup.
    """
    _check_same_family([(name, values) for name, values, _ in parts])
    present = [values for _, values, _ in parts if values.size]
    if not present:
        raise UsageError("y_true and y_pred hold no labels at all")
    # Empty arrays are left out of the concatenation so that they cannot change its dtype.
    classes = np.unique(np.concatenate(present))
    codes = [np.searchsorted(classes, values).astype(np.intp)[c] if values.size else c
             for _, values, c in parts]
    return classes, codes

