"""``prfeval trec_eval`` reads its files as trec_eval 9.0.8 reads them: the cases of
``tests/trec_eval/trec_eval_dialect_cases.py`` beyond their replay in this process (which
``test_recorded_outputs.py`` does, byte for byte): as a process of its own, where the bytes
meet the real standard streams, and through the compiled pass.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from trec_eval_dialect_cases import CASES, EXPECTED, LARGE, outcome

from prfeval._trec_eval.dialect import SMALL_BYTES
from support.cli import trec_eval_in_process

EXPECTED_OUTCOMES = json.loads(EXPECTED.read_text())


def prfeval(args: list[str], stdin: bytes = b"") -> tuple[int, bytes, bytes]:
    """``prfeval trec_eval ARGS`` as a process of its own."""
    done = subprocess.run(
        [sys.executable, "-m", "prfeval", "trec_eval", *args],
        input=stdin, capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_large_cases_take_the_large_file_reader() -> None:
    for name in LARGE:
        qrels, run, _ = CASES[name]
        assert len(qrels) + len(run) > SMALL_BYTES, name


#: The cases also run as a separate process: ids that are not UTF-8 and a large file, so the
#: bytes are checked on the real standard streams too.
AS_A_PROCESS = ["not_utf8_ids", "large_hex_score"]


@pytest.mark.parametrize("name", AS_A_PROCESS)
def test_same_bytes_and_status_from_a_separate_process(name: str, tmp_path: Path) -> None:
    assert outcome(prfeval, name, tmp_path) == EXPECTED_OUTCOMES[name]


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
    from prfeval._io import native, native_lib
    from prfeval._io.plan import compiled_unavailable

    if compiled_unavailable() is not None:
        pytest.skip(f"the compiled pass is not available: {compiled_unavailable()}")
    monkeypatch.setenv(native_lib.ENV, "1")
    from prfeval._io import plan

    monkeypatch.setattr(plan, "STREAM_THRESHOLD_BYTES", 1)
    claimed: list[str] = []
    claim = native.claim_parsed
    monkeypatch.setattr(native, "claim_parsed", lambda p: claimed.append(p) or claim(p))
    got = outcome(trec_eval_in_process(capfdbinary), name, tmp_path)
    assert got == EXPECTED_OUTCOMES[name]
    assert not native_lib.waiting()
    if name == "large_clean":
        assert claimed, "the pass did not read the clean case"
