"""``prfeval trec_eval`` stops where trec_eval 9.0.8 stops: the same exit status, the same
stderr, and with ``-q`` the same rows printed before it stopped.

Every expected status, stdout and stderr here was printed by trec_eval 9.0.8 itself (built
from its source, ``make``; it calls itself 9.0.7 with ``-v``) on the files of the test, and
pasted in. Where prfeval's words differ on purpose (a hint after an unknown measure, a
malformed line named by prfeval), only the status and trec_eval's words are checked.

With ``TREC_EVAL=/path/to/trec_eval`` (or ``trec_eval`` on the PATH), seeded random cases are
also run through the binary and compared byte for byte; without one that test is skipped.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from prfeval.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n10 0 a 1\n10 0 d 1\n2 0 x 1\n2 0 y 0\n9 0 z 1\n"
#: Results with no repeat; queries in byte order: 1, 10, 2, 9.
RUN = (
    "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n10 Q0 d 1 3 t\n10 Q0 a 2 2 t\n"
    "2 Q0 x 1 2 t\n2 Q0 y 2 1 t\n9 Q0 z 1 2 t\n"
)
#: Doc d repeated for query 10 (ranks 1 and 3), doc z for query 9 (ranks 1 and 2).
RUN_REPEATS = (
    "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n10 Q0 d 1 3 t\n10 Q0 a 2 2 t\n10 Q0 d 3 1 t\n"
    "2 Q0 x 1 2 t\n2 Q0 y 2 1 t\n9 Q0 z 1 2 t\n9 Q0 z 2 1 t\n"
)
#: x and y judged twice for query 2; q judged twice for query 7, which has no results.
QRELS_REPEATS = (
    "1 0 a 1\n1 0 b 0\n1 0 c 1\n10 0 a 1\n10 0 d 1\n2 0 x 1\n2 0 y 0\n2 0 y 1\n2 0 x 0\n"
    "9 0 z 1\n7 0 q 1\n7 0 q 1\n"
)


def row(name: str, qid: str, value: str) -> str:
    return f"{name:<22}\t{qid}\t{value}\n"


@pytest.fixture
def files(tmp_path: Path):
    def write(**texts: str) -> dict[str, str]:
        out = {}
        for name, text in texts.items():
            path = tmp_path / name
            path.write_text(text, encoding="utf-8")
            out[name] = str(path)
        return out

    return write


def trec_eval(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(["trec_eval", *args])
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


# -- a repeated document or judgment: status 4 ---------------------------------------------------


def test_a_repeated_document(files, capsys) -> None:
    f = files(qrels=QRELS, run=RUN_REPEATS)
    assert trec_eval(capsys, "-m", "map", "-m", "P.5", f["qrels"], f["run"]) == (
        4,
        "",
        # trec_eval's first line has no newline.
        "trec_eval.form_res_qrels: duplicate docs dtrec_eval: Can't calculate measure 'map'\n",
    )


def test_with_q_the_queries_before_the_repeat_are_printed(files, capsys) -> None:
    """Query 1 comes before 10 in byte order; 10 stops it (9 too would, but comes later)."""
    f = files(qrels=QRELS, run=RUN_REPEATS)
    assert trec_eval(capsys, "-q", "-m", "map", "-m", "P.5", f["qrels"], f["run"]) == (
        4,
        row("map", "1", "0.8333") + row("P_5", "1", "0.4000"),
        "trec_eval.form_res_qrels: duplicate docs dtrec_eval: Can't calculate measure 'map'\n",
    )


def test_a_repeat_past_m_is_not_looked_at(files, capsys) -> None:
    """-M 2 cuts query 10's second d; query 9's z is twice in its top 2 and stops it."""
    f = files(qrels=QRELS, run=RUN_REPEATS)
    assert trec_eval(capsys, "-q", "-M", "2", "-m", "num_ret", f["qrels"], f["run"]) == (
        4,
        row("num_ret", "1", "2") + row("num_ret", "10", "2") + row("num_ret", "2", "2"),
        "trec_eval.form_res_qrels: duplicate docs ztrec_eval: Can't calculate measure "
        "'num_ret'\n",
    )


def test_an_unjudged_repeat_counts_before_j(files, capsys) -> None:
    f = files(qrels="1 0 a 1\n", run="1 Q0 z 1 3 t\n1 Q0 b 2 2 t\n1 Q0 z 3 2.5 t\n")
    assert trec_eval(capsys, "-M2", "-J", "-m", "num_ret", f["qrels"], f["run"]) == (
        4,
        "",
        "trec_eval.form_res_qrels: duplicate docs ztrec_eval: Can't calculate measure "
        "'num_ret'\n",
    )


def test_a_repeated_judgment(files, capsys) -> None:
    """Query 2 has x and y judged twice: the first in byte order is named."""
    f = files(qrels=QRELS_REPEATS, run=RUN)
    assert trec_eval(capsys, "-q", "-m", "map", "-m", "P.5", f["qrels"], f["run"]) == (
        4,
        row("map", "1", "0.8333")
        + row("P_5", "1", "0.4000")
        + row("map", "10", "1.0000")
        + row("P_5", "10", "0.4000"),
        "trec_eval.form_res_rels: duplicate docs x\ntrec_eval: Can't calculate measure 'map'\n",
    )


def test_a_repeated_judgment_of_a_query_without_results_counts_twice_with_c(
    files, capsys
) -> None:
    """trec_eval never joins query 7's judgments with results; -c's num_rel counts every
    line with a grade above 0, its repeat too."""
    f = files(qrels="1 0 a 1\n2 0 x 1\n7 0 q 1\n7 0 q 2\n", run=RUN)
    code, out, err = trec_eval(
        capsys, "-c", "-q", "-m", "num_rel", "-m", "num_q", "-m", "map", f["qrels"], f["run"]
    )
    assert (code, err) == (0, "")
    assert out == (
        row("num_rel", "1", "1")
        + row("map", "1", "1.0000")
        + row("num_rel", "2", "1")
        + row("map", "2", "1.0000")
        + row("num_q", "all", "3")
        + row("num_rel", "all", "4")
        + row("map", "all", "0.6667")
    )


def test_runid_and_num_q_never_stop(files, capsys) -> None:
    f = files(qrels=QRELS, run=RUN_REPEATS)
    assert trec_eval(capsys, "-q", "-m", "runid", "-m", "num_q", f["qrels"], f["run"]) == (
        0,
        row("runid", "all", "t") + row("num_q", "all", "4"),
        "",
    )


def test_relstring_stops_too(files, capsys) -> None:
    f = files(qrels=QRELS, run=RUN_REPEATS)
    code, out, err = trec_eval(capsys, "-q", "-m", "relstring", "-m", "num_q", *f.values())
    assert (code, out) == (4, row("relstring", "1", "'101'"))
    assert err.endswith("trec_eval: Can't calculate measure 'relstring'\n")


def test_a_repeat_in_standard_input(files, capsys, monkeypatch) -> None:
    """'-' (prfeval's, not trec_eval's) stops the same: the run is read once."""
    f = files(qrels=QRELS)
    monkeypatch.setattr(sys, "stdin", _Stdin(RUN_REPEATS.encode()))
    assert trec_eval(capsys, "-q", "-m", "map", "-m", "P.5", f["qrels"], "-") == (
        4,
        row("map", "1", "0.8333") + row("P_5", "1", "0.4000"),
        "trec_eval.form_res_qrels: duplicate docs dtrec_eval: Can't calculate measure 'map'\n",
    )


class _Stdin:
    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)


# -- a first query judged only with negative grades: status 4 -----------------------------------


def test_a_first_query_judged_only_negative_stops(files, capsys) -> None:
    """trec_eval finds no room for the counts of the first query's grades when they are all
    negative; at a later such query it has room (the earlier query's) and goes on."""
    run = "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 x 1 2 t\n"
    first = files(qrels="1 0 a -1\n1 0 b -2\n2 0 x 1\n", run=run)
    assert trec_eval(capsys, "-q", "-m", "num_ret", "-m", "map", *first.values()) == (
        4,
        "",
        "trec_eval: Can't calculate measure 'num_ret'\n",
    )
    later = files(qrels="1 0 a 1\n2 0 x -1\n", run=run)
    assert trec_eval(capsys, "-q", "-m", "num_ret", "-m", "map", *later.values()) == (
        0,
        row("num_ret", "1", "2")
        + row("map", "1", "1.0000")
        + row("num_ret", "2", "1")
        + row("map", "2", "0.0000")
        + row("num_ret", "all", "3")
        + row("map", "all", "0.5000"),
        "",
    )
    # -D makes query 2 the first evaluated.
    assert trec_eval(capsys, "-D", "0.2", "-m", "map", *later.values()) == (
        4,
        "",
        "trec_eval: Can't calculate measure 'map'\n",
    )


# -- measures: status 1 or 2 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "status", "start"),
    [
        (["-m", "mapp"], 1, "trec_eval: illegal measure 'mapp'"),
        (["-m", "official", "-m", "P_5"], 1, "trec_eval: illegal measure 'P_5'"),  # printed name
        # atol reads 0, which trec_eval refuses in its words (two lines)
        (["-m", "P.abc"], 2, "trec_eval: Negative cutoff detected\n"),
    ],
)
def test_measures(files, capsys, args, status, start) -> None:
    f = files(qrels=QRELS, run=RUN)
    code, out, err = trec_eval(capsys, *args, *f.values())
    lines = 2 if "Negative cutoff" in start else 1
    assert (code, out) == (status, "") and err.startswith(start) and err.count("\n") == lines


