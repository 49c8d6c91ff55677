"""trec_eval 9.0.8's preference measures (Buckley's ``prefs_*``), computed per query.

For one query the judged documents get a *docid rank*: the retrieved judged documents
0 .. njr-1 in rank order (score descending, ties by doc id ascending, as trec_eval's
preference code orders them), then the unretrieved judged documents njr .. nj-1 in doc id
order. Each judgment group (JG) gives a set of preferences ``a > b`` (pairs of docid
ranks): with one sub-group, every document over every document of a lower level; with
several, the union over the sub-groups closed under transitivity. A preference ``a > b``
is

* *fulfilled, retrieved* when both are retrieved and ``a`` ranks above ``b``;
* *possible, retrieved* when both are retrieved;
* *fulfilled, implied* when only ``a`` is retrieved; *possible, implied* when one is;
* *not occurring* when neither is retrieved (possible, never fulfilled).

The measures (per query; the summary is the mean over queries, the three counts are sums):

* ``prefs_num_prefs_poss`` = sum of possible; ``prefs_num_prefs_ful`` = fulfilled
  (retrieved + implied); ``prefs_num_prefs_ful_ret`` = fulfilled retrieved.
* ``prefs_simp`` = fulfilled / possible over all JGs; ``_ret`` counts only retrieved
  pairs, ``_imp`` retrieved and implied ones. 0 when nothing is possible.
* ``prefs_avgjg`` = mean over JGs of fulfilled_jg / possible_jg (a JG with nothing
  possible adds 0, and the value is 0 unless the sum is positive); ``_ret``, ``_imp`` alike.
* ``prefs_pair`` = mean over document pairs with any preference of
  c(a>b) / (c(a>b) + c(b>a)), a the better-ranked, c counting the JGs; a pair with neither
  retrieved scores 0. ``_imp`` leaves out pairs with neither retrieved, ``_ret`` keeps only
  pairs with both retrieved.
* ``prefs_avgjg_Rnonrel`` = ``prefs_avgjg`` with the non-relevant (level <= 0) judged
  documents of each JG set to R, its relevant count: with N <= R, R - N fulfilled
  preferences are added for every relevant retrieved document (and R - N possible for every
  relevant one); with N > R only the first R non-relevant documents (docid order) are kept.
  ``_ret`` does the same over retrieved documents only. Akin to bpref (Buckley and
  Voorhees, 2004).

Edge cases follow trec_eval 9.0.8 exactly, including its quirks: in the Rnonrel
recount of a one-sub-group JG the lowest level class is also paired with its own first R
documents, and ``_ret`` adds ``R - N`` possible preferences for every relevant document,
retrieved or not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import InputFormatError
from prfeval._core.preferences import PreferenceCounts
from prfeval._io.load import load_run
from prfeval._io.prefs import Preferences, read_preferences
from prfeval._measures import REGISTRY, parse_measures
from prfeval._measures.prefs import PREFS_MEASURES

__all__ = [
    "COUNT_MEASURES",
    "MEASURES",
    "PrefsResult",
    "evaluate_preferences",
    "preference_counts",
]

#: trec_eval's table order (from the registry's declarations).
MEASURES: tuple[str, ...] = PREFS_MEASURES
#: Measures whose summary is the sum over queries (integers), not the mean.
COUNT_MEASURES = frozenset(n for n in MEASURES if REGISTRY[n].is_total)

_I64 = npt.NDArray[np.int64]


@dataclass
class PrefsResult:
    """Per-query values of every preference measure, for the queries evaluated (those with
    both results and preferences, in byte order of their ids)."""

    queries: list[str]
    values: dict[str, list[float]] = field(default_factory=dict)

    def summary(self, name: str, num_queries: int | None = None) -> float:
        """The summary of measure ``name``: the sum over queries for the three counts, else
        the sum divided by ``num_queries`` (default: the queries evaluated; trec_eval's
        ``-c`` passes every judged query, those without results scoring 0)."""
        total = 0.0
        for v in self.values[name]:  # in query order, as trec_eval sums its doubles
            total += v
        if name in COUNT_MEASURES:
            return total
        n = len(self.queries) if num_queries is None else num_queries
        return total / n if n else 0.0


def _div(a: float, b: float) -> float:
    # C double division: x/0 is inf or nan, and trec_eval lets those through its sums.
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _cross(src: _I64, dst: _I64) -> tuple[_I64, _I64]:
    """Every (s, d) pair of s in src and d in dst."""
    return np.repeat(src, len(dst)), np.tile(dst, len(src))


def _lower_pairs(levels: npt.NDArray[np.float32], ranks: _I64) -> tuple[_I64, _I64]:
    """Every (a, b) of rows with level[a] > level[b]: ranks of a and b."""
    order = np.argsort(-levels, kind="stable")
    lv, rk = levels[order], ranks[order]
    # first row of a strictly lower level, for each row (levels descending)
    start = np.searchsorted(-lv, -lv, side="right")
    counts = len(lv) - start
    total = int(counts.sum())
    src = np.repeat(rk, counts)
    base = np.repeat(np.cumsum(counts) - counts, counts)
    dst = rk[np.arange(total) - base + np.repeat(start, counts)]
    return src, dst


@dataclass
class _Group:
    src: _I64
    dst: _I64
    num_rel: int
    num_rel_ret: int
    num_nonrel: int
    num_nonrel_ret: int
    r_ful: float  # Rnonrel fulfilled / possible (recounted or adjusted)
    r_poss: float
    rr_ful: float  # Rnonrel_ret
    rr_poss: float


def _categories(src: _I64, dst: _I64, njr: int) -> tuple[int, int, int, int, int]:
    si, di = src < njr, dst < njr
    ful_ret = int(np.count_nonzero((src < dst) & di))
    poss_ret = int(np.count_nonzero(si & di))
    ful_imp = int(np.count_nonzero(si & ~di))
    poss_imp = int(np.count_nonzero(si ^ di))
    notoccur = int(np.count_nonzero(~si & ~di))
    return ful_ret, poss_ret, ful_imp, poss_imp, notoccur


def _ec_group(prefs: Preferences, rows: _I64, ranks: _I64, njr: int) -> _Group:
    """A JG of one sub-group: equivalence classes of equal level."""
    levels = prefs.levels[rows]
    src, dst = _lower_pairs(levels, ranks)
    same = src == dst
    if same.any():
        row = rows[np.flatnonzero(ranks == src[same][0])[0]]
        raise prefs.error(int(row), "document has two different levels in one sub-group")
    rel = levels > 0
    ret = ranks < njr
    num_rel, num_rel_ret = int(rel.sum()), int((rel & ret).sum())
    num_nonrel, num_nonrel_ret = int((~rel).sum()), int((~rel & ret).sum())
    # Rnonrel recount: the lowest class is cut to its first R docs (docid order)
    low = levels == levels.min()
    last = np.sort(ranks[low])
    upper_src, upper_dst = _lower_pairs(levels[~low], ranks[~low])

    def recount(keep: int, retrieved_only: bool) -> tuple[float, float]:
        cut = last[:keep]
        a1, b1 = upper_src, upper_dst
        a2, b2 = _cross(ranks, cut)
        if retrieved_only:
            k1 = (a1 < njr) & (b1 < njr)
            a1, b1 = a1[k1], b1[k1]
            k2 = (a2 < njr) & (b2 < njr)
            a2, b2 = a2[k2], b2[k2]
            ful = np.count_nonzero(a1 < b1) + np.count_nonzero(a2 < b2)
        else:
            ful = np.count_nonzero((a1 < b1) & (a1 < njr)) + np.count_nonzero(
                (a2 < b2) & (a2 < njr)
            )
        return float(ful), float(len(a1) + len(a2))

    g = _Group(src, dst, num_rel, num_rel_ret, num_nonrel, num_nonrel_ret, 0, 0, 0, 0)
    _rnonrel(g, njr, recount)
    return g


def _rnonrel(g: _Group, njr: int, recount) -> None:
    ful_ret, poss_ret, ful_imp, poss_imp, notoccur = _categories(g.src, g.dst, njr)
    r, n = g.num_rel, g.num_nonrel
    if r >= n:
        g.r_ful = ful_ret + ful_imp + g.num_rel_ret * (r - n)
        g.r_poss = poss_ret + poss_imp + notoccur + g.num_rel * (r - n)
    else:
        g.r_ful, g.r_poss = recount(r, False)
    r, n = g.num_rel_ret, g.num_nonrel_ret
    if r >= n:
        g.rr_ful = ful_ret + g.num_rel_ret * (r - n)
        g.rr_poss = poss_ret + g.num_rel * (r - n)
    else:
        g.rr_ful, g.rr_poss = recount(r, True)


def _pa_group(
    prefs: Preferences,
    rows: _I64,
    ranks: _I64,
    subgroups: npt.NDArray[np.str_],
    njr: int,
    nj: int,
) -> _Group:
    """A JG of several sub-groups: a preference matrix closed under transitivity."""
    docs, local = np.unique(ranks, return_inverse=True)
    n = len(docs)
    levels = prefs.levels[rows]
    m = np.zeros((n, n), dtype=bool)
    for sub in np.unique(subgroups):
        k = np.flatnonzero(subgroups == sub)
        a, b = _lower_pairs(levels[k], local[k])
        m[a, b] = True
    # relevance of each doc: consistent 0 / > 0 within the JG, else an error
    zero = np.zeros(n, dtype=bool)
    pos = np.zeros(n, dtype=bool)
    zero[local[levels == 0]] = True
    pos[local[levels > 0]] = True
    both = zero & pos
    if both.any():
        row = rows[np.flatnonzero(local == np.flatnonzero(both)[0])[0]]
        raise prefs.error(int(row), "document has both 0 and non-0 rel_level in one group")
    # transitive closure (reflexive while closing, as trec_eval's matrix products)
    m |= np.eye(n, dtype=bool)
    while True:
        nxt = (m.astype(np.int32) @ m.astype(np.int32)) > 0
        if np.array_equal(nxt, m):
            break
        m = nxt
    np.fill_diagonal(m, False)
    if (m & m.T).any():
        i = int(np.argwhere(m & m.T)[0][0])
        row = rows[np.flatnonzero(local == i)[0]]
        raise prefs.error(int(row), "inconsistent preferences within one judgment group")
    a, b = np.nonzero(m)
    src, dst = docs[a], docs[b]
    ret = docs < njr
    num_rel, num_rel_ret = int(pos.sum()), int((pos & ret).sum())
    num_nonrel, num_nonrel_ret = int(zero.sum()), int((zero & ret).sum())
    nonrel_ranks = docs[zero]  # ascending

    def recount(keep_count: int, retrieved_only: bool) -> tuple[float, float]:
        # trec_eval discards the non-relevant docs from its (num_rel + 1)-th one on
        cand = nonrel_ranks[nonrel_ranks < njr] if retrieved_only else nonrel_ranks
        limit = njr if retrieved_only else nj
        first = int(cand[num_rel]) if len(cand) > num_rel else limit
        dropped = zero & (docs >= first)
        keep = ~dropped[a] & ~dropped[b]
        s, d = src[keep], dst[keep]
        if retrieved_only:
            k = (s < njr) & (d < njr)
            s, d = s[k], d[k]
            return float(np.count_nonzero(s < d)), float(len(s))
        return float(np.count_nonzero((s < d) & (s < njr))), float(len(s))

    g = _Group(src, dst, num_rel, num_rel_ret, num_nonrel, num_nonrel_ret, 0, 0, 0, 0)
    _rnonrel(g, njr, recount)
    return g


def _order_run(docs: npt.NDArray[np.str_], scores: npt.NDArray[np.float32]) -> npt.NDArray[np.str_]:
    # score descending, ties by doc id ascending (trec_eval's form_prefs_counts)
    return docs[np.lexsort((docs, -scores))]


def _query(
    prefs: Preferences,
    rows: _I64,
    ranked: npt.NDArray[np.str_],
    query: str,
    run_path: str,
) -> tuple[float, ...]:
    """One query's entries of :class:`PreferenceCounts` (in its field order)."""
    if len(np.unique(ranked)) != len(ranked):
        u, c = np.unique(ranked, return_counts=True)
        raise InputFormatError(
            f"query {query}: document {u[c > 1][0]} retrieved more than once", path=run_path
        )
    docs = prefs.doc_ids[rows]
    judged, local = np.unique(docs, return_inverse=True)
    pos_in_run = {d: i for i, d in enumerate(ranked)} if len(ranked) < len(judged) else None
    if pos_in_run is not None:
        where = np.array([pos_in_run.get(d, -1) for d in judged], dtype=np.int64)
    else:
        order = np.argsort(ranked)
        sr = ranked[order]
        at = np.clip(np.searchsorted(sr, judged), 0, max(len(sr) - 1, 0))
        hit = (sr[at] == judged) if len(sr) else np.zeros(len(judged), dtype=bool)
        where = np.where(hit, order[at] if len(sr) else -1, -1)
    retrieved = where >= 0
    njr = int(retrieved.sum())
    nj = len(judged)
    docid = np.empty(nj, dtype=np.int64)
    docid[np.flatnonzero(retrieved)[np.argsort(where[retrieved])]] = np.arange(njr)
    docid[~retrieved] = np.arange(njr, nj)  # judged is in doc id order already
    ranks = docid[local]
    groups = prefs.groups[rows]
    subs = prefs.subgroups[rows]
    jgs: list[_Group] = []
    for jg in np.unique(groups):
        k = np.flatnonzero(groups == jg)
        if len(np.unique(subs[k])) > 1:
            jgs.append(_pa_group(prefs, rows[k], ranks[k], subs[k], njr, nj))
        else:
            jgs.append(_ec_group(prefs, rows[k], ranks[k], njr))
    cats = np.array([_categories(g.src, g.dst, njr) for g in jgs], dtype=np.int64)
    ful_ret, poss_ret, ful_imp, poss_imp, notoccur = cats.T
    n_jg = len(jgs)

    def jg_sum(ful: _I64, poss: _I64) -> float:
        # added one JG at a time, in JG order, as trec_eval adds its doubles
        total = 0.0
        for f, p in zip(ful.tolist(), poss.tolist(), strict=True):
            if p:
                total += f / p
        return total

    def r_sum(pairs: list[tuple[float, float]]) -> float:
        total = 0.0
        for f, p in pairs:
            total += _div(f, p)
        return total

    all_ful = ful_ret + ful_imp
    all_poss = poss_ret + poss_imp + notoccur
    # pair measures over the counts array summed across JGs
    src = np.concatenate([g.src for g in jgs])
    dst = np.concatenate([g.dst for g in jgs])
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    key, inverse = np.unique(lo * nj + hi, return_inverse=True)
    total = np.bincount(inverse, minlength=len(key)).astype(np.float64)
    fwd = np.bincount(inverse, weights=(src < dst).astype(np.float64), minlength=len(key))
    plo, phi = key // max(nj, 1), key % max(nj, 1)
    frac = fwd / np.where(total > 0, total, 1)
    both = phi < njr
    one = (plo < njr) & ~both

    def pair_sum(with_implied: bool) -> float:
        # summed one by one in trec_eval's order (both retrieved, then one retrieved, each
        # by docid ranks): a different order can move the fourth digit
        parts = [frac[both], frac[one]] if with_implied else [frac[both]]
        seq = np.cumsum(np.concatenate(parts))
        return float(seq[-1]) if len(seq) else 0.0

    return (
        float(all_poss.sum()),
        float(all_ful.sum()),
        float(ful_ret.sum()),
        float(poss_ret.sum()),
        float((poss_ret + poss_imp).sum()),
        float(n_jg),
        jg_sum(all_ful, all_poss),
        jg_sum(ful_ret, poss_ret),
        jg_sum(all_ful, poss_ret + poss_imp),
        r_sum([(g.r_ful, g.r_poss) for g in jgs]),
        r_sum([(g.rr_ful, g.rr_poss) for g in jgs]),
        pair_sum(True),
        pair_sum(False),
        float(len(key)),
        float(both.sum()),
        float((both | one).sum()),
    )


