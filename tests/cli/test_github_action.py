"""The GitHub Action (``action.yml`` and its script ``action/gate.py``), run here with the
runner's environment simulated: the inputs as ``INPUT_*`` variables, and the summary and
output files (``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``) in a temporary folder.

The data are counted by hand: two questions, one relevant passage each; the baseline ranks
both first (P@1 = 1), the regressed candidate only one (P@1 = 0.5).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

yaml = pytest.importorskip("yaml")


def _script():
    spec = importlib.util.spec_from_file_location("action_gate", ROOT / "action" / "gate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def job(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "qrels.txt").write_text("q1 0 r1 1\nq2 0 r2 1\n")
    (tmp_path / "base.run").write_text("q1 Q0 r1 1 2 b\nq1 Q0 x 2 1 b\n"
                                       "q2 Q0 r2 1 2 b\nq2 Q0 y 2 1 b\n")  # fmt: skip
    (tmp_path / "worse.run").write_text("q1 Q0 r1 1 2 c\nq1 Q0 x 2 1 c\n"
                                        "q2 Q0 y 1 2 c\nq2 Q0 r2 2 1 c\n")  # fmt: skip
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    summary.write_text("earlier step\n")
    return {
        "INPUT_JUDGMENTS": str(tmp_path / "qrels.txt"),
        "INPUT_BASELINE": str(tmp_path / "base.run"),
        "INPUT_CANDIDATE": str(tmp_path / "worse.run"),
        "INPUT_MEASURES": "P@1 RR",
        "INPUT_BUDGET": "",
        "INPUT_ALPHA": "",
        "INPUT_ARGS": "--permutations 200",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "PATH": os.environ.get("PATH", ""),
    }


def _outputs(env: dict[str, str]) -> dict[str, str]:
    lines = Path(env["GITHUB_OUTPUT"]).read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def test_action_yml_is_a_composite_action_with_the_inputs_and_verdict() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    for name in ("judgments", "baseline", "candidate", "measures"):
        assert inputs[name]["required"] is True
    for name in ("budget", "alpha", "args"):
        assert name in inputs and "default" in inputs[name]
    for name, spec in inputs.items():  # any other input has a default
        assert spec.get("required") is True or "default" in spec, name
    assert "verdict" in action["outputs"]
    steps = action["runs"]["steps"]
    gate = next(s for s in steps if s.get("id") == "gate")
    assert "action/gate.py" in gate["run"]
    # Every input reaches the script by the environment, never pasted into the shell line.
    assert "${{" not in gate["run"]
    passed = {k.removeprefix("INPUT_").lower() for k in gate["env"]}
    assert passed == {"judgments", "baseline", "candidate", "measures", "budget", "alpha",
                      "args"}  # fmt: skip


def test_a_regression_fails_and_writes_the_summary(job) -> None:
    status = _script().main(job)
    assert status == 1
    assert _outputs(job) == {"verdict": "fail"}
    summary = Path(job["GITHUB_STEP_SUMMARY"]).read_text()
    assert summary.startswith("earlier step\n### prfeval gate: FAIL")  # appended
    row = next(line for line in summary.splitlines() if line.startswith("| `P@1`"))
    assert "| 1.0000 | 0.5000 |" in row and "| 1/0/1 |" in row


def test_within_budget_passes(job) -> None:
    job["INPUT_BUDGET"] = "P@1=0.5, RR=off"
    assert _script().main(job) == 0
    assert _outputs(job) == {"verdict": "pass"}
    assert "### prfeval gate: pass" in Path(job["GITHUB_STEP_SUMMARY"]).read_text()


def test_a_bare_budget_is_for_every_measure_and_alpha_is_passed(job) -> None:
    job["INPUT_BUDGET"] = "50%"
    job["INPUT_ALPHA"] = "0.05"
    args = _script().gate_arguments(job)
    assert args[args.index("--max-drop") + 1] == "ALL=50%"
    assert args[args.index("--alpha") + 1] == "0.05"
    assert _script().main(job) == 0


def test_a_missing_file_is_an_error(job) -> None:
    job["INPUT_CANDIDATE"] = job["INPUT_CANDIDATE"] + ".missing"
    assert _script().main(job) == 2
    assert _outputs(job) == {"verdict": "error"}
    summary = Path(job["GITHUB_STEP_SUMMARY"]).read_text()
    assert "### prfeval gate: error" in summary and "worse.run.missing" in summary


def test_a_missing_input_is_an_error(job) -> None:
    job["INPUT_MEASURES"] = " "
    assert _script().main(job) == 2
    assert _outputs(job) == {"verdict": "error"}
    assert "'measures' is required" in Path(job["GITHUB_STEP_SUMMARY"]).read_text()


def test_extra_arguments_are_split_as_a_shell_splits_them(job) -> None:
    job["INPUT_ARGS"] = "--permutations 200 --top 'three'"
    assert _script().gate_arguments(job)[-4:] == shlex.split(job["INPUT_ARGS"])
    assert _script().main(job) == 2  # --top takes a count: the gate's own error
    assert _outputs(job) == {"verdict": "error"}
