"""``prfeval overlap`` on two generated corpora, at several sizes: is the time near linear?

Usage::

    python bench/overlap.py [--docs 10000,30000,100000] [--words 200] [--text random|templated]
                            [--out DIR]

For each size N, writes two corpora of N documents of ``--words`` words each (JSON Lines:
``id``, ``text``) into ``--out`` (a temporary folder unless given), then runs
``prfeval overlap A B --format json`` once as a separate process and prints one JSON object
a size: the wall-clock and CPU seconds, the pairs found against the pairs planted, and the
seconds per thousand documents (constant when the time is linear in the input).

The text:

- ``random``: words drawn from a vocabulary of 50,000 made-up words with Zipf frequencies
  (exponent 1.1), so that common 3-grams are in many documents; 1% of B's documents are
  copies of A's (punctuation and case changed: exact), 1% are A's with 5% of their words
  replaced by chance with probability 2% (near: about 4 words of 200, Jaccard about 0.89),
  and 1% with 40% replaced (far below 0.8).
- ``templated``: every document is one 200-word template with 2% of its words replaced,
  so that nearly every pair is a near-duplicate: the case where banding alone would make a
  quadratic number of candidates.

No peer is run: toolkit-rag-quality's ``overlap`` is not installed here. Generation is
seeded and not timed.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def vocabulary(size: int, rng: np.random.Generator) -> np.ndarray:
    lengths = rng.integers(3, 10, size=size * 2)
    letters = LETTERS[rng.integers(0, 26, size=int(lengths.sum()))]
    words = np.split(letters, np.cumsum(lengths)[:-1])
    return np.array(list(dict.fromkeys("".join(w) for w in words))[:size])


def corpora(n: int, words: int, text: str, rng: np.random.Generator) -> tuple[list, list, int]:
    vocab = vocabulary(50_000, rng)
    weights = 1.0 / np.arange(1, vocab.size + 1) ** 1.1
    weights /= weights.sum()
    if text == "templated":
        template = rng.choice(vocab.size, size=words, p=weights)
        docs = np.tile(template, (2 * n, 1))
        edits = rng.random(docs.shape) < 0.02
        docs[edits] = rng.choice(vocab.size, size=int(edits.sum()), p=weights)
        a, b = docs[:n], docs[n:]
        planted = 0
    else:
        a = rng.choice(vocab.size, size=(n, words), p=weights)
        b = rng.choice(vocab.size, size=(n, words), p=weights)
        k = max(n // 100, 1)
        src = rng.choice(n, size=3 * k, replace=False)
        b[:k] = a[src[:k]]
        for rows, share in ((slice(k, 2 * k), 0.02), (slice(2 * k, 3 * k), 0.40)):
            block = a[src[rows]].copy()
            edits = rng.random(block.shape) < share
            block[edits] = rng.choice(vocab.size, size=int(edits.sum()), p=weights)
            b[rows] = block
        planted = 2 * k
    text_a = [" ".join(vocab[row]) for row in a]
    text_b = [" ".join(vocab[row]) for row in b]
    if text == "random":
        k = max(n // 100, 1)
        text_b[:k] = [t.upper().replace(" ", ", ") for t in text_b[:k]]
    return text_a, text_b, planted


def write(path: Path, prefix: str, texts: list[str]) -> None:
    with path.open("w") as out:
        for i, t in enumerate(texts):
            out.write(json.dumps({"id": f"{prefix}{i}", "text": t}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", default="10000,30000,100000")
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--text", choices=("random", "templated"), default="random")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="prfeval-overlap-"))
    out.mkdir(parents=True, exist_ok=True)
    for n in (int(x) for x in args.docs.split(",")):
        rng = np.random.default_rng(20261207 + n)
        text_a, text_b, planted = corpora(n, args.words, args.text, rng)
        a, b = out / f"a-{n}.jsonl", out / f"b-{n}.jsonl"
        write(a, "a", text_a)
        write(b, "b", text_b)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "prfeval", "overlap", str(a), str(b),
                               "--format", "json"], capture_output=True, text=True)  # fmt: skip
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        row: dict[str, object] = {"docs_per_side": n, "words": args.words, "text": args.text,
                                  "exit": done.returncode, "seconds": round(wall, 2),
                                  "cpu_seconds": round(cpu, 2),
                                  "seconds_per_1000_docs": round(wall / (2 * n) * 1000, 4),
                                  "input_mib": round((a.stat().st_size + b.stat().st_size)
                                                     / 2**20, 1)}  # fmt: skip
        if done.returncode in (0, 1):
            report = json.loads(done.stdout)
            row.update(exact=report["exact_pairs"], near=report["near_pairs"],
                       planted=planted, starred=report["starred_buckets"])
        else:
            row["error"] = done.stderr.strip()
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
