"""Means of precision and recall, and the geometry of the F_beta contours.

Why F is a harmonic mean (Manning, Raghavan and Schütze 2008, §8.3): three ways to make one
number of P and R:

==========  ==================  ==================================================
arithmetic  ``(P + R) / 2``     easy to game: retrieving everything scores ~0.5
geometric   ``sqrt(P R)``       between the two
harmonic    ``2 P R / (P + R)`` F1: dominated by the smaller of P and R
==========  ==================  ==================================================

with harmonic <= geometric <= arithmetic, all three equal when P = R. Otherwise geometric <
arithmetic, and harmonic < geometric unless P or R is 0, where both are 0. The harmonic mean is
computed by :func:`prfeval._core.counts.f_from_pr`, the one F of given P and R in the package.

The rest of the module is the geometry of a contour ``F_beta(P, R) = c`` over the P-R square.
Clearing denominators in ``(1 + b^2) P R / (b^2 P + R) = c`` gives the rectangular hyperbola

.. math:: (P - a)(R - b) = a b, \\qquad a = \\frac{c}{1 + \\beta^2}, \\quad
          b = \\frac{c \\beta^2}{1 + \\beta^2},

so ``R = c b^2 P / ((1 + b^2) P - c)`` with asymptotes ``P = a`` and ``R = b``, and its vertex
(where it bends most sharply) at ``P = a + sqrt(ab)``, ``R = b + sqrt(ab)``, on the
indifference line ``R = beta P`` where a gain in P is worth the same as a gain in R.

Examples
--------
The F2 = 0.5 contour runs from P = 1/6 at perfect recall to R = 4/9 at perfect
precision:

>>> p_full_recall, r_full_precision = contour_endpoints(0.5, beta=2.0)
>>> round(p_full_recall, 4), round(r_full_precision, 4)
(0.1667, 0.4444)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from prfeval._core.checks import beta as check_beta
from prfeval._core.counts import f_from_pr
from prfeval._core.errors import UsageError

__all__ = [
    "EXAMPLE_SYSTEMS",
    "MEANS",
    "Mean",
    "MeansTable",
    "arithmetic_mean",
    "contour_asymptotes",
    "contour_endpoints",
    "contour_vertex",
    "geometric_mean",
    "harmonic_mean",
    "indifference_line",
    "means_table",
    "precision_on_f_contour",
    "recall_on_f_contour",
    "recall_on_mean_contour",
]

FloatArray = npt.NDArray[np.float64]

Mean = Literal["arithmetic", "geometric", "harmonic"]
MEANS: tuple[Mean, ...] = ("arithmetic", "geometric", "harmonic")

#: Five example systems for the table of the three means: a worked example (P 0.4, R 0.8),
#: a balanced one, one that retrieves everything, one that retrieves a single relevant
#: document of 20, and a lopsided one.
EXAMPLE_SYSTEMS: dict[str, tuple[float, float]] = {
    "The example": (0.4, 0.8),
    "Balanced": (0.5, 0.5),
    "Retrieve everything": (0.002, 1.0),
    "One result, relevant, of 20": (1.0, 0.05),
    "Lopsided": (0.9, 0.1),
}

# Slack for a point computed on a contour that should land exactly on the square's edge
# (e.g. R at P = 1 on the c = 1 contour) but overshoots by a rounding error.
_EDGE_TOLERANCE = 1e-12


def _as_pr(p: npt.ArrayLike, r: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Precision and recall as broadcast float arrays, checked to lie in [0, 1]."""
    p_a, r_a = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(r, dtype=np.float64))
    for name, values in (("precision", p_a), ("recall", r_a)):
        # `not (0 <= v <= 1)` also catches NaN, which a plain range test would let through.
        bad = ~((values >= 0.0) & (values <= 1.0))
        if bad.any():
            raise UsageError(f"{name} must be in [0, 1], got {values[bad].flat[0]!r}")
    return p_a, r_a


def arithmetic_mean(p: npt.ArrayLike, r: npt.ArrayLike) -> FloatArray:
    """The arithmetic mean of precision and recall, ``(P + R) / 2``.

    Parameters
    ----------
    p, r
        Precision and recall, each in [0, 1]; broadcast against each other.

    Returns
    -------
    numpy.ndarray
        The mean, elementwise.

    Raises
    ------
    UsageError
        If a value is outside [0, 1] or NaN.

    Notes
    -----
    Its contours are the lines ``R = 2c - P``: a unit of precision always buys a unit of
    recall, so retrieving everything (P = 0.002, R = 1) scores 0.501, as well as a balanced
    system (Manning, Raghavan and Schütze 2008, §8.3, make the point).

    Examples
    --------
    >>> float(arithmetic_mean(0.002, 1.0))
    0.501
    """
    p_a, r_a = _as_pr(p, r)
    return (p_a + r_a) / 2.0


