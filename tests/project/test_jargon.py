"""No user-facing text names the project's source documents ("seed 000"): a user has never seen
them. The README, the docs, every module of the package (its docstrings are what ``help()``
shows) and every command's ``--help`` name the idea and cite the published work instead."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prfeval.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[2]
#: "seed 000", "Seed 004's", "the seed's figures", "the seeds' numbers", "SEED_SYSTEMS".
JARGON = re.compile(r"\bseeds? ?0\d\d\b|\bseed's\b|\bseeds'|\bSEED_[A-Z]", re.IGNORECASE)


def user_facing_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    package = ROOT / "src" / "prfeval"
    files += sorted(package.rglob("*.py")) + sorted(package.rglob("*.md"))
    return files


#: A line break inside a sentence, with what continues it on the next line: indentation, a
#: comment's '#', a docstring's or Markdown's quote marker.
_BREAK = re.compile(r"[ \t]*\n[ \t]*(?:(?:#|//|>|\*)[ \t]*)?")


def jargon_in(text: str) -> list[str]:
    """Each match of the pattern in ``text``, with its line, where a phrase split over two
    lines (``seed\\n    000``, ``the\\n# seed's``) counts as one."""
    joined = _BREAK.sub(" ", text)
    # joined offset -> original line: count the line breaks the joining removed before it
    breaks = [m.start() for m in _BREAK.finditer(text)]
    hits = []
    for m in JARGON.finditer(joined):
        shift, line = 0, 1
        for b in breaks:
            removed = len(_BREAK.match(text, b).group()) - 1  # each break became one space
            if b - shift > m.start():
                break
            shift += removed
            line += 1
        hits.append(f"{line}: {m.group()!r}")
    return hits


@pytest.mark.parametrize("path", user_facing_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_source_document_jargon(path: Path) -> None:
    hits = [f"{path.name}:{hit}" for hit in jargon_in(path.read_text())]
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_jargon_in_help(command: str, capsys) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert not jargon_in(text), text


def test_the_pattern_catches_the_old_wording() -> None:
    for old in ("seed 000's table", "(seed 002)", "Seed 004's three needs", "the seed's",
                "the seeds' worked numbers", "SEED_SYSTEMS"):
        assert JARGON.search(old), old
    for fine in ("--seed 0", "random seed 0", "the seed of the hash", "seed=42"):
        assert not JARGON.search(fine), fine


def test_a_phrase_split_over_two_lines_is_caught() -> None:
    """Line by line, "seed" ending one line and "000" starting the next slipped through."""
    assert jargon_in("as in seed\n    000, the table") == ["1: 'seed 000'"]
    assert jargon_in("x\n# see the\n# seed's numbers\n") == ["3: \"seed's\""]
    assert jargon_in('"""From\n    seeds\n    003."""') == ["2: 'seeds 003'"]
    assert jargon_in("a random seed\n0 is used") == []
