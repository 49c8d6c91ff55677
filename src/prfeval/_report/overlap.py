"""Reports of an :class:`~prfeval._leakage.overlap.Overlap`: text, markdown and json."""

from __future__ import annotations

import json
from collections.abc import Callable

from prfeval._core.ids import counted, id_list
from prfeval._leakage.overlap import Overlap
from prfeval._leakage.words import GRAM
from prfeval._report._text import render_table, wrap_lines
from prfeval._report.leakage import markdown_text

__all__ = ["FORMATS", "format_overlap", "summary_lines"]

FORMATS = ("text", "markdown", "json")

_HEADERS = ["kind", "A", "B", "Jaccard", "shared 3-grams"]


def _ids(ids: tuple[str, ...], escape: Callable[[str], str]) -> str:
    """The documents of one side: the first, and how many exact copies beside it."""
    shown = escape(ids[0])
    return shown if len(ids) == 1 else f"{shown} (+{len(ids) - 1} identical)"


def _rows(result: Overlap, escape: Callable[[str], str]) -> list[list[str]]:
    return [
        [p.kind, _ids(p.a_ids, escape), _ids(p.b_ids, escape), f"{p.jaccard:.3f}",
         f"{p.shared} of {p.union}"]
        for p in result.pairs
    ]  # fmt: skip


def summary_lines(result: Overlap) -> list[str]:
    """What was compared and found, in sentences."""
    lines = [
        f"A: {counted(result.n_a, 'document')} in {result.a}; B: "
        f"{counted(result.n_b, 'document')} in {result.b}.",
        f"Found: {counted(len(result.exact), 'exact pair')} (the same words after NFKC and "
        f"lowercasing), {counted(len(result.near), 'near pair')} (Jaccard similarity of word "
        f"{GRAM}-grams >= {result.threshold:g}, verified exactly).",
    ]
    skipped = []
    if result.empty_a or result.empty_b:
        skipped.append(f"{result.empty_a} of A and {result.empty_b} of B with no words "
                       "(not checked)")  # fmt: skip
    if result.short:
        skipped.append(f"{counted(result.short, 'document')} of fewer than {GRAM} words "
                       "(checked as exact duplicates only)")  # fmt: skip
    if skipped:
        lines.append("; ".join(skipped).capitalize() + ".")
    if result.starred:
        lines.append(
            f"{counted(result.starred, 'crowded bucket')} of templated text: each of their "
            "documents was checked against the first of the other side, not every one."
        )
    copies = [p for p in result.pairs if len(p.a_ids) > 1 or len(p.b_ids) > 1]
    for p in copies[:5]:
        lines.append(f"Identical on A: {id_list(list(p.a_ids))}; on B: {id_list(list(p.b_ids))}.")
    return lines


def format_text(result: Overlap, width: int = 80) -> str:
    """The pairs as a table, and the summary wrapped to ``width``."""
    title = (f"Documents of A found in B (exact, or word {GRAM}-gram Jaccard >= "
             f"{result.threshold:g}):")  # fmt: skip
    notes = wrap_lines(summary_lines(result), width)
    if not result.pairs:
        return "\n".join([title, "  none", "", *notes]) + "\n"
    table = render_table(None, _HEADERS, _rows(result, str), right_align_from=3)
    return "\n".join([title, table.rstrip("\n"), "", *notes]) + "\n"


def format_markdown(result: Overlap) -> str:
    """A summary for a pull request."""
    lines = [f"**Documents of A found in B** (exact, or word {GRAM}-gram Jaccard "
             f">= {result.threshold:g})", ""]  # fmt: skip
    if result.pairs:
        lines += [
            "| " + " | ".join(_HEADERS) + " |",
            "| --- | --- | --- | ---: | ---: |",
            *("| " + " | ".join(row) + " |" for row in _rows(result, markdown_text)),
            "",
        ]
    else:
        lines += ["No pair found.", ""]
    lines += [markdown_text(line) for line in summary_lines(result)]
    return "\n".join(lines) + "\n"


def format_overlap(result: Overlap, fmt: str = "text", *, width: int = 80) -> str:
    """``result`` in one of :data:`FORMATS` (json: every id of every pair)."""
    if fmt == "json":
        return json.dumps(result.to_dict(), indent=2) + "\n"
    if fmt == "markdown":
        return format_markdown(result)
    if fmt == "text":
        return format_text(result, width)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
