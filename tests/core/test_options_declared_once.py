"""Options are declared once: the options classes' written-out fields are their tables', and
what other code used to list by hand (a saved evaluation's settings, the gate's comparable
settings and their words, the command line's head start, each engine's refusals) is derived
from the tables.

The last tests perform the recipe of adding an option: one entry in a copy of
``EVAL_OPTIONS`` (with its field written out) reaches the saved settings, the gate's
comparability and its wording, the head start's flags and each engine's refusal.
(``test_option_table.py`` shows such an entry becoming a flag of the commands.)
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import InitVar  # noqa: F401  (named by the annotations of the classes below)
from typing import ForwardRef, TypedDict

import pytest

import prfeval
from prfeval import UsageError
from prfeval._comparison import gate as gate_module
from prfeval._comparison import gate_sides
from prfeval._comparison.options import COMPARISON_OPTIONS, ComparisonOptions, ComparisonValues
from prfeval._core import checks
from prfeval._core.option_table import (
    DeclaredOptions,
    Flag,
    Limit,
    Option,
    check_fields,
    check_values,
    flags_not_taken,
    number_settings,
    options_class,
    refuse_unhonoured,
    setting_words,
    unhonoured,
    validate,
)
from prfeval._core.options import EVAL_OPTIONS, EvalOptions, OptionValues, ValuesBesideQueries
from prfeval._io import native, saved
from prfeval._io.plan import compiled_unavailable
from prfeval._retrieval.curve_options import CURVE_OPTIONS, CurveOptions
from prfeval.cli import AHEAD_NEVER

CLASSES = [(EvalOptions, EVAL_OPTIONS), (ComparisonOptions, COMPARISON_OPTIONS),
           (CurveOptions, CURVE_OPTIONS)]  # fmt: skip


# -- the written-out fields are the table's --------------------------------------------------


@pytest.mark.parametrize(("cls", "table"), CLASSES)
def test_each_class_writes_out_its_tables_fields_in_order(cls, table):
    """Names, annotations (as written), defaults and order: the class body is the table."""
    check_fields(cls, table)  # what options_class ran on import
    written = [(n, a) for n, a in cls.__annotations__.items() if not a.startswith("ClassVar")]
    declared = [(o.name, o.annotation if o.stored else f"InitVar[{o.annotation}]")
                for o in table]  # fmt: skip
    assert written == declared
    init = [f.name for f in dataclasses.fields(cls)]
    assert init == [o.name for o in table if o.stored]
    for o in table:
        assert getattr(cls, o.name) == o.default or not o.stored, o.name
        if o.stored:
            assert getattr(cls(), o.name) == o.default, o.name


SMALL = (
    Option("depth", "int", 3, checks.integer, "How deep."),
    Option("name", "str | None", None, lambda n, v: checks.text(n, v, optional=True), "A name."),
)


def _class(body: dict[str, tuple[str, object]]) -> type:
    namespace = {"__annotations__": {k: a for k, (a, _) in body.items()}}
    namespace.update({k: d for k, (_, d) in body.items()})
    return type("Small", (DeclaredOptions,), namespace)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"depth": ("int", 3)}, r"fields \(depth\) are not its table's options"),
        ({"name": ("str | None", None), "depth": ("int", 3)}, "in order"),
        ({"depth": ("float", 3), "name": ("str | None", None)}, "annotated float"),
        ({"depth": ("int", 4), "name": ("str | None", None)}, "defaults to 4"),
        ({"depth": ("int", 3.0), "name": ("str | None", None)}, "defaults to 3.0"),
    ],
)
def test_a_class_that_differs_from_its_table_fails_on_import(body, message):
    with pytest.raises(TypeError, match=message):
        options_class(SMALL, summary="Small.")(_class(body))
    good = options_class(SMALL, summary="Small.")(
        _class({"depth": ("int", 3), "name": ("str | None", None)})
    )
    assert good.TABLE == SMALL and "depth\n        How deep." in good.__doc__


@pytest.mark.parametrize(
    ("typed", "table"),
    [
        (OptionValues, EVAL_OPTIONS),
        (ValuesBesideQueries, tuple(o for o in EVAL_OPTIONS if o.name != "queries")),
        (ComparisonValues, COMPARISON_OPTIONS),
    ],
)
def test_each_keywords_typeddict_writes_out_its_tables_options(typed, table):
    """The keywords the API takes (``**option_values: Unpack[OptionValues]``): every option,
    typed as a caller may give it, none required."""
    check_values(typed, table)  # what the module ran on import
    assert set(typed.__annotations__) == {o.name for o in table}
    assert typed.__required_keys__ == frozenset()
    assert typed.__optional_keys__ == {o.name for o in table}


def _typed(body: dict[str, str], total: bool = False) -> type:
    """A TypedDict with ``body``'s keys annotated as written (as under postponed annotations)."""
    return TypedDict("Small", {k: ForwardRef(v) for k, v in body.items()}, total=total)


