"""trec_eval stays apart (issue 47): ``prfeval evaluate`` and :func:`prfeval.evaluate` load no
module of the trec_eval adapter (``prfeval._trec_eval``), while ``prfeval trec_eval`` does.

Each check runs in a fresh interpreter, so that what another test imported cannot hide an
import, and reads ``sys.modules`` after the evaluation.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "trec_eval_quicktest"
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
