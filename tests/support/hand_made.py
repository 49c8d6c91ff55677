"""Small references the tests build by hand, shared so that each is written once: Holm's
correction step by step, and the TREC lines and files the tests write from dicts. The random
judgments and runs the tests draw are tests/support/random_data.py's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]


def holm_by_hand(p: list[float]) -> list[float]:
    """Holm, step by step: the i-th smallest times (m - i + 1), running max, capped at 1."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


# -- TREC files ---------------------------------------------------------------------------


def qrels_lines(qrels: Qrels) -> list[str]:
    """Judgments as TREC qrels lines ``query 0 doc grade``, in the dicts' order."""
    return [f"{q} 0 {d} {g}" for q, docs in qrels.items() for d, g in docs.items()]


def run_lines(
    rankings: Iterable[tuple[str, Iterable[tuple[str, float]]]], tag: str = "tag"
) -> list[str]:
    """Rankings ``[(query, [(doc, score), ...])]`` as TREC run lines ``query Q0 doc rank score
    tag``: ranks from 1 in the order given (a document may repeat), scores written by
    ``repr`` so that they read back to the same float."""
    return [
        f"{q} Q0 {d} {rank} {s!r} {tag}"
        for q, pairs in rankings
        for rank, (d, s) in enumerate(pairs, start=1)
    ]


def run_dict_lines(run: Run, tag: str = "tag") -> list[str]:
    """A run ``{query: {doc: score}}`` as TREC run lines, in the dicts' order."""
    return run_lines(((q, docs.items()) for q, docs in run.items()), tag)


def write_lines(path: Path, lines: Iterable[str]) -> Path:
    """``lines`` to ``path``, each ended by a newline, as UTF-8."""
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def write_trec(folder: Path, qrels: Qrels, run: Run) -> tuple[Path, Path]:
    """The dicts as ``folder/qrels.txt`` and ``folder/run.txt``, in the dicts' order."""
    return (
        write_lines(folder / "qrels.txt", qrels_lines(qrels)),
        write_lines(folder / "run.txt", run_dict_lines(run)),
    )


def write_texts(folder: Path, texts: Mapping[str, str]) -> tuple[str, ...]:
    """Each ``{file name: text}`` written in ``folder``: the paths, as strings, in that order."""
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return tuple(str(folder / name) for name in texts)
