"""Fuzzing the TREC readers: any bytes give a table or an InputFormatError, never a crash.

Pins STYLE.md rule 6 ("validate at the edge with real exceptions") for the readers and for
``evaluate`` fed a fuzzed run or fuzzed judgments beside a valid other side: the only
exceptions allowed out are prfeval's (PrfevalError), and a reader's is InputFormatError.
The other readers (CSV, TSV, JSON Lines, Parquet, gzip) are fuzzed in test_fuzz_tables.py.

Deterministic by default (the same inputs on every run); ``PRFEVAL_FUZZ=long`` runs 100
times as many, drawn afresh each time, to look for new failures.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prfeval import evaluate
from prfeval._core.errors import InputFormatError, PrfevalError
from prfeval._io.load import load_run
from prfeval._io.trec import parse_qrels, parse_run, read_run

LONG = os.environ.get("PRFEVAL_FUZZ") == "long"
FUZZ = settings(
    max_examples=20_000 if LONG else 200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
    derandomize=not LONG,  # CI sees the same 200 inputs every run
)
VALID_QRELS = b"1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n2 0 d3 -1\n"
VALID_RUN = b"1 Q0 d1 1 2.5 t\n1 Q0 d9 2 1.0 t\n2 Q0 d3 1 0.5 t\n"

# Tokens that stress the parser: numbers in odd forms, non-finite values, non-UTF-8 bytes,
# comment markers, quotes, separators and empty strings.
TOKENS = st.sampled_from(
    [
        b"1", b"2", b"0", b"-1", b"Q0", b"d1", b"d2", b"doc-3", b"tag", b"1.5", b"-0.0", b"1e3",
        b"1e400", b"NaN", b"nan", b"inf", b"-Infinity", b"0x10", b"1_000", b"+3", b".5", b"5.",
        b"#", b"#c", b'"', b"'", b",", b";", b"\xff", b"\xc3\x28", b"\xe9", b"\x00", b"\x1f\x8b",
        b"\r", b"\x0b", b"\x0c", b"", b"\xef\xbb\xbf1", b"9" * 25, "é".encode(),
    ]
)  # fmt: skip
SEPARATORS = st.sampled_from([b" ", b"\t", b"  ", b" \t ", b"\x0b", b""])
LINE_ENDS = st.sampled_from([b"\n", b"\r\n", b"\n\n", b"", b"\r"])


@st.composite
def token_lines(draw: st.DrawFn) -> bytes:
    """Lines of 0-8 random tokens, with odd separators, comments and line endings."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        n = draw(st.integers(0, 8))
        parts = [draw(TOKENS) for _ in range(n)]
        sep = draw(SEPARATORS)
        line = sep.join(parts)
        if draw(st.booleans()) and line:
            line = draw(SEPARATORS) + line + draw(SEPARATORS)
        lines.append(line + draw(LINE_ENDS))
    return b"".join(lines)


@st.composite
def near_valid(draw: st.DrawFn, valid: bytes) -> bytes:
    """A valid file with one field of one line replaced, dropped or duplicated."""
    lines = valid.split(b"\n")[:-1]
    i = draw(st.integers(0, len(lines) - 1))
    fields = lines[i].split(b" ")
    j = draw(st.integers(0, len(fields) - 1))
    action = draw(st.sampled_from(["replace", "drop", "extra", "blank"]))
    if action == "replace":
        fields[j] = draw(TOKENS)
    elif action == "drop":
        del fields[j]
    elif action == "extra":
        fields.insert(j, draw(TOKENS))
    else:
        fields[j] = b""
    lines[i] = draw(SEPARATORS).join(fields)
    return b"\n".join(lines) + draw(LINE_ENDS)


ANY_INPUT = st.one_of(
    st.binary(max_size=300),
    token_lines(),
    near_valid(VALID_RUN),
    near_valid(VALID_QRELS),
    st.text(max_size=200).map(lambda s: s.encode("utf-8")),
)


def _check_run(data: bytes) -> None:
    try:
        run = parse_run(data, "fuzz.run")
    except InputFormatError as exc:
        assert str(exc).startswith("fuzz.run"), str(exc)
        return
    assert len(run.query_ids) == len(run.doc_ids) == len(run.scores)
    assert np.all(np.isfinite(run.scores))


def _check_qrels(data: bytes) -> None:
    try:
        qrels = parse_qrels(data, "fuzz.qrels")
    except InputFormatError as exc:
        assert str(exc).startswith("fuzz.qrels"), str(exc)
        return
    assert len(qrels.query_ids) == len(qrels.doc_ids) == len(qrels.grades)
    assert qrels.grades.dtype.kind == "i"


@FUZZ
@given(ANY_INPUT)
@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")  # notes on CRs, #
def test_parse_run_any_bytes(data: bytes) -> None:
    """parse_run returns a consistent Run with finite scores or raises InputFormatError."""
    _check_run(data)


@FUZZ
@given(ANY_INPUT)
@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")  # notes on CRs, #
def test_parse_qrels_any_bytes(data: bytes) -> None:
    """parse_qrels returns consistent Qrels with integer grades or raises InputFormatError."""
    _check_qrels(data)


@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")  # an empty run is valid
@FUZZ
@given(ANY_INPUT)
def test_evaluate_with_fuzzed_run(data: bytes) -> None:
    """evaluate(valid qrels, fuzzed run) gives an Evaluation or a PrfevalError, nothing else."""
    try:
        e = evaluate(VALID_QRELS, data, "P@5 R@5 SetF NumRet Rprec")
    except PrfevalError:
        return
    assert all(math.isfinite(v) for v in e.macro.values())


