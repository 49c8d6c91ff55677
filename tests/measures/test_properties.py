"""Registry-wide properties: every measure in prfeval._measures.REGISTRY, new ones included.

Pins what holds for any input (STYLE.md rule 12, "registry-parametrised properties"): ratio
measures stay in [0, 1], F lies between P and R, micro = macro for one query, the order of a
run file's lines does not matter, names parse back, bad names and parameters raise
MeasureError, and ``import prfeval`` stays light.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

from prfeval import evaluate
from prfeval._core.errors import MeasureError, UsageError
from prfeval._measures import REGISTRY, MeasureDef, parse_measures
from support.hand_made import run_dict_lines
from support.random_data import judged_runs, uniform_rounded

N_DOCS = 400  # collection size for the measures that need TN
SIGNED = {"YoudenJ"}  # TPR + TNR - 1 lies in [-1, 1]; every other ratio measure in [0, 1]
UNBOUNDED = {"Utility", "YAAP", "DCG", "IDCG"}  # a weighted sum of counts; a log-odds; gains summed


def spec_of(d: MeasureDef, k: int = 10) -> str:
    """A valid name for the measure: with a cutoff when it needs one."""
    return d.example(k)


def all_specs() -> list[str]:
    """Every registered measure of qrels, at cutoffs 1, 10 and 50 and with beta 0.5 and 2
    where taken."""
    specs = []
    for d in REGISTRY.values():
        if d.needs_preferences:  # read preference judgments, not these qrels
            continue
        ks = {"required": (1, 10, 50), "level": (0, 0.5, 1)}.get(d.cutoff, (None,))
        for k in ks:
            tail = "" if k is None else f"@{k}"
            specs.append(d.name + tail)
            if "beta" in d.params:
                specs += [f"{d.name}(beta=0.5){tail}", f"{d.name}(beta=2){tail}"]
            if "rel" in d.params:
                specs.append(f"{d.name}(rel=2){tail}")
    return specs


SPECS = all_specs()


def random_data(seed: int, n_queries: int = 12) -> tuple[dict, dict]:
    """Graded judgments (negative grades too) and a scored run with many ties: each query
    judges 1 to 59 of the N_DOCS documents and ranks 1 to 79, scores of one decimal in [0, 2)."""
    qrels, (run,) = judged_runs(seed, queries=[str(q) for q in range(n_queries)], n_docs=N_DOCS,
                                judged=(1, 60), grades=[-1, 0, 0, 1, 2, 3], retrieved=(1, 80),
                                scores=uniform_rounded(0, 2, 1))  # fmt: skip
    return qrels, run


def test_registry_is_not_empty_and_specs_parse() -> None:
    """Every generated spec is accepted (so the properties below really cover the registry)."""
    assert len(REGISTRY) >= 20
    for spec in SPECS:
        assert [str(m) for m in parse_measures(spec)] == [spec], spec


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ratio_measures_in_unit_interval(seed: int) -> None:
    """Every non-count measure is in [0, 1] per query and in every average (Youden's J: [-1, 1])."""
    qrels, run = random_data(seed)
    e = evaluate(qrels, run, SPECS, collection_size=N_DOCS)
    for i, m in enumerate(e.measures):
        if m.definition.is_total:
            assert np.all(e.values[i] >= 0), str(m)
            continue
        if m.definition.name in UNBOUNDED:
            continue
        low = -1.0 if m.definition.name in SIGNED else 0.0
        values = [*e.values[i], e.macro[str(m)]]
        values += [e.micro[str(m)]] if str(m) in e.micro else []
        values += [e.f_of_means[str(m)]] if str(m) in e.f_of_means else []
        assert all(low - 1e-12 <= v <= 1 + 1e-12 for v in values), str(m)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.0, 10.0])
def test_f_lies_between_p_and_r(seed: int, beta: float) -> None:
    """Per query min(P, R) <= F_beta <= max(P, R), for the set and at cutoffs (harmonic mean)."""
    qrels, run = random_data(seed)
    triples = [("SetP", "SetR", f"SetF(beta={beta:g})")]
    triples += [(f"P@{k}", f"R@{k}", f"F(beta={beta:g})@{k}") for k in (1, 5, 20, 100)]
    e = evaluate(qrels, run, [x for t in triples for x in t])
    for values in e.per_query.values():
        for p_label, r_label, f_label in triples:
            p, r, f = values[p_label], values[r_label], values[f_label]
            assert min(p, r) - 1e-12 <= f <= max(p, r) + 1e-12, (p_label, p, r, f)
            if beta == 0:
                assert f == pytest.approx(p, abs=1e-12)  # F_0 is precision


