"""Generate a seeded classifier output for the ``classify`` benchmark: true and predicted labels.

Usage::

    python bench/generate_labels.py --items 5000000 --classes 10 --out bench/data/labels-5m

writes ``labels.csv`` (a header ``true,pred``, then one item a line) and ``meta.json`` (the
parameters, so that ``--reuse`` can tell whether the file is current).

What the data looks like: the true classes have unequal prevalences (drawn from a Dirichlet
distribution), and the classifier is right about 70 % of the time and otherwise predicts a
class at random, so every class has true and false positives and the averages differ.
Labels are the integers ``0 .. classes - 1`` (``--text`` writes ``class0`` ... instead).
The columns are built with numpy and written with pyarrow's CSV writer: no Python loop runs
per item.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

FORMAT = 1
"""Bumped whenever the output for a given spec changes, so old files are rebuilt."""


@dataclass(frozen=True)
class LabelSpec:
    """Every parameter that determines the generated file (same spec, same bytes)."""

    items: int
    classes: int
    accuracy: float = 0.7
    text: bool = False
    seed: int = 42


def generate(spec: LabelSpec) -> pa.Table:
    """The ``true`` and ``pred`` columns of ``spec``."""
    rng = np.random.default_rng(spec.seed)
    prevalence = rng.dirichlet(np.full(spec.classes, 3.0))
    true = rng.choice(spec.classes, size=spec.items, p=prevalence)
    wrong = rng.random(spec.items) >= spec.accuracy
    pred = np.where(wrong, rng.integers(0, spec.classes, spec.items), true)
    if not spec.text:
        return pa.table({"true": true, "pred": pred})
    names = pa.array([f"class{i}" for i in range(spec.classes)])
    return pa.table(
        {
            name: pa.DictionaryArray.from_arrays(codes.astype(np.int32), names).dictionary_decode()
            for name, codes in (("true", true), ("pred", pred))
        }
    )


def current_meta(spec: LabelSpec, out: Path) -> dict[str, Any] | None:
    """The folder's meta if it was generated from ``spec`` by this version, else ``None``."""
    try:
        meta: dict[str, Any] = json.loads((out / "meta.json").read_text())
    except (OSError, ValueError):
        return None
    ok = meta.get("format") == FORMAT and meta.get("spec") == asdict(spec)
    return meta if ok and (out / "labels.csv").exists() else None


def write(spec: LabelSpec, out: Path) -> dict[str, Any]:
    """Write ``labels.csv`` and ``meta.json`` under ``out``; return the meta."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "labels.csv"
    options = pacsv.WriteOptions(quoting_style="none", quoting_header="none")
    pacsv.write_csv(generate(spec), path, write_options=options)
    meta = {
        "format": FORMAT,
        "spec": asdict(spec),
        "items": spec.items,
        "bytes": path.stat().st_size,
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--items", type=int, default=5_000_000)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--accuracy", type=float, default=0.7)
    p.add_argument("--text", action="store_true", help="labels class0 ... instead of 0 ...")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--reuse", action="store_true", help="keep a current file")
    args = p.parse_args(argv)
    if args.items < 1 or args.classes < 2 or not 0.0 <= args.accuracy <= 1.0:
        p.error("need --items >= 1, --classes >= 2 and --accuracy in [0, 1]")
    spec = LabelSpec(args.items, args.classes, args.accuracy, args.text, args.seed)
    meta = (current_meta(spec, args.out) if args.reuse else None) or write(spec, args.out)
    print(json.dumps(meta, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
