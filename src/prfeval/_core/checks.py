"""Checking an API argument at the edge: each helper names the parameter and what it takes.

Every public function validates its arguments before any work, with these, so that a wrong
value is a :class:`~prfeval._core.errors.UsageError` ("k must be an integer >= 0, got 'a'"),
never a ``TypeError`` from deep inside numpy. Counts accept numpy integers (``np.int64(2)``)
as Python ints; ``True`` is not a count.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from prfeval._core.errors import UsageError

__all__ = [
    "MAX_BETA",
    "MAX_INTEGER",
    "beta",
    "choice",
    "flag",
    "function",
    "id_collection",
    "integer",
    "level",
    "max_results",
    "member",
    "number",
    "numbers_in",
    "probability",
    "sample_weight",
    "text",
]

#: The largest count, cutoff, depth or grade taken: 2^53, the last integer a float64 holds
#: exactly, far past any ranking's length, and safe to add to offsets in int64.
MAX_INTEGER = 2**53

#: The largest F weight taken: beta^2 (1e200) times any count stays a finite float64, and a
#: beta this large gives recall to every printed digit.
MAX_BETA = 1e100


def integer(
    name: str,
    value: Any,
    *,
    minimum: int | None = None,
    maximum: int = MAX_INTEGER,
    optional: bool = False,
    what: str = "an integer",
) -> Any:
    """``value`` as a Python int (numpy integers accepted), or a UsageError naming ``name``.

    Beyond ``maximum`` (2^53 unless given) a value is refused: no count is that large, and a
    larger one would overflow the 64-bit arithmetic it meets.

    Examples
    --------
    >>> import numpy as np
    >>> integer("k", np.int64(2), minimum=0)
    2
    """
    if value is None and optional:
        return None
    shown = what + ("" if minimum is None else f" >= {minimum}")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            raise UsageError(f"{name} must be {shown} (a whole number), got {value!r}")
        raise UsageError(f"{name} must be {shown}, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise UsageError(f"{name} must be {shown}, got {value}")
    if value > maximum:
        raise UsageError(f"{name} must be at most {maximum:,}, got {value:,}")
    return value


def beta(value: Any, name: str = "beta", *, positive: bool = False) -> float:
    """The F weight: a finite number in [0, 1e100] (in (0, 1e100] when ``positive``: a
    contour of F_0 = P is a vertical line, not a function of P), or a UsageError.

    Every beta prfeval takes (a measure's, a curve's, a classifier's, a contour's, a flag's)
    is checked here, so that each is refused in the same words.

    >>> beta(2)
    2.0
    """
    if positive:
        return float(number(name, value, above=0, maximum=MAX_BETA))
    return float(number(name, value, minimum=0, maximum=MAX_BETA))


def level(name: str, value: Any) -> int:
    """The minimum relevant grade: an integer >= 0 (numpy integers accepted).

    A negative level is refused with the reason: a negative grade means judged non-relevant,
    so no level makes it relevant.

    >>> level("level", 0)
    0
    """
    value = integer(name, value)
    if value < 0:
        raise UsageError(
            f"{name} must be an integer >= 0, got {value}: a negative grade means "
            "judged non-relevant, so no level makes it relevant (trec_eval's -l -1 "
            "counts even unjudged documents as relevant in the ranking, but not in R)"
        )
    return int(value)


def probability(name: str, value: Any, *, optional: bool = False) -> Any:
    """A level of significance: a number strictly between 0 and 1 (or ``None`` when
    ``optional``), as a float.

    >>> probability("alpha", 0.05)
    0.05
    """
    if value is None and optional:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0 < float(value) < 1
    ):
        raise UsageError(f"{name} must be in (0, 1), got {value!r}")
    return float(value)


def member(name: str, value: Any, allowed: tuple[int, ...]) -> int:
    """``value`` if it is one of the integers ``allowed`` (``True`` is not 1).

    >>> member("trec_eval_version", 10, (9, 10))
    10
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value not in allowed:
        shown = " or ".join(", ".join(str(a) for a in allowed).rsplit(", ", 1))
        raise UsageError(f"{name} must be {shown}, got {value!r}")
    return int(value)


def text(name: str, value: Any, *, optional: bool = False) -> Any:
    """``value`` if it is a string (or ``None`` when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise UsageError(f"{name} must be a name (a string), got {value!r}")
    return value


def number(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    above: float | None = None,
    optional: bool = False,
) -> Any:
    """``value`` as a finite Python float within the bounds given, or a UsageError.

    ``minimum``/``maximum`` are inclusive, ``above`` exclusive.
    """
    if value is None and optional:
        return None
    bounds = []
    if above is not None:
        bounds.append(f"> {above:g}")
    if minimum is not None:
        bounds.append(f">= {minimum:g}")
    if maximum is not None:
        bounds.append(f"<= {maximum:g}")
    shown = "a finite number" + (" " + " and ".join(bounds) if bounds else "")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageError(f"{name} must be {shown}, got {value!r}")
    x = float(value)
    ok = math.isfinite(x)
    ok = ok and (minimum is None or x >= minimum) and (maximum is None or x <= maximum)
    ok = ok and (above is None or x > above)
    if not ok:
        raise UsageError(f"{name} must be {shown}, got {value!r}")
    return x


def numbers_in(name: str, values: Any, **bounds: Any) -> tuple[float, ...]:
    """A collection of numbers, each checked as :func:`number` checks one."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise UsageError(f"{name} must be a list of numbers, got {values!r}")
    return tuple(number(name, v, **bounds) for v in values)


def flag(name: str, value: Any, *, optional: bool = False) -> Any:
    """``value`` if it is True or False (or ``None`` when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, bool):
        extra = ", or None" if optional else ""
        raise UsageError(f"{name} must be True or False{extra}, got {value!r}")
    return value


def choice(name: str, value: Any, choices: tuple[str, ...], *, optional: bool = False) -> Any:
    """``value`` if it is one of ``choices`` (or ``None`` when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or value not in choices:
        raise UsageError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return value


def function(name: str, value: Any) -> Callable[..., Any] | None:
    """``value`` if it is callable or ``None``."""
    if value is not None and not callable(value):
        raise UsageError(f"{name} must be a function or None, got {value!r}")
    return value


def id_collection(name: str, value: Any, *, optional: bool = True) -> frozenset[str] | None:
    """Query ids as a frozenset of strings; one string is refused (it would be its letters)."""
    if value is None and optional:
        return None
    if isinstance(value, str | bytes):
        raise UsageError(f"{name} must be a collection of query ids, not one string: {value!r}")
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise UsageError(f"{name} must be a collection of query ids, got {value!r}")
    return frozenset(str(q) for q in value)


def max_results() -> int:
    """The most results one query may have: 10,000,000, or ``PRFEVAL_MAX_QUERY_RESULTS``.

    A query is aligned in memory as a whole, at about 250 bytes a result, so one query of a
    billion lines (a gzip of a few MB can hold one) would need hundreds of GB before it
    failed. Far past any ranking a person evaluates; the variable raises it for the rare
    full-collection ranking.
    """
    import os

    given = os.environ.get("PRFEVAL_MAX_QUERY_RESULTS", "")
    return int(given) if given.isdigit() and int(given) > 0 else 10_000_000


def sample_weight(value: Any, n: int, name: str = "sample_weight") -> Any:
    """``value`` as a float64 array of ``n`` finite weights >= 0, not all 0, or ``None``.

    scikit-learn refuses weights that are all 0 (nothing would be measured); so does this.
    """
    if value is None:
        return None
    import numpy as np

    if isinstance(value, str | bytes | Mapping):
        raise UsageError(f"{name} must be one number per item, got {type(value).__name__}")
    try:
        w = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError(f"{name} must be numbers, one per item") from None
    if w.ndim != 1:
        raise UsageError(f"{name} must be one-dimensional, got shape {w.shape}")
    if len(w) != n:
        raise UsageError(f"{name} has {len(w)} weights for {n} items: give one per item")
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise UsageError(f"{name} must be finite and >= 0: position {i} holds {float(w[i])!r}")
    if n and not w.any():
        raise UsageError(f"{name} is 0 for every item: nothing to measure")
    return w