@pytest.mark.parametrize("seed", [0, 3])
def test_micro_equals_macro_for_one_query(seed: int) -> None:
    """With one query, pooling changes nothing: micro = macro for every measure."""
    qrels, run = random_data(seed, n_queries=1)
    e = evaluate(qrels, run, SPECS, collection_size=N_DOCS)
    assert e.accounting.evaluated == 1
    for label in e.labels:
        if label in e.micro:  # IPrec has no micro form
            assert e.micro[label] == pytest.approx(e.macro[label], abs=1e-12), label


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_shuffled_run_lines_change_nothing(seed: int) -> None:
    """Ranking is by score, ties by doc id: the order of the run file's lines is irrelevant."""
    qrels, run = random_data(seed)
    lines = [f"{line}\n" for line in run_dict_lines(run)]
    base = evaluate(qrels, "".join(lines).encode(), SPECS, collection_size=N_DOCS)
    rng = np.random.default_rng(100 + seed)
    shuffled = [lines[i] for i in rng.permutation(len(lines))]
    other = evaluate(qrels, "".join(shuffled).encode(), SPECS, collection_size=N_DOCS)
    assert other.query_ids == base.query_ids
    np.testing.assert_array_equal(other.values, base.values)
    assert other.macro == base.macro
    assert other.micro == base.micro
    # And the bytes path agrees with the dict path.
    from_dict = evaluate(qrels, run, SPECS, collection_size=N_DOCS)
    np.testing.assert_array_equal(from_dict.values, base.values)


def _same_measure(a, b) -> bool:
    same = (a.definition, a.k, a.rel, a.recall_level) == (b.definition, b.k, b.rel, b.recall_level)
    return same and math.isclose(
        a.beta, b.beta, rel_tol=0, abs_tol=0
    )


@pytest.mark.parametrize("spec", SPECS)
def test_names_parse_back(spec: str) -> None:
    """``Measure.name`` parses to the same measure (definition, cutoff, level, beta)."""
    (m,) = parse_measures(spec)
    (again,) = parse_measures(m.name)
    assert _same_measure(m, again), (spec, m.name)
    assert again.name == m.name


@pytest.mark.parametrize(
    "spec",
    ["P_10", "recall.100", "set_F", "set_F.0.25", "num_q", "num_rel_ret", "Rprec", "set_recall"],
)
def test_trec_eval_names_parse_back(spec: str) -> None:
    """trec_eval's names map onto a measure whose canonical name parses back to it."""
    (m,) = parse_measures(spec)
    assert str(m) == spec  # the label is the name as typed
    (again,) = parse_measures(m.name)
    assert _same_measure(m, again), (spec, m.name)


@pytest.mark.parametrize("spec", ["set_F.2", "SetF(alpha=0.3)", "SetF(beta=0.1234567)"])
def test_irrational_beta_names_parse_back(spec: str) -> None:
    """A beta that is not short in decimal must still survive name -> parse exactly."""
    (m,) = parse_measures(spec)
    (again,) = parse_measures(m.name)
    assert again.beta == m.beta, (spec, m.name, m.beta, again.beta)


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [("Presision@10", "Precision"), ("SetFF", "SetF"), ("Rprc", "Rprec"), ("num_rell", "num_rel")],
)
def test_unknown_names_raise_with_a_suggestion(name: str, suggestion: str) -> None:
    """An unknown name is a MeasureError that names a close registered measure."""
    with pytest.raises(MeasureError) as info:
        parse_measures(name)
    message = str(info.value)
    assert name.split("@")[0] in message
    assert "did you mean" in message and suggestion in message


