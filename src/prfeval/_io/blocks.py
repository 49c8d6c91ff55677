"""Block sources: a run and its judgments as blocks of whole queries, whatever the input.

Every evaluation reads its input through a :class:`BlockSource`, which yields :class:`Block`
objects: some of the run's queries, each with all its rows, and the judgments of those
queries. The pipeline (:mod:`prfeval._retrieval.pipeline`) aligns and measures each block the
same way, so reading a file whole, reading it in bounded memory or taking dicts are one loop
over different sources:

* :class:`WholeSource`: the run and the judgments read at once (any file format, DataFrames,
  Arrow tables, dicts, ranked lists), restricted to the query set: one block;
* :class:`~prfeval._io.native.CompiledSource`: a plain TREC pair through the compiled pass,
  whole or a segment of whole queries at a time (bounded memory); then one last block with
  the judged queries the run never named, so that they are accounted for as every other
  path accounts for them;
* Spark partitions (:mod:`prfeval.spark`) are blocks too.

Which source reads an input is the reader plan's choice (:mod:`prfeval._io.plan`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from prfeval._core.encoded import EncodedBlock
from prfeval._core.errors import InputFormatError, PrfevalWarning
from prfeval._core.options import EvalOptions
from prfeval._core.tables import Qrels, Run
from prfeval._io.judgments_digest import LazyDigest
from prfeval._io.mapping import plain_dicts
from prfeval._io.plan import ARROW, DICTS, ReadPlan, find_layout, plan_reading
from prfeval._io.select import restrict_queries
from prfeval._io.source import check_one_stdin

__all__ = ["Block", "BlockSource", "WholeSource", "load_judgments"]


@dataclass(frozen=True)
class Block:
    """Whole queries of a run with their judgments, in one of three typed forms: tables
    (``qrels`` and ``run``), plain dicts (``dicts``), or already encoded and joined
    (``encoded``).

    ``dicts`` blocks hold ``{qid: {docid: grade}}`` and ``{qid: {docid: score}}`` as given,
    unrestricted (the encoder selects the query set as it reads them). ``encoded`` blocks
    (from the compiled pass, :mod:`prfeval._io.native`, or a layout of the reader plan) hold
    no tables: ``encoded`` is their :class:`~prfeval._core.encoded.EncodedBlock`, which the
    aligner takes as it is. Every reader's output meets the aligner as this one shape.
    """

    qrels: Qrels | Mapping[str, Any] | None
    run: Run | Mapping[str, Any] | None
    dicts: bool = False
    encoded: EncodedBlock | None = None


class BlockSource(Protocol):
    """Where blocks come from, how the inputs are named in results, and how they were read
    (``plan``: the reader plan, as it turned out once the blocks are read)."""

    qrels_name: str
    run_name: str
    plan: ReadPlan

    @property
    def streamed(self) -> bool:
        """Whether the run is read in blocks as it is read."""
        ...

    def blocks(self) -> Iterator[Block]:
        """The blocks, each query in exactly one of them."""
        ...

    @property
    def empty_run(self) -> bool:
        """Whether the run had no rows at all (known once the blocks are read)."""
        ...


class SharedJudgments:
    """A judgments file read once for several runs (``compare`` and its kin), in the form
    each run's reader wants: as a table (:meth:`table`) for the readers that take tables,
    and parsed by the compiled pass (``parsed``, set by :mod:`prfeval._io.native`) for the
    runs it takes, its tables copied for each run. Each form is made on first use."""

    def __init__(self, path: str | os.PathLike[str], options: EvalOptions) -> None:
        self.path = os.fspath(path)
        self._options = options
        self._table: Qrels | None = None
        #: The compiled pass's parse of the file, once made.
        self.parsed: Any = None

    def table(self) -> Qrels:
        """The judgments as a table (:func:`load_judgments`)."""
        if self._table is None:
            self._table = load_judgments(self.path, self._options)
        return self._table


def load_judgments(qrels: Any, options: EvalOptions | None = None) -> Qrels:
    """Judgments in any form (read as ``options.qrels_format`` and ``qrels_columns`` say);
    an empty set of judgments is an error (nothing to measure)."""
    from prfeval._io.load import load_qrels  # every reader: not for dicts (see WholeSource)

    if isinstance(qrels, SharedJudgments):
        return qrels.table()

    table = load_qrels(
        qrels,
        format=None if options is None else options.qrels_format,
        qrels_columns=None if options is None else options.qrels_columns,
    )
    if len(table) == 0:
        raise InputFormatError("no judgments", path=table.source.path)
    return table


def warn_empty_run(name: str) -> None:
    """Say that a run has no rows: every measure is then 0, which is rarely what was meant."""
    warnings.warn(f"the run {name!r} is empty: every measure is 0", PrfevalWarning, stacklevel=2)


def _wanted(qrels: Mapping[Any, Any], options: EvalOptions) -> dict[Any, Any]:
    """The judgments of the query set, of judgments given as dicts."""
    if not options.restricts_queries:
        return dict(qrels)
    return {q: docs for q, docs in qrels.items() if options.wants(str(q))}


class WholeSource:
    """The whole run and its judgments as one block, restricted to the query set.

    Plain dicts stay dicts (``use_dicts``) when the readers of the ranking need no document
    ids: the dict encoder joins them through their own hash tables. An input of a layout of
    :data:`~prfeval._io.plan.LAYOUTS` is read by its entry. ``plan`` is the reader plan
    (made here when not given).
    """

    streamed = False

    def __init__(
        self, qrels: Any, run: Any, options: EvalOptions, *, use_dicts: bool = False,
        plan: ReadPlan | None = None,
    ) -> None:
        self._options = options
        self._layout: tuple[Any, Any] | None = None
        if plan is None:
            plan = plan_reading(qrels, run, options, stream=False, doc_ids=not use_dicts)
        if plan.reader not in (DICTS,) and plan.layout is None and plan.reader != ARROW:
            plan = plan.fallback or plan  # read whole by Arrow, not by the pass
        self.plan = plan
        if plan.reader == DICTS and use_dicts and plain_dicts(qrels, run):
            self._block = Block(qrels, run, dicts=True)
            # A dict run may carry its name (trec_eval's run id, read with it).
            self.qrels_name, self.run_name = "qrels dict", getattr(run, "run_name", "run")
            self._empty = not any(run.values())
            self.judgments = LazyDigest(lambda: _wanted(qrels, options))
            return
        layout = plan.layout or find_layout(qrels, run)
        if layout is not None:
            self.qrels_name, self.run_name = "gold", "run"
            if use_dicts:
                # Encoded when the block is read, and not kept: its columns (a row per
                # place) are freed once aligned.
                self._layout = (qrels, run)
                self._read = layout
                self._empty = False
                return
            qrels_table, run_table = layout.tables(qrels, run, options)
        else:
            check_one_stdin([qrels, run])
            qrels_table = load_judgments(qrels, options)
            from prfeval._io.load import load_run

            run_table = load_run(run, ranks=options.order == "rank", format=options.run_format,
                                 run_columns=options.run_columns)
            read_by = run_table.extra.get("read_by")
            if read_by is not None:  # a reader of the file's own (JSON Lines lists)
                # Why the compiled pass did not read it, when the plan says, is kept.
                why = [read_by[1], *(c for c in plan.run.why.split("; ")
                                     if "compiled pass" in c)]  # fmt: skip
                self.plan = plan.with_run(reader=read_by[0], why="; ".join(why))
        self._empty = len(run_table) == 0
        self.qrels_name, self.run_name = qrels_table.source.path, run_table.name
        include, exclude = options.queries, options.exclude_queries
        judged_set = restrict_queries(qrels_table, include, exclude)
        self._block = Block(judged_set, restrict_queries(run_table, include, exclude))
        #: The digest of the judgments of the query set, made when first asked for.
        self.judgments = LazyDigest(lambda: judged_set)

    @property
    def empty_run(self) -> bool:
        """Whether the run has no rows at all."""
        return self._empty

    def blocks(self) -> Iterator[Block]:
        """The one block."""
        if self._layout is not None:
            encoded = self._read.block(*self._layout, self._options, self.plan.compiled)
            yield Block(None, None, encoded=encoded)
            return
        if self._empty:
            warn_empty_run(self.run_name)
        yield self._block
