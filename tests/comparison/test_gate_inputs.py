"""What the gate reads, checked: runs in different layouts are compared by what their
rankings mean; budgets and floors are read in decimal only; a tampered saved baseline is
refused naming the file and the field.

The run is one ranking written three ways (a scored TREC run, JSON Lines lists in rank
order, MS MARCO's ``qid docid rank``), so every layout gives the same values by hand:
q1 ranks its relevant p1 first, q2 ranks nothing relevant, P@1 = 0.5.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import prfeval
from support.cli import run_cli

QRELS = "q1 0 p1 1\nq2 0 p4 1\n"
LAYOUTS = {
    "scored.run": "q1 Q0 p1 1 3.0 r\nq1 Q0 p2 2 1.5 r\nq2 Q0 p3 1 2.0 r\n",
    "lists.jsonl": '{"query_id": "q1", "doc_id": ["p1", "p2"]}\n'
    '{"query_id": "q2", "doc_id": ["p3"]}\n',
    "msmarco.tsv": "q1\tp1\t1\nq1\tp2\t2\nq2\tp3\t1\n",
}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    out = {"qrels": tmp_path / "gold.qrels"}
    out["qrels"].write_text(QRELS)
    for name, text in LAYOUTS.items():
        (tmp_path / name).write_text(text)
        out[name] = tmp_path / name
    return {k: str(v) for k, v in out.items()}


@pytest.mark.parametrize("other", ["lists.jsonl", "msmarco.tsv"])
@pytest.mark.parametrize("saved", [False, True], ids=["run", "saved"])
def test_layouts_are_compared_by_their_rankings(files, capsys, tmp_path, other, saved) -> None:
    base = files["scored.run"]
    if saved:
        base = str(tmp_path / "base.json")
        code, _, err = run_cli(capsys, "evaluate", files["qrels"], files[other], "-m", "P@1",
                               "--format", "json", "-q", "-o", base)  # fmt: skip
        assert code == 0, err
        cand = files["scored.run"]
    else:
        cand = files[other]
    code, out, err = run_cli(capsys, "gate", files["qrels"], base, cand, "-m", "P@1",
                             "--format", "json")  # fmt: skip
    assert code == 0, err
    (m,) = json.loads(out)["measures"]
    assert (m["baseline"], m["candidate"]) == (0.5, 0.5)


def test_an_order_asked_must_be_the_saved_one(files, capsys, tmp_path) -> None:
    base = str(tmp_path / "base.json")
    run_cli(capsys, "evaluate", files["qrels"], files["msmarco.tsv"], "-m", "P@1",
            "--format", "json", "-q", "-o", base)  # fmt: skip
    code, _, err = run_cli(capsys, "gate", files["qrels"], base, files["scored.run"], "-m",
                           "P@1", "--order", "score")  # fmt: skip
    assert code == 2 and "not comparable" in err


@pytest.mark.parametrize("budget", ["0_02", "1_0", "٠.٠٢", "0.0２", "inf", "nan", "1e", "2_%"])
def test_budgets_not_in_decimal_digits_are_refused(files, capsys, budget) -> None:
    code, _, err = run_cli(capsys, "gate", files["qrels"], files["scored.run"],
                           files["scored.run"], "-m", "P@1", "--max-drop", f"P@1={budget}")
    assert code == 2, err
    assert repr(budget) in err and "Traceback" not in err
    with pytest.raises(prfeval.UsageError):
        prfeval.gate(files["qrels"], files["scored.run"], files["scored.run"], "P@1",
                     max_drop={"P@1": budget})  # fmt: skip


@pytest.mark.parametrize("floor", ["0_5", "٠.٥", "inf"])
def test_floors_not_in_decimal_digits_are_refused(files, capsys, floor) -> None:
    code, _, err = run_cli(capsys, "gate", files["qrels"], files["scored.run"],
                           files["scored.run"], "-m", "P@1", "--min", f"P@1={floor}")
    assert code == 2 and repr(floor) in err, err


@pytest.mark.parametrize("budget, amount", [("0.02", 0.02), ("2e-2", 0.02), (".5", 0.5),
                                            ("2%", 2.0), (" 1 ", 1.0)])  # fmt: skip
def test_decimal_budgets_are_read(files, budget, amount) -> None:
    result = prfeval.gate(files["qrels"], files["scored.run"], files["scored.run"], "P@1",
                          max_drop={"P@1": budget})  # fmt: skip
    assert result.verdict("P@1").budget.amount == amount


def _saved(capsys, files, tmp_path) -> tuple[str, dict]:
    path = str(tmp_path / "base.json")
    code, _, err = run_cli(capsys, "evaluate", files["qrels"], files["scored.run"], "-m",
                           "P@1", "-m", "AP", "--format", "json", "-q", "-o", path)
    assert code == 0, err
    return path, json.loads(Path(path).read_text())


def _gate_tampered(capsys, files, path, document) -> tuple[int, str]:
    Path(path).write_text(json.dumps(document))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a raw numpy warning fails the test
        code, _, err = run_cli(capsys, "gate", files["qrels"], path, files["scored.run"],
                               "-m", "P@1 AP")  # fmt: skip
    return code, err


@pytest.mark.parametrize("how", ["every", "one"])
def test_a_huge_per_query_value_is_refused(files, capsys, tmp_path, how) -> None:
    path, document = _saved(capsys, files, tmp_path)
    if how == "every":
        for row in document["per_query"].values():
            row["AP"] = 1e308
    else:  # the macro made to agree: only the value itself gives it away
        document["per_query"]["q1"]["AP"] = 1e308
        document["macro"]["AP"] = 5e307
    code, err = _gate_tampered(capsys, files, path, document)
    assert code == 2
    assert "base.json" in err and 'per_query."q1"."AP"' in err
    assert "warning" not in err.lower() and "Traceback" not in err


def test_a_setting_of_the_wrong_type_is_named(files, capsys, tmp_path) -> None:
    path, document = _saved(capsys, files, tmp_path)
    document["settings"]["level"] = "1"
    code, err = _gate_tampered(capsys, files, path, document)
    assert code == 2
    assert "base.json" in err and "settings.level" in err and "'1'" in err
    assert "not comparable" not in err  # not another level: a damaged file


def test_a_macro_that_disagrees_with_its_per_query_values(files, capsys, tmp_path) -> None:
    path, document = _saved(capsys, files, tmp_path)
    document["macro"]["AP"] = 0.9  # by hand: AP is 1 for q1 and 0 for q2, mean 0.5
    code, err = _gate_tampered(capsys, files, path, document)
    assert code == 2
    assert "base.json" in err and 'macro."AP"' in err and "0.9" in err and "0.5" in err
