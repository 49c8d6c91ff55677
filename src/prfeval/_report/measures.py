"""The registry as a report: ``prfeval measures`` and docs/measures.md read it from here."""

from __future__ import annotations

import json

from prfeval._measures import PARAMS, REGISTRY, TREC_REGISTRY

__all__ = ["FORMATS", "entries", "format_measures", "markdown_table"]

FORMATS = ("text", "json", "markdown")


def entries() -> list[dict[str, object]]:
    """The registry as plain data."""
    return [
        {
            "name": d.usage,
            "summary": d.summary,
            "formula": d.formula,
            "parameters": list(d.params),
            "aggregation": d.averages,
            "needs_collection_size": d.needs_tn,
            "aliases": list(d.aliases),
            "trec_eval": " / ".join(t.describe() for t in TREC_REGISTRY.trec.names_of(d.name))
            or None,
            "conventions": d.conventions,
        }
        for d in REGISTRY.values()
    ]


def markdown_table() -> str:
    """The registry as a Markdown table (docs/measures.md holds it)."""
    lines = [
        "| measure | formula | params | averages | trec_eval | meaning and conventions |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for e in entries():
        meaning = f"{e['summary']}."
        if e["conventions"]:
            meaning += f" {e['conventions']}"
        if e["needs_collection_size"]:
            meaning += " Needs `-N`."
        aliases = f" (aliases: {', '.join(e['aliases'])})" if e["aliases"] else ""  # type: ignore[arg-type]  # describe() gives a list of str here
        params = ", ".join(e["parameters"]) or "-"  # type: ignore[arg-type]  # describe() gives a list of str here
        lines.append(
            f"| `{e['name']}`{aliases} | {e['formula']} | {params} | {e['aggregation']} | "
            f"{e['trec_eval'] or '-'} | {meaning} |"
        )
    return "\n".join(lines)


def text_listing() -> str:
    """Every measure with its formula, parameters, averages and conventions, as text."""
    items = entries()
    lines = []
    for e in items:
        lines.append(f"{e['name']:<18} {e['summary']}")
        details = [f"formula: {e['formula']}"]
        if e["parameters"]:
            details.append(f"params: {', '.join(e['parameters'])}")  # type: ignore[arg-type]  # describe() gives a list of str here
        details.append(f"averages: {e['aggregation']}")
        if e["trec_eval"]:
            details.append(f"trec_eval: {e['trec_eval']}")
        if e["aliases"]:
            details.append(f"aliases: {', '.join(e['aliases'])}")  # type: ignore[arg-type]  # describe() gives a list of str here
        if e["needs_collection_size"]:
            details.append("needs -N")
        lines.append(" " * 19 + "; ".join(details))
        if e["conventions"]:
            lines.append(" " * 19 + str(e["conventions"]))
    lines += [
        "",
        "Parameters go in parentheses: P(rel=2)@10, SetF(beta=2), SetF(alpha=0.2).",
        *(f"  {p.name}: {p.doc}" for p in PARAMS.values()),
        "trec_eval's set_F.x takes x = beta^2: set_F.2 is F with beta = 1.414; SetF(beta=2) is F2.",
        "P and recall alone (trec_eval style) expand to cutoffs 5 10 15 20 30 100 200 500 1000.",
        "trec_eval's measures give trec_eval 9.0.8's numbers; --trec-eval-version 10 gives",
        "10.0's where it differs (recall levels rounded, doubles kept, -c rows for the judged",
        "queries without results). `prfeval trec_eval ARGS` takes trec_eval's command line",
        "and prints its output (-m all_trec, -q, -c, ...).",
    ]
    return "\n".join(lines)


def format_measures(fmt: str = "text") -> str:
    """The registry in one of :data:`FORMATS`."""
    if fmt == "json":
        return json.dumps(entries(), indent=2)
    if fmt == "markdown":
        return markdown_table()
    if fmt == "text":
        return text_listing()
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
