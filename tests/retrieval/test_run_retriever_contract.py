"""``prfeval run-retriever`` keeps the command line's contract whatever the retriever does:
no partial run on stdout when it fails, its own prints kept out of the run, ``sys.exit()``
inside it an error (not a silent exit 0), ``-o`` never over its own module, no TSV header
asked as a query, and a score no float holds refused in one line."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from prfeval._io.query_texts import read_queries
from support.cli import run_cli

MODULE = '''
def talkative(query):
    print("asking the index about", query)
    return [("d1", 2.0), ("d2", 1.0)]


def fails_on_dog(query):
    if query == "dog":
        raise RuntimeError("the index went away")
    return [("d1", 2.0)]


def exits(query):
    raise SystemExit(0)


def huge(query):
    return [("d1", 10**400)]


def fine(query):
    return [("d1", 2.0), ("d2", 1.0)]
'''


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    name = f"contract_retrievers_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    (tmp_path / "queries.tsv").write_text("q1\tcat\nq2\tdog\nq3\tbird\n")
    monkeypatch.chdir(tmp_path)
    yield tmp_path, name
    sys.modules.pop(name, None)


def test_a_failure_leaves_nothing_on_stdout(folder, capsys) -> None:
    _, name = folder
    code, out, err = run_cli(capsys, "run-retriever", "--retriever", f"{name}:fails_on_dog",
                             "--queries", "queries.tsv")
    assert code == 2
    assert out == ""  # q1's answer was not written before q2 failed
    assert "failed on query 'q2': RuntimeError: the index went away" in err


def test_the_retriever_s_prints_go_to_stderr_not_into_the_run(folder) -> None:
    tmp_path, name = folder
    done = subprocess.run(
        [sys.executable, "-m", "prfeval", "run-retriever", "--retriever", f"{name}:talkative",
         "--queries", "queries.tsv"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 6 and all(len(line.split()) == 6 for line in lines)
    assert lines[0].split()[:4] == ["q1", "Q0", "d1", "1"]
    assert done.stderr.count("asking the index about") == 3


def test_sys_exit_in_a_retriever_is_an_error(folder, capsys) -> None:
    tmp_path, name = folder
    code, out, err = run_cli(capsys, "run-retriever", "--retriever", f"{name}:exits",
                             "--queries", "queries.tsv", "-o", "run.trec")
    assert code == 2 and out == ""
    assert "called sys.exit(0) on query 'q1'" in err
    assert not (tmp_path / "run.trec").exists()


def test_output_over_the_retriever_s_own_module_is_refused(folder, capsys) -> None:
    tmp_path, name = folder
    module = tmp_path / f"{name}.py"
    code, _, err = run_cli(capsys, "run-retriever", "--retriever", f"{name}:fine",
                           "--queries", "queries.tsv", "-o", str(module))
    assert code == 2
    assert f"{name}.py" in err and err.count("\n") == 1
    assert module.read_text() == MODULE  # untouched


def test_a_score_no_float_holds_is_refused_in_one_line(folder, capsys) -> None:
    _, name = folder
    code, out, err = run_cli(capsys, "run-retriever", "--retriever", f"{name}:huge",
                             "--queries", "queries.tsv")
    assert code == 2 and out == ""
    assert "Traceback" not in err and err.count("\n") == 1
    assert "query 'q1': result 1: the score, an integer of about 400 digits, is too large" in err


@pytest.mark.parametrize("header", ["qid\ttext", "query_id\tquery", "_id\ttext", "QID\tText"])
def test_a_tsv_header_is_not_asked_as_a_query(tmp_path: Path, header: str) -> None:
    path = tmp_path / "queries.tsv"
    path.write_text(f"{header}\nq1\tcat\nq2\tdog\n")
    assert [q.query_id for q in read_queries(str(path))] == ["q1", "q2"]


def test_a_query_that_looks_like_a_header_after_the_first_line_is_a_query(tmp_path) -> None:
    path = tmp_path / "queries.tsv"
    path.write_text("q1\tcat\nqid\ttext\n")
    assert [q.query_id for q in read_queries(str(path))] == ["q1", "qid"]


def test_an_id_with_a_lone_surrogate_is_refused_in_one_line(folder, capsys) -> None:
    tmp_path, _ = folder
    (tmp_path / "surrogate.py").write_text('def bad(query):\n    return ["d\\udc80"]\n')
    code, out, err = run_cli(capsys, "run-retriever", "--retriever", "surrogate:bad",
                             "--queries", "queries.tsv")
    sys.modules.pop("surrogate", None)
    assert code == 2 and out == ""
    assert "query 'q1': result 1: doc id 'd\\udc80' is not valid Unicode" in err
