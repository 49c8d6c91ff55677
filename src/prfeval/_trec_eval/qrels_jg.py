"""Judgments in judgment groups: trec_eval's ``qrels_jg`` format, ``qid jg docid grade``.

The second column, where ordinary qrels have an unused iteration, names the judgment group
(an assessor, say) that made the judgment; a query may have several groups, each judging
its own documents. Each line has exactly four fields separated by whitespace (a blank line
is malformed); the grade is read as C's ``atol`` reads it. A document judged twice in one
group of a query is refused, as trec_eval 9.0.8 refuses it (naming the first such document
with the lines sorted by query, group and document, in byte order).

trec_eval compares ids as bytes. They are decoded as UTF-8, or, when the judgments or the
run are not UTF-8, as Latin-1, whose characters are the bytes one for one (in the same
order), as the rest of trec_eval's dialect reads them (``TrecEvalInputs.codec``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from prfeval._core.errors import InputFormatError
from prfeval._core.tables import Qrels, SourceLines
from prfeval._trec_eval.c_numbers import atol

__all__ = ["JudgmentGroups", "QrelsJgUnreadable", "judgment_groups_from_dict", "read_qrels_jg"]


#: trec_eval 10.0's comment in qrels: a line starting with '#' (the line after it is data).
_COMMENT = re.compile(rb"(?m)^#[^\n]*(?:\n|\Z)([^\n]*(?:\n|\Z))?")


class QrelsJgUnreadable(InputFormatError):
    """A qrels_jg file that cannot be read: ``message`` is what trec_eval 9.0.8 writes on
    stderr for it (its ``Quit in file`` line included)."""

    def __init__(
        self, reason: str, path: str, message: str, line_number: int | None = None
    ) -> None:
        super().__init__(reason, path=path, line_number=line_number)
        self.message = message


@dataclass(frozen=True)
class JudgmentGroups:
    """Judgments with their judgment group, sorted by (query, group, document) in byte
    order.

    Attributes
    ----------
    qrels
        The judgments (query, document, grade), as any qrels.
    groups
        Each judgment's group id, aligned with ``qrels``' rows.
    """

    qrels: Qrels
    groups: tuple[str, ...]
    codec: str = "utf-8"

    def pairs(self) -> tuple[list[tuple[str, str]], npt.NDArray[np.int64]]:
        """The distinct (query, group) pairs in byte order, and each judgment's pair index."""
        qids = self.qrels.query_ids.to_pylist()
        keys = list(zip(qids, self.groups, strict=True))
        distinct = sorted(set(keys), key=lambda k: (_bytes(k[0]), _bytes(k[1])))
        index = {k: i for i, k in enumerate(distinct)}
        return distinct, np.array([index[k] for k in keys], dtype=np.int64)


def read_qrels_jg(path: str, *, version: int = 9, codec: str | None = None) -> JudgmentGroups:
    """The qrels_jg file at ``path``, read as trec_eval 9.0.8 reads it (``version`` 10:
    as 10.0 does, which skips a line starting with ``#``, and reads the line after one as
    data whatever it holds). Ids are decoded with ``codec``; ``None``: UTF-8, or Latin-1
    when the file is not UTF-8 (see the module's notes).

    Raises
    ------
    QrelsJgUnreadable
        For a file missing, unreadable or empty, a line without exactly four fields, or a
        document judged twice in one group of a query.
    """
    quit_line = f"trec_eval: Quit in file '{path}'\n"
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise QrelsJgUnreadable(
            f"cannot read: {exc.strerror}",
            path,
            f"trec_eval.get_qrels_jg: Cannot read qrels file '{path}'\n{quit_line}",
        ) from None
    if not data:
        raise QrelsJgUnreadable(
            "empty file",
            path,
            f"trec_eval.get_qrels_jg: Cannot read qrels file '{path}'\n{quit_line}",
        )
    if version >= 10 and b"#" in data:
        data = _COMMENT.sub(lambda found: found.group(1) or b"", data)
    if not data.endswith(b"\n"):
        data += b"\n"
    if codec is None:
        codec = "utf-8" if _utf8(data) else "latin-1"
    rows: list[tuple[bytes, bytes, bytes, int]] = []
    for number, line in enumerate(data[:-1].split(b"\n"), start=1):
        fields = _fields(line)
        if len(fields) != 4:
            raise QrelsJgUnreadable(
                f"expected 4 fields (query, judgment group, document, grade), got {len(fields)}",
                path,
                f"trec_eval.get_qrels_jg: Malformed line {number}\n{quit_line}",
                line_number=number,
            )
        rows.append((fields[0], fields[1], fields[2], atol(fields[3])))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    for before, row in pairwise(rows):
        if before[:3] == row[:3]:
            doc = _text(row[2], codec)
            raise QrelsJgUnreadable(
                f"document {doc} judged twice for query {_text(row[0], codec)} in group "
                f"{_text(row[1], codec)}",
                path,
                f"trec_eval.get_qrels: duplicate docs {doc}\n{quit_line}",
            )
    qrels = Qrels(
        query_ids=pa.array([_text(r[0], codec) for r in rows], pa.string()),
        doc_ids=pa.array([_text(r[2], codec) for r in rows], pa.string()),
        grades=np.array([r[3] for r in rows], dtype=np.int64),
        source=SourceLines(path),
    )
    return JudgmentGroups(qrels, tuple(_text(r[1], codec) for r in rows), codec)


def judgment_groups_from_dict(judgments: dict[str, dict[str, dict[str, int]]]) -> JudgmentGroups:
    """Judgment groups from ``{qid: {jg: {docid: grade}}}``."""
    rows = sorted(
        (
            (str(q), str(g), str(d), int(grade))
            for q, groups in judgments.items()
            for g, docs in groups.items()
            for d, grade in docs.items()
        ),
        key=lambda r: (_bytes(r[0]), _bytes(r[1]), _bytes(r[2])),
    )
    qrels = Qrels(
        query_ids=pa.array([r[0] for r in rows], pa.string()),
        doc_ids=pa.array([r[2] for r in rows], pa.string()),
        grades=np.array([r[3] for r in rows], dtype=np.int64),
        source=SourceLines("qrels_jg dict"),
    )
    return JudgmentGroups(qrels, tuple(r[1] for r in rows))


def _fields(line: bytes) -> list[bytes]:
    """The fields of a line split at C's isspace (bytes.split also splits at \\x1c-\\x1f)."""
    for space in b"\t\v\f\r":
        line = line.replace(bytes([space]), b" ")
    return [f for f in line.split(b" ") if f]


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _text(raw: bytes, codec: str) -> str:
    return raw.decode(codec)


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")
