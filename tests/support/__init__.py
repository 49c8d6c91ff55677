"""What the tests share: where things are, in-process CLI runs (``support.cli``), seeded
random data (``support.random_data``), hand-built references (``support.hand_made``) and the
registry's measures as specs (``support.measure_specs``).

The tests are laid out by domain, one folder per package of ``src/prfeval`` (``tests/io``,
``tests/measures``, ``tests/trec_eval``, ...); pytest puts ``tests/`` on ``sys.path``
(``pythonpath`` in pyproject.toml), so every test imports ``support`` by that name.
"""

from __future__ import annotations

from pathlib import Path

#: The folder of the tests, the repository's root, and the recorded outputs of other tools.
TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
DATA = TESTS / "data"

#: A small valid pair of TREC files, for the tests of what happens around an evaluation
#: (streams, files, exit statuses, closed descriptors) rather than of its numbers: q1 judges a
#: relevant and b not, and retrieves a (first) and x (unjudged); q2's one relevant document
#: is ranked first; q3 is only in the run. P@1 is 1 for both judged queries.
SMALL_QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n"
SMALL_RUN = "q1 Q0 a 1 2 r\nq1 Q0 x 2 1 r\nq2 Q0 c 1 1 r\nq3 Q0 z 1 1 r\n"
