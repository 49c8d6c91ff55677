"""Prototype (issue 26): the Rust pass (``bench/prototypes/rust_pass``), loaded with ctypes.

``build()`` runs ``cargo build --release --offline`` (no dependencies: crates.io is not
reachable here); ``run_pass`` maps both files, hands their bytes to ``prf_pass`` and wraps
the arrays it built as numpy arrays, without copying (they live until the pass is freed).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CRATE = Path(__file__).resolve().parent / "rust_pass"
LIB = Path(os.environ.get("PRF_PASS_LIB") or CRATE / "target" / "release" / "libprfeval_pass.so")

_FIELDS = (
    ("run_q", np.uint32), ("run_d", np.uint32), ("scores", np.float64), ("found", np.bool_),
    ("grade", np.int64), ("repeated", np.bool_), ("qrels_q", np.uint32),
    ("qrels_d", np.uint32), ("qrels_g", np.int64), ("order", np.uint32), ("qstart", np.int64),
    ("q_off", np.int64), ("q_arena", np.uint8), ("doc_key_off", np.int64),
    ("doc_arena", np.uint8), ("status", np.int64),
)


def build() -> None:
    """Build the cdylib (offline)."""
    subprocess.run(["cargo", "build", "--release", "--offline", "--quiet"], cwd=CRATE, check=True)


class PassError(ValueError):
    """A line the pass cannot read."""


class _Lib:
    lib: ctypes.CDLL | None = None

    @classmethod
    def get(cls) -> ctypes.CDLL:
        if cls.lib is None:
            lib = ctypes.CDLL(str(LIB))
            lib.prf_pass.restype = ctypes.c_void_p
            lib.prf_pass.argtypes = [ctypes.c_void_p, ctypes.c_size_t] * 2 + [ctypes.c_size_t]
            lib.prf_array.restype = ctypes.c_void_p
            size_p = ctypes.POINTER(ctypes.c_size_t)
            lib.prf_array.argtypes = [ctypes.c_void_p, ctypes.c_int, size_p]
            lib.prf_free.argtypes = [ctypes.c_void_p]
            cls.lib = lib
        return cls.lib


class _Handle:
    """Frees the pass when the last array wrapping its memory is gone."""

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr

    def __del__(self) -> None:
        _Lib.get().prf_free(self.ptr)


def _wrap(handle: _Handle, which: int, dtype: type) -> np.ndarray:
    n = ctypes.c_size_t()
    addr = _Lib.get().prf_array(handle.ptr, which, ctypes.byref(n))
    if not n.value:
        return np.zeros(0, dtype=dtype)
    size = n.value * np.dtype(dtype).itemsize
    raw = (ctypes.c_ubyte * size).from_address(addr)
    arr = np.frombuffer(raw, dtype=dtype)
    arr.flags.writeable = False
    raw._handle = handle  # type: ignore[attr-defined]  # keeps the Rust memory alive
    return arr


@dataclass
class Pass:
    run_q: np.ndarray
    run_d: np.ndarray
    scores: np.ndarray
    found: np.ndarray
    grade: np.ndarray
    repeated: np.ndarray
    qrels_q: np.ndarray
    qrels_d: np.ndarray
    qrels_g: np.ndarray
    order: np.ndarray
    qstart: np.ndarray
    grouped: bool
    query_ids: list[str]
    doc_key_off: np.ndarray
    doc_arena: np.ndarray

    def doc_id(self, code: int) -> str:
        o = self.doc_key_off
        return bytes(self.doc_arena[o[code] : o[code + 1]]).decode()


def _map(path: str) -> tuple[mmap.mmap | None, int, int]:
    if os.path.getsize(path) == 0:
        return None, 0, 0
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    view = np.frombuffer(m, dtype=np.uint8)
    return m, view.ctypes.data, view.size


def run_pass(qrels_path: str, run_path: str, *, threads: int = 2) -> Pass:
    """Parse, encode, join and order a TREC qrels file and run."""
    lib = _Lib.get()
    _mq, qa, qn = _map(qrels_path)  # the mappings stay open until the pass returns
    _mr, ra, rn = _map(run_path)
    handle = _Handle(lib.prf_pass(qa, qn, ra, rn, threads))
    arrays = {name: _wrap(handle, i, dt) for i, (name, dt) in enumerate(_FIELDS)}
    status = arrays.pop("status")
    grouped, dup, bad_file, bad_line, bad_kind, bad_fields = (int(x) for x in status)
    if bad_file:
        path = qrels_path if bad_file == 1 else run_path
        what = (
            f"{bad_fields} fields" if bad_kind == 1 else f"field {bad_fields + 1} is not a number"
        )
        raise PassError(f"{path}:{bad_line}: {what}")
    if dup >= 0:
        raise PassError(f"{qrels_path}: judgment {dup + 1} repeated")
    q_off, q_arena = arrays.pop("q_off"), arrays.pop("q_arena")
    raw = q_arena.tobytes()
    query_ids = [raw[q_off[c] : q_off[c + 1]].decode() for c in range(q_off.size - 1)]
    return Pass(grouped=bool(grouped), query_ids=query_ids, **arrays)


if __name__ == "__main__":
    import sys
    import time

    t0 = time.perf_counter()
    p = run_pass(sys.argv[1], sys.argv[2], threads=int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    print(f"{time.perf_counter() - t0:.3f} s, {p.run_q.size} lines, {len(p.query_ids)} queries")
