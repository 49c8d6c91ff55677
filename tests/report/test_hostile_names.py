"""Names a user chose are shown as they are, never read as markup, and never taken for another.

- A run file, a query id or a class label with ``$`` in it (``$x^2$``, ``a$b``, ``$$``) is
  drawn literally by every command that draws (matplotlib would read it as mathtext, and
  ``a$b`` beside ``c$d``, or ``$$``, stopped the drawing); a name starting with ``_`` stays in
  the legends (matplotlib leaves such labels out when it collects them itself).
- Runs given as ``x#2 x x`` are named ``x#2``, ``x``, ``x#3``: each name keeps to its own
  file (``x``'s repeat was named ``x#2``, and took the real x#2's place).
- A ``--plot`` that fails while drawing or saving leaves nothing on stdout (the table was
  printed first, then the command exited 2), and no matplotlib fails before any work.
"""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from prfeval import evaluate
from prfeval.cli._shared import distinct_run_names, run_names
from support.cli import run_cli
from support.hand_made import qrels_lines, run_lines, write_lines
from support.report_data import drilldown

pytest.importorskip("matplotlib")

MATH_NAMES = ("$x^2$", "a$b", "$$")
QUERIES = ("1", "2", "3")


def _write_trec(folder: Path, qids: tuple[str, ...], seed: int) -> tuple[Path, Path, Path]:
    """Judgments and two runs (different scores) over the queries ``qids``."""
    qrels = {q: {f"d{j}": int((i + j + seed) % 3 == 0) for j in range(8)}
             for i, q in enumerate(qids)}  # fmt: skip
    a = [(q, [(f"d{j}", 10.0 - j) for j in range(6)]) for q in qids]
    b = [(q, [(f"d{j}", j + 1.0) for j in reversed(range(6))]) for q in qids]  # a's reversed
    return (write_lines(folder / "qrels.trec", qrels_lines(qrels)),
            write_lines(folder / "a.run", run_lines(a, "a")),
            write_lines(folder / "b.run", run_lines(b, "b")))  # fmt: skip


def _svg_texts(svg: str) -> str:
    """The text of every <text> element of an SVG (svg.fonttype none keeps text as text),
    unescaped, one a line."""
    import html

    return "\n".join(html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S))


# --------------------------------------------------------------------------------------------
# $ in names: every drawing command


@pytest.mark.parametrize("name", MATH_NAMES)
def test_curve_plot_draws_dollar_names_literally(capsys, tmp_path, name) -> None:
    qrels, a, b = _write_trec(tmp_path, (name, "2"), 0)
    run = a.rename(tmp_path / f"{name}.run")
    plot = tmp_path / "curve.svg"
    # Two runs: the run names are in the legends; one --query: its id is in the titles.
    code, _, err = run_cli(capsys, "curve", str(qrels), str(run), str(b), "--query", name,
                           "--plot", str(plot))
    assert code == 0, err
    texts = _svg_texts(plot.read_text())
    assert f"query {name}" in texts
    assert f"{name}.run" in texts and "b.run" in texts
    # One run: its name is in the title.
    code, _, err = run_cli(capsys, "curve", str(qrels), str(run), "--plot", str(plot),
                           "--plot-kind", "pr")
    assert code == 0, err
    assert f"({name}.run)" in _svg_texts(plot.read_text())


@pytest.mark.parametrize("name", MATH_NAMES)
def test_compare_plot_draws_dollar_names_literally(capsys, tmp_path, name) -> None:
    qrels, a, b = _write_trec(tmp_path, (name, "2", "3"), 0)
    base = a.rename(tmp_path / f"{name}.run")
    other = b.rename(tmp_path / f"c{name}.run")
    plot = tmp_path / "differences.svg"
    code, _, err = run_cli(capsys, "compare", str(qrels), str(base), str(other), "-m",
                           "P@5 AP", "--plot", str(plot), "--permutations", "100",
                           "--bootstrap", "100")
    assert code == 0, err
    texts = _svg_texts(plot.read_text())
    assert f"c{name}.run − {name}.run per query" in texts  # the panel's title
    assert name in texts.splitlines()  # a query id, as a tick label


