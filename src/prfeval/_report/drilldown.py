"""The report's drill-down data: every query's top places in every run, columnar and
compressed, for the page to decode when a query is first opened.

A report of two runs over 10,000 queries at depth 100 holds two million places; as JSON, one
object per query, that was 60 MB of page. Here the places are columns of typed arrays,
concatenated into one buffer, compressed with zlib (RFC 1950, which the browser's
``DecompressionStream("deflate")`` reads) and embedded as text in the page's JSON element,
so the page stays one file that works offline and fetches nothing.

The text is base 85 (``meta["blob"]``; ``meta["blob_bytes"]`` the compressed length): the
buffer, padded with zero bytes to a multiple of 4, is read as big-endian 32-bit words, and
each word is written as 5 digits, most significant first, from the 85 characters of
``DIGITS`` (the printable ASCII characters in order, but for the double and single
quotes, ampersand, slash, less-than, equals, greater-than, backslash and backquote, so
that the text needs no escaping in JSON or HTML). That is 5 characters for 4 bytes, where
base64 takes 5.33: the encoding of Adobe's Ascii85 (PostScript Language Reference, 1990),
with another alphabet.

The columns (``R`` runs, ``Q`` queries, places in run-major then query order):

- ``n_retrieved``, ``n_relevant``, ``present`` (int32, int32, uint8; ``R*Q``): each
  explanation's counts, and whether the run has the query;
- ``place_offsets`` (int32, ``R*Q+1``): where each (run, query)'s places start;
- the document ids: ``vocab_prefix`` (uint8), ``vocab_suffix_len`` (uint32) and
  ``vocab_suffix`` (uint8): every id shown, as UTF-8, in byte order, front-coded (each id
  keeps the first ``prefix`` bytes of the one before it, then its suffix), after Witten,
  Moffat and Bell (1999), *Managing Gigabytes*, 5.1;
- ``union_offsets`` (int32, ``Q+1``) and ``union_delta`` (int32): for each query, the
  codes (into the ids) of the documents any run shows for it, ascending, as differences from
  the previous one of the query (the first from 0); runs of a study share most of their top
  documents, so each place is then a small index into its query's union: ``place_union``
  (uint8, or uint16 when a union is longer than 256);
- ``scores``: each place's score to 6 significant digits. When every score is a decimal
  with at most 6 places that fits (``meta["scale"]``), in integer units of ``10**-scale``:
  ``scores`` (uint8) holds each place's fall from the place before it in the same (run,
  query) when that is 0 to 254, else 255, and then the place's units are the next value of
  ``score_escapes`` (in place order; the first place of a ranking is always 255). Otherwise
  ``scores`` is float64 (with ``meta["scale"] = None``); ``has_scores`` (uint8, ``R``);
- ``grades`` (``meta["unjudged"]``, the type's least value, for an unjudged place). A place
  counts as relevant when it is judged, its grade is at least ``meta["level"]``, and it is
  not a repeat (a document shown earlier in the same ranking, as ``place_union`` tells);
  only when that rule does not give the explanations' own flags is ``flags`` stored (uint8:
  1 counts as relevant, 2 a repeated document, 0 the others) and ``meta["level"]`` None;
- ``best_k``, ``best_tp`` (int32, ``R*Q``): the first cutoff with the best F, and the
  relevant places above it (0, 0 for an empty ranking);
- ``values`` (float64, ``R*K*Q`` for the ``K`` measures; NaN where a value is undefined);
- ``missed_offsets`` (int32, ``Q*R+1``, query by query, each query's runs side by side),
  ``missed_delta`` (the codes into the ids, ascending, as differences from the previous one
  of the list, the first from 0) and ``missed_grades``: the relevant documents never
  retrieved, in doc id order.

Integer columns take the narrowest type that holds them (the dtype in ``columns``), and are
stored as byte planes: all first bytes, then all second bytes, and so on.

The ties a cutoff cuts through are JSON in the column ``ties`` (uint8, its UTF-8 text): run
index -> query index -> ``[k, first, last, score, [doc ids]]``.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._comparison.study import Study
from prfeval._core.arrays import ranges
from prfeval._core.codes import factorize
from prfeval._core.ranking import UNJUDGED
from prfeval._plots.figures import run_color
from prfeval._retrieval.explain_columns import Missed, Places
from prfeval._retrieval.explanation import Explanation

__all__ = ["UNJUDGED_GRADE", "drilldown_data", "id_vocabulary"]

#: The grade written for an unjudged place (below any grade a qrels line can give).
UNJUDGED_GRADE = -(2**31)

#: The 85 digits of the page's base 85, in order: none needs escaping in JSON or HTML.
DIGITS = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "\"&'/<=>\\`")
assert len(DIGITS) == 85

# A fall in score at least this (in units) is written in full, in ``score_escapes``.
_ESCAPE = 255

# Scores with at most this many decimals are stored as integers.
_MAX_SCALE = 6


def drilldown_data(s: Study) -> dict[str, Any]:
    """The page's drill-down: its small fields as JSON, the places as one compressed
    columnar buffer (``meta["blob"]``, base64; ``meta["columns"]``: name -> [dtype, byte
    offset, length] in the decompressed buffer)."""
    queries = list(s.comparison.query_ids)
    n_q, n_r = len(queries), len(s.runs)
    columns: dict[str, npt.NDArray[Any]] = {}
    explained: list[Explanation | None] = [
        r.explanations.get(q) for r in s.runs for q in queries
    ]
    places = [_places(e) for e in explained]
    lengths = np.array([0 if p is None else len(p) for p in places], dtype=np.int64)
    columns["present"] = np.array([e is not None for e in explained], dtype=np.uint8)
    columns["n_retrieved"] = np.array(
        [0 if e is None else e.n_retrieved for e in explained], dtype=np.int32
    )
    columns["n_relevant"] = np.array(
        [0 if e is None else e.n_relevant for e in explained], dtype=np.int32
    )
    columns["place_offsets"] = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)

    shown = [p for p in places if p is not None]
    # The missed documents query by query (each query's runs side by side): runs of one
    # study often miss the same documents, which the compressor then finds next to each other.
    by_query = [explained[r * n_q + q] for q in range(n_q) for r in range(n_r)]
    missed = [_missed(e.missed) for e in by_query if e is not None]
    missed_lengths = [0 if e is None else len(e.missed) for e in by_query]
    vocab, codes = id_vocabulary([*(_id_array(p.doc_ids) for p in shown),
                                *(ids for ids, _ in missed)])  # fmt: skip
    n_places = int(lengths.sum())
    place_codes, missed_codes = codes[:n_places], codes[n_places:]
    columns.update(_front_coded(vocab))

    # Each place's query (0..Q-1), then each query's union of codes across the runs.
    owner = np.repeat(np.tile(np.arange(n_q, dtype=np.int64), n_r), lengths)
    width = len(vocab) + 1
    # Distinct (query, code) pairs, by sorting: quicker than numpy's hash for 2M pairs.
    keys = np.sort(owner * width + place_codes)
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if keys.size else keys
    union_query, union_code = keys // width, keys % width
    union_offsets = np.searchsorted(union_query, np.arange(n_q + 1))
    at = np.searchsorted(keys, owner * width + place_codes) - union_offsets[owner]
    first = np.zeros(keys.size, dtype=bool)
    first[union_offsets[:-1][union_offsets[:-1] < keys.size]] = True
    delta = np.diff(union_code, prepend=0)
    delta[first] = union_code[first]
    columns["union_offsets"] = union_offsets.astype(np.int32)
    columns["union_delta"] = delta.astype(_narrow(delta))
    columns["place_union"] = at.astype(_narrow(at))

    has_scores = [p is not None and p.scores is not None for p in places]
    columns["has_scores"] = np.array(
        [any(has_scores[r * n_q : (r + 1) * n_q]) for r in range(n_r)], dtype=np.uint8
    )
    scores = _joined(
        [np.full(len(p), math.nan) if p.scores is None else p.scores for p in shown], np.float64
    )
    scale, packed = _pack_scores(scores, lengths)
    if scale is None:
        columns["scores"] = packed
    else:
        columns["scores"], columns["score_escapes"] = packed

    grades = _joined([_grades(p.grades) for p in shown], np.int64)
    judged = grades[grades != UNJUDGED_GRADE]
    kind = _narrow(np.concatenate((judged, [judged.min(initial=0) - 1])))
    unjudged = int(np.iinfo(kind).min)  # below every grade shown
    columns["grades"] = np.where(grades == UNJUDGED_GRADE, unjudged, grades).astype(kind)
    relevant = _joined([p.relevant for p in shown], np.bool_)
    repeat = _joined([p.repeat for p in shown], np.bool_)
    level = s.provenance.get("level")
    if not _flags_derive(grades, place_codes, lengths, relevant, repeat, level):
        level = None  # the rule does not hold here: keep the flags themselves
        columns["flags"] = relevant.astype(np.uint8) | (repeat.astype(np.uint8) << 1)

    best = [None if e is None else e.best for e in explained]
    columns["best_k"] = np.array([0 if b is None else b[0] for b in best], dtype=np.int32)
    # The best F's relevant places: P times k, an integer count.
    columns["best_tp"] = np.array(
        [0 if b is None else round(b[1] * b[0]) for b in best], dtype=np.int32
    )
    columns["values"] = np.ascontiguousarray(s.comparison.values, dtype=np.float64).ravel()
    columns["missed_offsets"] = np.concatenate(([0], np.cumsum(missed_lengths))).astype(np.int32)
    # Ascending within each list (doc id order is code order): differences, from 0 each.
    missed_starts = np.cumsum(missed_lengths) - np.asarray(missed_lengths, dtype=np.int64)
    missed_delta = np.diff(missed_codes, prepend=0)
    nonempty = np.asarray(missed_lengths) > 0
    missed_delta[missed_starts[nonempty]] = missed_codes[missed_starts[nonempty]]
    columns["missed_delta"] = missed_delta.astype(_narrow(missed_delta))
    missed_grades = _joined([grades for _, grades in missed], np.int64)
    columns["missed_grades"] = missed_grades.astype(_narrow(missed_grades))

    ties: dict[str, dict[str, list[Any]]] = {}
    for i, e in enumerate(explained):
        if e is not None and e.cut_ties:
            ties.setdefault(str(i // n_q), {})[str(i % n_q)] = [
                [t.k, t.first, t.last, t.score, list(t.doc_ids)] for t in e.cut_ties
            ]
    # In the buffer: the tied documents' ids are most of it, and compress well.
    text = json.dumps(ties, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    columns["ties"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    blob, n_bytes, layout = _pack(columns)
    return {
        "runs": list(s.names),
        "colors": [run_color(i) for i in range(n_r)],
        "queries": queries,
        "labels": list(s.comparison.labels),
        "beta": float(s.provenance.get("beta", 1.0)),
        "scale": scale,
        "unjudged": unjudged,
        "level": level,
        "columns": layout,
        "blob_bytes": n_bytes,
        "blob": blob,
    }


def _places(e: Explanation | None) -> Places | None:
    if e is None:
        return None
    ranking = e.ranking
    if isinstance(ranking, Places):
        return ranking
    return Places(
        [d.doc_id for d in ranking],
        None if any(d.score is None for d in ranking) else [float(d.score) for d in ranking],  # type: ignore[arg-type]  # None checked just before
        [d.grade for d in ranking],
        [d.relevant for d in ranking],
        [d.repeat for d in ranking],
        [d.precision for d in ranking],
        [d.recall for d in ranking],
    )


def _missed(missed: Sequence[tuple[str, int]]) -> tuple[Any, Any]:
    """The missed documents' ids (a pyarrow string array) and grades: an explanation's
    columns (:class:`~prfeval._retrieval.explain_columns.Missed`), or any sequence of pairs."""
    if isinstance(missed, Missed):
        return _id_array(missed.doc_ids), missed.grades
    return _id_array([d for d, _ in missed]), [g for _, g in missed]


def _joined(parts: list[Any], dtype: type[np.generic]) -> npt.NDArray[Any]:
    """The columns of every ranking shown, one after the other, as one array."""
    if not parts:
        return np.zeros(0, dtype=dtype)
    return np.concatenate([np.asarray(x, dtype=dtype) for x in parts])


def _grades(grades: Any) -> npt.NDArray[np.int64]:
    """A ranking's grades, ``UNJUDGED_GRADE`` for an unjudged place (``UNJUDGED`` or None)."""
    if isinstance(grades, np.ndarray):
        return np.where(grades == UNJUDGED, UNJUDGED_GRADE, grades).astype(np.int64)
    return np.array([UNJUDGED_GRADE if g is None or g == UNJUDGED else g for g in grades],
                    dtype=np.int64)  # fmt: skip


