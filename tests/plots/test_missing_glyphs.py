"""A name whose characters the figure's font cannot draw (CJK, emoji, in DejaVu Sans) gives
one note naming them, not a matplotlib warning per character with its source path; in the
HTML report's SVG the text stays text, drawn by the browser, and nothing is said."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from prfeval._core.errors import PrfevalWarning
from prfeval._plots.figures import pyplot, save_figure, svg_text

pytest.importorskip("matplotlib")


def _figure(title: str):
    plt = pyplot()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label=title)
    ax.set_title(title)
    ax.legend()
    return fig


def test_a_png_names_the_missing_characters_once(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        save_figure(_figure("运行 run"), tmp_path / "f.png")
    assert [type(w.message) for w in caught] == [PrfevalWarning]
    message = str(caught[0].message)
    assert "'运行'" in message and "empty boxes" in message
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"


def test_an_svg_for_the_report_says_nothing(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = svg_text(_figure("运行 run"), salt="t")
    assert caught == []
    assert "运行 run" in text  # kept as text, for the browser's fonts


def test_a_name_the_font_draws_gives_no_note(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        save_figure(_figure("bm25 k1=0.9"), tmp_path / "f.png")
    assert caught == []


def test_the_report_command_prints_no_matplotlib_warning(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "运行😀.run").write_text("q1 Q0 a 1 2 r\nq2 Q0 c 1 1 r\n")
    done = subprocess.run(
        [sys.executable, "-m", "prfeval", "report", "qrels", "运行😀.run", "-o", "page.html"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "UserWarning" not in done.stderr and "figures.py" not in done.stderr
    assert done.stderr.startswith("prfeval: wrote page.html")


def test_an_empty_run_is_named_in_quotes(tmp_path: Path, capsys) -> None:
    """It read "the run run is empty" for a file named run."""
    from support.cli import run_cli

    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    (tmp_path / "run").write_text("")
    _, _, err = run_cli(capsys, "evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert f"warning: the run {str(tmp_path / 'run')!r} is empty: every measure is 0" in err
