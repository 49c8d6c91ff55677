"""trec_eval stays apart (issue 47): ``prfeval evaluate`` and :func:`prfeval.evaluate` load no
module of the trec_eval adapter (``prfeval._trec_eval``), while ``prfeval trec_eval`` does; and
a measure's declaration holds no trec_eval name, which one table keyed by canonical measure
name holds instead.

The import checks run in a fresh interpreter, so that what another test imported cannot hide
an import, and read ``sys.modules`` after the evaluation.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "data" / "trec_eval_quicktest"
QRELS = DATA / "qrels.test"
RUN = DATA / "results.test"
ADAPTER = "prfeval._trec_eval"


def adapter_modules_after(code: str, tmp_path: Path) -> list[str]:
    """The adapter's modules in ``sys.modules`` after ``code`` ran in a fresh interpreter,
    which must exit 0 (they are written to a file: ``code`` may print anything)."""
    found = tmp_path / "modules.json"
    script = (
        "import json, sys\n"
        + textwrap.dedent(code)
        + f"\nnames = sorted(m for m in sys.modules if m == {ADAPTER!r} "
        f"or m.startswith({ADAPTER + '.'!r}))\n"
        + f"open({str(found)!r}, 'w').write(json.dumps(names))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return json.loads(found.read_text())


def test_evaluate_api_with_default_options_loads_no_adapter(tmp_path):
    code = f"""
        import prfeval
        e = prfeval.evaluate({str(QRELS)!r}, {str(RUN)!r})
        str(e); e.to_dict(per_query=True)
    """
    assert adapter_modules_after(code, tmp_path) == []


@pytest.mark.parametrize("fmt", ["table", "trec", "json", "csv"])
def test_evaluate_command_loads_no_adapter(fmt, tmp_path):
    """As ``prfeval evaluate`` runs (its ``main``), in each output format, ``trec`` too."""
    code = f"""
        from prfeval.cli import main
        try:
            main(["evaluate", {str(QRELS)!r}, {str(RUN)!r}, "--format", {fmt!r}, "-q"])
        except SystemExit as exit:
            assert not exit.code, exit.code
    """
    assert adapter_modules_after(code, tmp_path) == []


def test_trec_eval_command_loads_the_adapter(tmp_path):
    """The check above can fail: ``prfeval trec_eval`` runs in the adapter."""
    code = f"""
        from prfeval.cli import main
        try:
            main(["trec_eval", {str(QRELS)!r}, {str(RUN)!r}])
        except SystemExit as exit:
            assert not exit.code, exit.code
    """
    assert f"{ADAPTER}.driver" in adapter_modules_after(code, tmp_path)


def test_a_measure_declaration_has_no_trec_eval_field():
    """MeasureDef keeps the maths and IR conventions; trec_eval's names are a table apart."""
    from prfeval._core.measure_def import MeasureDef

    fields = [f.name for f in dataclasses.fields(MeasureDef)]
    assert not [f for f in fields if "trec" in f.lower()], fields
    assert not [a for a in dir(MeasureDef) if "trec" in a.lower()]


def test_the_trec_eval_table_is_keyed_by_declared_canonical_names():
    from prfeval._measures import REGISTRY, TREC_REGISTRY
    from prfeval._measures.trec_table import TREC_NAMES

    assert set(TREC_NAMES) <= set(REGISTRY), sorted(set(TREC_NAMES) - set(REGISTRY))
    assert all(TREC_NAMES.values()), "a measure in the table without a trec_eval name"
    for canonical, names in TREC_NAMES.items():
        for t in names:  # each name is the registry's for that very measure
            assert TREC_REGISTRY.trec_name(t.name)[1] is REGISTRY[canonical], t.name


def test_every_measure_trec_eval_prints_is_in_the_table():
    """Each row name of trec_eval 9.0.8's ``-m all_trec`` output (recorded) is a name of the
    table, as typed or in its printed form (``P_10``): no registry measure trec_eval has is
    missing from it."""
    from prfeval._measures.trec_table import TREC_NAMES

    printed = {line.split()[0] for line in (DATA / "out.test.a").read_text().splitlines()}
    names = [t for ts in TREC_NAMES.values() for t in ts]
    typed = {t.name for t in names}
    forms = [t.printed.split("{}")[0] for t in names if "{}" in t.printed]
    missing = {p for p in printed if p not in typed and not any(p.startswith(f) for f in forms)}
    assert not missing, sorted(missing)
