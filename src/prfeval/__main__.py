"""``python -m prfeval``: the same as the ``prfeval`` command."""

from prfeval.cli import main

main()
