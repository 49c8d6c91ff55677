"""Reports of a :class:`~prfeval._leakage.containment.Leakage`: text, json and markdown."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from prfeval._core.ids import counted
from prfeval._leakage.containment import Leakage
from prfeval._leakage.words import GRAM
from prfeval._report._text import render_table, wrap_lines

__all__ = ["FORMATS", "format_leakage", "markdown_text", "summary_lines"]

FORMATS = ("text", "json", "markdown")

_HEADERS = ["item", "field", "document", "containment", "shared 3-grams"]


def _rows(result: Leakage, escape: Callable[[str], str]) -> list[list[str]]:
    """The table's rows, the ids and field names (the files' text) escaped for the format."""
    return [
        [escape(k.item_id), escape(k.field), escape(k.doc_id), f"{k.containment:.3f}",
         f"{k.shared} of {k.grams}"]
        for k in result.leaks
    ]  # fmt: skip


def _fields(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(names)


def summary_lines(result: Leakage) -> list[str]:
    """What was checked, what leaks and what was not checked, in sentences."""
    fields = [f.field for f in result.fields]
    lines = [
        f"Items: {result.n_items} in {result.items}; {counted(result.texts_checked, 'text')} "
        f"checked (field{'s' if len(fields) > 1 else ''} {_fields(fields)}).",
        f"Corpus: {counted(result.documents, 'document')} in {result.corpus} "
        f"(field{'s' if len(result.corpus_fields) > 1 else ''} "
        f"{_fields(result.corpus_fields)}).",
        f"Leaking: {counted(result.leaking_items, 'item')} "
        f"({counted(len(result.leaks), 'text')}).",
    ]
    skipped = []
    if result.short:
        skipped.append(f"{counted(result.short, 'text')} of fewer than {GRAM} words")
    if result.empty:
        skipped.append(f"{counted(result.empty, 'text')} with no words")
    if skipped:
        lines.append(f"Not checked: {' and '.join(skipped)}.")
    if len(result.fields) > 1:
        lines += [
            f"  {f.field}: {f.checked} checked, {f.leaking} leaking, {f.short} short, "
            f"{f.empty} empty"
            for f in result.fields
        ]
    return lines


def format_text(result: Leakage, width: int = 80) -> str:
    """The table of leaks as wide as its cells, the summary wrapped to ``width``."""
    title = (
        f"Eval texts a document contains (word {GRAM}-gram containment >= {result.threshold:g}):"
    )
    notes = wrap_lines(summary_lines(result), width)
    if not result.leaks:
        return "\n".join([title, "  none", "", *notes]) + "\n"
    # render_table shows an id such as "[b]x" as it is: no escaping of its own here.
    table = render_table(None, _HEADERS, _rows(result, str), right_align_from=3)
    return "\n".join([title, table.rstrip("\n"), "", *notes]) + "\n"


def markdown_text(text: str) -> str:
    """``text`` shown as it is in Markdown, inside a line: each mark that could format it
    there (or end a table cell) escaped with a backslash, as CommonMark allows."""
    return re.sub(r"([\\`*_\[\]<>|~])", r"\\\1", text)


def format_markdown(result: Leakage) -> str:
    lines = [
        f"**Eval texts a document contains** (word {GRAM}-gram containment "
        f">= {result.threshold:g})",
        "",
    ]
    if result.leaks:
        lines += [
            "| " + " | ".join(_HEADERS) + " |",
            "| --- | --- | --- | ---: | ---: |",
            *("| " + " | ".join(row) + " |" for row in _rows(result, markdown_text)),
            "",
        ]
    else:
        lines += ["No leaking text.", ""]
    # The per-field lines, indented under the summary in text, are a list here.
    lines += [
        f"- {markdown_text(ln.strip())}" if ln.startswith("  ") else markdown_text(ln)
        for ln in summary_lines(result)
    ]
    return "\n".join(lines) + "\n"


def format_leakage(result: Leakage, fmt: str = "text", *, width: int = 80) -> str:
    """``result`` in one of :data:`FORMATS` (text and markdown: containment to 3 decimals,
    with the shared count; json: every value, the containment to every digit)."""
    if fmt == "json":
        return json.dumps(result.to_dict(), indent=2) + "\n"
    if fmt == "markdown":
        return format_markdown(result)
    if fmt == "text":
        return format_text(result, width)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
