"""The evaluation options, declared once: how a run becomes rankings and which queries count.

Every command and every API function that evaluates a run (``evaluate``, ``curve``,
``compare``, the Spark engine) builds one :class:`EvalOptions` and passes it down the pipeline;
nothing below re-declares these options, and what a result reports about its settings comes
from :meth:`EvalOptions.settings`. The options are validated when the object is made, so a bad
value fails before any file is read, with the parameter's name and the values it accepts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import InitVar, dataclass
from typing import Any, Literal, TypedDict, get_args

from prfeval._core import checks
from prfeval._core.checks import choice, id_collection, integer
from prfeval._core.checks import flag as flag_check
from prfeval._core.errors import UsageError
from prfeval._core.option_table import (
    DeclaredOptions,
    Flag,
    Limit,
    Option,
    check_values,
    options_class,
    validate,
)

__all__ = [
    "DUPLICATES",
    "EVAL_OPTIONS",
    "INPUT_FORMATS",
    "ORDERS",
    "QRELS_COLUMN_KEYS",
    "QRELS_DUPLICATES",
    "RUN_COLUMN_KEYS",
    "SPARK_FORMATS",
    "UNJUDGED_RULES",
    "ColumnMap",
    "Duplicates",
    "EvalOptions",
    "InputFormat",
    "OptionValues",
    "Order",
    "QrelsDuplicates",
    "Unjudged",
    "ValuesBesideQueries",
    "column_map",
]

#: How a run is put in rank order: by score (trec_eval), by its rank column, or as given.
Order = Literal["score", "rank", "file"]
#: What to do with a document repeated in one query's ranking.
Duplicates = Literal["keep", "first", "error"]
#: What to do with a judgment repeated for one (query, document).
QrelsDuplicates = Literal["error", "max", "last"]
#: How an input file is read (``None``: by its name, else by its first line). ``json`` is one
#: JSON object ``{qid: {docid: value}}`` (BEIR's results); ``msmarco`` is MS MARCO's
#: headerless ``qid docid rank`` run (its qrels are TREC's four columns).
#: ``ndeval``: judgments per subtopic, ``query subtopic doc grade`` (judgments only).
InputFormat = Literal["trec", "csv", "tsv", "jsonl", "parquet", "json", "msmarco", "ndeval"]

#: The roles a run's / judgments' columns play, as a column map names them (``run_columns``,
#: ``--run-columns``).
RUN_COLUMN_KEYS: tuple[str, ...] = ("query_id", "doc_id", "score", "rank")
QRELS_COLUMN_KEYS: tuple[str, ...] = ("query_id", "doc_id", "relevance")

#: A column map, normalised: (role, column name) pairs in the order of the roles' keys.
ColumnMap = tuple[tuple[str, str], ...]

#: What an unjudged retrieved document is taken to be: non-relevant (trec_eval), relevant
#: (at grade ``unjudged_grade``, the level by default), or not there at all (``-J``).
Unjudged = Literal["nonrelevant", "relevant", "drop"]

ORDERS: tuple[str, ...] = get_args(Order)
DUPLICATES: tuple[str, ...] = get_args(Duplicates)
UNJUDGED_RULES: tuple[str, ...] = get_args(Unjudged)
QRELS_DUPLICATES: tuple[str, ...] = get_args(QrelsDuplicates)
INPUT_FORMATS: tuple[str, ...] = get_args(InputFormat)
#: The input formats the Spark engine reads (:mod:`prfeval.spark._read`).
SPARK_FORMATS: tuple[str, ...] = ("trec", "csv", "tsv", "jsonl", "parquet")


def column_map(name: str, value: Any, keys: tuple[str, ...]) -> ColumnMap | None:
    """Which column plays which role: ``{"query_id": "question_id", "doc_id": "ctxs"}``, or
    the command line's ``"query_id=question_id,doc_id=ctxs"``, normalised to (role, column)
    pairs in the order of ``keys``; ``None`` (or an empty map) leaves every role to the
    column names prfeval knows. ``grade`` is another name of the key ``relevance``.

    Raises
    ------
    UsageError
        Naming ``name``: a role not in ``keys`` (the message lists them), a column name
        that is not a non-empty string, an item without ``=``, a role given twice, or one
        column given two roles.

    Examples
    --------
    >>> column_map("run_columns", "doc_id=ctxs,query_id=question_id", RUN_COLUMN_KEYS)
    (('query_id', 'question_id'), ('doc_id', 'ctxs'))
    """
    if value is None:
        return None
    pairs: list[tuple[Any, Any]]
    if isinstance(value, str):
        pairs = []
        for item in (i.strip() for i in value.split(",")):
            if not item:
                continue
            role, sep, column = item.partition("=")
            if not sep:
                raise UsageError(
                    f"{name}: expected KEY=NAME items separated by commas, got {item!r} "
                    f"(KEY is one of {', '.join(keys)})"
                )
            pairs.append((role.strip(), column.strip()))
    elif isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, tuple | list) and all(
        isinstance(p, tuple | list) and len(p) == 2 for p in value
    ):
        pairs = [tuple(p) for p in value]  # the normalised form, given back
    else:
        raise UsageError(
            f"{name} must map roles to column names, e.g. {{'doc_id': 'ctxs'}}; "
            f"got {value!r}"
        )
    chosen: dict[str, str] = {}
    for role, column in pairs:
        if role == "grade" and "relevance" in keys:
            role = "relevance"  # a judgment's grade: either name says it
        if role not in keys:
            raise UsageError(
                f"{name}: unknown key {role!r}; the keys are {', '.join(keys)}"
            )
        if not isinstance(column, str) or not column:
            raise UsageError(f"{name}: the column for {role} must be a name, got {column!r}")
        if role in chosen:
            raise UsageError(f"{name}: {role} is given twice ({chosen[role]!r}, {column!r})")
        for other, named in chosen.items():
            if named == column:
                raise UsageError(f"{name}: column {column!r} is given for {other} and {role}")
        chosen[role] = column
    return tuple((k, chosen[k]) for k in keys if k in chosen) or None


def _formats(value: Any) -> Any:
    """A format flag's value: ``auto`` leaves the format to the file's name and first line."""
    return None if value == "auto" else value


def _flag_columns(flag: str, keys: tuple[str, ...]) -> Any:
    # Checked here, so that a bad map names the flag the user typed.
    return lambda value: column_map(flag, value, keys)


def _choice(choices: tuple[str, ...], *, optional: bool = False) -> Any:
    return lambda name, value: choice(name, value, choices, optional=optional)


def _columns(keys: tuple[str, ...]) -> Any:
    return lambda name, value: column_map(name, value, keys)


def _count(name: str, value: Any) -> Any:
    return integer(name, value, minimum=0, optional=True)


def _excluded(name: str, value: Any) -> Any:
    return id_collection(name, value) or None  # excluding nothing is no restriction


def _unjudged_words(rule: Any) -> str:
    return {
        "nonrelevant": "with unjudged documents taken as non-relevant",
        "relevant": "with unjudged documents taken as relevant (--unjudged relevant)",
        "drop": "with unjudged documents dropped (-J)",
    }.get(rule, f"with --unjudged {rule}")


def _absent(value: Any) -> bool:
    return value is None


#: The compiled pass reads every query (no query set), plain TREC judgments or JSON Lines
#: lists of relevant ids, a plain TREC run or a JSON Lines run of lists (the lists' columns
#: as the column maps say), in score or file order; on other options the local reader
#: reads the input.
_COMPILED_NONE = Limit("compiled", _absent)
_COMPILED_FORMATS = Limit("compiled", lambda value: value in (None, "trec", "jsonl"))
#: Spark finds a table's columns by their names, and reads the formats of SPARK_FORMATS.
_SPARK_FORMATS = Limit(
    "spark",
    lambda value: value is None or value in SPARK_FORMATS,
    f"on Spark are {', '.join(SPARK_FORMATS)} (by the file's name when not given), not "
    "{value}: read such a file with the local engine",
)


#: Every evaluation option, declared once: EvalOptions' fields (written out, checked against
#: it), their checks and docstring, the keyword arguments of the API functions
#: (OptionValues), the flags of every command that evaluates a run
#: (``prfeval.cli._options.evaluation_options``, in this order), the settings a result
#: reports (:meth:`EvalOptions.settings`), those a saved evaluation records and the gate
#: compares (``changes_numbers``, worded by ``words``), and what each engine refuses
#: (``limits``: the compiled pass, Spark, the command line's head start) all come from it.
EVAL_OPTIONS: tuple[Option, ...] = (
    Option(
        "level",
        "int",
        1,
        checks.level,
        "Minimum grade that counts as relevant (trec_eval ``-l``), an integer >= 0; a "
        "measure's ``rel=`` overrides it. Negative grades are judged non-relevant whatever "
        "the level (a negative level is refused: see docs/robustness.md); unjudged documents "
        "are non-relevant.",
        flag=Flag(
            ("-l", "--level"),
            "Minimum grade that counts as relevant, >= 0 (0: judged non-relevant documents "
            "count too, as trec_eval -l0). Negative grades are never relevant.",
            kind="int",
            default=1,
            show_default=True,
        ),
        setting=lambda o: o.level,
        changes_numbers=True,
        words=lambda v: f"at level {v} (-l)",
    ),
    Option(
        "max_results",
        "int | None",
        None,
        _count,
        "Keep only the top ``max_results`` of each ranking (trec_eval ``-M``; applied "
        "before dropping unjudged documents, as trec_eval does).",
        flag=Flag(
            ("-M", "--max-results"),
            "Keep the top N of each ranking (trec_eval -M).",
            kind="int",
            minimum=0,
        ),
        setting=lambda o: o.max_results,
        changes_numbers=True,
        words=lambda v: "without -M" if v is None else f"with -M {v}",
    ),
    Option(
        "judged_only",
        "bool",
        False,
        flag_check,
        "trec_eval's ``-J`` under its own name: ``True`` sets ``unjudged=\"drop\"`` "
        "(unjudged documents, and as there those judged with a negative grade, are removed "
        "from the rankings first). An alias, not stored: the attribute reads "
        "``unjudged == \"drop\"``.",
        flag=Flag(
            ("-J", "--judged-only"),
            "Drop unjudged documents before measuring (trec_eval -J; --unjudged drop).",
            kind="flag",
        ),
        setting=lambda o: o.unjudged == "drop",
        stored=False,
    ),
    Option(
        "order",
        "Order | None",
        None,
        _choice(ORDERS, optional=True),
        "``\"score\"`` (score descending, ties by doc id descending in byte order, as "
        "trec_eval), ``\"rank\"`` (the rank column) or ``\"file\"`` (the input order). "
        "``None``: the run's own default, ``\"score\"`` for scored runs and ``\"file\"`` for "
        "ranked lists.",
        flag=Flag(
            ("--order",),
            "Rank by score (default; ties by doc id descending, as trec_eval), by the "
            "rank column, or in file order.",
            kind="choice",
            choices=ORDERS,
        ),
        setting=lambda o: o.order,
        changes_numbers=True,
        words=lambda v: f"in --order {v}",
        limits=(Limit("compiled", lambda v: v != "rank"),),
    ),
    Option(
        "duplicates",
        "Duplicates",
        "keep",
        _choice(DUPLICATES),
        "A doc id repeated in one query's ranking: ``\"keep\"`` (it takes a place each time "
        "and counts once as relevant), ``\"first\"`` (later repeats are removed) or "
        "``\"error\"``.",
        flag=Flag(
            ("--duplicates",),
            "A doc repeated in one ranking: keep (takes a place, counts once), first, or error.",
            kind="choice",
            choices=DUPLICATES,
            default="keep",
            show_default=True,
        ),
        setting=lambda o: o.duplicates,
        changes_numbers=True,
    ),
    Option(
        "unjudged",
        "Unjudged",
        "nonrelevant",
        _choice(UNJUDGED_RULES),
        "What an unjudged retrieved document counts as: ``\"nonrelevant\"`` (the default, as "
        "trec_eval counts it), ``\"relevant\"`` (at grade ``unjudged_grade``: the query's "
        "relevant count grows by the unjudged documents it retrieved, after "
        "``max_results``) or ``\"drop\"`` (removed before measuring, a condensed list: "
        "Sakai, 2007; trec_eval ``-J``).",
        flag=Flag(
            ("--unjudged",),
            "An unjudged retrieved document counts as nonrelevant (default, as trec_eval), "
            "relevant (at --unjudged-grade; the relevant count grows by those documents), or "
            "is dropped before measuring (-J).",
            kind="choice",
            choices=UNJUDGED_RULES,
        ),
        setting=lambda o: o.unjudged,
        changes_numbers=True,
        words=_unjudged_words,
    ),
    Option(
        "unjudged_grade",
        "int | None",
        None,
        lambda name, value: integer(name, value, optional=True),
        "The grade an unjudged document is given under ``unjudged=\"relevant\"``; by "
        "default the relevance ``level``.",
        flag=Flag(
            ("--unjudged-grade",),
            "The grade of an unjudged document taken as relevant.  [default: the level]",
            kind="int",
            metavar="G",
        ),
        setting=lambda o: o.assumed_grade if o.unjudged == "relevant" else None,
        changes_numbers=True,
    ),
    Option(
        "queries",
        "frozenset[str] | None",
        None,
        id_collection,
        "Evaluate only these query ids (a development or held-out set). Both sides are "
        "restricted before anything else.",
        given="Collection[Any] | None",
        flag=Flag(
            ("--queries",),
            "Evaluate only the query ids listed in FILE (one per line).",
            kind="ids-file",
            metavar="FILE",
            dest="queries_file",
        ),
        limits=(_COMPILED_NONE,),
    ),
    Option(
        "exclude_queries",
        "frozenset[str] | None",
        None,
        _excluded,
        "Leave these query ids out (a held-out set). Both sides are restricted before "
        "anything else.",
        given="Collection[Any] | None",
        flag=Flag(
            ("--exclude-queries",),
            "Leave out the query ids listed in FILE.",
            kind="ids-file",
            metavar="FILE",
            dest="exclude_file",
        ),
        limits=(_COMPILED_NONE,),
    ),
    Option(
        "complete",
        "bool",
        False,
        flag_check,
        "Average over every judged query, those without results scoring as empty rankings "
        "(trec_eval ``-c``). By default, over the queries in both the run and the judgments.",
        flag=Flag(
            ("-c", "--complete"),
            "Average over every judged query; those without results score 0 (trec_eval -c).",
            kind="flag",
        ),
        setting=lambda o: o.complete,
        changes_numbers=True,
        words=lambda v: "with -c" if v else "without -c",
    ),
    Option(
        "collection_size",
        "int | None",
        None,
        _count,
        "Documents in the collection, N (trec_eval ``-N``): needed for TN and the measures "
        "built on it.",
        flag=Flag(
            ("-N", "--collection-size"),
            "Documents in the collection (needed for TN, Fallout, Accuracy, ...).",
            kind="int",
        ),
        setting=lambda o: o.collection_size,
        changes_numbers=True,
        words=lambda v: "without -N" if v is None else f"with -N {v}",
    ),
    Option(
        "qrels_format",
        "InputFormat | None",
        None,
        _choice(INPUT_FORMATS, optional=True),
        "Read the judgments as ``\"trec\"``, ``\"csv\"``, ``\"tsv\"``, ``\"jsonl\"``, "
        "``\"parquet\"``, ``\"json\"`` (one object ``{qid: {docid: value}}``, BEIR's results), "
        "``\"msmarco\"`` (``qid docid rank``, no header) or ``\"ndeval\"`` (judgments per "
        "subtopic), whatever the file's name or first line says. ``None``: by the name's "
        "extension and first line (how standard input is read; see docs/inputs.md).",
        flag=Flag(
            ("--qrels-format",),
            "Read QRELS as this format. auto: by the file name's extension and first line "
            "(a CSV, TSV or JSON header, a JSON document, MS MARCO's columns, or TREC), as "
            "standard input is read. ndeval: judgments per subtopic, query subtopic doc grade "
            "(for the diversity measures).",
            kind="choice",
            choices=("auto", *INPUT_FORMATS),
            default="auto",
            show_default=True,
            convert=_formats,
        ),
        limits=(_COMPILED_FORMATS, _SPARK_FORMATS),
    ),
    Option(
        "run_format",
        "InputFormat | None",
        None,
        _choice(INPUT_FORMATS, optional=True),
        "Read the run as one of the formats ``qrels_format`` names; ``None``: by the name's "
        "extension and first line.",
        flag=Flag(
            ("--run-format",),
            "Read each RUN as this format (auto: as --qrels-format).",
            kind="choice",
            choices=("auto", *INPUT_FORMATS),
            default="auto",
            show_default=True,
            convert=_formats,
        ),
        limits=(_COMPILED_FORMATS, _SPARK_FORMATS),
    ),
    Option(
        "qrels_columns",
        "ColumnMap | None",
        None,
        _columns(QRELS_COLUMN_KEYS),
        "Which column of a judgments table (a file with named columns, a DataFrame, an Arrow "
        "table, a Hugging Face dataset) plays which role, e.g. ``{\"doc_id\": "
        "\"positive_ctxs\"}`` (or ``\"doc_id=positive_ctxs\"``); the keys are ``query_id``, "
        "``doc_id`` and ``relevance``. A role not given is found by the names prfeval knows "
        "(``qid``, ``docid``, ...). Inputs without named columns (TREC) ignore it.",
        given="Mapping[str, str] | str | None",
        flag=Flag(
            ("--qrels-columns",),
            "Which QRELS columns hold what, KEY one of "
            f"{', '.join(QRELS_COLUMN_KEYS)}, e.g. doc_id=positive_ctxs (a list column: every "
            "listed id relevant). Default: by name (qid, docid, grade, ...).",
            metavar="KEY=NAME,...",
            convert=_flag_columns("--qrels-columns", QRELS_COLUMN_KEYS),
        ),
    ),
    Option(
        "run_columns",
        "ColumnMap | None",
        None,
        _columns(RUN_COLUMN_KEYS),
        "Which column of a run table plays which role, e.g. ``{\"query_id\": "
        "\"question_id\", \"doc_id\": \"ctxs\"}`` (or ``\"query_id=question_id,doc_id=ctxs\"``); "
        "the keys are ``query_id``, ``doc_id``, ``score`` and ``rank``, found by name when "
        "not given, as for ``qrels_columns``.",
        given="Mapping[str, str] | str | None",
        flag=Flag(
            ("--run-columns",),
            f"Which RUN columns hold what, KEY one of {', '.join(RUN_COLUMN_KEYS)}, e.g. "
            "query_id=question_id,doc_id=ctxs (a list column is a ranking, in list order "
            "unless scores are given).",
            metavar="KEY=NAME,...",
            convert=_flag_columns("--run-columns", RUN_COLUMN_KEYS),
        ),
    ),
    Option(
        "qrels_duplicates",
        "QrelsDuplicates",
        "error",
        _choice(QRELS_DUPLICATES),
        "A judgment repeated for one (query, document): ``\"error\"`` (as trec_eval), "
        "``\"max\"`` (the highest grade counts) or ``\"last\"`` (the last one in the file). "
        "The number of repeats is always reported (``accounting.repeated_judgments``).",
        flag=Flag(
            ("--qrels-duplicates",),
            "A judgment repeated for one query and document: an error (as trec_eval), or "
            "count it once with its highest grade (max) or its last one (last). The number of "
            "repeats is always reported.",
            kind="choice",
            choices=QRELS_DUPLICATES,
            default="error",
            show_default=True,
        ),
        setting=lambda o: o.qrels_duplicates,
        changes_numbers=True,
    ),
    Option(
        "query_set",
        "str | None",
        None,
        lambda name, value: checks.text(name, value, optional=True),
        "How to name the query set in results (the file the ids came from); by default it "
        "is described by its size. The command line names it after the files of "
        "``--queries`` and ``--exclude-queries``.",
        setting=lambda o: o.describe_query_set(),
        changes_numbers=True,  # names the query set, which queries and exclude_queries give
    ),
    Option(
        "trec_eval_version",
        "int",
        9,
        lambda name, value: checks.member(name, value, (9, 10)),
        "Whose numbers to give where trec_eval 9.0.8 (9, the default: the version inside "
        "pytrec_eval-terrier) and 10.0 (10) differ: 9 ranks by scores rounded to single "
        "precision (scores equal as floats tie) and turns a recall level r into "
        "floor(r R + 0.9) relevant documents; 10 ranks by the scores as read and rounds r R.",
        flag=Flag(
            ("--trec-eval-version",),
            "Give trec_eval 10.0's numbers where it differs from 9.0.8 (recall levels "
            "rounded, scores kept as doubles).",
            kind="choice",
            choices=("9", "10"),
            default="9",
            show_default=True,
            convert=int,
        ),
        setting=lambda o: o.trec_eval_version,
        changes_numbers=True,
    ),
)

class ValuesBesideQueries(TypedDict, total=False):
    """:class:`OptionValues` but ``queries``: what the functions that take the queries as a
    parameter of their own (``explain``, ``explain_queries``, ``explain_worst``) take as
    keywords."""

    level: int
    max_results: int | None
    judged_only: bool
    order: Order | None
    duplicates: Duplicates
    unjudged: Unjudged
    unjudged_grade: int | None
    exclude_queries: Collection[Any] | None
    complete: bool
    collection_size: int | None
    qrels_format: InputFormat | None
    run_format: InputFormat | None
    qrels_columns: Mapping[str, str] | str | None
    run_columns: Mapping[str, str] | str | None
    qrels_duplicates: QrelsDuplicates
    query_set: str | None
    trec_eval_version: int


class OptionValues(ValuesBesideQueries, total=False):
    """The options of :class:`EvalOptions` by name, as the API functions take them
    (``**option_values: Unpack[OptionValues]``): each key as :data:`EVAL_OPTIONS` declares
    it, typed as a caller may pass it (checked on import)."""

    queries: Collection[Any] | None


check_values(OptionValues, EVAL_OPTIONS)
check_values(ValuesBesideQueries, tuple(o for o in EVAL_OPTIONS if o.name != "queries"))


@options_class(
    EVAL_OPTIONS,
    summary="How a run is turned into judged rankings, and over which queries it is averaged.",
    notes="Every field is declared once, in :data:`EVAL_OPTIONS` (its type, default, check, "
    "documentation, command-line flag and the setting a result shows); the options are "
    "checked when the object is made, so a bad value fails before any file is read.",
)
@dataclass(frozen=True)
class EvalOptions(DeclaredOptions):
    """The evaluation options (this docstring is replaced by the table's, when first read)."""

    # Each field as EVAL_OPTIONS declares it, in its order (options_class checks them on
    # import); judged_only is an init-only alias of unjudged="drop" (trec_eval -J), so that
    # the rule is held once.
    level: int = 1
    max_results: int | None = None
    judged_only: InitVar[bool] = False
    order: Order | None = None
    duplicates: Duplicates = "keep"
    unjudged: Unjudged = "nonrelevant"
    unjudged_grade: int | None = None
    queries: frozenset[str] | None = None
    exclude_queries: frozenset[str] | None = None
    complete: bool = False
    collection_size: int | None = None
    qrels_format: InputFormat | None = None
    run_format: InputFormat | None = None
    qrels_columns: ColumnMap | None = None
    run_columns: ColumnMap | None = None
    qrels_duplicates: QrelsDuplicates = "error"
    query_set: str | None = None
    trec_eval_version: int = 9

    def __post_init__(self, judged_only: bool) -> None:
        validate(self, self.TABLE)
        judged_only = flag_check("judged_only", judged_only)
        set_ = object.__setattr__  # frozen: normalise in place once, here
        # judged_only is trec_eval's -J: the "drop" rule under its old name. Both say the same.
        if judged_only and self.unjudged not in ("nonrelevant", "drop"):
            raise UsageError(
                f"judged_only (-J) drops unjudged documents; it contradicts unjudged="
                f"{self.unjudged!r}"
            )
        if judged_only:
            set_(self, "unjudged", "drop")
        set_(self, "judged_only", self.unjudged == "drop")  # read from the rule, never stored

    @classmethod
    def build(
        cls, options: EvalOptions | None = None, /, **values: Any
    ) -> EvalOptions:
        """``options`` (or the defaults) with ``values`` replacing some of them.

        The API functions take the options as keyword arguments and turn them into one
        object here; an unknown name is a UsageError listing the known ones.
        """
        if options is not None and "unjudged" in values and "judged_only" not in values:
            # replace() passes the base's judged_only (its rule, read back): the rule given
            # replaces it.
            values["judged_only"] = False
        return super().build(options, **values)

    @property
    def assumed_grade(self) -> int:
        """The grade of an unjudged document under ``unjudged="relevant"``."""
        return self.level if self.unjudged_grade is None else self.unjudged_grade

    @property
    def restricts_queries(self) -> bool:
        """Whether a query set was given (``queries`` or ``exclude_queries``)."""
        return self.queries is not None or bool(self.exclude_queries)

    def wants(self, query_id: str) -> bool:
        """Whether ``query_id`` belongs to the query set."""
        if self.queries is not None and query_id not in self.queries:
            return False
        return not (self.exclude_queries and query_id in self.exclude_queries)

    def describe_query_set(self) -> str:
        """How the query set was chosen: ``"all"``, the ``query_set`` name, or its size."""
        if not self.restricts_queries:
            return "all"
        if self.query_set:
            return self.query_set
        parts = []
        if self.queries is not None:
            parts.append(f"{len(self.queries)} listed queries")
        if self.exclude_queries:
            parts.append(f"excluding {len(self.exclude_queries)} listed queries")
        return ", ".join(parts)

    def settings(self, *, order: str | None = None) -> dict[str, Any]:
        """The options as a result reports them (each option's ``setting`` in
        :data:`EVAL_OPTIONS`). ``order`` is the order actually used when the option was left
        to the run (``None``)."""
        shown = super().settings()
        shown["order"] = self.order or order
        return shown
