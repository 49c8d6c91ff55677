"""The compiled pass's library, loaded with ctypes alone, and its judgments parsed ahead.

This module imports neither numpy nor Arrow, so that the command line can start the pass on
the judgments file before it imports them: Python's imports take a quarter of a second on one
core, the judgments about as long on the other (:func:`parse_judgments_ahead`). The parse
then waits, done, until :class:`~prfeval._io.native.NativeJudgments` claims it for the same
file (:func:`claim_parsed`); whatever is never claimed is freed by :func:`discard_parsed`.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import threading
from pathlib import Path
from typing import Any

__all__ = [
    "ABI_VERSION",
    "ENV",
    "LIBRARY",
    "PANIC",
    "claim_parsed",
    "default_threads",
    "discard_parsed",
    "gzipped",
    "judgments_taken",
    "library",
    "library_error",
    "parse_judgments_ahead",
    "reason",
    "waiting",
]



def _library_path() -> Path:
    """The built library: ``libprfeval_pass.so`` where ``make`` copies it, else the one a
    wheel holds, which setuptools-rust names as an extension module
    (``libprfeval_pass.abi3.so``, ``libprfeval_pass.cpython-311-x86_64-linux-gnu.so``)."""
    folder = Path(__file__).resolve().parents[1] / "_native"
    plain = folder / "libprfeval_pass.so"
    if plain.is_file():
        return plain
    tagged = sorted(folder.glob("libprfeval_pass.*.so"))
    return tagged[0] if tagged else plain


#: The compiled pass's library (it may be missing: prfeval then reads with Arrow alone).
LIBRARY = _library_path()

#: The environment variable that turns the compiled code off (``0``) or requires it (``1``);
#: read by the reader plan alone (:mod:`prfeval._io.plan`).
ENV = "PRFEVAL_NATIVE"

#: The C ABI this module is written for: the library's ``prf_abi_version()`` must say the
#: same (``ABI_VERSION`` in native/pass/src/lib.rs), else it is not used.
ABI_VERSION = 8

#: What a caught panic of the library is called in messages.
PANIC = "a panic inside the compiled pass, caught at its boundary"

_P = ctypes.c_void_p
_N = ctypes.c_size_t
_U64 = ctypes.c_uint64
_I64 = ctypes.c_int64

# Each function of the library: (result type, argument types).
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "prf_abi_version": (ctypes.c_uint32, []),
    "prf_reason": (ctypes.c_char_p, [_I64]),
    "prf_judge": (_P, [_P, _N, _N]),
    # The same for judgments as JSON Lines lists, their keys last (jsonl_lists.ListKeys).
    "prf_judge_lists": (_P, [_P, _N, _N, _P]),
    "prf_judged_status": (_I64, [_P, ctypes.POINTER(_I64)]),
    "prf_run": (_P, [_P, _P, _N, _N, _N, ctypes.c_uint8]),
    # The same for a JSON Lines run of lists, its keys last (jsonl_lists.ListKeys).
    "prf_run_lists": (_P, [_P, _P, _N, _N, _N, ctypes.c_uint8, _P]),
    "prf_next": (_P, [_P]),
    "prf_missing": (_P, [_P]),
    # The segment's fields and arrays by name (native_segments.SegmentView).
    "prf_segment_view": (None, [_P, _P]),
    "prf_free_segment": (None, [_P]),
    # A run array's join (native/pass/src/join.rs; prfeval._io.native_join): JoinRows.
    "prf_join_rows": (_I64, [_P]),
    "prf_encode_lists": (_I64, [_P]),
    "prf_jsonl_lists": (_I64, [_P]),
    "prf_free_run": (None, [_P]),
    "prf_free_judged": (None, [_P]),
    # The check of JSON Lines text (native/pass/src/jsonl.rs; prfeval._io.jsonl_native).
    "prf_jsonl_check": (_I64, [_P]),
    # The paired tests' draws (native/pass/src/draws.rs; prfeval._comparison.draws): a
    # PCG64 state and increment as four 64-bit halves, then the arrays; 0, or -1 (a panic).
    "prf_pcg64_raw": (_I64, [_U64, _U64, _U64, _U64, _U64, _U64, _P, _N]),
    "prf_sign_flip_stats": (_I64, [_U64, _U64, _U64, _U64, _P, _N, _N, _P, _N, _N, _P]),
    "prf_resample_means": (_I64, [_U64, _U64, _U64, _U64, _P, _N, _N, _N, _N, _P]),
}

_GZIP_MAGIC = b"\x1f\x8b"


class _Library:
    """The loaded library, or why there is none (loaded once, on first use)."""

    lib: ctypes.CDLL | None = None
    why_not: str | None = None
    tried = False
    lock = threading.Lock()

    @classmethod
    def get(cls) -> ctypes.CDLL | None:
        with cls.lock:  # the thread parsing ahead may load it as the main thread does
            if not cls.tried:
                cls.tried = True
                cls.lib, cls.why_not = _load()
        return cls.lib


def _load() -> tuple[ctypes.CDLL | None, str | None]:
    if not LIBRARY.is_file():
        return None, f"it is not built: no {LIBRARY.name} in {LIBRARY.parent}"
    try:
        lib = ctypes.CDLL(str(LIBRARY))  # a CDLL call releases the GIL
        version = getattr(lib, "prf_abi_version", None)
        if version is None:
            return _mismatch("a version before versions were numbered")
        version.restype, version.argtypes = ctypes.c_uint32, []
        if version() != ABI_VERSION:
            return _mismatch(f"ABI version {version()}")
        for name, (result, arguments) in _SIGNATURES.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = result, arguments
    except (OSError, AttributeError) as exc:
        return None, f"it cannot be loaded: {exc}"
    return lib, None


def _mismatch(found: str) -> tuple[None, str]:
    """Refuse a library of another ABI, saying so once: runs are then read without it."""
    import warnings

    from prfeval._core.errors import PrfevalWarning

    why = (f"the compiled pass at {LIBRARY} is {found}, this prfeval needs ABI version "
           f"{ABI_VERSION}: rebuild it (make native); reading without it")
    warnings.warn(why, PrfevalWarning, stacklevel=4)
    return None, why


def reason(code: int) -> str | None:
    """The words of the pass's reason ``code`` for leaving an input to the usual reader
    (``None`` for 0: it did not)."""
    if not code:
        return None
    words = library().prf_reason(code)
    return words.decode() if words else f"refused ({code})"


def default_threads() -> int:
    """The library's threads by default: the cores this process may run on, at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


