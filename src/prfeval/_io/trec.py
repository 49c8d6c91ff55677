"""TREC qrels (``qid iter docid grade``) and runs (``qid Q0 docid rank score tag``).

Fields may be separated by any run of spaces or tabs; lines starting with ``#`` and blank lines
are skipped (their line numbers still count in messages); ``.gz`` is read transparently. A
run line may carry text after its sixth field, as trec_eval allows: it is ignored. The run's
id (trec_eval's ``runid``) is the sixth field of its last line, read only when asked.

Clean files (single spaces, no comments) go straight to Arrow's multithreaded CSV reader.
Anything else is first normalised with byte-level regular expressions, still without a Python
loop per line. Only when Arrow rejects the input does a line-by-line scan run, to name the first
bad line exactly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from prfeval._core.arrow import arrow_strings, numpy_of, read_growing
from prfeval._core.errors import InputFormatError, PrfevalWarning
from prfeval._core.tables import GRADE_MAX, GRADE_MIN, Qrels, Run, SourceLines
from prfeval._io.fields import field_counts
from prfeval._io.source import Input, Source, arrow_buffer, open_input

__all__ = [
    "BLOCK_BYTES",
    "first_wrong_fields",
    "last_run_id",
    "parse_qrels",
    "parse_run",
    "read_qrels",
    "read_ranked_run",
    "read_run",
    "read_text_columns",
    "run_id_of",
    "scan_run_text",
]

# Only the separators that are not already one space: on a single-spaced file this finds
# nothing to replace, where matching every space took seconds on two million lines.
_SPACE_RUNS = re.compile(rb"[ \t\r\f\v]{2,}|[\t\r\f\v]")
#: A normalised run line with more than six fields, and its first six.
_EXTRA_FIELDS = re.compile(rb"(?m)^((?:[^ \n]+ ){5}[^ \n]+) [^\n]*$")
#: How much of a run's end is read to find its last line.
_TAIL_BYTES = 1 << 16
_EDGE_SPACE = re.compile(rb"(?m)^ | $")
_DROPPED_LINES = re.compile(rb"(?m)^(?:#[^\n]*)?\n")


@dataclass(frozen=True)
class _Field:
    """One whitespace-separated field: its position, name and how to check it."""

    index: int
    name: str
    kind: str  # "str", "float" or "int"


_QRELS_FIELDS = (
    _Field(0, "query id", "str"),
    _Field(2, "doc id", "str"),
    _Field(3, "grade", "int"),
)
_RUN_FIELDS = (
    _Field(0, "query id", "str"),
    _Field(2, "doc id", "str"),
    _Field(4, "score", "float"),
)
_RANK_FIELD = _Field(3, "rank", "float")


def _say(path: str, notes: list[str]) -> None:
    """Notes on how the text was read: lines it skipped, line ends it took, with counts
    (a :class:`PrfevalWarning` each: on stderr from the CLI)."""
    import warnings

    for note in notes:
        warnings.warn(f"{path}: {note}", PrfevalWarning, stacklevel=5)


def _normalise(data: bytes) -> tuple[bytes, np.ndarray, int]:
    """Single-space fields, no comment or blank lines; the original number of each line, and
    how many comment lines were skipped."""
    data = _EDGE_SPACE.sub(b"", _SPACE_RUNS.sub(b" ", data))
    if not data.endswith(b"\n"):
        data += b"\n"
    raw = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(raw == 10)
    starts = np.concatenate(([0], newlines[:-1] + 1))
    blank = newlines == starts
    comment = raw[np.minimum(starts, raw.size - 1)] == ord("#")
    kept = ~(blank | comment)
    skipped = int(np.count_nonzero(comment & ~blank))
    line_numbers = np.flatnonzero(kept).astype(np.int64) + 1
    return _DROPPED_LINES.sub(b"", data), line_numbers, skipped


def _scan_for_error(
    data: bytes, path: str, n_fields: int, fields: tuple[_Field, ...], first_line: int = 1
) -> None:
    """Find and raise the first malformed line (run only after Arrow refused the text).

    A run line (six fields) may have more; a qrels line has exactly four. Everything is found
    with whole-text passes, at reading speed, never a Python loop over lines: bytes that are
    not UTF-8 by one decode, a wrong number of fields by :mod:`prfeval._io.fields`, and a
    number Arrow cannot read by halving the rows Arrow is asked to convert."""
    try:
        data.decode("utf-8")
        not_utf8 = None
    except UnicodeDecodeError as exc:
        not_utf8 = data.count(b"\n", 0, exc.start)
    wrong = first_wrong_fields(data, path, n_fields, first_line=first_line)
    wrong_line = wrong.line_number if wrong is not None and wrong.line_number else None
    if not_utf8 is not None and (wrong_line is None or not_utf8 < wrong_line - first_line):
        raise InputFormatError(
            "not valid UTF-8 text",
            path=path,
            line_number=not_utf8 + first_line,
            line=_line_text(data, not_utf8),
        )
    if wrong is not None:
        raise wrong
    _scan_numbers(data, path, n_fields, fields, first_line)


def scan_run_text(data: bytes, path: str, *, ranks: bool, first_line: int = 1) -> None:
    """Raise the error about the first malformed line of run text ``data`` (whose first
    line is line ``first_line`` of ``path``), if it has one; see :func:`_scan_for_error`."""
    _scan_for_error(data, path, 6, _run_fields(ranks), first_line)


def first_wrong_fields(
    data: Any, path: str, n_fields: int, *, first_line: int = 1
) -> InputFormatError | None:
    """The error about the first line of ``data`` (text or a mapped file, whose first line
    is line ``first_line`` of ``path``) that is not blank or a comment and has the wrong
    number of fields (at least six in a run, exactly four in qrels), or ``None``.
    Whole-text passes (:mod:`prfeval._io.fields`): no loop over lines."""
    counts = field_counts(data)
    comment = _comment_lines(data, counts.size)
    wrong = (counts < n_fields) if n_fields == 6 else (counts != n_fields)
    wrong &= (counts > 0) & ~comment
    if not wrong.any():
        return None
    line = int(np.argmax(wrong))
    n = int(counts[line])
    return InputFormatError(
        f"expected {'at least ' if n_fields == 6 else ''}{n_fields} fields, got {n}",
        path=path,
        line_number=first_line + line,
        line=_line_text(data, line),
    )


def _scan_numbers(
    data: bytes, path: str, n_fields: int, fields: tuple[_Field, ...], first_line: int
) -> None:
    """Raise at the first number Arrow cannot convert (every line has its fields)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    as_text = tuple(_Field(f.index, f.name, "str") for f in fields)
    try:  # a plain layout needs no normalising pass (regular expressions over the text)
        if b"\n\n" in data or data.startswith(b"\n"):
            raise pa.ArrowInvalid("blank lines: Arrow would read each as a row")
        table = _arrow_read(data, n_fields, as_text, len(data))
        line_numbers = np.arange(1, table.num_rows + 1, dtype=np.int64)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        clean, line_numbers, _ = _normalise(data)
        if n_fields == 6:
            clean = _EXTRA_FIELDS.sub(rb"\1", clean)
        table = _arrow_read(clean, n_fields, as_text, len(clean))
    types = {"float": pa.float64(), "int": pa.int64()}
    for f in fields:
        if f.kind == "str":
            continue
        column = table.column(f"f{f.index}").combine_chunks()

        def converts(n: int, column: Any = column, to: Any = types[f.kind]) -> bool:
            try:
                pc.cast(column.slice(0, n), to)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                return False
            return True

        if converts(len(column)):
            continue
        # The shortest prefix that fails ends at the first bad row: about two conversions
        # of the column in all.
        low, high = 0, len(column)
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (mid, high) if converts(mid) else (low, mid)
        token = column[low].as_py()
        number = int(line_numbers[low]) + first_line - 1
        text = _line_text(data, number - first_line)
        _check_number(token, f, path, number, text)  # out of range, not finite: its words
        what = "an integer" if f.kind == "int" else "a number"
        raise InputFormatError(
            f"{f.name} is not {what}: {token!r}", path=path, line_number=number, line=text
        )


