"""trec_eval's preference measures through the registry and ``prfeval.evaluate``.

References: trec_eval 9.0.8's own quicktest outputs (out.test.prefs, out.test.qrels_prefs),
parsed here; trec_eval 9.0.8's measure table and sets (its measures.c) and its words when a
preference measure is asked with qrels, written out below; the binary live when $TREC_EVAL
names it.
"""

from __future__ import annotations

import os
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

import prfeval
from prfeval._core.errors import InputFormatError, UsageError
from prfeval._io.prefs import read_preferences
from prfeval._measures import REGISTRY, TREC_REGISTRY
from support.cli import run_cli

QUICK = Path(__file__).parents[1] / "data" / "trec_eval_quicktest"

# trec_eval 9.0.8's te_trec_measures order (measures.c), places 34 to 47.
TABLE = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp",
)  # fmt: skip


def parse_trec_eval(path: Path) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """trec_eval's -q output: measure -> query -> text, and measure -> the ``all`` text."""
    per_query: dict[str, dict[str, str]] = defaultdict(dict)
    summary: dict[str, str] = {}
    for line in path.read_text().splitlines():
        name, query, value = (f.strip() for f in line.split("\t"))
        if query == "all":
            summary[name] = value
        else:
            per_query[name][query] = value
    return per_query, summary


def test_registry_declares_trec_evals_table_and_sets():
    table = TREC_REGISTRY.trec_table
    assert table[34:48] == TABLE
    assert TREC_REGISTRY.trec_sets["all_prefs"] == ("runid", "num_q", *TABLE)
    assert TREC_REGISTRY.trec_sets["prefs"] == ("runid", "num_q", *TABLE[:6])
    assert not set(TABLE) & set(TREC_REGISTRY.trec_sets["all_trec"])
    assert all(REGISTRY[n].needs_preferences for n in TABLE)
    assert not TREC_REGISTRY.trec_unsupported


@pytest.mark.parametrize(
    ("fmt", "judged", "run", "expected"),
    [
        ("prefs", "prefs.test", "prefs.results.test", "out.test.prefs"),
        ("qrels_prefs", "qrels.test", "results.test", "out.test.qrels_prefs"),
    ],
)
def test_evaluate_equals_trec_evals_quicktest(fmt, judged, run, expected):
    per_query, summary = parse_trec_eval(QUICK / expected)
    prefs = read_preferences(QUICK / judged, format=fmt)
    e = prfeval.evaluate(prefs, str(QUICK / run), list(TABLE))
    queries = sorted(per_query["prefs_simp"], key=lambda q: q.encode())
    assert list(e.query_ids) == queries
    assert e.accounting.evaluated == int(summary["num_q"])
    for i, name in enumerate(TABLE):
        total = REGISTRY[name].is_total
        for j, q in enumerate(e.query_ids):
            got = e.values[i][j]
            text = f"{int(got)}" if total else f"{got:.4f}"
            assert text == per_query[name][q], (name, q)
        mean = e.macro[name]
        assert (f"{int(mean)}" if total else f"{mean:.4f}") == summary[name], name


def test_measures_with_the_wrong_judgments_are_usage_errors():
    prefs = read_preferences(QUICK / "prefs.test")
    run = str(QUICK / "prefs.results.test")
    with pytest.raises(UsageError, match="preference judgments, not qrels"):
        prfeval.evaluate(str(QUICK / "qrels.test"), str(QUICK / "results.test"), "prefs_simp")
    with pytest.raises(UsageError, match="cannot be computed from preference judgments"):
        prfeval.evaluate(prefs, run, "prefs_simp P@10")
    with pytest.raises(UsageError, match="max_results and complete are the only options"):
        prfeval.evaluate(prefs, run, "prefs_simp", level=2)


def test_max_results_keeps_the_top_documents():
    """With -M 1 only each query's top document is retrieved: no pair has both retrieved,
    so every retrieved preference count is 0 (counted by hand from the definition)."""
    prefs = read_preferences(QUICK / "prefs.test")
    e = prfeval.evaluate(prefs, str(QUICK / "prefs.results.test"),
                         "prefs_num_prefs_ful_ret prefs_simp_ret", max_results=1)
    assert e.macro["prefs_num_prefs_ful_ret"] == 0
    assert e.macro["prefs_simp_ret"] == 0


# What trec_eval 9.0.8 writes (and its exit status 4) when a preference measure is asked
# with ordinary qrels: recorded from the binary on the quicktest files.
WRONG_FORMAT = (
    "trec_eval.form_prefs_info: prefs_info format not (prefs or qrels_prefs) or results "
    "format not trec_results\ntrec_eval: Can't calculate measure '{}'\n"
)


@pytest.mark.parametrize(
    ("measures", "first"),
    [
        (["-m", "all_prefs"], "prefs_num_prefs_poss"),
        (["-m", "P.5", "-m", "prefs"], "prefs_num_prefs_poss"),
        (["-q", "-m", "prefs_simp", "-m", "P.5"], "prefs_simp"),
    ],
)
def test_trec_eval_with_qrels_stops_at_a_preference_measure(capsys, measures, first):
    args = [*measures, str(QUICK / "qrels.test"), str(QUICK / "results.test")]
    code, out, err = run_cli(capsys, "trec_eval", *args)
    assert (code, out, err) == (4, "", WRONG_FORMAT.format(first))
    if os.environ.get("TREC_EVAL"):
        want = subprocess.run([os.environ["TREC_EVAL"], *args], capture_output=True, text=True)
        assert (code, out, err) == (want.returncode, want.stdout, want.stderr)


def test_reader_takes_runs_of_whitespace_and_keeps_line_numbers(tmp_path):
    """Tabs and runs of spaces separate fields (trec_eval reads them with sscanf); values
    and line numbers listed by hand."""
    path = tmp_path / "prefs"
    path.write_bytes(b"q1\tg  s A 2\nq1 g s\t\tB 0.5\nq2 g s C -1\n")
    p = read_preferences(path)
    assert p.query_ids.tolist() == ["q1", "q1", "q2"]
    assert p.doc_ids.tolist() == ["A", "B", "C"]
    assert p.levels.tolist() == [2.0, 0.5, -1.0]
    assert p.line_numbers.tolist() == [1, 2, 3]
    bad = tmp_path / "bad"
    bad.write_bytes(b"q1 g s A 2\nq1 g s B\n")
    with pytest.raises(InputFormatError, match="expected 5 fields") as info:
        read_preferences(bad)
    assert info.value.line_number == 2
