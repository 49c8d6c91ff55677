"""The main job on the bundled default: Cranfield ranked by BM25, evaluated end to end.

The trade-off between precision and recall (Manning, Raghavan and Schütze 2008, §8.3), traced
on Cranfield query 2 ranked by BM25, from real data, a real ranker and prfeval's own evaluation
of the written files:

1. load the bundled Cranfield collection and rank all 1,400 documents for each of the 225
   queries with BM25 (:mod:`prfeval._demo.bm25`, Lucene's configuration);
2. write ``run.trec`` and ``qrels.trec``, and ``run2.trec``, BM25 with k1 = 0.9 and b = 0.4,
   a second run to compare the first with; and the run and judgments as a RAG pipeline
   writes them (``rag.jsonl``: each question's top 10 passages as a list, ``gold.jsonl``:
   its relevant passages as a list), and in the layouts BEIR and MS MARCO ship (each
   question's top 100: ``beir-qrels.tsv``, ``beir-results.json``; ``msmarco-run.tsv``,
   ``msmarco-qrels.tsv``), for the README's "Your data as it comes";
3. read them back and evaluate the whole run (the default measures, macro and micro), writing
   ``evaluation.json``, and compute the curves at every cutoff;
4. draw the figures: query 2's trade-off, the macro-average trade-off and the F1 /
   F_beta contours with this run's point on them.

Needs the ``demo`` extra (bm25s, PyStemmer, matplotlib).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prfeval._demo.outdir import claim, record
from prfeval._io.atomic import write_atomic
from prfeval._retrieval.curves import Curves, curve
from prfeval._retrieval.evaluate import Evaluation, evaluate

__all__ = ["TABLE_CUTOFFS", "DemoReport", "QueryRow", "demo_files", "run_demo"]

#: The cutoffs of the demo's table for query 2: the best F1, a page of ten, and deeper.
TABLE_CUTOFFS = (9, 10, 50, 200, 1400)
COLLECTION_SIZE = 1400
#: The BM25 parameters of the second run the demo writes, ``run2.trec``.
SECOND_RUN = {"k1": 0.9, "b": 0.4}
#: The passages per question of ``rag.jsonl``, the run as a RAG pipeline writes it.
RAG_DEPTH = 10
#: The results per question of the BEIR and MS MARCO files: enough for R@100 and nDCG@10.
CUT_DEPTH = 100


@dataclass(frozen=True)
class QueryRow:
    """One row of the demo's table for one query: the top k and what is in it."""

    k: int
    relevant_retrieved: int
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class DemoReport:
    """What the demo computed and where it wrote it.

    Attributes
    ----------
    query_id
        The query of the table ("2").
    rows
        The table at :data:`TABLE_CUTOFFS`.
    n_relevant
        Relevant documents for the query (24).
    best
        The cutoff with the highest F1 and the values there (k = 9, F1 = 0.303).
    recall_half
        The first rank at which recall reaches 0.5, and P there (173, 0.069).
    n_scored
        Documents with a positive BM25 score (783).
    relevant_unscored
        Relevant documents sharing no term with the query, reached only after every scored
        document (3).
    evaluation
        The whole run evaluated with the default measures.
    curves
        Precision, recall and F1 at every cutoff of every query.
    files
        What was written, by role.
    """

    query_id: str
    rows: tuple[QueryRow, ...]
    n_relevant: int
    best: QueryRow
    recall_half: QueryRow | None
    n_scored: int | None
    relevant_unscored: tuple[str, ...]
    evaluation: Evaluation
    curves: Curves
    files: dict[str, Path] = field(default_factory=dict)


def _row(c: Curves, query_id: str, k: int) -> QueryRow:
    q = c[query_id]
    i = min(k, q.k.size) - 1
    return QueryRow(int(q.k[i]), int(q.tp[i]), float(q.precision[i]), float(q.recall[i]),
                    float(q.f[i]))


