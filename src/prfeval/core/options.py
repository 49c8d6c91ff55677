"""The evaluation options, declared once: how a run becomes rankings and which queries count.

Every command and every API function that evaluates a run (``evaluate``, ``curve``,
``compare``, the Spark engine) builds one :class:`EvalOptions` and passes it down the pipeline;
nothing below re-declares these options, and what a result reports about its settings comes
from :meth:`EvalOptions.settings`. The options are validated when the object is made, so a bad
value fails before any file is read, with the parameter's name and the values it accepts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import InitVar, dataclass, fields, replace
from typing import Any, Literal, TypedDict, get_args

from prfeval.core.checks import choice, id_collection, integer
from prfeval.core.errors import UsageError

__all__ = [
    "DUPLICATES",
    "INPUT_FORMATS",
    "ORDERS",
    "QRELS_COLUMN_KEYS",
    "QRELS_DUPLICATES",
    "RUN_COLUMN_KEYS",
    "UNJUDGED_RULES",
    "ColumnMap",
    "Duplicates",
    "EvalOptions",
    "InputFormat",
    "OptionValues",
    "Order",
    "QrelsDuplicates",
    "Unjudged",
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

#: The highest relevance level: grades are 64-bit integers. The lowest is 0 (see ``level``).
_LEVEL_MAX = 2**63 - 1


def column_map(name: str, value: Any, keys: tuple[str, ...]) -> ColumnMap | None:
    """Which column plays which role: ``{"query_id": "question_id", "doc_id": "ctxs"}``, or
    the command line's ``"query_id=question_id,doc_id=ctxs"``, normalised to (role, column)
    pairs in the order of ``keys``; ``None`` (or an empty map) leaves every role to the
    column names prfeval knows.

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


class OptionValues(TypedDict, total=False):
    """The options of :class:`EvalOptions` by name, as the API functions take them."""

    level: int
    order: Order | None
    duplicates: Duplicates
    judged_only: bool
    unjudged: Unjudged
    unjudged_grade: int | None
    max_results: int | None
    complete: bool
    queries: Collection[Any] | None
    exclude_queries: Collection[Any] | None
    query_set: str | None
    collection_size: int | None
    trec_eval_version: int
    qrels_duplicates: QrelsDuplicates
    qrels_format: InputFormat | None
    run_format: InputFormat | None
    qrels_columns: Mapping[str, str] | str | None
    run_columns: Mapping[str, str] | str | None


@dataclass(frozen=True)
class EvalOptions:
    """How a run is turned into judged rankings, and over which queries it is averaged.

    Parameters
    ----------
    level
        Minimum grade that counts as relevant (trec_eval ``-l``), an integer >= 0; a
        measure's ``rel=`` overrides it. Negative grades are judged non-relevant whatever the
        level (a negative level is refused: see docs/robustness.md); unjudged documents are
        non-relevant.
    order
        ``"score"`` (score descending, ties by doc id descending in byte order, as trec_eval),
        ``"rank"`` (the rank column) or ``"file"`` (the input order). ``None``: the run's own
        default, ``"score"`` for scored runs and ``"file"`` for ranked lists.
    duplicates
        A doc id repeated in one query's ranking: ``"keep"`` (it takes a place each time and
        counts once as relevant), ``"first"`` (later repeats are removed) or ``"error"``.
    judged_only
        trec_eval's ``-J`` under its own name: ``True`` sets ``unjudged="drop"`` (unjudged
        documents, and as there those judged with a negative grade, are removed from the
        rankings first). An alias, not stored: the attribute reads ``unjudged == "drop"``.
    unjudged
        What an unjudged retrieved document counts as: ``"nonrelevant"`` (the default, as
        trec_eval counts it), ``"relevant"`` (at grade ``unjudged_grade``: the query's relevant
        count grows by the unjudged documents it retrieved, after ``max_results``) or
        ``"drop"`` (removed before measuring, a condensed list: Sakai, 2007; trec_eval
        ``-J``).
    unjudged_grade
        The grade an unjudged document is given under ``unjudged="relevant"``; by default
        the relevance ``level``.
    max_results
        Keep only the top ``max_results`` of each ranking (trec_eval ``-M``; applied before
        dropping unjudged documents, as trec_eval does).
    complete
        Average over every judged query, those without results scoring as empty rankings
        (trec_eval ``-c``). By default, over the queries in both the run and the judgments.
    queries, exclude_queries
        Evaluate only these query ids / leave these out (a development or held-out set).
        Both sides are restricted before anything else.
    query_set
        How to name the query set in results (the file the ids came from); by default it is
        described by its size.
    collection_size
        Documents in the collection, N (trec_eval ``-N``): needed for TN and the measures
        built on it.
    trec_eval_version
        Whose numbers to give where trec_eval 9.0.8 (9, the default: the version inside
        pytrec_eval-terrier) and 10.0 (10) differ: 9 ranks by scores rounded to single
        precision (scores equal as floats tie) and turns a recall level r into
        floor(r R + 0.9) relevant documents; 10 ranks by the scores as read and rounds r R.
    qrels_duplicates
        A judgment repeated for one (query, document): ``"error"`` (as trec_eval),
        ``"max"`` (the highest grade counts) or ``"last"`` (the last one in the file). The
        number of repeats is always reported (``accounting.repeated_judgments``).
    qrels_format, run_format
        Read the judgments / the run as ``"trec"``, ``"csv"``, ``"tsv"``, ``"jsonl"``,
        ``"parquet"``, ``"json"`` (one object ``{qid: {docid: value}}``, BEIR's results) or
        ``"msmarco"`` (``qid docid rank``, no header), whatever the file's name or first line
        says. ``None``: by the name's extension and first line (how standard input is read;
        see docs/inputs.md).
    qrels_columns, run_columns
        Which column of a table (a file with named columns, a DataFrame, an Arrow table, a
        Hugging Face dataset) plays which role, e.g. ``{"query_id": "question_id",
        "doc_id": "ctxs"}`` (or ``"query_id=question_id,doc_id=ctxs"``). The keys are
        ``query_id``, ``doc_id`` and ``relevance`` for judgments, ``query_id``, ``doc_id``,
        ``score`` and ``rank`` for runs; a role not given is found by the names prfeval
        knows (``qid``, ``docid``, ...). Inputs without named columns (TREC) ignore it.
    """

    level: int = 1
    order: Order | None = None
    duplicates: Duplicates = "keep"
    # Not a field: an init-only alias of unjudged="drop" (trec_eval -J), so that the rule is
    # held once; __post_init__ sets the attribute from the rule.
    judged_only: InitVar[bool] = False
    unjudged: Unjudged = "nonrelevant"
    unjudged_grade: int | None = None
    max_results: int | None = None
    complete: bool = False
    queries: frozenset[str] | None = None
    exclude_queries: frozenset[str] | None = None
    query_set: str | None = None
    collection_size: int | None = None
    trec_eval_version: int = 9
    qrels_duplicates: QrelsDuplicates = "error"
    qrels_format: InputFormat | None = None
    run_format: InputFormat | None = None
    qrels_columns: ColumnMap | None = None
    run_columns: ColumnMap | None = None

    def __post_init__(self, judged_only: bool) -> None:
        set_ = object.__setattr__  # frozen: normalise in place once, here
        set_(self, "level", integer("level", self.level, optional=False))
        if self.level < 0:
            raise UsageError(
                f"level must be an integer >= 0, got {self.level}: a negative grade means "
                "judged non-relevant, so no level makes it relevant (trec_eval's -l -1 "
                "counts even unjudged documents as relevant in the ranking, but not in R)"
            )
        if self.level > _LEVEL_MAX:
            raise UsageError(f"level must be an integer below 2**63, got {self.level}")
        set_(self, "order", choice("order", self.order, ORDERS, optional=True))
        set_(self, "duplicates", choice("duplicates", self.duplicates, DUPLICATES, optional=False))
        set_(
            self,
            "qrels_duplicates",
            choice("qrels_duplicates", self.qrels_duplicates, QRELS_DUPLICATES, optional=False),
        )
        for name in ("qrels_format", "run_format"):
            set_(self, name, choice(name, getattr(self, name), INPUT_FORMATS, optional=True))
        set_(self, "qrels_columns", column_map("qrels_columns", self.qrels_columns,
                                               QRELS_COLUMN_KEYS))
        set_(self, "run_columns", column_map("run_columns", self.run_columns, RUN_COLUMN_KEYS))
        for flag, value in (("judged_only", judged_only), ("complete", self.complete)):
            if not isinstance(value, bool):
                raise UsageError(f"{flag} must be True or False, got {value!r}")
        set_(self, "unjudged", choice("unjudged", self.unjudged, UNJUDGED_RULES, optional=False))
        # judged_only is trec_eval's -J: the "drop" rule under its old name. Both say the same.
        if judged_only and self.unjudged not in ("nonrelevant", "drop"):
            raise UsageError(
                f"judged_only (-J) drops unjudged documents; it contradicts unjudged="
                f"{self.unjudged!r}"
            )
        if judged_only:
            set_(self, "unjudged", "drop")
        set_(self, "judged_only", self.unjudged == "drop")  # read from the rule, never stored
        set_(
            self,
            "unjudged_grade",
            integer("unjudged_grade", self.unjudged_grade, optional=True),
        )
        set_(
            self,
            "max_results",
            integer("max_results", self.max_results, minimum=0, optional=True),
        )
        set_(
            self,
            "collection_size",
            integer("collection_size", self.collection_size, minimum=0, optional=True),
        )
        if self.trec_eval_version not in (9, 10) or isinstance(self.trec_eval_version, bool):
            raise UsageError(
                f"trec_eval_version must be 9 or 10, got {self.trec_eval_version!r}"
            )
        set_(self, "queries", id_collection("queries", self.queries))
        excluded = id_collection("exclude_queries", self.exclude_queries)
        set_(self, "exclude_queries", excluded or None)
        if self.query_set is not None and not isinstance(self.query_set, str):
            raise UsageError(f"query_set must be a name (a string), got {self.query_set!r}")

    @classmethod
    def build(
        cls, options: EvalOptions | None = None, /, **values: Any
    ) -> EvalOptions:
        """``options`` (or the defaults) with ``values`` replacing some of them.

        The API functions take the options as keyword arguments and turn them into one
        object here; an unknown name is a UsageError listing the known ones.
        """
        base = options if options is not None else cls()
        if options is not None and not isinstance(options, EvalOptions):
            raise UsageError(f"options must be an EvalOptions, got a {type(options).__name__}")
        known = {f.name for f in fields(cls)} | {"judged_only"}
        unknown = sorted(set(values) - known)
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UsageError(
                f"unknown option {unknown[0]!r}{hint} The options are "
                f"{', '.join(sorted(known))}."
            )
        if "unjudged" in values and "judged_only" not in values:
            # replace() passes the base's judged_only (its rule, read back): the rule given
            # replaces it.
            values["judged_only"] = False
        return replace(base, **values) if values else base

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
        """The options as a result reports them. ``order`` is the order actually used when
        the option was left to the run (``None``)."""
        return {
            "level": self.level,
            "collection_size": self.collection_size,
            "complete": self.complete,
            "judged_only": self.unjudged == "drop",
            "unjudged": self.unjudged,
            "unjudged_grade": self.assumed_grade if self.unjudged == "relevant" else None,
            "max_results": self.max_results,
            "order": self.order or order,
            "duplicates": self.duplicates,
            "qrels_duplicates": self.qrels_duplicates,
            "query_set": self.describe_query_set(),
            "trec_eval_version": self.trec_eval_version,
        }

