"""The registry's declarations and the parser that reads them.

Each expectation is written out by hand from the docs (docs/measures.md, DESIGN.md) and
trec_eval's naming: ``P`` alone is its nine cutoffs, ``set_F.x`` takes x as beta squared,
``iprec_at_recall`` is its eleven levels printed with two decimals.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from prfeval import MeasureError, PrfevalError, evaluate
from prfeval._classification.averages import MEASURES as CLASSIFICATION_MEASURES
from prfeval._core.counts import beta_from_alpha
from prfeval._core.measure_def import Measure, MeasureDef
from prfeval._core.ranking import RankingNeeds
from prfeval._core.registry import Registry
from prfeval._core.trec_names import TrecName
from prfeval._io.prefs import Preferences
from prfeval._measures import PARAMS, REGISTRY, lookup, parse_measures, ranking_needs
from prfeval._measures.trec_table import TREC_NAMES


def tp_of(c, m, zd):
    return c.tp


def rank_zero(jr, m, level):
    return jr.n_retrieved * 0.0


def labels(spec) -> list[str]:
    return [str(m) for m in parse_measures(spec)]


# -- declarations ----------------------------------------------------------------------------


def preferences_of(qrels: dict[str, dict[str, int]]) -> Preferences:
    """Qrels as trec_eval's qrels_prefs reads them: one judgment group per query."""
    rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    return Preferences(
        np.array([r[0] for r in rows]),
        np.array(["0"] * len(rows)),
        np.array(["0"] * len(rows)),
        np.array([r[1] for r in rows]),
        np.array([r[2] for r in rows], dtype=np.float32),
        np.arange(1, len(rows) + 1, dtype=np.int64),
    )


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_entry_computes_what_its_declaration_says(name):
    """What the declaration promises, measured on a small case rather than restated: a
    number measure gives one finite number per query (a geometric mean may be 0), a text
    measure one string per query, and the kernel takes the entry's parameters as declared."""
    d = REGISTRY[name]
    (m,) = parse_measures(d.example())
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1}}
    run = {"q1": {"a": 3.0, "x": 2.0, "c": 1.0}, "q2": {"d": 1.0, "y": 0.5}}
    if d.needs_preferences:  # the same judgments read as preferences (-R qrels_prefs)
        e = evaluate(preferences_of(qrels), run, [m])
    else:
        e = evaluate(qrels, run, [m], collection_size=100)
    label = str(m)
    if d.is_text:
        assert label in e.text and all(isinstance(t, str) for t in e.text[label])
        assert len(e.text[label]) == 2
    else:
        values = e.values[e.labels.index(label)]
        assert values.shape == (2,) and all(math.isfinite(v) for v in values), (label, values)
        assert set(m.params) <= set(d.params)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_entry_example_parses_back_to_it(name):
    d = REGISTRY[name]
    (m,) = parse_measures(d.example())
    assert m.definition is d
    (again,) = parse_measures(m.name)
    assert again.name == m.name and again.definition is d
    for alias in d.aliases:
        assert lookup(alias) is d
        assert lookup(alias.upper()) is d  # case-insensitive


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_trec_eval_name_reads_back_to_its_entry(name):
    """Each trec_eval name an entry declares is what trec_eval's parser (``-m NAME``) finds
    for it, and prints as declared: a shadowed or mistyped name would fail here, where the
    registry's own check at import only refuses the very same name twice."""
    from prfeval._measures import TREC_REGISTRY

    d = REGISTRY[name]
    for t in TREC_NAMES.get(name, ()):
        found = TREC_REGISTRY.trec_name(t.name)
        assert found is not None and found[1] is d, (t.name, found)
        measures = TREC_REGISTRY.parse_trec(t.name, None)
        assert measures and all(m.definition is d for m in measures), t.name


def test_a_definition_needs_exactly_one_of_counts_and_ranked():
    with pytest.raises(TypeError, match="exactly one"):
        MeasureDef("Both", "s", "f", counts=tp_of, ranked=rank_zero)
    with pytest.raises(TypeError, match="exactly one"):
        MeasureDef("Neither", "s", "f")
    assert MeasureDef("Ok", "s", "f", ranked=rank_zero).ranked is rank_zero


