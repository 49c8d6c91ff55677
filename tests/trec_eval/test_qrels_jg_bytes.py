"""``-R qrels_jg`` with ids that are not UTF-8 (issue 45, D10): trec_eval compares ids as
bytes, and so does prfeval's drop-in. The expected outputs were recorded from trec_eval 9.0.8
(built from its release source) on the same files."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import trec_eval_in_process

CASES = [
    pytest.param(  # a doc id not UTF-8 in both files, and one in UTF-8 in both
        b"1 a d\xff1 1\n1 a d2 0\n1 b d\xc3\xa92 1\n1 b d\xff1 0\n2 a d3 1\n",
        b"1 Q0 d\xff1 1 3 r\n1 Q0 d\xc3\xa92 2 2 r\n1 Q0 d2 3 1 r\n2 Q0 d3 1 1 r\n",
        ["-q", "-m", "map_avgjg", "-m", "P_avgjg.5"],
        b"map_avgjg             \t1\t0.7500\nP_avgjg_5             \t1\t0.2000\n"
        b"map_avgjg             \t2\t1.0000\nP_avgjg_5             \t2\t0.2000\n"
        b"map_avgjg             \tall\t0.8750\nP_avgjg_5             \tall\t0.2000\n",
        id="doc-ids",
    ),
    pytest.param(  # judgments in UTF-8, a run that is not: the UTF-8 id still matches
        b"1 a d\xc3\xa92 1\n1 a d2 0\n",
        b"1 Q0 d\xff1 1 3 r\n1 Q0 d\xc3\xa92 2 2 r\n",
        ["-q", "-m", "map_avgjg", "-m", "P_avgjg.5"],
        b"map_avgjg             \t1\t0.5000\nP_avgjg_5             \t1\t0.2000\n"
        b"map_avgjg             \tall\t0.5000\nP_avgjg_5             \tall\t0.2000\n",
        id="run-only",
    ),
    pytest.param(  # query ids and the run id printed as their bytes
        b"\xffq a d\xff1 1\n\xffq a d2 0\nq2 a d3 1\n",
        b"\xffq Q0 d2 1 3 r\xfe\n\xffq Q0 d\xff1 2 2 r\xfe\nq2 Q0 d3 1 1 r\xfe\n",
        ["-q", "-m", "runid", "-m", "num_q", "-m", "map_avgjg"],
        b"map_avgjg             \tq2\t1.0000\nmap_avgjg             \t\xffq\t0.5000\n"
        b"runid                 \tall\tr\xfe\nnum_q                 \tall\t2\n"
        b"map_avgjg             \tall\t0.7500\n",
        id="query-ids",
    ),
    pytest.param(  # the run id of a small ASCII run (it was printed as "run")
        b"1 a d1 1\n1 a d2 0\n",
        b"1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n",
        ["-q", "-m", "runid", "-m", "num_q", "-m", "map_avgjg"],
        b"map_avgjg             \t1\t1.0000\nrunid                 \tall\tr\n"
        b"num_q                 \tall\t1\nmap_avgjg             \tall\t1.0000\n",
        id="runid",
    ),
]


@pytest.mark.parametrize(("qrels", "run", "args", "expected"), CASES)
def test_qrels_jg_reads_ids_as_bytes(
    qrels: bytes, run: bytes, args: list[str], expected: bytes, tmp_path: Path,
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    (tmp_path / "qrels_jg").write_bytes(qrels)
    (tmp_path / "run").write_bytes(run)
    te = trec_eval_in_process(capfdbinary)
    status, out, err = te([*args, "-R", "qrels_jg", str(tmp_path / "qrels_jg"),
                           str(tmp_path / "run")])
    assert (status, out, err) == (0, expected, b"")
