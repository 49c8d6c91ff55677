"""The paired tests' Monte Carlo draws in the compiled library (``native/pass/src/draws.rs``).

:func:`~prfeval._comparison.stats.randomization_test` and
:func:`~prfeval._comparison.stats.paired_bootstrap` draw ``B x n`` uniform doubles from a
:class:`numpy.random.Generator`; the library draws the same numbers (numpy's PCG64 stream,
written from O'Neill's algorithm, started from the Generator's own state) and sums them as
it goes, on several threads, without storing them:

* :func:`sign_flip_stats`: ``stat[b, j] = total_j - 2 * sum_i f_bi d_ij``, ``f_bi = 1`` when
  ``u_bi`` is below 0.5 (the sign of query ``i`` is flipped), else 0;
* :func:`resample_means`: ``mean[b, j] = (sum_i d_{p_bi, j}) / n``, the picks
  ``p_bi = min(floor(n * u_bi), n - 1)`` computed in doubles as numpy computes them;

where ``u_bi`` is the Generator's draw ``b * n + i`` as ``Generator.random()`` gives it
(``b < B`` permutations or resamples, ``i < n`` queries). Each sum is taken over ``i`` in
order, one column at a time, so a column's values are the same to the last bit whichever
columns stand beside it and whatever the number of threads; they differ from numpy's path
(BLAS products of the same draws) by rounding alone. Both leave the Generator where drawing
``B x n`` doubles would: ``B * n`` steps further on. :func:`raw_draws` gives the library's
raw stream, to check it against numpy's.

The library serves a Generator whose bit generator is exactly :class:`numpy.random.PCG64`
(:func:`unavailable` says why not otherwise); ``PRFEVAL_NATIVE=0`` turns it off, and the
callers then draw with numpy.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from prfeval._io import native_lib
from prfeval._io.plan import compiled_unavailable

__all__ = [
    "raw_draws",
    "resample_means",
    "sign_flip_stats",
    "unavailable",
]

FloatArray = npt.NDArray[np.float64]

_HALF = (1 << 64) - 1


def unavailable(rng: np.random.Generator, n: int = 1) -> str | None:
    """Why the library cannot draw for ``rng`` over ``n`` queries (``None``: it can)."""
    if type(rng.bit_generator) is not np.random.PCG64:
        return f"the bit generator is {type(rng.bit_generator).__name__}, not PCG64"
    if n > 1 << 32:
        return "more than 2^32 queries"  # a resample's picks are 32-bit
    return compiled_unavailable()


def _halves(rng: np.random.Generator) -> tuple[int, int, int, int]:
    """The PCG64 state and increment, high and low 64 bits each."""
    state = rng.bit_generator.state["state"]
    s, inc = int(state["state"]), int(state["inc"])
    return s >> 64, s & _HALF, inc >> 64, inc & _HALF


def _advance(rng: np.random.Generator, steps: int) -> None:
    """Move ``rng`` on ``steps`` draws, as drawing them would. ``advance`` also drops the
    32-bit half a Generator may keep for its next 32-bit draw; drawing doubles keeps it, so it
    is put back."""
    bit_generator = rng.bit_generator
    if not isinstance(bit_generator, np.random.PCG64):  # the library's draws are PCG64's
        raise TypeError(f"cannot advance a {type(bit_generator).__name__} as PCG64")
    before = bit_generator.state
    bit_generator.advance(steps)
    if before["has_uint32"]:
        after = bit_generator.state
        after["has_uint32"], after["uinteger"] = before["has_uint32"], before["uinteger"]
        bit_generator.state = after


def _columns(d: FloatArray) -> FloatArray:
    """The columns of ``d`` (n, m) one after the other, as the library reads them."""
    return np.ascontiguousarray(d.T, dtype=np.float64)


def _address(a: np.ndarray) -> int:
    return int(a.ctypes.data)


def sign_flip_stats(
    d: FloatArray,
    totals: FloatArray,
    n_permutations: int,
    rng: np.random.Generator,
    *,
    threads: int | None = None,
) -> FloatArray:
    """The randomization test's statistics, shape ``(n_permutations, m)``, for differences
    ``d`` of shape ``(n, m)``: ``totals[j] - 2 * (sum of d[i, j] over the flipped i)``,
    permutation ``b`` flipping query ``i`` when ``rng``'s draw ``b * n + i`` is below 0.5.
    ``rng`` ends ``n_permutations * n`` draws further on. Check :func:`unavailable` first."""
    n, m = d.shape
    out = np.empty((n_permutations, m), dtype=np.float64)
    if m:
        columns = _columns(d)
        totals = np.ascontiguousarray(totals, dtype=np.float64)
        _checked(native_lib.library().prf_sign_flip_stats(
            *_halves(rng), _address(columns), n, m, _address(totals), n_permutations,
            native_lib.default_threads() if threads is None else threads, _address(out),
        ))  # fmt: skip
    _advance(rng, n_permutations * n)
    return out


def resample_means(
    d: FloatArray,
    n_resamples: int,
    rng: np.random.Generator,
    *,
    threads: int | None = None,
) -> FloatArray:
    """The paired bootstrap's resample means, shape ``(n_resamples, m)``, for differences
    ``d`` of shape ``(n, m)``: resample ``b`` picks query ``min(floor(n * u), n - 1)`` for
    ``rng``'s draw ``u = b * n + i``, ``i < n``, and the mean of a column is the sum of its
    picked values, in draw order, over ``n``. ``rng`` ends ``n_resamples * n`` draws further
    on. Check :func:`unavailable` first."""
    n, m = d.shape
    out = np.empty((n_resamples, m), dtype=np.float64)
    if m:
        columns = _columns(d)
        _checked(native_lib.library().prf_resample_means(
            *_halves(rng), _address(columns), n, m, n_resamples,
            native_lib.default_threads() if threads is None else threads, _address(out),
        ))  # fmt: skip
    _advance(rng, n_resamples * n)
    return out


def raw_draws(rng: np.random.Generator, count: int, *, skip: int = 0) -> npt.NDArray[np.uint64]:
    """The library's ``count`` raw 64-bit outputs of ``rng``'s PCG64 stream, ``skip`` steps
    past its state, leaving ``rng`` as it is: what ``rng.bit_generator.advance(skip)`` then
    ``random_raw(count)`` give, if the library's generator is numpy's."""
    out = np.empty(count, dtype=np.uint64)
    _checked(native_lib.library().prf_pcg64_raw(
        *_halves(rng), skip >> 64, skip & _HALF, _address(out), count
    ))
    return out


def _checked(status: int) -> None:
    """A draw the library gave up (it caught a panic: a bug) is an error, not numbers."""
    if status != 0:
        raise RuntimeError(f"the compiled draws failed ({native_lib.PANIC}); "
                           f"{native_lib.ENV}=0 draws with numpy")
