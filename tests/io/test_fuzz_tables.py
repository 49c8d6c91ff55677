"""Fuzzing every reader from a file: TREC (Arrow's fast path on a regular file), CSV, TSV,
JSON Lines, Parquet and gzip. Any content ends in a table or a PrfevalError that names the
file, and its line (or Parquet row) whenever the problem is on one; never another exception.

Issue 16, "beyond the list". Deterministic by default: the same inputs on every run
(``derandomize``) and a bounded number of them; ``PRFEVAL_FUZZ=long`` runs 100 times as many,
drawn afresh each time.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prfeval import evaluate, load_qrels, load_run
from prfeval._core.errors import InputFormatError, PrfevalError

LONG = os.environ.get("PRFEVAL_FUZZ") == "long"
FUZZ = settings(
    max_examples=10_000 if LONG else 100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
    derandomize=not LONG,
)

#: Problems that belong to the whole file, not to one of its lines.
FILE_LEVEL = re.compile(
    r"^(empty file|no (query id|doc id|relevance|score|rank) column|no judgments|"
    r"binary data|corrupt gzip|cannot read as parquet|"
    r"column '.*' (must be numeric|holds|is named twice))"
)

NAMES = ["query_id", "qid", "query", "doc_id", "docid", "docno", "relevance", "grade", "score",
         "rank", "sim", "QID", "Doc_ID", "x", "", "query_id"]  # fmt: skip
CELLS = ["q1", "q2", "d1", "d2", "1", "0", "-1", "2", "1.5", "2.0", "1e3", "1e30", "-0",
         "NaN", "nan", "inf", "-inf", "", " ", "NA", "null", '"', '""', '"a,b"', "a\tb",
         "\u00e9", "\xff", "9" * 25, "0x10", " 3 ", "#", "true", "\\n"]  # fmt: skip
LINE_ENDS = ["\n", "\r\n", "\n\n"]


@st.composite
def delimited(draw: st.DrawFn, sep: str) -> bytes:
    """A header of known and odd column names, rows of odd cells, odd line ends."""
    header = draw(st.lists(st.sampled_from(NAMES), min_size=0, max_size=5))
    width = max(len(header), 1)
    lines = [sep.join(header)] if draw(st.booleans()) or header else []
    for _ in range(draw(st.integers(0, 6))):
        n = draw(st.sampled_from([width, width, width, width - 1, width + 1, 0]))
        lines.append(sep.join(draw(st.sampled_from(CELLS)) for _ in range(max(n, 0))))
    text = "".join(line + draw(st.sampled_from(LINE_ENDS)) for line in lines)
    if draw(st.booleans()) and text:
        text = text[: draw(st.integers(0, len(text)))]  # cut anywhere, even mid-quote
    prefix = "\ufeff" if draw(st.booleans()) else ""
    return (prefix + text).encode("utf-8", errors="surrogateescape")


JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(CELLS),
    st.lists(st.sampled_from(["a", "b", 1]), max_size=2),
    st.dictionaries(st.sampled_from(["a"]), st.integers(), max_size=1),
)


@st.composite
def json_lines(draw: st.DrawFn) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["object", "object", "object", "garbage", "blank", "list"]))
        if kind == "object":
            keys = draw(st.lists(st.sampled_from(NAMES), max_size=5))
            lines.append(json.dumps({k: draw(JSON_VALUES) for k in keys}))
        elif kind == "garbage":
            lines.append(draw(st.sampled_from(['{"query_id": ', "{", "}", "nope", '{"a":1}{'])))
        elif kind == "list":
            lines.append("[1, 2]")
        else:
            lines.append(draw(st.sampled_from(["", "  "])))
    return "\n".join(lines).encode()


@st.composite
def parquet_bytes(draw: st.DrawFn) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = draw(st.integers(0, 4))
    columns = {}
    for name in draw(st.lists(st.sampled_from(NAMES[:12]), max_size=4, unique=True)):
        kind = draw(st.sampled_from(["str", "int", "float", "bool", "list", "null"]))
        if kind == "str":
            values = [draw(st.one_of(st.none(), st.sampled_from(CELLS))) for _ in range(n)]
        elif kind == "int":
            values = [draw(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)))
                      for _ in range(n)]  # fmt: skip
        elif kind == "float":
            values = [draw(st.one_of(st.none(), st.floats())) for _ in range(n)]
        elif kind == "bool":
            values = [draw(st.booleans()) for _ in range(n)]
        elif kind == "list":
            values = [["a"] for _ in range(n)]
        else:
            values = [None] * n
        columns[name] = pa.array(values) if kind != "null" else pa.nulls(n)
    buffer = io.BytesIO()
    pq.write_table(pa.table(columns) if columns else pa.table({"x": pa.nulls(n)}), buffer)
    data = buffer.getvalue()
    if draw(st.booleans()):  # damage it: cut it, or flip a byte
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] if draw(st.booleans()) else data[:at] + b"\x00" + data[at + 1 :]
    return data


TREC = st.lists(
    st.lists(st.sampled_from(["q1", "Q0", "d1", "0", "1", "2.5", "-1", "x", "nan", "#", "\t",
                              "1e400", "", "d\xe9"]), max_size=7).map(" ".join),
    max_size=6,
).map(lambda lines: "\n".join(lines).encode())  # fmt: skip


def check(data: bytes, name: str) -> None:
    """Read ``data`` from a file called ``name`` as judgments, as a run, and evaluate it:
    a result, or a PrfevalError naming the file (and the line where there is one)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        for read in (load_qrels, load_run, lambda p: evaluate(p, p, "P@5 NumRet")):
            try:
                result = read(str(path))
            except InputFormatError as exc:
                assert str(exc).startswith(str(path)), str(exc)
                located = exc.line_number is not None or exc.row_number is not None
                assert located or FILE_LEVEL.match(exc.reason), str(exc)
            except PrfevalError as exc:  # usage, e.g. nothing to measure
                assert "Traceback" not in str(exc)
            else:
                if hasattr(result, "macro"):
                    assert all(math.isfinite(v) for v in result.macro.values())