@pytest.mark.parametrize("name", MATH_NAMES)
def test_classify_plot_draws_dollar_labels_literally(capsys, tmp_path, name) -> None:
    table = tmp_path / "labels.csv"
    rows = [("other", 0.1, 0.9), (name, 0.8, 0.3), (name, 0.7, 0.2), ("other", 0.4, 0.6),
            (name, 0.3, 0.4), ("other", 0.6, 0.5)]
    table.write_text("true,s1,s2\n" + "".join(f"{t},{s1},{s2}\n" for t, s1, s2 in rows))
    plot = tmp_path / "classify.svg"
    # One score column: the positive class is in the title.
    code, _, err = run_cli(capsys, "classify", str(table), "--true", "true", "--score", "s1",
                           "--pos-label", name, "--plot", str(plot))
    assert code == 0, err
    assert f"positive class {name!r}" in _svg_texts(plot.read_text())
    # A score column per class: the classes are in the legends.
    code, _, err = run_cli(capsys, "classify", str(table), "--true", "true", "--score",
                           f"{name}=s1", "--score", "other=s2", "--plot", str(plot))
    assert code == 0, err
    texts = _svg_texts(plot.read_text())
    assert f"{name}: AP = " in texts and f"{name}: AUC = " in texts


@pytest.mark.parametrize("name", [*MATH_NAMES, "_hidden"])
def test_contours_point_names_drawn_literally(capsys, tmp_path, name) -> None:
    plot = tmp_path / "contours.svg"
    code, out, err = run_cli(capsys, "contours", "--point", f"{name}=0.5,0.5", "--point",
                             "B=0.2,0.3", "--plot", str(plot))
    assert code == 0, err
    texts = _svg_texts(plot.read_text()).splitlines()
    assert name in texts  # the point's own label
    assert f"{name} (0.5, 0.5): F₁ = 0.500" in texts  # and its legend entry
    assert any(line.startswith(name) for line in out.splitlines()[1:])


def test_class_starting_with_underscore_stays_in_the_legends(capsys, tmp_path) -> None:
    table = tmp_path / "labels.csv"
    table.write_text("true,s1,s2\n_a,0.9,0.1\nb,0.2,0.8\n_a,0.6,0.3\nb,0.4,0.7\n")
    plot = tmp_path / "classify.svg"
    code, _, err = run_cli(capsys, "classify", str(table), "--score", "_a=s1", "--score",
                           "b=s2", "--plot", str(plot))
    assert code == 0, err
    texts = _svg_texts(plot.read_text())
    assert "_a: AP = " in texts and "_a: AUC = " in texts


def test_report_figures_draw_dollar_names_literally(capsys, tmp_path) -> None:
    qrels, a, b = _write_trec(tmp_path, ("$x^2$", "a$b", "$$"), 0)
    base = a.rename(tmp_path / "$x^2$.run")
    other = b.rename(tmp_path / "a$b.run")
    out = tmp_path / "report.html"
    code, _, err = run_cli(capsys, "report", str(qrels), str(base), str(other), "-m",
                           "P@5 AP", "-o", str(out))
    assert code == 0, err
    page = out.read_text()
    figures = page[page.index('<section id="figures">'):]
    assert figures.count("<svg") == 3  # no contours: the runs are shorter than k = 10
    texts = _svg_texts(figures)
    assert "$x^2$.run" in texts and "a$b.run" in texts  # the legends
    assert "a$b.run − $x^2$.run per query" in texts  # the differences' title
    for q in ("$x^2$", "a$b", "$$"):
        assert q in texts.splitlines()  # the query ids, as tick labels


def test_figure_functions_escape_names_of_the_api(tmp_path) -> None:
    """The figure functions themselves, as a script calls them: the names are drawn as
    given, and a title the caller writes is the caller's (mathtext and all)."""
    from prfeval import curve
    from prfeval._plots.contours import contour_figure
    from prfeval._plots.curves import tradeoff_figure
    from prfeval._plots.figures import plain, svg_text

    qrels, a, b = _write_trec(tmp_path, QUERIES, 0)
    curves = {"$x^2$": curve(qrels, a), "a$b": curve(qrels, b)}
    texts = _svg_texts(svg_text(tradeoff_figure(curves), salt="t"))
    assert "$x^2$" in texts.splitlines() and "a$b" in texts.splitlines()
    fig = contour_figure([1.0], points={"$$": (0.5, 0.5)})
    assert "$$" in _svg_texts(svg_text(fig, salt="c")).splitlines()
    # A backslash before a dollar is kept too.
    assert plain("a\\$b") == "a\\\\$b"
    fig = tradeoff_figure(curves["a$b"], title=r"$\beta$ test")
    assert "β" in svg_text(fig, salt="m")


