"""``prfeval demo --out DIR`` replaces only what it wrote there: a user's file, a link out of
the folder and a FIFO are refused before anything is written."""

from __future__ import annotations

import os

import pytest

from prfeval._core.errors import UsageError
from prfeval._demo.outdir import RECORD, claim, record
from support.cli import run_cli

NAMES = ["run.trec", "qrels.trec", "report.html"]


def test_a_new_or_empty_folder_is_free(tmp_path) -> None:
    out = claim(tmp_path / "new" / "deeper", NAMES)
    assert out.is_dir() and list(out.iterdir()) == []


def test_a_users_file_is_refused_unless_forced(tmp_path) -> None:
    (tmp_path / "run.trec").write_text("mine\n")
    with pytest.raises(UsageError, match=r"run\.trec: exists and was not written by prfeval "
                       "demo; give --force"):
        claim(tmp_path, NAMES)
    assert (tmp_path / "run.trec").read_text() == "mine\n"
    claim(tmp_path, NAMES, force=True)  # the user said so


def test_files_the_demo_recorded_are_replaced(tmp_path) -> None:
    for name in NAMES:
        (tmp_path / name).write_text("old demo output\n")
    record(tmp_path, NAMES)
    assert (tmp_path / RECORD).read_text().split() == sorted(NAMES)
    claim(tmp_path, NAMES)
    (tmp_path / "notes.txt").write_text("mine\n")  # not a name the demo writes: untouched
    claim(tmp_path, [*NAMES, "evaluation.json"])
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_a_link_out_of_the_folder_is_never_written_through(tmp_path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "qrels.trec").symlink_to(outside)
    record(folder, NAMES)  # even a name the demo recorded
    with pytest.raises(UsageError, match=r"qrels\.trec: is a symbolic link"):
        claim(folder, NAMES)
    claim(folder, NAMES, force=True)
    assert not (folder / "qrels.trec").exists()  # the link is gone, not followed
    assert outside.read_text() == "secret\n"


def test_a_fifo_is_refused_even_when_forced(tmp_path) -> None:
    os.mkfifo(tmp_path / "run.trec")
    for force in (False, True):
        with pytest.raises(UsageError, match=r"run\.trec: is not a regular file"):
            claim(tmp_path, NAMES, force=force)


def test_out_naming_a_file(tmp_path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(UsageError, match="--out names a file, not a folder"):
        claim(tmp_path / "f", NAMES)


def test_the_command_refuses_before_writing_anything(tmp_path, capsys) -> None:
    (tmp_path / "report.html").write_text("<p>my page</p>")
    code, out, err = run_cli(capsys, "demo", "--out", str(tmp_path), "--no-plots")
    assert code == 2 and out == ""
    assert "report.html: exists and was not written by prfeval demo" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    assert (tmp_path / "report.html").read_text() == "<p>my page</p>"
