"""Named runs (NAME=PATH), all-pairs comparisons with Tukey's HSD, and the paper tables with
their intervals and a caption that names the query set.

References: per-query values counted by hand here from the ranked lists (P@5 and RR), the
paired t-test of scipy.stats.ttest_rel, Holm and Bonferroni written out here, and
scipy.stats.tukey_hsd on those hand-counted values.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

from prfeval._comparison.compare import compare
from prfeval._core.errors import UsageError
from prfeval._report.comparison_tables import latex, markdown
from prfeval.cli._shared import named_runs, split_named_run
from support.cli import run_cli
from support.hand_made import holm_by_hand

scipy_stats = pytest.importorskip("scipy.stats")

N_QUERIES = 30
RUNS = ("A", "B", "C", "D")


def synthetic() -> tuple[dict, dict[str, dict]]:
    """30 queries with 3 relevant documents each, and four runs of 10 documents whose
    relevant ones sit at seeded random ranks (the runs get better from A to D)."""
    rng = np.random.default_rng(7)
    qrels = {f"q{q}": {f"q{q}r{i}": 1 for i in range(3)} for q in range(N_QUERIES)}
    runs: dict[str, dict] = {}
    for skill, name in enumerate(RUNS):
        run = {}
        for q in range(N_QUERIES):
            ranking = [f"q{q}x{name}{i}" for i in range(10)]
            for i in range(3):
                if rng.random() < 0.05 + 0.3 * skill:
                    ranking[int(rng.integers(0, 10))] = f"q{q}r{i}"
            run[f"q{q}"] = ranking
        runs[name] = run
    return qrels, runs


def hand_values(qrels: dict, run: dict) -> dict[str, list[float]]:
    """P@5 and RR of each query, counted here (every query is answered; no run repeats a
    document)."""
    p5, rr = [], []
    for q in sorted(qrels, key=lambda s: int(s[1:])):
        relevant = set(qrels[q])
        assert len(set(run[q])) == len(run[q])
        p5.append(sum(doc in relevant for doc in run[q][:5]) / 5)
        first = next((i for i, d in enumerate(run[q]) if d in relevant), None)
        rr.append(0.0 if first is None else 1.0 / (first + 1))
    return {"P@5": p5, "RR": rr}


@pytest.fixture(scope="module")
def pairs_result():
    qrels, runs = synthetic()
    c = compare(qrels, runs, "P@5 RR", test="ttest", all_pairs=True, n_bootstrap=200)
    return qrels, runs, c


def test_every_pair_is_the_paired_t_test_holm_adjusted_over_pairs_and_measures(pairs_result):
    qrels, runs, c = pairs_result
    values = {name: hand_values(qrels, run) for name, run in runs.items()}
    expected_pairs = [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]
    assert [(p.run_a, p.run_b) for p in c.pairs if p.measure == "P@5"] == expected_pairs
    raw = {}
    for measure in ("P@5", "RR"):
        for a, b in expected_pairs:
            x, y = np.array(values[b][measure]), np.array(values[a][measure])
            raw[(measure, a, b)] = float(scipy_stats.ttest_rel(x, y).pvalue)
    keys = list(raw)
    adjusted = dict(zip(keys, holm_by_hand([raw[k] for k in keys]), strict=True))
    assert c.settings["n_tests"] == 12 and c.settings["all_pairs"] is True
    for p in c.pairs:
        key = (p.measure, p.run_a, p.run_b)
        assert p.p_value == pytest.approx(raw[key], rel=1e-9)
        assert p.p_adjusted == pytest.approx(adjusted[key], rel=1e-9)
        assert p.significant == (adjusted[key] <= 0.05)
        d = np.array(values[p.run_b][p.measure]) - np.array(values[p.run_a][p.measure])
        assert p.delta == pytest.approx(d.mean(), abs=1e-12)
        assert (p.wins, p.ties, p.losses) == (
            int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
        )
        assert p.ci_low <= p.delta <= p.ci_high
    # The rows against the baseline carry the same tests, adjusted over the whole family.
    for run in ("B", "C", "D"):
        r = c.row("RR", run)
        assert r.p_adjusted == pytest.approx(adjusted[("RR", "A", run)], rel=1e-9)
    # A significant and a non-significant pair: the data are not degenerate.
    assert any(p.significant for p in c.pairs) and not all(p.significant for p in c.pairs)


def test_tukey_hsd_is_scipys_on_the_hand_counted_values(pairs_result):
    qrels, runs, c = pairs_result
    values = {name: hand_values(qrels, run) for name, run in runs.items()}
    for measure in ("P@5", "RR"):
        groups = [values[name][measure] for name in RUNS]
        ref = scipy_stats.tukey_hsd(*groups)
        ci = ref.confidence_interval(confidence_level=0.95)
        for p in c.pairs:
            if p.measure != measure:
                continue
            a, b = RUNS.index(p.run_a), RUNS.index(p.run_b)
            assert p.tukey_p == pytest.approx(float(ref.pvalue[b, a]), rel=1e-9)
            assert p.tukey_low == pytest.approx(float(ci.low[b, a]), rel=1e-9)
            assert p.tukey_high == pytest.approx(float(ci.high[b, a]), rel=1e-9)
            assert p.tukey_significant == (float(ref.pvalue[b, a]) <= 0.05)
            assert float(ref.statistic[b, a]) == pytest.approx(p.delta, abs=1e-12)


def test_bonferroni_over_every_pair_and_measure():
    qrels, runs = synthetic()
    three = {k: runs[k] for k in ("A", "C", "D")}
    c = compare(qrels, three, "P@5 RR", test="ttest", correction="bonferroni", all_pairs=True,
                baseline="C", n_bootstrap=100)
    values = {name: hand_values(qrels, run) for name, run in three.items()}
    # Pairs with the baseline first (baseline as run A), then the rest in the runs' order.
    assert [(p.run_a, p.run_b) for p in c.pairs if p.measure == "RR"] == [
        ("C", "A"), ("C", "D"), ("A", "D")
    ]
    for p in c.pairs:
        x, y = values[p.run_b][p.measure], values[p.run_a][p.measure]
        raw = float(scipy_stats.ttest_rel(x, y).pvalue)
        assert p.p_adjusted == pytest.approx(min(1.0, 6 * raw), rel=1e-9)


def test_without_all_pairs_nothing_changes():
    qrels, runs = synthetic()
    plain = compare(qrels, runs, "P@5 RR", test="ttest", n_bootstrap=100)
    assert plain.pairs == () and plain.settings["n_tests"] == 6
    assert "pairs" not in plain.to_dict()
    values = {name: hand_values(qrels, run) for name, run in runs.items()}
    raw = [
        float(scipy_stats.ttest_rel(values[r]["RR"], values["A"]["RR"]).pvalue)
        for r in ("B", "C", "D")
    ]
    # Holm over the six (run, measure) tests against the baseline only.
    p5 = [
        float(scipy_stats.ttest_rel(values[r]["P@5"], values["A"]["P@5"]).pvalue)
        for r in ("B", "C", "D")
    ]
    adjusted = holm_by_hand(p5 + raw)
    for n, run in enumerate(("B", "C", "D")):
        assert plain.row("RR", run).p_adjusted == pytest.approx(adjusted[3 + n], rel=1e-9)


def test_tukey_undefined_without_variance_and_all_pairs_checked():
    qrels = {f"q{i}": {"r": 1} for i in range(4)}
    same = {f"q{i}": ["r"] for i in range(4)}
    none = {f"q{i}": ["x"] for i in range(4)}
    c = compare(qrels, {"a": same, "b": none, "c": same}, "RR", all_pairs=True,
                n_permutations=99, n_bootstrap=99)
    p = c.pair("RR", "a", "b")
    assert p.delta == -1.0 and math.isnan(p.tukey_p) and not p.tukey_significant
    assert c.to_dict()["pairs"][0]["tukey_p"] is None
    with pytest.raises(UsageError, match="all_pairs must be True or False"):
        compare(qrels, {"a": same, "b": none}, "RR", all_pairs="yes")


def test_the_tables_moved_to_the_report_layer():
    qrels, runs = synthetic()
    c = compare(qrels, {k: runs[k] for k in ("A", "D")}, "RR", n_permutations=99,
                n_bootstrap=99)
    with pytest.raises(AttributeError, match="format_comparison"):
        c.to_markdown()
    import prfeval

    assert prfeval.format_comparison(c, "markdown") == markdown(c)
    assert prfeval.format_comparison(c, "latex") == latex(c)


# -- the tables: intervals, differences, a caption naming the query set ------------------------


def test_markdown_and_latex_carry_the_intervals_and_the_query_set():
    qrels, runs = synthetic()
    c = compare(qrels, {k: runs[k] for k in ("A", "D")}, "P@5 RR", n_permutations=199,
                n_bootstrap=199)
    r = c.row("RR", "D")
    interval = f"{r.delta:+.4f} [{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
    d = c.differences("RR", "D")
    cell = f"{interval} d_z {d.mean() / d.std(ddof=1):+.2f}" + ("†" if r.significant else "")
    md = markdown(c)
    assert "query set all" not in md
    assert "Macro averages over 30 queries, the judged queries any run answered." in md
    assert f"| D | {c.row('P@5', 'D').delta:+.4f} [" in md and cell in md
    tex = latex(c)
    assert "query set all" not in tex
    tex_cell = (cell.replace("[", "{[}").replace("]", "{]}").replace("†", r"$^{\dagger}$")
                .replace("d_z", "$d_z$"))
    assert tex_cell in tex and tex.count(r"\begin{table}") == 2
    assert "95\\% paired bootstrap confidence intervals" in tex

    named = compare(qrels, {k: runs[k] for k in ("A", "D")}, "RR", queries=["q1", "q2", "q3"],
                    query_set="dev.txt", n_permutations=99, n_bootstrap=99)
    assert "Macro averages over 3 queries, the judged queries any run answered, of the " \
        "query set: dev.txt." in markdown(named)


def test_all_pairs_tables_have_a_row_per_pair_and_tukey_marks():
    qrels, runs = synthetic()
    c = compare(qrels, runs, "RR", test="ttest", all_pairs=True, n_bootstrap=99)
    md = markdown(c)
    for p in c.pairs:
        mark = ("†" if p.significant else "") + ("‡" if p.tukey_significant else "")
        k = c.runs.index
        d = c.values[k(p.run_b), 0] - c.values[k(p.run_a), 0]
        assert p.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert (
            f"| {p.run_b} − {p.run_a} | {p.delta:+.4f} [{p.ci_low:+.4f}, {p.ci_high:+.4f}] "
            f"d_z {p.effect_size:+.2f}{mark} |" in md
        )
    assert "Tukey's HSD over all 4 runs" in md
    tex = latex(c)
    assert r"D $-$ A & " in tex and r"\ddagger" in tex  # D beats A by Tukey's HSD too
    assert c.pair("RR", "A", "D").tukey_significant


# -- the CLI: NAME=PATH, --all-pairs in every format -------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    qrels, runs = synthetic()
    paths = {"qrels": tmp_path / "qrels"}
    paths["qrels"].write_text(
        "".join(f"{q} 0 {d} 1\n" for q, docs in qrels.items() for d in docs)
    )
    for name, run in runs.items():
        path = tmp_path / f"{name.lower()}.run"
        path.write_text(
            "".join(
                f"{q} Q0 {d} {i + 1} {100 - i} {name}\n"
                for q, ranking in run.items()
                for i, d in enumerate(ranking)
            )
        )
        paths[name] = path
    return {k: str(v) for k, v in paths.items()}


FAST = ["--permutations", "99", "--bootstrap", "99"]


def test_named_runs_are_shown_by_name(files, capsys):
    code, out, err = run_cli(
        capsys, "compare", files["qrels"], f"bm25={files['A']}", f"dense={files['D']}",
        "-m", "RR", "--format", "json", *FAST,
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["runs"] == ["bm25", "dense"] and data["baseline"] == "bm25"
    code, out, err = run_cli(
        capsys, "compare", files["qrels"], f"bm25={files['A']}", files["D"], "-m", "RR",
        "--baseline", "d.run", "--format", "markdown", *FAST,
    )
    assert code == 0, err
    assert "| d.run (baseline) |" in out and "| bm25 |" in out


def test_an_existing_file_with_an_equals_sign_is_a_path(files, tmp_path, capsys, monkeypatch):
    odd = tmp_path / "b=0.4.run"
    odd.write_text(Path(files["B"]).read_text())
    monkeypatch.chdir(tmp_path)
    assert split_named_run("b=0.4.run") == (None, "b=0.4.run")
    assert split_named_run("x=b=0.4.run") == ("x", "b=0.4.run")
    code, out, err = run_cli(
        capsys, "compare", files["qrels"], files["A"], "b=0.4.run", "x=b=0.4.run", "-m", "RR",
        "--format", "csv", *FAST,
    )
    assert code == 0, err
    runs = {row["run"] for row in csv.DictReader(io.StringIO(out))}
    assert runs == {"a.run", "b=0.4.run", "x"}


def test_duplicate_names_are_refused_naming_both(files, capsys):
    code, out, err = run_cli(
        capsys, "compare", files["qrels"], f"x={files['A']}", f"x={files['B']}", "-m", "RR",
        *FAST,
    )
    assert code == 2 and out == ""
    assert f"'x={files['A']}'" in err and f"'x={files['B']}'" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "compare", files["qrels"], files["A"], f"={files['B']}")
    assert code == 2 and "expected NAME=PATH" in err
    with pytest.raises(UsageError, match=r"two runs are named 'a\.run'"):
        named_runs([files["B"], f"a.run={files['C']}", files["A"]])


def test_gate_takes_names(files, capsys):
    code, out, err = run_cli(
        capsys, "gate", files["qrels"], f"old={files['D']}", f"new={files['A']}", "-m", "RR",
        "--format", "json",
    )
    assert code == 1, err  # A is far worse than D
    data = json.loads(out)
    assert (data["baseline"], data["candidate"]) == ("old", "new")
    assert data["inputs"]["baseline"]["path"] == files["D"]  # the path part is what is read


def test_an_output_onto_a_named_input_is_refused(files, capsys):
    code, _, err = run_cli(
        capsys, "compare", files["qrels"], f"a={files['A']}", f"d={files['D']}", "-o",
        files["D"], *FAST,
    )
    assert code == 2 and files["D"] in err and "Traceback" not in err
    assert Path(files["D"]).read_text().startswith("q0 Q0")


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "markdown", "latex"])
def test_all_pairs_in_every_format(files, capsys, fmt):
    code, out, err = run_cli(
        capsys, "compare", files["qrels"], *(f"{n}={files[n]}" for n in RUNS), "-m", "RR",
        "--all-pairs", "--test", "ttest", "--format", fmt, "--bootstrap", "99",
    )
    assert code == 0, err
    qrels, runs = synthetic()
    values = {name: hand_values(qrels, run)["RR"] for name, run in runs.items()}
    ref = scipy_stats.tukey_hsd(*(values[n] for n in RUNS))
    p_cd = float(ref.pvalue[3, 2])
    if fmt == "json":
        pair = next(p for p in json.loads(out)["pairs"] if (p["run_a"], p["run_b"]) == ("C", "D"))
        assert pair["tukey_p"] == pytest.approx(p_cd, rel=1e-9)
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert len(rows) == 6
        row = next(r for r in rows if (r["run_a"], r["run_b"]) == ("C", "D"))
        assert float(row["tukey_p"]) == pytest.approx(p_cd, rel=1e-9)
    elif fmt == "table":
        assert "Tukey" in out and f"{p_cd:.4f}" in out
    else:
        assert ("D − C" if fmt == "markdown" else "D $-$ C") in out
        if fmt == "markdown":
            assert f"{p_cd:.4f}" in out


def test_a_name_whose_file_does_not_exist_says_both_readings(files, tmp_path, capsys):
    missing = str(tmp_path / "nope.run")
    code, out, err = run_cli(capsys, "compare", files["qrels"], files["A"], f"b={missing}")
    assert code == 2 and out == ""
    assert f"'b={missing}': no such file" in err and f"no such file '{missing}' either" in err


def test_report_shows_named_runs(files, tmp_path, capsys):
    page = tmp_path / "report.html"
    code, _, err = run_cli(
        capsys, "report", files["qrels"], f"bm25-baseline={files['A']}", f"dense={files['D']}",
        "-m", "RR", "--no-figures", "--baseline", "dense", "-o", str(page),
    )
    assert code == 0, err
    text = page.read_text()
    assert ">bm25-baseline<" in text and ">dense<" in text
    assert ">a.run<" not in text  # the file's name appears only as its path
