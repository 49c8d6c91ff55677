"""``prfeval classify``: formats in, tables / JSON / CSV out, bad input as one line + exit 2."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    balanced_accuracy_score,
    confusion_matrix,
    precision_recall_curve,
    precision_recall_fscore_support,
    roc_auc_score,
)
from sklearn.preprocessing import label_binarize

from prfeval.cli import main

TRUE = ["cat", "cat", "cat", "dog", "dog", "fish"]
PRED = ["cat", "cat", "dog", "dog", "fish", "fish"]
SCORE = [0.9, 0.8, 0.4, 0.35, 0.2, 0.1]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def write_csv(path: Path, rows: list[list[object]], header: list[str], sep: str = ",") -> Path:
    path.write_text("\n".join(sep.join(map(str, r)) for r in [header, *rows]) + "\n")
    return path


@pytest.fixture
def animals(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "animals.csv", [list(r) for r in zip(TRUE, PRED, SCORE,
                                                                      strict=True)],
                     ["true", "pred", "score"])


def test_table_shows_matrix_per_class_and_labelled_averages(animals, capsys):
    code, out, err = run(["classify", str(animals)], capsys)
    assert code == 0 and err == ""
    assert "Confusion matrix: a row per true class, a column per predicted class" in out
    # hand counts: cat 2 right, 1 called dog; dog 1 right, 1 called fish; fish 1 right
    matrix_rows = [line.split() for line in out.splitlines()
                   if line.split()[:1] in (["cat"], ["dog"], ["fish"])][:3]
    assert matrix_rows == [["cat", "2", "1", "0"], ["dog", "0", "1", "1"],
                           ["fish", "0", "0", "1"]]
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.split()}
    # cat: P 2/2, R 2/3, F1 0.8; dog: P 1/2, R 1/2; fish: P 1/2, R 1
    # mean F1 (0.8 + 0.5 + 2/3) / 3
    assert rows["macro"][1:4] == ["0.6667", "0.7222", "0.6556"]  # P, R, mean F1
    assert "F1 of mean P, R" in out  # 2 (2/3)(13/18) / (2/3 + 13/18) = 0.6933
    f_of_means = next(line for line in out.splitlines() if "F1 of mean P, R" in line)
    assert f_of_means.split()[-2] == "0.6933"
    assert "Accuracy: 0.6667" in out  # 4 of 6
    assert "micro precision = micro recall = micro F1 = accuracy" in out
    assert "bal. acc" not in out and "no-skill P" not in out


def test_json_agrees_with_sklearn(animals, capsys):
    code, out, _ = run(["classify", str(animals), "--format", "json", "--beta", "2"], capsys)
    assert code == 0
    d = json.loads(out)
    p, r, f, s = precision_recall_fscore_support(TRUE, PRED, beta=2)
    for i, label in enumerate(["cat", "dog", "fish"]):
        row = d["per_class"][label]
        assert [row["precision"], row["recall"], row["f"], row["support"]] == pytest.approx(
            [p[i], r[i], f[i], s[i]])
        assert "specificity" in row
    for average in ("micro", "macro", "weighted"):
        theirs = precision_recall_fscore_support(TRUE, PRED, beta=2, average=average)[:3]
        assert [d[average][k] for k in ("precision", "recall", "f")] == pytest.approx(theirs)
    assert d["accuracy"] == pytest.approx(accuracy_score(TRUE, PRED))
    assert d["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(TRUE, PRED))
    assert d["confusion_matrix"] == {"labels": ["cat", "dog", "fish"],
                                     "matrix": confusion_matrix(TRUE, PRED).tolist()}
    assert d["no_skill"]["per_class"]["cat"]["precision"] == pytest.approx(3 / 6)


def test_csv_rows(animals, capsys):
    code, out, _ = run(["classify", str(animals), "--format", "csv"], capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["row"] for r in rows] == ["class"] * 3 + ["micro", "macro", "weighted",
                                                         "f_of_means", "accuracy",
                                                         "balanced_accuracy", "mcc", "kappa",
                                                         "kappa_linear", "kappa_quadratic"]
    cat = rows[0]
    assert (cat["label"], cat["tp"], cat["fp"], cat["fn"], cat["tn"]) == ("cat", "2", "0", "1",
                                                                          "3")
    assert float(cat["recall"]) == pytest.approx(2 / 3)
    assert float(rows[-6]["value"]) == pytest.approx(4 / 6)


def test_score_sweep_json_agrees_with_sklearn(animals, capsys):
    code, out, _ = run(["classify", str(animals), "--score", "score", "--pos-label", "cat",
                        "--format", "json"], capsys)
    assert code == 0
    sweep = json.loads(out)["sweep"]
    positive = np.array(TRUE) == "cat"
    precision, recall, thresholds = precision_recall_curve(positive, SCORE)
    assert sweep["thresholds"] == pytest.approx(thresholds[::-1])
    assert sweep["precision"] == pytest.approx(precision[:-1][::-1])
    assert sweep["recall"] == pytest.approx(recall[:-1][::-1])
    assert sweep["best"]["threshold"] == 0.4  # TP 3, FP 0: F1 = 1
    assert sweep["best"]["f"] == pytest.approx(1.0)


def test_score_and_pred_in_the_table(animals, capsys):
    code, out, _ = run(["classify", str(animals), "--score", "score", "--pred", "pred",
                        "--pos-label", "cat"], capsys)
    assert code == 0
    assert "Confusion matrix" in out and "Threshold sweep, positive class 'cat'" in out
    assert "the best F1, 1.0000, is at threshold 0.4000" in out


def test_score_sweep_csv_with_integer_labels(tmp_path, capsys):
    path = write_csv(tmp_path / "s.tsv", [[1, 0.9], [0, 0.8], [1, 0.3]], ["label", "p"], "\t")
    code, out, _ = run(["classify", str(path), "--true", "label", "--score", "p",
                        "--format", "csv"], capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["threshold"], r["tp"], r["fp"]) for r in rows] == [("0.9", "1", "0"),
                                                                  ("0.8", "1", "1"),
                                                                  ("0.3", "2", "1")]


def test_two_one_label_per_line_files(tmp_path, capsys):
    t = tmp_path / "true.txt"
    p = tmp_path / "pred.txt"
    t.write_text("\n".join(TRUE) + "\n")
    p.write_text("\r\n".join(PRED))  # CRLF, no final newline
    code, out, _ = run(["classify", str(t), str(p), "--format", "json"], capsys)
    assert code == 0
    assert json.loads(out)["accuracy"] == pytest.approx(4 / 6)


def test_integer_labels_in_text_files_are_integers(tmp_path, capsys):
    t, p = tmp_path / "t.txt", tmp_path / "p.txt"
    t.write_text("10\n2\n2\n")
    p.write_text("10\n10\n2\n")
    code, out, _ = run(["classify", str(t), str(p), "--format", "json"], capsys)
    assert code == 0
    assert json.loads(out)["confusion_matrix"]["labels"] == [2, 10]  # numeric order


def test_jsonl_with_label_lists_is_multilabel(tmp_path, capsys):
    path = tmp_path / "ml.jsonl"
    rows = [{"true": ["a", "b"], "pred": ["a"]}, {"true": ["c"], "pred": ["b", "c"]},
            {"true": [], "pred": ["a"]}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, out, _ = run(["classify", str(path), "--format", "json", "--zero-division", "0"],
                       capsys)
    assert code == 0
    d = json.loads(out)
    indicator_t = np.array([[1, 1, 0], [0, 0, 1], [0, 0, 0]])
    indicator_p = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0]])
    theirs = precision_recall_fscore_support(indicator_t, indicator_p, average="samples",
                                             zero_division=0)[:3]
    assert [d["samples"][k] for k in ("precision", "recall", "f")] == pytest.approx(theirs)
    assert d["multilabel"] is True


def test_label_sep_and_table_for_multilabel(tmp_path, capsys):
    path = write_csv(tmp_path / "ml.csv", [["a|b", "a"], ["c", "b|c"], ["", "a"]],
                     ["true", "pred"])
    code, out, _ = run(["classify", str(path), "--label-sep", "|", "--zero-division", "0"],
                       capsys)
    assert code == 0
    assert "Per-label counts" in out and "samples" in out


def test_parquet(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"y": [0, 1, 1, 0], "yhat": [0, 1, 0, 0]}), path)
    code, out, _ = run(["classify", str(path), "--true", "y", "--pred", "yhat",
                        "--format", "json", "--average", "binary"], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["summary"]["precision"] == 1.0 and d["summary"]["recall"] == 0.5


def test_undefined_precision_is_one_warning_line(tmp_path, capsys):
    path = write_csv(tmp_path / "w.csv", [[0, 0], [1, 0]], ["true", "pred"])
    code, out, err = run(["classify", str(path)], capsys)
    assert code == 0 and "Per class" in out
    assert err.count("\n") == 1 and err.startswith("prfeval: warning: ")
    assert "class 1, its precision" in err


def test_zero_division_nan_is_null_in_json(tmp_path, capsys):
    path = write_csv(tmp_path / "n.csv", [[0, 0], [1, 0]], ["true", "pred"])
    code, out, err = run(["classify", str(path), "--format", "json", "--zero-division", "nan"],
                         capsys)
    assert code == 0 and err == ""
    assert json.loads(out)["per_class"]["1"]["precision"] is None


def test_output_file(animals, tmp_path, capsys):
    target = tmp_path / "out.json"
    code, out, _ = run(["classify", str(animals), "--format", "json", "-o", str(target)],
                       capsys)
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["accuracy"] == pytest.approx(4 / 6)


# --------------------------------------------------------------------------------------------
# Bad input: one line on stderr, exit 2


def bad(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("name", "text", "extra", "expected"),
    [
        ("e.csv", "", [], "e.csv: empty file"),
        ("h.csv", "true,pred\n", [], "h.csv: no data rows"),
        ("m.csv", "true,pred\na,b\n", ["--true", "gold"],
         "m.csv: no column 'gold' for the true labels (columns: true, pred)"),
        ("s.csv", "true,score\n1,0.5\n0,high\n", ["--score", "score"],
         "s.csv:3: score is not a number: 'high'"),
        ("s2.csv", "true,score\n1,0.5\n0,\n", ["--score", "score"], "s2.csv:3: missing score"),
        ("l.csv", "true,pred\na,b\n\nb,\n", [], "l.csv:4: missing predicted label"),
        ("f.csv", "true,pred\na,b\nb,a,c\n", [], "f.csv:3: expected 2 fields, got 3"),
        ("j.jsonl", '{"true": 1, "pred": 1}\n\n{"true": 2, "pred": \n', [],
         "j.jsonl:3: invalid JSON"),
        ("n.jsonl", '{"true": 1, "pred": 1}\n{"true": null, "pred": 1}\n', [],
         "n.jsonl:2: missing true label"),
        ("x.dat", "a\n", [], "x.dat: cannot tell the format"),
        ("t.jsonl", '{"true": 1, "pred": "a"}\n', [], "labels must all be strings or all numbers"),
    ],
)
def test_bad_files(tmp_path, capsys, name, text, extra, expected):
    path = bad(tmp_path, name, text)
    code, out, err = run(["classify", str(path), *extra], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("prfeval: ") and expected in err, err


def test_mismatched_lengths_of_two_files(tmp_path, capsys):
    t, p = bad(tmp_path, "t.txt", "a\nb\nc\n"), bad(tmp_path, "p.txt", "a\nb\n")
    code, _, err = run(["classify", str(t), str(p)], capsys)
    assert code == 2 and "has 3 labels" in err and "has 2" in err


def test_blank_line_in_a_label_file(tmp_path, capsys):
    t, p = bad(tmp_path, "t.txt", "a\n\nc\n"), bad(tmp_path, "p.txt", "a\nb\nc\n")
    code, _, err = run(["classify", str(t), str(p)], capsys)
    assert code == 2 and "t.txt:2: missing true label" in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["classify", "missing.csv"], "missing.csv: no such file"),
        (["classify", "a.csv", "b.txt", "c.txt"], "expected FILE, or TRUE_FILE PRED_FILE"),
        (["classify", "t.txt", "p.txt", "--true", "x"], "--true: two files hold"),
        (["classify", "{animals}", "--beta", "-1"], "beta must be"),
        (["classify", "{animals}", "--score", "score", "--pred", "pred", "--format", "csv"],
         "--format csv writes one table"),
        (["classify", "{animals}", "--score", "true"], ":2: score is not a number: 'cat'"),
        (["classify", "{animals}", "--score", "score"], "give pos_label"),
        (["classify", "{animals}", "--average", "binary"], "pos_label=1 is not one of"),
    ],
)
def test_bad_usage(animals, capsys, argv, expected):
    argv = [a.replace("{animals}", str(animals)) for a in argv]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err, err


def test_installed_command_exits_2_on_bad_input(tmp_path, animals):
    exe = Path(sys.executable).with_name("prfeval")
    if not exe.exists():
        pytest.skip("the prfeval script is not installed next to this python")
    ok = subprocess.run([str(exe), "classify", str(animals), "--format", "json"],
                        capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert ok.returncode == 0 and json.loads(ok.stdout)["accuracy"] == pytest.approx(4 / 6)
    t, p = bad(tmp_path, "t.txt", "a\nb\n"), bad(tmp_path, "p.txt", "a\n")
    failed = subprocess.run([str(exe), "classify", str(t), str(p)], capture_output=True,
                            text=True)
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr.count("\n") == 1 and failed.stderr.startswith("prfeval: ")


# -- scores: average precision and ROC AUC, as scikit-learn -------------------------------


def test_score_json_has_average_precision_and_roc_auc_of_sklearn(animals, capsys):
    code, out, _ = run(["classify", str(animals), "--score", "score", "--pos-label", "cat",
                        "--format", "json"], capsys)
    assert code == 0
    d = json.loads(out)
    positive = np.array(TRUE) == "cat"
    assert d["average_precision"] == pytest.approx(average_precision_score(positive, SCORE))
    assert d["roc_auc"] == pytest.approx(roc_auc_score(positive, SCORE))
    assert d["scores"]["binary"] is True
    assert d["sweep"]["average_precision"] == d["average_precision"]


def test_score_with_binary_labels_needs_no_pos_label(tmp_path, capsys):
    y = [0, 1, 1, 0, 1, 0, 0, 1]
    s = [0.2, 0.9, 0.5, 0.5, 0.4, 0.1, 0.6, 0.6]  # ties across the classes
    path = write_csv(tmp_path / "b.csv", [list(r) for r in zip(y, s, strict=True)],
                     ["true", "p"])
    code, out, _ = run(["classify", str(path), "--score", "p", "--format", "json"], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["average_precision"] == pytest.approx(average_precision_score(y, s), abs=1e-12)
    assert d["roc_auc"] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    code, out, _ = run(["classify", str(path), "--score", "p"], capsys)
    assert code == 0
    assert f"Average precision: {average_precision_score(y, s):.4f}" in out
    assert f"ROC AUC: {roc_auc_score(y, s):.4f}" in out


def test_multiclass_scores_one_vs_rest(tmp_path, capsys):
    rng = np.random.default_rng(11)
    y = rng.choice(["a", "b", "c"], 120)
    proba = rng.dirichlet([1, 1, 1], 120).round(2)
    proba[:, 2] = 1 - proba[:, :2].sum(axis=1)
    rows = [[t, *p] for t, p in zip(y, proba.tolist(), strict=True)]
    path = write_csv(tmp_path / "m.csv", rows, ["true", "pa", "pb", "pc"])
    code, out, _ = run(["classify", str(path), "--score", "a=pa", "--score", "b=pb",
                        "--score", "c=pc", "--format", "json"], capsys)
    assert code == 0
    d = json.loads(out)
    onehot = label_binarize(y, classes=["a", "b", "c"])
    for i, label in enumerate("abc"):
        row = d["scores"]["per_class"][label]
        assert row["average_precision"] == pytest.approx(
            average_precision_score(onehot[:, i], proba[:, i]), abs=1e-12)
        assert row["roc_auc"] == pytest.approx(roc_auc_score(onehot[:, i], proba[:, i]),
                                               abs=1e-12)
    for average in ("macro", "weighted"):
        assert d["scores"][average]["roc_auc"] == pytest.approx(
            roc_auc_score(y, proba, multi_class="ovr", average=average), abs=1e-12)
        assert d["scores"][average]["average_precision"] == pytest.approx(
            average_precision_score(onehot, proba, average=average), abs=1e-12)
    assert d["roc_auc"] == pytest.approx(roc_auc_score(y, proba, multi_class="ovr"))
    code, _, err = run(["classify", str(path), "--score", "a=pa", "--score", "pb"], capsys)
    assert code == 2 and "give each as LABEL=COL" in err


def test_plot_draws_roc_beside_pr(animals, tmp_path, capsys):
    out_png = tmp_path / "s.png"
    code, _, _ = run(["classify", str(animals), "--score", "score", "--pos-label", "cat",
                      "--plot", str(out_png)], capsys)
    assert code == 0 and out_png.read_bytes()[:4] == b"\x89PNG"


# -- fitting an 80-column terminal ---------------------------------------------------------


def _widths(argv: list[str], columns: int = 80) -> list[int]:
    """Run the installed command as a user would, with COLUMNS set; each line's width."""
    exe = Path(sys.executable).with_name("prfeval")
    env = {**os.environ, "COLUMNS": str(columns)}
    done = subprocess.run([str(exe), *argv], capture_output=True, text=True, env=env,
                          check=True)
    return [len(line) for line in (done.stdout + done.stderr).splitlines()]


