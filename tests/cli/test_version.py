"""``prfeval --version`` says the version and whether the compiled pass is in use (and why
not); ``prfeval.__version__`` is the installed metadata's; a misspelt public name suggests
the right one."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest

import prfeval
from prfeval._io.native_lib import unavailable


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
    why_not = unavailable()
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