def test_a_registry_rejects_a_repeated_name_and_unknown_params():
    a = MeasureDef("A", "s", "f", counts=tp_of)
    with pytest.raises(TypeError, match="declared twice"):
        Registry([a, MeasureDef("A", "other", "f", counts=tp_of)], PARAMS, beta_from_alpha)
    with pytest.raises(TypeError, match="unknown parameters"):
        Registry([MeasureDef("B", "s", "f", counts=tp_of, params=("gamma",))], PARAMS,
                 beta_from_alpha)


@pytest.mark.parametrize(
    "clash",
    [
        MeasureDef("Other", "s", "f", counts=tp_of, aliases=("SetP",)),
        MeasureDef("setp", "s", "f", counts=tp_of),
    ],
    ids=["alias", "case"],
)
def test_a_registry_rejects_a_name_taken_by_another_entry(clash):
    first = MeasureDef("SetP", "s", "f", counts=tp_of)
    with pytest.raises(TypeError):
        Registry([first, clash], PARAMS, beta_from_alpha)


def test_properties_of_precision_at_k():
    d = REGISTRY["P"]
    assert d.usage == "P@k"
    assert d.example() == "P@10" and d.example(5) == "P@5"
    assert d.averages == "macro, micro"
    assert (d.direction, d.is_total, d.has_micro) == (1, False, True)
    assert (d.depth, d.cutoff, d.reads) == ("k", "required", "top_k")


def test_properties_of_set_e_and_set_f():
    e, f = REGISTRY["SetE"], REGISTRY["SetF"]
    assert e.direction == -1 and not e.higher_is_better
    assert f.direction == 1
    assert e.averages == f.averages == "macro, micro, f_of_means"
    assert e.usage == "SetE" and e.example() == "SetE"
    assert {"beta", "alpha", "rel"} <= set(f.params)


@pytest.mark.parametrize("name", ["NumQ", "NumRet", "NumRel", "NumRelRet", "TP", "FP", "FN", "TN"])
def test_totals(name):
    d = REGISTRY[name]
    assert d.is_total and d.aggregation == "sum"
    assert d.direction == 0
    assert not d.has_micro
    assert d.averages == "total"


def test_properties_of_ranked_and_tn_measures():
    ip = REGISTRY["IPrec"]
    assert ip.usage == "IPrec@r"
    assert ip.example() == "IPrec@0.5" and ip.example(0.3) == "IPrec@0.3"
    assert ip.example(10) == "IPrec@0.5"  # a cutoff is no recall level
    assert ip.averages == "macro" and not ip.has_micro
    assert REGISTRY["Rprec"].reads == "ranks"
    assert REGISTRY["Fallout"].direction == -1 and REGISTRY["Fallout"].needs_tn
    assert REGISTRY["Accuracy"].needs_tn and not REGISTRY["SetP"].needs_tn


def test_trec_name_descriptions():
    assert TREC_NAMES["P"][0].describe() == (
        "P_k (P alone: 5, 10, 15, 20, 30, 100, 200, 500, 1000)"
    )
    assert TREC_NAMES["SetF"][0].describe() == "set_F, set_F.x with x = beta^2"
    assert TREC_NAMES["SetP"][0].describe() == "set_P"
    assert TrecName("x").describe() == "x"


# -- parsing trec_eval's names ---------------------------------------------------------------


def test_p_with_listed_cutoffs():
    ms = parse_measures("P.5,10")
    assert [str(m) for m in ms] == ["P_5", "P_10"]
    assert [m.k for m in ms] == [5, 10]
    assert all(m.definition is REGISTRY["P"] for m in ms)
    assert labels("P.10") == ["P.10"]  # one value keeps the label as typed
    assert [m.k for m in parse_measures("P_10")] == [10]


def test_p_alone_is_trec_evals_nine_cutoffs():
    ms = parse_measures("P")
    assert [m.k for m in ms] == [5, 10, 15, 20, 30, 100, 200, 500, 1000]
    assert [str(m) for m in ms] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]


def test_recall_cutoff():
    (m,) = parse_measures("recall_100")
    assert m.definition is REGISTRY["R"] and m.k == 100
    assert m.name == "R@100" and str(m) == "recall_100"
    assert len(parse_measures("recall")) == 9


def test_set_f_takes_beta_squared():
    (m,) = parse_measures("set_F.2")
    assert m.definition is REGISTRY["SetF"]
    assert m.beta == pytest.approx(math.sqrt(2), abs=1e-15)
    assert str(m) == "set_F.2"
    (plain,) = parse_measures("set_F")
    assert plain.beta == 1.0
    (quarter,) = parse_measures("set_F.0.25")
    assert quarter.beta == pytest.approx(0.5, abs=1e-15)