@pytest.mark.parametrize("extra", [[], ["-v"], ["--score", "score", "--pos-label", "cat"],
                                   ["--average", "weighted", "--beta", "0.5", "-v"]])
def test_three_classes_fit_80_columns(animals, extra):
    widths = _widths(["classify", str(animals), "--pred", "pred", *extra])
    assert widths and max(widths) <= 80


def test_multiclass_scores_fit_80_columns(tmp_path):
    rows = [[t, 0.5, 0.3, 0.2] for t in ("cat", "dog", "fish", "cat")]
    path = write_csv(tmp_path / "m.csv", rows, ["true", "p_cat", "p_dog", "p_fish"])
    widths = _widths(["classify", str(path), "--score", "cat=p_cat", "--score", "dog=p_dog",
                      "--score", "fish=p_fish"])
    assert max(widths) <= 80


def test_verbose_moves_the_rare_columns_in(animals, capsys):
    _, plain, _ = run(["classify", str(animals)], capsys)
    _, verbose, _ = run(["classify", str(animals), "-v"], capsys)
    for rare in ("FPR", "Youden's J", "PPCR", "prevalence", "TN "):
        assert rare not in plain and rare in verbose
    # cat: TP 2, FP 0, FN 1, TN 3 by hand
    counts = verbose[verbose.index("Per class: counts and rates"):]
    cat = next(line.split() for line in counts.splitlines() if line.split()[:1] == ["cat"])
    assert cat[:5] == ["cat", "2", "0", "1", "3"]


def test_labels_trimmed_to_the_same_class_are_one_class(tmp_path, capsys):
    """Checked on the distinct labels: ' cat ' and 'cat' are one class, ' 1' and '+1' the
    integer 1 (hand counts: cat right once, called dog once; dog right)."""
    for rows, labels in (([["cat", " cat"], [" cat ", "dog"], ["dog", "dog"]], ["cat", "dog"]),
                         ([["1", " 1"], [" 1 ", "2"], ["2", "+2"]], [1, 2])):
        path = write_csv(tmp_path / "ws.csv", rows, ["true", "pred"])
        code, out, _ = run(["classify", str(path), "--format", "json"], capsys)
        assert code == 0
        assert json.loads(out)["confusion_matrix"] == {"labels": labels,
                                                       "matrix": [[1, 1], [0, 1]]}
