"""``prfeval.plot``: each figure of a result, public, returned as a matplotlib Figure and
shown once in a notebook (released from pyplot's open figures, which the inline backend
would show again when the cell ends)."""

from __future__ import annotations

import pytest

import prfeval

pytest.importorskip("matplotlib")

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
RUNS = {"x": {"q1": ["a", "z", "b"], "q2": ["c"]}, "y": {"q1": ["z", "a"], "q2": ["d", "c"]}}


@pytest.fixture
def open_figures():
    from prfeval._plots.figures import pyplot

    plt = pyplot()
    plt.close("all")
    return plt.get_fignums


def test_every_figure_is_returned_and_left_open_nowhere(open_figures) -> None:
    from matplotlib.figure import Figure

    c = prfeval.curve(QRELS, RUNS["x"])
    cmp = prfeval.compare(QRELS, RUNS, "P@1")
    sweep = prfeval.threshold_sweep([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4])
    score = prfeval.score_measures([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4])
    figures = [
        prfeval.plot.tradeoff(c), prfeval.plot.pr_curve(c, query="q1"),
        prfeval.plot.curve(c, kind="both"), prfeval.plot.differences(cmp),
        prfeval.plot.contours(points={"x": (0.5, 0.4)}), prfeval.plot.thresholds(sweep),
        prfeval.plot.scores(score),
    ]  # fmt: skip
    assert all(isinstance(f, Figure) for f in figures)
    assert open_figures() == []  # a notebook shows each once, as the cell's value


def test_the_trade_off_plot_draws_the_curves_numbers(open_figures) -> None:
    """Run x on q1 ranks a, z, b (R = 2): P = 1, 1/2, 2/3 and R = 1/2, 1/2, 1 at k = 1..3."""
    fig = prfeval.plot.tradeoff(prfeval.curve(QRELS, RUNS["x"]), query="q1", log_x=False)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    precision = next(v for k, v in lines.items() if k.lower().startswith("precision"))
    recall = next(v for k, v in lines.items() if k.lower().startswith("recall"))
    assert list(precision.get_xdata()) == [1, 2, 3]
    assert list(precision.get_ydata()) == pytest.approx([1, 1 / 2, 2 / 3])
    assert list(recall.get_ydata()) == pytest.approx([1 / 2, 1 / 2, 1])


def test_plot_is_an_attribute_of_the_package() -> None:
    import importlib

    assert prfeval.plot is importlib.import_module("prfeval.plot")
    assert set(prfeval.plot.__all__) >= {"curve", "tradeoff", "pr_curve", "differences"}
