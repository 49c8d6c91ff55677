"""The trade-off plot and the precision-recall curve: the data they draw, titles, axes, files."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from prfeval._core.errors import UsageError
from prfeval._retrieval.curve_result import Curves
from prfeval._retrieval.curves import curve

matplotlib = pytest.importorskip("matplotlib")

from prfeval._plots.curves import (  # noqa: E402
    curves_figure,
    pr_curve_figure,
    tradeoff_figure,
)
from prfeval._plots.figures import save_figure  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QRELS = {"A": {"a": 1, "b": 1, "c": 1, "d": 0}, "B": {"e": 1, "f": 1}}
SCORED = {
    "A": {"a": 5.0, "x": 4.0, "b": 3.0, "d": 2.0, "y": 0.0, "c": 0.0},
    "B": {"f": 2.0, "g": 1.0, "e": 0.5},
}
OTHER = {"A": {"x": 5.0, "a": 4.0, "b": 1.0}, "B": {"e": 2.0, "f": 1.0}}


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="module")
def base() -> Curves:
    return curve(QRELS, SCORED, collection_size=20)


@pytest.fixture(scope="module")
def other() -> Curves:
    return curve(QRELS, OTHER, collection_size=20)


def _lines(ax: object) -> dict[str, object]:
    return {line.get_label(): line for line in ax.get_lines()}  # type: ignore[attr-defined]


def _legend(ax: object) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts() if t.get_text()]  # type: ignore[attr-defined]


def test_tradeoff_draws_the_query_curve(base: Curves) -> None:
    fig = tradeoff_figure(base, query="A")
    (ax,) = fig.axes
    q = base["A"]
    lines = _lines(ax)
    for label, values in (("Precision", q.precision), ("Recall", q.recall), ("F₁", q.f)):
        line = lines[label]
        np.testing.assert_array_equal(line.get_xdata(), q.k)  # type: ignore[attr-defined]
        np.testing.assert_array_equal(line.get_ydata(), values)  # type: ignore[attr-defined]
    assert ax.get_xscale() == "log"
    assert ax.get_title() == "Precision, recall and F₁ by cutoff: query A (run)"
    assert ax.get_xlabel() == "k, documents retrieved (log scale)"
    assert ax.get_ylabel() == "Precision, recall, F₁"
    # The best cutoff, by hand: A ranks a x b d y c, F1 = 2 TP / (3 + k) peaks at k = 3.
    legend = _legend(ax)
    assert "best F₁ = 0.667 at k = 3" in legend
    assert "recall ≥ 0.5 at k = 3 (P = 0.667)" in legend
    assert "last positive score, k = 4" in legend
    stars = [ln for ln in ax.get_lines() if ln.get_marker() == "*"]
    assert [(s.get_xdata()[0], s.get_ydata()[0]) for s in stars] == [(3, pytest.approx(2 / 3))]
    assert any("best F₁ = 0.667" in t.get_text() for t in ax.texts)  # annotated on the plot


def test_tradeoff_macro_and_several_runs(base: Curves, other: Curves) -> None:
    fig = tradeoff_figure({"base": base, "other": other}, log_x=False)
    (ax,) = fig.axes
    assert ax.get_xscale() == "linear"
    assert ax.get_title() == "Precision, recall and mean F₁ by cutoff: macro average over 2 queries"
    lines = _lines(ax)
    for name, c in (("base", base), ("other", other)):
        np.testing.assert_array_equal(lines[f"{name}: mean F₁"].get_xdata(), c.macro.k)  # type: ignore[attr-defined]
        np.testing.assert_array_equal(lines[f"{name}: mean F₁"].get_ydata(), c.macro.f)  # type: ignore[attr-defined]
        np.testing.assert_array_equal(  # type: ignore[attr-defined]
            lines[f"{name}: precision"].get_ydata(), c.macro.precision
        )
    # Runs differ by line style, measures by colour.
    assert lines["base: mean F₁"].get_linestyle() != lines["other: mean F₁"].get_linestyle()  # type: ignore[attr-defined]
    assert lines["base: mean F₁"].get_color() == lines["other: mean F₁"].get_color()  # type: ignore[attr-defined]
    legend = _legend(ax)
    assert {"base", "other"} <= set(legend)
    assert f"best mean F₁ = {base.macro.best.f:.3f} at k = {base.macro.best.k}" in legend


def test_pr_curve_for_a_query(base: Curves) -> None:
    fig = pr_curve_figure(base, query="A")
    (ax,) = fig.axes
    q = base["A"]
    raw, interpolated = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == q.k.size]
    np.testing.assert_array_equal(raw.get_xdata(), q.recall)
    np.testing.assert_array_equal(raw.get_ydata(), q.precision)
    np.testing.assert_array_equal(interpolated.get_xdata(), q.recall)
    np.testing.assert_array_equal(interpolated.get_ydata(), q.interpolated_precision)
    assert interpolated.get_drawstyle() == "steps-pre"
    # By hand: a x b d y c -> P 1 .5 .667 .5 .4 .5; max P at or beyond the rank where
    # each rank's TP was reached: 1 1 .667 .667 .667 .5.
    assert q.interpolated_precision.tolist() == pytest.approx([1, 1, 2 / 3, 2 / 3, 2 / 3, 0.5])
    assert ax.get_title() == "Precision-recall curve: query A (run)"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Recall", "Precision")
    # No skill: 3 relevant of N = 20.
    no_skill = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert [ln.get_ydata()[0] for ln in no_skill] == [pytest.approx(0.15)]
    assert "no skill: prevalence n_rel/N = 3/20 = 0.15" in _legend(ax)


def test_pr_curve_macro_is_the_eleven_point_mean(base: Curves, other: Curves) -> None:
    fig = pr_curve_figure({"base": base, "other": other}, raw=False)
    (ax,) = fig.axes
    drawn = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert len(drawn) == 2
    for line, c in zip(drawn, (base, other), strict=True):
        np.testing.assert_array_equal(line.get_xdata(), np.array(c.iprec_levels))
        np.testing.assert_array_equal(line.get_ydata(), c.macro.iprec)
    assert ax.get_title() == "Precision-recall curve: macro average over 2 queries"
    # Mean prevalence over A (3/20) and B (2/20).
    assert any(t.startswith("no skill: mean prevalence n_rel/N = 0.125") for t in _legend(ax))


def test_without_collection_size_the_legend_says_no_skill_is_unknown() -> None:
    c = curve(QRELS, SCORED)
    ax = pr_curve_figure(c).axes[0]
    assert "no-skill line not drawn: collection size N unknown" in _legend(ax)
    assert not [ln for ln in ax.get_lines() if ln.get_linestyle() == "--" and len(ln.get_xdata())]
    # Given here, it is drawn.
    ax = pr_curve_figure(c, query="B", collection_size=8).axes[0]
    assert "no skill: prevalence n_rel/N = 2/8 = 0.25" in _legend(ax)


def test_both_side_by_side(base: Curves) -> None:
    fig = curves_figure(base, kind="both", query="B")
    assert [ax.get_title() for ax in fig.axes] == [
        "Precision, recall and F₁ by cutoff: query B (run)",
        "Precision-recall curve: query B (run)",
    ]


def test_bad_requests(base: Curves) -> None:
    with pytest.raises(UsageError, match="'Z' was not evaluated"):
        tradeoff_figure(base, query="Z")
    with pytest.raises(UsageError, match="nothing to draw"):
        pr_curve_figure(base, raw=False, interpolated=False)
    with pytest.raises(UsageError, match="different betas"):
        tradeoff_figure({"a": base, "b": curve(QRELS, SCORED, beta=2)})
    empty = curve({**QRELS, "C": {"h": 1}}, SCORED, complete=True)
    with pytest.raises(UsageError, match="no documents retrieved for query C"):
        tradeoff_figure(empty, query="C")
    with pytest.raises(UsageError, match="plot kind"):
        curves_figure(base, kind="pie")  # type: ignore[arg-type]


def test_png_file(tmp_path: Path, base: Curves) -> None:
    out = save_figure(tradeoff_figure(base, query="A"), tmp_path / "tradeoff.png")
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 10_000


def test_svg_file_keeps_title_and_axis_labels(tmp_path: Path, base: Curves) -> None:
    out = save_figure(curves_figure(base, kind="both"), tmp_path / "curves.svg")
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    text = " ".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("text"))
    for expected in (
        "Precision, recall and mean F₁ by cutoff: macro average over 2 queries",
        "Precision-recall curve: macro average over 2 queries",
        "k, documents retrieved (log scale)",
        "Recall",
        "Precision",
    ):
        assert expected in text


def test_sweep_figure_draws_the_sweep_data(tmp_path):
    """The classifier's threshold sweep: the drawn PR line is (recall, precision) exactly."""
    from prfeval._classification.thresholds import threshold_sweep
    from prfeval._plots.curves import sweep_figure
    from prfeval._plots.figures import save_figure

    y = [1, 0, 1, 1, 0, 0, 1, 0]
    s = [0.9, 0.8, 0.7, 0.7, 0.4, 0.3, 0.2, 0.1]
    sweep = threshold_sweep(y, s)
    fig = sweep_figure(sweep)
    pr_ax, roc_ax, t_ax = fig.axes[:3]
    raw = pr_ax.get_lines()[0]
    np.testing.assert_array_equal(raw.get_xdata(), sweep.recall)
    np.testing.assert_array_equal(raw.get_ydata(), sweep.precision)
    # hand count: thresholds 0.9 .. 0.1; at 0.7 three positive of four flagged
    assert list(sweep.thresholds) == [0.9, 0.8, 0.7, 0.4, 0.3, 0.2, 0.1]
    assert sweep.precision[2] == 0.75 and sweep.recall[2] == 0.75
    assert pr_ax.get_xlabel() == "Recall" and pr_ax.get_ylabel() == "Precision"
    assert "no skill" in " ".join(t.get_text() for t in pr_ax.get_legend().get_texts())
    assert t_ax.get_title().startswith("Precision, recall")
    # The ROC curve beside it: (FPR, TPR) from (0, 0), hand counts at each threshold.
    roc = roc_ax.get_lines()[0]
    np.testing.assert_allclose(roc.get_xdata(), [0, 0, 1 / 4, 1 / 4, 2 / 4, 3 / 4, 3 / 4, 1])
    np.testing.assert_allclose(roc.get_ydata(), [0, 1 / 4, 1 / 4, 3 / 4, 3 / 4, 3 / 4, 1, 1])
    assert roc_ax.get_title() == "ROC curve"
    save_figure(fig, tmp_path / "s.png", close=True)
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_classify_plot_option(tmp_path, capsys):
    from prfeval.cli import main

    path = tmp_path / "c.csv"
    path.write_text("true,score\n1,0.9\n0,0.8\n1,0.7\n0,0.1\n")
    with pytest.raises(SystemExit) as info:
        main(["classify", str(path), "--true", "true", "--score", "score",
              "--plot", str(tmp_path / "p.svg")])
    assert info.value.code == 0
    assert (tmp_path / "p.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    with pytest.raises(SystemExit) as info:
        main(["classify", str(path), "--true", "true", "--score", "score",
              "--plot", str(tmp_path / "p.gif")])
    assert info.value.code == 2


def test_macro_no_skill_is_over_every_query_when_few_curves_are_kept() -> None:
    # Kept: A's curve only; the mean prevalence is still over A (3/20) and B (2/20).
    kept = curve(QRELS, SCORED, collection_size=20, keep=["A"])
    assert list(kept.queries) == ["A"]
    ax = pr_curve_figure(kept, raw=False).axes[0]
    assert any(t.startswith("no skill: mean prevalence n_rel/N = 0.125") for t in _legend(ax))