def library_error() -> str | None:
    """Why the library cannot be loaded (``None``: it is loaded). Whether it is used is the
    reader plan's to say (:func:`prfeval._io.plan.compiled_unavailable`)."""
    if _Library.get() is None:
        return _Library.why_not
    return None


def library() -> ctypes.CDLL:
    """The loaded library; :class:`RuntimeError` when it is unavailable."""
    lib = _Library.get()
    if lib is None:
        raise RuntimeError(_Library.why_not)
    return lib


def parse_judgments(path: str, threads: int, lists: Any = None) -> int:
    """The pass's judgments of the TREC qrels file at ``path`` (a pointer for
    ``prf_judged_status`` and ``prf_run``; freed by ``prf_free_judged``), or of a JSON Lines
    file of lists with the keys ``lists`` (a ``jsonl_lists.ListKeys``). The file is mapped
    for the parse only: the judgments keep no pointer into it."""
    lib = library()

    def judge(address: int | None, size: int) -> int:
        if lists is None:
            return int(lib.prf_judge(address, size, threads))
        return int(lib.prf_judge_lists(address, size, threads, ctypes.byref(lists)))

    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if not size:
            return judge(None, 0)
        # A private mapping is writable to Python, which ctypes needs to take its address;
        # the pass only reads it, so no page is ever copied.
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    try:
        view = (ctypes.c_char * size).from_buffer(mapped)
        try:
            return judge(ctypes.addressof(view), size)
        finally:
            del view
    finally:
        mapped.close()


