"""``prfeval evaluate`` on the command line: every output format, -o, stdin, .gz, bad input.

Expected numbers are hand counts on a two-query example (written out below); error cases pin
the CLI contract (STYLE.md rules 6 and 11): one line on stderr starting ``prfeval: `` that
names the file and line where there is one, exit code 2, no traceback, nothing on stdout.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import run_cli

# Query 1: relevant d1, d2, d4; d5 judged non-relevant. Ranked d1 (rel), d5, d9 (unjudged).
# Query 2: relevant d1 (grade 2) and d3; ranked d3 (rel). Query 3 is judged but not run.
#   q1: TP 1, retrieved 3, relevant 3 -> P 1/3, R 1/3, F1 1/3; P@1 = 1
#   q2: TP 1, retrieved 1, relevant 2 -> P 1,   R 1/2, F1 2/3; P@1 = 1
#   macro P 2/3, R 5/12, F1 1/2; micro TP 2 / ret 4 / rel 5 -> P .5, R .4, F1 4/9;
#   F of the macro P and R: 2 (2/3)(5/12) / (2/3 + 5/12) = 60/117.
QRELS = "1 0 d1 1\n1 0 d2 1\n1 0 d4 1\n1 0 d5 0\n2 0 d1 2\n2 0 d3 1\n3 0 d7 1\n"
RUN = "1 Q0 d9 1 1.0 t\n1 Q0 d1 2 3.0 t\n1 Q0 d5 3 2.0 t\n2 Q0 d3 1 0.5 t\n"
MEASURES = "P@1 SetP SetR SetF NumRet"
MACRO = {"P@1": 1.0, "SetP": 2 / 3, "SetR": 5 / 12, "SetF": 0.5, "NumRet": 4}
MICRO = {"P@1": 1.0, "SetP": 0.5, "SetR": 0.4, "SetF": 4 / 9, "NumRet": 4}
F_OF_MEANS = 60 / 117
PER_QUERY = {
    "1": {"P@1": 1.0, "SetP": 1 / 3, "SetR": 1 / 3, "SetF": 1 / 3, "NumRet": 3},
    "2": {"P@1": 1.0, "SetP": 1.0, "SetR": 0.5, "SetF": 2 / 3, "NumRet": 1},
}
PRFEVAL = Path(sys.executable).with_name("prfeval")


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


# -- output formats ------------------------------------------------------------------------


def test_table_format(files, capsys) -> None:
    """The default table shows macro, micro and F of means, and accounts for query 3."""
    code, out, _ = run_cli(capsys, "evaluate", *files, "-m", MEASURES)
    assert code == 0
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["SetF"] == [f"{0.5:.4f}", f"{4 / 9:.4f}", f"{F_OF_MEANS:.4f}"]
    assert rows["SetP"] == [f"{2 / 3:.4f}", f"{0.5:.4f}"]
    assert rows["SetR"] == [f"{5 / 12:.4f}", f"{0.4:.4f}"]
    assert rows["NumRet"][-2:] == ["4", "4"]
    assert "Queries evaluated: 2" in out
    assert "3" in next(line for line in out.splitlines() if "no results" in line)


def test_trec_format_with_per_query(files, capsys) -> None:
    """trec layout ``measure<TAB>qid<TAB>value``: per query with -q, then ``all`` (the macro)."""
    code, out, err = run_cli(capsys, "evaluate", *files, "-m", MEASURES, "--format", "trec", "-q")
    assert code == 0
    got = {}
    for line in out.splitlines():
        label, qid, value = (x.strip() for x in line.split("\t"))
        got[(label, qid)] = value
    expected = {(m, q): v for q, values in PER_QUERY.items() for m, v in values.items()}
    expected.update({(m, "all"): v for m, v in MACRO.items()})
    assert set(got) == set(expected)
    for key, value in expected.items():
        shown = str(value) if key[0] == "NumRet" else f"{value:.4f}"
        assert got[key] == shown, key
    assert "3" in err  # the judged query without results is reported on stderr


def test_json_format(files, capsys) -> None:
    """JSON holds macro, micro, f_of_means, per-query values and the query accounting."""
    code, out, _ = run_cli(capsys, "evaluate", *files, "-m", MEASURES, "--format", "json", "-q")
    assert code == 0
    data = json.loads(out)
    for label in MACRO:
        assert data["macro"][label] == pytest.approx(MACRO[label], abs=1e-12)
        assert data["micro"][label] == pytest.approx(MICRO[label], abs=1e-12)
    assert data["f_of_means"] == {"SetF": pytest.approx(F_OF_MEANS, abs=1e-12)}
    for q, values in PER_QUERY.items():
        for label, value in values.items():
            assert data["per_query"][q][label] == pytest.approx(value, abs=1e-12)
    assert data["queries"]["evaluated"] == 2
    assert data["queries"]["missing_from_run"] == ["3"]


def test_csv_format(files, capsys) -> None:
    """A long, tidy CSV, ``query_id,aggregate,measure,value``: a query's rows have an empty
    aggregate, an average's rows an empty query id; hand-counted values."""
    code, out, _ = run_cli(capsys, "evaluate", *files, "-m", MEASURES, "--format", "csv", "-q")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["query_id", "aggregate", "measure", "value"]
    got = {(q, a, m): float(v) for q, a, m, v in rows[1:]}
    expected = {(q, "", m): v for q, values in PER_QUERY.items() for m, v in values.items()}
    expected |= {("", "macro", m): v for m, v in MACRO.items()}
    expected |= {("", "micro", m): v for m, v in MICRO.items()}
    expected[("", "f_of_means", "SetF")] = F_OF_MEANS
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def test_csv_and_json_carry_the_same_values(files, capsys) -> None:
    """Every CSV row is a JSON value under the same names, and every JSON value a CSV row."""
    argv = ["evaluate", *files, "-m", MEASURES, "-q"]
    _, csv_text, _ = run_cli(capsys, *argv, "--format", "csv")
    _, json_text, _ = run_cli(capsys, *argv, "--format", "json")
    data = json.loads(json_text)
    from_json = {(q, "", m): v for q, values in data["per_query"].items()
                 for m, v in values.items()}
    for average in ("macro", "micro", "f_of_means"):
        from_json |= {("", average, m): v for m, v in data[average].items()}
    from_csv = {(r["query_id"], r["aggregate"], r["measure"]): float(r["value"])
                for r in csv.DictReader(io.StringIO(csv_text))}
    assert from_csv == from_json


