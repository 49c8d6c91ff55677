"""MLlib's metrics at k computed in the JVM with Spark SQL, no Python worker: the fast route
of :class:`~prfeval.spark.RankingEvaluator` for ``precisionAtK``, ``recallAtK``, ``ndcgAtK``
and ``meanAveragePrecisionAtK`` with ``k <= SQL_MAX_K``.

Spark's higher-order functions (``transform``, ``aggregate``) are evaluated without code
generation, some 1 us an element, slower than MLlib; so the first ``k`` places are unrolled
into expressions Spark compiles: place ``i`` is a hit when ``array_contains(l, get(p, i))``
(null beyond the list: no hit), and the hits of places ``8j .. 8j + 7`` are the bits of one
integer ``w{j}``. From the bits, by MLlib's definitions (:mod:`prfeval.spark._mllib`), for a
row with ``S`` distinct labels:

* ``precisionAtK`` = bit count / k; ``recallAtK`` = bit count / S;
* ``ndcgAtK`` = sum over hit places ``i`` of ``1 / ln(i + 2)``, divided by the same sum over
  the first ``min(S, k)`` places;
* ``meanAveragePrecisionAtK`` = sum over hit places ``i`` of (hits at places ``0..i``) /
  ``(i + 1)``, divided by ``min(S, k)``;

each 0 for a row without labels, the mean over every row (NaN for none). The sums run in
place order, as MLlib's loops do. ``S`` counts a repeated label once
(``size(array_distinct(l))``). (Finding the repeats by ``array_position`` over 32 unrolled
labels instead was measured ten times slower: an expression too large to compile runs
interpreted.)

A row that may hold a null array, a null item or a NaN id is not judged here: the one
aggregate also counts such rows (``array_contains`` of NaN, or of an id no one uses, is true
or null for them), and when there is any :func:`sql_mean` returns ``None``, so that the
Python route refuses the row with its message (or measures it). Ids of two kinds (text and
numbers) go to the Python route too.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from prfeval.spark._arrays import ListColumns

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

__all__ = ["SQL_MAX_K", "SQL_METRICS", "sql_mean"]

#: The largest k the JVM route unrolls (its expressions grow with k).
SQL_MAX_K = 16

#: MLlib's metrics the JVM route computes.
SQL_METRICS = frozenset({"precisionAtK", "recallAtK", "ndcgAtK", "meanAveragePrecisionAtK"})

#: Places per integer of hit bits (larger expressions compile worse).
CHUNK = 8

#: An id no one uses, by kind, for the null/NaN check (a row holding it goes to Python).
_SENTINEL = {
    "float": "CAST('NaN' AS DOUBLE)",
    "int": "CAST('-9223372036854775808' AS BIGINT)",
    "text": "chr(0)",
}


def _ids(frame: DataFrame, column: str) -> tuple[Column, str] | None:
    """The array of ids in ``column`` (an array of structs: its id field) and its kind
    (``int``, ``float`` or ``text``); ``None`` for what only the Python route words."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from prfeval.spark._nested import struct_id_field

    if column not in frame.columns:
        return None
    kind = frame.schema[column].dataType
    if not isinstance(kind, T.ArrayType):
        return None
    item, col = kind.elementType, F.col(column)
    if isinstance(item, T.StructType):
        try:
            field = struct_id_field(item, column, "DataFrame")
        except Exception:
            return None
        item, col = item[field].dataType, col[field]
    if isinstance(item, T.StringType):
        return col, "text"
    if isinstance(item, T.ByteType | T.ShortType | T.IntegerType | T.LongType):
        return col, "int"
    if isinstance(item, T.FloatType | T.DoubleType | T.DecimalType):
        return col, "float"
    return None


def _chunks(n: int) -> list[tuple[int, int]]:
    return [(lo, min(n, lo + CHUNK)) for lo in range(0, n, CHUNK)]


def _bit(i: int) -> str:
    return f"((w{i // CHUNK} >> {i % CHUNK}) & 1) = 1"


