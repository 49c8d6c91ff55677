"""``prfeval trec_eval``: golden outputs made from pytrec_eval's values, printed as trec_eval
prints them, compared byte for byte; its argument syntax; trec_eval 10.0's differences.

The expected text is built here from the specification of trec_eval's output (the row order
of its measure table, ``%-22s\\t%s\\t%6.4f``, ``%ld`` for counts, ``-nan``, runid in the
summary and relstring per query), from pytrec_eval's per-query values and from counts done
by hand (relstring, -c's num_rel). Nothing is taken from prfeval's own output.
"""

# The expected text is written with trec_eval's own printf formats ("%-22s\t%s\t%6.4f").
# ruff: noqa: UP031

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("pytrec_eval")

from prfeval.cli import main
from support.hand_made import qrels_lines, run_lines, write_lines
from support.random_data import trec_edge_case
from support.trec_cases import pytrec, trec_order

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
LEVELS = tuple(i / 10 for i in range(11))
MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
#: trec_eval's -m all_trec rows, in the order it prints them (its measure table).
ALL_TREC_ROWS = (
    ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref"]
    + ["recip_rank"]
    + [f"iprec_at_recall_{r:.2f}" for r in LEVELS]
    + [f"P_{k}" for k in CUTS]
    + ["relstring"]
    + [f"recall_{k}" for k in CUTS]
    + ["infAP", "gm_bpref"]
    + [f"Rprec_mult_{m:.2f}" for m in MULTS]
    + ["utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg"]
    + [f"ndcg_cut_{k}" for k in CUTS]
    + [f"map_cut_{k}" for k in CUTS]
    + [f"relative_P_{k}" for k in CUTS]
    + ["success_1", "success_5", "success_10"]
    + ["set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"]
)
OFFICIAL_ROWS = ALL_TREC_ROWS[: ALL_TREC_ROWS.index("relstring")]
SUMMARY_ONLY = {"runid", "num_q", "gm_map", "gm_bpref"}
COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
PYTREC_MEASURES = {
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret",
}
LAST_TAG = "lastRun"


def write_files(tmp_path: Path, qrels: dict, run: dict) -> tuple:
    """The dicts as TREC files. The run is grouped by query in an order that is not trec_eval's
    (it sorts), every line carries text after the sixth field on one query in three (as
    trec_eval's results.trunc does), and only the last line has the tag LAST_TAG."""
    # No '#' comment lines: trec_eval reads them as judgments
    # (tests/trec_eval/test_trec_eval_dialect.py).
    qrels_path = write_lines(tmp_path / "qrels.txt", qrels_lines(qrels))
    r_lines = []
    for i, q in enumerate(reversed(list(run))):
        r_lines += run_lines([(q, run[q].items())], "tag 0.5 x y" if i % 3 == 0 else "tag")
    r_lines[-1] = r_lines[-1].replace(" tag", f" {LAST_TAG}", 1)
    run_path = write_lines(tmp_path / "run.txt", r_lines)
    return str(qrels_path), str(run_path)


def relstring(qrels_q: dict, ranked: list[str], judged_only: bool, n: int = 10) -> str:
    """trec_eval's relstring, counted by hand from the ranking."""
    chars = []
    for d in ranked:
        if d not in qrels_q:
            if judged_only:
                continue
            chars.append("-")
        elif qrels_q[d] < 0:
            if judged_only:
                continue
            chars.append(".")
        else:
            chars.append(">" if qrels_q[d] > 9 else str(qrels_q[d]))
    return "".join(chars[:n])


def fmt(value: float, integer: bool) -> str:
    if integer:
        return "%d" % int(value)
    return "%6s" % "-nan" if math.isnan(value) else "%6.4f" % value


