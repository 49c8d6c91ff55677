"""``@prfeval.measure``: a measure of one's own, declared and added to the registry; and
``--measures-from``'s loading of a file or module of them."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path

from prfeval._core.errors import MeasureError, UsageError
from prfeval._measures import register_user_definition
from prfeval._measures.user import QueryRanking, UserMeasure, definition_of, where

__all__ = ["load_measures", "measure"]


def measure(
    name: str, *, cutoff: bool = False, higher_is_better: bool = True
) -> Callable[[Callable[[QueryRanking, int | None], float]], Callable[..., float]]:
    """Declare a per-query measure of your own: a decorator on ``def f(r, k) -> float``.

    Parameters
    ----------
    name
        The measure's name, as typed in ``-m`` (letters, digits, ``_`` and ``-``, starting
        with a letter); it may not be a built-in measure's name or alias.
    cutoff
        Whether the name takes a cutoff: ``LinDCG@10``; ``k`` is then that int (``None``
        without one).
    higher_is_better
        The direction compare and gate read the sign of a difference from.

    Returns
    -------
    callable
        The decorator; it returns the function unchanged, registered.

    Notes
    -----
    ``f(r, k)`` gets a :class:`QueryRanking` per query and returns a number (a NaN, an
    infinity, a non-number or an exception is a :class:`~prfeval.MeasureError` naming the
    measure and the query). The values are averaged over queries by their mean, like
    P@k's; the measure also takes ``(rel=N)``, the relevance level its ``r.gains`` and
    ``r.num_rel`` use. Defining a name again (running a file twice) replaces it.

    Examples
    --------
    >>> import prfeval
    >>> @prfeval.measure("FirstGain", cutoff=True)
    ... def first_gain(r, k):
    ...     top = r.gains[:k]
    ...     return float(top[0]) if top.size else 0.0
    >>> prfeval.evaluate({"q": {"a": 2}}, {"q": ["a", "b"]}, "FirstGain@5").macro["FirstGain@5"]
    2.0
    >>> from prfeval._measures import forget_user_measure
    >>> forget_user_measure("FirstGain")  # the registry as it was
    """
    if not isinstance(name, str) or not name[:1].isalpha() or not all(
        ch.isalnum() or ch in "_-" for ch in name
    ):
        raise MeasureError(
            f"a measure's name must start with a letter and hold letters, digits, _ and -: "
            f"got {name!r}"
        )

    def register(function: Callable[[QueryRanking, int | None], float]) -> Callable[..., float]:
        if not callable(function):
            raise UsageError(f"@prfeval.measure({name!r}) decorates a function f(r, k)")
        doc = inspect.getdoc(function) or ""
        summary = doc.splitlines()[0] if doc else f"your own measure, {where(function)}"
        user = UserMeasure(name, function, bool(cutoff), bool(higher_is_better), summary)
        register_user_definition(definition_of(user))
        return function

    return register


def load_measures(source: str) -> None:
    """Run a Python file (``measures.py``) or import a module (``mypkg.measures``) whose
    ``@prfeval.measure`` declarations register measures: what ``--measures-from`` does."""
    path = Path(source)
    if source.endswith(".py") or path.is_file():
        if not path.is_file():
            raise UsageError(f"--measures-from {source}: no such file")
        module_name = f"prfeval_user_measures_{abs(hash(str(path.resolve())))}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise UsageError(f"--measures-from {source}: not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # so that its dataclasses and pickles find it
        try:
            spec.loader.exec_module(module)
        except MeasureError:
            raise
        except Exception as error:
            del sys.modules[module_name]
            raise UsageError(
                f"--measures-from {source}: {type(error).__name__}: {error}"
            ) from error
        return
    try:
        importlib.import_module(source)
    except MeasureError:
        raise
    except Exception as error:
        raise UsageError(
            f"--measures-from {source}: cannot import it ({type(error).__name__}: {error})"
        ) from error