def evaluate_preferences(
    prefs: Preferences | str | os.PathLike[str],
    run: Any,
    *,
    max_results: int | None = None,
) -> PrefsResult:
    """Every ``prefs_*`` measure of trec_eval 9.0.8 for each query with both results and
    preferences.

    Parameters
    ----------
    prefs
        :class:`~prfeval._io.prefs.Preferences` (from :func:`~prfeval._io.prefs.read_preferences`,
        which reads ``prefs`` and ``qrels_prefs`` files), or the path of a ``prefs`` file.
    run
        Anything :func:`prfeval.load_run` reads (a TREC run file, ``{qid: {doc: score}}``,
        a table ...), ranked by score descending, ties by doc id ascending.
    max_results
        Keep each query's top ``max_results`` documents only (trec_eval's ``-M``).

    Returns
    -------
    PrefsResult
        Per-query values (``values[name][i]`` for ``queries[i]``) and ``summary(name)``:
        the mean over queries, or the sum for the three ``prefs_num_prefs_*`` counts.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "prefs")
    >>> _ = open(p, "w").write("q g s A 2\\nq g s B 1\\n")
    >>> r = evaluate_preferences(p, {"q": {"A": 2.0, "B": 1.0}})
    >>> r.values["prefs_simp"]
    [1.0]
    """
    counts = preference_counts(prefs, run, max_results=max_results)
    result = PrefsResult(list(counts.query_ids))
    for m in parse_measures(list(MEASURES)):
        fn = m.definition.preferences
        assert fn is not None  # every prefs_* declares it
        result.values[str(m)] = fn(counts, m).tolist()
    return result