def expected_output(
    qrels: dict,
    run: dict,
    rows: list[str] | tuple[str, ...] = ALL_TREC_ROWS,
    *,
    per_query: bool = False,
    complete: bool = False,
    level: int = 1,
    judged_only: bool = False,
    max_results: int | None = None,
) -> str:
    """trec_eval's output for the dicts, from pytrec_eval's per-query values."""
    cut = run
    if max_results is not None:
        cut = {q: {d: s[d] for d in trec_order(s)[:max_results]} for q, s in run.items()}
    values = pytrec(qrels, cut, PYTREC_MEASURES, level, judged_only)
    queries = sorted(values, key=lambda q: q.encode())
    n = len(qrels) if complete else len(queries)
    out = []
    if per_query:
        for q in queries:
            for row in rows:
                if row in SUMMARY_ONLY:
                    continue
                if row == "relstring":
                    text = relstring(qrels[q], trec_order(cut[q]), judged_only)
                    out.append("%-22s\t%s\t'%s'\n" % (row, q, text))
                    continue
                out.append("%-22s\t%s\t%s\n" % (row, q, fmt(values[q][row], row in COUNTS)))
    for row in rows:
        if row == "relstring":
            continue
        if row == "runid":
            out.append("%-22s\t%s\t%s\n" % (row, "all", LAST_TAG))
            continue
        per = [values[q][row] for q in queries]  # in trec_eval's order: it adds in that order
        if row == "num_q":
            value = n
        elif row == "num_rel" and complete:
            value = sum(g > 0 for docs in qrels.values() for g in docs.values())
        elif row in COUNTS:
            value = sum(per)
        elif row.startswith("gm_"):  # pytrec_eval's values are logs; missing queries: floor
            value = math.exp((sum(per) + (n - len(per)) * math.log(0.00001)) / n)
        else:
            value = sum(per) / n
        out.append("%-22s\t%s\t%s\n" % (row, "all", fmt(value, row in COUNTS)))
    return "".join(out)


def run_trec_eval(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(["trec_eval", *args])
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


def long_case(seed: int) -> tuple[dict, dict]:
    """Rankings of up to 250 documents, so that -M 100 cuts some of them."""
    qrels, run = trec_edge_case(seed, n_queries=12)
    for i, q in enumerate(list(run)):
        extra = {f"z{j:03d}": float(j % 7) / 3 for j in range(40 * (i % 6))}
        run[q] = {**run[q], **extra}
        if q in qrels:
            qrels[q].update({f"z{j:03d}": j % 3 for j in range(0, 40 * (i % 6), 5)})
    return qrels, run


# -- golden outputs ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    ("args", "options"),
    [
        (["-m", "all_trec"], {}),
        (["-q", "-m", "all_trec"], {"per_query": True}),
        (["-c", "-q", "-m", "all_trec"], {"per_query": True, "complete": True}),
        (["-l", "2", "-q", "-m", "all_trec"], {"per_query": True, "level": 2}),
        (["-l3", "-c", "-m", "all_trec"], {"level": 3, "complete": True}),
        (["-J", "-q", "-m", "all_trec"], {"per_query": True, "judged_only": True}),
        (["-qJl2", "-m", "all_trec"], {"per_query": True, "judged_only": True, "level": 2}),
        ([], {"rows": OFFICIAL_ROWS}),
        (["-q"], {"rows": OFFICIAL_ROWS, "per_query": True}),
    ],
    ids=["all_trec", "q", "c", "l2", "l3c", "J", "qJl2", "official", "official-q"],
)
def test_golden_output(tmp_path, capsys, seed: int, args: list[str], options: dict) -> None:
    qrels, run = trec_edge_case(400 + seed)
    files = write_files(tmp_path, qrels, run)
    code, out, err = run_trec_eval(capsys, *args, *files)
    assert (code, err) == (0, "")
    assert out == expected_output(qrels, run, **options)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("flag", [["-M", "100"], ["-M100"], ["-M5"]])
def test_golden_output_max_results(tmp_path, capsys, seed: int, flag: list[str]) -> None:
    qrels, run = long_case(500 + seed)
    depth = int("".join(flag)[2:])
    assert any(len(docs) > depth for docs in run.values())
    files = write_files(tmp_path, qrels, run)
    code, out, err = run_trec_eval(capsys, "-q", *flag, "-m", "all_trec", *files)
    assert (code, err) == (0, "")
    assert out == expected_output(qrels, run, per_query=True, max_results=depth)


