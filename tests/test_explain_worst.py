"""``explain --worst`` reads the run once: it works on a run that can be read only once (a
named pipe), and picks the queries pytrec_eval ranks lowest (ties by query number)."""

from __future__ import annotations

import json
import os
import threading

import numpy as np
import pytest

from prfeval._retrieval.explain import explain_worst
from prfeval.cli import main

pytrec_eval = pytest.importorskip("pytrec_eval")


def _data(seed: int = 3, n: int = 40):
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(1, n + 1):
        judged = rng.choice(50, size=12, replace=False)
        qrels[str(q)] = {f"d{d}": int(rng.integers(0, 3)) for d in judged}
        docs = rng.choice(50, size=20, replace=False)
        run[str(q)] = {f"d{d}": float(s) for d, s in zip(docs, np.round(rng.random(20), 3),
                                                         strict=True)}
    return qrels, run


def _write(tmp_path, qrels, run):
    (tmp_path / "qrels.trec").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    text = "".join(f"{q} Q0 {d} 0 {s} r\n" for q, docs in run.items() for d, s in docs.items())
    return tmp_path / "qrels.trec", text


def _worst_by_pytrec(qrels, run, n: int) -> list[str]:
    values = pytrec_eval.RelevanceEvaluator(qrels, {"P_5"}).evaluate(run)
    return sorted(values, key=lambda q: (values[q]["P_5"], int(q)))[:n]


def test_worst_from_a_pipe_read_once_are_pytrec_evals_lowest(tmp_path, capsys):
    qrels, run = _data()
    qrels_path, text = _write(tmp_path, qrels, run)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as pipe:  # one writer, once: a second read would hang
            pipe.write(text)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    with pytest.raises(SystemExit) as done:
        main(["explain", str(qrels_path), str(fifo), "--worst", "6", "-m", "P@5 R@10",
              "--format", "json"])
    writer.join(timeout=10)
    assert done.value.code == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    data = data if isinstance(data, list) else [data]
    assert [d["query"] for d in data] == _worst_by_pytrec(qrels, run, 6)
    values = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "recall_10"}).evaluate(run)
    for d in data:
        assert d["values"]["P@5"] == pytest.approx(values[d["query"]]["P_5"], abs=1e-12)
        assert d["values"]["R@10"] == pytest.approx(values[d["query"]]["recall_10"], abs=1e-12)


@pytest.mark.parametrize("blocks", [False, True])
def test_worst_in_blocks_is_the_same_and_asked_queries_come_first(tmp_path, blocks):
    qrels, run = _data(seed=8, n=300)
    qrels_path, text = _write(tmp_path, qrels, run)
    (tmp_path / "run.trec").write_text(text)
    got = explain_worst(qrels_path, tmp_path / "run.trec", 10, "P@5", queries=["7"],
                        stream=blocks)
    want = _worst_by_pytrec(qrels, run, 10)
    assert [e.query for e in got] == ["7", *(q for q in want if q != "7")]
    ranked = sorted(run["7"].items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    assert [d.doc_id for d in got[0].ranking] == [d for d, _ in ranked[:5]]
