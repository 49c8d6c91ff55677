"""The documentation site builds with ``mkdocs build --strict`` (what ``make docs`` runs): every
page of docs/ in the navigation, every link between them found, and the API reference
generated from the docstrings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT


@pytest.mark.process
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs site needs prfeval[docs]")
    pytest.importorskip("mkdocstrings_handlers.python", reason="the docs site needs prfeval[docs]")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    api = (tmp_path / "api" / "index.html").read_text(encoding="utf-8")
    assert "Evaluate a run against judgments" in api  # evaluate's docstring, rendered
    pages = {p.stem for p in (ROOT / "docs").glob("*.md")}
    built = {p.parent.name for p in tmp_path.glob("*/index.html")} | {"index"}
    assert pages <= built, sorted(pages - built)
