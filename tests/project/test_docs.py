"""The docs list every measure of the registry: no second list of names can drift."""

from __future__ import annotations

from pathlib import Path

from prfeval._measures import REGISTRY

ROOT = Path(__file__).resolve().parents[2]


def test_every_measure_is_documented():
    text = (ROOT / "docs" / "measures.md").read_text()
    for d in REGISTRY.values():
        name = d.usage
        assert f"`{name}`" in text, name
        assert d.formula in text, name


def test_measures_table_is_current():
    """docs/measures.md holds exactly what `prfeval measures --format markdown` prints."""
    from prfeval._report.measures import markdown_table

    assert markdown_table() in (ROOT / "docs" / "measures.md").read_text()


def test_readme_names_the_two_setup_commands():
    readme = (ROOT / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme


def test_make_demo_installs_only_what_the_demo_needs():
    """`make demo` installs the `all` extra; the test toolchain comes with `make test`."""
    makefile = (ROOT / "Makefile").read_text()
    demo_install = next(line for line in makefile.splitlines() if "pip install --quiet" in line)
    assert "'.[all]'" in demo_install
    assert "'.[test]'" in makefile


def test_the_robustness_promises_are_written_down_and_linked():
    """docs/robustness.md: bad input, -o, signals; linked from the README."""
    text = (ROOT / "docs" / "robustness.md").read_text()
    for promise in ("## Bad input", "## `-o FILE`", "## Standard streams and signals",
                    "0666", "143", "129", "130", "141", "PRFEVAL_FUZZ=long", "-l"):
        assert promise in text, promise
    assert "docs/robustness.md" in (ROOT / "README.md").read_text()
