"""Any retriever as a run: call it for each query, read what it returns as a ranking.

A retriever is named ``module:attr`` (:func:`load_retriever`); ``attr`` may be dotted
(``module:Class.method``) and may end in ``()`` to call a factory first, without arguments
(``examples.bm25:baseline()``). What it is decides how it is asked (:func:`as_retriever`):

* a LlamaIndex retriever (it has ``.retrieve``): ``retrieve(text)``, giving ``NodeWithScore``
  objects;
* a LangChain retriever (it has ``.invoke``): ``invoke(text)``, giving ``Document`` objects;
* any other callable: ``f(text)``, or ``f(text, k=k)`` when it has a parameter named ``k``.

Each result becomes a document id and maybe a score (:func:`ranking_of`):

* a string (or an integer) is an id; a pair ``(id, score)`` is both; a dict gives ``"id"``
  (else ``"doc_id"``) and an optional ``"score"``;
* a LangChain ``Document`` gives ``doc.id``, else ``metadata["id"]``, else
  ``metadata["doc_id"]``, and the score ``metadata["score"]`` when there is one;
* a LlamaIndex ``NodeWithScore`` gives the id of the document its node was cut from
  (``node.ref_doc_id``: what the judgments name), else the node's own ``node_id`` (a node made
  directly, not from a document), and its ``score``.

A query's results are kept in the order returned, truncated to the top ``k``. They carry the
scores returned when every result has one, else ``k - rank + 1`` (``k`` for the first, one
less for each next), which ranks them in the order returned. A result with no id, a score that
is not a finite number, scores on some results of a query only, and an id returned twice for
one query (trec_eval refuses a run repeating a document) are errors naming the query and the
result's position. A TREC run is ranked by score, ties by doc id descending: where the scores
returned do not put the results in the order returned (a tie, a score that grows), the
evaluated order is the scores', and :func:`retrieve` warns once, naming those queries
(``scores="rank"`` writes ``k - rank + 1`` instead, keeping the order returned).
"""

from __future__ import annotations

import importlib
import inspect
import math
import numbers
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal

import numpy as np

from prfeval._core.checks import choice, function, integer
from prfeval._core.errors import InputFormatError, PrfevalWarning, UsageError
from prfeval._core.ids import id_list, utf8_writable

__all__ = [
    "SCORE_RULES",
    "Retriever",
    "as_retriever",
    "check_tag",
    "load_retriever",
    "ranking_of",
    "retrieve",
    "trec_run_lines",
]

#: Where a result's score comes from: the retriever's, or ``k - rank + 1``.
ScoreRule = Literal["given", "rank"]
SCORE_RULES: tuple[str, ...] = ("given", "rank")

_SPEC = re.compile(r"(?P<module>[\w.]+):(?P<attr>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?P<call>\(\))?")
_SPACE = re.compile(r"\s")

Ranking = list[tuple[str, float]]


@dataclass(frozen=True)
class Retriever:
    """A retriever, ready to be asked one query text at a time.

    Attributes
    ----------
    ask
        ``ask(text, k)``: the retriever's raw results for one query.
    kind
        ``"llamaindex"``, ``"langchain"`` or ``"callable"``: how it is asked.
    name
        How messages name it (the ``module:attr`` it was loaded from).
    tag
        The run tag it suggests: the attribute's name (``baseline`` for
        ``examples.bm25:baseline()``).
    """

    ask: Callable[[str, int], Any]
    kind: str
    name: str
    tag: str


