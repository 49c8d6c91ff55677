"""Held-out questions: split the judged queries into a development set and a held-out set.

Tune on the development queries; evaluate on the held-out ones once, at the end: a search
tuned on the questions it is reported on looks better than it is. The split is **stable**: a
query's side depends only on its id and the seed, never on the other queries, so adding
queries to the collection later never moves an old query from one side to the other, and the
same seed always gives the same split on any machine.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prfeval._core.errors import InputFormatError, UsageError
from prfeval._io.atomic import check_not_an_input, write_atomic
from prfeval._io.source import Source, display_name, open_input

__all__ = ["Split", "heldout_score", "split_queries", "write_split"]

_SCALE = float(1 << 64)


def heldout_score(query_id: str, seed: int = 0) -> float:
    """The query's position in [0, 1): ``blake2b(seed, query_id)`` read as a fraction.

    A query is held out when its score is below the held-out share. The hash is keyed by the
    seed and fed the UTF-8 query id; its first 8 bytes, read as a big-endian integer and
    divided by 2**64, are uniform on [0, 1) for any set of distinct ids.
    """
    key = str(int(seed)).encode("ascii")
    digest = hashlib.blake2b(str(query_id).encode("utf-8"), digest_size=8, key=key).digest()
    return int.from_bytes(digest, "big") / _SCALE


@dataclass(frozen=True)
class Split:
    """A development / held-out split of query ids.

    Attributes
    ----------
    dev, heldout
        The query ids on each side, in the order they were first given.
    holdout
        The share asked to be held out (each query is held out with this probability).
    seed
        The seed of the hash.
    """

    dev: tuple[str, ...]
    heldout: tuple[str, ...]
    holdout: float
    seed: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, with the method spelled out for whoever reproduces it."""
        return {
            "method": "held out when blake2b(query id, key=str(seed), 8 bytes) / 2**64 < holdout",
            "holdout": self.holdout,
            "seed": self.seed,
            "n_dev": len(self.dev),
            "n_heldout": len(self.heldout),
            "dev": list(self.dev),
            "heldout": list(self.heldout),
        }


