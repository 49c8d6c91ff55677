"""The README's Python examples type-check as a user's code: each ```python block, pasted
into a file of its own as a user would paste it, passes pyright with its default settings
against this checkout's package (``src`` on the import path, the third-party packages of
the running interpreter). An example such as ``r.kappa["quadratic"]`` is an error for a
type checker when the API types the attribute as optional, though it runs."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT

pytestmark = pytest.mark.process

_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _python_blocks() -> list[str]:
    return _BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_readme_has_python_examples() -> None:
    """The check below reads something: the README's two examples (the API, the loop)."""
    blocks = _python_blocks()
    assert len(blocks) >= 2
    assert all(block.startswith("import prfeval\n") for block in blocks)


def _pyright(files: list[Path], where: Path) -> dict:
    """pyright's JSON report on ``files``; skips when pyright or node cannot run."""
    if importlib.util.find_spec("pyright") is None:
        pytest.skip("pyright is not installed: pip install '.[test]'")
    if shutil.which("node") is None:
        pytest.skip("pyright runs on Node.js, and node is not on the PATH")
    # Only where to find the package: every checking setting stays pyright's default.
    (where / "pyrightconfig.json").write_text(json.dumps({"extraPaths": [str(ROOT / "src")]}))
    done = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable,
         *map(str, files)],
        cwd=where, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        # The pyright wrapper fetches its npm package on first use: offline, it cannot.
        reason = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        pytest.skip(f"pyright could not run (exit {done.returncode}): {reason[0]}")


def test_the_readme_examples_pass_pyright_with_its_default_settings(tmp_path: Path) -> None:
    files = []
    for i, block in enumerate(_python_blocks(), 1):
        path = tmp_path / f"readme_example_{i}.py"
        path.write_text(block, encoding="utf-8")
        files.append(path)
    report = _pyright(files, tmp_path)
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    shown = [
        f"{Path(d['file']).name}:{d['range']['start']['line'] + 1}: {d['message']}"
        for d in errors
    ]
    assert report["summary"]["filesAnalyzed"] == len(files)
    assert errors == [], "\n".join(shown)
