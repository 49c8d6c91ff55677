"""The reader plan: how each input is read, decided once, from the inputs and the options.

:func:`plan_reading` is the one place that chooses a reader. It looks at the inputs (their
kind, a file's format, size and first bytes) and the options, and says, for the judgments
and for the run, which reader reads them, whole or in blocks of whole queries, and why (a
short reason, printed by ``prfeval evaluate --verbose`` and ``prfeval explain``, and kept by
every result as ``reader``). The readers are:

=====================  ==============================================================
``the compiled pass``  a plain TREC qrels file and run (``native/pass``): parsed, encoded
                       and joined in compiled code, whole (one segment, up to 16 MiB) or
                       a segment at a time; refused on its first segment only. It reads
                       a JSON Lines run of lists too (parsed whole, then measured in
                       chunks of whole queries), an item a row, and judgments as JSON
                       Lines lists of relevant ids (a small RAG evaluation starts without
                       Arrow)
``the compiled JSON     a JSON Lines run of lists in the plain case
Lines reader``         (``native/pass/src/jsonl_lists.rs``): read straight into the
                       buffers the compiled encode reads; anything else is Arrow's
``Arrow``              every file format and in-memory table (``_io/load.py``), read
                       whole: the one pure-Python fallback (``stream=True`` without the
                       pass reads whole, with a warning)
``Python dicts``       ``{qid: {docid: value}}`` for both inputs, joined through their own
                       hash tables (when no reader needs document ids)
a layout's name        an entry of :data:`LAYOUTS` (2-D arrays: ``run arrays``)
=====================  ==============================================================

This module is the only reader of ``PRFEVAL_NATIVE`` (``0``: never the compiled pass; ``1``:
the pass is required, and its absence is an error) and of the options' limits for the
compiled pass (``limits`` in :data:`~prfeval._core.options.EVAL_OPTIONS`). It imports
neither numpy nor Arrow, so that the command line asks it for its head start
(:func:`head_start`) before it imports them.

**A new layout** is one :class:`Layout` entry in :data:`LAYOUTS`: a test of the inputs
(``recognises``), a reader of both into one :class:`~prfeval._io.blocks.Block` whose
``encoded`` holds the run joined to its judgments (``block``), and the same input as
tables for the readers of document ids (``tables``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from prfeval._core.option_table import flags_not_taken, unhonoured
from prfeval._core.options import EVAL_OPTIONS, EvalOptions
from prfeval._io import native_lib
from prfeval._io.native_lib import compiled_unavailable, native_setting

__all__ = [
    "ARROW",
    "COMPILED",
    "DICTS",
    "HEAD_START_COMMANDS",
    "HEAD_START_NEVER",
    "LAYOUTS",
    "SEGMENT_BYTES",
    "STREAM_THRESHOLD_BYTES",
    "InputPlan",
    "Layout",
    "ReadPlan",
    "compiled_unavailable",
    "find_layout",
    "head_start",
    "is_array_run",
    "native_setting",
    "plan_reading",
    "required_but_unavailable",
]

COMPILED = "the compiled pass"
ARROW = "Arrow"
DICTS = "Python dicts"

#: Runs larger than this are read by the compiled pass in blocks when ``stream`` is left to
#: choose (8 MiB): reading in blocks is not only leaner but faster than reading whole (each
#: block's arrays stay in cache).
STREAM_THRESHOLD_BYTES = 8 << 20

#: The compiled pass's first segment (``BLOCK`` in native/pass/src/lib.rs), then on to the
#: end of its last query: all the pass accepts or refuses a run on. A run no larger is read
#: by the pass in one segment, whole.
SEGMENT_BYTES = 16 << 20

#: The commands whose QRELS and first RUN come first (``prfeval evaluate QRELS RUN ...``).
HEAD_START_COMMANDS = ("evaluate", "compare", "curve")

#: The command-line words after which the compiled pass does not read the run: another
#: engine, the flags of the options whose values the pass may not take.
HEAD_START_NEVER = ("--engine=spark", *flags_not_taken(EVAL_OPTIONS, "compiled"))


def required_but_unavailable() -> str | None:
    """With ``PRFEVAL_NATIVE=1`` the user asked for the compiled pass: why it cannot be had,
    or ``None`` (asked and available, or not asked). A silent fallback would hide a build
    that went wrong."""
    if native_setting() != "1":
        return None
    why_not = compiled_unavailable()
    return None if why_not is None else f"{native_lib.ENV}=1 asks for the compiled pass: {why_not}"


@dataclass(frozen=True)
class Layout:
    """One input layout's entry in the plan: how it is recognised and read.

    ``recognises(qrels, run)`` says whether the inputs are of this layout;
    ``block(qrels, run, options, compiled)`` reads both into one
    :class:`~prfeval._core.encoded.EncodedBlock` (the run's rows joined to their
    judgments, as integer codes; ``compiled``: whether the plan lets compiled code join
    them); ``tables(qrels, run, options)`` gives them as
    :class:`~prfeval._core.tables.Qrels` and :class:`~prfeval._core.tables.Run` tables, for
    the readers of document ids (curves, explain).
    """

    name: str
    why: str
    recognises: Callable[[Any, Any], bool]
    block: Callable[[Any, Any, EvalOptions, bool], Any]
    tables: Callable[[Any, Any, EvalOptions], tuple[Any, Any]]


def is_array_run(run: Any) -> bool:
    """Whether ``run`` is a run array (:func:`prfeval._io.arrays.is_array`). A path, a
    mapping, a sequence or an opened file never is: those are told apart here, without
    importing the arrays' reader."""
    if isinstance(run, str | bytes | os.PathLike | Mapping | Sequence) or hasattr(run, "read"):
        return False
    from prfeval._io.arrays import is_array

    return is_array(run)


