"""Getting the bytes of an input, opening it once: a path, ``-`` for stdin, bytes or a stream.

:func:`open_input` opens an input once and says what it is. A regular file may be read by
Arrow through the open file (the fast path; Arrow's own threads read it); anything else (a
pipe, a FIFO, a terminal, standard input, a stream, bytes) is read once, whole, by one
reader, and those bytes serve every later pass. Opening a FIFO twice would wait forever for a
second writer.

gzip is recognised by its magic bytes, wherever the data comes from. :func:`sniff_format`
tells a table (CSV, TSV, JSON Lines, Parquet) from TREC text by its first line, for inputs
whose name does not say.

Arrow is only ever given what it owns: a file of its own on the descriptor opened here
(:meth:`Input.arrow_file`), or bytes copied into its memory (:func:`arrow_buffer`), never a
Python file (``pa.PythonFile``) or Python bytes (``pa.py_buffer``). Arrow's reading threads
outlive the call that reads: the last of them to let go of the source destroys it, and a
Python object's destructor takes the GIL. When that happens as the interpreter ends (an
error exits at once), Python stops the thread in the middle of C++ code and the process
aborts, ``terminate called without an active exception``, exit 134 after the right message.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from prfeval._core.errors import InputFormatError, UsageError
from prfeval._core.options import INPUT_FORMATS

__all__ = [
    "FORMATS",
    "TABULAR_SUFFIXES",
    "Input",
    "arrow_buffer",
    "check_one_stdin",
    "check_text_file",
    "display_name",
    "file_format",
    "headerless_kind",
    "input_format",
    "is_header",
    "open_input",
    "read_bytes",
    "sniff_format",
    "starts_with_data",
    "tabular_kind",
    "utf8_text",
]

Source = str | Path | bytes | IO[bytes]

#: The formats an input can be read as (``None`` in the API, ``auto`` in the CLI: by name or
#: by content).
FORMATS: tuple[str, ...] = INPUT_FORMATS

_GZIP_MAGIC = b"\x1f\x8b"

#: File name suffixes of the table formats (``.gz`` after them is read transparently).
TABULAR_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def tabular_kind(path: str) -> str | None:
    """``csv``, ``tsv``, ``jsonl`` or ``parquet`` from the file name (ignoring ``.gz``)."""
    name = path[:-3] if path.endswith(".gz") else path
    return TABULAR_SUFFIXES.get(Path(name).suffix.lower())


def display_name(source: Source) -> str:
    """How an input is named in messages: its path, ``<stdin>`` or ``<bytes>``."""
    if isinstance(source, bytes):
        return "<bytes>"
    if isinstance(source, str | Path):
        return "<stdin>" if str(source) == "-" else str(source)
    return str(getattr(source, "name", "<stream>"))


def check_one_stdin(sources: Iterable[Any]) -> None:
    """``-`` (standard input) may stand for one input only: it can be read once.

    Raises
    ------
    UsageError
        When two or more of ``sources`` are ``-``.
    """
    if sum(1 for s in sources if isinstance(s, str | Path) and str(s) == "-") > 1:
        raise UsageError(
            "'-' (standard input) is given for two inputs: it can stand for one only; "
            "give the others as files"
        )


def _os_error(exc: OSError, name: str) -> InputFormatError:
    if isinstance(exc, FileNotFoundError):
        return InputFormatError("no such file", path=name)
    if isinstance(exc, IsADirectoryError):
        return InputFormatError("is a directory, expected a file", path=name)
    if isinstance(exc, PermissionError):
        return InputFormatError("permission denied", path=name)
    return InputFormatError(f"cannot read: {exc.strerror or exc}", path=name)


def _gunzipped(data: bytes, name: str) -> bytes:
    if data[:2] == _GZIP_MAGIC:
        import gzip  # only for gzip data

        try:
            return gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputFormatError(f"corrupt gzip data ({exc})", path=name) from None
    return data


def arrow_buffer(data: bytes) -> Any:
    """``data`` copied into memory Arrow owns, to hand to Arrow's readers.

    Not ``pa.py_buffer(data)``, which Arrow's reading threads may be the last to release, and
    releasing it takes the GIL: at the interpreter's end that aborts the process (see the
    module's notes). The copy costs a memcpy, a fraction of the parse.
    """
    import pyarrow as pa

    buffer = pa.allocate_buffer(len(data))
    pa.FixedSizeBufferWriter(buffer).write(data)
    return buffer


def _text(data: bytes, name: str) -> bytes:
    """``data``, refused if it is binary (NUL bytes)."""
    if b"\x00" in data:
        raise InputFormatError("binary data (NUL bytes); expected a text file", path=name)
    return data


def check_text_file(fd: int, name: str) -> None:
    """Refuse a regular file holding a NUL byte, as :meth:`Input.read` refuses such bytes
    from a pipe: text files hold none. The file is mapped, not read, and searched at
    ``memchr``'s speed (a few GB a second), so a large run pays little for it."""
    import mmap

    if os.fstat(fd).st_size == 0:
        return
    with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as mapped:
        if mapped.find(b"\x00") >= 0:
            raise InputFormatError("binary data (NUL bytes); expected a text file", path=name)


