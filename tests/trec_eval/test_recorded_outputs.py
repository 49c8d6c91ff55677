"""What a built trec_eval printed, replayed through ``prfeval trec_eval``: the same stdout,
stderr and exit status, byte for byte, on every recorded case.

Each case module of this folder holds seeded cases and the outputs the binary printed on
them (``tests/data/*.json``), with one protocol: ``CASES`` (the cases' names),
``EXPECTED`` (the JSON file of the binary's output per case; ``expected_outcomes()`` where
the file holds more), ``outcome(run, name, folder)`` (what a runner printed on a case,
recorded the same way) and ``VERSION`` (``"9.0.8"`` unless ``"10"``). One harness replays
them all: in this process, and, with ``TREC_EVAL`` (a built 9.0.8) or ``TREC_EVAL_10`` (a
built 10.0) set, through the binary, so that a recording can be checked again.

- **arguments** (``trec_eval_args_cases``): measure parameters read with C's atol/atof,
  cutoffs refused, parameters ignored, odd option values;
- **dialect** (``trec_eval_dialect_cases``): ``#`` query ids, a lone CR, hexadecimal scores,
  grades such as ``1.0``, ids that are not UTF-8, malformed lines, large files;
- **level** and **level, 10.0** (``trec_eval_level_cases``, ``trec_eval_10_level_cases``):
  relevance levels below 0 with negative grades and unjudged documents;
- **10.0** (``trec_eval_10_cases``): 10.0's new and changed measures, comment lines, stdin;
- **judgment groups and z-scores** (``trec_eval_jg_z_cases``): ``-R qrels_jg`` and ``-Z``;
- **preferences** (``prefs_cases``, ``trec_eval_prefs_complete_cases``): ``-R prefs`` and
  ``-R qrels_prefs``, with ``-c`` and queries without results.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import ModuleType

import prefs_cases
import pytest
import trec_eval_10_cases
import trec_eval_10_level_cases
import trec_eval_args_cases
import trec_eval_dialect_cases
import trec_eval_jg_z_cases
import trec_eval_level_cases
import trec_eval_prefs_complete_cases

from support.cli import trec_eval_in_process
from support.recordings import binary_runner

RECORDINGS: dict[str, ModuleType] = {
    "arguments": trec_eval_args_cases,
    "dialect": trec_eval_dialect_cases,
    "level": trec_eval_level_cases,
    "level_10": trec_eval_10_level_cases,
    "trec_eval_10": trec_eval_10_cases,
    "judgment_groups_and_zscores": trec_eval_jg_z_cases,
    "preferences": prefs_cases,
    "preferences_complete": trec_eval_prefs_complete_cases,
}


def expected_outcomes(module: ModuleType) -> dict[str, object]:
    if hasattr(module, "expected_outcomes"):
        return module.expected_outcomes()
    return json.loads(module.EXPECTED.read_text())


EXPECTED = {name: expected_outcomes(module) for name, module in RECORDINGS.items()}
CASES = [(name, case) for name, module in RECORDINGS.items() for case in module.CASES]
BINARIES = {"9.0.8": "TREC_EVAL", "10": "TREC_EVAL_10"}


def version(recording: str) -> str:
    return getattr(RECORDINGS[recording], "VERSION", "9.0.8")


@pytest.mark.parametrize("recording", sorted(RECORDINGS))
def test_every_case_has_the_binary_s_outcome(recording: str) -> None:
    assert set(EXPECTED[recording]) == set(RECORDINGS[recording].CASES)
    assert EXPECTED[recording]


@pytest.mark.parametrize(("recording", "case"), CASES, ids=[f"{r}-{c}" for r, c in CASES])
def test_same_bytes_and_status_as_trec_eval(
    recording: str, case: str, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    run = trec_eval_in_process(capfdbinary, version=version(recording))
    got = RECORDINGS[recording].outcome(run, case, tmp_path)
    assert got == EXPECTED[recording][case]


@pytest.mark.parametrize(("recording", "case"), CASES, ids=[f"{r}-{c}" for r, c in CASES])
def test_the_binary_still_prints_the_recorded_outcome(
    recording: str, case: str, tmp_path: Path
) -> None:
    binary = os.environ.get(BINARIES[version(recording)])
    if not binary:
        pytest.skip(f"{BINARIES[version(recording)]} names no built trec_eval "
                    f"{version(recording)} binary")
    got = RECORDINGS[recording].outcome(binary_runner(binary), case, tmp_path)
    assert got == EXPECTED[recording][case]
