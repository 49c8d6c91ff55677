"""Shared by the trec_eval tests: all_trec's measures, trec_eval 9's ranking order and
pytrec_eval's C evaluator (their random judgments and runs are tests/support/random_data.py's
``trec_edge_case``)."""

from __future__ import annotations

import numpy as np

#: trec_eval's all_trec measures, by their trec_eval names (relstring and runid are text).
ALL_TREC = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret",
)


def trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval 9's ranking: score (as a C float) descending, doc id descending in bytes."""
    by_id = sorted(docs, key=lambda d: d.encode(), reverse=True)
    return sorted(by_id, key=lambda d: -float(np.float32(docs[d])))


def pytrec(qrels, run, measures, level=1, judged_only=False):
    """pytrec_eval's C evaluator, which takes trec_eval's measure syntax as it is."""
    import pytrec_eval_ext

    evaluator = pytrec_eval_ext.RelevanceEvaluator(qrels, set(measures), level, int(judged_only))
    return evaluator.evaluate(run)
