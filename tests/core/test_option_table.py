"""Options are declared once, as data: each entry of ``EVAL_OPTIONS`` and
``COMPARISON_OPTIONS`` is a field of its options class, a flag of every command that takes
it (with the declared help and default), and a setting its results print; and no option is
declared anywhere else.

The last test adds a toy option to a copy of the table and finds it in all three places, so
the generators are tested, not only today's table.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from prfeval import UsageError
from prfeval._comparison.compare import compare
from prfeval._comparison.options import COMPARISON_OPTIONS, ComparisonOptions
from prfeval._core import checks
from prfeval._core.option_table import Flag, Option, options_class, settings_of, validate
from prfeval._core.options import EVAL_OPTIONS, EvalOptions
from prfeval._retrieval.curve_options import CURVE_OPTIONS, CurveOptions
from prfeval.cli._app import cli as main
from support.cli import run_cli

SRC = Path(__file__).resolve().parents[2] / "src" / "prfeval"

#: The commands that evaluate a run, each taking every evaluation option.
EVALUATING = ("evaluate", "curve", "compare", "explain", "report", "gate")
#: Each comparison option's commands (report has no draws; gate its own top, no missing).
COMPARING = {
    "test": ("compare", "report", "gate"),
    "alpha": ("compare", "report", "gate"),
    "correction": ("compare", "report", "gate"),
    "seed": ("compare", "report", "gate"),
    "n_permutations": ("compare", "gate"),
    "n_bootstrap": ("compare", "gate"),
    "missing": ("compare",),
    "top": ("compare", "gate"),
    "all_pairs": ("compare",),
}


def _command(name: str) -> click.Command:
    command = main.get_command(click.Context(main), name)
    assert command is not None
    return command


def _param(command: click.Command, flag: Flag) -> click.Option:
    found = [p for p in command.params if set(flag.decls) <= set(p.opts)]
    assert len(found) == 1, f"{command.name}: {flag.decls} declared {len(found)} times"
    assert isinstance(found[0], click.Option)
    return found[0]


def _default(command: click.Command, param: click.Option) -> object:
    return param.get_default(click.Context(command), call=False)


def _flag_default(flag: Flag) -> object:
    return False if flag.kind == "flag" else flag.default


@pytest.mark.parametrize("name", EVALUATING)
def test_every_evaluation_option_is_a_flag_of_each_evaluating_command(name):
    command = _command(name)
    for o in EVAL_OPTIONS:
        if o.flag is None:
            continue
        param = _param(command, o.flag)
        assert param.name == (o.flag.dest or o.name)
        assert _default(command, param) == _flag_default(o.flag), (name, o.name)
        if o.name != "complete":  # -c's help says what each command does with it
            assert param.help == o.flag.help, (name, o.name)
        assert bool(param.show_default) == o.flag.show_default, (name, o.name)


def test_every_comparison_option_is_a_flag_of_its_commands():
    assert set(COMPARING) == {o.name for o in COMPARISON_OPTIONS}
    for o in COMPARISON_OPTIONS:
        assert o.flag is not None
        for name in COMPARING[o.name]:
            param = _param(_command(name), o.flag)
            assert param.name == (o.flag.dest or o.name)
            if name != "gate":  # gate words some helps for its own use, and has no alpha
                assert param.help == o.flag.help, (name, o.name)
                assert _default(_command(name), param) == _flag_default(o.flag), o.name
        for name in set(EVALUATING) - set(COMPARING[o.name]):
            command = _command(name)
            assert not any(set(o.flag.decls) <= set(p.opts) for p in command.params), name


def test_every_curve_option_with_a_flag_is_a_flag_of_curve_and_beta_of_its_users():
    """curve takes every flagged curve option as the table declares it; explain (its best
    cutoff) and report (its curves) take the table's --beta with help of their own."""
    flagged = [o for o in CURVE_OPTIONS if o.flag is not None]
    assert {o.name for o in flagged} == {"beta", "max_k", "recall_levels"}
    for o in flagged:
        param = _param(_command("curve"), o.flag)
        assert param.name == (o.flag.dest or o.name)
        assert param.help == o.flag.help and param.multiple == o.flag.multiple
        assert _default(_command("curve"), param) == o.flag.default
    beta = next(o for o in CURVE_OPTIONS if o.name == "beta")
    for name in ("explain", "report"):
        param = _param(_command(name), beta.flag)
        assert param.name == "beta" and _default(_command(name), param) == 1.0


def test_a_curve_flag_is_checked_under_its_spelling(tmp_path, capsys):
    """The table's check refuses a bad value naming the flag typed, and a repeated
    --recall-at level is kept once, in the order given."""
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q 0 a 1\nq 0 b 1\n")
    run.write_text("q Q0 a 1 2.0 r\nq Q0 x 2 1.0 r\nq Q0 b 3 0.5 r\n")
    code, _, err = run_cli(capsys, "curve", str(qrels), str(run), "-b", "-2")
    assert code == 2 and err.startswith("prfeval: --beta must be a finite number >= 0"), err
    code, out, err = run_cli(
        capsys, "curve", str(qrels), str(run), "-r", "1", "-r", "0.5", "-r", "1", "--format",
        "json",
    )
    assert code == 0, err
    reached = json.loads(out)["macro"]["recall_reached"]
    assert list(reached) == ["1.00", "0.50"]  # order given, repeat dropped
    assert reached["1.00"]["k"] == 3 and reached["0.50"]["k"] == 1  # by hand: a@1, b@3


