"""No abort at exit: every reader's success and error paths end with 0 or 2, under load.

``prfeval evaluate`` used to die now and then after it had done its work, with C++'s
``terminate called without an active exception`` (exit 134 instead of 0 or 2): in the long
mode of this test, 8 of 40 runs on a truncated gzipped CSV and 4 of 40 on a truncated gzipped
TREC run (none of the 600 since the fix); users saw it too after a CSV with a bad header, a
directory as input and ``-m 'P@5 '``. A core dump showed the cause: Arrow read the file
through a Python file (``pa.PythonFile``), and the last of its reading threads to let go of it
destroyed it, which takes the GIL; when that happened while the interpreter was ending,
Python stopped the thread inside C++ code, and C++ aborted the process. Arrow is now only
handed what it owns (docs/robustness.md, "Exit statuses"), and the reading threads of a
streamed run are not daemons and close their readers themselves when the program ends
without them.

The race needs a loaded machine, so each case is run as a process, again and again, one
more at a time than there are cores: the runs themselves keep the cores busy (as many
processes as two runs beside a busy loop for each core but one, without the CPU that busy
loops burn for nothing). The second test's single runs have busy-loop processes beside
them (always stopped in a ``finally``; each also stops by itself if this process dies).
The tests count exit statuses: they have no deadline but generous timeouts, which only a
hang reaches. ``PRFEVAL_STRESS=long`` runs ten times as many (at least 500 runs), as
``PRFEVAL_FUZZ=long`` does for the fuzz tests.

A second, deterministic test checks the cause directly: every Arrow reader prfeval calls is
given a file or buffer of Arrow's own, never a Python file or Python bytes.
"""

from __future__ import annotations

import collections
import gzip
import io
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

LONG = os.environ.get("PRFEVAL_STRESS") == "long"
ROUNDS = 40 if LONG else 4  # x 15 cases: 600 runs, or 60
PY = [sys.executable, "-m", "prfeval"]
#: Runs at a time: one more than the cores, so that every core is always contended for.
AT_ONCE = (os.cpu_count() or 2) + 1
RUN_TIMEOUT = 300  # seconds for one run: generous, reached only by a hang

#: name -> (arguments of prfeval, the exit status expected). {d} is the data folder.
CASES: dict[str, tuple[list[str], int]] = {
    "trec": (["evaluate", "{d}/qrels.trec", "{d}/run.trec"], 0),
    "trec error": (["evaluate", "{d}/qrels.trec", "{d}/bad_run.trec"], 2),
    "csv": (["evaluate", "{d}/qrels.csv", "{d}/run.csv"], 0),
    "csv bad header": (["evaluate", "{d}/bad_header.csv", "{d}/run.trec"], 2),
    "tsv": (["evaluate", "{d}/qrels.tsv", "{d}/run.tsv"], 0),
    "tsv error": (["evaluate", "{d}/qrels.trec", "{d}/bad_run.tsv"], 2),
    "jsonl": (["evaluate", "{d}/qrels.trec", "{d}/run.jsonl"], 0),
    "jsonl error": (["evaluate", "{d}/qrels.trec", "{d}/bad_run.jsonl"], 2),
    "parquet": (["evaluate", "{d}/qrels.trec", "{d}/run.parquet"], 0),
    "parquet error": (["evaluate", "{d}/qrels.trec", "{d}/bad_run.parquet"], 2),
    "gzip csv": (["evaluate", "{d}/qrels.trec", "{d}/run.csv.gz"], 0),
    "gzip truncated csv": (["evaluate", "{d}/qrels.trec", "{d}/truncated.csv.gz"], 2),
    "gzip truncated trec": (["evaluate", "{d}/qrels.trec", "{d}/truncated.trec.gz"], 2),
    "a directory": (["evaluate", "{d}/qrels.trec", "{d}"], 2),
    "-m 'P@5 '": (["evaluate", "-m", "P@5 ", "{d}/qrels.trec", "{d}/run.trec"], 0),
}

