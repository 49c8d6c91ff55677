"""The cases of ``tests/trec_eval/trec_eval_level_cases.py`` (levels below 0, graded judgments
with negative grades, unjudged documents, ``-q``, ``-c``, ``-J``, ``-M``, all_trec with
``yaap``) and what trec_eval 10.0 printed for each, replayed by
``tests/trec_eval/test_recorded_outputs.py`` (``VERSION``: prfeval runs them with
``--trec-eval-version 10``).

The judgments, runs and arguments are 9.0.8's cases, unchanged. 10.0 counts a level below 0
as 9.0.8 does; its ``rbp`` (in all_trec) reads, as the top of its gain scaling, what ``yaap``
(asked in every case) left in memory just before: these cases hold that too.

``PYTHONPATH=tests python tests/trec_eval/trec_eval_10_level_cases.py /path/to/trec_eval``
runs the built binary (10.0, from usnistgov/trec_eval at tag v10.0) on every case and writes
``tests/data/trec_eval_10_level.json``: the argv (files named QRELS and RUN), stdout,
stderr and exit status. Only that output is committed, never the binary.
"""

from __future__ import annotations

import sys
from pathlib import Path

from trec_eval_level_cases import CASES, outcome

from support.recordings import write_expected

__all__ = ["CASES", "EXPECTED", "VERSION", "outcome"]

EXPECTED = Path(__file__).parents[1] / "data" / "trec_eval_10_level.json"
#: The trec_eval these outputs are from.
VERSION = "10"


if __name__ == "__main__":
    write_expected(sys.argv[1], CASES, outcome, EXPECTED)