def _line_text(data: bytes, line: int) -> str:
    """0-based line ``line`` of ``data``, as text for a message."""
    start = _line_start(data, line)
    end = data.find(b"\n", start)
    text = data[start : end if end >= 0 else len(data)]
    return text.decode("utf-8", errors="replace").rstrip("\r")


def _comment_lines(data: bytes, n_lines: int) -> np.ndarray:
    """Which of the ``n_lines`` lines of ``data`` start with ``#`` (after spaces)."""
    comment = np.zeros(n_lines, dtype=bool)
    if b"#" in data:
        starts = [m.start() for m in re.finditer(rb"(?m)^[ \t\f\v]*#", data)]
        comment[np.searchsorted(_newlines(data), np.array(starts, dtype=np.int64))] = True
    return comment


def _newlines(data: bytes) -> np.ndarray:
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)


def _line_start(data: bytes, line: int) -> int:
    """The byte offset where 0-based line ``line`` of ``data`` starts."""
    return 0 if line == 0 else int(_newlines(data)[line - 1]) + 1


def _check_number(token: str, f: _Field, path: str, number: int, text: str) -> None:
    if f.kind == "str":
        return
    try:
        value = int(token) if f.kind == "int" else float(token)
    except ValueError:
        what = "an integer" if f.kind == "int" else "a number"
        raise InputFormatError(
            f"{f.name} is not {what}: {token!r}", path=path, line_number=number, line=text
        ) from None
    if f.kind == "int" and not GRADE_MIN <= value <= GRADE_MAX:
        raise InputFormatError(
            f"{f.name} is out of range: {token!r}", path=path, line_number=number, line=text
        )
    if f.kind == "float" and not np.isfinite(value):
        raise InputFormatError(
            f"{f.name} is not finite: {token!r}", path=path, line_number=number, line=text
        )