def test_complete_flag_counts_the_missing_query(files, capsys) -> None:
    """-c averages over all three judged queries, query 3 scoring 0 (trec_eval -c)."""
    code, out, _ = run_cli(capsys, "evaluate", *files, "-m", "SetR", "--format", "json", "-c")
    assert code == 0
    assert json.loads(out)["macro"]["SetR"] == pytest.approx((1 / 3 + 1 / 2 + 0) / 3)


# -- -o FILE -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["table", "trec", "json", "csv"])
def test_output_file_holds_what_stdout_would(files, tmp_path, capsys, fmt) -> None:
    """-o writes exactly the stdout text to the file, prints nothing, leaves no temp file."""
    _, expected, _ = run_cli(capsys, "evaluate", *files, "-m", MEASURES, "--format", fmt)
    target = tmp_path / "out" / "result.txt"
    target.parent.mkdir()
    code, out, _ = run_cli(
        capsys, "evaluate", *files, "-m", MEASURES, "--format", fmt, "-o", str(target)
    )
    assert code == 0
    assert out == ""
    assert target.read_text() == expected
    assert [p.name for p in target.parent.iterdir()] == ["result.txt"]


def test_failing_run_leaves_no_output_file(files, tmp_path, capsys) -> None:
    """A failure writes nothing: no new file, an existing file untouched, no temp file."""
    qrels, _ = files
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 1 oops t\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "result.txt"
    code, _, err = run_cli(capsys, "evaluate", qrels, str(bad), "-o", str(target))
    assert code == 2 and err.startswith("prfeval: ")
    assert list(out_dir.iterdir()) == []
    target.write_text("previous\n")
    code, _, _ = run_cli(capsys, "evaluate", qrels, str(bad), "-o", str(target))
    assert code == 2
    assert target.read_text() == "previous\n"
    assert [p.name for p in out_dir.iterdir()] == ["result.txt"]


