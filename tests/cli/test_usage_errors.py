"""Wrong arguments and misleading messages: every one a UsageError (or MeasureError) that
names the parameter and what it takes, never a raw TypeError from inside numpy.

Issue 16, cases 8 (single-ranking helpers and the wrong types), 10 (NaN labels in classify),
11 (--queries ids that match nothing), 12 (seeds), 14 (the API validates every argument up
front), 19 (measure hints, numpy integers, collection_size=1.5), 20 (-l and negative grades)
and 4 (the same notes in every format).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import prfeval
from prfeval import (
    classify,
    compare,
    curve,
    evaluate,
    f_at_k,
    parse_measures,
    precision_at_k,
    recall_at_k,
    split_queries,
    threshold_sweep,
)
from prfeval._core.errors import MeasureError, PrfevalError, UsageError
from prfeval._io.labels import read_label_files, read_label_table
from support.cli import run_cli

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}, "q3": {"d6": 1}}
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d9": 1.0}, "q2": {"d4": 2.0, "d7": 1.0}, "q4": {"d1": 1.0}}
QRELS_TXT = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\nq2 0 d5 1\nq3 0 d6 1\n"
RUN_TXT = (
    "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d9 3 1.0 r\nq2 Q0 d4 1 2.0 r\n"
    "q2 Q0 d7 2 1.0 r\nq4 Q0 d1 1 1.0 r\nq1 Q0 d1 4 0.5 r\n"  # d1 twice for q1
)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels.txt").write_text(QRELS_TXT)
    (tmp_path / "run.txt").write_text(RUN_TXT)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


# -- case 8: single-ranking helpers ----------------------------------------------------------

HELPERS = [recall_at_k, precision_at_k, f_at_k]


@pytest.mark.parametrize("helper", HELPERS)
@pytest.mark.parametrize(
    ("retrieved", "relevant", "hint"),
    [
        ("abc", ["a"], "not one string"),  # used to give 1.0: the letters of "abc"
        (["a"], "a", "not one string"),
        (b"ab", ["a"], "not one string"),
        ({"q": ["a"]}, {"q": ["a"]}, "prfeval.evaluate"),  # used to give 1.0: the keys
        (["a"], {"a": 1}, "grade > 0"),
        ({"a", "b"}, ["a"], "rank order"),
        (5, ["a"], "list of ids"),
        ([["a"]], ["a"], "ids"),
    ],
)
def test_single_ranking_helpers_refuse_what_is_not_a_ranking(helper, retrieved, relevant, hint):
    with pytest.raises(UsageError, match=hint):
        helper(retrieved, relevant, 2)


@pytest.mark.parametrize("helper", HELPERS)
def test_single_ranking_helpers_take_numpy_counts_and_any_sequence(helper) -> None:
    expected = helper(["d4", "d1", "d7", "d2"], ["d1", "d2", "d3"], 2)
    assert helper(["d4", "d1", "d7", "d2"], ["d1", "d2", "d3"], np.int64(2)) == expected
    assert helper(np.array(["d4", "d1", "d7"]), {"d1", "d2", "d3"}, np.uint8(2)) == expected
    assert helper(iter(["d4", "d1"]), (d for d in ["d1", "d2", "d3"]), 2) == expected
    for k in (2.0, True, "2", -1, None):
        with pytest.raises(UsageError, match="k must be an integer"):
            helper(["a"], ["a"], k)


def test_f_at_k_beta_is_checked() -> None:
    for beta in ("a", None, -1, float("nan")):
        with pytest.raises(UsageError, match="beta"):
            f_at_k(["a"], ["a"], 1, beta=beta)


# -- case 14: every API argument validated up front ------------------------------------------

BAD_VALUES = [5, "bogus", -1, 1.5, None, [], {}, object(), True, float("nan"), np.int64(-3),
              b"x", {"a"}, (1, 2)]  # fmt: skip


def _api_calls() -> dict[str, object]:
    tiny_q, tiny_r = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}, {"q1": {"d1": 2.0}}
    return {
        "evaluate": lambda **k: evaluate(tiny_q, tiny_r, **k),
        "curve": lambda **k: curve(tiny_q, tiny_r, **k),
        "compare": lambda **k: compare(
            tiny_q, {"a": tiny_r, "b": tiny_r}, **{"n_permutations": 10, "n_bootstrap": 10, **k}
        ),
        "classify": lambda **k: classify([0, 1, 1], [0, 1, 0], **k),
        "threshold_sweep": lambda **k: threshold_sweep([0, 1, 1], [0.1, 0.9, 0.4], **k),
        "split_queries": lambda **k: split_queries(["a", "b"], **k),
        "continuous_prf": lambda **k: prfeval.continuous_prf([0.1, 0.2], [0.2, 0.1], **k),
        "recall_at_k": lambda **k: recall_at_k(**{"retrieved": ["a"], "relevant": ["a"],
                                                  "k": 1, **k}),
        "f_at_k": lambda **k: f_at_k(**{"retrieved": ["a"], "relevant": ["a"], "k": 1, **k}),
        "load_run": lambda **k: prfeval.load_run(**{"source": tiny_r, **k}),
        "explain": lambda **k: prfeval.explain(tiny_q, tiny_r, **{"query": "q1", **k}),
        "score_measures": lambda **k: prfeval.score_measures([0, 1, 1], [0.1, 0.9, 0.4], **k),
    }  # fmt: skip


def _parameters(name: str) -> list[str]:
    import inspect

    sig = inspect.signature(getattr(prfeval, name))
    names = [
        p.name
        for p in sig.parameters.values()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty
    ]
    if name in ("evaluate", "curve", "compare", "explain"):
        names += list(prfeval.EvalOptions.__dataclass_fields__)
    if name == "explain":
        names += ["query"]
    if name in ("recall_at_k", "f_at_k"):
        names += ["retrieved", "relevant", "k"]
    return names


@pytest.mark.filterwarnings("ignore::prfeval._core.errors.PrfevalWarning")
@pytest.mark.filterwarnings("ignore::prfeval._core.counts.UndefinedMetricWarning")
@pytest.mark.parametrize("name", sorted(_api_calls()))
def test_no_wrong_argument_gives_a_raw_exception(name) -> None:
    """Every keyword of every API function, given each of many wrong values: a result (the
    value may be valid) or a PrfevalError, never a TypeError, ValueError or numpy error."""
    call = _api_calls()[name]
    raw = []
    for parameter in _parameters(name):
        for value in BAD_VALUES:
            try:
                call(**{parameter: value})
            except PrfevalError:
                pass
            except Exception as exc:  # the point of the test
                raw.append(f"{parameter}={value!r}: {type(exc).__name__}: {exc}")
    assert not raw, "\n".join(raw)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"measures": 5}, "measures must be names"),  # used to be a TypeError
        ({"level": "a"}, "level must be an integer"),  # used to be a UFuncTypeError
        ({"duplicates": "bogus"}, "duplicates must be one of keep, first, error"),
        ({"stream": "yes"}, "stream must be True or False"),
        ({"progress": 3}, "progress must be True, False, None"),
        ({"collection_size": 1.5}, "collection_size must be an integer"),
        ({"qrels_duplicates": "first"}, "qrels_duplicates must be one of error, max, last"),
    ],
)
def test_evaluate_names_the_parameter_and_what_it_takes(kwargs, fragment) -> None:
    measures = kwargs.pop("measures", "P@1")
    with pytest.raises(UsageError if "measures" not in fragment else MeasureError) as info:
        evaluate(QRELS, RUN, measures, **kwargs)
    assert fragment in str(info.value)
    assert isinstance(info.value, PrfevalError)


def test_duplicates_bogus_is_refused_even_without_duplicates() -> None:
    with pytest.raises(UsageError, match="duplicates"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "P@1", duplicates="bogus")


# -- case 12: seeds --------------------------------------------------------------------------


def test_seeds_are_checked(capsys, files) -> None:
    with pytest.raises(UsageError, match="seed must be an integer >= 0"):
        compare(QRELS, {"a": RUN, "b": RUN}, "P@1", seed=-1)
    code, _, err = run_cli(capsys, "compare", files[0], files[1], files[1], "--seed", "-1")
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    # split's seed keys a hash: any integer of up to 64 digits, numpy's too
    assert split_queries(["a", "b"], seed=np.int64(3)) == split_queries(["a", "b"], seed=3)
    with pytest.raises(UsageError, match="64 digits"):
        split_queries(["a"], seed=10**70)  # used to be hashlib's ValueError
    code, _, err = run_cli(capsys, "split", files[0], "--out", str(Path(files[0]).parent / "s"),
                           "--seed", str(10**70))  # fmt: skip
    assert code == 2 and "64 digits" in err


# -- case 19: measure hints, counts, collection_size -----------------------------------------


def test_commas_between_measures_suggest_spaces(capsys, files) -> None:
    with pytest.raises(MeasureError, match=r'separate measures with spaces.*"P@10 R@100"'):
        parse_measures("P@10,R@100")
    code, _, err = run_cli(capsys, "evaluate", *files, "-m", "P@10,R@100")
    assert code == 2 and "spaces" in err and "10,R@100" not in err.split(":", 2)[-1][:15]
    assert [str(m) for m in parse_measures("P.5,10")] == ["P_5", "P_10"]  # trec_eval's commas
    assert parse_measures("SetF(beta=2,rel=2)")[0].beta == 2  # commas inside parentheses
    with pytest.raises(MeasureError, match="the cutoff must be an integer"):
        parse_measures("P@10,Bogus")  # not two measures: the usual message


def test_numpy_integers_wherever_a_count_is_taken() -> None:
    assert recall_at_k(["a", "b"], ["b"], k=np.int64(2)) == 1.0  # used to be refused
    e = evaluate(QRELS, RUN, "NumRet", max_results=np.int32(1), collection_size=np.int64(50))
    assert e.macro["NumRet"] == 2
    c = curve(QRELS, RUN, max_k=np.int64(2))
    assert c.macro.k.tolist() == [1, 2]
    r = compare(QRELS, {"a": RUN, "b": RUN}, "P@1", n_permutations=np.int64(10),
                n_bootstrap=np.int16(10), seed=np.uint8(1), top=np.int64(1))  # fmt: skip
    assert r.settings["seed"] == 1


def test_collection_size_must_be_an_integer() -> None:
    """It used to get a message about judged documents."""
    for call in (
        lambda: evaluate(QRELS, RUN, "TN", collection_size=1.5),
        lambda: curve(QRELS, RUN, collection_size=1.5),
        lambda: compare(QRELS, {"a": RUN, "b": RUN}, "TN", collection_size=1.5),
    ):
        with pytest.raises(UsageError, match=r"collection_size must be an integer .*1\.5"):
            call()


# -- case 20: -l and negative grades ---------------------------------------------------------

GRADED = {"q": {"a": 2, "b": 1, "c": 0, "d": -1, "e": -2}}
RANKED = {"q": {"a": 5.0, "d": 4.0, "e": 3.0, "c": 2.0, "x": 1.0}}


def test_negative_levels_are_refused(capsys, files) -> None:
    """-l -1 used to make grade -1 documents relevant, though negative grades are judged
    non-relevant (and trec_eval 9.0.8 then counts them in the ranking but not in R)."""
    for level in (-1, -2, np.int64(-1)):
        with pytest.raises(UsageError, match="level must be an integer >= 0"):
            evaluate(GRADED, RANKED, "P@5", level=level)
    with pytest.raises(MeasureError, match="rel must be an integer >= 0"):
        parse_measures("P(rel=-1)@5")
    for command in (["evaluate", *files], ["curve", *files], ["compare", *files, files[1]]):
        code, _, err = run_cli(capsys, *command, "-l", "-1")
        assert code == 2 and "level must be an integer >= 0" in err, command


def test_negative_grades_are_never_relevant_at_any_level() -> None:
    """trec_eval's rule for levels >= 0: relevant iff grade >= level; a negative grade is
    below every such level, and counts in no R."""
    hand = {  # relevant per level, then P@5 and R@5 by hand
        0: ({"a", "b", "c"}, 2 / 5, 2 / 3),  # a, c retrieved among a d e c x
        1: ({"a", "b"}, 1 / 5, 1 / 2),
        2: ({"a"}, 1 / 5, 1.0),
    }
    for level, (relevant, p, r) in hand.items():
        e = evaluate(GRADED, RANKED, "P@5 R@5 NumRel", level=level)
        assert e.macro["NumRel"] == len(relevant)
        assert math.isclose(e.macro["P@5"], p) and math.isclose(e.macro["R@5"], r)
    judged_only = evaluate(GRADED, RANKED, "NumRet", judged_only=True)
    assert judged_only.macro["NumRet"] == 2  # a and c: -J drops negative grades, as trec_eval


# -- case 4: the same notes in every format --------------------------------------------------


def test_every_format_prints_the_same_notes(capsys, files) -> None:
    """With --format trec or csv the counts of repeated and unjudged documents appeared
    nowhere, and --duplicates first dropped repeats without a word."""
    code, table, _ = run_cli(capsys, "evaluate", *files, "--duplicates", "first", "-m", "P@2")
    assert code == 0
    words = " ".join(table.split())  # the table wraps its notes to the terminal
    assert "Repeated documents: 1" in words
    for fmt in ("trec", "json", "csv"):
        code, out, err = run_cli(capsys, "evaluate", *files, "--duplicates", "first", "-m", "P@2",
                                 "--format", fmt)  # fmt: skip
        assert code == 0
        notes = [line.removeprefix("prfeval: ") for line in err.splitlines()]
        assert any(n.startswith("Repeated documents: 1") for n in notes), fmt
        assert any(n.startswith("Unjudged retrieved documents") for n in notes), fmt
        for line in notes:  # each note is one the table shows
            assert " ".join(line.split()) in words, (fmt, line)
        assert "Repeated" not in out and "prfeval:" not in out  # stdout keeps the format
    for fmt in ("json", "csv"):
        code, _, err = run_cli(capsys, "curve", *files, "--duplicates", "first", "--format", fmt)
        assert code == 0 and "Repeated documents: 1" in err, fmt


# -- case 11: --queries ids that match nothing -----------------------------------------------


def test_listed_queries_that_match_nothing_are_named(capsys, files, tmp_path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("q1\nq2\nq9\nQ1\n")  # q9 and Q1 match nothing
    e = evaluate(QRELS, RUN, "P@1", queries=["q1", "q2", "q9", "Q1"])
    assert e.accounting.unmatched_queries == ("Q1", "q9")
    assert e.to_dict()["queries"]["unmatched_queries"] == ["Q1", "q9"]
    assert evaluate(QRELS, RUN, "P@1").accounting.unmatched_queries == ()
    for fmt in ("table", "json"):
        code, out, err = run_cli(capsys, "evaluate", *files, "--queries", str(ids), "-m", "P@1",
                                 "--format", fmt)  # fmt: skip
        assert code == 0
        text = " ".join((out if fmt == "table" else err).replace("prfeval: ", "").split())
        assert "2 listed queries were found in neither the run nor the judgments: 'Q1', 'q9'." \
            in text
    c = curve(QRELS, RUN, queries=["q1", "q9"])
    assert c.accounting.unmatched_queries == ("q9",)
    streamed = tmp_path / "run.txt"
    streamed.write_text(RUN_TXT.replace("q1 Q0 d1 4 0.5 r\n", ""))
    s = evaluate(QRELS, str(streamed), "P@1", queries=["q1", "q9"], stream=True)
    assert s.accounting.unmatched_queries == ("q9",)


# -- case 10: a missing label is not a class -------------------------------------------------


def test_nan_label_in_a_csv_is_an_error_naming_the_line(tmp_path, capsys) -> None:
    """NaN used to become a third class, and the macro average ran over three classes."""
    path = tmp_path / "labels.csv"
    path.write_text("true,pred\na,a\nb,NaN\nnull,b\nb,b\na,\n")
    with pytest.raises(PrfevalError, match=rf"^{path}:3: missing predicted label: 'NaN'"):
        read_label_table(path)
    code, _, err = run_cli(capsys, "classify", str(path))
    assert code == 2 and err.startswith(f"prfeval: {path}:3: ") and "--missing drop" in err


def test_missing_drop_leaves_such_rows_out_and_says_how_many(tmp_path, capsys) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("true,pred\na,a\nb,NaN\nNULL,b\nb,b\na,\nNA,NA\n")
    cols = read_label_table(path, missing="drop")
    assert cols.dropped == 3 and cols.y_true.to_pylist() == ["a", "b", "NA"]  # "NA" is a class
    code, out, err = run_cli(capsys, "classify", str(path), "--missing", "drop", "--format",
                             "json")  # fmt: skip
    assert code == 0 and "dropped 3 rows" in err
    assert json.loads(out)["confusion_matrix"]["labels"] == ["NA", "a", "b"]


def test_missing_labels_in_every_format(tmp_path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    jsonl = tmp_path / "l.jsonl"
    jsonl.write_text('{"true": 1.0, "pred": 1.0}\n{"true": NaN, "pred": 0.0}\n')
    with pytest.raises(PrfevalError, match=rf"^{jsonl}:2: missing true label: NaN"):
        read_label_table(jsonl)
    assert read_label_table(jsonl, missing="drop").dropped == 1
    parquet = tmp_path / "l.parquet"
    pq.write_table(pa.table({"true": ["a", None, "b"], "pred": ["a", "b", "b"]}), parquet)
    with pytest.raises(PrfevalError, match=rf"^{parquet}: row 2: missing true label"):
        read_label_table(parquet)
    scored = tmp_path / "s.csv"
    scored.write_text("true,score\n1,0.9\n0,nan\n1,0.4\n")
    with pytest.raises(PrfevalError, match=rf"^{scored}:3: missing score"):
        read_label_table(scored, pred_col=None, score_col="score")
    assert read_label_table(scored, pred_col=None, score_col="score", missing="drop").dropped == 1
    t, p = tmp_path / "t.txt", tmp_path / "p.txt"
    t.write_text("a\nb\nc\n")
    p.write_text("a\nnan\nc\n")
    with pytest.raises(PrfevalError, match=rf"^{p}:2: missing predicted label"):
        read_label_files(t, p)
    both = read_label_files(t, p, missing="drop")
    assert both.dropped == 1 and both.y_true.to_pylist() == ["a", "c"]
    with pytest.raises(UsageError, match="missing must be one of"):
        read_label_table(scored, missing="ignore")


def test_the_api_refuses_nan_labels() -> None:
    with pytest.raises(UsageError, match="NaN"):
        classify([1.0, float("nan")], [1.0, 0.0])