#: Arrow's block size for TREC text. 4 MiB blocks: as fast as 16 MiB on 2 cores, and the peak
#: memory of reading 4M judgments falls from 287 to 215 MiB (fewer bytes in flight).
BLOCK_BYTES = 1 << 22


def _arrow_read(
    source: bytes | Callable[[], Any], n_fields: int, fields: tuple[_Field, ...], size: int
) -> Any:
    """Arrow's multithreaded CSV reader on single-space fields.

    ``source`` is the bytes, or a function opening the file from its start; ``size`` is how
    many bytes it holds. Blank lines are not skipped but rejected, so that row ``i`` is
    always line ``i + 1`` of what was read. A line longer than a block (a 10 MB doc id) is
    read by growing the block (:func:`~prfeval._core.arrow.read_growing`). Bytes are handed
    to Arrow in its own memory (:func:`~prfeval._io.source.arrow_buffer`), once.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    types = {"str": pa.string(), "float": pa.float64(), "int": pa.int64()}
    opened: Callable[[], Any]
    if isinstance(source, bytes):
        text = arrow_buffer(source)
        opened = lambda: pa.BufferReader(text)  # noqa: E731  (a reader per attempt)
    else:
        opened = source

    def read(block: int) -> Any:
        return pacsv.read_csv(
            opened(),
            read_options=pacsv.ReadOptions(
                column_names=[f"f{i}" for i in range(n_fields)], block_size=block
            ),
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, double_quote=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={f"f{f.index}": types[f.kind] for f in fields},
                include_columns=[f"f{f.index}" for f in fields],
                null_values=[],
                strings_can_be_null=False,
            ),
        )

    return read_growing(read, BLOCK_BYTES, size)


def _empty_id(table: Any, fields: tuple[_Field, ...]) -> tuple[str, int] | None:
    """The first id field that is empty, and its row: single-space fields read a line that
    starts with a space (or a field left out beside two spaces) as an empty id."""
    import pyarrow.compute as pc

    for f in fields:
        if f.kind != "str":
            continue
        lengths = pc.binary_length(table.column(f"f{f.index}"))
        if len(lengths) and pc.min(lengths).as_py() == 0:
            return f.name, int(pc.index(lengths, 0).as_py())
    return None


def _columns(
    table: Any, fields: tuple[_Field, ...], path: str, source: SourceLines
) -> dict[str, object]:
    """The requested columns: ids as Arrow arrays, numbers as numpy (scores checked finite,
    ids not empty)."""
    empty = _empty_id(table, fields)
    if empty is not None:
        # Left once whitespace is normalised: a byte-order mark (Arrow skips it) before a
        # space at the start of the file.
        raise source.error(empty[1], f"{empty[0]} is empty")
    columns: dict[str, object] = {}
    for f in fields:
        column = table.column(f"f{f.index}")
        if f.kind == "str":
            columns[f.name] = column  # chunked: the encoder reads the chunks as they are
            continue
        values = (
            np.concatenate([numpy_of(c) for c in column.chunks])
            if column.num_chunks
            else np.zeros(0)
        )
        if f.kind == "float":
            bad = ~np.isfinite(values)
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                raise InputFormatError(
                    f"{f.name} is not finite: {float(values[row])!r}",
                    path=path,
                    line_number=source.line_of(row),
                )
        elif values.size and values.min() < GRADE_MIN:  # int64's lowest marks "unjudged"
            row = int(np.argmin(values))
            raise source.error(row, f"{f.name} is out of range: {int(values[row])}")
        columns[f.name] = values
    return columns


def _parse_file(
    handle: Input, n_fields: int, fields: tuple[_Field, ...]
) -> tuple[dict[str, object], SourceLines] | None:
    """Read a clean regular file through Arrow, as it lies on disk (no copy of its text in
    Python), or ``None`` when it is not clean (comments, tabs, repeated spaces, blank lines,
    not UTF-8...): the caller then reads it the careful way, from the same open file."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if handle.holds_carriage_return():
        return None  # counted and said by the careful way (see _parse)
    try:
        table = _arrow_read(handle.arrow_file, n_fields, fields, handle.size)
    except (pa.ArrowException, OSError, ValueError):
        return None
    if table.num_rows == 0 or pc.any(pc.starts_with(table.column("f0"), "#")).as_py():
        return None
    if _empty_id(table, fields) is not None:
        return None  # a line starting with a space: the careful way counts its fields
    source = SourceLines(handle.name)
    return _columns(table, fields, handle.name, source), source