def demo_files(query_id: str = "2", *, plots: bool = True) -> dict[str, str]:
    """The names :func:`run_demo` writes into its folder, by role."""
    names = {"run": "run.trec", "qrels": "qrels.trec", "run2": "run2.trec",
             "evaluation": "evaluation.json", "rag": "rag.jsonl", "gold": "gold.jsonl",
             "beir_qrels": "beir-qrels.tsv", "beir_results": "beir-results.json",
             "msmarco_run": "msmarco-run.tsv", "msmarco_qrels": "msmarco-qrels.tsv"}
    if plots:
        names |= {"query_tradeoff": f"query{query_id}_tradeoff.png",
                  "macro_tradeoff": "macro_tradeoff.png", "f1_contours": "f1_contours.png",
                  "fbeta_contours": "fbeta_contours.png"}
    return names


def run_demo(
    out_dir: str | Path = "prfeval-demo",
    *,
    query_id: str = "2",
    plots: bool = True,
    step: Callable[[str], None] | None = None,
    force: bool = False,
    also: tuple[str, ...] = (),
) -> DemoReport:
    """Rank Cranfield with BM25, write the run and judgments, evaluate them and draw the plots.

    Parameters
    ----------
    out_dir
        Where ``run.trec``, ``qrels.trec``, ``run2.trec``, ``evaluation.json``,
        ``rag.jsonl``, ``gold.jsonl``, the BEIR and MS MARCO files (:func:`demo_files`) and
        the plots go (created).
    query_id
        The query of the trade-off table.
    plots
        Draw the figures (needs matplotlib).
    step
        Called with a short description before each slow step (for a progress display).
    force
        Replace files in ``out_dir`` that an earlier demo did not write (and symbolic links,
        with regular files); by default they are refused before anything is written (see
        :mod:`prfeval._demo.outdir`).
    also
        More names the caller will write into the folder afterwards (the report), checked
        and recorded with the demo's own.
    """
    from prfeval._demo.bm25 import rank_bm25, run_scores, write_run
    from prfeval._demo.datasets import load_cranfield
    from prfeval._demo.datasets.cranfield import write_qrels

    say = step or (lambda _: None)
    names = demo_files(query_id, plots=plots)
    out = claim(out_dir, [*names.values(), *also], force=force)
    # The data files (the figures are added once drawn).
    files = {role: out / name for role, name in demo_files(query_id, plots=False).items()}

    say("loading Cranfield (1,400 documents, 225 queries)")
    cranfield = load_cranfield()
    say("ranking every document for every query with BM25")
    ranking = rank_bm25(cranfield.documents, cranfield.queries)
    write_run(files["run"], ranking)
    write_qrels(files["qrels"], cranfield.qrels)
    _write_rag(files["rag"], files["gold"], ranking, cranfield)
    # The scores written to run.trec (strictly decreasing), so BEIR's results rank as it does.
    top = {qid: list(zip([d for d, _ in docs], run_scores([s for _, s in docs]).tolist(),
                         strict=True))[:CUT_DEPTH] for qid, docs in ranking.items()}  # fmt: skip
    _write_beir(files["beir_qrels"], files["beir_results"], top, cranfield.qrels)
    _write_msmarco(files["msmarco_run"], files["msmarco_qrels"], top, cranfield.qrels)
    # A second run to compare with (`prfeval compare`): BM25 with weaker length normalisation.
    write_run(files["run2"], rank_bm25(cranfield.documents, cranfield.queries,
                                       k1=SECOND_RUN["k1"], b=SECOND_RUN["b"]),
              tag="prfeval-bm25-k1-0.9-b-0.4")

    say("evaluating the written run")
    evaluation = evaluate(files["qrels"], files["run"], collection_size=COLLECTION_SIZE,
                          measures=None)
    write_atomic(files["evaluation"], json.dumps(evaluation.to_dict(), indent=2) + "\n")
    curves = curve(files["qrels"], files["run"], recall_levels=(0.5,),
                   collection_size=COLLECTION_SIZE)

    q = curves[query_id]
    reached = q.recall_reached.get(0.5)
    report = DemoReport(
        query_id=query_id,
        rows=tuple(_row(curves, query_id, k) for k in TABLE_CUTOFFS),
        n_relevant=q.n_relevant,
        best=_row(curves, query_id, q.best.k),
        recall_half=None if reached is None else _row(curves, query_id, reached.k),
        n_scored=q.n_scored,
        relevant_unscored=q.relevant_only_unscored or (),
        evaluation=evaluation,
        curves=curves,
        files=files,
    )
    if plots:
        say("drawing the plots")
        files.update(_draw(curves, query_id, {r: out / names[r] for r in names if r not in files}))
    record(out, [*names.values(), *also])
    return report