def test_plain_leaves_text_alone_when_mathtext_is_off() -> None:
    import matplotlib

    from prfeval._plots.figures import plain

    assert plain("$x$") == "\\$x\\$"
    with matplotlib.rc_context({"text.parse_math": False}):
        assert plain("$x$") == "$x$"


# --------------------------------------------------------------------------------------------
# Run names: x#2 x x


def test_run_names_never_take_a_given_name() -> None:
    assert run_names(["x#2", "x", "x"]) == ["x#2", "x", "x#3"]
    assert run_names(["x", "x", "x#2"]) == ["x", "x#3", "x#2"]
    assert run_names(["x", "x", "x", "x#2", "x#3"]) == ["x", "x#4", "x#5", "x#2", "x#3"]
    assert run_names(["a/x", "b/x", "a/x"]) == ["a/x", "b/x", "a/x#2"]
    assert run_names(["a.txt", "a.txt"]) == ["a.txt", "a.txt#2"]
    assert distinct_run_names is run_names  # curve names runs as compare and report do


@pytest.fixture()
def x_files(tmp_path, monkeypatch) -> tuple[Path, dict[str, Path]]:
    """``x#2`` and ``x``, two runs with different values, in the working folder."""
    qrels, a, b = _write_trec(tmp_path, QUERIES, 1)
    runs = {"x#2": a.rename(tmp_path / "x#2"), "x": b.rename(tmp_path / "x")}
    monkeypatch.chdir(tmp_path)
    e2, e = (evaluate(qrels, runs[n], "AP").macro["AP"] for n in ("x#2", "x"))
    assert e2 != e  # else the test could not tell the runs apart
    return qrels, runs


def test_report_keeps_each_name_to_its_file(capsys, x_files) -> None:
    qrels, runs = x_files
    code, _, err = run_cli(capsys, "report", str(qrels), "x#2", "x", "x", "-m", "AP",
                           "--no-figures", "-o", "report.html")
    assert code == 0, err
    data = drilldown(Path("report.html").read_text())
    assert data["runs"] == ["x#2", "x", "x#3"]
    for q in QUERIES:
        ap = {n: data["queries"][q][n]["values"]["AP"] for n in data["runs"]}
        want = {n: evaluate(qrels, runs[n], "AP") for n in ("x#2", "x")}
        assert ap["x#2"] == pytest.approx(want["x#2"].per_query[q]["AP"])
        assert ap["x"] == ap["x#3"] == pytest.approx(want["x"].per_query[q]["AP"])


def test_compare_and_curve_keep_each_name_to_its_file(capsys, x_files) -> None:
    qrels, runs = x_files
    code, out, err = run_cli(capsys, "compare", str(qrels), "x#2", "x", "x", "-m", "AP",
                             "--format", "json", "--permutations", "100", "--bootstrap", "100")
    assert code == 0, err
    rows = {r["run"]: r["macro"] for r in json.loads(out)["rows"]}
    assert set(rows) == {"x#2", "x", "x#3"}
    assert rows["x#2"] == pytest.approx(evaluate(qrels, runs["x#2"], "AP").macro["AP"])
    assert rows["x"] == rows["x#3"] == pytest.approx(evaluate(qrels, runs["x"], "AP").macro["AP"])
    # curve refused the same RUN twice; it names the runs as compare does.
    code, out, err = run_cli(capsys, "curve", str(qrels), "x#2", "x", "x", "--format", "json")
    assert code == 0, err
    curves = json.loads(out)["runs"]
    assert list(curves) == ["x#2", "x", "x#3"]
    assert curves["x"] == curves["x#3"] != curves["x#2"]