class Input:
    """An input, opened once.

    Attributes
    ----------
    name
        How messages name it (:func:`display_name`).
    regular
        Whether it is a regular file: only then may Arrow read it through
        :meth:`arrow_file` (which can be read again from the start); everything else is
        read once, by :meth:`read`.
    suffix_kind
        The table format its file name says (``.csv``, ``.tsv.gz``, ...), or ``None``.
    """

    def __init__(self, source: Source) -> None:
        self.name = display_name(source)
        self.regular = False
        self.suffix_kind: str | None = None
        self._file: Any = None
        self._data: bytes | None = None
        self._content: bytes | None = None
        self._stream: Any = None
        self._copies: list[Any] = []
        if isinstance(source, bytes):
            self._data = source
        elif isinstance(source, str | Path) and str(source) == "-":
            if sys.stdin is None:  # started with stdin closed (<&-)
                raise InputFormatError("standard input is closed", path=self.name)
            self._stream = sys.stdin.buffer
        elif isinstance(source, str | Path):
            self.suffix_kind = tabular_kind(str(source))
            try:
                self._file = open(source, "rb", buffering=0)  # noqa: SIM115 (closed in close())
                info = os.fstat(self._file.fileno())
            except OSError as exc:
                self.close()
                raise _os_error(exc, self.name) from None
            if stat.S_ISDIR(info.st_mode):
                self.close()
                raise InputFormatError("is a directory, expected a file", path=self.name)
            self.regular = stat.S_ISREG(info.st_mode)
        else:
            self._stream = source

    def close(self) -> None:
        """Close the file (bytes already read stay readable)."""
        for copy in self._copies:
            copy.close()
        self._copies.clear()
        if self._file is not None:
            self._file.close()
            self._file = None

    @property
    def size(self) -> int:
        """Bytes stored: a regular file's size (compressed, if gzipped), else the content's."""
        if self.regular:
            return os.fstat(self._file.fileno()).st_size
        return len(self.read(text=False))

    def holds_carriage_return(self) -> bool:
        """Whether a regular file (not gzipped) holds a CR byte: mapped and searched at
        ``memchr``'s speed. Arrow would read a lone CR as a line end without saying so."""
        import mmap

        if not self.regular or self.gzipped or os.fstat(self._file.fileno()).st_size == 0:
            return False
        with mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return mapped.find(b"\r") >= 0

    @property
    def gzipped(self) -> bool:
        """Whether a regular file starts with gzip's magic bytes."""
        return self.regular and os.pread(self._file.fileno(), 2, 0) == _GZIP_MAGIC

    def arrow_file(self, *, text: bool = True) -> Any:
        """The regular file from its start, as an Arrow input stream (gunzipped if need be);
        with ``text``, refused if it holds a NUL byte (:func:`check_text_file`).

        Arrow reads the file opened here, not the name again: an Arrow file of its own
        (``pa.OSFile``) opened on this one's descriptor (``/dev/fd/N``), so that Arrow's
        reading threads never call into Python, not even to close it (see the module's
        notes). Where no descriptor can be opened so, the bytes are read here and handed to
        Arrow in its own memory.
        """
        import pyarrow as pa

        if not self.regular:
            raise ValueError("arrow_file() is for regular files; use read()")
        stream: Any = None
        fd = self._file.fileno()
        self._file.seek(0)  # where /dev/fd/N shares the file's offset (macOS), its start
        for name in (f"/dev/fd/{fd}", f"/proc/self/fd/{fd}"):
            try:
                stream = pa.OSFile(name, "rb")
            except OSError:  # no /dev/fd here (or it refuses): the next way
                continue
            # Arrow's to close (a gzip stream closes its file) while this input stays open
            # for a second pass; closed with the input if Arrow has not.
            self._copies.append(stream)
            break
        if stream is None:
            stream = pa.BufferReader(arrow_buffer(self._raw()))
        if text and not self.gzipped:
            check_text_file(fd, self.name)
        return pa.CompressedInputStream(stream, "gzip") if self.gzipped else stream

    def _raw(self) -> bytes:
        """The bytes as stored, from the start (a regular file can be read again)."""
        try:
            if self._file is not None:
                if self.regular:
                    self._file.seek(0)
                return bytes(self._file.readall())
            if self._stream is not None:
                data = self._stream.read()
                # A text stream (io.StringIO, a file opened in text mode) gives str.
                return data.encode("utf-8") if isinstance(data, str) else bytes(data)
        except OSError as exc:
            raise _os_error(exc, self.name) from None
        return self._data or b""

    def read(self, *, text: bool = True) -> bytes:
        """The whole content, gunzipped; with ``text``, checked to be text (no NUL bytes).

        Anything but a regular file is read once: later calls give the same bytes.
        """
        if self._content is None:
            self._content = _gunzipped(self._raw(), self.name)
            if not self.regular:  # read whole: nothing more to read from it
                self.close()
                self._stream = None
        return _text(self._content, self.name) if text else self._content

    def head(self, size: int = 1 << 16) -> bytes:
        """The first bytes of the content (gunzipped), without consuming anything: a regular
        file is read at its start, anything else is read whole first."""
        if self.regular:
            raw = os.pread(self._file.fileno(), size, 0)
            if raw[:2] == _GZIP_MAGIC:
                import zlib

                try:
                    return zlib.decompressobj(wbits=31).decompress(raw, size)
                except zlib.error:
                    return b""
            return raw
        return self.read(text=False)[:size]

    def rereader(self) -> Callable[[], bytes]:
        """How to get the content again later, for a second pass that locates an error
        (only then): a regular file is read again by its name, anything else gives the
        bytes it was read as (they are kept only by whoever keeps this function)."""
        if not self.regular:
            content = self.read(text=False)
            return lambda: content
        name = self.name

        def again() -> bytes:
            try:
                return _gunzipped(Path(name).read_bytes(), name)
            except OSError as exc:
                raise _os_error(exc, name) from None

        return again