@pytest.mark.parametrize(
    ("body", "total", "message"),
    [
        ({"depth": "int"}, False, r"keys \(depth\) are not its table's options"),
        ({"depth": "int", "name": "str | None", "x": "int"}, False, "not its table's"),
        ({"depth": "float", "name": "str | None"}, False, r"\['depth'\] is annotated float"),
        ({"depth": "int", "name": "str | None"}, True, "must be total=False"),
    ],
)
def test_a_keywords_typeddict_that_differs_from_its_table_fails_on_import(body, total, message):
    with pytest.raises(TypeError, match=message):
        check_values(_typed(body, total), SMALL)
    check_values(_typed({"depth": "int", "name": "str | None"}), SMALL)


def test_a_limit_must_take_the_default_and_a_number_changer_needs_a_setting():
    from prfeval._core.option_table import check_table

    never = Option("x", "int", 0, checks.integer, "X.", limits=(Limit("spark", bool),))
    with pytest.raises(ValueError, match="must take its default"):
        check_table((never,))
    unshown = Option("x", "int", 0, checks.integer, "X.", changes_numbers=True)
    with pytest.raises(ValueError, match="needs its setting"):
        check_table((unshown,))


# -- what is derived from EVAL_OPTIONS today --------------------------------------------------


def test_the_saved_settings_are_the_options_that_change_numbers():
    assert set(number_settings(EVAL_OPTIONS)) == {
        "level", "collection_size", "complete", "unjudged", "unjudged_grade", "max_results",
        "order", "duplicates", "qrels_duplicates", "query_set", "trec_eval_version",
    }  # fmt: skip
    # Each is a setting every evaluation reports, so every saved evaluation has it.
    assert set(number_settings(EVAL_OPTIONS)) <= set(EvalOptions().settings())


def test_the_gate_words_each_setting_as_before():
    words = {o.name: o for o in EVAL_OPTIONS}
    cases = {
        ("level", 2): "at level 2 (-l)",
        ("collection_size", None): "without -N",
        ("collection_size", 9): "with -N 9",
        ("complete", True): "with -c",
        ("complete", False): "without -c",
        ("unjudged", "drop"): "with unjudged documents dropped (-J)",
        ("unjudged", "nonrelevant"): "with unjudged documents taken as non-relevant",
        ("unjudged_grade", 2): "with --unjudged-grade 2",
        ("max_results", None): "without -M",
        ("max_results", 5): "with -M 5",
        ("order", "file"): "in --order file",
        ("duplicates", "first"): "with --duplicates first",
        ("qrels_duplicates", "max"): "with --qrels-duplicates max",
        ("trec_eval_version", 10): "with --trec-eval-version 10",
    }
    for (name, value), text in cases.items():
        assert setting_words(words[name], value) == text