def geometric_mean(p: npt.ArrayLike, r: npt.ArrayLike) -> FloatArray:
    """The geometric mean of precision and recall, ``sqrt(P R)``.

    Parameters
    ----------
    p, r
        Precision and recall, each in [0, 1]; broadcast against each other.

    Returns
    -------
    numpy.ndarray
        The mean, elementwise; 0 when either value is 0.

    Raises
    ------
    UsageError
        If a value is outside [0, 1] or NaN.

    Notes
    -----
    Its contours are the hyperbolas ``R = c^2 / P``, which approach the axes only
    asymptotically, so it punishes imbalance less than the harmonic mean does.

    Examples
    --------
    >>> round(float(geometric_mean(1.0, 0.05)), 3)
    0.224
    """
    p_a, r_a = _as_pr(p, r)
    return np.sqrt(p_a * r_a)


def harmonic_mean(p: npt.ArrayLike, r: npt.ArrayLike) -> FloatArray:
    """The harmonic mean of precision and recall, which is F1: ``2 P R / (P + R)``.

    Parameters
    ----------
    p, r
        Precision and recall, each in [0, 1]; broadcast against each other.

    Returns
    -------
    numpy.ndarray
        F1, elementwise; 0 when either value is 0 (including P = R = 0, where the formula
        is 0/0: a system with neither precision nor recall scores 0).

    Raises
    ------
    UsageError
        If a value is outside [0, 1] or NaN.

    Notes
    -----
    Computed by :func:`prfeval._core.counts.f_from_pr` with ``beta = 1``. It is dominated by the
    smaller value: retrieving everything (P = 0.002, R = 1) scores 0.004.

    Examples
    --------
    >>> round(float(harmonic_mean(0.4, 0.8)), 3)
    0.533
    """
    p_a, r_a = _as_pr(p, r)
    return f_from_pr(p_a, r_a, 1.0)


@dataclass(frozen=True)
class MeansTable:
    """The three means for a list of (P, R) pairs, as parallel columns.

    Attributes
    ----------
    labels
        A name per row, or ``None`` for an unnamed row.
    precision, recall
        The input values.
    arithmetic, geometric, harmonic
        ``(P + R) / 2``, ``sqrt(P R)`` and ``2 P R / (P + R)`` (= F1).
    """

    labels: tuple[str | None, ...]
    precision: FloatArray
    recall: FloatArray
    arithmetic: FloatArray
    geometric: FloatArray
    harmonic: FloatArray

    #: The numeric columns, in display order.
    COLUMNS = ("precision", "recall", "arithmetic", "geometric", "harmonic")

    def __len__(self) -> int:
        return len(self.labels)

    def records(self) -> list[dict[str, str | float | None]]:
        """One dict per row: ``system`` (the label or ``None``) and the five numbers."""
        rows: list[dict[str, str | float | None]] = []
        for i, label in enumerate(self.labels):
            row: dict[str, str | float | None] = {"system": label}
            row.update({name: float(getattr(self, name)[i]) for name in self.COLUMNS})
            rows.append(row)
        return rows


def means_table(
    pairs: Mapping[str, Sequence[float]] | Iterable[Sequence[float]] | npt.ArrayLike,
    *,
    labels: Sequence[str | None] | None = None,
) -> MeansTable:
    """The arithmetic, geometric and harmonic means of each (P, R) pair, as a table.

    Parameters
    ----------
    pairs
        ``(P, R)`` pairs: a sequence of pairs, an array of shape ``(n, 2)``, or a mapping
        ``name -> (P, R)`` whose keys become the labels.
    labels
        Row names, one per pair (not allowed together with a mapping).

    Returns
    -------
    MeansTable
        The inputs and the three means, column by column. No pairs give an empty table.

    Raises
    ------
    UsageError
        If the pairs are not of shape ``(n, 2)``, a value is outside [0, 1], or the number of
        labels does not match.

    Notes
    -----
    Always harmonic <= geometric <= arithmetic, all equal when P = R; for P != R the
    geometric is below the arithmetic, and the harmonic below the geometric unless P or R is
    0 (then both are 0).

    Examples
    --------
    >>> t = means_table(EXAMPLE_SYSTEMS)
    >>> [round(float(v), 3) for v in (t.arithmetic[2], t.geometric[2], t.harmonic[2])]
    [0.501, 0.045, 0.004]
    """
    if isinstance(pairs, Mapping):
        if labels is not None:
            raise UsageError("give labels either as the mapping's keys or as labels=, not both")
        labels = list(pairs.keys())
        pairs = list(pairs.values())
    try:
        array = np.asarray(pairs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"pairs must be (precision, recall) numbers: {exc}") from None
    if array.size == 0:
        array = array.reshape(0, 2)
    if array.ndim != 2 or array.shape[1] != 2:
        raise UsageError(f"pairs must have shape (n, 2), got {array.shape}")
    n = array.shape[0]
    if labels is None:
        row_labels: tuple[str | None, ...] = (None,) * n
    else:
        row_labels = tuple(labels)
        if len(row_labels) != n:
            raise UsageError(f"got {len(row_labels)} labels for {n} pairs")
    p, r = _as_pr(array[:, 0], array[:, 1])
    return MeansTable(
        labels=row_labels,
        precision=p.copy(),
        recall=r.copy(),
        arithmetic=arithmetic_mean(p, r),
        geometric=geometric_mean(p, r),
        harmonic=harmonic_mean(p, r),
    )