def preference_counts(
    prefs: Preferences | str | os.PathLike[str],
    run: Any,
    *,
    max_results: int | None = None,
) -> PreferenceCounts:
    """The per-query counts every ``prefs_*`` measure is a function of, computed once.

    ``prefs`` and ``run`` are as for :func:`evaluate_preferences`; the queries are those
    with both results and preferences, in byte order of their ids (trec_eval's).
    """
    if not isinstance(prefs, Preferences):
        prefs = read_preferences(prefs)
    table = load_run(run, ranks=False)
    return _evaluate_arrays(
        prefs,
        table.query_ids.to_numpy(zero_copy_only=False),
        table.doc_ids.to_numpy(zero_copy_only=False),
        _scores(table),
        max_results=max_results,
        run_path=table.source.path,
    )


def _scores(table: Any) -> npt.NDArray[np.float64]:
    """Scores to rank by: a ranked list (no scores) in its given order within each query."""
    if table.scores is not None:
        return np.asarray(table.scores, dtype=np.float64)
    return -np.arange(len(table), dtype=np.float64)


def _evaluate_arrays(
    prefs: Preferences,
    run_queries: npt.NDArray[np.str_],
    run_docs: npt.NDArray[np.str_],
    run_scores: npt.NDArray[np.floating],
    *,
    max_results: int | None = None,
    run_path: str = "run",
) -> PreferenceCounts:
    """The counts of ``prefs`` for a run given as arrays.

    Scores are compared as float32 (trec_eval's ``sim``); ``max_results`` keeps each
    query's top documents only (trec_eval's ``-M``). Raises :class:`InputFormatError` for a
    document retrieved twice in a query, a document at two levels of one sub-group, a
    document both 0 and above 0 in one group, or a cycle of preferences in one group.
    """
    scores = np.asarray(run_scores, dtype=np.float32)
    rq = np.asarray(run_queries).astype(str)
    rd = np.asarray(run_docs).astype(str)
    run_order = np.argsort(rq, kind="stable")
    rq_sorted = rq[run_order]
    run_keys, run_starts = np.unique(rq_sorted, return_index=True)
    run_ends = np.append(run_starts[1:], len(rq_sorted))
    pq_order = np.argsort(prefs.query_ids, kind="stable")
    pq_sorted = prefs.query_ids[pq_order]
    p_keys, p_starts = np.unique(pq_sorted, return_index=True)
    p_ends = np.append(p_starts[1:], len(pq_sorted))
    p_index = {q: i for i, q in enumerate(p_keys.tolist())}
    # trec_eval walks queries in strcmp (byte) order
    queries = sorted(run_keys.tolist(), key=_byte_order)
    run_index = {q: i for i, q in enumerate(run_keys.tolist())}
    queries_done: list[str] = []
    rows_done: list[tuple[float, ...]] = []
    for q in queries:
        pi = p_index.get(q)
        if pi is None:
            continue
        ri = run_index[q]
        sel = run_order[run_starts[ri] : run_ends[ri]]
        ranked = _order_run(rd[sel], scores[sel])
        if max_results is not None:
            ranked = ranked[:max_results]
        rows = pq_order[p_starts[pi] : p_ends[pi]].astype(np.int64)
        rows_done.append(_query(prefs, rows, ranked, q, run_path))
        queries_done.append(q)
    cols = np.array(rows_done, dtype=np.float64).reshape(
        len(rows_done), len(PreferenceCounts.ARRAYS)
    )
    arrays = {n: cols[:, i].copy() for i, n in enumerate(PreferenceCounts.ARRAYS)}
    judged = set(p_keys.tolist())
    return PreferenceCounts(
        tuple(queries_done),
        **arrays,
        missing_from_run=tuple(sorted(judged - set(run_index), key=_byte_order)),
        not_in_prefs=tuple(q for q in queries if q not in p_index),
    )


def _byte_order(q: str) -> bytes:
    return q.encode("utf-8", "surrogateescape")
