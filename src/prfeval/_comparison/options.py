"""The options of a comparison of runs, declared once: the paired test and what it reports.

:data:`COMPARISON_OPTIONS` declares each option as an
:class:`~prfeval._core.option_table.Option` (its type, default, check, documentation, flag
and the setting a result shows), as :data:`~prfeval._core.options.EVAL_OPTIONS` declares the
evaluation options. :class:`ComparisonOptions` is made from it, and so are the flags of
``compare``, ``report`` and ``gate`` (``prfeval.cli._options.comparison_flags``).
:func:`~prfeval._comparison.compare.compare` keeps its keyword arguments and builds one
:class:`ComparisonOptions`; the code below it (``compare_passes``, ``study``, ``gate``)
takes the object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, TypedDict

from prfeval._comparison.paired import MAX_DRAWS
from prfeval._comparison.stats import CORRECTIONS, TESTS, Correction, Test
from prfeval._core import checks
from prfeval._core.errors import UsageError
from prfeval._core.option_table import (
    DeclaredOptions,
    Flag,
    Option,
    check_values,
    options_class,
)
from prfeval._core.options import EvalOptions

__all__ = [
    "COMPARISON_OPTIONS",
    "MISSING_RULES",
    "ComparisonOptions",
    "ComparisonValues",
    "split_options",
]

#: What a comparison does with a judged query only some runs answered.
Missing = Literal["zero", "drop"]
MISSING_RULES: tuple[str, ...] = ("zero", "drop")


def _draws(name: str, value: Any) -> int:
    return checks.integer(name, value, minimum=1, maximum=MAX_DRAWS)


#: Every option of a comparison, declared once.
COMPARISON_OPTIONS: tuple[Option, ...] = (
    Option(
        "test",
        "Test",
        "randomization",
        lambda name, value: checks.choice(name, value, TESTS),
        "``\"randomization\"`` (Fisher's paired sign-flip test, ``n_permutations`` draws), "
        "``\"ttest\"`` (paired t-test), ``\"wilcoxon\"`` (signed-rank) or ``\"bootstrap\"`` "
        "(shifted paired bootstrap, ``n_bootstrap`` draws). All two-sided; see "
        ":mod:`prfeval._comparison.stats`.",
        flag=Flag(
            ("--test",),
            "Paired two-sided test: Fisher randomization, t-test, bootstrap or Wilcoxon.",
            kind="choice",
            choices=TESTS,
            default="randomization",
            show_default=True,
        ),
        setting=lambda c: c.test,
    ),
    Option(
        "alpha",
        "float",
        0.05,
        checks.probability,
        "Significance level after correction; the intervals have confidence ``1 - alpha``.",
        flag=Flag(
            ("--alpha",),
            "Significance level after correction; intervals are at 1 - alpha.",
            kind="float",
            minimum=0,
            maximum=1,
            open_bounds=True,
            default=0.05,
            show_default=True,
        ),
        setting=lambda c: c.alpha,
    ),
    Option(
        "correction",
        "Correction",
        "holm",
        lambda name, value: checks.choice(name, value, CORRECTIONS),
        "Adjustment for many tests: ``\"holm\"`` (default), ``\"bonferroni\"`` or "
        "``\"none\"``. The family is every (run, measure) test of the comparison; with "
        "``all_pairs``, every (pair of runs, measure) test.",
        flag=Flag(
            ("--correction",),
            "Correction for many tests (every run and measure).",
            kind="choice",
            choices=CORRECTIONS,
            default="holm",
            show_default=True,
        ),
        setting=lambda c: c.correction,
    ),
    Option(
        "seed",
        "int",
        0,
        lambda name, value: checks.integer(name, value, minimum=0),
        "Seed of every random draw. Each test starts from this seed afresh, so a p-value "
        "depends only on the differences, the seed and the number of draws, not on which "
        "other measures or runs are compared.",
        flag=Flag(
            ("--seed",),
            "Seed of the random draws (same seed, same p-values and intervals).",
            kind="int",
            minimum=0,
            default=0,
            show_default=True,
        ),
        setting=lambda c: c.seed,
    ),
    Option(
        "n_permutations",
        "int",
        10_000,
        _draws,
        "Random sign flips of the randomization test.",
        flag=Flag(
            ("--permutations",),
            "Random sign flips of the randomization test.",
            kind="int",
            minimum=1,
            default=10_000,
            show_default=True,
            dest="n_permutations",
        ),
        setting=lambda c: c.n_permutations,
    ),
    Option(
        "n_bootstrap",
        "int",
        10_000,
        _draws,
        "Bootstrap resamples of the intervals (and of the bootstrap test).",
        flag=Flag(
            ("--bootstrap",),
            "Bootstrap resamples for the confidence intervals.",
            kind="int",
            minimum=1,
            default=10_000,
            show_default=True,
            dest="n_bootstrap",
        ),
        setting=lambda c: c.n_bootstrap,
    ),
    Option(
        "missing",
        "Missing",
        "zero",
        lambda name, value: checks.choice(name, value, MISSING_RULES),
        "A judged query some runs answered and others did not: ``\"zero\"`` (default) "
        "compares on every judged query any run answered, a run without results scoring it "
        "as an empty ranking (0), as trec_eval ``-c`` would; ``\"drop\"`` compares only on "
        "the judged queries every run answered. Either way, the result says which queries "
        "were affected.",
        flag=Flag(
            ("--missing",),
            "A judged query only some runs answered: score it 0 for the others (as "
            "trec_eval -c), or leave it out of the comparison.",
            kind="choice",
            choices=MISSING_RULES,
            default="zero",
            show_default=True,
        ),
        setting=lambda c: c.missing,
    ),
    Option(
        "top",
        "int",
        5,
        lambda name, value: checks.integer(name, value, minimum=0),
        "How many of the queries that moved most to keep per run and measure.",
        flag=Flag(
            ("--top",),
            "Queries that moved most to list per run and measure (0: none).",
            kind="int",
            minimum=0,
            default=5,
            show_default=True,
        ),
    ),
    Option(
        "all_pairs",
        "bool",
        False,
        checks.flag,
        "Also compare every pair of runs: the paired test, its interval and wins/ties/losses "
        "for each pair, the correction over every (pair, measure) tested, and Tukey's HSD "
        "per measure over all the runs (``scipy.stats.tukey_hsd``, the ``stats`` extra).",
        flag=Flag(
            ("--all-pairs",),
            "Also compare every pair of runs, correcting over every (pair, measure), and run "
            "Tukey's HSD per measure over all the runs (Tukey 1949; needs scipy).",
            kind="flag",
        ),
        setting=lambda c: c.all_pairs,
    ),
)

class ComparisonValues(TypedDict, total=False):
    """The options of :class:`ComparisonOptions` by name, as keyword arguments: each key as
    :data:`COMPARISON_OPTIONS` declares it, in its order (checked on import)."""

    test: Test
    alpha: float
    correction: Correction
    seed: int
    n_permutations: int
    n_bootstrap: int
    missing: Missing
    top: int
    all_pairs: bool


check_values(ComparisonValues, COMPARISON_OPTIONS)


@dataclass(frozen=True)
@options_class(
    COMPARISON_OPTIONS,
    summary="How runs are compared: the paired test, its level, correction and draws, the "
    "query set's rule for unanswered queries, and what is listed.",
    notes="Every field is declared once, in :data:`COMPARISON_OPTIONS`; the options are "
    "checked when the object is made, before any run is read.",
)
class ComparisonOptions(DeclaredOptions):
    # Each field as COMPARISON_OPTIONS declares it, in its order (options_class checks them
    # on import); checking and building from DeclaredOptions.
    test: Test = "randomization"
    alpha: float = 0.05
    correction: Correction = "holm"
    seed: int = 0
    n_permutations: int = 10_000
    n_bootstrap: int = 10_000
    missing: Missing = "zero"
    top: int = 5
    all_pairs: bool = False

    def keywords(self) -> dict[str, Any]:
        """The options by name, as :func:`~prfeval._comparison.compare.compare` takes them."""
        return {name: getattr(self, name) for name in _NAMES}

    def check_with(self, options: EvalOptions) -> None:
        """Refuse a query rule the evaluation options contradict: ``complete`` (every judged
        query, unanswered ones scoring 0) with ``missing="drop"``."""
        if options.complete and self.missing == "drop":
            raise UsageError(
                "complete (every judged query, unanswered ones scoring 0) contradicts "
                "missing='drop'"
            )

    def settings(self) -> dict[str, Any]:
        """The options as a comparison's result reports them, with the confidence of its
        intervals (``1 - alpha``)."""
        shown = super().settings()
        shown["confidence"] = 1.0 - self.alpha
        return shown


_NAMES = tuple(f.name for f in fields(ComparisonOptions))


def split_options(
    comparison: ComparisonOptions | None,
    options: EvalOptions | None,
    values: Mapping[str, Any],
) -> tuple[ComparisonOptions, EvalOptions]:
    """Keyword arguments of a comparison function sorted into its two option objects: the
    names of :data:`COMPARISON_OPTIONS` build the comparison's, the rest the evaluation's
    (where an unknown name is refused, with a suggestion)."""
    if comparison is not None and not isinstance(comparison, ComparisonOptions):
        raise UsageError(
            f"comparison must be a ComparisonOptions, got a {type(comparison).__name__}"
        )
    mine = {k: v for k, v in values.items() if k in _NAMES}
    rest = {k: v for k, v in values.items() if k not in _NAMES}
    return ComparisonOptions.build(comparison, **mine), EvalOptions.build(options, **rest)
