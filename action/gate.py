"""The script of prfeval's GitHub Action (``action.yml``): run ``prfeval gate`` from the
action's inputs, write its markdown verdict to the job's summary, and set the ``verdict``
output.

It reads what GitHub Actions gives a step (here passed by ``action.yml`` as environment
variables, never pasted into a shell line):

``INPUT_JUDGMENTS``, ``INPUT_BASELINE``, ``INPUT_CANDIDATE``, ``INPUT_MEASURES``
    The judgments, the baseline (a run or a saved evaluation), the candidate run and the
    measures (``"R@10 nDCG@10"``).
``INPUT_BUDGET``
    Budgets, separated by spaces or commas: ``MEASURE=AMOUNT`` (``R@10=0.02``,
    ``nDCG@10=2%``, ``MRR@10=off``) or one bare ``AMOUNT`` for every measure (``ALL=``).
``INPUT_ALPHA``
    A drop over budget fails only where the paired test finds it significant at this level.
``INPUT_ARGS``
    More arguments of ``prfeval gate``, split as a shell splits them (``--queries heldout.txt
    -c``).
``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``
    Files the runner reads after the step: the summary (appended to) and the outputs
    (``verdict=pass``, ``fail`` or ``error``).

Exit status: 0 pass, 1 fail, 2 error (bad input, a missing file, not comparable), as the
gate's own; the verdict output is set in every case.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

VERDICTS = {0: "pass", 1: "fail"}


def gate_arguments(env: Mapping[str, str]) -> list[str]:
    """The ``prfeval gate`` arguments the inputs stand for (a missing required input is a
    ``ValueError`` naming it)."""
    needed = {}
    for name in ("judgments", "baseline", "candidate", "measures"):
        value = env.get(f"INPUT_{name.upper()}", "").strip()
        if not value:
            raise ValueError(f"the input {name!r} is required")
        needed[name] = value
    args = ["gate", needed["judgments"], needed["baseline"], needed["candidate"],
            "-m", needed["measures"]]  # fmt: skip
    for budget in re.split(r"[\s,]+", env.get("INPUT_BUDGET", "").strip()):
        if budget:
            args += ["--max-drop", budget if "=" in budget else f"ALL={budget}"]
    alpha = env.get("INPUT_ALPHA", "").strip()
    if alpha:
        args += ["--alpha", alpha]
    args += shlex.split(env.get("INPUT_ARGS", ""))
    return args


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(text)


def main(env: Mapping[str, str] | None = None) -> int:
    """Run the gate as the inputs say; the exit status (0 pass, 1 fail, 2 error)."""
    env = os.environ if env is None else env
    try:
        args = gate_arguments(env)
    except ValueError as exc:
        message = f"prfeval gate: {exc}"
        status = 2
        summary = ""
    else:
        with tempfile.TemporaryDirectory() as folder:
            target = Path(folder) / "summary.md"
            done = subprocess.run(
                [sys.executable, "-m", "prfeval", *args, "--format", "markdown", "-o",
                 str(target)],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            summary = target.read_text(encoding="utf-8") if target.exists() else ""
        status = done.returncode if done.returncode in (0, 1) else 2
        message = done.stderr.strip()
    verdict = VERDICTS.get(status, "error")
    if status == 2:
        summary = ("### prfeval gate: error\n\n```\n" + (message or "prfeval gate failed")
                   + "\n```\n")  # fmt: skip
    print(summary, end="")
    if message:
        print(message, file=sys.stderr)
    _append(env.get("GITHUB_STEP_SUMMARY"), summary)
    _append(env.get("GITHUB_OUTPUT"), f"verdict={verdict}\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