def _is_array(qrels: Any, run: Any) -> bool:
    return is_array_run(run)


def _array_block(qrels: Any, run: Any, options: EvalOptions, compiled: bool) -> Any:
    from prfeval._core.encoded import EncodedBlock
    from prfeval._io.arrays import array_block

    return EncodedBlock(**array_block(qrels, run, options, compiled=compiled))


def _array_tables(qrels: Any, run: Any, options: EvalOptions) -> tuple[Any, Any]:
    from prfeval._io.arrays import array_tables

    return array_tables(qrels, run, options)


#: The in-memory layouts, tried in order before the files and tables: each one entry.
LAYOUTS: list[Layout] = [
    Layout("run arrays", "a 2-D array run (ids or scores), joined as integers",
           _is_array, _array_block, _array_tables),
]


def find_layout(qrels: Any, run: Any) -> Layout | None:
    """The :data:`LAYOUTS` entry that reads ``qrels`` and ``run`` (``None``: no entry)."""
    return next((entry for entry in LAYOUTS if entry.recognises(qrels, run)), None)


@dataclass(frozen=True)
class InputPlan:
    """How one input is read: its ``role`` (``judgments`` or ``run``), its ``name``, the
    ``reader``, whether ``in_blocks`` (of whole queries) or whole, and ``why``."""

    role: str
    name: str
    reader: str
    in_blocks: bool
    why: str

    def line(self) -> str:
        """One line for ``--verbose``: ``run run.txt: the compiled pass, in blocks (...)``."""
        how = "in blocks" if self.in_blocks else "whole"
        return f"{self.role} {self.name}: {self.reader}, {how} ({self.why})"


