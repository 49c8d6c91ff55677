"""The installed ``prfeval-trec_eval`` script: trec_eval's command line for shell scripts,
which an alias does not reach, and the README's way of giving it the name ``trec_eval``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUICKTEST = ROOT / "tests" / "data" / "trec_eval_quicktest"
SCRIPT = shutil.which("prfeval-trec_eval", path=str(Path(sys.executable).parent))

needs_script = pytest.mark.skipif(
    SCRIPT is None, reason="prfeval-trec_eval is not installed beside this Python"
)


def _readme_linking_block() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```bash\n(mkdir -p ~/prfeval-bin\n.*?)```", readme, re.S)
    assert match, "the README lost its block linking prfeval-trec_eval as trec_eval"
    return match.group(1)


@needs_script
def test_the_script_is_trec_eval_under_its_own_name(tmp_path: Path) -> None:
    got = subprocess.run(
        [str(SCRIPT), "test/qrels.test", "test/results.test"],
        cwd=_quicktest_dir(tmp_path),
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert (got.returncode, got.stderr) == (0, b"")
    assert got.stdout == (QUICKTEST / "out.test").read_bytes()


@needs_script
def test_the_script_exits_as_trec_eval_does(tmp_path: Path) -> None:
    got = subprocess.run(
        [str(SCRIPT), "-m", "mapp", "test/qrels.test", "test/results.test"],
        cwd=_quicktest_dir(tmp_path), capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert got.returncode == 1  # trec_eval 9.0.8's status for a measure it does not have
    assert got.stderr.startswith(b"trec_eval: illegal measure 'mapp'")


@needs_script
def test_a_script_calling_trec_eval_runs_prfeval_as_the_readme_links_it(tmp_path: Path) -> None:
    work = _quicktest_dir(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    script = work / "eval_runs.sh"
    script.write_text("#!/bin/sh\nexec trec_eval test/qrels.test test/results.test\n")
    script.chmod(0o755)
    # PATH has prfeval's scripts and the system's tools, and no trec_eval before the link.
    env = {
        "HOME": str(home),
        "PATH": f"{Path(SCRIPT).parent}:/usr/bin:/bin",
    }
    before = subprocess.run(
        ["bash", "-c", "./eval_runs.sh"], cwd=work, env=env, capture_output=True, check=False
    )
    assert before.returncode == 127  # trec_eval: not found, as the README says
    got = subprocess.run(
        ["bash", "-e", "-c", _readme_linking_block()],
        cwd=work, env=env, capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert (got.returncode, got.stderr) == (0, b"")
    assert got.stdout == (QUICKTEST / "out.test").read_bytes()
    assert os.path.islink(home / "prfeval-bin" / "trec_eval")


def _quicktest_dir(tmp_path: Path) -> Path:
    """A folder whose ``test/`` is trec_eval's quicktest data."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "test").symlink_to(QUICKTEST, target_is_directory=True)
    return work