#: A busy loop that stops when killed, when its parent (this process) is gone, or after
#: its time: it can never outlive a test run that was itself killed.
BURNER = """
import os, sys, time
parent, end = int(sys.argv[1]), time.monotonic() + float(sys.argv[2])
while os.getppid() == parent and time.monotonic() < end:
    for _ in range(200_000):
        pass
"""


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """50 queries in every format, and a bad file of each (made up, the same every time)."""
    d = tmp_path_factory.mktemp("stress")
    qrels = [(q, f"d{k}", (q + k) % 3) for q in range(50) for k in range(0, 40, 3)]
    run = [(q, f"d{k}", 100 - k) for q in range(50) for k in range(100)]
    (d / "qrels.trec").write_text("".join(f"{q} 0 {doc} {g}\n" for q, doc, g in qrels))
    trec = "".join(f"{q} Q0 {doc} {i % 100 + 1} {s} t\n" for i, (q, doc, s) in enumerate(run))
    (d / "run.trec").write_text(trec)
    (d / "bad_run.trec").write_text("1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.0\n")
    csv = "query_id,doc_id,score\n" + "".join(f"{q},{doc},{s}\n" for q, doc, s in run)
    (d / "run.csv").write_text(csv)
    qrels_csv = "query_id,doc_id,relevance\n" + "".join(f"{q},{doc},{g}\n" for q, doc, g in qrels)
    (d / "qrels.csv").write_text(qrels_csv)
    (d / "bad_header.csv").write_text("a,b,c\n1,d1,1\n")
    (d / "qrels.tsv").write_text(qrels_csv.replace(",", "\t"))
    (d / "run.tsv").write_text(csv.replace(",", "\t"))
    (d / "bad_run.tsv").write_text("query_id\tdoc_id\tscore\n1\td1\t2.5\n1\td2\n")
    jsonl = "".join(
        f'{{"query_id": "{q}", "doc_id": "{doc}", "score": {s}}}\n' for q, doc, s in run
    )
    (d / "run.jsonl").write_text(jsonl)
    (d / "bad_run.jsonl").write_text('{"query_id": "1", "doc_id": "d1", "score": 1}\n{"query_id"\n')
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = list(zip(*run, strict=True))
    table = pa.table(
        {"query_id": [str(q) for q in columns[0]], "doc_id": columns[1], "score": columns[2]}
    )
    pq.write_table(table, d / "run.parquet")
    (d / "bad_run.parquet").write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    packed = gzip.compress(csv.encode())
    (d / "run.csv.gz").write_bytes(packed)
    (d / "truncated.csv.gz").write_bytes(packed[: len(packed) // 2])
    packed = gzip.compress(trec.encode())
    (d / "truncated.trec.gz").write_bytes(packed[: len(packed) // 2])
    return d


@pytest.fixture
def busy_cores() -> Iterator[None]:
    """The cores kept busy while the test runs: with its one run at a time, as many busy
    loops as cores, less one, oversubscribe them (each run has threads of its own)."""
    loops = [
        subprocess.Popen([sys.executable, "-c", BURNER, str(os.getpid()), "1800"])
        for _ in range(max(1, (os.cpu_count() or 2) - 1))
    ]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()


def _run(args: list[str]) -> tuple[int | str, str]:
    try:
        done = subprocess.run(
            [*PY, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=RUN_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return "hung", ""
    return done.returncode, done.stderr.decode(errors="replace")


def test_every_reader_exits_0_or_2_under_load(data: Path) -> None:
    jobs = [
        (name, [a.replace("{d}", str(data)) for a in args])
        for _ in range(ROUNDS)
        for name, (args, _) in CASES.items()
    ]
    statuses: dict[str, collections.Counter[int | str]] = collections.defaultdict(
        collections.Counter
    )
    wrong: dict[str, str] = {}
    with ThreadPoolExecutor(AT_ONCE) as pool:  # the runs are the load
        results = pool.map(lambda job: _run(job[1]), jobs)
        for (name, _), (code, err) in zip(jobs, results, strict=True):
            statuses[name][code] += 1
            if code != CASES[name][1]:
                wrong.setdefault(name, err[-500:])
    report = f"exit statuses over {len(jobs)} runs: " + ", ".join(
        f"{name} {dict(counts)}" for name, counts in statuses.items()
    )
    print(report)  # shown with -s or -rP: the counts, even when all is well
    assert not wrong, f"{report}; stderr: {wrong}"


# --------------------------------------------------------------------------------------------
# The cause, checked directly: Arrow's readers are given nothing of Python's


def _arrow_only(kind: str, real: Callable[..., Any]) -> Callable[..., Any]:
    """``real`` (an Arrow reader), refusing a source that Arrow would wrap as a Python
    object: a Python file, bytes, a path opened again by name."""
    import pyarrow as pa

    native, python_file = pa.NativeFile, pa.PythonFile  # the classes, before they are patched

    def reader(source: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(source, native) or isinstance(source, python_file):
            raise AssertionError(f"{kind} was given {type(source).__name__}")
        return real(source, *args, **kwargs)

    return reader


@pytest.fixture
def arrow_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Arrow's readers, as prfeval calls them, fail on anything of Python's."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.json as pajson
    import pyarrow.parquet as pq

    for module, name in ((pacsv, "read_csv"), (pacsv, "open_csv"), (pajson, "read_json"),
                         (pq, "read_table")):  # fmt: skip
        monkeypatch.setattr(module, name, _arrow_only(name, getattr(module, name)))
    real_reader = pa.BufferReader

    def buffer_reader(source: Any) -> Any:
        if not isinstance(source, pa.Buffer):  # bytes would become a Python-owned buffer
            raise AssertionError(f"BufferReader was given {type(source).__name__}")
        return real_reader(source)

    def no_python_file(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Arrow was given a Python file")

    monkeypatch.setattr(pa, "BufferReader", buffer_reader)
    monkeypatch.setattr(pa, "PythonFile", no_python_file)


@pytest.mark.parametrize(
    "name", ["run.trec", "run.csv", "run.tsv", "run.jsonl", "run.parquet", "run.csv.gz"]
)
@pytest.mark.parametrize("given", ["path", "bytes", "stream"])
def test_arrow_reads_only_what_it_owns(
    name: str, given: str, data: Path, arrow_only: None
) -> None:
    from prfeval._io.load import load_run

    path = data / name
    fmt = name.split(".")[1]
    source = {"path": str(path), "bytes": path.read_bytes(),
              "stream": io.BytesIO(path.read_bytes())}[given]  # fmt: skip
    run = load_run(source, format=None if given == "path" else fmt)
    assert len(run) == 5000


@pytest.mark.parametrize(
    "name", ["bad_run.trec", "bad_run.tsv", "bad_run.jsonl", "bad_run.parquet",
             "truncated.csv.gz", "truncated.trec.gz"],
)  # fmt: skip
def test_arrow_reads_only_what_it_owns_on_errors(
    name: str, data: Path, arrow_only: None
) -> None:
    from prfeval._core.errors import InputFormatError
    from prfeval._io.load import load_run

    with pytest.raises(InputFormatError):
        load_run(str(data / name))


#: A run read in blocks by the compiled pass, left half read, its blocks kept in a reference
#: cycle (never closed), as the program ends: the pass's read-ahead thread must end, and
#: the pass's memory be freed after it, not under it.
ABANDONED = """
import sys
from prfeval._core.options import EvalOptions
from prfeval._io import native_blocks
from prfeval._measures import parse_measures, ranking_needs
from prfeval._retrieval.pipeline import open_source
native_blocks.BLOCK_ROWS = 64
needs = ranking_needs(parse_measures("P@10"))
source = open_source(sys.argv[1], sys.argv[2], EvalOptions(), needs, stream=True)
blocks = source.blocks()
next(blocks)
cycle = [blocks]
cycle.append(cycle)
"""


def test_a_streamed_run_left_half_read_ends_with_the_program(
    data: Path, busy_cores: None
) -> None:
    from prfeval._io.native_lib import compiled_unavailable

    if compiled_unavailable() is not None:
        pytest.skip("only the compiled pass reads a run in blocks")
    statuses: collections.Counter[int | str] = collections.Counter()
    for _ in range(40 if LONG else 2):
        try:
            done = subprocess.run(
                [sys.executable, "-c", ABANDONED, str(data / "qrels.trec"),
                 str(data / "run.trec")],
                stderr=subprocess.PIPE, timeout=RUN_TIMEOUT,
            )  # fmt: skip
            statuses[done.returncode] += 1
        except subprocess.TimeoutExpired:
            statuses["hung"] += 1
    assert statuses == {0: sum(statuses.values())}, statuses