def _write_rag(rag: Path, gold: Path, ranking: Any, cranfield: Any) -> None:
    """The run and judgments in a RAG pipeline's shape, one JSON line per question: its
    top :data:`RAG_DEPTH` passages, best first (``question_id``, ``question``, ``ctxs``), and
    the passages judged relevant (``qid``, ``docid``: a list, no grades)."""
    text = {q.qid: q.text for q in cranfield.queries}
    write_atomic(rag, "".join(
        json.dumps({"question_id": qid, "question": " ".join(text[qid].split()),
                    "ctxs": [doc for doc, _ in docs[:RAG_DEPTH]]}) + "\n"
        for qid, docs in ranking.items()
    ))  # fmt: skip
    write_atomic(gold, "".join(
        json.dumps({"qid": qid, "docid": [d for d, g in judged.items() if g >= 1]}) + "\n"
        for qid, judged in cranfield.qrels.items()
    ))  # fmt: skip


def _write_beir(qrels: Path, results: Path, top: dict[str, list[tuple[str, float]]],
                judged: Mapping[str, Mapping[str, int]]) -> None:  # fmt: skip
    """The judgments and run as BEIR ships and writes them (Thakur et al. 2021): its
    ``qrels/test.tsv`` (a header, ``query-id<TAB>corpus-id<TAB>score``, the score the grade,
    every judgment) and its results, one JSON object ``{qid: {docid: score}}``."""
    write_atomic(qrels, "query-id\tcorpus-id\tscore\n" + "".join(
        f"{qid}\t{doc}\t{grade}\n" for qid, docs in judged.items() for doc, grade in docs.items()
    ))  # fmt: skip
    write_atomic(results, json.dumps({qid: dict(docs) for qid, docs in top.items()}) + "\n")


def _write_msmarco(run: Path, qrels: Path, top: dict[str, list[tuple[str, float]]],
                   judged: Mapping[str, Mapping[str, int]]) -> None:  # fmt: skip
    """The run and judgments as MS MARCO ships them: a run ``qid<TAB>docid<TAB>rank``
    (rank 1 first, no scores, no header) and qrels ``qid<TAB>0<TAB>docid<TAB>1`` listing the
    relevant passages only (grade >= 1), as MS MARCO's binary qrels do."""
    write_atomic(run, "".join(
        f"{qid}\t{doc}\t{rank}\n" for qid, docs in top.items()
        for rank, (doc, _) in enumerate(docs, start=1)
    ))  # fmt: skip
    write_atomic(qrels, "".join(
        f"{qid}\t0\t{doc}\t1\n" for qid, docs in judged.items()
        for doc, grade in docs.items() if grade >= 1
    ))  # fmt: skip


def _draw(curves: Curves, query_id: str, written: dict[str, Path]) -> dict[str, Path]:
    """The demo's figures, from this run, at the paths ``written`` gives by role."""
    from prfeval._plots.contours import contour_figure
    from prfeval._plots.curves import tradeoff_figure
    from prfeval._plots.figures import save_figure

    save_figure(tradeoff_figure(curves, query=query_id,
                                title=f"BM25 on Cranfield query {query_id}: the trade-off"),
                written["query_tradeoff"], close=True)
    save_figure(tradeoff_figure(curves, title="BM25 on Cranfield: macro average over "
                                f"{len(curves)} queries"),
                written["macro_tradeoff"], close=True)
    best = curves.macro.best
    # The point is the mean P and mean R at the cutoff with the best mean F1: its F1 (the F1
    # of the mean P and R) is not the mean F1 the trade-off figure marks, and says so.
    points = {f"BM25, top {best.k}": (best.precision, best.recall)}
    save_figure(contour_figure((1.0,), means=True, points=points, of_means=True),
                written["f1_contours"], close=True)
    save_figure(contour_figure((0.5, 2.0), points=points, of_means=True),
                written["fbeta_contours"], close=True)
    return written
