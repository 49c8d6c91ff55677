"""Preferences with ``complete`` (trec_eval's ``-c -R prefs``): every query with preferences
counts, one without results scoring 0, as trec_eval 9.0.8 printed it.

The command line's outputs on the seeded cases of
``tests/trec_eval/trec_eval_prefs_complete_cases.py`` are replayed byte for byte by
``test_recorded_outputs.py``; here the Python API is held to the same recorded rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trec_eval_prefs_complete_cases import ARGS, OUT, make_cases

import prfeval
from prfeval._io.prefs import read_preferences

EXPECTED = json.loads(OUT.read_text())["cases"]


def _files(case: dict[str, str], tmp_path: Path) -> tuple[Path, Path]:
    judged, run = tmp_path / "judged", tmp_path / "run"
    judged.write_text(case["judgments"])
    run.write_text(case["run"])
    return judged, run


def _rows(stdout: str) -> dict[tuple[str, str], str]:
    """trec_eval's rows as {(measure, query): value text}."""
    return {
        (name.strip(), query): value
        for name, query, value in (line.split("\t") for line in stdout.splitlines())
    }


def test_the_cases_are_the_generator_s_and_leave_queries_without_results() -> None:
    made = make_cases()
    assert [{k: c[k] for k in ("format", "judgments", "run")} for c in EXPECTED] == made
    for case in made:
        judged = {line.split()[0] for line in case["judgments"].splitlines() if line}
        with_results = {line.split()[0] for line in case["run"].splitlines() if line}
        assert with_results < judged  # some judged query has no results, never all


@pytest.mark.parametrize("n", range(len(EXPECTED)))
def test_evaluate_complete_gives_trec_eval_s_values(n: int, tmp_path: Path) -> None:
    """The API's values are trec_eval's ``-c -q`` rows; its averages (totals for counts) the
    ``all`` rows, over every judged query; a query without results is a row of zeros."""
    case = EXPECTED[n]
    judged, run = _files(case, tmp_path)
    rows = _rows(case["runs"][ARGS.index(("-c", "-q", "-m", "all_prefs"))]["stdout"])
    names = sorted({name for name, _ in rows if name.startswith("prefs_")})
    prefs = read_preferences(judged, format=case["format"])
    e = prfeval.evaluate(prefs, str(run), names, complete=True)
    judged_ids = {line.split()[0] for line in case["judgments"].splitlines() if line}
    assert list(e.query_ids) == sorted(judged_ids, key=str.encode)
    assert rows[("num_q", "all")] == str(len(judged_ids))
    missing = set(e.accounting.missing_from_run)
    assert missing and missing == judged_ids - {q for _, q in rows if q != "all"}
    for i, m in enumerate(e.measures):
        total = m.definition.is_total
        for j, q in enumerate(e.query_ids):
            value = float(e.values[i][j])
            if q in missing:
                assert value == 0
            else:
                assert (f"{int(value)}" if total else f"{value:.4f}") == rows[(str(m), q)]
        summary = e.macro[str(m)]
        assert (f"{int(summary)}" if total else f"{summary:.4f}") == rows[(str(m), "all")]


def test_without_complete_the_queries_without_results_are_left_out(tmp_path: Path) -> None:
    # By hand: q has A over B with both retrieved in that order (fulfilled), z none retrieved.
    judged, run = tmp_path / "prefs", tmp_path / "run"
    judged.write_text("q g s A 2\nq g s B 1\nz g s A 1\nz g s B 0\n")
    run.write_text("q Q0 A 1 3 r\nq Q0 B 2 2 r\n")
    prefs = read_preferences(judged)
    some = prfeval.evaluate(prefs, str(run), "prefs_simp prefs_num_prefs_poss")
    every = prfeval.evaluate(prefs, str(run), "prefs_simp prefs_num_prefs_poss", complete=True)
    assert some.query_ids == ("q",) and every.query_ids == ("q", "z")
    assert some.macro["prefs_simp"] == 1.0 and every.macro["prefs_simp"] == 0.5
    assert every.values[:, 1].tolist() == [0.0, 0.0]
    assert every.accounting.missing_from_run == ("z",)