def _id_array(ids: Any) -> Any:
    """Ids as a pyarrow string array (they are one already, or a sequence of str)."""
    import pyarrow as pa

    return ids if isinstance(ids, pa.Array) else pa.array(list(ids), type=pa.string())


def id_vocabulary(parts: list[Any]) -> tuple[Any, npt.NDArray[np.int64]]:
    """The distinct ids of ``parts`` (pyarrow string arrays, one after the other) as UTF-8,
    in byte order (a ``large_binary`` array), and each id's code into them."""
    import pyarrow as pa

    if not parts or not sum(len(part) for part in parts):
        return pa.array([], type=pa.large_binary()), np.zeros(0, dtype=np.int64)
    codes, distinct = factorize(parts, sort=True)  # byte order, as trec_eval's strcmp
    return distinct.cast(pa.large_binary()), np.concatenate(codes)


def _front_coded(vocab: Any) -> dict[str, npt.NDArray[Any]]:
    """Front coding of the sorted ids (a pyarrow ``large_binary`` array): each keeps the
    bytes it shares with the one before (at most 255), then its own suffix. Worked on the
    array's own buffers: no Python object per id."""
    n = len(vocab)
    if n:
        offsets = np.frombuffer(vocab.buffers()[1], dtype=np.int64)[vocab.offset :][: n + 1]
        data = np.frombuffer(vocab.buffers()[2], dtype=np.uint8)
    else:
        offsets, data = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    starts, lengths = offsets[:-1], np.diff(offsets)
    width = int(lengths.max(initial=0))
    prefix = np.zeros(n, dtype=np.int64)
    if n > 1 and 0 < width <= 256:
        at = np.arange(width)
        # In blocks of ids, each block with the id before it: bounded memory for long ids.
        block = max(1, 2**22 // width)
        for lo in range(1, n, block):
            hi = min(n, lo + block)
            # Each id's bytes in a row of ``width``, padded with zeros past its end.
            inside = at < lengths[lo - 1 : hi, None]
            where = np.where(inside, starts[lo - 1 : hi, None] + at, 0)
            matrix = np.where(inside, data[where], 0).astype(np.uint8)
            differ = matrix[1:] != matrix[:-1]
            # The first differing byte, within the shorter of the two ids.
            shared = np.where(differ.any(axis=1), differ.argmax(axis=1), width)
            prefix[lo:hi] = np.minimum(shared, np.minimum(lengths[lo:hi], lengths[lo - 1 : hi - 1]))
        prefix = np.minimum(prefix, 255)
    # Each id's bytes from ``prefix`` on, in order.
    own = lengths - prefix
    suffix = data[ranges(starts + prefix, own)] if n else np.zeros(0, dtype=np.uint8)
    return {
        "vocab_prefix": prefix.astype(np.uint8),
        "vocab_suffix_len": own.astype(np.uint32),
        "vocab_suffix": suffix.astype(np.uint8),
    }


def _flags_derive(
    grades: npt.NDArray[np.int64],
    codes: npt.NDArray[np.int64],
    lengths: npt.NDArray[np.int64],
    relevant: npt.NDArray[np.bool_],
    repeat: npt.NDArray[np.bool_],
    level: Any,
) -> bool:
    """Whether the page can tell each place's flags from its grade, ``level`` and the
    documents before it: relevant = judged, grade >= level and not a repeat."""
    if not isinstance(level, int) or isinstance(level, bool):
        return False
    ranking = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    keys = ranking * (int(codes.max(initial=0)) + 1) + codes
    order = np.argsort(keys, kind="stable")  # places of one document in rank order
    later = np.zeros(keys.size, dtype=bool)
    later[order[1:]] = keys[order[1:]] == keys[order[:-1]]
    derived = (grades != UNJUDGED_GRADE) & (grades >= level) & ~later
    return bool(np.array_equal(later, repeat) and np.array_equal(derived, relevant))


def _pack_scores(
    scores: npt.NDArray[np.float64], lengths: npt.NDArray[np.int64]
) -> tuple[int | None, Any]:
    """The scores to 6 significant digits: in units of ``10**-scale`` when that is exact,
    as (each place's fall from the one before, 255 for an escape; the escaped places' units),
    else as float64 (``scale`` None)."""
    if not scores.size:
        return 0, (np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.int32))
    six = scores
    if not _few_digits(scores):  # else printing each to 6 digits would give it back
        six = np.char.mod("%.6g", scores).astype(np.float64)  # what the page shows, at most
    finite = np.isfinite(six)
    if finite.all():
        for scale in range(_MAX_SCALE + 1):
            units = np.round(six * 10.0**scale)
            if np.abs(units).max() >= 2**30 or not np.array_equal(units / 10.0**scale, six):
                continue
            ints = units.astype(np.int64)
            fall = -np.diff(ints, prepend=0)
            escaped = (fall < 0) | (fall >= _ESCAPE)
            escaped[(np.cumsum(lengths) - lengths)[lengths > 0]] = True  # each ranking's first
            fall[escaped] = _ESCAPE
            full = ints[escaped]
            return scale, (fall.astype(np.uint8), full.astype(_narrow(full)))
    return None, six