# --- F_beta contours -------------------------------------------------------------------


def _check_contour(c: float, beta: float) -> tuple[float, float]:
    """Validate a contour level and weight; returns ``(c, beta**2)``."""
    c = float(c)
    beta = float(beta)
    if not 0.0 < c <= 1.0:
        raise UsageError(f"a contour level must be in (0, 1], got {c}")
    # beta = 0 is F = P, whose contours are vertical lines, not functions of P.
    beta = check_beta(beta, positive=True)
    return c, beta * beta


def _inside_unit(values: FloatArray) -> FloatArray:
    """Values in [0, 1] (snapping rounding overshoot at the edges), NaN elsewhere."""
    out = np.where((values >= -_EDGE_TOLERANCE) & (values <= 1.0 + _EDGE_TOLERANCE), values, np.nan)
    return np.clip(out, 0.0, 1.0)


def recall_on_f_contour(p: npt.ArrayLike, c: float, beta: float = 1.0) -> FloatArray:
    """The recall at which ``F_beta(P, R) = c``, for each precision ``P``.

    Parameters
    ----------
    p
        Precision values (any shape).
    c
        The contour level, in (0, 1].
    beta
        The F weight, > 0 (recall counts beta times as much as precision).

    Returns
    -------
    numpy.ndarray
        ``R = c b^2 P / ((1 + b^2) P - c)``, elementwise; NaN where no recall in [0, 1]
        reaches F = c: at or left of the asymptote ``P = c / (1 + b^2)``, where the required
        recall is above 1 (``P < c / (1 + b^2 (1 - c))``), and for P outside [0, 1].

    Raises
    ------
    UsageError
        If ``c`` is not in (0, 1] or ``beta`` is not a positive finite number.

    Notes
    -----
    Solving ``(1 + b^2) P R / (b^2 P + R) = c`` for R. The curve falls from R = 1 at
    ``P = c / (1 + b^2 (1 - c))`` to ``R = c b^2 / (1 + b^2 - c)`` at P = 1; the c = 1
    contour is the single point P = R = 1.

    Examples
    --------
    For F1 = 0.5 a system needs recall of at least 1/3 even with perfect precision:

    >>> round(float(recall_on_f_contour(1.0, 0.5)), 4)
    0.3333
    """
    c, b2 = _check_contour(c, beta)
    p_a = np.asarray(p, dtype=np.float64)
    den = (1.0 + b2) * p_a - c
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0.0, c * b2 * p_a / den, np.nan)
    r = np.where((p_a >= 0.0) & (p_a <= 1.0), r, np.nan)
    return _inside_unit(r)


def precision_on_f_contour(r: npt.ArrayLike, c: float, beta: float = 1.0) -> FloatArray:
    """The precision at which ``F_beta(P, R) = c``, for each recall ``R``.

    The inverse of :func:`recall_on_f_contour`: ``P = c R / ((1 + b^2) R - c b^2)``, NaN at or
    below the asymptote ``R = c b^2 / (1 + b^2)``, where the required precision is above 1,
    and for R outside [0, 1]. Sampling a contour along both axes keeps its steep parts
    smooth when it is drawn.

    Examples
    --------
    >>> round(float(precision_on_f_contour(1.0, 0.5, beta=2.0)), 4)
    0.1667
    """
    c, b2 = _check_contour(c, beta)
    r_a = np.asarray(r, dtype=np.float64)
    den = (1.0 + b2) * r_a - c * b2
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(den > 0.0, c * r_a / den, np.nan)
    p = np.where((r_a >= 0.0) & (r_a <= 1.0), p, np.nan)
    return _inside_unit(p)


