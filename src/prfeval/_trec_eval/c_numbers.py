"""Numbers read as C's ``atof`` and ``atol`` read them, as trec_eval reads its files.

C takes the longest prefix of a field that is a number and ignores the rest, or reads 0:
``3.5abc`` is 3.5, ``0x1p3`` is 8.0, ``1e400`` is infinite; as an integer ``1.0`` is 1,
``+1`` is 1 and ``0x1`` is 0.
"""

from __future__ import annotations

import re

__all__ = ["PLAIN_FLOAT", "PLAIN_INT", "atof", "atol"]

#: A decimal number that Python's ``float`` and C's ``strtod`` read whole, to the same value
#: (both round correctly). Python alone also reads ``1_0``, so everything else goes to atof.
PLAIN_FLOAT = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: An integer that ``int`` and ``atol`` read whole, to the same value, within 64 bits.
PLAIN_INT = re.compile(rb"-?[0-9]{1,18}")

_ATOF_PREFIX = re.compile(
    rb"[ \t\n\v\f\r]*([+-]?)(?:"
    rb"(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)"
    rb"|((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    rb"|([iI][nN][fF](?:[iI][nN][iI][tT][yY])?)"
    rb"|([nN][aA][nN])"
    rb")"
)
_ATOL_PREFIX = re.compile(rb"[ \t\n\v\f\r]*([+-]?[0-9]+)")


def atof(text: bytes) -> float:
    """C's ``atof`` (``strtod`` with no end pointer) of ``text``: the longest prefix that is a
    decimal or hexadecimal number, ``inf``/``infinity`` or ``nan``, else 0.0. An overflow is
    infinite, as ``strtod`` returns HUGE_VAL.

    >>> atof(b"3.5abc"), atof(b"0x1p3"), atof(b"1e400"), atof(b"-INF"), atof(b"x")
    (3.5, 8.0, inf, -inf, 0.0)
    """
    found = _ATOF_PREFIX.match(text)
    if found is None:
        return 0.0
    sign, hexa, decimal, infinite, _nan = found.groups()
    negative = sign == b"-"
    if hexa is not None:
        try:
            value = float.fromhex(hexa.decode("ascii"))
        except OverflowError:
            value = float("inf")
    elif decimal is not None:
        value = float(decimal)
    elif infinite is not None:
        value = float("inf")
    else:
        value = float("nan")
    return -value if negative else value


def atol(text: bytes | str) -> int:
    """C's ``atol`` of ``text``: the leading decimal integer (after spaces and a sign), else
    0. Only ASCII digits count, and a value past 64 bits is clamped, as glibc's ``strtol``
    clamps it.

    >>> atol(b" -12abc"), atol(b"1.0"), atol(b"+1"), atol(b"0x1"), atol("99999999999999999999")
    (-12, 1, 1, 0, 9223372036854775807)
    """
    raw = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    found = _ATOL_PREFIX.match(raw)
    value = int(found.group(1)) if found else 0
    return max(-(2**63), min(value, 2**63 - 1))