def _few_digits(scores: npt.NDArray[np.float64]) -> bool:
    """Whether every score is a decimal of at most 6 significant digits and ``_MAX_SCALE``
    places (the nearest double to one): ``%.6g`` then prints it exactly."""
    if not np.isfinite(scores).all():
        return False
    for scale in range(_MAX_SCALE + 1):
        units = np.round(scores * 10.0**scale)
        if np.abs(units).max() < 10**6 and np.array_equal(units / 10.0**scale, scores):
            return True
    return False


def _narrow(values: npt.NDArray[Any]) -> type[np.integer[Any]]:
    """The narrowest integer type holding every value (unsigned when none is negative)."""
    low, high = int(values.min(initial=0)), int(values.max(initial=0))
    kinds = (np.uint8, np.uint16, np.uint32) if low >= 0 else (np.int8, np.int16, np.int32)
    for kind in kinds:
        info = np.iinfo(kind)
        if info.min <= low and high <= info.max:
            return kind
    return np.int64


def _pack(columns: dict[str, npt.NDArray[Any]]) -> tuple[str, int, dict[str, list[Any]]]:
    """One buffer of the columns, each at an offset its type's size divides (so the page
    views it in place), compressed, in base 85, with the compressed length."""
    parts: list[bytes] = []
    layout: dict[str, list[Any]] = {}
    offset = 0
    for name, column in columns.items():
        data = np.ascontiguousarray(column)
        pad = -offset % 8
        parts.append(b"\0" * pad)
        offset += pad
        layout[name] = [data.dtype.name, offset, int(data.size)]
        raw = data.astype(data.dtype.newbyteorder("<"), copy=False).view(np.uint8)
        if data.dtype.kind in "iu":
            # Integers as byte planes (every value's first byte, then every second byte,
            # ...): the high bytes of small numbers are runs of zeros, which the compressor
            # squeezes. Floats stay whole: their repeated values compress better so.
            raw = raw.reshape(-1, data.dtype.itemsize).T
        packed = raw.tobytes()
        parts.append(packed)
        offset += len(packed)
    blob = zlib.compress(b"".join(parts), 6)  # 9 saves 2 % in ten times the time
    return base85(blob), len(blob), layout


def base85(data: bytes) -> str:
    """``data`` in base 85 with ``DIGITS``: zero-padded to whole 32-bit words, big-endian,
    5 digits a word, most significant first."""
    words = np.frombuffer(data + b"\0" * (-len(data) % 4), dtype=">u4").astype(np.int64)
    digits = np.empty((words.size, 5), dtype=np.uint8)
    for place in range(4, -1, -1):
        words, digits[:, place] = np.divmod(words, 85)
    alphabet = np.frombuffer(DIGITS.encode("ascii"), dtype=np.uint8)
    return alphabet[digits].tobytes().decode("ascii")
