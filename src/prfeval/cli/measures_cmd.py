"""``prfeval measures``: every measure in the registry, with its formula and conventions."""

from __future__ import annotations

import json

import click

from prfeval.cli.output import emit
from prfeval.measures import PARAMS, REGISTRY


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
            "trec_eval": None if d.trec_eval is None else d.trec_eval.describe(),
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
        aliases = f" (aliases: {', '.join(e['aliases'])})" if e["aliases"] else ""  # type: ignore[arg-type]
        params = ", ".join(e["parameters"]) or "-"  # type: ignore[arg-type]
        lines.append(
            f"| `{e['name']}`{aliases} | {e['formula']} | {params} | {e['aggregation']} | "
            f"{e['trec_eval'] or '-'} | {meaning} |"
        )
    return "\n".join(lines)


@click.command("measures")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
def command(fmt: str) -> None:
    """List every measure: name, formula, parameters, trec_eval name and conventions."""
    items = entries()
    if fmt == "json":
        emit(json.dumps(items, indent=2), None)
        return
    if fmt == "markdown":
        emit(markdown_table(), None)
        return
    lines = []
    for e in items:
        lines.append(f"{e['name']:<18} {e['summary']}")
        details = [f"formula: {e['formula']}"]
        if e["parameters"]:
            details.append(f"params: {', '.join(e['parameters'])}")  # type: ignore[arg-type]
        details.append(f"averages: {e['aggregation']}")
        if e["trec_eval"]:
            details.append(f"trec_eval: {e['trec_eval']}")
        if e["aliases"]:
            details.append(f"aliases: {', '.join(e['aliases'])}")  # type: ignore[arg-type]
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
    ]
    emit("\n".join(lines), None)