def test_iprec_at_recall_alone_is_eleven_levels():
    ms = parse_measures("iprec_at_recall")
    assert [str(m) for m in ms] == [
        "iprec_at_recall_0.00", "iprec_at_recall_0.10", "iprec_at_recall_0.20",
        "iprec_at_recall_0.30", "iprec_at_recall_0.40", "iprec_at_recall_0.50",
        "iprec_at_recall_0.60", "iprec_at_recall_0.70", "iprec_at_recall_0.80",
        "iprec_at_recall_0.90", "iprec_at_recall_1.00",
    ]
    assert [m.recall_level for m in ms] == [i / 10 for i in range(11)]
    assert all(m.definition is REGISTRY["IPrec"] and m.k is None for m in ms)


@pytest.mark.parametrize(
    ("token", "name"),
    [("num_q", "NumQ"), ("num_ret", "NumRet"), ("num_rel", "NumRel"),
     ("num_rel_ret", "NumRelRet"), ("set_P", "SetP"), ("set_recall", "SetR"), ("Rprec", "Rprec")],
)
def test_trec_eval_names_without_parameters(token, name):
    (m,) = parse_measures(token)
    assert m.definition is REGISTRY[name]
    assert str(m) == token


# -- parsing our names -----------------------------------------------------------------------


def test_our_names_with_parameters():
    p, r, f, a, i = parse_measures("P(rel=2)@10 R@100 SetF(beta=2) SetF(alpha=0.2) IPrec@0.25")
    assert (p.k, p.rel) == (10, 2)
    assert (r.k, r.rel) == (100, None)
    assert f.beta == 2.0
    assert a.beta == pytest.approx(2.0, abs=1e-15)  # beta^2 = (1 - 0.2) / 0.2 = 4
    assert a.name == "SetF(beta=2)"
    assert i.recall_level == 0.25 and i.name == "IPrec@0.25"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("Precision", "needs a cutoff"),
        ("SetP@10", "takes no cutoff"),
        ("IPrec", "needs a recall level"),
        ("IPrec@2", r"\[0, 1\]"),
        ("P@x", "integer >= 0"),
        ("P(beta=2)@10", "P takes rel; got 'beta'"),
        ("SetF(beta=-1)", r"beta must be a number in \[0, 1e\+100\]"),
        ("SetF(alpha=0)", r"alpha must be a number in \[1e-200, 1\]"),
        ("SetF(beta=1,alpha=0.5)", "beta or alpha, not both"),
        ("set_F.x", "beta"),
        ("", "no measures given"),
    ],
)
def test_bad_names_and_parameters(spec, message):
    with pytest.raises(MeasureError, match=message) as caught:
        parse_measures(spec)
    assert isinstance(caught.value, PrfevalError)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [("Precison", "Precision"), ("SetRecal", "SetRecall"), ("num_rett", "num_ret"),
     ("NumRelRett", "NumRelRet")],
)
def test_a_misspelt_name_suggests_the_close_one(typo, meant):
    with pytest.raises(MeasureError) as caught:
        parse_measures(typo)
    message = str(caught.value)
    assert f"did you mean {meant}" in message or f" or {meant}" in message
    assert "`prfeval measures`" in message


def test_nothing_close_still_points_to_the_list():
    with pytest.raises(MeasureError) as caught:
        parse_measures("zzzz")
    assert "did you mean" not in str(caught.value)
    assert "`prfeval measures`" in str(caught.value)


def test_suggestions_come_from_the_registry():
    zeta = MeasureDef("Zeta", "s", "f", counts=tp_of, aliases=("ZetaScore",))
    small = Registry([zeta], PARAMS, beta_from_alpha)
    assert "did you mean Zeta" in small.suggest("Zetta")
    with pytest.raises(MeasureError, match="ZetaScore"):
        small.lookup("ZetaScor")
    assert "SetP" not in small.suggest("SetPP")  # not in this registry
    assert [m.definition for m in small.parse("zeta ZETASCORE")] == [zeta, zeta]


def test_parse_keeps_the_first_occurrence_and_drops_repeats():
    assert labels("P@10 SetP P@10 SetR SetP") == ["P@10", "SetP", "SetR"]
    assert labels(["SetR P@5", "P@5", "SetR", "NumRet"]) == ["SetR", "P@5", "NumRet"]
    assert labels("P.5,10 P_10") == ["P_5", "P_10"]


