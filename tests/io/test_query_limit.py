"""One query with more results than prfeval holds for a query is refused with a clear limit,
on every path (a file read whole, a streamed file, gzip, standard input, Python objects),
before its ranking is built: a gzip of a few MB can hold a billion lines of one query.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys

import pytest

from prfeval import evaluate
from prfeval._core.errors import InputFormatError

LIMIT = 50
RUN = "".join(f"q1 Q0 d{i} {i + 1} {1000 - i} r\n" for i in range(LIMIT + 5)) + "q2 Q0 a 1 1 r\n"
QRELS = "q1 0 d3 1\nq2 0 a 1\n"
MESSAGE = f"query 'q1' has {LIMIT + 5} results, more than the {LIMIT} one query may have"


def prfeval(*argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PRFEVAL_MAX_QUERY_RESULTS": str(LIMIT)}
    return subprocess.run([sys.executable, "-m", "prfeval", *argv], input=stdin, env=env,
                          capture_output=True, timeout=120)  # fmt: skip


@pytest.fixture
def files(tmp_path) -> dict[str, str]:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    (tmp_path / "run.gz").write_bytes(gzip.compress(RUN.encode()))
    return {"qrels": str(tmp_path / "qrels"), "run": str(tmp_path / "run"),
            "gz": str(tmp_path / "run.gz")}  # fmt: skip


@pytest.mark.parametrize("path", ["whole", "stream", "gzip", "stdin"])
def test_a_query_past_the_limit_is_refused(files, path) -> None:
    run = {"whole": files["run"], "stream": files["run"], "gzip": files["gz"], "stdin": "-"}[path]
    extra = ["--stream"] if path == "stream" else []
    done = prfeval("evaluate", files["qrels"], run, "-m", "P@10", *extra,
                   stdin=RUN.encode() if path == "stdin" else None)  # fmt: skip
    err = done.stderr.decode()
    assert done.returncode == 2, err
    # The line where the query passes the limit: its (LIMIT + 1)th result.
    assert f":{LIMIT + 1}: {MESSAGE}" in err and "PRFEVAL_MAX_QUERY_RESULTS" in err
    assert "Traceback" not in err


def test_the_limit_holds_for_python_objects_and_can_be_raised(monkeypatch) -> None:
    monkeypatch.setenv("PRFEVAL_MAX_QUERY_RESULTS", str(LIMIT))
    run = {"q1": {f"d{i}": float(i) for i in range(LIMIT + 5)}}
    with pytest.raises(InputFormatError, match=MESSAGE):
        evaluate({"q1": {"d3": 1}}, run, "P@10", stream=False)
    monkeypatch.setenv("PRFEVAL_MAX_QUERY_RESULTS", str(LIMIT + 5))
    assert evaluate({"q1": {"d3": 1}}, run, "NumRet").macro["NumRet"] == LIMIT + 5
