"""``prfeval trec_eval`` reads its files as trec_eval 9.0.8 reads them, byte for byte.

The expected outputs are what the built 9.0.8 binary printed on each case of
``tests/trec_eval/trec_eval_dialect_cases.py`` (``#`` query ids, a lone CR inside a line,
hexadecimal
and partly numeric scores, grades such as ``1.0`` and ``+1``, ids that are not UTF-8, blank and
malformed lines, small files and files large enough for the Arrow reader). With ``TREC_EVAL``
set to a built binary, each case is also run through it here.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from trec_eval_dialect_cases import CASES, EXPECTED, LARGE, outcome

from prfeval._trec_eval.dialect import SMALL_BYTES
from support.cli import trec_eval_in_process

EXPECTED_OUTCOMES = json.loads(EXPECTED.read_text())


def prfeval(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "prfeval", "trec_eval", *args],
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip


def test_every_case_has_an_expected_outcome() -> None:
    assert set(EXPECTED_OUTCOMES) == set(CASES)


def test_large_cases_take_the_large_file_reader() -> None:
    for name in LARGE:
        qrels, run, _ = CASES[name]
        assert len(qrels) + len(run) > SMALL_BYTES, name


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_bytes_and_status_as_trec_eval_908(
    name: str, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    run = trec_eval_in_process(capfdbinary)
    got = outcome(lambda args: subprocess.CompletedProcess(args, *run(args)), name, tmp_path)
    assert got == EXPECTED_OUTCOMES[name]


#: The cases also run as a separate process: ids that are not UTF-8 and a large file, so the
#: bytes are checked on the real standard streams too.
AS_A_PROCESS = ["not_utf8_ids", "large_hex_score"]


@pytest.mark.parametrize("name", AS_A_PROCESS)
def test_same_bytes_and_status_from_a_separate_process(name: str, tmp_path: Path) -> None:
    assert outcome(prfeval, name, tmp_path) == EXPECTED_OUTCOMES[name]


@pytest.mark.skipif(not os.environ.get("TREC_EVAL"), reason="TREC_EVAL names no built binary")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_binary_still_prints_the_expected_outcome(name: str, tmp_path: Path) -> None:
    binary = os.environ["TREC_EVAL"]

    def run(args: list[str]) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([binary, *args], capture_output=True, timeout=120, check=False)

    assert outcome(run, name, tmp_path) == EXPECTED_OUTCOMES[name]


def test_hash_lines_change_the_numbers_as_trec_eval_says() -> None:
    """The case the issue reported: '#1' is a query, so num_q is 2, not 1."""
    stdout = EXPECTED_OUTCOMES["hash_query_ids_complete"]["stdout"]
    assert "num_q                 \tall\t3\n" in stdout
    large = EXPECTED_OUTCOMES["large_hash_line"]["stdout"]
    assert large != EXPECTED_OUTCOMES["large_clean"]["stdout"]
    assert len(large) == len(hashlib.sha256().hexdigest())


@pytest.mark.parametrize("name", sorted(LARGE))
def test_the_compiled_pass_reads_large_cases_as_trec_eval_908(
    name: str, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the pass on for every size (``PRFEVAL_NATIVE=1``, and the run streamed, as a
    run of 8 MiB or more is), the large cases read their judgments and run through it where
    it takes them (the clean case), and elsewhere as before: the same bytes and status as
    the binary, either way."""
    from prfeval._io import native, native_lib, stream

    if native_lib.unavailable() is not None:
        pytest.skip(f"the compiled pass is not available: {native_lib.unavailable()}")
    monkeypatch.setenv(native_lib.ENV, "1")
    monkeypatch.setattr(stream, "STREAM_THRESHOLD_BYTES", 1)
    claimed: list[str] = []
    claim = native.claim_parsed
    monkeypatch.setattr(native, "claim_parsed", lambda p: claimed.append(p) or claim(p))
    run = trec_eval_in_process(capfdbinary)
    got = outcome(lambda args: subprocess.CompletedProcess(args, *run(args)), name, tmp_path)
    assert got == EXPECTED_OUTCOMES[name]
    assert not native_lib.waiting()
    if name == "large_clean":
        assert claimed, "the pass did not read the clean case"