def test_the_head_start_stops_at_the_flags_the_compiled_pass_may_not_take():
    derived = flags_not_taken(EVAL_OPTIONS, "compiled")
    assert ("--engine=spark", *derived) == AHEAD_NEVER
    assert {"--order=rank", "--queries", "--exclude-queries", "--qrels-format=csv",
            "--run-format=json"} <= set(derived)
    # What the pass takes does not stop it: the default order, a TREC or guessed format, JSON
    # Lines of lists and their columns.
    assert not {"--order=score", "--order=file", "--qrels-format=trec", "--run-format=auto",
                "--run-format=jsonl", "--qrels-format=jsonl", "--run-columns",
                "--qrels-columns"} & set(derived)  # fmt: skip


@pytest.mark.parametrize(
    ("values", "refused"),
    [
        ({}, ()),
        ({"order": "file"}, ()),
        ({"qrels_format": "trec"}, ()),
        ({"order": "rank"}, ("order",)),
        ({"queries": ["1"], "run_format": "csv"}, ("queries", "run_format")),
        ({"exclude_queries": ["1"]}, ("exclude_queries",)),
        ({"qrels_columns": "doc_id=d"}, ()),
    ],
)
def test_what_the_compiled_pass_leaves_to_the_local_reader(values, refused):
    got = unhonoured(EvalOptions(**values), EVAL_OPTIONS, "compiled")
    assert tuple(o.name for o in got) == refused


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"qrels_format": "ndeval"}, "qrels_format and run_format (--qrels-format, "
         "--run-format) on Spark are trec, csv, tsv, jsonl, parquet (by the file's name when "
         "not given), not 'ndeval': read such a file with the local engine"),
        ({"run_format": "msmarco"}, "qrels_format and run_format"),
    ],
)
def test_spark_refuses_the_formats_it_cannot_read(values, message):
    """Spark has readers for five formats: another format is refused, never ignored. (It
    honours the column maps, as the local readers do.)"""
    with pytest.raises(UsageError) as caught:
        refuse_unhonoured(EvalOptions(**values), EVAL_OPTIONS, "spark")
    assert str(caught.value).startswith(message)
    for taken in ({"order": "rank", "queries": ["1"]}, {"qrels_format": "trec"},
                  {"run_format": "parquet"}, {"qrels_format": "csv", "run_format": "jsonl"}):
        refuse_unhonoured(EvalOptions(**taken), EVAL_OPTIONS, "spark")  # fmt: skip


def test_spark_evaluate_refuses_a_format_before_reading(tmp_path):
    pytest.importorskip("pyspark")
    import prfeval.spark

    with pytest.raises(UsageError, match=r"^qrels_format and run_format \(--qrels-format"):
        prfeval.spark.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), "P@1",
                               run_format="msmarco")  # fmt: skip


def test_the_command_line_refuses_a_format_for_spark_before_a_jvm(tmp_path, capsys):
    from support.cli import run_cli

    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q 0 a 1\n")
    run.write_text("q Q0 a 1 2.0 r\n")
    code, out, err = run_cli(capsys, "evaluate", str(qrels), str(run), "--engine", "spark",
                             "--run-format", "json")  # fmt: skip
    assert (code, out) == (2, "")
    assert err.startswith("prfeval: qrels_format and run_format (--qrels-format, --run-format) "
                          "on Spark are trec, csv")  # fmt: skip


# -- the recipe: one entry (and its field) added to a copy of the table ------------------------

TOY = Option(
    "toy_depth",
    "int",
    3,
    lambda name, value: checks.integer(name, value, minimum=1),
    "A toy depth, for the test: it changes the numbers; the compiled pass takes only 3 and "
    "Spark up to 3.",
    flag=Flag(("--toy-depth",), "How deep the toy goes.", kind="choice",
              choices=("1", "3", "5"), default="3", convert=int),
    setting=lambda o: o.toy_depth,
    changes_numbers=True,
    limits=(Limit("compiled", lambda v: v == 3),
            Limit("spark", lambda v: v <= 3, "goes no deeper than 3 on Spark, not {value}")),
)
TOY_TABLE = (*EVAL_OPTIONS, TOY)


@dataclasses.dataclass(frozen=True)
@options_class(TOY_TABLE, summary="EvalOptions with a toy option.")
class ToyOptions(EvalOptions):
    toy_depth: int = 3  # the entry's field, written out

    def __post_init__(self, judged_only: bool) -> None:
        validate(self, TOY_TABLE)


