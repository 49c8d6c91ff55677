"""The judgments parsed ahead: ``prfeval evaluate QRELS RUN`` starts the compiled pass on
QRELS while Python imports the rest, and the pass claims that parse for the same file only.

What must hold: the output is the same as without the head start (and as Arrow's reading);
the parse is claimed only for the very file it read (same inode, size and mtime), else
parsed again; a parse the pass never uses is freed; the argv rule starts a parse only where
the two words after the command are QRELS and RUN; and the module that starts it imports
neither numpy nor Arrow (that is the point: it runs before them).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_native_pass import write_files

from prfeval._io import native, native_lib
from prfeval._io.plan import compiled_unavailable
from prfeval.cli import AHEAD_NEVER
from prfeval.cli import parse_judgments_ahead as judgments_ahead_of_argv
from support.cli import run_cli

pytestmark = pytest.mark.skipif(
    compiled_unavailable() is not None,
    reason=f"the compiled pass is not available: {compiled_unavailable()} "
    "(`make native` builds it)",
)

MEASURES = "P@10 R@100 map ndcg_cut_10 SetF"


@pytest.fixture(autouse=True)
def _nothing_left_ahead():
    native_lib.discard_parsed()
    yield
    assert not native_lib.waiting(), "a parse started ahead was neither claimed nor freed"


def _evaluate(capsys, monkeypatch, qrels: str, run: str, env: str, *extra: str) -> str:
    monkeypatch.setenv(native.ENV, env)
    how = "--stream" if env == "1" else "--no-stream"  # without the pass: read whole
    code, out, err = run_cli(capsys, "evaluate", qrels, run, "-m", MEASURES, "-q",
                             "--format", "trec", how, *extra)  # fmt: skip
    assert code == 0, err
    return out + err


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_head_start_changes_nothing(tmp_path, capsys, monkeypatch, seed):
    qrels, run = write_files(tmp_path, seed)
    assert native.run_pass(qrels, run).refused is None  # the pass takes these files
    claimed: list[bool] = []
    claim = native.claim_parsed
    monkeypatch.setattr(native, "claim_parsed", lambda p: claimed.append(True) or claim(p))
    ahead = _evaluate(capsys, monkeypatch, qrels, run, "1")
    assert claimed and not native_lib.waiting()
    monkeypatch.setattr(native_lib, "parse_judgments_ahead", lambda *a: False)
    parsed_late = _evaluate(capsys, monkeypatch, qrels, run, "1")
    by_arrow = _evaluate(capsys, monkeypatch, qrels, run, "0")
    assert ahead == parsed_late == by_arrow


def test_the_parse_is_claimed_for_its_own_file_only(tmp_path, monkeypatch):
    monkeypatch.setenv(native.ENV, "1")
    qrels, _ = write_files(tmp_path, 4)
    other, _ = write_files(tmp_path, 5)
    assert native_lib.parse_judgments_ahead(qrels)
    assert not native_lib.parse_judgments_ahead(qrels)  # one at a time
    assert native_lib.claim_parsed(other) is None  # another file: the parse is freed
    assert not native_lib.waiting()

    assert native_lib.parse_judgments_ahead(qrels)
    os.utime(qrels, ns=(1, 1))  # changed since it was read
    assert native_lib.claim_parsed(qrels) is None
    assert not native_lib.waiting()

    assert native_lib.parse_judgments_ahead(qrels)
    pointer = native_lib.claim_parsed(qrels)
    assert pointer
    native_lib.library().prf_free_judged(pointer)


def test_a_parse_the_pass_does_not_use_is_freed(tmp_path, capsys, monkeypatch):
    qrels, run = write_files(tmp_path, 6)
    started: list[bool] = []
    start = native_lib.parse_judgments_ahead
    monkeypatch.setattr(native_lib, "parse_judgments_ahead",
                        lambda q: started.append(start(q)) or started[-1])  # fmt: skip
    # --order file is taken by the pass; a query list is not: the parse is freed unread.
    queries = tmp_path / "queries.txt"
    queries.write_text("1\n2\n", encoding="utf-8")
    monkeypatch.setenv(native.ENV, "1")
    native_lib.parse_judgments_ahead(qrels)
    code, _, err = run_cli(capsys, "evaluate", qrels, run, "-m", MEASURES, "--stream",
                           "--queries", str(queries))  # fmt: skip
    assert code == 0, err
    assert started == [True]


def test_no_head_start_without_the_pass_gzip_or_a_missing_file(tmp_path, monkeypatch):
    from prfeval._io.plan import head_start

    qrels, run = write_files(tmp_path, 7)
    monkeypatch.setenv(native.ENV, "")
    assert head_start(["evaluate", qrels, run]) == (qrels, run)  # any size: the pass reads it
    monkeypatch.setenv(native.ENV, "0")
    assert head_start(["evaluate", qrels, run]) is None
    monkeypatch.setenv(native.ENV, "1")
    assert head_start(["evaluate", str(tmp_path / "missing"), run]) is None
    zipped = tmp_path / "qrels.gz"
    zipped.write_bytes(b"\x1f\x8b" + b"\0" * 20)
    assert head_start(["evaluate", str(zipped), run]) is None
    assert not native_lib.waiting()


@pytest.mark.parametrize(
    ("argv", "starts"),
    [
        (["evaluate", "Q", "R"], True),
        (["evaluate", "Q", "R", "-m", "P@10", "--format", "json"], True),
        (["compare", "Q", "R", "R"], True),
        (["evaluate", "-m", "P@10", "Q", "R"], False),  # which words are files: unknown
        (["evaluate", "Q", "-m", "R"], False),
        (["evaluate", "Q", "R", "--engine", "spark"], False),
        (["evaluate", "Q", "R", "--engine=spark"], False),
        (["evaluate", "Q", "R", "--order", "rank"], False),
        (["evaluate", "Q", "R", "--no-stream"], True),  # small: the pass reads it whole
        (["evaluate", "Q", "R", "--queries", "F"], False),
        (["curve", "Q", "R"], True),
        (["explain", "Q", "R"], False),
        (["evaluate", "Q"], False),
    ],
)
def test_the_argv_rule(tmp_path, monkeypatch, argv, starts):
    qrels, run = write_files(tmp_path, 8)
    files = {"Q": qrels, "R": run}
    asked: list[str] = []
    monkeypatch.setattr(native_lib, "parse_judgments_ahead", lambda q: asked.append(q))
    judgments_ahead_of_argv([files.get(word, word) for word in argv])
    assert asked == ([qrels] if starts else [])


def test_the_options_that_stop_it_are_evaluates_options():
    from prfeval.cli._evaluate_cmd import command as evaluate

    names = {o for p in evaluate.params for o in (*p.opts, *p.secondary_opts)}
    assert {never.split("=")[0] for never in AHEAD_NEVER} <= names


def test_starting_it_imports_neither_numpy_nor_arrow():
    code = (
        "import sys; import prfeval._io.native_lib as n; import prfeval._io.plan as p; "
        "p.head_start(['evaluate', 'missing', 'missing']); "
        "n.parse_judgments_ahead('missing'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'pyarrow')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    assert out.strip() == "[]"