@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")
@FUZZ
@given(delimited(","))
def test_csv_files(data: bytes) -> None:
    check(data, "fuzz.csv")


@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")
@FUZZ
@given(delimited("\t"))
def test_tsv_files(data: bytes) -> None:
    check(data, "fuzz.tsv")


@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")
@FUZZ
@given(json_lines())
def test_jsonl_files(data: bytes) -> None:
    check(data, "fuzz.jsonl")


@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")
@FUZZ
@given(parquet_bytes())
def test_parquet_files(data: bytes) -> None:
    pytest.importorskip("pyarrow.parquet")
    check(data, "fuzz.parquet")


@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")
@FUZZ
@given(TREC)
def test_trec_files(data: bytes) -> None:
    """From a regular file, so that Arrow's fast path reads it first."""
    check(data, "fuzz.txt")


@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")
@FUZZ
@given(
    st.sampled_from(["fuzz.txt.gz", "fuzz.csv.gz", "fuzz.jsonl.gz", "fuzz.gz"]),
    st.one_of(TREC, delimited(","), json_lines()),
    st.booleans(),
)
def test_gzip_files(name: str, data: bytes, truncate: bool) -> None:
    packed = gzip.compress(data)
    check(packed[: len(packed) // 2] if truncate else packed, name)


@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")
@FUZZ
@given(st.one_of(TREC, delimited(","), delimited("\t"), json_lines()))
def test_bytes_with_their_format_sniffed(data: bytes) -> None:
    """Bytes (and stdin) are read as their first line says."""
    for read in (load_qrels, load_run):
        try:
            read(data)
        except InputFormatError as exc:
            assert str(exc).startswith("<bytes>"), str(exc)
