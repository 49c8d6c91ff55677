"""``prfeval --version`` says the version and whether the compiled pass is in use (and why
not); ``prfeval.__version__`` is the installed metadata's; a misspelt public name suggests
the right one."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest

import prfeval
from prfeval._io.plan import compiled_unavailable


def _version(env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-m", "prfeval", "--version"],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, **(env or {})})  # fmt: skip


def test_the_version_is_the_package_metadata_s() -> None:
    assert prfeval.__version__ == version("prfeval")


def test_version_says_whether_the_compiled_pass_is_in_use() -> None:
    done = _version()
    assert done.returncode == 0 and done.stderr == ""
    first, second = done.stdout.splitlines()
    assert first == f"prfeval {version('prfeval')}"
    why_not = compiled_unavailable()
    assert second == ("compiled pass: yes" if why_not is None
                      else f"compiled pass: no ({why_not})")


def test_version_says_why_the_compiled_pass_is_off() -> None:
    done = _version({"PRFEVAL_NATIVE": "0"})
    assert done.stdout.splitlines()[1] == "compiled pass: no (PRFEVAL_NATIVE=0)"


def test_a_misspelt_name_suggests_the_right_one() -> None:
    with pytest.raises(AttributeError, match="did you mean 'evaluate'"):
        prfeval.evalute  # noqa: B018
    with pytest.raises(AttributeError, match=r"no attribute 'nothing_like_it'$"):
        prfeval.nothing_like_it  # noqa: B018


def _without_the_library(argv: list[str], cwd, native: str = "1") -> subprocess.CompletedProcess:
    import os

    script = ("import prfeval._io.native_lib as lib\n"
              "from pathlib import Path\n"
              "lib.LIBRARY = Path('/nonexistent/libprfeval_pass.so')\n"
              "from prfeval.cli import main\n"
              f"main({argv!r})\n")
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "PRFEVAL_NATIVE": native})  # fmt: skip


@pytest.mark.process
def test_asking_for_a_missing_pass_is_one_line_and_exit_2(tmp_path) -> None:
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 1 r\n")
    done = _without_the_library(["evaluate", "qrels", "run"], tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("prfeval: PRFEVAL_NATIVE=1 asks for the compiled pass: it is not "
                           "built: no libprfeval_pass.so in /nonexistent\n")
    # Not asked for: the same inputs read with Arrow, and --version says why.
    assert _without_the_library(["evaluate", "qrels", "run"], tmp_path, "").returncode == 0
    shown = _without_the_library(["--version"], tmp_path)
    assert shown.returncode == 0
    assert shown.stdout.splitlines()[1] == (
        "compiled pass: no (it is not built: no libprfeval_pass.so in /nonexistent)")