def load_retriever(spec: str) -> Retriever:
    """The retriever named ``module:attr`` (or ``module:factory()``), imported and wrapped.

    The module is imported as Python imports it (from ``sys.path``: the command line puts
    the current folder first). Raises :class:`~prfeval._core.errors.UsageError` for a name not
    of that form, a module that cannot be imported, a missing attribute, a factory that fails
    and an object that is no retriever.
    """
    if not isinstance(spec, str):
        raise UsageError(f"the retriever must be named as module:attr, got {spec!r}")
    match = _SPEC.fullmatch(spec.strip())
    if match is None:
        raise UsageError(
            f"the retriever must be named as module:attr or module:factory() (e.g. "
            f"examples.bm25:baseline()), got {spec!r}"
        )
    module_name, attr, call = match.group("module", "attr", "call")
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise UsageError(f"{spec}: cannot import {module_name!r}: {exc}") from exc
    except Exception as exc:  # the user's module failed as it was imported: say how, in a line
        raise UsageError(
            f"{spec}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    for i, part in enumerate(attr.split(".")):
        if not hasattr(obj, part):
            where = ".".join([module_name, *attr.split(".")[:i]])
            raise UsageError(f"{spec}: {where!r} has no attribute {part!r}")
        obj = getattr(obj, part)
    if call:
        if not callable(obj):
            raise UsageError(f"{spec}: {attr!r} is a {type(obj).__name__}, not a factory to call")
        try:
            obj = obj()
        except Exception as exc:
            raise UsageError(f"{spec}: {attr}() failed: {type(exc).__name__}: {exc}") from exc
    elif inspect.isclass(obj):
        raise UsageError(f"{spec}: {attr!r} is a class: write {module_name}:{attr}() to make one")
    return as_retriever(obj, name=spec.strip(), tag=attr.rsplit(".", 1)[-1])


def _framework(obj: Any) -> str | None:
    """``"llamaindex"`` or ``"langchain"`` when ``obj`` is asked as such a retriever is."""
    if inspect.isclass(obj):
        return None
    if callable(getattr(obj, "retrieve", None)):
        return "llamaindex"
    if callable(getattr(obj, "invoke", None)):
        return "langchain"
    return None


def as_retriever(obj: Any, *, name: str = "retriever", tag: str = "retriever") -> Retriever:
    """``obj`` wrapped as a :class:`Retriever` (a LlamaIndex or LangChain retriever, or a
    callable of one query text); a UsageError for anything else."""
    kind = _framework(obj)
    if kind == "llamaindex":
        return Retriever(lambda text, k: obj.retrieve(text), kind, name, tag)
    if kind == "langchain":
        return Retriever(lambda text, k: obj.invoke(text), kind, name, tag)
    if not callable(obj) or inspect.isclass(obj):
        raise UsageError(
            f"{name}: is a {type(obj).__name__}: expected a function of a query text, a "
            "LangChain retriever (.invoke) or a LlamaIndex retriever (.retrieve)"
        )
    if _takes_k(obj):
        return Retriever(lambda text, k: obj(text, k=k), "callable", name, tag)
    return Retriever(lambda text, k: obj(text), "callable", name, tag)


def _takes_k(f: Callable[..., Any]) -> bool:
    """Whether ``f`` has a parameter named ``k`` (then it is told how many results to give)."""
    try:
        parameters = inspect.signature(f).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False
    k = parameters.get("k")
    return k is not None and k.kind in (k.POSITIONAL_OR_KEYWORD, k.KEYWORD_ONLY)


def ranking_of(
    results: Any,
    query_id: str,
    k: int,
    *,
    scores: ScoreRule = "given",
    name: str = "retriever",
) -> Ranking:
    """The top ``k`` of one query's results as ``[(doc_id, score), ...]``, best first.

    See the module's docstring for what a result may be and where its score comes from.
    Raises :class:`~prfeval._core.errors.InputFormatError` naming ``name``, the query and the
    result's position (1-based) for a result with no id, an id holding whitespace, a score
    that is not a finite number, scores on some results only, or an id returned twice.
    """
    if isinstance(results, str | bytes | Mapping) or not isinstance(results, Iterable):
        raise InputFormatError(
            f"query {query_id!r}: the retriever returned a {type(results).__name__}, "
            "expected a list of results",
            path=name,
        )
    ids: list[str] = []
    given: list[float | None] = []
    first: dict[str, int] = {}
    for position, item in enumerate(islice(results, k), 1):
        doc_id, score = _result(item, query_id, position, name)
        if doc_id in first:
            raise InputFormatError(
                f"query {query_id!r}: doc {doc_id!r} is returned twice (results "
                f"{first[doc_id]} and {position}): a run lists a document once a query",
                path=name,
            )
        first[doc_id] = position
        ids.append(doc_id)
        given.append(score)
    has_score = [s is not None for s in given]
    if scores == "given" and all(has_score):
        return list(zip(ids, given, strict=True))  # type: ignore[arg-type]  # all(has_score): no score is None
    if scores == "given" and any(has_score):
        at = has_score.index(not has_score[0]) + 1
        first_has, other = ("a score", "none") if has_score[0] else ("no score", "one")
        raise InputFormatError(
            f"query {query_id!r}: result 1 has {first_has} and result {at} has {other}: "
            "give every result a score, or none",
            path=name,
        )
    return [(d, float(k - i)) for i, d in enumerate(ids)]


def _result(item: Any, query_id: str, position: int, name: str) -> tuple[str, float | None]:
    """One result's id and score (``None``: no score)."""
    where = f"query {query_id!r}: result {position}"
    raw_id: Any
    raw_score: Any = None
    if isinstance(item, str | numbers.Integral) and not isinstance(item, bool):
        raw_id = item
    elif isinstance(item, Mapping):
        raw_id = item.get("id", item.get("doc_id"))
        raw_score = item.get("score")
    elif isinstance(item, tuple | list) and len(item) == 2:
        raw_id, raw_score = item
    elif hasattr(item, "page_content") and isinstance(getattr(item, "metadata", None), Mapping):
        meta = item.metadata  # a LangChain Document
        raw_id = getattr(item, "id", None) or meta.get("id") or meta.get("doc_id")
        raw_score = meta.get("score")
    elif hasattr(item, "node") and hasattr(item, "score"):
        node = item.node  # a LlamaIndex NodeWithScore
        raw_id = getattr(node, "ref_doc_id", None) or getattr(node, "node_id", None)
        raw_score = item.score
    else:
        raise InputFormatError(
            f"{where} is a {type(item).__name__}: expected an id, an (id, score) pair, a dict "
            "with 'id' or 'doc_id', a LangChain Document or a LlamaIndex NodeWithScore",
            path=name,
        )
    if isinstance(raw_id, numbers.Integral) and not isinstance(raw_id, bool):
        raw_id = str(raw_id)
    if not isinstance(raw_id, str) or not raw_id:
        shown = "" if raw_id is None or raw_id == "" else f" ({raw_id!r} is not a string)"
        raise InputFormatError(
            f"{where} has no id{shown}: a LangChain Document needs doc.id or "
            "metadata['id'] / metadata['doc_id'], a dict 'id' or 'doc_id'",
            path=name,
        )
    if not utf8_writable(raw_id):
        raise InputFormatError(
            f"{where}: doc id {raw_id!r} is not valid Unicode (a lone surrogate)", path=name)
    if _SPACE.search(raw_id):
        raise InputFormatError(
            f"{where}: doc id {raw_id!r} holds whitespace, which a TREC run cannot hold",
            path=name,
        )
    if raw_score is None:
        return raw_id, None
    if isinstance(raw_score, bool) or not isinstance(raw_score, numbers.Real):
        raise InputFormatError(f"{where}: the score {raw_score!r} is not a number", path=name)
    try:
        score = float(raw_score)
    except OverflowError:  # an integer beyond any float
        # (int(): a Real's trunc is an Integral, not necessarily an int)
        bits = int(math.trunc(raw_score)).bit_length()  # noqa: RUF046
        raise InputFormatError(
            f"{where}: the score, an integer of about {bits * 0.30103:.0f}"
            " digits, is too large for a floating-point number", path=name) from None
    if not math.isfinite(score):
        raise InputFormatError(f"{where}: the score {raw_score!r} is not finite", path=name)
    return raw_id, score


def _order_kept(ranking: Ranking) -> bool:
    """Whether ranking by score (as single-precision floats, ties by doc id descending in
    byte order, as trec_eval 9 ranks a run) gives the results in the order listed."""
    if len(ranking) < 2:
        return True
    values = np.array([s for _, s in ranking], dtype=np.float32)
    if np.all(values[1:] < values[:-1]):
        return True
    if np.any(values[1:] > values[:-1]):
        return False
    ties = values[1:] == values[:-1]
    ids = [d.encode("utf-8") for d, _ in ranking]
    return all(ids[i] > ids[i + 1] for i in np.flatnonzero(ties).tolist())


def retrieve(
    retriever: Retriever,
    queries: Sequence[Any],
    *,
    k: int = 100,
    scores: ScoreRule = "given",
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[str, Ranking]]:
    """Ask ``retriever`` each query, in order, and yield ``(query_id, ranking)``.

    ``queries`` holds :class:`~prfeval._io.query_texts.QueryText` (or any objects with
    ``query_id`` and ``text``). ``ranking`` is :func:`ranking_of` the results: at most ``k``
    pairs ``(doc_id, score)``, best first (empty when nothing came back).
    ``progress(done, total)`` is called after each query. An exception raised by the
    retriever becomes a :class:`~prfeval._core.errors.UsageError` naming the query (the
    original is its ``__cause__``). After the last query, one
    :class:`~prfeval._core.errors.PrfevalWarning` names the queries whose scores rank their
    results in another order than the one returned.
    """
    k = integer("k", k, minimum=1)
    scores = choice("scores", scores, SCORE_RULES)
    function("progress", progress)
    reordered: list[str] = []
    total = len(queries)
    for done, query in enumerate(queries, 1):
        try:
            results = retriever.ask(query.text, k)
        except SystemExit as exc:  # sys.exit() in a retriever ends no command, whatever code
            raise UsageError(
                f"{retriever.name} called sys.exit({exc.code!r}) on query {query.query_id!r}: "
                "a retriever returns its results, it does not end the program"
            ) from exc
        except Exception as exc:
            raise UsageError(
                f"{retriever.name} failed on query {query.query_id!r}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        ranking = ranking_of(results, query.query_id, k, scores=scores, name=retriever.name)
        if not _order_kept(ranking):
            reordered.append(query.query_id)
        yield query.query_id, ranking
        if progress is not None:
            progress(done, total)
    if reordered:
        warnings.warn(
            f"{len(reordered)} of {total} queries ({id_list(reordered)}) have scores that rank "
            "their results in another order than the one returned (a tie, or a score that "
            "grows): a run is ranked by score, ties by doc id descending, as trec_eval ranks "
            "it; scores='rank' (--scores rank) writes k - rank + 1 instead, keeping the order "
            "returned",
            PrfevalWarning,
            stacklevel=2,
        )


def check_tag(tag: Any) -> str:
    """A run tag (a TREC run's last field): a non-empty string without whitespace."""
    if not isinstance(tag, str) or not tag or _SPACE.search(tag):
        raise UsageError(
            f"the run tag must be a non-empty word without whitespace (a TREC run's last "
            f"field), got {tag!r}"
        )
    return tag


def trec_run_lines(query_id: str, ranking: Ranking, tag: str) -> str:
    """One query's ranking as TREC run lines, ``qid Q0 doc_id rank score tag``, rank from 1.

    A score is written as the shortest decimal that reads back as the same float (``100``
    for the whole numbers of ``k - rank + 1``).
    """
    return "".join(
        f"{query_id} Q0 {doc} {rank} {_number(score)} {tag}\n"
        for rank, (doc, score) in enumerate(ranking, 1)
    )


def _number(x: float) -> str:
    return str(int(x)) if x.is_integer() and abs(x) < 2**53 else repr(x)