def test_the_recipe_needs_the_field_written_out():
    with pytest.raises(TypeError, match="not its table's options"):
        options_class(TOY_TABLE, summary="No field.")(
            dataclasses.dataclass(frozen=True)(type("Bare", (EvalOptions,), {}))
        )


def _saved_with(toy: object, name: str) -> object:
    """An evaluation saved with the toy option's setting ``toy`` (hand-made: 2 queries)."""
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    result = prfeval.evaluate(qrels, {"1": ["a"], "2": ["x", "b"]}, "P@1")
    document = result.to_dict(per_query=True)
    document["settings"]["toy_depth"] = toy
    return saved.saved_from_dict(document, name)


def test_the_recipe_reaches_the_saved_settings_and_the_gates_comparability(monkeypatch):
    monkeypatch.setattr(saved, "EVAL_OPTIONS", TOY_TABLE)
    monkeypatch.setattr(gate_sides, "EVAL_OPTIONS", TOY_TABLE)
    # 1. A saved evaluation must record it.
    assert "toy_depth" in number_settings(TOY_TABLE)
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    document = prfeval.evaluate(qrels, {"1": ["a"]}, "P@1").to_dict(per_query=True)
    with pytest.raises(prfeval.InputFormatError, match=r"settings\.toy_depth: missing"):
        saved.saved_from_dict(document, "old.json")
    # 2. The gate compares it, in the words of its flag.
    with pytest.raises(UsageError) as caught:
        gate_module.gate(qrels, _saved_with(3, "base.json"), _saved_with(5, "cand.json"), "P@1")
    assert str(caught.value) == (
        "not comparable: the baseline base.json was measured with --toy-depth 3, the "
        "candidate cand.json with --toy-depth 5"
    )
    # Measured alike, and as the gate measures (its options have the toy too): compared.
    same = gate_module.gate(qrels, _saved_with(5, "base.json"), _saved_with(5, "cand.json"),
                            "P@1", options=ToyOptions(toy_depth=5))  # fmt: skip
    assert same.passed and same.settings["toy_depth"] == 5
    with pytest.raises(UsageError, match="this gate measures with --toy-depth 3: give the gate"):
        gate_module.gate(qrels, _saved_with(5, "base.json"), _saved_with(5, "cand.json"),
                         "P@1", options=ToyOptions())  # fmt: skip


def test_the_recipe_reaches_the_head_start_and_each_engines_refusal(monkeypatch, tmp_path):
    # 3. The head start stops at the values the compiled pass does not take.
    never = flags_not_taken(TOY_TABLE, "compiled")
    assert never[-2:] == ("--toy-depth=1", "--toy-depth=5")
    # 4. The reader plan leaves such options to the local reader ...
    from prfeval._io import plan

    monkeypatch.setattr(plan, "EVAL_OPTIONS", TOY_TABLE)
    monkeypatch.setenv("PRFEVAL_NATIVE", "1")  # any size
    if compiled_unavailable() is None:
        qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
        qrels.write_text("1 0 a 1\n")
        run.write_text("1 Q0 a 1 2.0 r\n")
        assert native.pass_takes(os.fspath(qrels), os.fspath(run), ToyOptions())
        assert not native.pass_takes(os.fspath(qrels), os.fspath(run), ToyOptions(toy_depth=5))
    assert [o.name for o in unhonoured(ToyOptions(toy_depth=1), TOY_TABLE, "compiled")] == [
        "toy_depth"
    ]
    # ... and Spark refuses them, naming the option and what to do.
    refuse_unhonoured(ToyOptions(toy_depth=1), TOY_TABLE, "spark")  # it takes 1
    with pytest.raises(UsageError) as caught:
        refuse_unhonoured(ToyOptions(toy_depth=5), TOY_TABLE, "spark")
    assert str(caught.value) == (
        "toy_depth (--toy-depth) goes no deeper than 3 on Spark, not 5"
    )
