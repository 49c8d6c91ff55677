"""A file of measures of one's own, as a user writes it for ``--measures-from``, and the
hand-computed values of its LinDCG on :data:`QRELS`, :data:`RUN_A` and :data:`RUN_B`."""

from __future__ import annotations

import math

MEASURES_FILE = '''\
import numpy as np
import prfeval


@prfeval.measure("LinDCG", cutoff=True)
def lin_dcg(r, k):
    """DCG of the top k with linear gains (the grade), log2 discount."""
    g = r.gains[:k]
    return float((g / np.log2(np.arange(2, g.size + 2))).sum())


@prfeval.measure("Raises")
def raises(r, k):
    if r.query_id == "q2":
        raise ZeroDivisionError("my own bug")
    return 1.0


@prfeval.measure("Words")
def words(r, k):
    return "not a number"
'''

QRELS = "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\nq3 0 e 1\nq3 0 f 3\n"
RUN_A = ("q1 Q0 a 1 3 A\nq1 Q0 x 2 2 A\nq1 Q0 b 3 1 A\n"
         "q2 Q0 y 1 2 A\nq2 Q0 d 2 1 A\nq3 Q0 f 1 2 A\nq3 Q0 e 2 1 A\n")
RUN_B = ("q1 Q0 b 1 3 B\nq1 Q0 a 2 2 B\nq1 Q0 x 3 1 B\n"
         "q2 Q0 d 1 2 B\nq2 Q0 y 2 1 B\nq3 Q0 x 1 2 B\nq3 Q0 f 2 1 B\n")

_D = 1 / math.log2(3)  # the discount at rank 2
#: LinDCG@2 per query, by hand: the grades of the top two over log2(2) and log2(3).
LIN_DCG_2 = {
    "A": {"q1": 2.0, "q2": _D, "q3": 3.0 + _D},  # a(2) x; y d(1); f(3) e(1)
    "B": {"q1": 1.0 + 2 * _D, "q2": 1.0, "q3": 3 * _D},  # b(1) a(2); d(1) y; x f(3)
}


def write(folder) -> dict[str, str]:
    """The measures file and the three inputs in ``folder``: name -> path."""
    paths = {}
    for name, text in (("measures.py", MEASURES_FILE), ("qrels", QRELS), ("a.run", RUN_A),
                       ("b.run", RUN_B)):
        (folder / name).write_text(text)
        paths[name] = str(folder / name)
    return paths
