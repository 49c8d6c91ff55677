"""``prfeval curve``: every output format, the JSON shape, plots and bad input."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from prfeval.cli._shared import distinct_run_names as run_names
from support.cli import exit_code

# Query A ranks a x b d y c by score (y and c tie at 0: doc id descending puts y first);
# relevant a, b, c, z (z never retrieved). Query B ranks f g e; relevant e and f.
QRELS = """\
A 0 a 1
A 0 b 1
A 0 c 1
A 0 z 1
A 0 d 0
B 0 e 1
B 0 f 2
"""
RUN = """\
A Q0 a 1 5.0 base
A Q0 x 2 4.0 base
A Q0 b 3 3.0 base
A Q0 d 4 2.0 base
A Q0 y 5 0.0 base
A Q0 c 6 0.0 base
B Q0 f 1 2.0 base
B Q0 g 2 1.0 base
B Q0 e 3 0.5 base
"""
OTHER = """\
A Q0 x 1 5.0 other
A Q0 a 2 4.0 other
B Q0 e 1 2.0 other
"""


run = exit_code  # the CLI in-process: its exit code


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in (("qrels", QRELS), ("base.run", RUN), ("other.run", OTHER)):
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


def test_table_for_a_query(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["curve", files["qrels"], files["base.run"], "--query", "A"]) == 0
    out = capsys.readouterr().out
    assert "Query A: 4 relevant, 6 retrieved, 4 with a positive score" in out
    rows = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines() if ln[:3].strip().isdigit()}
    # k, TP, P, R, F1 = 2 TP / (4 + k), by hand.
    assert rows["1"][:4] == ["1", "1.0000", "0.2500", "0.4000"]
    assert rows["3"][:4] == ["2", "0.6667", "0.5000", "0.5714"]
    assert rows["3"][4:] == ["recall", ">=", "0.5"]
    # F1 rises again to 6/10 when c arrives at the last rank.
    assert rows["6"] == ["3", "0.5000", "0.7500", "0.6000", "best", "F1,", "last"]
    text = " ".join(out.split())  # the notes are wrapped to 80 columns
    assert "Best cutoff: k = 6, the first k with the highest F1: P = 0.5000, R = 0.7500, " \
        "F1 = 0.6000." in text
    assert "Recall 0.5 first reached at rank 3, P there = 0.6667." in text
    assert "Documents with a positive score: 4 of 6 retrieved." in text
    assert "Relevant documents never retrieved: 1: z." in text
    assert "Relevant documents retrieved only among those scored <= 0: 1: c." in text
    # 11-point IPrec, by hand: n_rel = 4; floor(r * 4 + 0.9) relevant documents needed:
    # 0 or 1 up to r = 0.2 (max P from rank 1: 1), 2 from 0.3 to 0.5 (from rank 3: 2/3),
    # 3 from 0.6 to 0.7 (from rank 6: 1/2), 4 from 0.8 (never): 0.
    (iprec,) = [ln.split()[1:] for ln in out.splitlines() if ln.strip().startswith("IPrec")]
    assert iprec == ["1.0000"] * 3 + ["0.6667"] * 3 + ["0.5000"] * 2 + ["0.0000"] * 3


def test_table_of_averages(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["curve", files["qrels"], files["base.run"], "-r", "0.5", "-r", "0.9"]) == 0
    out = capsys.readouterr().out
    assert "Averages over 2 queries at each k" in out
    # k = 1: A has TP 1 of 4, B TP 1 of 2. Macro R = (1/4 + 1/2)/2, F1 = (2/5 + 2/3)/2.
    (k1,) = [ln.split() for ln in out.splitlines() if ln.split()[:1] == ["1"]]
    assert k1[1:4] == ["1.0000", "0.3750", "0.5333"]
    text = " ".join(out.split())  # the notes are wrapped to 80 columns
    assert "Best cutoff by the mean F1, one k for every query: k = 3," in text
    assert "Mean recall 0.9 is not reached by k = 6." in text
    assert "Queries evaluated: 2" in text
    assert "mean F1" in out and "macro F1" not in out


def test_json_shape(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["curve", files["qrels"], files["base.run"], "--format", "json", "-b", "2"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) >= {"queries", "macro", "micro", "beta"}
    assert d["beta"] == 2.0
    a = d["queries"]["A"]
    assert a["k"] == [1, 2, 3, 4, 5, 6]
    # F2 = 5 TP / (4 n_rel + k) with n_rel = 4.
    assert a["f"] == pytest.approx([5 * t / (16 + k) for k, t in enumerate([1, 1, 2, 2, 2, 3], 1)])
    assert set(a["best"]) == {"k", "precision", "recall", "f"}
    assert a["best"]["k"] == 6
    assert a["relevant_not_retrieved"] == ["z"] and a["relevant_only_unscored"] == ["c"]
    assert a["n_scored"] == 4 and a["recall_reached"]["0.50"]["k"] == 3
    for average in ("macro", "micro"):
        assert d[average]["k"] == [1, 2, 3, 4, 5, 6]
        assert set(d[average]["best"]) == {"k", "precision", "recall", "f"}


def test_json_with_query_and_several_runs(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "curve",
        files["qrels"],
        files["base.run"],
        files["other.run"],
        "-q",
        "B",
        "--format",
        "json",
        "--max-k",
        "2",
    ]
    assert run(argv) == 0
    d = json.loads(capsys.readouterr().out)
    assert list(d["runs"]) == ["base.run", "other.run"]
    other = d["runs"]["other.run"]
    assert list(other["queries"]) == ["B"]
    assert other["queries"]["B"]["k"] == [1]
    assert other["macro"]["k"] == [1, 2]  # the averages still cover both queries
    assert other["macro"]["n_queries"] == 2


def test_csv(files: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_file = tmp_path / "curve.csv"
    assert (
        run(["curve", files["qrels"], files["base.run"], "--format", "csv", "-o", str(out_file)])
        == 0
    )
    assert capsys.readouterr().out == ""
    rows = list(csv.DictReader(io.StringIO(out_file.read_text())))
    assert list(rows[0]) == [
        "run",
        "kind",
        "query_id",
        "k",
        "precision",
        "recall",
        "f",
        "interpolated_precision",
    ]
    b = [r for r in rows if r["query_id"] == "B"]
    assert [r["k"] for r in b] == ["1", "2", "3"]
    assert [float(r["precision"]) for r in b] == pytest.approx([1, 0.5, 2 / 3])
    macro = [r for r in rows if r["kind"] == "macro"]
    assert len(macro) == 6 and macro[0]["interpolated_precision"] == ""
    assert {r["kind"] for r in rows} == {"query", "macro", "micro"}


def test_plot_png_and_svg(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "q.png"
    argv = [
        "curve",
        files["qrels"],
        files["base.run"],
        files["other.run"],
        "-q",
        "A",
        "--plot",
        str(png),
        "--plot-kind",
        "both",
        "-N",
        "50",
    ]
    assert run(argv) == 0
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "wrote" in capsys.readouterr().err
    svg = tmp_path / "macro.svg"
    assert (
        run(["curve", files["qrels"], files["base.run"], "--plot", str(svg), "--plot-kind", "pr"])
        == 0
    )
    root = ET.parse(svg).getroot()
    text = " ".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("text"))
    assert "Precision-recall curve: macro average over 2 queries (base.run)" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-q", "Z"], "query 'Z' was not evaluated"),
        (["--plot", "out.pdf"], ".png or .svg"),
        (["-q", "A", "-q", "B", "--plot", "x.png"], "at most one --query"),
        (["-r", "0"], "--recall-at must be a finite number > 0 and <= 1, got 0.0"),
        (["-b", "-1"], "--beta must be"),
        (["-N", "3"], "collection size 3 is smaller"),
    ],
)
def test_bad_input_exits_2(
    files: dict[str, str], capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert run(["curve", files["qrels"], files["base.run"], *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("prfeval: ") and message in err and len(err.splitlines()) == 1


def test_malformed_run_names_the_line(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("A Q0 a 1 5.0 base\nA Q0 b 2\n")
    assert run(["curve", files["qrels"], str(bad)]) == 2
    assert f"{bad}:2:" in capsys.readouterr().err
    assert run(["curve", files["qrels"], str(tmp_path / "missing.run")]) == 2


def test_run_names() -> None:
    assert run_names(["x/a.run", "y/b.run"]) == ["a.run", "b.run"]
    assert run_names(["x/a.run", "y/a.run"]) == ["x/a.run", "y/a.run"]


def test_plot_draws_the_tradeoff_and_the_pr_curve_by_default(
    files: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--plot FILE` alone (as the README's quick start writes it): both figures, in FILE."""
    pytest.importorskip("matplotlib")
    import prfeval._plots.figures as figures

    drawn = []
    save = figures.save_figure

    def keep(fig, path, **kwargs):  # the figure the command saves, kept open to read back
        drawn.append(fig)
        return save(fig, path)

    monkeypatch.setattr(figures, "save_figure", keep)
    svg = tmp_path / "a.svg"
    assert run(["curve", files["qrels"], files["base.run"], "-q", "A", "--plot", str(svg)]) == 0
    err = capsys.readouterr().err
    assert f"wrote {svg}: the trade-off plot and precision-recall curve of query A, 1 run" in err
    (fig,) = drawn
    tradeoff, pr = fig.axes
    assert tradeoff.get_title() == "Precision, recall and F₁ by cutoff: query A (base.run)"
    assert pr.get_title() == "Precision-recall curve: query A (base.run)"
    assert (pr.get_xlabel(), pr.get_ylabel()) == ("Recall", "Precision")
    # The PR panel draws query A's (R, P) at every k: by hand from the table test,
    # TP = 1 1 2 2 2 3 of 4 relevant at k = 1..6.
    assert "raw (R, P) at every k" in [t.get_text() for t in pr.get_legend().get_texts()]
    (raw,) = [
        ln for ln in pr.get_lines() if ln.get_drawstyle() == "default" and len(ln.get_xdata())
    ]
    tp = [1, 1, 2, 2, 2, 3]
    assert list(raw.get_xdata()) == pytest.approx([t / 4 for t in tp])
    assert list(raw.get_ydata()) == pytest.approx([t / k for k, t in enumerate(tp, 1)])
    import matplotlib.pyplot as plt

    plt.close(fig)
    # And the file written holds both panels.
    root = ET.parse(svg).getroot()
    text = " ".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("text"))
    assert "Precision, recall and F₁ by cutoff: query A (base.run)" in text
    assert "Precision-recall curve: query A (base.run)" in text


TRADEOFF_TITLE = "Precision, recall and mean F₁ by cutoff: macro average over 2 queries"
PR_TITLE = "Precision-recall curve: macro average over 2 queries"


@pytest.mark.parametrize(
    ("kind", "drawn", "not_drawn", "what"),
    [
        ("tradeoff", TRADEOFF_TITLE, PR_TITLE, "the trade-off plot of"),
        ("pr", PR_TITLE, TRADEOFF_TITLE, "the precision-recall curve of"),
    ],
)
def test_plot_kind_draws_one_of_them(
    files: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    drawn: str,
    not_drawn: str,
    what: str,
) -> None:
    pytest.importorskip("matplotlib")
    svg = tmp_path / f"{kind}.svg"
    argv = ["curve", files["qrels"], files["base.run"], "--plot", str(svg), "--plot-kind", kind]
    assert run(argv) == 0
    assert f"{what} the macro average" in capsys.readouterr().err
    root = ET.parse(svg).getroot()
    text = " ".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("text"))
    assert drawn in text and not_drawn not in text
