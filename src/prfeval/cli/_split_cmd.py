"""``prfeval split QRELS --holdout 0.2 --seed N --out DIR``: development and held-out queries."""

from __future__ import annotations

import json
from pathlib import Path

import click

from prfeval._comparison.split import write_split
from prfeval.cli._options import files
from prfeval.cli._output import emit, note


@click.command("split")
@click.argument("qrels", metavar="QRELS")
@click.option(
    "--holdout",
    type=click.FloatRange(0, 1),
    default=0.2,
    show_default=True,
    help="Share of the queries to hold out (each query with this probability).",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the hash: another seed gives an independent split.",
)
@click.option(
    "--out",
    "out_dir",
    required=True,
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Folder for dev.queries, heldout.queries, dev.qrels, heldout.qrels and "
    "split.json (created if missing).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How to report what was written.",
)
@files(inputs=("qrels",))
def command(qrels: str, holdout: float, seed: int, out_dir: str, fmt: str) -> None:
    """Split the judged queries of QRELS into development and held-out sets.

    A query's side depends only on its id and the seed, so adding queries later never moves
    the old ones. Tune with `--queries DIR/dev.queries`; evaluate with
    `--queries DIR/heldout.queries` once, at the end.
    """
    split = write_split(qrels, out_dir, holdout, seed=seed)
    out = Path(out_dir)
    n = len(split.dev) + len(split.heldout)
    for side, ids in (("development", split.dev), ("held-out", split.heldout)):
        if not ids:
            note(f"warning: the {side} set is empty: {n} queries, holdout {split.holdout:g}")
    if fmt == "json":
        summary = {
            "out": str(out),
            "holdout": split.holdout,
            "seed": split.seed,
            "n_dev": len(split.dev),
            "n_heldout": len(split.heldout),
            "files": [
                str(out / f)
                for f in (
                    "dev.queries",
                    "dev.qrels",
                    "heldout.queries",
                    "heldout.qrels",
                    "split.json",
                )
            ],
        }
        emit(json.dumps(summary, indent=2), None)
        return
    share = len(split.heldout) / n if n else 0.0
    emit(
        "\n".join(
            [
                f"Split {n} judged queries of {qrels} (holdout {split.holdout:g}, seed {seed}):",
                f"  dev:      {len(split.dev):>6} queries -> {out / 'dev.queries'}, "
                f"{out / 'dev.qrels'}",
                f"  held out: {len(split.heldout):>6} queries ({share:.1%}) -> "
                f"{out / 'heldout.queries'}, {out / 'heldout.qrels'}",
                f"  method and lists: {out / 'split.json'}",
                "Tune on dev (--queries dev.queries); evaluate on held out once, at the end.",
            ]
        ),
        None,
    )
