"""trec_eval 9.0.8's preference measures (``-R prefs``, ``-R qrels_prefs``, ``prefs_*``).

References: trec_eval 9.0.8's own quicktest outputs (out.test.prefs, out.test.qrels_prefs),
counts worked out by hand below, and the binary live when $TREC_EVAL names it. Its outputs on
seeded random cases (data/trec_eval_908_prefs.json, written by tests/trec_eval/prefs_cases.py)
are replayed byte for byte by test_recorded_outputs.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import prfeval
from prfeval._core.errors import InputFormatError, UsageError
from prfeval._io.prefs import read_preferences
from prfeval._retrieval.prefs import MEASURES, evaluate_preferences
from support.cli import run_cli

DATA = Path(__file__).parents[1] / "data"
QUICK = DATA / "trec_eval_quicktest"
CASES = json.loads((DATA / "trec_eval_908_prefs.json").read_text())["cases"]


@pytest.mark.parametrize(
    ("fmt", "judged", "run", "expected"),
    [
        ("prefs", "prefs.test", "prefs.results.test", "out.test.prefs"),
        ("qrels_prefs", "qrels.test", "results.test", "out.test.qrels_prefs"),
    ],
)
def test_quicktest_byte_for_byte(capsys, fmt, judged, run, expected) -> None:
    code, out, err = run_cli(
        capsys,
        "trec_eval",
        "-m",
        "all_prefs",
        "-q",
        "-R",
        fmt,
        str(QUICK / judged),
        str(QUICK / run),
    )
    assert (code, err) == (0, "")
    assert out == (QUICK / expected).read_text()


def test_random_cases_cover_both_representations() -> None:
    # several sub-groups in one group (the transitive matrix) and one (classes of levels)
    multi = one = 0
    for case in CASES:
        if case["format"] != "prefs":
            continue
        groups: dict[tuple[str, str], set[str]] = {}
        for line in case["judgments"].splitlines():
            q, g, s, _d, _l = line.split()
            groups.setdefault((q, g), set()).add(s)
        multi += sum(len(v) > 1 for v in groups.values())
        one += sum(len(v) == 1 for v in groups.values())
    assert multi > 20 and one > 20


def _write(tmp_path: Path, prefs: str, run: dict[str, dict[str, float]]) -> Path:
    path = tmp_path / "prefs"
    path.write_text(prefs)
    return path


def test_hand_counted_one_subgroup(tmp_path) -> None:
    # A(2) > B(1) > C(0); ranking B, A, D (C unretrieved). Docid ranks B=0, A=1, C=2.
    # A>B both retrieved, not fulfilled; A>C and B>C implied, fulfilled.
    path = _write(tmp_path, "q g s A 2\nq g s B 1\nq g s C 0\n", {})
    r = evaluate_preferences(path, {"q": {"B": 3.0, "A": 2.0, "D": 1.0}})
    v = {name: r.values[name][0] for name in MEASURES}
    assert v["prefs_num_prefs_poss"] == 3
    assert v["prefs_num_prefs_ful"] == 2
    assert v["prefs_num_prefs_ful_ret"] == 0
    assert v["prefs_simp"] == pytest.approx(2 / 3)
    assert v["prefs_simp_ret"] == 0.0
    assert v["prefs_simp_imp"] == pytest.approx(2 / 3)
    # pairs {A,B}: 0/1, {A,C}: 1/1, {B,C}: 1/1
    assert v["prefs_pair"] == pytest.approx(2 / 3)
    assert v["prefs_pair_ret"] == 0.0
    # R = 2 relevant, N = 1 non-relevant: R - N = 1 fulfilled added per relevant retrieved
    # doc (2), 1 possible per relevant doc (2): (2 + 2) / (3 + 2)
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx(4 / 5)
    # retrieved only: R = 2, N = 0: (0 + 2 * 2) / (1 + 2 * 2)
    assert v["prefs_avgjg_Rnonrel_ret"] == pytest.approx(4 / 5)


def test_hand_counted_transitive_subgroups(tmp_path) -> None:
    # s1: A > B, s2: B > C, so A > C too: 3 preferences in the group.
    prefs = "q g s1 A 2\nq g s1 B 1\nq g s2 B 5\nq g s2 C 4\n"
    path = _write(tmp_path, prefs, {})
    good = evaluate_preferences(path, {"q": {"A": 3.0, "B": 2.0, "C": 1.0}})
    bad = evaluate_preferences(path, {"q": {"C": 3.0, "B": 2.0, "A": 1.0}})
    assert good.values["prefs_num_prefs_poss"] == [3.0]
    assert good.values["prefs_num_prefs_ful_ret"] == [3.0]
    assert good.values["prefs_simp"] == [1.0]
    assert bad.values["prefs_num_prefs_ful"] == [0.0]
    assert bad.values["prefs_simp"] == [0.0]


def test_ties_break_by_doc_id_ascending(tmp_path) -> None:
    # equal scores: A ranks above B, so A > B is fulfilled and B > A would not be
    ab = evaluate_preferences(
        _write(tmp_path, "q g s A 1\nq g s B 0\n", {}), {"q": {"A": 1.0, "B": 1.0}}
    )
    assert ab.values["prefs_simp"] == [1.0]
    ba = evaluate_preferences(
        _write(tmp_path, "q g s B 1\nq g s A 0\n", {}), {"q": {"A": 1.0, "B": 1.0}}
    )
    assert ba.values["prefs_simp"] == [0.0]


def test_summary_counts_sum_and_ratios_average(tmp_path) -> None:
    path = _write(tmp_path, "q1 g s A 1\nq1 g s B 0\nq2 g s A 1\nq2 g s B 0\n", {})
    r = evaluate_preferences(path, {"q1": {"A": 2.0, "B": 1.0}, "q2": {"B": 2.0, "A": 1.0}})
    assert r.queries == ["q1", "q2"]
    assert r.summary("prefs_num_prefs_poss") == 2
    assert r.summary("prefs_simp") == 0.5


def test_qrels_prefs_reads_iter_as_group(tmp_path) -> None:
    path = tmp_path / "qrels"
    path.write_text("q 0 A 1\nq 0 B 0\nq 1 A 0\nq 1 B 1\n")
    prefs = read_preferences(path, format="qrels_prefs")
    assert list(prefs.groups) == ["0", "0", "1", "1"]
    assert set(prefs.subgroups) == {"0"}
    r = evaluate_preferences(prefs, {"q": {"A": 2.0, "B": 1.0}})
    # the two groups disagree: one fulfilled of two; the pair scores 1/2
    assert r.values["prefs_simp"] == [0.5]
    assert r.values["prefs_pair"] == [0.5]
    assert r.values["prefs_avgjg"] == [0.5]


def test_public_api_exports() -> None:
    assert prfeval.read_preferences is read_preferences
    assert prfeval.evaluate_preferences is evaluate_preferences
    assert {"Preferences", "PrefsResult", "read_preferences", "evaluate_preferences"} <= set(
        prfeval.__all__
    )


def test_bad_lines_name_file_and_line(tmp_path) -> None:
    path = tmp_path / "prefs"
    path.write_text("q g s A 1\nq g s B\n")
    with pytest.raises(InputFormatError) as info:
        read_preferences(path)
    assert info.value.line_number == 2 and info.value.path == str(path)
    assert "expected 5 fields" in str(info.value)
    path.write_text("q g s A high\n")
    with pytest.raises(InputFormatError, match="not a number"):
        read_preferences(path)
    path.write_text("")
    with pytest.raises(InputFormatError, match="no preference"):
        read_preferences(path)
    with pytest.raises(UsageError):
        read_preferences(path, format="ndeval")  # type: ignore[arg-type]


def test_inconsistent_groups_are_errors(tmp_path) -> None:
    run = {"q": {"A": 2.0, "B": 1.0}}
    cycle = _write(tmp_path, "q g s1 A 2\nq g s1 B 1\nq g s2 B 2\nq g s2 A 1\n", {})
    with pytest.raises(InputFormatError, match="inconsistent"):
        evaluate_preferences(cycle, run)
    zero = _write(tmp_path, "q g s1 A 0\nq g s1 B 1\nq g s2 A 3\nq g s2 B 1\n", {})
    with pytest.raises(InputFormatError, match="both 0 and non-0") as info:
        evaluate_preferences(zero, run)
    assert info.value.line_number is not None
    twice = _write(tmp_path, "q g s A 2\nq g s A 1\n", {})
    with pytest.raises(InputFormatError, match="two different levels"):
        evaluate_preferences(twice, run)


def test_cli_bad_input_exits_2(tmp_path, capsys) -> None:
    prefs, run = tmp_path / "prefs", tmp_path / "run"
    prefs.write_text("q g s A 1\nq g B 0\n")
    run.write_text("q Q0 A 1 1 r\n")
    code, out, err = run_cli(
        capsys, "trec_eval", "-R", "prefs", "-m", "all_prefs", str(prefs), str(run)
    )
    assert code == 2 and out == ""
    assert f"{prefs}:2:" in err and "Traceback" not in err


def test_cli_refuses_other_measures_with_prefs(tmp_path, capsys) -> None:
    code, _out, err = run_cli(
        capsys,
        "trec_eval",
        "-R",
        "prefs",
        str(QUICK / "prefs.test"),
        str(QUICK / "prefs.results.test"),
    )
    assert code == 2 and "need -m" in err
    code, _out, err = run_cli(
        capsys,
        "trec_eval",
        "-R",
        "prefs",
        "-m",
        "P",
        str(QUICK / "prefs.test"),
        str(QUICK / "prefs.results.test"),
    )
    assert code == 2 and "prefs_*" in err


@pytest.mark.skipif(
    not os.environ.get("TREC_EVAL"), reason="TREC_EVAL (a trec_eval 9.0.8 binary) is not set"
)
@pytest.mark.parametrize(
    "measures",
    [["-m", "prefs"], ["-m", "prefs_pair", "-m", "num_q"], ["-m", "all_prefs", "-M", "3"]],
)
def test_live_against_binary(tmp_path, measures) -> None:
    args = [
        *measures,
        "-q",
        "-R",
        "prefs",
        str(QUICK / "prefs.test"),
        str(QUICK / "prefs.results.test"),
    ]
    want = subprocess.run([os.environ["TREC_EVAL"], *args], capture_output=True, text=True)
    got = subprocess.run(
        [sys.executable, "-m", "prfeval", "trec_eval", *args], capture_output=True, text=True
    )
    assert (got.returncode, got.stdout) == (want.returncode, want.stdout)


def test_complete_counts_judged_queries_without_results(tmp_path, capsys) -> None:
    # -c: z has preferences but no results; it counts in num_q and scores 0 (trec_eval 9.0.8)
    prefs, run = tmp_path / "prefs", tmp_path / "run"
    prefs.write_text("q g s A 2\nq g s B 1\nz g s A 1\nz g s B 0\n")
    run.write_text("q Q0 A 1 3 r\nq Q0 B 2 2 r\nx Q0 A 1 1 r\n")
    code, out, _ = run_cli(
        capsys,
        "trec_eval",
        "-c",
        "-m",
        "prefs_simp",
        "-m",
        "num_q",
        "-R",
        "prefs",
        str(prefs),
        str(run),
    )
    assert code == 0
    assert out == "num_q                 \tall\t2\nprefs_simp            \tall\t0.5000\n"


def test_empty_prefs_file_stops_as_trec_eval(tmp_path, capsys) -> None:
    prefs, run = tmp_path / "prefs", tmp_path / "run"
    prefs.write_text("")
    run.write_text("q Q0 A 1 3 r\n")
    code, out, err = run_cli(
        capsys, "trec_eval", "-m", "all_prefs", "-R", "prefs", str(prefs), str(run)
    )
    assert (code, out) == (2, "")
    assert (
        err == f"trec_eval.get_prefs: Cannot read prefs file '{prefs}'\n"
        f"trec_eval: Quit in file '{prefs}'\n"
    )