@dataclass(frozen=True)
class ReadPlan:
    """How the judgments and the run are read (:func:`plan_reading`).

    ``fallback`` is the plan when the compiled pass refuses the input on its first segment
    (``None`` when the pass is not planned); ``layout`` the :class:`Layout` entry that reads
    both, if any; ``warning`` what to say once the input is read (a stream asked of input
    that cannot be streamed, a run read whole after all).
    """

    judgments: InputPlan
    run: InputPlan
    fallback: ReadPlan | None = None
    layout: Layout | None = field(default=None, compare=False)
    warning: str | None = None
    #: Whether compiled code may run (``PRFEVAL_NATIVE`` and the library).
    compiled: bool = False
    #: Whether the caller asked for the run in blocks (``stream=True``): read whole after
    #: all, it is told so.
    stream_asked: bool = False
    #: Whether the compiled pass reads the run as JSON Lines of lists (else TREC lines).
    lists: bool = False
    #: Whether it reads the judgments as JSON Lines of lists of relevant ids (else TREC).
    judgment_lists: bool = False

    @property
    def reader(self) -> str:
        """The run's reader."""
        return self.run.reader

    @property
    def in_blocks(self) -> bool:
        """Whether the run is read in blocks of whole queries."""
        return self.run.in_blocks

    def lines(self) -> tuple[str, str]:
        """One line per input, for ``--verbose`` and ``explain``."""
        return self.judgments.line(), self.run.line()

    def refused(self, why: str) -> ReadPlan:
        """The fallback's plan, saying that the compiled pass refused the input for ``why``
        on its first segment."""
        assert self.fallback is not None
        said = f"the compiled pass refused it on its first segment: {why}"
        fallback = self.fallback
        warning = (f"{self.run.name}: {why}; reading it whole instead" if self.stream_asked
                   else fallback.warning)  # fmt: skip
        return replace(
            fallback,
            judgments=replace(fallback.judgments, why=said),
            run=replace(fallback.run, why=said),
            warning=warning,
        )

    def with_run(self, **changes: Any) -> ReadPlan:
        """The same plan with the run's entry changed (``why``, ``in_blocks``)."""
        return replace(self, run=replace(self.run, **changes))


def _name(source: Any) -> str:
    from prfeval._io.source import display_name

    path = getattr(source, "path", None)  # shared judgments
    if isinstance(path, str) and not isinstance(source, str | os.PathLike):
        return path
    if isinstance(source, str | os.PathLike | bytes) or hasattr(source, "read"):
        return display_name(source)
    return f"a {type(source).__name__}"


def _kind(source: Any, format: str | None) -> str:
    """What an input is, in words: ``a TREC file``, ``a DataFrame``..."""
    if isinstance(source, str | os.PathLike):
        if str(source) == "-":
            return "standard input"
        if not os.path.isfile(source):  # a pipe is read once, by its reader: not opened here
            return "a pipe or special file"
        from prfeval._io.source import file_format

        return f"a {file_format(source, format).upper()} file"
    if isinstance(source, bytes) or hasattr(source, "read"):
        return "a stream"
    return f"a {type(source).__name__}"


def _pass_run_format(run: Any, options: EvalOptions) -> str | None:
    """The format of a regular run file the compiled pass may read (by its name and first
    line): ``trec`` (the only run read in blocks) or ``jsonl`` (lists, read whole); else
    ``None``."""
    if not isinstance(run, str | os.PathLike) or str(run) == "-" or not os.path.isfile(run):
        return None
    from prfeval._io.source import file_format

    kind = file_format(run, options.run_format)
    return kind if kind in ("trec", "jsonl") else None


def _compiled_refusal(qrels: Any, run: str, options: EvalOptions) -> str | None:
    """Why the compiled pass does not read these inputs (``None``: it does): it reads a
    plain TREC qrels file (a regular file, not gzipped) and run, with the options it
    honours."""
    why = compiled_unavailable()
    if why is not None:
        return why
    refused = unhonoured(options, EVAL_OPTIONS, "compiled")
    if refused:
        return f"it does not take {', '.join(o.name for o in refused)} as set"
    path = getattr(qrels, "path", qrels)  # SharedJudgments: judgments read once for runs
    if not isinstance(path, str | os.PathLike) or str(path) == "-" or not os.path.isfile(path):
        return "it reads judgments from a regular file only"
    from prfeval._io.source import file_format

    if file_format(path, options.qrels_format) not in ("trec", "jsonl"):
        return "it reads TREC judgments and JSON Lines lists of relevant ids only"
    if native_lib.gzipped(os.fspath(path)) or native_lib.gzipped(run):
        return "it reads no gzip"
    return None