def recall_on_mean_contour(p: npt.ArrayLike, c: float, mean: Mean) -> FloatArray:
    """The recall at which the given mean of (P, R) equals ``c``, for each precision ``P``.

    ``arithmetic``: ``R = 2c - P`` (straight lines of slope -1); ``geometric``:
    ``R = c^2 / P``; ``harmonic``: the F1 contour of :func:`recall_on_f_contour`.
    NaN where the required recall is outside [0, 1] or P is outside [0, 1].

    Examples
    --------
    >>> float(recall_on_mean_contour(0.002, 0.501, "arithmetic"))
    1.0
    """
    if mean == "harmonic":
        return recall_on_f_contour(p, c, 1.0)
    c, _ = _check_contour(c, 1.0)
    p_a = np.asarray(p, dtype=np.float64)
    if mean == "arithmetic":
        r = 2.0 * c - p_a
    elif mean == "geometric":
        with np.errstate(divide="ignore"):
            r = np.where(p_a > 0.0, c * c / p_a, np.inf)
    else:
        raise UsageError(f"unknown mean {mean!r}: choose one of {', '.join(MEANS)}")
    r = np.where((p_a >= 0.0) & (p_a <= 1.0), r, np.nan)
    return _inside_unit(r)


def contour_asymptotes(c: float, beta: float = 1.0) -> tuple[float, float]:
    """The asymptotes of the ``F_beta = c`` hyperbola: ``(P = c/(1+b^2), R = c b^2/(1+b^2))``.

    No system with precision at or below the first (or recall at or below the second)
    reaches ``F_beta = c``, whatever the other value. For F2 = 0.5: P = 0.1, R = 0.4.

    Examples
    --------
    >>> tuple(round(v, 4) for v in contour_asymptotes(0.5, beta=2.0))
    (0.1, 0.4)
    """
    c, b2 = _check_contour(c, beta)
    return c / (1.0 + b2), c * b2 / (1.0 + b2)


def contour_endpoints(c: float, beta: float = 1.0) -> tuple[float, float]:
    """Where the ``F_beta = c`` contour meets the square's top and right edges.

    Returns
    -------
    tuple of float
        ``(P at R = 1, R at P = 1)`` = ``(c / (1 + b^2 (1 - c)), c b^2 / (1 + b^2 - c))``:
        the least precision (recall) that can reach F = c, with perfect recall (precision).

    Examples
    --------
    >>> tuple(round(v, 4) for v in contour_endpoints(0.5))
    (0.3333, 0.3333)
    """
    c, b2 = _check_contour(c, beta)
    return c / (1.0 + b2 * (1.0 - c)), c * b2 / (1.0 + b2 - c)


def contour_vertex(c: float, beta: float = 1.0) -> tuple[float, float]:
    """The vertex of the ``F_beta = c`` hyperbola, where it bends most sharply.

    Parameters
    ----------
    c
        The contour level, in (0, 1].
    beta
        The F weight, > 0.

    Returns
    -------
    tuple of float
        ``(P, R) = (a + sqrt(ab), b + sqrt(ab))`` with ``a = c / (1 + b^2)`` and
        ``b = c b^2 / (1 + b^2)``. It may lie outside the unit square (e.g. c = 0.9,
        beta = 2 gives R = 1.08), where no system can reach it.

    Notes
    -----
    Writing the contour as ``(P - a)(R - b) = ab``, the vertex is on the symmetry axis of
    the hyperbola through its centre ``(a, b)``; its ratio ``R / P = sqrt(b / a) = beta``
    puts it on the indifference line ``R = beta P``.

    Examples
    --------
    >>> p, r = contour_vertex(0.5, beta=2.0)
    >>> round(r / p, 12)
    2.0
    """
    a, b = contour_asymptotes(c, beta)
    root = float(np.sqrt(a * b))
    return a + root, b + root


def indifference_line(p: npt.ArrayLike, beta: float = 1.0) -> FloatArray:
    """The line ``R = beta P`` on which a gain in P is worth the same as a gain in R.

    There ``dF/dP = dF/dR``, van Rijsbergen's (1979, ch. 7) definition of beta as the
    user's relative importance of recall; below it raising recall raises
    F_beta more, above it raising precision does. The values are not clipped: R exceeds 1
    for ``P > 1 / beta``.

    Examples
    --------
    >>> indifference_line([0.1, 0.3], beta=2.0).tolist()
    [0.2, 0.6]
    """
    beta = check_beta(beta, positive=True)
    return beta * np.asarray(p, dtype=np.float64)