def test_golden_output_streamed(tmp_path, capsys) -> None:
    """A run read in blocks (large runs are) prints the same bytes, runid included."""
    from prfeval._trec_eval import driver as trec_eval_cmd

    qrels, run = trec_edge_case(9)
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    Path(run_path).write_text(  # the plain layout streams: no text after the sixth field
        "".join(
            line.split(" 0.5 x y")[0] + ("\n" if " 0.5 x y" in line else "")
            for line in Path(run_path).read_text().splitlines(keepends=True)
        )
    )
    original = trec_eval_cmd.evaluate

    def streamed(*a, **k):
        return original(*a, stream=True, **k)

    trec_eval_cmd.evaluate = streamed
    try:
        code, out, err = run_trec_eval(capsys, "-q", "-m", "all_trec", qrels_path, run_path)
    finally:
        trec_eval_cmd.evaluate = original
    assert (code, err) == (0, "")
    assert out == expected_output(qrels, run, per_query=True)


def test_nan_where_trec_eval_prints_it(tmp_path, capsys) -> None:
    """-J can empty a ranking: IPrec@0 and 11pt_avg are 0/0, and so is their average."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    run = {"1": {"x": 1.0, "y": 2.0}, "2": {"c": 1.0, "b": 0.5}}
    files = write_files(tmp_path, qrels, run)
    code, out, _ = run_trec_eval(capsys, "-q", "-J", "-m", "all_trec", *files)
    assert code == 0
    assert "iprec_at_recall_0.00  \t1\t  -nan\n" in out
    assert "11pt_avg              \tall\t  -nan\n" in out
    assert out == expected_output(qrels, run, per_query=True, judged_only=True)


def test_exact_half_digits_are_trec_evals(tmp_path, capsys) -> None:
    """set_F with 7 of 9 relevant documents among 55 retrieved is 7/32 = 0.21875 exactly in
    the count form 2TP / (2TP + FN + FP), which prints 0.2188; trec_eval computes
    (x + 1) P R / (x P + R) = 0.21874999999999994 and prints 0.2187. So must prfeval."""
    qrels = {"1": {f"r{i}": 1 for i in range(9)}}
    run = {"1": {**{f"r{i}": 100.0 - i for i in range(7)}, **{f"n{i}": -i for i in range(48)}}}
    files = write_files(tmp_path, qrels, run)
    _, out, _ = run_trec_eval(capsys, "-m", "set_F", *files)
    want = pytrec(qrels, run, {"set_F"})["1"]["set_F"]
    assert "%6.4f" % want == "0.2187"
    assert out == "set_F                 \tall\t0.2187\n"


# -- arguments --------------------------------------------------------------------------------


def test_measures_with_parameters_and_printed_names(tmp_path, capsys) -> None:
    qrels, run = trec_edge_case(11)
    files = write_files(tmp_path, qrels, run)
    code, out, _ = run_trec_eval(
        capsys,
        "-m", "P.20,5", "-m", "ndcg_cut.7", "-m", "iprec_at_recall.0.125,0.5",
        "-m", "set_F.0.5", "-m", "relstring.20", "-m", "utility.2,-1,0,0", "-m", "map",
        "-m", "ndcg.1=3,2=9,4=4.5", "-m", "11pt_avg.0.25,0.5", "-m", "success.2", "-q",
        *files,
    )
    assert code == 0
    names = list(dict.fromkeys(line.split("\t")[0].strip() for line in out.splitlines()))
    assert names == [
        "map", "iprec_at_recall_0.12", "iprec_at_recall_0.50", "P_5", "P_20",
        "relstring_20", "utility_2,-1,0,0", "11pt_avg_0.25,0.5", "ndcg_1=3,2=9,4=4.5",
        "ndcg_cut_7", "success_2", "set_F_0.5",
    ]
    measures = {
        "map", "P.20,5", "ndcg_cut.7", "iprec_at_recall.0.125,0.5", "set_F.0.5",
        "utility.2,-1,0,0", "success.2", "11pt_avg.0.25,0.5", "ndcg.1=3,2=9,4=4.5",
    }
    values = pytrec(qrels, run, measures)
    seen = {(p[0].strip(), p[1]): p[2] for p in (line.split("\t") for line in out.splitlines())}
    for q, v in values.items():
        assert seen[("utility_2,-1,0,0", q)] == "%6.4f" % v["utility"]
        assert seen[("ndcg_1=3,2=9,4=4.5", q)] == "%6.4f" % v["ndcg"]
        assert seen[("11pt_avg_0.25,0.5", q)] == "%6.4f" % v["11pt_avg"]
        assert seen[("set_F_0.5", q)] == "%6.4f" % v["set_F"]
        assert seen[("iprec_at_recall_0.12", q)] == "%6.4f" % v["iprec_at_recall_0.12"]
        assert seen[("P_20", q)] == "%6.4f" % v["P_20"]
        assert seen[("success_2", q)] == "%6.4f" % v["success_2"]
        want = relstring(qrels[q], trec_order(run[q]), False, 20)
        assert seen[("relstring_20", q)] == f"'{want}'"


def test_the_first_parameters_of_a_measure_win(tmp_path, capsys) -> None:
    """As trec_eval: -m P.5 -m P.10 is P_5 only, and -m P -m P.5 is P_5 only."""
    qrels, run = trec_edge_case(12)
    files = write_files(tmp_path, qrels, run)
    for args in (["-m", "P.5", "-m", "P.10"], ["-m", "P", "-m", "P.5"], ["-mP.5", "-mP"]):
        _, out, _ = run_trec_eval(capsys, *args, *files)
        assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["P_5"], args


def test_long_options_and_options_after_the_files(tmp_path, capsys) -> None:
    qrels, run = trec_edge_case(13)
    files = write_files(tmp_path, qrels, run)
    _, short, _ = run_trec_eval(capsys, "-q", "-l", "2", "-m", "map", *files)
    _, long, _ = run_trec_eval(
        capsys, *files, "--query_eval_wanted", "--level_for_rel=2", "--meas", "map"
    )
    assert short == long and "map" in short


def test_nosummary(tmp_path, capsys) -> None:
    qrels, run = trec_edge_case(14)
    files = write_files(tmp_path, qrels, run)
    _, out, _ = run_trec_eval(capsys, "-q", "-n", "-m", "map", *files)
    assert out and "\tall\t" not in out


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["-x"], 1, "invalid option -- 'x'"),
        (["-m"], 1, "requires an argument"),
        (["--nope"], 1, "unrecognized option"),
        (["-m", "P."], 1, "improper measure"),
        (["-m", "mapp"], 1, "trec_eval: illegal measure 'mapp'; did you mean map"),
        # 9.0.8's words and status: preference measures read no ordinary qrels.
        (["-m", "prefs"], 4, "Can't calculate measure 'prefs_num_prefs_poss'"),
        (["-R", "no_such_format"], 1, "rel_format"),
        (["--trec-eval-version", "11"], 1, "9 or 10"),
    ],
)
def test_bad_arguments(tmp_path, capsys, args, code, message) -> None:
    qrels, run = trec_edge_case(15)
    files = write_files(tmp_path, qrels, run)
    got, out, err = run_trec_eval(capsys, *files, *args)  # options may follow the files
    assert got == code and out == "" and message in err


def test_wrong_number_of_files_prints_the_usage(capsys) -> None:
    code, out, err = run_trec_eval(capsys, "-q", "only-one-file")
    assert code == 1 and out == "" and err.startswith("Usage: prfeval trec_eval")


def test_no_query_in_common(tmp_path, capsys) -> None:
    files = write_files(tmp_path, {"1": {"a": 1}}, {"2": {"a": 1.0}})
    code, out, err = run_trec_eval(capsys, *files)
    assert code == 7 and out == "" and "No queries with both" in err


def test_a_repeated_document_is_an_error_within_the_top_m(tmp_path, capsys) -> None:
    qrels_path = tmp_path / "q.txt"
    qrels_path.write_text("1 0 a 1\n")
    run_path = tmp_path / "r.txt"
    run_path.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n")
    code, _, err = run_trec_eval(capsys, str(qrels_path), str(run_path))
    # trec_eval 9.0.8's status and words (its first line has no newline).
    assert (code, err) == (
        4,
        "trec_eval.form_res_qrels: duplicate docs a"
        "trec_eval: Can't calculate measure 'num_ret'\n",
    )
    code, out, _ = run_trec_eval(capsys, "-M2", "-m", "num_ret", str(qrels_path), str(run_path))
    assert code == 0 and out == "num_ret               \tall\t2\n"  # beyond -M: not checked


def test_help(capsys) -> None:
    code, out, _ = run_trec_eval(capsys, "-h")
    assert code == 0 and "--trec-eval-version" in out


# -- trec_eval 10.0 ---------------------------------------------------------------------------


def test_version_10_rounds_recall_levels(tmp_path, capsys) -> None:
    """10.0's changelog: the relevant documents for level r are lround(r R), not
    (long) (r R + 0.9). With R = 3 and relevant documents at ranks 1, 3 and 10 (precision 1,
    2/3 and 3/10 there), 9.0.8 needs 0,1,1,1,2,2,2,2,3,3,3 relevant documents for the levels
    0, 0.1, ..., 1 (0.7 * 3 + 0.9 truncates to 2) and 10.0 needs 0,0,1,1,1,2,2,2,2,3,3."""
    qrels = {"1": {"r1": 1, "r2": 1, "r3": 1}}
    order = ["r1", "n1", "r2", "n2", "n3", "n4", "n5", "n6", "n7", "r3"]
    run = {"1": {d: float(10 - i) for i, d in enumerate(order)}}
    files = write_files(tmp_path, qrels, run)
    best = {0: 1.0, 1: 1.0, 2: 2 / 3, 3: 0.3}
    for version, need in (
        ("9", [0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]),
        ("10", [0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3]),
    ):
        _, out, _ = run_trec_eval(
            capsys, "--trec-eval-version", version, "-m", "iprec_at_recall", "-m", "11pt_avg",
            *files,
        )
        want = [best[c] for c in need]
        lines = [
            "%-22s\tall\t%6.4f\n" % (f"iprec_at_recall_{r:.2f}", v)
            for r, v in zip(LEVELS, want, strict=True)
        ]
        lines.append("%-22s\tall\t%6.4f\n" % ("11pt_avg", sum(want) / 11))
        assert out == "".join(lines), version
    # 9.0.8's values are pytrec_eval's.
    assert pytrec(qrels, run, {"11pt_avg"})["1"]["11pt_avg"] == pytest.approx(
        sum(best[c] for c in [0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]) / 11, abs=1e-12
    )


def test_version_10_complete_prints_the_judged_queries_without_results(tmp_path, capsys) -> None:
    """10.0's changelog: with -c, a judged query without results is evaluated as a ranking of
    one placeholder document that is not judged: it gets rows, every value 0 but num_rel
    (its relevant documents) and gm_map (the floor); 9.0.8 prints no row for it."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 2, "e": 0}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    files = write_files(tmp_path, qrels, run)
    _, v9, _ = run_trec_eval(capsys, "-c", "-q", "-m", "map", "-m", "num_rel", *files)
    _, v10, _ = run_trec_eval(
        capsys, "--trec-eval-version=10", "-c", "-q", "-m", "map", "-m", "num_rel",
        "-m", "relstring", "-m", "gm_map", *files,
    )
    assert v9 == (
        "num_rel               \t1\t1\n"
        "map                   \t1\t1.0000\n"
        "num_rel               \tall\t3\n"
        "map                   \tall\t0.5000\n"
    )
    assert v10 == (
        "num_rel               \t1\t1\n"
        "map                   \t1\t1.0000\n"
        "relstring             \t1\t'10'\n"
        "num_rel               \t2\t2\n"
        "map                   \t2\t0.0000\n"
        "relstring             \t2\t''\n"
        "num_rel               \tall\t3\n"
        "map                   \tall\t0.5000\n"
        "gm_map                \tall\t%6.4f\n" % math.exp((0 + math.log(0.00001)) / 2)
    )