def test_a_fifo_given_twice_is_refused_not_waited_on(tmp_path) -> None:
    qrels, _, _ = _write_trec(tmp_path, QUERIES, 0)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    for command in ("compare", "curve"):
        done = subprocess.run(
            [sys.executable, "-m", "prfeval", command, str(qrels), str(fifo), str(fifo)],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert "is not a regular file and is given twice" in done.stderr
        assert done.stdout == ""


# --------------------------------------------------------------------------------------------
# A failed --plot leaves nothing on stdout


@pytest.fixture()
def disk_full(monkeypatch) -> None:
    """Every figure fails as it is written, as on a full disk."""
    from matplotlib.figure import Figure

    def savefig(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", savefig)


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_curve_plot_failure_prints_nothing(capsys, tmp_path, disk_full, fmt) -> None:
    qrels, a, b = _write_trec(tmp_path, QUERIES, 0)
    plot = tmp_path / "curve.png"
    code, out, err = run_cli(capsys, "curve", str(qrels), str(a), str(b), "--format", fmt,
                             "--plot", str(plot))
    assert code == 2
    assert out == ""
    assert "No space left on device" in err
    assert not plot.exists() and list(tmp_path.glob(".curve.png.*")) == []
    # -o FILE is not made either.
    target = tmp_path / f"curve.{fmt}"
    code, out, _ = run_cli(capsys, "curve", str(qrels), str(a), "--format", fmt,
                           "--plot", str(plot), "-o", str(target))
    assert (code, out) == (2, "")
    assert not target.exists()


def test_compare_plot_failure_prints_nothing(capsys, tmp_path, disk_full) -> None:
    qrels, a, b = _write_trec(tmp_path, QUERIES, 0)
    code, out, err = run_cli(capsys, "compare", str(qrels), str(a), str(b), "--plot",
                             str(tmp_path / "d.svg"), "--permutations", "100",
                             "--bootstrap", "100")
    assert (code, out) == (2, "")
    assert "No space left on device" in err


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_classify_plot_failure_prints_nothing(capsys, tmp_path, disk_full, fmt) -> None:
    table = tmp_path / "labels.csv"
    table.write_text("true,score\n1,0.9\n0,0.2\n1,0.6\n0,0.7\n")
    code, out, err = run_cli(capsys, "classify", str(table), "--score", "score", "--format",
                             fmt, "--plot", str(tmp_path / "c.png"))
    assert (code, out) == (2, "")
    assert "No space left on device" in err


@pytest.mark.parametrize("command", ["curve", "compare", "classify"])
def test_plot_without_matplotlib_fails_before_any_work(capsys, tmp_path, monkeypatch,
                                                       command) -> None:
    # The inputs do not exist: the error is about matplotlib, so it came before reading.
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    args = {
        "curve": ["curve", "q.trec", "a.run"],
        "compare": ["compare", "q.trec", "a.run", "b.run"],
        "classify": ["classify", "labels.csv", "--score", "s"],
    }[command]
    code, out, err = run_cli(capsys, *args, "--plot", str(tmp_path / "p.png"))
    assert (code, out) == (2, "")
    assert err.strip() == "prfeval: plotting needs matplotlib: pip install 'prfeval[plot]'"


def test_curve_csv_of_a_failing_second_run_prints_nothing(capsys, tmp_path) -> None:
    """The first run's rows were on stdout before the second run's error (exit 2)."""
    qrels, a, _ = _write_trec(tmp_path, QUERIES, 0)
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1\n")
    code, out, err = run_cli(capsys, "curve", str(qrels), str(a), str(bad), "--format", "csv")
    assert (code, out) == (2, "")
    assert "bad.run:1:" in err


@pytest.mark.parametrize("name", ["[b]x", "[red]d", "a[/]b", "[link=x]y"])
def test_text_tables_show_bracketed_ids_as_they_are(capsys, tmp_path, name) -> None:
    """The text tables are drawn by rich, which read ``[b]x`` as markup and dropped it: an id,
    a run name or a class label is now shown as written, in every table."""
    qrels = tmp_path / "q.txt"
    run = tmp_path / "r.txt"
    qrels.write_text(f"{name} 0 {name} 1\n{name} 0 e 0\n")
    run.write_text(f"{name} Q0 {name} 1 3 r\n{name} Q0 e 2 2 r\n")
    code, out, err = run_cli(capsys, "explain", str(qrels), str(run), "--query", name)
    assert code == 0, err
    ranking_rows = [line for line in out.splitlines() if line.strip().startswith("1 ")]
    assert ranking_rows and name in ranking_rows[0], out
    labels = tmp_path / "labels.csv"
    labels.write_text(f"true,pred\n{name},{name}\nb,{name}\n")
    code, out, err = run_cli(capsys, "classify", str(labels))
    assert code == 0, err
    assert name in out