def _parse(
    data: bytes, path: str, n_fields: int, fields: tuple[_Field, ...]
) -> tuple[dict[str, object], SourceLines]:
    """Parse whitespace-separated ``data`` into the requested columns with Arrow."""
    import pyarrow as pa

    notes = []
    if b"\r" in data:
        # CRLF is one line end and a lone CR is one too (old Mac files), said with a count:
        # trec_eval reads a lone CR as a space between fields (``prfeval trec_eval`` does).
        data = data.replace(b"\r\n", b"\n")
        lone = data.count(b"\r")
        if lone:
            data = data.replace(b"\r", b"\n")
            notes.append(f"read {_count(lone, 'lone carriage return')} (CR) as line ends")
    # Fast path: a clean text (single spaces, no tabs, CRs, comments or blank lines; blank
    # lines and extra spaces make Arrow fail, which sends us to the normalising path). The
    # single-byte tests are memchr scans, far cheaper than a regex pass.
    table = None
    source = SourceLines(path)
    plain = not data.isspace() and not (b"\t" in data or b"\r" in data or b"#" in data)
    if plain:
        try:
            table = _arrow_read(data, n_fields, fields, len(data))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            table = None
        if table is not None and _empty_id(table, fields) is not None:
            table = None  # a line starting with a space: its fields are counted below
    if table is None and plain:
        # Arrow refused a plain layout: a line with too few fields is found at reading
        # speed here, before the normalising pass (regular expressions over the whole text).
        wrong = first_wrong_fields(data, path, n_fields)
        if wrong is not None:
            raise wrong
    if table is None:
        clean, line_numbers, comments = _normalise(data)
        if comments:
            notes.append(f"skipped {_count(comments, 'comment line')} starting with '#'")
        if n_fields == 6:  # a run: text after the sixth field is ignored, as trec_eval does
            clean = _EXTRA_FIELDS.sub(rb"\1", clean)
        source = SourceLines(path, line_numbers)
        if not clean or clean.isspace():
            _say(path, notes)
            return {
                f.name: arrow_strings([]) if f.kind == "str" else np.array([], np.float64)
                for f in fields
            }, source
        try:
            table = _arrow_read(clean, n_fields, fields, len(clean))
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            _scan_for_error(data, path, n_fields, fields)
            raise InputFormatError(f"cannot parse ({exc})", path=path) from None
    columns = _columns(table, fields, path, source)
    _say(path, notes)  # only once the text is read: an error is what matters then
    return columns, source


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}{'s' if n != 1 else ''}"