@contextmanager
def open_input(source: Source | Input) -> Iterator[Input]:
    """Open ``source`` once, and close it when the block ends (an :class:`Input` already
    open is used as it is, and left open).

    Raises :class:`InputFormatError` for a missing or unreadable input, a directory or a
    closed standard input.
    """
    if isinstance(source, Input):
        yield source
        return
    handle = Input(source)
    try:
        yield handle
    finally:
        handle.close()


def read_bytes(source: Source) -> bytes:
    """The whole content of ``source``; gzip is recognised by its magic bytes.

    Raises :class:`InputFormatError` for a missing, unreadable or binary input.
    """
    with open_input(source) as handle:
        return handle.read()


def utf8_text(
    data: bytes,
    path: str,
    *,
    encoding: str = "utf-8-sig",
    problem: str = "not valid UTF-8 text",
) -> str:
    """``data`` decoded as UTF-8 (a leading byte order mark dropped, with ``utf-8-sig``).

    Raises :class:`InputFormatError` saying ``problem`` and naming the line of the first
    byte that is not UTF-8, since the line is what a person can go and look at.
    """
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputFormatError(problem, path=path, line_number=line) from None


#: Column names that mark a header line: a query id column and a doc id column (BEIR's
#: ``query-id`` and ``corpus-id`` too).
_QUERY_NAMES = frozenset({"query_id", "qid", "query", "query-id"})
_DOC_NAMES = frozenset({"doc_id", "docid", "doc", "docno", "corpus-id"})

#: The start of a JSON document spread over lines: ``{`` alone, or its first key.
_JSON_START = re.compile(r'^\{\s*("([^"\\]|\\.)*"\s*:.*)?$')


def _first_line(head: bytes) -> bytes:
    return head.split(b"\n", 1)[0].removeprefix(b"\xef\xbb\xbf").strip()


def is_header(head: bytes, separator: str, names: Collection[str] = ()) -> bool:
    """Whether the first line of ``head`` is a header of columns separated by
    ``separator``: it names a query and a doc column (or the columns ``names``, a column
    map's), and no column is a number (a TREC line has its rank and score)."""
    text = _first_line(head).decode("utf-8", errors="replace")
    fields = [f.strip().strip('"') for f in text.split(separator)]
    lowered = {f.lower() for f in fields}
    if any(_is_number(f) for f in fields):
        return False
    if names and {n.lower() for n in names} <= lowered:
        return True
    return bool(lowered & _QUERY_NAMES and lowered & _DOC_NAMES)