def test_version_10_keeps_doubles(tmp_path, capsys) -> None:
    qrels = {"1": {"d1": 1}}
    run = {"1": {"d1": 1.00000001, "d2": 1.0}}
    files = write_files(tmp_path, qrels, run)
    _, v9, _ = run_trec_eval(capsys, "-m", "recip_rank", *files)
    _, v10, _ = run_trec_eval(capsys, "--trec-eval-version", "10", "-m", "recip_rank", *files)
    assert v9 == "recip_rank            \tall\t0.5000\n"
    assert v10 == "recip_rank            \tall\t1.0000\n"


# -- evaluate --format trec -------------------------------------------------------------------


def test_evaluate_prints_trec_evals_names_with_cutoffs_sorted(tmp_path, capsys) -> None:
    qrels, run = trec_edge_case(16)
    files = write_files(tmp_path, qrels, run)
    with pytest.raises(SystemExit):
        main(["evaluate", *files, "-m", "P.10 map P.5 ndcg_cut.20,10", "--format", "trec"])
    out = capsys.readouterr().out
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names == ["P_5", "P_10", "map", "ndcg_cut_10", "ndcg_cut_20"]


def test_evaluate_takes_the_trec_eval_version_too(tmp_path, capsys) -> None:
    files = write_files(tmp_path, {"1": {"d1": 1}}, {"1": {"d1": 1.00000001, "d2": 1.0}})
    for version, want in (("9", "0.5000"), ("10", "1.0000")):
        with pytest.raises(SystemExit):
            main(["evaluate", *files, "-m", "RR", "--format", "trec", "--trec-eval-version",
                  version])
        assert capsys.readouterr().out == f"RR                    \tall\t{want}\n"