def read_text_columns(data: bytes, n_fields: int, kinds: dict[int, str], *, blank: bool) -> Any:
    """Arrow's reading of the fields ``kinds`` names (index -> ``"str"``, ``"float"`` or
    ``"int"``) from whitespace-separated text with ``n_fields`` fields a line (a run's sixth
    and later are read as one), or ``None`` where Arrow refuses it. ``blank`` says whether
    blank lines may be skipped; where they may not, text holding one gives ``None``. Lines
    starting with ``#`` must not occur (they would be skipped as comments).
    """
    import pyarrow as pa

    fields = tuple(_Field(i, f"f{i}", kind) for i, kind in sorted(kinds.items()))
    try:
        return _arrow_read(data, n_fields, fields, len(data))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    clean, line_numbers, _ = _normalise(data)
    if not blank and line_numbers.size != data.count(b"\n") + (not data.endswith(b"\n")):
        return None
    if n_fields == 6:
        clean = _EXTRA_FIELDS.sub(rb"\1", clean)
    try:
        return _arrow_read(clean, n_fields, fields, len(clean))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _qrels(columns: dict[str, object], source: SourceLines) -> Qrels:
    grades = np.asarray(columns["grade"], dtype=np.int64)
    return Qrels(columns["query id"], columns["doc id"], grades, source)


def _run(columns: dict[str, object], source: SourceLines, name: str, run_id: Any) -> Run:
    ranks = columns.get("rank")
    return Run(
        columns["query id"],
        columns["doc id"],
        np.asarray(columns["score"], dtype=np.float64),
        None if ranks is None else np.asarray(ranks, dtype=np.float64),
        source=source,
        default_order="score",
        name=name,
        extra={"run_id": run_id},
    )


def last_run_id(data: bytes) -> str | None:
    """The sixth field of the last line of run text that is not blank or a comment."""
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end - 1) + 1 if end > 1 else 0
        line = data[start:end].strip()
        if line and not line.startswith(b"#"):
            fields = line.split()
            return fields[5].decode("utf-8", errors="replace") if len(fields) >= 6 else None
        if start == 0:
            return None
        end = start
    return None


def run_id_of(path: str) -> Callable[[], str]:
    """A function giving the run id of the run file ``path`` (its name if none), reading
    only the end of the file, and only when first called (a gzipped file is read through)."""

    @cache
    def read() -> str:
        try:
            with open(path, "rb") as f:
                gzipped = f.read(2) == b"\x1f\x8b"
                if gzipped:
                    tail = _gzip_tail(path)
                else:
                    size = f.seek(0, 2)
                    span = _TAIL_BYTES
                    while True:
                        f.seek(max(size - span, 0))
                        tail = f.read()
                        # The last line is whole once a newline precedes its text.
                        if size <= span or b"\n" in tail.rstrip():
                            break
                        span *= 4
        except OSError:
            return path
        found = last_run_id(tail)
        return path if found is None else found

    return read


