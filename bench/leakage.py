"""``prfeval leakage`` beside toolkit-rag-quality's ``leakage``, on the same generated files.

Usage::

    python bench/leakage.py [--docs 100000] [--words 100] [--items 1000] [--out DIR] [--reps 1]

Writes a corpus (``corpus.jsonl``, BEIR's layout: ``_id``, ``title``, ``text``) and eval
questions (``queries.jsonl``: ``_id``, ``text``) into ``--out`` (a temporary folder unless
given), then runs each tool's command line on them as a separate process, ``--reps`` times:

* ``prfeval leakage --corpus C --items Q --field text --format json --max-leaks N``
* ``toolkit-rag leakage --corpus C --items Q --field text --max-leaks N --max-records M``

and prints one JSON object: each tool's wall-clock seconds (every repetition and the fastest),
its count of leaking items, whether the counts agree (and the items themselves), and the ratio
of the fastest times.

What the files hold, so that both tools have real work to do:

- a vocabulary of ``--vocabulary`` made-up words whose frequencies follow Zipf's law
  (exponent 1.1), so that some 3-grams are in many documents, as "of the" is in English;
- documents of ``--words`` words on average (between half and one and a half times that);
  titles are empty, so that both tools read the same text (toolkit-rag reads title + text);
- eval questions of 8 to 20 words: a tenth copied word for word from a random document, a
  tenth copied with about a third of their words replaced (some above the threshold, some
  below), and the rest drawn from the vocabulary (they leak only by chance).

``--text templated`` and ``--text identical`` make text that repeats, where an index of
3-grams meets its worst case, at about the same size: templated, questions that differ in
one word of a 12-word template, and documents that each hold the template among their
words; identical, one question asked ``--items`` times and one document (holding it)
repeated ``--docs`` times. ``--no-peer`` runs prfeval alone. Beside the wall clock, the CPU
time (user + system) of each run is reported: repeated text should cost about what random
text of the same size costs.

Generation is seeded (the same arguments give the same files) and is not timed. A tool that is
missing or fails is reported with its error, not raised.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def vocabulary(size: int, rng: np.random.Generator) -> list[str]:
    """``size`` distinct made-up words of 2 to 9 letters."""
    out: set[str] = set()
    while len(out) < size:
        lengths = rng.integers(2, 10, size=size)
        for n in lengths.tolist():
            out.add("".join(rng.choice(LETTERS, n)))
            if len(out) == size:
                break
    return rng.permutation(sorted(out)).tolist()  # the common words, not the first letters


def generate(
    folder: Path, *, docs: int, words: int, items: int, vocab_size: int, seed: int = 20
) -> tuple[Path, Path]:
    """Write ``corpus.jsonl`` and ``queries.jsonl`` into ``folder``; return their paths."""
    rng = np.random.default_rng(seed)
    vocab = np.array(vocabulary(vocab_size, rng))
    weights = 1.0 / np.arange(1, vocab_size + 1) ** 1.1
    weights /= weights.sum()
    lengths = rng.integers(words // 2, words + words // 2 + 1, size=docs)
    drawn = vocab[rng.choice(vocab_size, size=int(lengths.sum()), p=weights)]
    ends = np.cumsum(lengths).tolist()
    texts = [" ".join(drawn[e - n : e]) for e, n in zip(ends, lengths.tolist(), strict=True)]
    folder.mkdir(parents=True, exist_ok=True)
    corpus = folder / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for i, text in enumerate(texts):
            out.write(json.dumps({"_id": f"doc{i}", "title": "", "text": text}) + "\n")
    queries = folder / "queries.jsonl"
    with queries.open("w", encoding="utf-8") as out:
        for i in range(items):
            n = int(rng.integers(8, 21))
            kind = rng.random()
            source = int(rng.integers(docs))
            text_words = texts[source].split()
            if kind < 0.2 and len(text_words) >= n:
                at = int(rng.integers(len(text_words) - n + 1))
                question = text_words[at : at + n]
                if kind >= 0.1:  # a partial copy: about a third of the words replaced
                    for j in np.flatnonzero(rng.random(n) < 1 / 3).tolist():
                        question[j] = str(vocab[rng.choice(vocab_size, p=weights)])
            else:
                question = vocab[rng.choice(vocab_size, size=n, p=weights)].tolist()
            out.write(json.dumps({"_id": f"q{i}", "text": " ".join(question) + "?"}) + "\n")
    return corpus, queries


TEMPLATE = "which of the rivers that flow through {} is the longest one in total"


def generate_repeated(folder: Path, *, kind: str, docs: int, words: int, items: int,
                      vocab_size: int, seed: int = 20) -> tuple[Path, Path]:
    """Write the ``templated`` or ``identical`` corpus and questions (see the notes)."""
    rng = np.random.default_rng(seed)
    vocab = np.array(vocabulary(vocab_size, rng))
    folder.mkdir(parents=True, exist_ok=True)
    corpus, queries = folder / "corpus.jsonl", folder / "queries.jsonl"
    if kind == "identical":
        filler = " ".join(vocab[rng.integers(vocab_size, size=words)].tolist())
        text = f"{filler} {TEMPLATE.format('europe')}"
        questions = [TEMPLATE.format("europe")] * items
        texts = [text] * docs
    else:
        names = vocab[rng.integers(vocab_size, size=items)].tolist()
        questions = [TEMPLATE.format(name) for name in names]
        drawn = vocab[rng.integers(vocab_size, size=docs * words)].reshape(docs, words)
        texts = [" ".join(row[: words // 2].tolist()) + " " + TEMPLATE.format("somewhere")
                 + " " + " ".join(row[words // 2 :].tolist()) for row in drawn]
    with corpus.open("w", encoding="utf-8") as out:
        for i, text in enumerate(texts):
            out.write(json.dumps({"_id": f"doc{i}", "title": "", "text": text}) + "\n")
    with queries.open("w", encoding="utf-8") as out:
        for i, question in enumerate(questions):
            out.write(json.dumps({"_id": f"q{i}", "text": question + "?"}) + "\n")
    return corpus, queries


def run_prfeval(corpus: Path, queries: Path, items: int) -> tuple[int, list[str]]:
    """prfeval's count of leaking items and their ids (from its JSON)."""
    done = subprocess.run(
        [sys.executable, "-m", "prfeval", "leakage", "--corpus", str(corpus), "--items",
         str(queries), "--field", "text", "--format", "json", "--max-leaks", str(items)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"prfeval exited {done.returncode}: {done.stderr.strip()}")
    report = json.loads(done.stdout)
    return int(report["leaking_items"]), sorted({k["item_id"] for k in report["leaks"]})


def run_toolkit(corpus: Path, queries: Path, items: int, docs: int) -> tuple[int, list[str]]:
    """toolkit-rag-quality's count of leaking items and their ids (from its JSON report)."""
    command = shutil.which("toolkit-rag") or str(Path(sys.executable).parent / "toolkit-rag")
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        done = subprocess.run(
            [command, "leakage", "--corpus", str(corpus), "--items", str(queries), "--field",
             "text", "--max-leaks", str(items), "--max-records", str(max(docs, items) + 1),
             "--out", str(report), "--format", "json"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"toolkit-rag exited {done.returncode}: {done.stderr.strip()}")
        text = report.read_text() if report.exists() and report.stat().st_size else done.stdout
    report = json.loads(text)
    leaks = _found(report, "leaks")
    return int(_found(report, "leaked_items")), sorted({k["item_id"] for k in leaks})


def _found(payload: Any, key: str) -> Any:
    """``payload[key]`` wherever the report nests it (its summary, details or top level)."""
    if isinstance(payload, dict):
        if key in payload:
            return payload[key]
        for value in payload.values():
            try:
                return _found(value, key)
            except KeyError:
                continue
    raise KeyError(key)


def timed(function: Any, reps: int) -> dict[str, Any]:
    """Seconds of each of ``reps`` calls and the result of the last, or the error."""
    seconds, cpu = [], []
    result = None
    try:
        for _ in range(reps):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            result = function()
            seconds.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    except Exception as exc:  # a missing or failing tool is reported, not raised
        return {"error": f"{type(exc).__name__}: {exc}"}
    count, ids = result
    return {"seconds": seconds, "best": min(seconds), "cpu_seconds": cpu,
            "best_cpu": min(cpu), "leaking_items": count, "ids": ids}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--words", type=int, default=100, help="mean words per document")
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--vocabulary", type=int, default=30_000)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="keep the files here")
    parser.add_argument("--text", choices=("random", "templated", "identical"),
                        default="random", help="what the files hold (see the notes)")
    parser.add_argument("--no-peer", action="store_true", help="run prfeval alone")
    args = parser.parse_args(argv)
    scratch = None
    folder = args.out
    if folder is None:
        scratch = tempfile.TemporaryDirectory()
        folder = Path(scratch.name)
    try:
        start = time.perf_counter()
        if args.text == "random":
            corpus, queries = generate(
                folder, docs=args.docs, words=args.words, items=args.items,
                vocab_size=args.vocabulary,
            )  # fmt: skip
        else:
            corpus, queries = generate_repeated(
                folder, kind=args.text, docs=args.docs, words=args.words, items=args.items,
                vocab_size=args.vocabulary,
            )  # fmt: skip
        made = time.perf_counter() - start
        ours = timed(lambda: run_prfeval(corpus, queries, args.items), args.reps)
        theirs = ({"skipped": "--no-peer"} if args.no_peer else
                  timed(lambda: run_toolkit(corpus, queries, args.items, args.docs), args.reps))
        result: dict[str, Any] = {
            "text": args.text,
            "docs": args.docs,
            "mean_words": args.words,
            "items": args.items,
            "corpus_mb": round(corpus.stat().st_size / 1e6, 1),
            "generated_in_seconds": round(made, 1),
            "prfeval": ours,
            "toolkit_rag_quality": theirs,
        }
        if "best" in ours and "best" in theirs:
            result["counts_agree"] = ours["leaking_items"] == theirs["leaking_items"]
            result["same_items"] = ours["ids"] == theirs["ids"]
            result["toolkit_over_prfeval"] = theirs["best"] / ours["best"]
        for tool in (ours, theirs):
            tool.pop("ids", None)  # compared above; too long to print
        print(json.dumps(result, indent=2))
        return 0 if result.get("counts_agree", True) else 1
    finally:
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    sys.exit(main())
