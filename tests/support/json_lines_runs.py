"""A Hypothesis strategy of JSON Lines runs of lists (``qid``, ``doc_id``, ``scores``),
mostly plain, with whatever JSON allows around them: for the tests that compare the readers
of such runs."""

from __future__ import annotations

import json

from hypothesis import strategies as st

__all__ = ["json_lines_runs"]

_PLAIN_TEXT = st.text("abcxyz019-_.:/é字🙂", min_size=1, max_size=6)
_ODD_IDS = st.sampled_from(["", "a\"b", "a\\b", "q\u2028", "\x01", " ", 10**19, 1.5, None])


@st.composite
def _ids(draw: st.DrawFn, kind: str) -> object:
    """An id of the file's kind (text or integers), now and then an odd one."""
    if draw(st.integers(0, 30)) == 0:
        return draw(_ODD_IDS)
    return draw(_PLAIN_TEXT if kind == "text" else st.integers(-10**17, 10**17))


_SCORES = st.one_of(
    st.integers(-10**17, 10**17),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from([0.0, -0.0, 1e-300, 1e300, 2.5]),
)
_OTHER = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=3),
    max_leaves=6,
)


@st.composite
def json_lines_runs(draw: st.DrawFn) -> bytes:
    """JSON Lines runs of lists, mostly plain, with whatever JSON allows around them."""
    n = draw(st.integers(1, 6))
    extra = draw(st.booleans())
    query_kind = draw(st.sampled_from(["text", "int"]))
    doc_kind = draw(st.sampled_from(["text", "int"]))
    lines = []
    for _ in range(n):
        docs = draw(st.lists(_ids(doc_kind), max_size=5))
        row: dict[str, object] = {"qid": draw(_ids(query_kind)), "doc_id": docs}
        scores = draw(st.lists(_SCORES, min_size=len(docs), max_size=len(docs)))
        if draw(st.integers(0, 30)) == 0:  # now and then a length that differs
            scores = scores[1:]
        row["scores"] = scores
        if extra:
            row["note"] = draw(_OTHER)
        keys = draw(st.permutations(list(row)))
        escaped = draw(st.integers(0, 9)) == 0  # non-ASCII as \\u escapes: given back
        text = json.dumps({k: row[k] for k in keys}, ensure_ascii=escaped)
        if draw(st.integers(0, 20)) == 0:
            odd = ["", "  ", "{}", "null", text + " ,", text.replace(":", ": ")]
            text = draw(st.sampled_from(odd))
        lines.append(text)
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return (end.join(lines) + draw(st.sampled_from(["", end]))).encode("utf-8")