def gzipped(path: str) -> bool:
    """Whether the file starts with gzip's magic bytes (the pass reads no gzip)."""
    with open(path, "rb") as f:
        return f.read(2) == _GZIP_MAGIC


def _identity(path: str) -> tuple[int, int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


class _Ahead:
    """The one parse started ahead: its file's identity, its thread and, once done, the
    judgments' pointer."""

    def __init__(self, identity: tuple[int, int, int, int], path: str) -> None:
        self.identity = identity
        self.pointer: int | None = None
        self.thread = threading.Thread(
            target=self._parse, args=(path,), name="prfeval-judgments", daemon=True
        )

    def _parse(self, path: str) -> None:
        try:
            # One thread: the main one is importing on the other core meanwhile.
            self.pointer = parse_judgments(path, 1)
        except (OSError, ValueError, RuntimeError):
            self.pointer = None  # claimed as nothing: the judgments are parsed again

    def wait(self) -> int | None:
        self.thread.join()
        return self.pointer


_ahead: _Ahead | None = None


def parse_judgments_ahead(qrels: str) -> bool:
    """Start parsing the judgments file ``qrels`` on a thread (the reader plan says when:
    :func:`prfeval._io.plan.head_start`). Whether a parse was started (one at a time).

    Only a head start: nothing changes if the pass is not used after all (the parse is
    freed by :func:`discard_parsed`), or if the file changes before it is claimed."""
    global _ahead
    identity = _identity(qrels)
    if _ahead is not None or identity is None or not LIBRARY.is_file():
        return False
    _ahead = _Ahead(identity, qrels)
    _ahead.thread.start()
    return True


def waiting() -> bool:
    """Whether a parse started ahead waits to be claimed or freed."""
    return _ahead is not None


def judgments_taken(qrels: str) -> bool:
    """Whether the pass takes the judgments file ``qrels`` (the library loaded): parsed
    ahead (now, if no parse was started), and refused nowhere. A parse it takes is left to
    be claimed; one it refuses is freed."""
    if library_error() is not None:
        return False
    if _ahead is None and not parse_judgments_ahead(qrels):
        return False
    ahead = _ahead
    assert ahead is not None
    pointer = ahead.wait()
    if pointer and ahead.identity == _identity(qrels):
        line = ctypes.c_int64()
        if library().prf_judged_status(pointer, ctypes.byref(line)) == 0:
            return True
    discard_parsed()
    return False


def claim_parsed(path: str) -> int | None:
    """The judgments parsed ahead from the file at ``path``, waiting for the parse to end;
    ``None`` if none was started for that very file (same device, inode, size and mtime).
    Claimed once: the caller owns the pointer."""
    global _ahead
    ahead = _ahead
    if ahead is None:
        return None
    pointer = ahead.wait()
    if ahead.identity != _identity(path):
        discard_parsed()  # another file, or this one changed since: parsed again
        return None
    _ahead = None
    return pointer


def discard_parsed() -> None:
    """Free the judgments parsed ahead and never claimed (the pass was not used)."""
    global _ahead
    ahead, _ahead = _ahead, None
    if ahead is not None:
        pointer = ahead.wait()
        if pointer:
            library().prf_free_judged(pointer)


def native_setting() -> str:
    """``PRFEVAL_NATIVE`` as set: ``"0"`` (never the compiled code), ``"1"`` (required), or
    ``""``. The reader plan (:mod:`prfeval._io.plan`) decides with it."""
    return os.environ.get(ENV, "").strip()


def compiled_unavailable() -> str | None:
    """Why the compiled library cannot be used (``None``: it can): turned off by
    ``PRFEVAL_NATIVE=0``, or not loaded (:func:`library_error`)."""
    if native_setting() == "0":
        return f"{ENV}=0"
    return library_error()