def test_an_unknown_measure_stops_before_the_files_are_counted(capsys) -> None:
    """trec_eval marks measures while it reads its options: 'trec_eval -m mapp' says so."""
    code, out, err = trec_eval(capsys, "-m", "mapp")
    assert (code, out) == (1, "") and err.startswith("trec_eval: illegal measure 'mapp'")


# -- inputs: status 2 and 7 ---------------------------------------------------------------------


def test_an_empty_run_or_judgments_file(files, capsys) -> None:
    f = files(qrels=QRELS, run=RUN, empty="")
    assert trec_eval(capsys, f["qrels"], f["empty"]) == (
        2,
        "",
        f"trec_eval.get_results: Cannot read results file '{f['empty']}'\n"
        f"trec_eval: Quit in file '{f['empty']}'\n",
    )
    assert trec_eval(capsys, f["empty"], f["run"]) == (
        2,
        "",
        f"trec_eval.get_qrels: Cannot read qrels file '{f['empty']}'\n"
        f"trec_eval: Quit in file '{f['empty']}'\n",
    )


def test_a_run_of_blank_lines_has_no_query(files, capsys) -> None:
    f = files(qrels=QRELS, run="\n\n")
    assert trec_eval(capsys, *f.values()) == (
        7,
        "",
        "trec_eval: No queries with both results and relevance info\n",
    )


