"""The text of a measure's name, read: names split apart, parameters split, cutoffs and levels
read and checked. Shared by the parser of prfeval's names and that of trec_eval's spellings.
"""

from __future__ import annotations

import math

from prfeval._core.checks import MAX_INTEGER
from prfeval._core.errors import MeasureError
from prfeval._core.measure_def import number_text

__all__ = ["cutoff_value", "level_value", "split_names", "split_params"]

_fmt = number_text


def cutoff_value(text: str, label: str, top: int = MAX_INTEGER) -> int:
    try:
        k = int(text)
    except ValueError:
        raise MeasureError(f"{label}: the cutoff must be an integer >= 0, got {text!r}") from None
    if k < 0:
        raise MeasureError(f"{label}: the cutoff must be an integer >= 0, got {k}")
    if k > top:
        raise MeasureError(f"{label}: the cutoff must be at most {top:,}, got {k:,}")
    return k


def level_value(text: str, label: str, top: float | None = 1.0) -> float:
    """A level after ``@``: a recall level in [0, 1], or a number >= 0 when ``top`` is None."""
    bounds = "[0, 1]" if top == 1.0 else (f"[0, {_fmt(top)}]" if top is not None else ">= 0")
    what = "the recall level" if top == 1.0 else "the level"
    try:
        r = float(text)
    except ValueError:
        raise MeasureError(f"{label}: {what} must be a number {bounds}") from None
    if not (r >= 0.0 and (top is None or r <= top) and math.isfinite(r)):
        raise MeasureError(f"{label}: {what} must be in {bounds}, got {r:g}")
    return r


def split_names(text: str) -> list[str]:
    """Split on whitespace outside parentheses (``SetF(beta=2, rel=2)`` stays whole)."""
    tokens: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch.isspace() and depth == 0:
            if current:
                tokens.append("".join(current))
            current = []
        else:
            current.append(ch)
    if current:
        tokens.append("".join(current))
    return tokens


def split_params(text: str) -> list[str]:
    """Split ``a=1, gains={0:0,1:1}, levels=[0.1,0.5]`` on the commas outside brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts
