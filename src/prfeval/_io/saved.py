"""Saved evaluations: the JSON ``prfeval evaluate --format json -q`` writes, read back.

A saved evaluation lets a later command use a result without measuring its run again (``prfeval
gate`` takes one as its baseline, so that CI need not rerun it). The file is what
:meth:`prfeval._retrieval.evaluate.Evaluation.to_dict` writes with ``per_query=True``:

``per_query``
    query id -> measure label -> value, for each evaluated query (``-q``);
``macro``
    measure label -> the average over the evaluated queries;
``queries``
    the accounting: ``evaluated``, ``missing_from_run`` (judged queries without results),
    ``not_in_qrels``, ``complete`` (``-c``), ...;
``settings``
    the options it was measured with: ``level``, ``complete``, ``unjudged``, ``max_results``,
    ``order``, ``query_set``, ...

The other keys (``micro``, ``judgments``, ...) are read past. Everything read is checked: a
file that is not such a JSON object, or a field of the wrong type, is an
:class:`~prfeval._core.errors.InputFormatError` naming the file, and the line (bad JSON) or the
field (``per_query."7"."P@10"``). Measure labels stay text here; the layer that measures
parses them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from prfeval._core.errors import InputFormatError
from prfeval._core.option_table import number_settings
from prfeval._core.options import EVAL_OPTIONS, EvalOptions
from prfeval._io.judgments_digest import JudgmentsDigest
from prfeval._io.source import Input, Source, open_input

__all__ = [
    "EVALUATION_KEYS",
    "SavedEvaluation",
    "looks_saved",
    "read_saved_evaluation",
    "saved_from_dict",
]

#: The top-level keys of an evaluation's JSON (``Evaluation.to_dict``); a JSON Lines run's
#: first key is a column name (``query_id``, ``qid``, ...), never one of these.
EVALUATION_KEYS = frozenset(
    {
        "per_query",
        "macro",
        "micro",
        "f_of_means",
        "queries",
        "settings",
        "judgments",
        "if_unjudged_relevant",
        "text",
        "per_query_text",
        "digests",
    }
)

_HEX = re.compile(r"[0-9a-f]{16,64}")
_FIRST_KEY = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class SavedEvaluation:
    """An evaluation read back from its JSON.

    Attributes
    ----------
    name
        The file it was read from, as messages name it.
    labels
        The measure labels with numeric values, in the order saved (``macro``'s keys).
    macro
        Label -> the saved average.
    per_query
        Query id -> label -> value, for every evaluated query; ``None`` when the file was
        saved without ``-q``.
    settings
        The options it was measured with: every option that changes the numbers
        (``changes_numbers`` in :data:`~prfeval._core.options.EVAL_OPTIONS`), and the others
        saved (``qrels``, ``run``, ...).
    evaluated
        How many queries it averaged over.
    missing_from_run
        Judged queries its run had no results for (scored as empty rankings with ``-c``, else
        left out).
    not_in_qrels
        Queries its run answered that have no judgments (always left out).
    complete
        Whether it was measured with ``-c`` (every judged query of the query set).
    digests
        The digest of the judgments it was measured with
        (:mod:`prfeval._io.judgments_digest`); ``None`` for a file saved before prfeval
        recorded it.
    """

    name: str
    labels: tuple[str, ...]
    macro: dict[str, float]
    per_query: dict[str, dict[str, float]] | None
    settings: dict[str, Any]
    evaluated: int
    missing_from_run: tuple[str, ...]
    not_in_qrels: tuple[str, ...]
    complete: bool
    digests: JudgmentsDigest | None = None

    @property
    def judged_queries(self) -> frozenset[str]:
        """The judged queries of its query set: those it evaluated, and (without ``-c``)
        those its run did not answer. Known only from the per-query values."""
        if self.per_query is None:
            raise ValueError(f"{self.name} has no per-query values")
        return frozenset(self.per_query) | frozenset(self.missing_from_run)

    @property
    def answered(self) -> frozenset[str]:
        """The judged queries its run had results for."""
        return self.judged_queries - frozenset(self.missing_from_run)


def looks_saved(handle: Input) -> bool:
    """Whether ``handle`` holds a saved evaluation rather than a run: the first key of the
    JSON object it starts with is one of :data:`EVALUATION_KEYS` (``per_query`` or
    ``macro``, as ``evaluate`` writes them; any of them after ``jq -S``). A JSON Lines run
    starts with a column name, a JSON run (``{qid: {docid: score}}``) with a query id.
    """
    match = _FIRST_KEY.match(handle.head(1 << 12))
    return match is not None and match.group(1).decode("utf-8", "replace") in EVALUATION_KEYS


def read_saved_evaluation(source: Source | Input) -> SavedEvaluation:
    """Read the JSON of ``prfeval evaluate --format json [-q]`` (``.gz`` too).

    Raises
    ------
    InputFormatError
        Not UTF-8 text, not JSON (with the line), not an evaluation's object, or a field
        missing or of the wrong type (naming the field).
    """
    with open_input(source) as handle:
        name = handle.name
        data = handle.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputFormatError("not valid UTF-8 text", path=name) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFormatError(
            f"not valid JSON: {exc.msg} (column {exc.colno})", path=name, line_number=exc.lineno
        ) from None
    except RecursionError:
        raise InputFormatError(
            "not a saved evaluation: JSON nested too deeply", path=name
        ) from None
    return saved_from_dict(document, name)


def saved_from_dict(document: Any, name: str) -> SavedEvaluation:
    """A :class:`SavedEvaluation` from an evaluation's JSON object (``Evaluation.to_dict``),
    every field checked; ``name`` is how messages name its origin."""

    def fail(field: str, reason: str) -> InputFormatError:
        where = f"{field}: " if field else ""
        return InputFormatError(f"{where}{reason}", path=name)

    hint = "save the evaluation with prfeval evaluate --format json -q -o FILE"
    if not isinstance(document, dict):
        raise fail("", f"not a saved evaluation: expected a JSON object; {hint}")
    for key in ("macro", "queries", "settings"):
        if key not in document:
            raise fail("", f"not a saved evaluation: no field {key!r}; {hint}")
    macro = _numbers(document["macro"], "macro", fail)
    queries = _object(document["queries"], "queries", fail)
    settings = _object(document["settings"], "settings", fail)
    for key in number_settings(EVAL_OPTIONS):  # the options that change its numbers
        if key not in settings:
            raise fail(f"settings.{key}", "missing (saved by an older prfeval?)")
    _check_settings(settings, fail)
    evaluated = queries.get("evaluated")
    if isinstance(evaluated, bool) or not isinstance(evaluated, int) or evaluated < 0:
        raise fail("queries.evaluated", f"expected a count, got {evaluated!r}")
    complete = queries.get("complete", settings.get("complete"))
    if not isinstance(complete, bool):
        raise fail("queries.complete", f"expected true or false, got {complete!r}")
    missing = _ids(queries.get("missing_from_run", []), "queries.missing_from_run", fail)
    not_in_qrels = _ids(queries.get("not_in_qrels", []), "queries.not_in_qrels", fail)

    per_query = None
    if document.get("per_query") is not None:
        raw = _object(document["per_query"], "per_query", fail)
        per_query = {}
        for qid, row in raw.items():
            field = f"per_query.{json.dumps(qid)}"
            values = _numbers(row, field, fail)
            if set(values) != set(macro):
                extra = sorted(set(values) ^ set(macro))
                raise fail(field, f"its measures differ from macro's: {', '.join(extra)}")
            per_query[qid] = values
        if len(per_query) != evaluated:
            raise fail(
                "per_query",
                f"{len(per_query)} queries, but queries.evaluated says {evaluated}",
            )
    digests = None
    if document.get("digests") is not None:
        digests = _digests(document["digests"], fail)
    return SavedEvaluation(
        name=name,
        labels=tuple(macro),
        macro=macro,
        per_query=per_query,
        settings=settings,
        evaluated=evaluated,
        missing_from_run=missing,
        not_in_qrels=not_in_qrels,
        complete=complete,
        digests=digests,
    )


def _check_settings(settings: dict[str, Any], fail: Any) -> None:
    """Each setting that changes the numbers of the JSON type an evaluation saves it as: a
    level saved as ``"1"`` would otherwise read as a different level than 1."""
    shown = EvalOptions().settings(order="score")
    for key in number_settings(EVAL_OPTIONS):
        value, usual = settings[key], shown.get(key)
        if value is None or usual is None:
            continue  # an option left unset: nothing to type
        kinds: tuple[type, ...] = (int, float) if type(usual) in (int, float) else (type(usual),)
        if isinstance(value, bool) != isinstance(usual, bool) or not isinstance(value, kinds):
            raise fail(f"settings.{key}", f"expected {_json_kind(usual)}, got {value!r}")


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else f"a JSON {type(value).__name__}"


def _digests(value: Any, fail: Any) -> JudgmentsDigest:
    """The saved digests of the judgments, checked (hex strings; per query optional)."""
    digests = _object(value, "digests", fail)
    out = []
    for key in ("judgments", "queries"):
        text = digests.get(key)
        if not isinstance(text, str) or not _HEX.fullmatch(text):
            raise fail(f"digests.{key}", f"expected a hex SHA-256 digest, got {text!r}")
        out.append(text)
    per_query = digests.get("per_query")
    if per_query is not None:
        per_query = _object(per_query, "digests.per_query", fail)
        for qid, text in per_query.items():
            if not isinstance(text, str) or not _HEX.fullmatch(text):
                raise fail(f"digests.per_query.{json.dumps(qid)}",
                           f"expected a hex digest, got {text!r}")
    return JudgmentsDigest(out[0], out[1], per_query)


def _object(value: Any, field: str, fail: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail(field, f"expected a JSON object, got {type(value).__name__}")
    return value


def _numbers(value: Any, field: str, fail: Any) -> dict[str, float]:
    """A JSON object of numbers (NaN, as Python's JSON writes an undefined mean, included)."""
    out = {}
    for key, number in _object(value, field, fail).items():
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise fail(f"{field}.{json.dumps(key)}", f"expected a number, got {number!r}")
        try:
            out[key] = float(number)
        except OverflowError:  # an integer past float64's range
            out[key] = math.inf
        if math.isinf(out[key]):
            raise fail(f"{field}.{json.dumps(key)}", "expected a finite number")
    return out


def _ids(value: Any, field: str, fail: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(q, str) for q in value):
        raise fail(field, "expected a list of query ids")
    return tuple(value)