@pytest.mark.parametrize(("cls", "table"), [(EvalOptions, EVAL_OPTIONS),
                                            (ComparisonOptions, COMPARISON_OPTIONS),
                                            (CurveOptions, CURVE_OPTIONS)])
def test_every_option_is_a_field_with_its_default_and_nothing_else_is(cls, table):
    stored = {f.name: f.default for f in dataclasses.fields(cls)}
    assert stored == {o.name: o.default for o in table if o.stored}
    aliases = {o.name for o in table if not o.stored}
    init_vars = {
        n for n, a in cls.__dataclass_fields__.items()
        if a._field_type is dataclasses._FIELD_INITVAR  # type: ignore[attr-defined]
    }
    assert init_vars == aliases
    assert all(f"\n    {o.name}\n" in cls.__doc__ for o in table)  # documented


def test_every_check_runs_and_names_its_option():
    """A wrong type for each option fails as a UsageError naming the option."""
    for cls, table in ((EvalOptions, EVAL_OPTIONS), (ComparisonOptions, COMPARISON_OPTIONS),
                       (CurveOptions, CURVE_OPTIONS)):
        for o in table:
            with pytest.raises(UsageError, match=rf"^{o.name} must "):
                cls(**{o.name: object()})


def test_the_shown_options_are_the_settings_results_print():
    shown = {o.name for o in EVAL_OPTIONS if o.setting is not None}
    assert set(EvalOptions().settings()) == shown
    # A comparison prints its own options and the evaluation's (hand-made runs).
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    runs = {"A": {"q1": ["a", "x"], "q2": ["c"]}, "B": {"q1": ["x", "b"], "q2": ["y"]}}
    result = compare(qrels, runs, "P@1", n_permutations=10, n_bootstrap=10, seed=3,
                     max_results=5)
    comparison_shown = {o.name for o in COMPARISON_OPTIONS if o.setting is not None}
    assert comparison_shown | shown <= set(result.settings)
    assert (result.settings["seed"], result.settings["n_permutations"]) == (3, 10)
    assert result.settings["max_results"] == 5
    assert result.settings["confidence"] == pytest.approx(0.95)


# -- nothing outside the tables -------------------------------------------------------------


