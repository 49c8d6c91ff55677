"""JSON Lines are checked before Arrow reads them: one object a line, nested at most 64 deep.

Arrow's JSON reader crashed the process (SIGSEGV, exit 139, no message) on ``null {...}``,
``null{}``, ``null null`` and on a line nested 20,000 deep; it read two objects on one line
as two rows. Each must now be one line-numbered error and exit 2, in evaluate and classify.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from prfeval._core.errors import InputFormatError
from prfeval._io.jsonl import MAX_DEPTH, check_jsonl

GOOD = '{"query_id": "q1", "doc_id": "a", "relevance": 1}'
RUN = "q1 Q0 a 1 1 r\n"


def prfeval(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "prfeval", *argv], capture_output=True,
                          text=True, timeout=300)  # fmt: skip


@pytest.mark.process
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('null {"query_id": "q1", "doc_id": "a", "relevance": 1}',
         "expected one JSON object per line; the line starts 'null {"),
        ("null{}", "expected one JSON object per line; the line starts 'null{}'"),
        ("null null", "the line starts 'null null'"),
        ("null", "expected a JSON object per line, got null"),
        ("[1, 2]", "expected a JSON object per line, got a list"),
        (f"{GOOD} {GOOD}", "expected one JSON object per line, but more follows the first"),
        (f"{GOOD} null", "but more follows the first"),
        ('{"query_id": "q1", "x": ' + "[" * 20000 + "]" * 20000 + "}",
         f"nested deeper than {MAX_DEPTH} levels"),
    ],
    ids=["null then object", "null{}", "null null", "null", "list", "two objects",
         "object then null", "20,000 deep"],
)
def test_evaluate_refuses_what_crashed_arrow(tmp_path, line, message) -> None:
    qrels = tmp_path / "qrels.jsonl"
    qrels.write_text(f"\ufeff{GOOD}\n\n{line}\n{GOOD}\n", encoding="utf-8")
    (tmp_path / "run").write_text(RUN)
    done = prfeval("evaluate", str(qrels), str(tmp_path / "run"), "-m", "P@1")
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.startswith(f"prfeval: {qrels}:3: ") and message in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_classify_refuses_a_null_prefixed_line(tmp_path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"y": "a", "p": "a"}\nnull {"y": "b", "p": "b"}\n')
    done = prfeval("classify", str(labels), "--true", "y", "--pred", "p")
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert f"{labels}:2: expected one JSON object per line" in done.stderr


def test_brackets_and_quotes_inside_strings_are_text(tmp_path) -> None:
    """Ids holding braces, brackets, escaped quotes and backslashes are read as they are."""
    ids = ['a}{"', "[[[", "x\\", 'q"}{', "}" * 100]
    qrels = tmp_path / "qrels.jsonl"
    qrels.write_text("".join(json.dumps({"query_id": "q1", "doc_id": d, "relevance": 1}) + "\n"
                             for d in ids))  # fmt: skip
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps({"query_id": "q1", "doc_id": d, "score": 1.0}) + "\n"
                           for d in ids))  # fmt: skip
    done = prfeval("evaluate", str(qrels), str(run), "-m", "R@5 NumRel", "--format", "json")
    assert done.returncode == 0, done.stderr
    macro = json.loads(done.stdout)["macro"]
    assert macro["R@5"] == 1.0 and macro["NumRel"] == len(ids)


def _value(rng: random.Random, depth: int) -> object:
    """A random JSON value nested up to ``depth``, with strings full of JSON's own marks."""
    kind = rng.randrange(6 if depth > 0 else 4)
    if kind == 0:
        return rng.choice([None, True, 1, -2.5])
    if kind in (1, 2, 3):
        return "".join(rng.choice('ab{}[]"\\ ,:') for _ in range(rng.randrange(6)))
    if kind == 4:
        return [_value(rng, depth - 1) for _ in range(rng.randrange(3))]
    return {f"k{i}": _value(rng, depth - 1) for i in range(rng.randrange(3))}


def _nesting(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_nesting, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_nesting, value), default=0)
    return 0


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_an_exhaustive_reading(seed) -> None:
    """On random lines of valid JSON (objects and other values, one or two a line, deep and
    shallow), the first line refused is the first line that json.loads does not read as one
    object nested at most MAX_DEPTH deep."""
    rng = random.Random(seed)
    lines = []
    for _ in range(300):
        value = _value(rng, rng.choice([2, 4, 8]))
        if rng.random() < 0.02:
            value = {"deep": json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)} if rng.random() < 0.5 \
                else {"ok": json.loads("[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2))}
        text = json.dumps(value, separators=rng.choice([(",", ":"), (", ", ": ")]))
        if rng.random() < 0.004:
            text += " " + json.dumps(_value(rng, 2))
        lines.append(" " * rng.randrange(2) + text)
    want = None
    for i, text in enumerate(lines, 1):
        try:
            value = json.loads(text)
            whole = True
        except json.JSONDecodeError:  # two values on one line
            whole = False
        if not whole or not isinstance(value, dict) or _nesting(value) > MAX_DEPTH:
            want = i
            break
    data = "\n".join(lines).encode()
    if want is None:
        check_jsonl(data, "lines")
    else:
        with pytest.raises(InputFormatError) as info:
            check_jsonl(data, "lines")
        assert info.value.line_number == want