def split_queries(query_ids: Iterable[str], holdout: float = 0.2, *, seed: int = 0) -> Split:
    """Split query ids into development and held-out sets, stably.

    Parameters
    ----------
    query_ids
        The ids; repeats are taken once (in the order first seen).
    holdout
        The probability of each query to be held out, in [0, 1].
    seed
        Any integer: a different seed gives an independent split.

    Returns
    -------
    Split
        ``dev`` and ``heldout``, disjoint, together exactly the distinct ids given.

    Notes
    -----
    Query ``q`` is held out when ``heldout_score(q, seed) < holdout``
    (:func:`heldout_score`). This depends on ``q`` and the seed only, so:

    * adding or removing other queries never moves ``q`` (a plain shuffle would move almost
      all of them);
    * raising ``holdout`` only moves queries from dev to held-out, never back;
    * the held-out share is ``holdout`` on average, not exactly: with ``n`` queries the
      count is binomial, with standard deviation ``sqrt(n * holdout * (1 - holdout))``
      (about 3 of 50 at 0.2). That is the price of stability.

    Examples
    --------
    >>> s = split_queries([str(i) for i in range(1, 1001)], 0.2, seed=7)
    >>> len(s.dev) + len(s.heldout), 150 < len(s.heldout) < 250
    (1000, True)
    >>> bigger = split_queries([str(i) for i in range(1, 2001)], 0.2, seed=7)
    >>> set(s.heldout) <= set(bigger.heldout)
    True
    """
    if isinstance(holdout, bool) or not isinstance(holdout, int | float) or not 0 <= holdout <= 1:
        raise UsageError(f"the held-out share must be a number in [0, 1], got {holdout!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise UsageError(f"the seed must be an integer, got {seed!r}")
    seed = int(seed)
    if len(str(seed)) > 64:  # the hash takes a key of at most 64 bytes
        raise UsageError(f"the seed must be an integer of at most 64 digits, got {seed}")
    unique = list(dict.fromkeys(str(q) for q in query_ids))
    held = [heldout_score(q, seed) < holdout for q in unique]
    return Split(
        dev=tuple(q for q, h in zip(unique, held, strict=True) if not h),
        heldout=tuple(q for q, h in zip(unique, held, strict=True) if h),
        holdout=float(holdout),
        seed=seed,
    )


def _qrels_lines(qrels: Source) -> tuple[list[str], list[str]]:
    """The query id of every judgment, and the judgment as a TREC qrels line.

    The input is opened once (a FIFO or stdin too) and first read by
    :func:`prfeval._io.load_qrels`, so a malformed file fails with its file and line. A TREC
    file's lines are copied unchanged (comments and blank lines left out); a tabular file
    (CSV, TSV, JSON Lines, Parquet) is written as ``qid 0 docid grade``.
    """
    from prfeval._io import load_qrels
    from prfeval._io.load import input_format

    with open_input(qrels) as handle:
        table = load_qrels(handle)
        if len(table) == 0:
            raise InputFormatError("no judgments", path=handle.name)
        if input_format(handle) != "trec":
            queries = [str(q) for q in table.query_ids.to_pylist()]
            docs = [str(d) for d in table.doc_ids.to_pylist()]
            grades = table.grades.tolist()
            lines = [f"{q} 0 {d} {g}" for q, d, g in zip(queries, docs, grades, strict=True)]
            return queries, lines
        text = handle.read().decode("utf-8")
    lines = [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return [line.split()[0] for line in lines], lines


def write_split(
    qrels: Source,
    out_dir: str | os.PathLike[str],
    holdout: float = 0.2,
    *,
    seed: int = 0,
) -> Split:
    """Split the queries of a TREC qrels file and write both sides to ``out_dir``.

    Parameters
    ----------
    qrels
        A TREC qrels file (``.gz`` is read transparently), or a CSV/TSV/JSONL/Parquet file of
        judgments.
    out_dir
        The folder to write to; created if missing.
    holdout, seed
        As in :func:`split_queries`.

    Returns
    -------
    Split
        The split written.

    Notes
    -----
    Five files, each written atomically:

    ``dev.queries``, ``heldout.queries``
        One query id per line, in the qrels' order, after a ``#`` comment naming the seed and
        the share (``prfeval evaluate --queries FILE`` reads them).
    ``dev.qrels``, ``heldout.qrels``
        The qrels' own judgment lines for those queries, unchanged and in order.
    ``split.json``
        The method, holdout, seed and both lists, to reproduce or audit the split.
    """
    out = Path(out_dir)
    names = ["dev.queries", "dev.qrels", "heldout.queries", "heldout.qrels", "split.json"]
    check_not_an_input([out / n for n in names], [qrels if isinstance(qrels, str | Path) else None])
    query_of_line, lines = _qrels_lines(qrels)
    split = split_queries(query_of_line, holdout, seed=seed)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"{out}: exists and is not a folder") from None
    held = set(split.heldout)
    source = display_name(qrels)
    for side, ids in (("dev", split.dev), ("heldout", split.heldout)):
        header = (
            f"# prfeval split of {source}: {side} queries ({len(ids)}), "
            f"holdout={split.holdout:g}, seed={seed}\n"
        )
        write_atomic(out / f"{side}.queries", header + "".join(f"{q}\n" for q in ids))
        wanted = side == "heldout"
        kept = [line for q, line in zip(query_of_line, lines, strict=True) if (q in held) == wanted]
        write_atomic(out / f"{side}.qrels", "".join(f"{line}\n" for line in kept))
    manifest = {"qrels": source, **split.to_dict()}
    write_atomic(out / "split.json", json.dumps(manifest, indent=2) + "\n")
    return split
