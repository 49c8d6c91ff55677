"""The order in which query ids are reported: numeric when every id is a number, else bytes.

trec_eval reports queries in the order it read them; prfeval reports them in one order
whatever the input's: by number when every id is a number of at most 18 digits (``9`` before
``10``), otherwise by the UTF-8 bytes of the ids. Every result, whichever path produced it,
lists its queries in this order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "close_ids",
    "counted",
    "id_list",
    "is_number",
    "ordered_ids",
    "output_order_where",
    "query_output_order",
    "utf8_writable",
]

IntArray = npt.NDArray[np.int64]


def is_number(query_id: str) -> bool:
    """1 to 18 ASCII digits: an id that sorts as a number (and fits an int64)."""
    return len(query_id) <= 18 and query_id.isascii() and query_id.isdigit()


def utf8_writable(text: str) -> bool:
    """Whether UTF-8 can write ``text``: a lone surrogate (what a bad decode with
    ``surrogateescape`` leaves) it cannot, so no file or Arrow array can hold such an id."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _all_numbers(names: list[str]) -> bool:
    """Whether every id :func:`is_number`, asked of them all at once (in C, not per id)."""
    joined = "".join(names)
    lengths = list(map(len, names))
    return joined.isascii() and joined.isdigit() and min(lengths) >= 1 and max(lengths) <= 18


def _key_order(names: list[str]) -> IntArray:
    if not names:
        return np.zeros(0, dtype=np.int64)
    if _all_numbers(names):
        if not any(len(n) > 1 and n[0] == "0" for n in names):
            # Distinct numbers written without leading zeros: their values alone order them.
            return np.argsort(np.array(names).astype(np.int64), kind="stable")
        order = sorted(range(len(names)), key=lambda i: (int(names[i]), names[i].encode()))
    else:
        # Python compares str by code point, which is UTF-8's byte order: no key per id.
        order = sorted(range(len(names)), key=names.__getitem__)
    return np.array(order, dtype=np.int64)


def query_output_order(ids: Any) -> IntArray:
    """Positions of ``ids`` (distinct; an Arrow string array or a list) in output order."""
    if isinstance(ids, list):
        return _key_order(ids)
    if len(ids) <= 1000:  # a streamed block's queries: quicker in Python than in Arrow
        return _key_order(ids.to_pylist())
    import pyarrow.compute as pc

    from prfeval._core.arrow import arrow_ints, numpy_of

    by_bytes = numpy_of(pc.sort_indices(ids)).astype(np.int64)
    names = ids.take(arrow_ints(by_bytes)).to_pylist()
    if names and _all_numbers(names):
        numbers = np.array(names).astype(np.int64)
        return by_bytes[np.lexsort((np.arange(numbers.size), numbers))]
    return by_bytes


def output_order_where(ids: Any, mask: npt.NDArray[np.bool_]) -> IntArray:
    """Positions of ``ids`` (distinct; an Arrow string array or a list) where ``mask`` holds,
    in the output order of those ids alone: whether every id is a number is asked of them,
    not of the others (a run-only ``x`` beside the judged ``2``, ``9``, ``10`` leaves them in
    numeric order, as when the two are read in different blocks)."""
    at = np.flatnonzero(mask).astype(np.int64)
    if isinstance(ids, list):
        chosen: Any = [ids[i] for i in at.tolist()]
    else:
        from prfeval._core.arrow import arrow_ints

        chosen = ids.take(arrow_ints(at))
    return at[query_output_order(chosen)]


def ordered_ids(ids: Iterable[str]) -> tuple[str, ...]:
    """Distinct ``ids`` in output order."""
    unique = list(dict.fromkeys(ids))
    return tuple(unique[i] for i in _key_order(unique))


def id_list(ids: Sequence[str], limit: int = 8) -> str:
    """``'a', 'b', 'c'`` or, past ``limit`` ids, ``'a', 'b', ... and 4 more``.

    Each id is quoted, so that an id such as ``2`` can never be read as a count beside it.

    >>> id_list(["5", "17", "23"])
    "'5', '17', '23'"
    >>> id_list(["1", "2", "3"], limit=2)
    "'1', '2', ... and 1 more"
    """
    shown = ", ".join(repr(str(q)) for q in ids[:limit])
    return shown + (f", ... and {len(ids) - limit} more" if len(ids) > limit else "")


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``1 query``, ``3 queries``: a count with its noun, the count first.

    >>> counted(1, "judged query", "judged queries"), counted(3, "run")
    ('1 judged query', '3 runs')
    """
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def close_ids(unknown: Sequence[str], known: Sequence[str], n: int = 3) -> str:
    """``; did you mean '99'?``: the known ids closest to the first few unknown ones (empty
    when none is close), for messages about ids that match nothing.

    >>> close_ids(["9999"], ["1", "99", "100"])
    "; did you mean '99'?"
    """
    import difflib  # only to suggest an id

    close: list[str] = []
    for query in unknown[:n]:
        for match in difflib.get_close_matches(query, known, n=n, cutoff=0.6):
            if match not in close:
                close.append(match)
    return f"; did you mean {' or '.join(map(repr, close[:n]))}?" if close else ""