# -- -D level.qid: one query --------------------------------------------------------------------


def test_d_evaluates_one_query(files, capsys) -> None:
    f = files(qrels=QRELS, run=RUN)
    assert trec_eval(capsys, "-q", "-D", "0.2", "-m", "map", "-m", "num_q", *f.values()) == (
        0,
        row("map", "2", "1.0000") + row("num_q", "all", "1") + row("map", "all", "1.0000"),
        "",
    )


def test_d_with_c_divides_by_every_judged_query(files, capsys) -> None:
    f = files(qrels=QRELS, run=RUN)
    code, out, err = trec_eval(
        capsys, "-c", "-q", "-D", "0.2", "-m", "map", "-m", "num_q", "-m", "num_rel",
        "-m", "gm_map", *f.values(),
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert out == (
        row("num_rel", "2", "1")
        + row("map", "2", "1.0000")
        + row("num_q", "all", "4")
        + row("num_rel", "all", "6")
        + row("map", "all", "0.2500")
        + row("gm_map", "all", "0.0002")
    )


def test_d_without_a_query_is_a_debug_level_only(files, capsys) -> None:
    """The level alone changes nothing prfeval prints (trec_eval adds debugging lines for
    some measures, which prfeval does not print)."""
    f = files(qrels=QRELS, run=RUN)
    assert trec_eval(capsys, "-D", "3", "-m", "map", *f.values()) == (
        0,
        row("map", "all", "0.9583"),
        "",
    )


@pytest.mark.parametrize("value", ["0.5", "0."])
def test_d_with_a_query_not_evaluated(files, capsys, value) -> None:
    f = files(qrels=QRELS, run=RUN)
    assert trec_eval(capsys, "-D", value, *f.values()) == (
        7,
        "",
        "trec_eval: No queries with both results and relevance info\n",
    )


def test_d_looks_at_repeats_of_its_query_only(files, capsys) -> None:
    f = files(qrels=QRELS, run=RUN_REPEATS)
    code, out, err = trec_eval(capsys, "-D", "0.1", "-m", "num_ret", *f.values())
    assert (code, out, err) == (0, row("num_ret", "all", "3"), "")
    code, out, err = trec_eval(capsys, "-q", "-D", "0.9", "-m", "num_ret", *f.values())
    assert (code, out) == (4, "")
    assert err.startswith("trec_eval.form_res_qrels: duplicate docs z")


# -- no message suggests an option trec_eval does not take ------------------------------------


def test_no_message_names_an_option_of_evaluate(files, capsys) -> None:
    f = files(qrels=QRELS, run=RUN, qrels_repeats=QRELS_REPEATS, run_repeats=RUN_REPEATS)
    for args in (
        [f["qrels"], f["run_repeats"]],
        [f["qrels_repeats"], f["run"]],
        ["-q", "-J", f["qrels_repeats"], f["run_repeats"]],
        ["-m", "mapp", f["qrels"], f["run"]],
    ):
        _, _, err = trec_eval(capsys, *args)
        for option in ("--qrels-duplicates", "--duplicates", "--unjudged", "--order"):
            assert option not in err, (args, err)


# -- against the binary, when there is one ------------------------------------------------------


def _binary() -> str | None:
    given = os.environ.get("TREC_EVAL")
    if given:
        return given if os.access(given, os.X_OK) else None
    return shutil.which("trec_eval")


def _random_case(rng: random.Random) -> tuple[str, str, list[str]]:
    """Judgments and results with repeats, negative grades, ties and queries on one side."""
    qids = rng.sample(["1", "2", "9", "10", "100", "a", "B", "é"], rng.randint(1, 5))
    docs = [f"d{i}" for i in range(8)] + ["D", "é1"]
    qrels, run = [], []
    for q in qids:
        if rng.random() < 0.85:
            mine = [f"{q} 0 {d} {rng.choice([0, 1, 2, -1])}" for d in rng.sample(docs, 4)]
            if rng.random() < 0.15:
                mine.append(rng.choice(mine))
            qrels += mine
        if rng.random() < 0.85:
            ranked = rng.sample(docs, rng.randint(1, 7))
            if rng.random() < 0.2:
                ranked += rng.choices(ranked, k=rng.randint(1, 3))
            run += [f"{q} Q0 {d} {r} {rng.choice([1, 2, 2.5, 3])} t" for r, d in enumerate(ranked)]
    rng.shuffle(qrels)
    opts = [flag for flag, p in (("-q", 0.5), ("-c", 0.3), ("-J", 0.3)) if rng.random() < p]
    if rng.random() < 0.3:
        opts += ["-M", str(rng.randint(0, 5))]
    if rng.random() < 0.2:
        opts += ["-D", "0." + rng.choice(qids)]
    opts += rng.choice([[], ["-m", "all_trec"], ["-m", "num_q"], ["-m", "map", "-m", "relstring"]])
    return "".join(x + "\n" for x in qrels), "".join(x + "\n" for x in run), opts


@pytest.mark.skipif(_binary() is None, reason="no trec_eval binary (TREC_EVAL=... or PATH)")
def test_as_the_binary_on_random_cases(tmp_path, capsys) -> None:
    exe = _binary()
    assert exe is not None
    rng = random.Random(908)
    for case in range(60):
        qrels, run, opts = _random_case(rng)
        q, r = tmp_path / "q", tmp_path / "r"
        q.write_text(qrels, encoding="utf-8")
        r.write_text(run, encoding="utf-8")
        want = subprocess.run([exe, *opts, str(q), str(r)], capture_output=True)
        got = trec_eval(capsys, *opts, str(q), str(r))
        assert got == (want.returncode, want.stdout.decode(), want.stderr.decode()), (
            case, opts, qrels, run
        )
