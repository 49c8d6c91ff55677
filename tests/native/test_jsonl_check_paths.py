"""The compiled check of JSON Lines (``prf_jsonl_check``) and the numpy one give the same
tables and the same refusals: every case is read with the library and with
``PRFEVAL_NATIVE=0``, and the two outcomes compared (table, or the error's words)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from prfeval._core.errors import InputFormatError
from prfeval._io import native_lib
from prfeval._io.table_read import read_table

pytestmark = pytest.mark.skipif(
    native_lib.compiled_unavailable() is not None,
    reason=f"the compiled pass is not available: {native_lib.compiled_unavailable()}",
)

CASES = [
    '{"q": "a", "d": ["x", "y"], "s": [1.5, -2e3]}\n\n{"q": "b", "d": [], "s": []}\n',
    '\ufeff{"q": "a", "d": [{"id": "x", "score": 1}]}\n',
    '{"q": "a", "m": {"d1": 1, "d2": 0}}\n{"q": "b", "m": {}}\n',
    '{"q": "a", "d": [null, "x"]}\n',
    '{"q": "a", "d": [18446744073709551615, 2]}\n',
    '{"q": "a", "d": 9223372036854775807}\n',
    '{"q": "a", "q": "b"}\n',
    '{"q": "a", "d": [{"id": "x", "id": "y"}]}\n',
    '{"q": "a"}\nnull {"q": "b"}\n',
    '{"q": "a"} {"q": "b"}\n',
    '{"q": "a"}\n[1, 2]\n',
    '{"q": "a"}\nnull\n',
    '{"q": "a", "x": ' + "[" * 70 + "]" * 70 + "}\n",
    '{"q": "a", "x": tru}\n',
    '{"q": "a", "x": NaN}\n',
    '{"q": "a", "x": "\\u0041\\"}"}\n',
    '{"q": "a", "d": ["x"], "meta": {"a": 1}}\n{"q": "b", "d": ["y"], "meta": "text"}\n',
    '{"q": "a", "d": [1, "x"]}\n',
    '{"q": "a", "x": 1,}\n',
    '{"q\\u0061": "a", "qa": "b"}\n',
]


def outcome(tmp_path, monkeypatch, text: str, native: bool) -> object:
    monkeypatch.setenv("PRFEVAL_NATIVE", "1" if native else "0")
    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8")
    try:
        table, _ = read_table(str(path), "jsonl")
    except InputFormatError as refused:
        return str(refused)
    return table.schema, repr(table.to_pylist())  # repr: NaN equals NaN


@pytest.mark.parametrize("text", CASES)
def test_both_checks_read_and_refuse_alike(tmp_path, monkeypatch, text) -> None:
    assert outcome(tmp_path, monkeypatch, text, True) == outcome(tmp_path, monkeypatch, text,
                                                                  False)


def test_too_many_items_are_refused_alike(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PRFEVAL_MAX_QUERY_RESULTS", "50")
    text = '{"q": "a"} x\n{"q": "b", "d": [' + ", ".join(['"x,]"'] * 51) + "]}\n"
    ours = outcome(tmp_path, monkeypatch, text, True)
    assert ours == outcome(tmp_path, monkeypatch, text, False)
    assert isinstance(ours, str) and ":2: a list on this line has more than the 50" in ours


FRAGMENTS = ['{"q": "a", ', '"d": ', "[", "]", "{", "}", "null", ", ", '"x"', "1", "-0.5",
             "18446744073709551616", '"q": 1', ": ", "\n", " ", '"\\""', "true", "\\",
             '"\\u00e9"', "\r", '"é"', "\ufeff", "\t", "1e400", "-", "0"]


def _where(outcome: object) -> object:
    """A refusal's file and line (``path:LINE``); a table as it is."""
    if isinstance(outcome, str):
        assert "\n" not in outcome, outcome  # one line
        return outcome.split(": ", 1)[0]
    return outcome


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=25))
@example(['{"q": "a", ', "]", "\ufeff"])  # the words differ here (found in CI)
def test_hostile_fragments_are_read_and_refused_alike(tmp_path, monkeypatch, parts) -> None:
    """The same table from both checks, or a refusal of the same line. On text that is not
    JSON the words may differ: the compiled check parses the line (and hands it to Python's
    parser, which names the fault), the numpy one counts its brackets."""
    text = "".join(parts)
    ours = outcome(tmp_path, monkeypatch, text, True)
    plain = outcome(tmp_path, monkeypatch, text, False)
    assert _where(ours) == _where(plain), (ours, plain)