def test_output_into_missing_directory_names_the_given_path(files, tmp_path, capsys) -> None:
    """-o into a directory that does not exist: one line naming the path the user gave."""
    target = tmp_path / "nowhere" / "x.txt"
    code, _, err = run_cli(capsys, "evaluate", *files, "-o", str(target))
    assert code == 2
    assert err.startswith("prfeval: ") and err.count("\n") == 1
    assert str(target) in err and ".tmp" not in err


# -- bad input -----------------------------------------------------------------------------

BAD_RUNS = {  # content, expected fragment after "run.txt:<line>: "
    "too few fields": ("1 Q0 d1 1 2.0 t\n1 Q0 d2 1 2.0\n", 2, "expected at least 6 fields, got 5"),
    # (a run line may have more than six fields: trec_eval ignores the rest, so does prfeval)
    "non-numeric score": ("1 Q0 d1 1 2.0 t\n# c\n1 Q0 d2 2 high t\n", 3, "score"),
    "NaN score": ("1 Q0 d1 1 NaN t\n", 1, "score"),
    "infinite score": ("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 -inf t\n", 2, "score"),
    "overflowing score": ("1 Q0 d1 1 1e999 t\n", 1, "score"),
    "not UTF-8": ("1 Q0 d1 1 2.0 t\n1 Q0 d\udcff 1 2.0 t\n", 2, "UTF-8"),
}
BAD_QRELS = {
    "too few fields": ("1 0 d1 1\n1 0 d2\n", 2, "expected 4 fields, got 3"),
    "too many fields": ("1 0 d1 1 extra\n", 1, "expected 4 fields, got 5"),
    "non-numeric grade": ("1 0 d1 yes\n", 1, "grade"),
    "fractional grade": ("1 0 d1 1\n\n1 0 d2 0.5\n", 3, "grade"),
}


def assert_one_line_error(code: int, out: str, err: str, *fragments: str) -> None:
    """Exit 2, nothing on stdout, one ``prfeval: `` line on stderr holding every fragment."""
    assert code == 2, err
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("prfeval: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def _write(path: Path, text: str) -> str:
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    return str(path)


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_malformed_run_line(case, files, tmp_path, capsys) -> None:
    """A malformed run line names file and line: ``prfeval: run.txt:N: reason``."""
    text, line, fragment = BAD_RUNS[case]
    run = _write(tmp_path / "bad_run.txt", text)
    code, out, err = run_cli(capsys, "evaluate", files[0], run)
    assert_one_line_error(code, out, err, f"bad_run.txt:{line}: ", fragment)


@pytest.mark.parametrize("case", sorted(BAD_QRELS))
def test_malformed_qrels_line(case, files, tmp_path, capsys) -> None:
    """A malformed judgment line names file and line: ``prfeval: qrels.txt:N: reason``."""
    text, line, fragment = BAD_QRELS[case]
    qrels = _write(tmp_path / "bad_qrels.txt", text)
    code, out, err = run_cli(capsys, "evaluate", qrels, files[1])
    assert_one_line_error(code, out, err, f"bad_qrels.txt:{line}: ", fragment)


def test_repeated_judgment_names_its_line(files, tmp_path, capsys) -> None:
    """The same (query, doc) judged twice is an error at the repeat's line."""
    qrels = _write(tmp_path / "dup.txt", "1 0 d1 1\n1 0 d2 0\n1 0 d1 0\n")
    code, out, err = run_cli(capsys, "evaluate", qrels, files[1])
    assert_one_line_error(code, out, err, "dup.txt:3: ")


def test_empty_qrels_file_is_an_error(files, tmp_path, capsys) -> None:
    """Judgments with nothing in them cannot be evaluated against: exit 2, naming the file."""
    empty = _write(tmp_path / "empty.txt", "")
    code, out, err = run_cli(capsys, "evaluate", empty, files[1])
    assert_one_line_error(code, out, err, "empty.txt")


def test_empty_run_is_valid_with_a_warning(files, tmp_path, capsys) -> None:
    """An empty run is a valid (bad) run: exit 0, every measure 0, a warning on stderr."""
    empty = _write(tmp_path / "empty.txt", "# only a comment\n\n")
    code, out, err = run_cli(capsys, "evaluate", files[0], empty, "-m", "SetP", "-c",
                             "--format", "json")  # fmt: skip
    assert code == 0
    assert err.startswith("prfeval: ") and "empty" in err and "warning" in err
    data = json.loads(out)
    assert data["macro"]["SetP"] == 0.0
    assert data["queries"]["evaluated"] == 3


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_binary_file(which, files, tmp_path, capsys) -> None:
    """A binary file (NUL bytes) is refused by name."""
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    argv = [str(binary), files[1]] if which == "qrels" else [files[0], str(binary)]
    code, out, err = run_cli(capsys, "evaluate", *argv)
    assert_one_line_error(code, out, err, "blob.bin")


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_missing_file(which, files, tmp_path, capsys) -> None:
    """A missing file is named in one line, not a FileNotFoundError traceback."""
    missing = str(tmp_path / "nope.txt")
    argv = [missing, files[1]] if which == "qrels" else [files[0], missing]
    code, out, err = run_cli(capsys, "evaluate", *argv)
    assert_one_line_error(code, out, err, "nope.txt")


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("Precison@10", "did you mean"),
        ("P@-1", "P@-1"),
        ("R@-3", "R@-3"),
        ("SetF(beta=-1)", "beta"),
        ("F(beta=-0.5)@10", "beta"),
        ("SetF(alpha=2)", "alpha"),
        ("set_F.-2", "set_F"),
        ("P@ten", "P@ten"),
    ],
)
def test_bad_measure(spec, fragment, files, capsys) -> None:
    """Unknown measures and bad parameters (k < 0, beta < 0, ...): one line, exit 2."""
    code, out, err = run_cli(capsys, "evaluate", *files, "-m", spec)
    assert_one_line_error(code, out, err, fragment)