def _click_options(path: Path) -> list[tuple[int, list[str]]]:
    """(line, spellings) of every ``click.option(...)`` call in a source file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "click.option":
            found.append((node.lineno, [
                a.value for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]))
    return found


#: Flags of commands that take no run, spelt as a table's flag but meaning something else:
#: a classifier's F weight and missing labels, the contours' several F weights, a
#: retriever's file of query texts, a split's seed.
OTHER_MEANINGS = {
    ("classify_cmd.py", "--beta"),
    ("contours_cmd.py", "-b"),
    ("contours_cmd.py", "--beta"),
    ("classify_cmd.py", "--missing"),
    ("run_retriever_cmd.py", "--queries"),
    ("split_cmd.py", "--seed"),
}


def test_no_command_declares_a_table_option_itself():
    """A flag spelt in the tables is made only from the tables (cli/_options.py's
    ``click_option``): no command writes its own ``--level`` or ``--seed``."""
    spellings = {d for table in (EVAL_OPTIONS, COMPARISON_OPTIONS, CURVE_OPTIONS) for o in table
                 if o.flag for d in o.flag.decls}
    offences = [
        f"{path.name}:{line}: {given}"
        for path in sorted((SRC / "cli").glob("*.py"))
        for line, given in _click_options(path)
        for spelt in sorted(set(given) & spellings)
        if (path.name.lstrip("_"), spelt) not in OTHER_MEANINGS
    ]
    assert not offences, offences


def _repeated_keyword_lists() -> list[str]:
    """Functions with three or more parameters named after the options of one table: a
    keyword list where the options object belongs. Allowed: the public ``compare`` and
    ``curve`` (users call them with keywords; each builds the object once), and the paired
    tests' primitives, which take numbers (ComparisonOptions is built on them, a layer
    above)."""
    tables = {
        "evaluation": {o.name for o in EVAL_OPTIONS},
        "comparison": {o.name for o in COMPARISON_OPTIONS},
        "curve": {o.name for o in CURVE_OPTIONS},
    }
    allowed = {
        ("_comparison/compare.py", "compare"),
        ("_retrieval/curves.py", "curve"),
        ("_comparison/paired.py", "paired_tests"),
        ("_comparison/stats.py", "paired_p_values"),
    }
    offences = []
    for path in sorted(SRC.rglob("*.py")):
        where = str(path.relative_to(SRC))
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            a = node.args
            names = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
            for label, table in tables.items():
                shared = names & table
                if len(shared) >= 3 and (where, node.name) not in allowed:
                    offences.append(f"{where}:{node.lineno}: {node.name} ({label}: "
                                    f"{', '.join(sorted(shared))})")
    return offences


def test_no_function_repeats_an_options_keyword_list():
    offences = _repeated_keyword_lists()
    assert not offences, offences


def test_the_scan_finds_a_repeated_list(tmp_path, monkeypatch):
    """The scan above can fail: a function taking test, alpha and seed is found."""
    package = tmp_path / "prfeval"
    package.mkdir()
    (package / "bad.py").write_text(
        "def tested(d, *, test='ttest', alpha=0.05, seed=0):\n    return d\n"
    )
    monkeypatch.setattr(__import__(__name__), "SRC", package)
    assert _repeated_keyword_lists() == ["bad.py:1: tested (comparison: alpha, seed, test)"]


def test_the_scan_finds_a_repeated_curve_list(tmp_path, monkeypatch):
    """A sink taking beta, max_k and recall_levels (CurveSink's old signature) is found."""
    package = tmp_path / "prfeval"
    package.mkdir()
    (package / "sink.py").write_text(
        "class Sink:\n"
        "    def __init__(self, *, beta=1.0, max_k=None, recall_levels=(0.5,), level=1):\n"
        "        self.beta = beta\n"
    )
    monkeypatch.setattr(__import__(__name__), "SRC", package)
    assert _repeated_keyword_lists() == [
        "sink.py:2: __init__ (curve: beta, max_k, recall_levels)"
    ]


def test_curve_options_are_checked_once_and_shown():
    """CurveOptions normalises its values, refuses bad ones by name, and a curve's result
    shows max_k from it (hand-made run: 2 relevant of 3 retrieved)."""
    o = CurveOptions(beta=2, recall_levels=[1], iprec_levels=[0, 0.5])
    assert (o.beta, o.recall_levels, o.iprec_levels) == (2.0, (1.0,), (0.0, 0.5))
    with pytest.raises(UsageError, match=r"^recall_levels must "):
        CurveOptions(recall_levels=[0.0])
    with pytest.raises(UsageError, match="unknown option 'maxk'; did you mean 'max_k'"):
        CurveOptions.build(maxk=3)
    from prfeval import curve

    c = curve({"q": {"a": 1, "b": 1}}, {"q": ["a", "x", "b"]}, max_k=2)
    assert c.settings["max_k"] == 2
    assert c.macro.k.tolist() == [1, 2]


# -- a toy option, added to a copy of the table ----------------------------------------------

TOY = Option(
    "toy_depth",
    "int",
    3,
    lambda name, value: checks.integer(name, value, minimum=1),
    "A toy depth, for the test.",
    flag=Flag(("--toy-depth",), "How deep the toy goes.", kind="int", minimum=1, default=3,
              show_default=True),
    setting=lambda o: o.toy_depth,
)
TOY_TABLE = (*EVAL_OPTIONS, TOY)


@dataclasses.dataclass(frozen=True)
@options_class(TOY_TABLE, summary="EvalOptions with a toy option.")
class ToyOptions(EvalOptions):
    # EvalOptions' fields, and the toy's written out after them (options_class checks it).
    toy_depth: int = 3

    def __post_init__(self, judged_only: bool) -> None:
        validate(self, TOY_TABLE)


def test_a_toy_option_appears_in_the_class_the_flags_and_the_settings(monkeypatch):
    # 1. a field, with its default, its check and its doc
    assert ToyOptions().toy_depth == 3
    assert ToyOptions(toy_depth=7).toy_depth == 7
    with pytest.raises(UsageError, match=r"^toy_depth must be an integer >= 1, got 0"):
        ToyOptions(toy_depth=0)
    assert "toy_depth\n        A toy depth, for the test." in ToyOptions.__doc__
    # 2. a setting
    assert settings_of(ToyOptions(toy_depth=5), TOY_TABLE)["toy_depth"] == 5
    # 3. a flag of a command built with evaluation_options, handed over in `options`
    import prfeval.cli._options as cli_options

    monkeypatch.setattr(cli_options, "EVAL_OPTIONS", TOY_TABLE)
    monkeypatch.setattr(cli_options, "EvalOptions", ToyOptions)
    seen = []

    @click.command()
    @cli_options.evaluation_options(complete_help="Every judged query.")
    def toy(options: ToyOptions) -> None:
        seen.append(options)

    runner = CliRunner()
    assert runner.invoke(toy, ["--toy-depth", "9", "-l", "2"]).exit_code == 0
    assert (seen[0].toy_depth, seen[0].level) == (9, 2)
    assert runner.invoke(toy, []).exit_code == 0 and seen[1].toy_depth == 3
    shown = runner.invoke(toy, ["--help"]).output
    assert "--toy-depth" in shown and "How deep the toy goes." in shown
    assert "[default: 3;" in shown
    refused = runner.invoke(toy, ["--toy-depth", "0"])
    assert refused.exit_code == 2 and "--toy-depth" in refused.output