def test_parse_takes_measures_and_rejects_other_objects():
    (m,) = parse_measures("P@10")
    assert parse_measures([m, "SetP"])[0] is m
    assert parse_measures(m) == [m]
    with pytest.raises(MeasureError, match="got a int"):
        parse_measures(["P@10", 3])
    with pytest.raises(MeasureError, match="got a NoneType"):
        parse_measures([None])


def test_measure_name_and_label():
    m = Measure(REGISTRY["P"], k=10, label="P_10")
    assert str(m) == "P_10" and m.name == "P@10"
    assert str(Measure(REGISTRY["SetP"])) == "SetP"


# -- classification keys ---------------------------------------------------------------------


def test_classification_keys():
    keys = {d.name: d.classification for d in REGISTRY.values() if d.classification}
    assert keys == {
        "SetP": "precision",
        "SetR": "recall",
        "SetF": "f",
        "Specificity": "specificity",
        "Fallout": "fallout",
        "YoudenJ": "youden_j",
    }
    in_order = tuple(d.classification for d in REGISTRY.values() if d.classification)
    assert in_order == CLASSIFICATION_MEASURES
    assert CLASSIFICATION_MEASURES == (
        "precision", "recall", "f", "specificity", "fallout", "youden_j",
    )


# -- what a ranking must hold ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "cutoffs"),
    [
        ("P@10 R@100 SetF", frozenset({10, 100})),
        ("P@10 R@10 F@10", frozenset({10})),
        ("SetP SetR NumRet NumRelRet", frozenset()),
        ("P@10 Rprec", None),
        ("IPrec@0.5 SetP", None),
        ("iprec_at_recall", None),
    ],
)
def test_ranking_needs(spec, cutoffs):
    needs = ranking_needs(parse_measures(spec))
    assert needs.cutoffs == cutoffs
    assert needs.doc_ids is False


TEN = frozenset({10})
TEN_HUNDRED = frozenset({10, 100})


@pytest.mark.parametrize(
    ("built", "asked", "covers"),
    [
        (RankingNeeds(None), RankingNeeds(None), True),
        (RankingNeeds(None), RankingNeeds(TEN), True),
        (RankingNeeds(None), RankingNeeds(frozenset()), True),
        (RankingNeeds(None), RankingNeeds(None, doc_ids=True), False),
        (RankingNeeds(None, doc_ids=True), RankingNeeds(None, doc_ids=True), True),
        (RankingNeeds(None, doc_ids=True), RankingNeeds(TEN), True),
        (RankingNeeds(TEN), RankingNeeds(TEN), True),
        (RankingNeeds(TEN), RankingNeeds(frozenset()), True),
        (RankingNeeds(TEN), RankingNeeds(frozenset({5})), False),
        (RankingNeeds(TEN), RankingNeeds(TEN_HUNDRED), False),
        (RankingNeeds(TEN_HUNDRED), RankingNeeds(TEN), True),
        (RankingNeeds(TEN), RankingNeeds(None), False),
        (RankingNeeds(TEN, doc_ids=True), RankingNeeds(TEN, doc_ids=True), True),
        (RankingNeeds(TEN), RankingNeeds(TEN, doc_ids=True), False),
        (RankingNeeds(frozenset()), RankingNeeds(TEN), False),
    ],
)
def test_covers(built, asked, covers):
    assert built.covers(asked) is covers


def test_everything_covers_everything():
    every = RankingNeeds.everything()
    assert every.cutoffs is None and every.doc_ids
    for asked in (RankingNeeds(None, doc_ids=True), RankingNeeds(TEN), RankingNeeds(None)):
        assert every.covers(asked)
    assert str(every).startswith("every rank and document ids")
    assert str(RankingNeeds(frozenset({100, 10}))) == "the top-k sets at k = 10, 100"


def test_every_measure_pickles_with_the_registrys_own_definition():
    """Measures travel to other processes (a report's figures are drawn in one) by name."""
    import pickle

    from support.measure_specs import every_measure

    measures = parse_measures(every_measure())
    back = pickle.loads(pickle.dumps(measures))
    assert back == measures
    assert [str(m) for m in back] == [str(m) for m in measures]
    assert all(b.definition is m.definition for b, m in zip(back, measures, strict=True))


def test_a_definition_outside_the_registry_does_not_pickle():
    import pickle
    from dataclasses import replace

    stray = replace(REGISTRY["P"], summary="a copy")
    with pytest.raises(pickle.PicklingError, match="not the registry's"):
        pickle.dumps(stray)