# -- the rows, laid out as arrays ---------------------------------------------------------------


def test_numbers_laid_out_at_once_are_printfs() -> None:
    """The -q rows are printed from arrays (rint of ten-thousandths): every value as C's
    printf prints it (Python's % formatting rounds the same, exactly), at halves, beside
    them, past 2^52 ten-thousandths, for -0.0, NaN and infinities."""
    import numpy as np

    from prfeval._trec_eval.printing import trec_numbers

    rng = np.random.default_rng(908)
    k = rng.integers(-(10**9), 10**9, 20_000)
    halves = (k + 0.5) / 10000.0
    values = np.concatenate(
        [
            rng.random(20_000),
            rng.normal(0.0, 1e3, 5_000),
            halves,
            np.nextafter(halves, np.inf),
            np.nextafter(halves, -np.inf),
            k / 10000.0,
            rng.random(1_000) * 1e15,
            rng.random(100) * 1e300,
            [0.0, -0.0, math.nan, math.inf, -math.inf, 0.21875, 0.99995, -0.00005, 5e-324],
            [4.503599627370496e11, 1e16, -1e16, 2.0**62],
        ]
    )
    want = ["%6s" % "-nan" if math.isnan(v) else "%6.4f" % v for v in values.tolist()]
    assert trec_numbers(values) == want
    counts = np.concatenate([rng.integers(-(10**12), 10**12, 2_000), [0, 2**61]]).astype(float)
    assert trec_numbers(counts, integer=True) == ["%d" % int(v) for v in counts.tolist()]