@pytest.mark.parametrize(
    "spec",
    [
        "P@-1",
        "R@-5",
        "P@x",
        "P@1.5",
        "SetF(beta=-1)",
        "SetF(beta=-0.5)",
        "SetF(beta=nan)",
        "SetF(beta=inf)",
        "F(beta=-2)@10",
        "SetF(alpha=0)",
        "SetF(alpha=1.5)",
        "SetF(alpha=0.5,beta=1)",
        "P(rel=x)@10",
        "SetF(gamma=1)",
        "SetP(beta=2)",
        "SetF(beta)",
        "SetP@10",
        "P",  # prfeval's own P needs a cutoff ... but "P" alone is trec_eval's list: see below
        "R",
        "F",
        "set_F.-1",
        "set_F.x",
        "P.-3",
        "",
    ],
)
def test_bad_names_and_parameters_raise_measure_error(spec: str) -> None:
    """k < 0, beta < 0, bad alpha, unknown parameters or a missing cutoff: MeasureError."""
    if spec == "P":
        assert len(parse_measures("P")) == 9  # trec_eval's P: cutoffs 5 ... 1000
        return
    with pytest.raises(MeasureError):
        parse_measures(spec)


def test_every_declaration_reaches_its_readers(capsys) -> None:
    """Each entry's summary and formula are what ``prfeval measures`` prints and what
    docs/measures.md lists: the readers the registry feeds, checked rather than the
    declaration restated (its own checks at import already refuse a missing field)."""
    from pathlib import Path

    from prfeval.cli import main

    with pytest.raises(SystemExit):
        main(["measures", "--format", "json"])
    # Listed as typed, with the cutoff's form: P@k, AP[@k], IPrec@r.
    listed = {
        re.split(r"[@\[(]", entry["name"])[0]: entry
        for entry in json.loads(capsys.readouterr().out)
    }
    docs = (Path(__file__).resolve().parents[2] / "docs" / "measures.md").read_text()
    for d in REGISTRY.values():
        assert d.name in listed, d.name
        assert listed[d.name]["summary"] == d.summary, d.name
        assert listed[d.name]["formula"] == d.formula, d.name
        assert d.name in docs, d.name


def test_text_measures_are_kept_apart_from_the_numbers() -> None:
    """runid and relstring come back as text per query, never in the values array."""
    qrels, run = random_data(0)
    e = evaluate(qrels, run, "P@10 RunId RelString@5 relstring")
    assert e.labels == ["P@10"] and e.values.shape == (1, len(e.query_ids))
    assert set(e.text) == {"RunId", "RelString@5", "relstring"}
    assert all(len(t) == len(e.query_ids) for t in e.text.values())
    assert all(len(s) <= 5 for s in e.text["RelString@5"])
    assert e.text_summary == {"RunId": "run"}  # a dict run has no tag: its name

def test_import_is_light() -> None:
    """``import prfeval`` imports neither pandas, matplotlib, scipy nor pyarrow (STYLE rule 10)."""
    code = (
        "import sys, prfeval\n"
        "heavy = [m for m in ('pandas', 'matplotlib', 'scipy', 'pyarrow') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("seed", [0, 1])
def test_accepted_collection_size_never_gives_negative_tn(seed: int) -> None:
    """Whatever N evaluate accepts, TN >= 0 and TN-based ratios stay in [0, 1]."""
    qrels, run = random_data(seed)
    n = max(max(len(d) for d in qrels.values()), max(len(d) for d in run.values()))
    while True:  # the smallest N evaluate accepts
        try:
            e = evaluate(qrels, run, "TN Fallout Specificity", collection_size=n)
            break
        except UsageError:
            n += 1
    for values in e.per_query.values():
        assert values["TN"] >= 0
        assert 0 <= values["Fallout"] <= 1 and 0 <= values["Specificity"] <= 1


def test_lazy_exports_resolve() -> None:
    """Every name in prfeval.__all__ resolves, and the three that share a name with their
    topic (evaluate, classify, compare) are the functions, whatever was imported first."""
    import prfeval
    import prfeval._classification.classify
    import prfeval._comparison.compare
    import prfeval._retrieval.evaluate

    for name in prfeval.__all__:
        assert getattr(prfeval, name).__name__ == name, name
    assert callable(prfeval.evaluate) and prfeval.evaluate.__name__ == "evaluate"
    assert prfeval.classify.__name__ == "classify" and prfeval.compare.__name__ == "compare"