@FUZZ
@given(ANY_INPUT)
@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")  # notes on CRs, #
def test_evaluate_with_fuzzed_qrels(data: bytes) -> None:
    """evaluate(fuzzed qrels, valid run) gives an Evaluation or a PrfevalError, nothing else."""
    try:
        e = evaluate(data, VALID_RUN, "P@5 R@5 SetF NumRel Rprec")
    except PrfevalError:
        return
    assert all(math.isfinite(v) for v in e.macro.values())


def test_known_bad_inputs_are_input_format_errors() -> None:
    """Hand-picked cases: each is an InputFormatError naming the line where there is one."""
    cases = {
        b"1 Q0 d1 1 NaN t\n": ":1:",
        b"1 Q0 d1 1 inf t\n": ":1:",
        b"1 Q0 d1 1 -inf t\n": ":1:",
        b"1 Q0 d1 1 1e400 t\n": ":1:",  # overflows to inf
        b"1 Q0 d1 1 2.0 t\n1 Q0 d2 1 x t\n": ":2:",
        b"1 Q0 d1 1 2.0\n": ":1:",
        b"# c\n\n1 Q0 d1 1\n": ":3:",  # (text after the sixth field is read, as trec_eval)
        b"1 Q0 d1 1 2.0 t\n\xff\xfe 0 d 1 1 t\n": ":2:",
    }
    for data, where in cases.items():
        try:
            parse_run(data, "r.txt")
        except InputFormatError as exc:
            assert where in str(exc), (data, str(exc))
        else:
            raise AssertionError(f"no error for {data!r}")
    for data, where in {b"\x00\x01\x02": "binary", b"\x1f\x8b\x08garbage": "gzip"}.items():
        try:
            read_run(data)  # read_run looks at the bytes first: NUL bytes, gzip magic
        except InputFormatError as exc:
            assert where in str(exc), (data, str(exc))
        else:
            raise AssertionError(f"no error for {data!r}")
    for data, where in {
        b"1 0 d1 x\n": ":1:",
        b"1 0 d1 1.5\n": ":1:",
        b"1 0 d1 1\n1 0 d2\n": ":2:",
    }.items():
        try:
            parse_qrels(data, "q.txt")
        except InputFormatError as exc:
            assert where in str(exc), (data, str(exc))
        else:
            raise AssertionError(f"no error for {data!r}")


def test_grade_overflow_names_its_line() -> None:
    """A grade too large for int64 is an InputFormatError naming file and line (STYLE rule 6)."""
    with pytest.raises(InputFormatError, match=r"^q\.txt:2: "):
        parse_qrels(b"1 0 d1 1\n1 0 d2 99999999999999999999999\n", "q.txt")


# A file's leading byte-order mark is its encoding mark, not the start of an id (Arrow
# skips it): no id here starts with one.
ID_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")),
    min_size=1,
    max_size=12,
).filter(lambda s: not s.startswith(("#", "\ufeff")))
FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (" Q0 d1 1 0.5 t\n", "r.trec:1: expected at least 6 fields, got 5"),
        ("1 Q0 d1 1 0.5 t\n Q0 d2 2 0.4 t\n", "r.trec:2: expected at least 6 fields, got 5"),
        ("1 Q0  1 0.5 t\n", "r.trec:1: expected at least 6 fields, got 5"),
        ("\ufeff Q0 d1 1 0.5 t\n", "r.trec:1: query id is empty"),
    ],
)
def test_an_empty_id_is_refused_naming_the_line(tmp_path, text: str, problem: str) -> None:
    """Single spaces read a line that starts with a space as an empty id: refused, with the
    line, whether the run is a file or bytes (a BOM before a space leaves an empty id)."""
    path = tmp_path / "r.trec"
    path.write_text(text, encoding="utf-8")
    for source, shown in ((str(path), problem), (path.read_bytes(), problem[len("r.trec"):])):
        with pytest.raises(InputFormatError) as info:
            load_run(source)
        assert str(info.value).endswith(shown)


@FUZZ
@given(
    st.lists(st.tuples(ID_TEXT, ID_TEXT, st.integers(-3, 3), FINITE), min_size=1, max_size=30),
    st.sampled_from([" ", "\t", "  "]),
)
def test_well_formed_files_always_parse(rows: list, sep: str) -> None:
    """Any well-formed run and qrels (unicode ids, any finite score) is read, not rejected."""
    run = "".join(sep.join([q, "Q0", d, "1", repr(s), "t"]) + "\n" for q, d, _, s in rows)
    seen: dict[tuple[str, str], int] = {}
    for q, d, g, _ in rows:
        seen.setdefault((q, d), g)
    qrels = "".join(f"{q} 0 {d} {g}\n" for (q, d), g in seen.items())
    parsed = parse_run(run.encode(), "r")
    assert parsed.query_ids.to_pylist() == [q for q, *_ in rows]
    assert parsed.doc_ids.to_pylist() == [d for _, d, *_ in rows]
    assert list(parsed.scores) == [s for *_, s in rows]
    assert list(parse_qrels(qrels.encode(), "q").grades) == list(seen.values())
    e = evaluate(qrels.encode(), run.encode(), "NumRet NumRel")
    assert e.macro["NumRet"] == len(rows)
