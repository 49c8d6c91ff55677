"""No user-facing text names the project's source documents ("seed 000"): a user has never seen
them. The README, the docs, every module of the package (its docstrings are what ``help()``
shows) and every command's ``--help`` name the idea and cite the published work instead."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prfeval.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]
#: "seed 000", "Seed 004's", "the seed's figures", "the seeds' numbers", "SEED_SYSTEMS".
JARGON = re.compile(r"\bseeds? ?0\d\d\b|\bseed's\b|\bseeds'|\bSEED_[A-Z]", re.IGNORECASE)


def user_facing_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    package = ROOT / "src" / "prfeval"
    files += sorted(package.rglob("*.py")) + sorted(package.rglob("*.md"))
    return files


@pytest.mark.parametrize("path", user_facing_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_source_document_jargon(path: Path) -> None:
    hits = [
        f"{path.name}:{i}: {line.strip()}"
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if JARGON.search(line)
    ]
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_jargon_in_help(command: str, capsys) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert not JARGON.search(text), text


def test_the_pattern_catches_the_old_wording() -> None:
    for old in ("seed 000's table", "(seed 002)", "Seed 004's three needs", "the seed's",
                "the seeds' worked numbers", "SEED_SYSTEMS"):
        assert JARGON.search(old), old
    for fine in ("--seed 0", "random seed 0", "the seed of the hash", "seed=42"):
        assert not JARGON.search(fine), fine
