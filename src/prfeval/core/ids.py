"""The order in which query ids are reported: numeric when every id is a number, else bytes.

trec_eval reports queries in the order it read them; prfeval reports them in one order
whatever the input's: by number when every id is a number of at most 18 digits (``9`` before
``10``), otherwise by the UTF-8 bytes of the ids. Every result, whichever path produced it,
lists its queries in this order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["is_number", "ordered_ids", "query_output_order"]

IntArray = npt.NDArray[np.int64]


def is_number(query_id: str) -> bool:
    """1 to 18 ASCII digits: an id that sorts as a number (and fits an int64)."""
    return len(query_id) <= 18 and query_id.isascii() and query_id.isdigit()


def _key_order(names: list[str]) -> IntArray:
    if all(is_number(i) for i in names):
        order = sorted(range(len(names)), key=lambda i: (int(names[i]), names[i].encode()))
    else:
        order = sorted(range(len(names)), key=lambda i: names[i].encode())
    return np.array(order, dtype=np.int64)


def query_output_order(ids: Any) -> IntArray:
    """Positions of ``ids`` (distinct; an Arrow string array or a list) in output order."""
    if isinstance(ids, list):
        return _key_order(ids)
    if len(ids) <= 1000:  # a streamed block's queries: quicker in Python than in Arrow
        return _key_order(ids.to_pylist())
    import pyarrow.compute as pc

    from prfeval.core.arrow import arrow_ints, numpy_of

    by_bytes = numpy_of(pc.sort_indices(ids)).astype(np.int64)
    names = ids.take(arrow_ints(by_bytes)).to_pylist()
    if names and all(is_number(i) for i in names):
        numbers = np.array([int(i) for i in names], dtype=np.int64)
        return by_bytes[np.lexsort((np.arange(numbers.size), numbers))]
    return by_bytes


def ordered_ids(ids: Iterable[str]) -> tuple[str, ...]:
    """Distinct ``ids`` in output order."""
    unique = list(dict.fromkeys(ids))
    return tuple(unique[i] for i in _key_order(unique))