def _gzip_tail(path: str) -> bytes:
    """The last bytes of a gzipped file's text (read through: gzip cannot seek back)."""
    import gzip

    tail = b""
    with gzip.open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            tail = (tail + chunk)[-_TAIL_BYTES * 4 :]
    return tail


def _run_fields(ranks: bool) -> tuple[_Field, ...]:
    return (*_RUN_FIELDS, _RANK_FIELD) if ranks else _RUN_FIELDS


def parse_qrels(data: bytes, path: str = "<qrels>") -> Qrels:
    """Parse TREC qrels text: ``qid iter docid grade`` (the iter field is ignored)."""
    return _qrels(*_parse(data, path, 4, _QRELS_FIELDS))


def parse_run(
    data: bytes, path: str = "<run>", *, name: str | None = None, ranks: bool = True
) -> Run:
    """Parse a TREC run: ``qid Q0 docid rank score tag``.

    Q0 and the tag are ignored; the rank column is read when ``ranks`` (for
    ``order="rank"``), else skipped, as trec_eval ignores it.
    """
    columns, source = _parse(data, path, 6, _run_fields(ranks))
    return _run(columns, source, name or path, last_run_id(data) or (name or path))


def _read(
    source: Source | Input, n_fields: int, fields: tuple[_Field, ...]
) -> tuple[dict[str, object], SourceLines, bytes | None]:
    """Open ``source`` once; Arrow reads a regular file directly, anything else (a pipe,
    stdin, bytes) and any file that is not clean is read whole, then parsed. Also gives
    the text read whole (``None`` when Arrow read the file)."""
    if isinstance(source, Input):
        if source.regular:
            fast = _parse_file(source, n_fields, fields)
            if fast is not None:
                return (*fast, None)
        data = source.read()
        return (*_parse(data, source.name, n_fields, fields), data)
    with open_input(source) as handle:
        return _read(handle, n_fields, fields)


def read_qrels(source: Source | Input) -> Qrels:
    """Read a TREC qrels file (path, ``-`` for stdin, bytes, a binary stream or an opened
    :class:`~prfeval._io.source.Input`)."""
    columns, source_lines, _ = _read(source, 4, _QRELS_FIELDS)
    return _qrels(columns, source_lines)


def read_run(source: Source | Input, *, ranks: bool = False) -> Run:
    """Read a TREC run file (path, ``-`` for stdin, bytes, a binary stream or an opened
    :class:`~prfeval._io.source.Input`).

    The rank column is read only with ``ranks=True`` (needed for ``order="rank"``).
    """
    columns, source_lines, data = _read(source, 6, _run_fields(ranks))
    if data is None:  # a regular file Arrow read: its run id is read from its end if asked
        run_id: Any = run_id_of(source_lines.path)
    else:
        run_id = last_run_id(data) or source_lines.path
    return _run(columns, source_lines, source_lines.path, run_id)


#: MS MARCO's run: ``qid docid rank`` (tab-separated, no header), the rank ordering it.
_RANKED_RUN_FIELDS = (
    _Field(0, "query id", "str"),
    _Field(1, "doc id", "str"),
    _Field(2, "rank", "float"),
)


def read_ranked_run(source: Source | Input) -> Run:
    """Read MS MARCO's three-column run, ``qid docid rank`` (fields separated by tabs or
    spaces, no header): ranked by its rank column, rank 1 first (``default_order="rank"``);
    ties keep the file's order. Errors name the file, the line and the field, as for TREC.
    """
    columns, source_lines, _ = _read(source, 3, _RANKED_RUN_FIELDS)
    return Run(
        columns["query id"],
        columns["doc id"],
        None,
        np.asarray(columns["rank"], dtype=np.float64),
        source=source_lines,
        default_order="rank",
        name=source_lines.path,
    )
