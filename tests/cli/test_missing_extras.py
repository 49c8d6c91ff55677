"""A feature whose optional dependency is not installed says so in one line naming the extra
that brings it: exit 2 and nothing else on the command line, an ImportError (and a
UsageError) in Python. The missing package is simulated by ``sys.modules[name] = None``,
which makes its import fail as on a core install."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

QRELS = "q1 0 a 1\nq1 0 b 0\n"
RUN = "q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\n"


def without(modules: list[str], code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    script += textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip


def cli(argv: list[str]) -> str:
    return f"from prfeval.cli import main\nmain({argv!r})\n"


@pytest.mark.process
@pytest.mark.parametrize(("modules", "argv", "line"), [
    (["bm25s", "Stemmer"], ["demo", "--out", "out"],
     "prfeval: the demo's BM25 needs bm25s: pip install 'prfeval[demo]'\n"),
    (["matplotlib"], ["demo", "--out", "out"],
     "prfeval: the demo's figures (or --no-plots) needs matplotlib: pip install "
     "'prfeval[demo]'\n"),
    (["matplotlib"], ["curve", "qrels", "run", "--plot", "x.png"],
     "prfeval: plotting needs matplotlib: pip install 'prfeval[plot]'\n"),
    (["scipy", "scipy.stats"], ["compare", "qrels", "run", "run", "--test", "ttest"],
     "prfeval: each of the t-test, the Wilcoxon test and Tukey's HSD needs scipy: pip install "
     "'prfeval[stats]'\n"),
    (["pyspark"], ["evaluate", "qrels", "run", "--engine", "spark"],
     "prfeval: the Spark engine (with Java 17 or newer) needs pyspark: pip install "
     "'prfeval[spark]'\n"),
])  # fmt: skip
def test_a_command_says_which_extra_in_one_line(tmp_path, modules, argv, line) -> None:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    done = without(modules, cli(argv), tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line)
    assert not (tmp_path / "out").exists()  # the demo did no work first


@pytest.mark.process
def test_to_frame_without_pandas_or_polars_is_an_import_error_naming_the_extra(tmp_path) -> None:
    done = without(["pandas", "polars"], """
        import prfeval
        from prfeval import UsageError
        e = prfeval.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "P@1")
        for call in (e.to_frame, e.summary_frame, lambda: e.to_frame(kind="polars")):
            try:
                call()
            except ImportError as exc:
                assert isinstance(exc, UsageError)
                print(exc)
        """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "to_frame() needs pandas or polars: pip install 'prfeval[frames]'",
        "summary_frame() needs pandas or polars: pip install 'prfeval[frames]'",
        "to_frame() needs polars: pip install 'prfeval[frames]'",
    ]


@pytest.mark.process
def test_to_frame_without_pandas_gives_polars(tmp_path) -> None:
    done = without(["pandas"], """
        import prfeval
        e = prfeval.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "P@1")
        print(type(e.to_frame()).__module__.split(".")[0], e.to_frame()["value"].to_list())
        try:
            e.to_frame(kind="pandas")
        except ImportError as exc:
            print(exc)
        """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "polars [1.0]",
        "to_frame() needs pandas: pip install 'prfeval[frames]'",
    ]