def plan_reading(
    qrels: Any,
    run: Any,
    options: EvalOptions,
    *,
    stream: bool | None = None,
    doc_ids: bool = True,
) -> ReadPlan:
    """Decide how ``qrels`` and ``run`` are read, and why.

    Parameters
    ----------
    qrels, run
        The inputs as given to :func:`prfeval.evaluate`.
    options
        The evaluation options: their formats, and the limits of the compiled pass.
    stream
        ``True``: read a TREC run in blocks whatever its size; ``False``: whole; ``None``:
        in blocks from :data:`STREAM_THRESHOLD_BYTES` on. Only the compiled pass reads in
        blocks: when it does not read the run, the run is read whole (and a stream asked
        for is a warning).
    doc_ids
        Whether a reader of the ranking needs document ids (curves, explain): dicts are
        then read as tables.

    Returns
    -------
    ReadPlan
        The compiled pass reads a plain TREC pair whenever it is built and honours the
        options: whole when the run fits its first segment (a small evaluation starts
        without Arrow's reader), else in blocks (or whole by Arrow with ``stream=False``);
        refused on its first segment, Arrow reads the run whole (``fallback``). Everything
        else is read whole by Arrow (files and tables), by the dict encoder, or by a
        :data:`LAYOUTS` entry.
    """
    from prfeval._io.mapping import plain_dicts

    names = (_name(qrels), _name(run))

    def plan(reader: str, in_blocks: bool, why: str, *, judged_by: str | None = None,
             judged_why: str | None = None, **rest: Any) -> ReadPlan:
        return ReadPlan(
            InputPlan("judgments", names[0], judged_by or reader, False, judged_why or why),
            InputPlan("run", names[1], reader, in_blocks, why),
            compiled=compiled,
            **rest,
        )

    compiled = compiled_unavailable() is None
    layout = find_layout(qrels, run)
    if layout is not None:
        return plan(layout.name, False, layout.why, layout=layout)
    if not doc_ids and plain_dicts(qrels, run) and any(qrels.values()):
        return plan(DICTS, False, "dicts of dicts, joined through their own hash tables")
    run_format = _pass_run_format(run, options)
    if run_format != "trec":
        kind = _kind(run, options.run_format)
        warning = ("only a TREC run file can be streamed; reading it whole"
                   if stream else None)  # fmt: skip
        whole = plan(ARROW, False, f"{kind}: read whole", warning=warning,
                     judged_why=f"{_kind(qrels, options.qrels_format)}: read whole")
        return whole if run_format is None else _lists_plan(whole, qrels, run, options, plan)
    size = os.path.getsize(run)
    in_blocks = bool(size) and stream is not False and (
        bool(stream) or size >= STREAM_THRESHOLD_BYTES
    )
    how = (f"a TREC run of {size:,} bytes, read in blocks" if in_blocks
           else f"a TREC run of {size:,} bytes, read whole")  # fmt: skip
    whole = plan(ARROW, False, f"a TREC run of {size:,} bytes, read whole")
    if not size:
        return whole.with_run(why="an empty run: nothing to read")
    why_not = _compiled_refusal(qrels, os.fspath(run), options)
    if why_not is None and not in_blocks and size > SEGMENT_BYTES:
        why_not = "the run is read whole, and is larger than the pass's one segment"
    if why_not is not None:
        # Only the compiled pass reads in blocks: without it the run is read whole, and a
        # stream asked for without compiled code is said not to be had (--verbose says why
        # the pass did not read it otherwise).
        unbuilt = stream and compiled_unavailable() is not None
        warning = (f"{names[1]}: only the compiled pass reads a run in blocks, and {why_not}; "
                   "reading it whole" if unbuilt else None)  # fmt: skip
        return replace(whole, judgments=replace(whole.judgments, why=f"not {COMPILED}: {why_not}"),
                       run=replace(whole.run, why=f"{whole.run.why}; not {COMPILED}: {why_not}"),
                       warning=warning)
    return plan(COMPILED, in_blocks, f"{how}, in the plain layout the pass reads",
                fallback=whole, stream_asked=bool(stream), **_judged_by_the_pass(qrels, options))