@pytest.mark.parametrize("measure", ["TN", "Fallout", "Accuracy", "Specificity", "YoudenJ"])
def test_tn_measure_without_collection_size(measure, files, capsys) -> None:
    """A measure that needs TN without -N says so (and names the measure)."""
    code, out, err = run_cli(capsys, "evaluate", *files, "-m", measure)
    assert_one_line_error(code, out, err, measure, "-N")


def test_collection_size_smaller_than_judged(files, capsys) -> None:
    """-N smaller than a query's judged documents (query 1 has 4) is refused."""
    code, out, err = run_cli(capsys, "evaluate", *files, "-m", "Fallout", "-N", "3")
    assert_one_line_error(code, out, err, "3")
    code, out, _ = run_cli(capsys, "evaluate", *files, "-m", "TN", "--format", "json", "-q",
                           "-N", "5")  # fmt: skip
    assert code == 0
    assert json.loads(out)["per_query"]["1"]["TN"] == 0  # d1 d2 d4 d5 d9: all five seen


def test_collection_size_smaller_than_judged_plus_retrieved(files, capsys) -> None:
    """-N below the documents a query is known to have (judged or retrieved) is refused."""
    code, out, err = run_cli(capsys, "evaluate", *files, "-m", "Fallout", "-N", "4")
    assert_one_line_error(code, out, err, "4")


def test_tn_measure_with_collection_size(files, capsys) -> None:
    """With -N 10, query 1's TN is 10 - 1 - 2 - 2 = 5 and fallout FP/(FP+TN) = 2/7 (hand count)."""
    code, out, _ = run_cli(capsys, "evaluate", *files, "-m", "TN Fallout", "-N", "10",
                           "--format", "json", "-q")  # fmt: skip
    assert code == 0
    per_query = json.loads(out)["per_query"]
    assert per_query["1"]["TN"] == 5
    assert per_query["1"]["Fallout"] == pytest.approx(2 / 7)
    assert per_query["2"]["Fallout"] == 0.0


# -- .gz, stdin, subprocesses --------------------------------------------------------------


