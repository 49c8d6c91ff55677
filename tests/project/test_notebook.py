"""docs/notebook.ipynb runs as Jupyter runs it (nbclient and an IPython kernel), with no error,
and what it shows is right: the evaluation's, the comparison's and the classification's HTML
tables hold the figures pytrec_eval and scikit-learn compute from the notebook's own judgments
and runs, and the curve is one image, shown once."""

from __future__ import annotations

import html
import os
import re

import numpy as np
import pytest

from support import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.process]

NOTEBOOK = ROOT / "docs" / "notebook.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory):
    nbformat = pytest.importorskip("nbformat", reason="the notebook test needs prfeval[test]")
    nbclient = pytest.importorskip("nbclient", reason="the notebook test needs prfeval[test]")
    pytest.importorskip("ipykernel", reason="the notebook test needs prfeval[test]")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    src = str(ROOT / "src")
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    os.environ["PYTHONPATH"], before = path, os.environ.get("PYTHONPATH")
    try:
        nbclient.NotebookClient(nb, timeout=900, kernel_name="python3", resources={
            "metadata": {"path": str(tmp_path_factory.mktemp("notebook"))}}).execute()
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before
    return nb


@pytest.fixture(scope="module")
def data(executed):
    """The notebook's judgments and runs, made by its own cells (tagged ``data``) here."""
    scope: dict = {}
    for cell in executed.cells:
        if "data" in cell.metadata.get("tags", []):
            exec(cell.source, scope)  # the repository's own notebook
    return scope["qrels"], scope["runs"]


def _html_of(executed, marker: str) -> str:
    """The HTML output of the code cell whose source holds ``marker``, unescaped."""
    cell = next(c for c in executed.cells if c.cell_type == "code" and marker in c.source)
    (page,) = [o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})]
    return html.unescape(page)


def _mean(qrels, run, measure: str) -> float:
    import pytrec_eval

    ref = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return float(np.mean([v[measure] for v in ref.values()]))


def test_the_notebook_runs_without_an_error(executed) -> None:
    for cell in executed.cells:
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", out.get("evalue")
            assert "Traceback" not in out.get("text", "")


def test_the_evaluation_shows_pytrec_evals_means(executed, data) -> None:
    qrels, runs = data
    page = _html_of(executed, "prfeval.evaluate(")
    cells = re.findall(r"<td[^>]*>(.*?)</td>", page)
    for measure in ("P_10", "recall_100", "map", "ndcg_cut_10", "set_F"):
        assert f"{_mean(qrels, runs['stems'], measure):.4f}" in cells, measure
    assert "micro" in page and "Queries evaluated: 225" in page


def test_the_comparison_shows_each_runs_means_and_their_difference(executed, data) -> None:
    qrels, runs = data
    page = _html_of(executed, "prfeval.compare(")
    for name in ("words", "stems"):
        for measure in ("P_10", "map"):
            assert f"{_mean(qrels, runs[name], measure):.4f}" in page
    delta = _mean(qrels, runs["stems"], "map") - _mean(qrels, runs["words"], "map")
    assert f"{delta:+.4f}" in page
    assert "paired randomization test" in page


def test_the_classification_shows_sklearns_figures(executed, data) -> None:
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support

    qrels, runs = data
    pairs = [(q, d) for q, judged in qrels.items() for d in judged]
    top10 = {q: set(sorted(r, key=r.get, reverse=True)[:10]) for q, r in runs["stems"].items()}
    y_true = [qrels[q][d] >= 1 for q, d in pairs]
    y_pred = [d in top10.get(q, ()) for q, d in pairs]
    page = _html_of(executed, "prfeval.classify(")
    p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, pos_label=True,
                                                 average="binary")
    for value in (p, r, f, accuracy_score(y_true, y_pred)):
        assert f"{value:.4f}" in page


def test_the_curve_is_one_image_shown_once(executed) -> None:
    images = [
        (i, o) for i, c in enumerate(executed.cells) for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    ]
    assert len(images) == 1
    (index, _), = images
    assert "prfeval.plot.curve(" in executed.cells[index].source
