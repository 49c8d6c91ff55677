"""A query set that matches nothing is an error, read whole or streamed; notes that list
queries give the count and the ids so that neither can be taken for the other.

A run over 8 MiB is read in blocks; an unknown id used to end there in a traceback while the
same run read whole averaged over no query and exited 0. Both must refuse it, naming the id
and the closest judged ones.
"""

from __future__ import annotations

import pytest

from prfeval import evaluate, explain
from prfeval._core.errors import UsageError
from prfeval._io.plan import STREAM_THRESHOLD_BYTES
from support.cli import run_cli

N_QUERIES = 120


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[str, str]:
    """Judgments of queries 1..120 and a run of them over the streaming threshold."""
    root = tmp_path_factory.mktemp("bigrun")
    qrels = root / "qrels.trec"
    run = root / "run.trec"
    qrels.write_text(
        "".join(f"{q} 0 d{d} {d % 2}\n" for q in range(1, N_QUERIES + 1) for d in range(20))
    )
    per_query = STREAM_THRESHOLD_BYTES // (N_QUERIES * 20) + 10
    with run.open("w") as f:
        for q in range(1, N_QUERIES + 1):
            f.write(
                "".join(f"{q} Q0 d{d} {d + 1} {per_query - d} r\n" for d in range(per_query))
            )
    assert run.stat().st_size > STREAM_THRESHOLD_BYTES
    return str(qrels), str(run)


def listed(tmp_path, *ids: str) -> str:
    path = tmp_path / "queries.txt"
    path.write_text("".join(f"{q}\n" for q in ids))
    return str(path)


@pytest.mark.parametrize("stream", [True, False])
def test_unknown_query_set_is_refused_either_way(big, stream) -> None:
    qrels, run = big
    with pytest.raises(UsageError) as info:
        evaluate(qrels, run, "P@10", queries=["9999"], stream=stream)
    assert str(info.value).startswith(
        "query '9999' is in neither the run nor the judgments; did you mean '99'?"
    )
    with pytest.raises(UsageError, match="none of the 2 listed queries is in the run or the "
                       "judgments: 'q7', 'x'"):
        evaluate(qrels, run, "P@10", queries=["x", "q7"], stream=stream)


@pytest.mark.parametrize("flag", ["--stream", "--no-stream"])
def test_cli_evaluate_and_compare_refuse_a_query_set_that_matches_nothing(
    big, tmp_path, capsys, flag
) -> None:
    qrels, run = big
    queries = listed(tmp_path, "9999")
    code, out, err = run_cli(capsys, "evaluate", qrels, run, "--queries", queries, flag)
    assert code == 2 and out == ""
    assert err.startswith("prfeval: query '9999' is in neither the run nor the judgments; "
                          "did you mean '99'?")
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    if flag == "--stream":  # compare streams a run this large by itself
        code, out, err = run_cli(capsys, "compare", qrels, run, run, "--queries", queries)
        assert code == 2 and "Traceback" not in err
        assert "query '9999' is in neither the run nor the judgments" in err


def test_explain_of_an_unknown_query_on_a_streamed_run(big, capsys) -> None:
    qrels, run = big
    code, _, err = run_cli(capsys, "explain", qrels, run, "--query", "9999")
    assert code == 2 and "Traceback" not in err
    assert "query '9999' is in neither the run nor the judgments; did you mean '99'?" in err
    with pytest.raises(UsageError, match="did you mean '99'"):
        explain(qrels, run, "9999", stream=True)


def test_a_partly_matching_query_set_is_evaluated_and_the_rest_named(big, tmp_path, capsys):
    qrels, run = big
    queries = listed(tmp_path, "2", "9999")
    code, out, _ = run_cli(capsys, "evaluate", qrels, run, "--queries", queries, "-m", "P@10")
    assert code == 0
    text = " ".join(out.split())
    assert "Queries evaluated: 1," in text
    assert "Query set: the 2 queries listed in" in text
    assert ("1 listed query was found in neither the run nor the judgments: '9999'. "
            "It was ignored.") in text


def test_notes_give_the_count_then_the_quoted_ids(tmp_path, capsys) -> None:
    """Query ids that are numbers are quoted: '5' is an id, 3 a count."""
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 a 1\n" for q in (1, 5, 17, 23)))
    run.write_text("1 Q0 a 1 1 r\n2 Q0 a 1 1 r\n40 Q0 a 1 1 r\n")
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "P@10")
    assert code == 0
    text = " ".join(out.split())
    assert ("3 judged queries had no results: '5', '17', '23'. They were skipped; -c scores "
            "them as empty rankings.") in text
    assert "2 run queries had no judgments: '2', '40'. They were skipped." in text
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "P@10", "-c")
    assert "3 judged queries had no results: '5', '17', '23'. They score as empty rankings." \
        in " ".join(out.split())
