"""The Cranfield 1400 test collection, shipped with prfeval as package data.

1,400 aeronautics abstracts, 225 queries and graded relevance judgments (Cleverdon, 1960s),
in the standard SMART distribution (``prfeval/data/cranfield``). The demo traces the
precision-recall trade-off on it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from prfeval._core.errors import InputFormatError
from prfeval._demo.datasets.smart import (
    Document,
    Query,
    documents_from_records,
    parse_smart,
    queries_from_records,
)
from prfeval._io.atomic import write_atomic

__all__ = ["Collection", "load_cranfield", "parse_cranfield_qrels", "write_qrels"]

DOCUMENTS_FILE = "cran.all.1400"
QUERIES_FILE = "cran.qry"
QRELS_FILE = "cranqrel"


@dataclass(frozen=True)
class Collection:
    """A test collection: documents, queries and judgments.

    Attributes
    ----------
    name
        Short name of the collection (``"cranfield"``).
    documents
        The documents in file order.
    queries
        The queries in file order.
    qrels
        ``{qid: {doc_id: grade}}``, grades exactly as the judgment file gives them, in file
        order. Which grades count as relevant is the evaluator's decision, not the loader's.
    """

    name: str
    documents: tuple[Document, ...]
    queries: tuple[Query, ...]
    qrels: Mapping[str, Mapping[str, int]]


def _read_text(directory: str | os.PathLike[str] | None, name: str) -> tuple[str, str]:
    """Return a collection file's text and the name to use for it in error messages."""
    if directory is None:
        resource = resources.files("prfeval").joinpath("data").joinpath("cranfield")
        resource = resource.joinpath(name)
        return resource.read_text(encoding="utf-8"), str(resource)
    file = Path(directory) / name
    return file.read_text(encoding="utf-8"), str(file)


def parse_cranfield_qrels(
    text: str,
    *,
    path: str = "<qrels>",
    qids: Iterable[str] | None = None,
    doc_ids: Iterable[str] | None = None,
) -> dict[str, dict[str, int]]:
    """Parse Cranfield's judgment file: one ``query doc_id code`` triple a line.

    Parameters
    ----------
    text
        The file's text.
    path
        Name used in error messages.
    qids, doc_ids
        If given, every judged query and document must be among them.

    Returns
    -------
    dict
        ``{qid: {doc_id: code}}`` in file order. The query number is written as a plain
        integer (``"001"`` would become ``"1"``), matching the query numbering by position.

    Raises
    ------
    InputFormatError
        For a line without exactly three fields, a field that is not an integer, an unknown
        query or document, or a (query, document) pair judged twice.

    Notes
    -----
    Codes are kept as given: 1 (complete answer) to 4 (minimum interest) are degrees of
    relevance, -1 means of no interest. Blank lines are skipped.
    """
    known_qids = None if qids is None else set(qids)
    known_docs = None if doc_ids is None else set(doc_ids)
    qrels: dict[str, dict[str, int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3:
            raise InputFormatError(
                f"expected 3 fields (query doc_id code), got {len(parts)}",
                path=path,
                line_number=number,
                line=line,
            )
        try:
            qid, code = str(int(parts[0])), int(parts[2])
            int(parts[1])
        except ValueError:
            raise InputFormatError(
                "query, doc_id and code must be integers",
                path=path,
                line_number=number,
                line=line,
            ) from None
        doc_id = parts[1]
        if known_qids is not None and qid not in known_qids:
            raise InputFormatError(f"unknown query {qid}", path=path, line_number=number, line=line)
        if known_docs is not None and doc_id not in known_docs:
            raise InputFormatError(
                f"unknown document {doc_id}", path=path, line_number=number, line=line
            )
        judged = qrels.setdefault(qid, {})
        if doc_id in judged:
            raise InputFormatError(
                f"query {qid}, document {doc_id} is judged twice",
                path=path,
                line_number=number,
                line=line,
            )
        judged[doc_id] = code
    return qrels


def load_cranfield(directory: str | os.PathLike[str] | None = None) -> Collection:
    """Load the Cranfield 1400 collection.

    Parameters
    ----------
    directory
        Folder holding ``cran.all.1400``, ``cran.qry`` and ``cranqrel``. By default the copy
        shipped inside prfeval is read (through :mod:`importlib.resources`).

    Returns
    -------
    Collection
        1,400 documents (ids ``"1"`` to ``"1400"``), 225 queries and judgments for all 225
        queries (1,837 lines).

    Raises
    ------
    InputFormatError
        If a file is malformed (with its path and line number).

    Notes
    -----
    The queries' ``.I`` numbers in ``cran.qry`` are not consecutive (001, 002, 004, 008, ...);
    the judgments number queries by their position in that file, so ``Query.qid`` is
    ``"1"`` to ``"225"`` in file order and ``Query.smart_id`` keeps the ``.I`` number.

    Relevance codes are kept as given (1-4 relevant to some degree, -1 of no interest).
    Counting codes 1-4 as relevant, i.e. grade >= 1, query ``"2"`` has 24 relevant
    documents, as in the demo.

    Documents 471 and 995 have empty fields, and documents 240, 576 and 578 repeat a field
    marker; repeated fields are concatenated (see :mod:`prfeval._demo.datasets.smart`).

    Examples
    --------
    >>> cran = load_cranfield()
    >>> len(cran.documents), len(cran.queries), cran.queries[2].qid, cran.queries[2].smart_id
    (1400, 225, '3', '004')
    >>> sum(grade >= 1 for grade in cran.qrels["2"].values())
    24
    """
    text, path = _read_text(directory, DOCUMENTS_FILE)
    documents = documents_from_records(parse_smart(text, path=path))
    text, path = _read_text(directory, QUERIES_FILE)
    queries = queries_from_records(parse_smart(text, path=path), number_by_order=True, path=path)
    text, path = _read_text(directory, QRELS_FILE)
    qrels = parse_cranfield_qrels(
        text,
        path=path,
        qids=(query.qid for query in queries),
        doc_ids=(document.doc_id for document in documents),
    )
    return Collection("cranfield", tuple(documents), tuple(queries), qrels)


def write_qrels(path: str | os.PathLike[str], qrels: Mapping[str, Mapping[str, int]]) -> int:
    """Write judgments as a TREC qrels file: ``qid 0 doc_id grade``, one a line.

    Parameters
    ----------
    path
        File to write (overwritten).
    qrels
        ``{qid: {doc_id: grade}}``; written in the mapping's order.

    Returns
    -------
    int
        The number of lines written.

    Raises
    ------
    ValueError
        If an id is empty or contains whitespace, which would break the columns.

    Notes
    -----
    The second column is TREC's unused iteration field, always ``0``. Grades are written as
    given, negative ones included; trec_eval counts a document as relevant when its grade is
    at least ``-l`` (default 1), so -1 reads as judged non-relevant.
    """
    lines = []
    for qid, judged in qrels.items():
        _check_id(qid)
        for doc_id, grade in judged.items():
            _check_id(doc_id)
            lines.append(f"{qid} 0 {doc_id} {int(grade)}\n")
    write_atomic(path, "".join(lines))  # the one writer: a failure leaves no half file
    return len(lines)


_TOKEN = re.compile(r"\S+")


def _check_id(ident: str) -> None:
    if _TOKEN.fullmatch(ident) is None:
        raise ValueError(f"id {ident!r} is empty or contains whitespace")