def _lists_plan(whole: ReadPlan, qrels: Any, run: Any, options: EvalOptions,
                plan: Callable[..., ReadPlan]) -> ReadPlan:
    """The plan of a JSON Lines run file: beside judgments it reads, the compiled pass
    reads it (parsed whole, then measured in chunks of whole queries: a small evaluation
    starts without Arrow, and a large one takes less time and memory than the list
    readers, docs/benchmarks.md); its first line's keys say whether it is a plain run of
    lists, and the pass refuses anything else, which ``whole`` (the list readers) reads."""
    size = os.path.getsize(run)
    why_not = _compiled_refusal(qrels, os.fspath(run), options) if size else "an empty run"
    if why_not is not None:
        return whole.with_run(why=f"{whole.run.why}; not {COMPILED}: {why_not}")
    return plan(COMPILED, False, f"a JSON Lines run of {size:,} bytes, read whole as lists",
                fallback=whole, lists=True, warning=whole.warning,
                **_judged_by_the_pass(qrels, options))


def _judged_by_the_pass(qrels: Any, options: EvalOptions) -> dict[str, Any]:
    """How the pass reads the judgments file ``qrels`` (its format is one it reads: see
    :func:`_compiled_refusal`): as TREC lines, or as JSON Lines of lists of relevant ids."""
    from prfeval._io.source import file_format

    path = os.fspath(getattr(qrels, "path", qrels))
    if file_format(path, options.qrels_format) == "jsonl":
        return {"judged_why": "a JSON Lines file of lists of relevant ids, parsed once by the "
                              "pass", "judgment_lists": True}  # fmt: skip
    return {"judged_why": "a plain TREC file, parsed once by the pass"}


#: The names of judgment files the head start does not parse as TREC (``file_format``'s
#: suffixes of tables; the plan reads what the files hold).
_NAMED_TABLES = tuple(f"{suffix}{gz}" for suffix in (".csv", ".tsv", ".jsonl", ".json",
                                                      ".parquet") for gz in ("", ".gz"))


def head_start(args: list[str]) -> tuple[str, str] | None:
    """The judgments and run files the compiled pass will likely read for the command line
    ``args`` (``prfeval evaluate QRELS RUN ...``, ``compare`` and ``curve`` alike, and
    ``prfeval trec_eval ... QRELS RUN``), so that the command line starts parsing the
    judgments while Python imports the rest; ``None`` when it will not. Only a head start:
    a parse the pass does not claim is freed unread. Decided here, with the plan's rules,
    from the words alone (the options are parsed later)."""
    if len(args) >= 3 and args[0] == "trec_eval":
        files = args[-2:]  # trec_eval's two files come last
    elif len(args) >= 3 and args[0] in HEAD_START_COMMANDS:
        files = args[1:3]
    else:
        return None
    if files[0][:1] == "-" or files[1][:1] == "-":
        return None
    words = set(args) | {f"{a}={b}" for a, b in itertools.pairwise(args)}
    if any(w == never or w.startswith(never + "=")
           for w in words for never in HEAD_START_NEVER):  # fmt: skip
        return None
    if native_setting() == "0" or not native_lib.LIBRARY.is_file():
        return None
    qrels, run = files
    if qrels.endswith(_NAMED_TABLES):
        return None  # judgments with named columns: no TREC parse to start
    try:
        if not (os.path.isfile(qrels) and os.path.isfile(run)) or not os.path.getsize(run):
            return None
        if "--no-stream" in words and os.path.getsize(run) > SEGMENT_BYTES:
            return None  # read whole by Arrow
        if native_lib.gzipped(qrels) or native_lib.gzipped(run):
            return None
    except OSError:
        return None
    return qrels, run