def _value(metric: str, k: int) -> list[list[str]]:
    """The projections after the bits, the last one giving ``v``, each row's value."""
    chunks = _chunks(k)
    hits = " + ".join(f"bit_count(w{j})" for j in range(len(chunks)))
    if metric == "precisionAtK":
        return [[f"IF(s > 0, ({hits}) / {float(k)!r}D, 0.0D) AS v"]]
    if metric == "recallAtK":
        return [[f"IF(s > 0, ({hits}) / s, 0.0D) AS v"]]
    if metric == "ndcgAtK":
        gains = [1.0 / math.log(i + 2) for i in range(k)]
        dcg = " + ".join(f"IF({_bit(i)}, {g!r}D, 0.0D)" for i, g in enumerate(gains))
        ideal = [0.0]
        for g in gains:
            ideal.append(ideal[-1] + g)
        table = ", ".join(f"{v!r}D" for v in ideal)
        return [[f"IF(s > 0, ({dcg}) / element_at(array({table}), least(s, {k}) + 1), 0.0D) AS v"]]
    # meanAveragePrecisionAtK: the hits before each chunk, then each chunk's terms.
    before = ["0"] + [" + ".join(f"bit_count(w{x})" for x in range(j))
                      for j in range(1, len(chunks))]
    terms = []
    for j, (lo, hi) in enumerate(chunks):
        terms.append(" + ".join(
            f"IF({_bit(i)}, (c{j} + bit_count(w{j} & {(1 << (i - lo + 1)) - 1})) / "
            f"{float(i + 1)!r}D, 0.0D)"
            for i in range(lo, hi)
        ))
    words = [f"w{j}" for j in range(len(chunks))]
    total = " + ".join(f"t{j}" for j in range(len(chunks)))
    return [
        ["s", *words, *(f"{e} AS c{j}" for j, e in enumerate(before))],
        ["s", *(f"{t} AS t{j}" for j, t in enumerate(terms))],
        [f"IF(s > 0, ({total}) / least(s, {k}), 0.0D) AS v"],
    ]


def sql_mean(frame: DataFrame, cols: ListColumns, metric: str, k: int) -> float | None:
    """MLlib's ``metric`` at ``k`` over ``frame``'s rows, computed in one Spark job; ``None``
    when the rows are for the Python route (see the module's doc)."""
    assert metric in SQL_METRICS and 1 <= k <= SQL_MAX_K
    pred, label = _ids(frame, cols.prediction), _ids(frame, cols.label)
    if pred is None or label is None:
        return None
    kinds = {pred[1], label[1]}
    if "text" in kinds and len(kinds) > 1:
        return None
    kind = "text" if "text" in kinds else "float" if "float" in kinds else "int"
    cast = {"text": None, "float": "array<double>", "int": "array<bigint>"}[kind]
    ranked, labels = pred[0], label[0]
    if cast is not None:
        ranked, labels = ranked.cast(cast), labels.cast(cast)
    sentinel = _SENTINEL[kind]
    words = [
        " + ".join(f"IF(coalesce(array_contains(l, get(p, {i})), false), {1 << (i - lo)}, 0)"
                   for i in range(lo, hi)) + f" AS w{j}"
        for j, (lo, hi) in enumerate(_chunks(k))
    ]
    bad = (f"IF(p IS NULL OR l IS NULL OR coalesce(array_contains(p, {sentinel}), true) "
           f"OR coalesce(array_contains(l, {sentinel}), true), 1, 0) AS bad")
    size = "size(array_distinct(l)) AS s"
    stage = frame.select(ranked.alias("p"), labels.alias("l"))
    stage = stage.selectExpr(*words, "l", bad)
    stage = stage.selectExpr(size, *(f"w{j}" for j in range(len(words))), "bad")
    for projection in _value(metric, k):
        stage = stage.selectExpr(*projection, "bad")
    row = stage.selectExpr("sum(v)", "count(1)", "sum(bad)").first()
    assert row is not None
    total, n, flagged = row
    if flagged:
        return None
    return float(total) / n if n else math.nan