def test_rows_written_in_blocks(tmp_path, capsys, monkeypatch) -> None:
    """A few queries per block of rows (many queries are written so) prints the same."""
    from prfeval._trec_eval import printing as report

    monkeypatch.setattr(report, "BLOCK_ROWS", 150)  # under two queries of all_trec rows
    qrels, run = trec_edge_case(410)
    files = write_files(tmp_path, qrels, run)
    code, out, err = run_trec_eval(capsys, "-q", "-m", "all_trec", *files)
    assert (code, err) == (0, "")
    assert out == expected_output(qrels, run, per_query=True)


def test_ids_with_a_nul_byte_are_printed_too() -> None:
    """NUL pads the laid-out rows; ids holding one (from the API) take the row-by-row way."""
    from prfeval import evaluate
    from prfeval._trec_eval.measure_selection import measure_entries
    from prfeval._trec_eval.printing import format_trec_eval
    from prfeval._trec_eval.summary import TrecPrinting

    entries = measure_entries([("num_ret", None), ("map", None), ("relstring", None)])
    e = evaluate(
        {"a\0b": {"d": 1}, "c": {"d": 0}},
        {"a\0b": {"d": 1.0}, "c": {"d": 1.0, "e": 0.5}},
        [m for m, _ in entries],
    )
    assert format_trec_eval(e, entries, TrecPrinting(per_query=True)) == (
        "num_ret               \ta\0b\t1\n"
        "map                   \ta\0b\t1.0000\n"
        "relstring             \ta\0b\t'1'\n"
        "num_ret               \tc\t2\n"
        "map                   \tc\t0.0000\n"
        "relstring             \tc\t'0-'\n"
        "num_ret               \tall\t3\n"
        "map                   \tall\t0.5000\n"
    )