def test_gzip_inputs_read_transparently(files, tmp_path, capsys) -> None:
    """Gzipped qrels and run give the same output as the plain files."""
    _, plain, _ = run_cli(capsys, "evaluate", *files, "-m", MEASURES, "--format", "trec", "-q")
    gz = []
    for name in files:
        target = tmp_path / (Path(name).name + ".gz")
        target.write_bytes(gzip.compress(Path(name).read_bytes()))
        gz.append(str(target))
    code, out, _ = run_cli(capsys, "evaluate", *gz, "-m", MEASURES, "--format", "trec", "-q")
    assert code == 0
    assert out == plain


def _subprocess(*argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(PRFEVAL), *argv], input=stdin, capture_output=True, timeout=60, check=False
    )


@pytest.mark.skipif(not PRFEVAL.exists(), reason="console script not installed next to python")
def test_run_from_stdin_subprocess(files) -> None:
    """``-`` reads the run from stdin (a real process, real pipes)."""
    proc = _subprocess("evaluate", files[0], "-", "-m", "SetF", "--format", "trec",
                       stdin=RUN.encode())  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    label, qid, value = (x.strip() for x in proc.stdout.decode().strip().split("\t"))
    assert (label, qid, value) == ("SetF", "all", "0.5000")


@pytest.mark.skipif(not PRFEVAL.exists(), reason="console script not installed next to python")
def test_bad_line_subprocess_exit_code_and_stderr(files, tmp_path) -> None:
    """In a real process: exit status 2, one stderr line, no traceback, empty stdout."""
    bad = _write(tmp_path / "r.txt", "1 Q0 d1 1 2.0 t\n1 Q0 d2 1 2.0\n")
    proc = _subprocess("evaluate", files[0], bad)
    assert_one_line_error(proc.returncode, proc.stdout.decode(), proc.stderr.decode(),
                          "r.txt:2: expected at least 6 fields, got 5")  # fmt: skip


@pytest.mark.skipif(not PRFEVAL.exists(), reason="console script not installed next to python")
def test_bad_stdin_names_stdin(files) -> None:
    """A malformed line read from stdin is located as ``<stdin>:N``."""
    proc = _subprocess("evaluate", files[0], "-", stdin=b"1 Q0 d1 1 2.0 t\n1 Q0 d2 x y\n")
    assert_one_line_error(proc.returncode, proc.stdout.decode(), proc.stderr.decode(),
                          "<stdin>:2: ")  # fmt: skip


def test_command_line_stays_light(tmp_path) -> None:
    """`prfeval evaluate` on TREC files never imports pandas or matplotlib (pyarrow's pandas
    hook alone costs 0.15 s a run), in memory or streamed."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2.0 t\n1 Q0 c 2 1.0 t\n3 Q0 a 1 1.0 t\n")
    code = (
        "import sys\n"
        "from prfeval.cli import main\n"
        "for extra in ([], ['--stream'], ['-c', '--format', 'json']):\n"
        "    try:\n"
        f"        main(['evaluate', {str(tmp_path / 'q.txt')!r}, {str(tmp_path / 'r.txt')!r},"
        " '-m', 'P@1 SetF', *extra])\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, exc.code\n"
        "print([m for m in ('pandas', 'matplotlib', 'scipy') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_notes_are_plain_sentences(files, capsys) -> None:
    """No parenthesised asides such as "(1, skipped (use -c to count them))"; every note line
    fits 80 columns."""
    code, out, _ = run_cli(capsys, "evaluate", *files, "-m", MEASURES)
    assert code == 0
    notes = out[out.index("macro: the mean over queries"):]
    assert "(" not in notes.replace("(total)", "")
    text = " ".join(notes.split())
    assert "1 judged query had no results: '3'. It was skipped; -c scores it as " \
        "an empty ranking." in text
    assert max(len(line) for line in out.splitlines()) <= 80
    _, _, err = run_cli(capsys, "evaluate", *files, "-m", MEASURES, "--format", "json")
    assert "(" not in err
    # the same notes as the table's, on stderr (issue 16, case 4)
    assert "1 judged query had no results: '3'. It was skipped; -c scores it as " \
        "an empty ranking." in " ".join(err.replace("prfeval: ", "").split())
