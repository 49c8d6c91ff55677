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
TESTS = Path(__file__).resolve().parents[2]
ROOT = TESTS.parent
DATA = TESTS / "data"
