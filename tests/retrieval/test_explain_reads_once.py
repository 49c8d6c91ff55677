"""``explain --worst`` reads the run once: it works on a run that can be read only once (a
named pipe), and picks the queries pytrec_eval ranks lowest (ties by query number)."""

from __future__ import annotations

import json
import os
import threading

import pytest

from prfeval._retrieval.explain import explain_worst
from prfeval.cli import main
from support.hand_made import qrels_lines, run_dict_lines, write_lines
from support.random_data import judged_runs, rounded

pytrec_eval = pytest.importorskip("pytrec_eval")


def _data(seed: int = 3, n: int = 40):
    """Queries 1 to n, each judging 12 of 50 documents (grades 0 to 2) and ranking 20 of them
    by scores of three decimals."""
    qrels, (run,) = judged_runs(seed, queries=[str(q) for q in range(1, n + 1)], n_docs=50,
                                judged=12, grades=(0, 3), retrieved=20, scores=rounded(3))
    return qrels, run


def _write(tmp_path, qrels, run):
    """The judgments as a file, the run as the text of a file (for a pipe)."""
    write_lines(tmp_path / "qrels.trec", qrels_lines(qrels))
    return tmp_path / "qrels.trec", "".join(f"{line}\n" for line in run_dict_lines(run, "r"))


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