def starts_with_data(head: bytes, separator: str) -> bool:
    """Whether the first line of ``head`` is a row of data rather than a header: one of its
    fields is a number (MS MARCO's and TREC's files have no header). A line without the
    separator is split at spaces: MS MARCO's and TREC's fields may be either."""
    text = _first_line(head).decode("utf-8", errors="replace")
    fields = text.split(separator) if separator in text else text.split()
    return any(_is_number(f.strip().strip('"')) for f in fields)


def headerless_kind(head: bytes) -> str:
    """The format of text without a header, from its first line: three fields, the last
    an integer, are MS MARCO's run (``qid docid rank``); anything else is TREC."""
    fields = _first_line(head).split()
    if len(fields) == 3 and fields[2].lstrip(b"+-").isdigit():
        return "msmarco"
    return "trec"


def _json_kind(line: bytes) -> str | None:
    """``jsonl`` or ``json`` for a first line starting with ``{``, or ``None`` (TREC)."""
    import json

    text = line.decode("utf-8", errors="replace")
    try:  # a TREC query id may start with "{" too: the whole line must be an object
        value = json.loads(text)
    except RecursionError:
        return "json"  # nested too deeply to parse: its reader refuses it, naming the file
    except ValueError:
        # One JSON document over many lines ({ alone, or {"q1": {) is BEIR's layout.
        return "json" if _JSON_START.match(text) else None
    if not isinstance(value, dict):
        return None
    # {qid: {docid: score}} or {qid: [docid, ...]} on one line: one document, not a record
    # (a record has an id among its values).
    if value and all(isinstance(v, dict | list) for v in value.values()):
        return "json"
    return "jsonl"


def sniff_format(head: bytes, names: Collection[str] = ()) -> str:
    """The format of text that starts with ``head`` (gunzipped), from its first line.

    ``PAR1`` is Parquet; a first line that is a JSON object of values is JSON Lines, and one
    whose every value is an object or a list (``{"q1": {"d1": 2.5}}``), or the start of a
    document spread over lines, is one JSON document (``json``, BEIR's results); a header
    naming a query id and a doc id column (``query_id``/``qid``/``query``/``query-id``,
    ``doc_id``/``docid``/``doc``/``docno``/``corpus-id``, or the columns ``names`` a column
    map gives), separated by tabs or commas, is TSV or CSV; three fields ending in an
    integer are MS MARCO's run (``qid docid rank``); anything else is TREC.

    Examples
    --------
    >>> sniff_format(b"query_id,doc_id,score\\nq1,d1,2.5\\n")
    'csv'
    >>> sniff_format(b"q1 Q0 d1 1 2.5 run\\n")
    'trec'
    >>> sniff_format(b"1048585\\t7187158\\t1\\n")
    'msmarco'
    >>> sniff_format(b'{"q1": {"d1": 2.5, "d2": 1.0}}')
    'json'
    """
    if head.startswith(b"PAR1"):
        return "parquet"
    line = _first_line(head)
    if line.startswith(b"{"):
        return _json_kind(line) or "trec"
    for separator, kind in (("\t", "tsv"), (",", "csv")):
        if separator in line.decode("utf-8", errors="replace") and is_header(
            head, separator, names
        ):
            return kind
    return headerless_kind(head)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _json_name(name: str) -> bool:
    return (name[:-3] if name.endswith(".gz") else name).lower().endswith(".json")


def input_format(
    handle: Input, format: str | None = None, names: Collection[str] = ()
) -> str:
    """The format ``handle`` is read as: ``format``; else its name's (a ``.tsv`` starting
    with data is TREC or MS MARCO, a ``.json`` holding a record a line is JSON Lines); else
    its first line's. ``names`` are the columns a column map gives (they mark a header)."""
    if format:
        return format
    kind = handle.suffix_kind
    if kind == "tsv" and starts_with_data(handle.head(), "\t"):
        return headerless_kind(handle.head())
    if kind is None and _json_name(handle.name):
        return "jsonl" if sniff_format(handle.head(), names) == "jsonl" else "json"
    return kind or sniff_format(handle.head(), names)


def file_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format the file ``path`` would be read as (:func:`input_format`), from its name
    and first bytes, without reading it; by its name alone when it cannot be opened (the
    reader then says why)."""
    if format:
        return format
    try:
        with open_input(os.fspath(path)) as handle:
            return input_format(handle)
    except InputFormatError:
        return tabular_kind(os.fspath(path)) or "trec"
