"""Small, clean TREC files read as dicts (no Arrow): the same numbers as pytrec_eval
(trec_eval 9.0.8) and as the table path, the same errors for a malformed line, and the
table path for anything the dicts cannot say (a repeated document, a rank order).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import prfeval
from prfeval._core.options import EvalOptions
from prfeval._io.small_trec import SMALL_BYTES, small_trec
from support.cli import run_cli

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = {"P@10": "P_10", "nDCG@10": "ndcg_cut_10", "AP": "map", "R@100": "recall_100",
            "bpref": "bpref", "RR": "recip_rank"}  # fmt: skip


def _files(tmp_path: Path, seed: int = 3, queries: int = 12) -> tuple[str, str]:
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        docs = [f"d{q}-{i}" for i in range(40)]
        for d in rng.sample(docs, 8):
            qrels.append(f"q{q} 0 {d} {rng.choice([0, 1, 2])}")
        for i, d in enumerate(rng.sample(docs, 30)):
            score = rng.choice([1.5, 2.25, 3.0, round(rng.random(), 3)])  # ties on purpose
            run.append(f"q{q} Q0 {d} {i + 1} {score} tag1")
    (tmp_path / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run.txt").write_text("\n".join(run) + "\n")
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def _pytrec(qrels: str, run: str) -> dict[str, float]:
    q: dict[str, dict[str, int]] = {}
    for line in Path(qrels).read_text().split("\n"):
        if line.strip():
            a, _, d, g = line.split()
            q.setdefault(a, {})[d] = int(g)
    r: dict[str, dict[str, float]] = {}
    for line in Path(run).read_text().split("\n"):
        if line.strip():
            a, _, d, _, s, _ = line.split()
            r.setdefault(a, {})[d] = float(s)
    per = pytrec_eval.RelevanceEvaluator(q, set(MEASURES.values())).evaluate(r)
    return {m: sum(v[t] for v in per.values()) / len(per) for m, t in MEASURES.items()}


def test_read_as_dicts_and_equal_to_pytrec_eval(tmp_path) -> None:
    qrels, run = _files(tmp_path)
    assert small_trec(qrels, run, EvalOptions()) is not None
    result = prfeval.evaluate(qrels, run, " ".join(MEASURES))
    for m, value in _pytrec(qrels, run).items():
        assert result.macro[m] == pytest.approx(value, abs=1e-12), m


@pytest.mark.parametrize("options", [
    {}, {"level": 2}, {"max_results": 5}, {"complete": True}, {"trec_eval_version": 10},
    {"unjudged": "relevant"}, {"queries": ["q1", "q3", "q5"]}, {"exclude_queries": ["q2"]},
])  # fmt: skip
def test_the_same_numbers_as_the_table_path(tmp_path, options) -> None:
    qrels, run = _files(tmp_path)
    measures = " ".join(MEASURES) + " runid NumRet"
    small = prfeval.evaluate(qrels, run, measures, **options)
    # The same files read by the tables' readers: as bytes, which small_trec never takes.
    table = prfeval.evaluate(Path(qrels).read_bytes(), Path(run).read_bytes(), measures,
                             **options)  # fmt: skip
    assert small.query_ids == table.query_ids
    assert small.macro == table.macro and small.micro == table.micro
    assert (small.values == table.values).all()
    assert small.text == table.text and small.text_summary["runid"] == "tag1"
    assert small.accounting == table.accounting


def test_what_dicts_cannot_say_goes_to_the_tables(tmp_path) -> None:
    qrels, run = _files(tmp_path)
    options = EvalOptions()
    text = Path(run).read_text()
    repeated = tmp_path / "repeated.txt"
    repeated.write_text(text + text.splitlines()[0] + "\n")  # a document retrieved twice
    assert small_trec(qrels, str(repeated), options) is None
    assert small_trec(qrels, run, EvalOptions(order="rank")) is None
    big = tmp_path / "big.txt"
    big.write_text(text * (SMALL_BYTES // len(text) + 1))
    assert small_trec(qrels, str(big), options) is None
    judged_twice = tmp_path / "qrels2.txt"
    judged_twice.write_text(Path(qrels).read_text() + "q0 0 x 1\nq0 0 x 0\n")
    assert small_trec(str(judged_twice), run, options) is None
    two_tags = tmp_path / "tags.txt"
    two_tags.write_text(text + "q0 Q0 zz 99 0.1 other\n")
    assert small_trec(qrels, str(two_tags), options) is None
    # A repeated document is counted as the duplicates rule says, on the table path.
    result = prfeval.evaluate(qrels, str(repeated), "P@10")
    assert result.accounting.duplicates == 1


def test_a_malformed_line_gets_the_readers_message(tmp_path, capsys) -> None:
    qrels, run = _files(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text(Path(run).read_text() + "q1 Q0 dz 3 0.5\n")
    assert small_trec(qrels, str(bad), EvalOptions()) is None
    code, _, err = run_cli(capsys, "evaluate", qrels, str(bad))
    assert code == 2 and f"{bad}:361:" in err


def test_a_small_evaluation_imports_no_arrow(tmp_path) -> None:
    qrels, run = _files(tmp_path)
    script = ("import sys; from prfeval.cli import main\n"
              "try:\n    main(['evaluate', sys.argv[1], sys.argv[2], '-m', 'P@10 AP', "
              "'--format', 'json', '-q'])\nexcept SystemExit:\n    pass\n"
              "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pyarrow'))), "
              "file=sys.stderr)\n").replace("import sys;", "import sys, json;")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script, qrels, run], capture_output=True,
                          text=True, check=True, timeout=120)  # fmt: skip
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
    assert json.loads(done.stdout)["macro"]["P@10"] == pytest.approx(
        _pytrec(qrels, run)["P@10"], abs=1e-12)
