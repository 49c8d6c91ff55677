"""Evaluating Python dicts and lists loads no DataFrame library, plotting or statistics
package: each call below runs in a fresh interpreter, which then reports the heavy modules
in ``sys.modules``. pandas costs about 0.5 s to import; a DataFrame is made only when one is
asked for (``to_frame``), and the last case checks that this check sees that import.

That ``import prfeval`` alone loads no numpy is tested in ``test_architecture.py``; the time
of the first call is measured by ``bench/import_cost.py``, not asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

#: Modules a dict or list evaluation must not import.
HEAVY = ("pandas", "polars", "matplotlib", "scipy", "sklearn")

SETUP = """
import json, random, sys
import prfeval
rng = random.Random(7)
qrels = {f"q{i}": {f"d{j}": rng.randint(0, 2) for j in range(0, 150, 3)} for i in range(60)}
run = {f"q{i}": {f"d{j}": rng.random() for j in range(100)} for i in range(60)}
other = {q: {d: s * rng.random() for d, s in docs.items()} for q, docs in run.items()}
ranked = {q: sorted(docs, key=docs.get, reverse=True) for q, docs in run.items()}
y_true = [rng.randrange(3) for _ in range(300)]
y_pred = [t if rng.random() < 0.7 else rng.randrange(3) for t in y_true]
binary = [int(t == 1) for t in y_true]
scores = [rng.random() + b for b in binary]
"""

CASES = {
    "evaluate score dicts": """
        e = prfeval.evaluate(qrels, run, "P@10 recall@100")
        str(e); e._repr_html_(); e.to_dict(per_query=True)
    """,
    "evaluate ranked lists": 'prfeval.evaluate(qrels, ranked, "P@10 recall@100 AP nDCG")',
    "evaluate integer ids": """
        prfeval.evaluate({1: {2: 1, 3: 0}}, {1: {2: 0.5, 4: 0.25}}, "P@10")
    """,
    "evaluate with bounds and options": """
        prfeval.evaluate(qrels, run, None, bounds=True, queries=list(qrels)[:20], level=2)
    """,
    "curve": "c = prfeval.curve(qrels, run); str(c); c.to_dict()",
    "compare": """
        c = prfeval.compare(qrels, {"a": run, "b": other}, "P@10 AP")
        str(c); c._repr_html_(); c.to_dict(per_query=True)
    """,
    "explain": 'str(prfeval.explain(qrels, run, "q3"))',
    "classify": """
        r = prfeval.classify(y_true, y_pred)
        str(r); r.classification_report(); r.to_dict()
    """,
    "score measures and sweeps": """
        str(prfeval.score_measures(binary, scores))
        str(prfeval.threshold_sweep(binary, scores))
    """,
}


def loaded_after(code: str) -> list[str]:
    """The modules of :data:`HEAVY` in ``sys.modules`` after ``code`` ran in a fresh
    interpreter."""
    script = (
        SETUP
        + textwrap.dedent(code)
        + f"\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_call_on_dicts_or_lists_loads_no_heavy_module(case):
    assert loaded_after(CASES[case]) == []


def test_a_dataframe_asked_for_loads_pandas_and_the_check_sees_it():
    assert loaded_after('prfeval.evaluate(qrels, run, "P@10").to_frame()') == ["pandas"]
