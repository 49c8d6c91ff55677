"""The contour figures of seed 000 and the ``prfeval contours`` command."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from prfeval._core.counts import f_from_pr
from prfeval._core.errors import UsageError

matplotlib = pytest.importorskip("matplotlib")

from prfeval._plots.contours import DEFAULT_LEVELS, contour_figure  # noqa: E402
from prfeval._plots.figures import f_label, figure_format, save_figure  # noqa: E402
from prfeval.cli import main  # noqa: E402

SEED_004 = {"System A": (0.48, 0.80), "System B": (0.75, 0.40)}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _dashed(ax: object) -> list[object]:
    return [line for line in ax.get_lines() if line.get_linestyle() == "--"]  # type: ignore[attr-defined]


def _contour_lines(ax: object) -> list[object]:
    # Contours are the unlabelled solid lines plus the one labelled for the legend.
    return [
        line
        for line in ax.get_lines()  # type: ignore[attr-defined]
        if line.get_linestyle() == "-" and len(line.get_xdata()) > 2
    ]


def test_import_prfeval_does_not_import_matplotlib() -> None:
    code = (
        "import sys, prfeval, prfeval._core.means, prfeval._plots.contours, prfeval.cli; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_f_label() -> None:
    assert [f_label(b) for b in (1, 2.0, 0.5, 10)] == ["F₁", "F₂", "F₀.₅", "F₁₀"]
    assert f_label(1e-5) == "F(β=1e-05)"


def test_one_panel_by_default() -> None:
    fig = contour_figure()
    (ax,) = fig.axes
    assert ax.get_title() == "F₁ contours"
    assert ax.get_xlabel() == "Precision" and ax.get_ylabel() == "Recall"
    assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)


def test_panels_titles_legend_and_indifference_line() -> None:
    fig = contour_figure([0.5, 2.0], points=SEED_004)
    assert len(fig.axes) == 2
    assert [ax.get_title() for ax in fig.axes] == ["F₀.₅ contours", "F₂ contours"]
    for ax, beta in zip(fig.axes, (0.5, 2.0), strict=True):
        assert ax.get_xlabel() == "Precision" and ax.get_ylabel() == "Recall"
        (line,) = _dashed(ax)
        x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        np.testing.assert_allclose(y, beta * x)
        # Drawn from the origin to where it leaves the square.
        assert x[0] == 0.0 and max(x.max(), y.max()) == pytest.approx(1.0)
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        name = f_label(beta)
        assert legend[0] == f"{name} = 0.1 … 0.9"
        assert legend[1] == (
            "indifference line R = 0.5P" if beta == 0.5 else "indifference line R = 2P"
        )
        f_a = float(f_from_pr(0.48, 0.80, beta))
        f_b = float(f_from_pr(0.75, 0.40, beta))
        assert legend[2] == f"System A (0.48, 0.8): {name} = {f_a:.3f}"
        assert legend[3] == f"System B (0.75, 0.4): {name} = {f_b:.3f}"
    # Seed 004's table: B wins at beta 0.5, A at beta 2.
    legend_05 = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend_05[2].endswith("0.522") and legend_05[3].endswith("0.638")


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_contour_lines_lie_on_their_levels(beta: float) -> None:
    fig = contour_figure([beta])
    (ax,) = fig.axes
    lines = _contour_lines(ax)
    assert len(lines) == len(DEFAULT_LEVELS)
    levels = []
    for line in lines:
        p, r = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        assert np.all((p >= 0) & (p <= 1) & (r >= 0) & (r <= 1))
        assert np.all(np.diff(p) >= 0)  # a polyline in P order, no jumps back
        f = f_from_pr(p, r, beta)
        np.testing.assert_allclose(f, f[0], rtol=1e-9)
        levels.append(round(float(f[0]), 9))
    assert levels == list(DEFAULT_LEVELS)
    # Each contour is labelled with its level.
    texts = sorted(t.get_text() for t in ax.texts if t.get_text()[:2] == "0.")
    assert texts == [f"{c:g}" for c in DEFAULT_LEVELS]


def test_f2_half_contour_spans_the_seed_endpoints() -> None:
    fig = contour_figure([2.0], levels=[0.5])
    (line,) = _contour_lines(fig.axes[0])
    p, r = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    # Seed 000: from P = 1/6 at perfect recall to R = 4/9 at perfect precision.
    assert (p[0], r[0]) == pytest.approx((1 / 6, 1.0))
    assert (p[-1], r[-1]) == pytest.approx((1.0, 4 / 9))


def test_points_are_drawn_where_they_are() -> None:
    fig = contour_figure([1.0], points=SEED_004)
    ax = fig.axes[0]
    markers = {
        line.get_label(): (float(line.get_xdata()[0]), float(line.get_ydata()[0]))
        for line in ax.get_lines()
        if line.get_marker() not in ("None", None, "")
    }
    assert sorted(markers.values()) == sorted(SEED_004.values())
    names = {t.get_text() for t in ax.texts}
    assert {"System A", "System B"} <= names


def test_means_panels_come_first() -> None:
    fig = contour_figure([1.0], means=True, points={"everything": (0.002, 1.0)})
    assert [ax.get_title() for ax in fig.axes] == [
        "Arithmetic mean contours",
        "Geometric mean contours",
        "F₁ contours",
    ]
    arithmetic = fig.axes[0]
    lines = _contour_lines(arithmetic)
    for line in lines:
        p, r = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        np.testing.assert_allclose(np.diff(r) / np.diff(p), -1.0)  # slope -1
    legend = [t.get_text() for t in arithmetic.get_legend().get_texts()]
    assert "everything (0.002, 1): (P+R)/2 = 0.501" in legend
    legend_f1 = [t.get_text() for t in fig.axes[2].get_legend().get_texts()]
    assert "everything (0.002, 1): F₁ = 0.004" in legend_f1
    # The mean panels show the diagonal R = P, dotted, not an F indifference line.
    (diagonal,) = [ln for ln in arithmetic.get_lines() if ln.get_linestyle() == ":"]
    np.testing.assert_allclose(diagonal.get_ydata(), diagonal.get_xdata())


def test_save_png(tmp_path: Path) -> None:
    fig = contour_figure([0.5, 2.0], points=SEED_004)
    out = save_figure(fig, tmp_path / "contours.png")
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 10_000


def test_save_svg_keeps_titles_as_text(tmp_path: Path) -> None:
    fig = contour_figure([2.0], points=SEED_004)
    out = save_figure(fig, tmp_path / "contours.SVG")
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    texts = ["".join(el.itertext()) for el in root.iter() if el.tag.endswith("text")]
    assert "F₂ contours" in texts
    assert "Precision" in texts and "Recall" in texts
    # Same inputs, same bytes: no date, no random ids.
    again = save_figure(contour_figure([2.0], points=SEED_004), tmp_path / "again.svg")
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.parametrize("name", ["contours.pdf", "contours", "contours.png.txt"])
def test_save_rejects_other_formats(tmp_path: Path, name: str) -> None:
    fig = contour_figure()
    with pytest.raises(UsageError, match=r"\.png or \.svg"):
        save_figure(fig, tmp_path / name)
    assert not (tmp_path / name).exists()
    assert figure_format("a.PNG") == "png"


def test_bad_arguments() -> None:
    with pytest.raises(UsageError, match="beta"):
        contour_figure([0.0])
    with pytest.raises(UsageError, match="beta"):
        contour_figure([float("inf")])
    with pytest.raises(UsageError, match="contour level"):
        contour_figure(levels=[0.5, 1.5])
    with pytest.raises(UsageError, match="recall must be in"):
        contour_figure(points={"x": (0.5, 1.5)})
    with pytest.raises(UsageError, match="nothing to draw"):
        contour_figure([])


# --- prfeval contours ------------------------------------------------------------------


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0)


def test_cli_contours(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "f.png"
    argv = [
        "contours",
        "--beta",
        "0.5 1",
        "--beta",
        "2",
        "--point",
        "System A=0.48,0.80",
        "-p",
        "B=0.75,0.40",
        "--plot",
        str(out),
    ]
    assert _run(argv) == 0
    stdout = capsys.readouterr().out.splitlines()
    assert stdout[0] == f"wrote {out}: 3 panels, F0.5, F1, F2"
    assert stdout[1] == "System A  P=0.480  R=0.800  F0.5=0.522  F1=0.600  F2=0.706"
    assert stdout[2] == "B         P=0.750  R=0.400  F0.5=0.638  F1=0.522  F2=0.441"
    assert out.read_bytes().startswith(PNG_MAGIC)


def test_cli_contours_defaults_and_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _run(["contours", "--means", "--point", "0.4,0.8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "wrote contours.png: 3 panels, arithmetic, geometric, F1"
    assert lines[1] == "0.4,0.8  P=0.400  R=0.800  arithmetic=0.600  geometric=0.566  F1=0.533"
    assert (tmp_path / "contours.png").read_bytes().startswith(PNG_MAGIC)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["contours", "--beta", "0"], "bad --beta '0'"),
        (["contours", "--beta", "1 two"], "bad --beta 'two'"),
        (["contours", "--point", "A=0.5"], "bad pair 'A=0.5'"),
        (["contours", "--point", "A=0.5,0.5", "--point", "A=0.1,0.1"], "given twice"),
        (["contours", "--plot", "out.jpg"], ".png or .svg"),
    ],
)
def test_cli_contours_errors(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _run(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("prfeval: ") and message in err
    assert list(tmp_path.iterdir()) == []
