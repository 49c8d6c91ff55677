"""Inputs on which trec_eval's reading differs from a careful reader's, and what trec_eval
9.0.8 printed for each, replayed by ``tests/trec_eval/test_recorded_outputs.py``.

Each case is a pair of files and arguments. ``PYTHONPATH=tests python
tests/trec_eval/trec_eval_dialect_cases.py /path/to/trec_eval`` runs the built binary (9.0.8,
from usnistgov/trec_eval at tag v9.0.8) on every case and writes
``tests/data/trec_eval_908_dialect.json``: its stdout (whole, or its SHA-256 for the large
cases), stderr and exit status. Only that output is committed, never the binary.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from support.recordings import Runner, write_expected

EXPECTED = Path(__file__).parents[1] / "data" / "trec_eval_908_dialect.json"

QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n2 0 d 2\n"
RUN = b"1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 x 3 1 r\n2 Q0 d 1 5 r\n2 Q0 a 2 4 r\n"


def _large(lines: int, odd: bytes, at: int) -> tuple[bytes, bytes]:
    """A run of ``lines`` lines over 200 queries (grouped), with ``odd`` as line ``at``, and
    its judgments: large enough for the reader of large files."""
    qrels = b"".join(
        b"%d 0 d%d %d\n" % (q, d, (q + d) % 3) for q in range(200) for d in range(0, 60, 3)
    )
    per_query = lines // 200
    run = [
        b"%d Q0 d%d %d %.4f tag\n" % (i // per_query, i % per_query, i % per_query, 1 / (1 + i % 7))
        for i in range(per_query * 200)
    ]
    # ``odd`` names its query QQ and its document DD: those of the line it replaces.
    i = at - 1
    run[i] = odd.replace(b"QQ", b"%d" % (i // per_query)).replace(b"DD", b"d%d" % (i % per_query))
    return qrels, b"".join(run)


#: name -> (qrels bytes, run bytes, trec_eval arguments before the files)
CASES: dict[str, tuple[bytes, bytes, list[str]]] = {
    "hash_query_ids": (
        QRELS + b"#1 0 a 1\n#1 0 e 1\n",
        RUN + b"#1 Q0 a 1 2 r\n#1 Q0 q 2 1 r\n",
        ["-q"],
    ),
    "hash_query_ids_complete": (
        QRELS + b"#3 0 a 1\n", RUN + b"#1 Q0 a 1 2 r\n", ["-c", "-m", "map", "-m", "num_q"]
    ),
    "hash_doc_lines_only_judged": (b"#1 0 a 1\n" + QRELS, RUN, ["-c", "-m", "num_q"]),
    "lone_cr_in_run_line": (
        QRELS, b"1 Q0 a 1 3 r\r1 Q0 c 2 2 r\n2 Q0 d 1 5 r\n", ["-q", "-m", "num_ret"]
    ),
    "lone_cr_as_field_separator": (
        b"1 0 a\r1\n1 0\rc 1\n", b"1\rQ0 a 1 3 r\n1 Q0 c\r2 2 r\n", ["-q"]
    ),
    "crlf_line_ends": (
        QRELS.replace(b"\n", b"\r\n"), RUN.replace(b"\n", b"\r\n"), ["-q"]
    ),
    "odd_scores": (
        QRELS,
        b"1 Q0 a 1 0x1p3 r\n1 Q0 b 2 3.5abc r\n1 Q0 c 3 abc r\n1 Q0 x 4 1e400 r\n"
        b"2 Q0 d 1 -inf r\n2 Q0 a 2 inf r\n2 Q0 z 3 +2.5e0 r\n2 Q0 y 4 .5 r\n",
        ["-q", "-m", "map", "-m", "P.2", "-m", "recip_rank", "-m", "relstring"],
    ),
    "nan_score_alone": (QRELS, b"1 Q0 a 1 nan r\n2 Q0 d 1 1 r\n", ["-q", "-m", "map"]),
    "odd_grades": (
        b"1 0 a 1.0\n1 0 b +1\n1 0 c 0x1\n1 0 d 2abc\n2 0 a -1\n2 0 d 3e2\n2 0 e x\n",
        RUN + b"1 Q0 c 4 0.5 r\n1 Q0 d 5 0.25 r\n",
        ["-q", "-m", "num_rel", "-m", "num_rel_ret", "-m", "ndcg", "-l", "1"],
    ),
    "not_utf8_ids": (
        b"q\xe9 0 d\xff 1\nq\xe9 0 b 0\n2 0 \xc3\xa9 1\n",
        b"q\xe9 Q0 d\xff 1 2 r\xe0\nq\xe9 Q0 b 2 1 r\xe0\n2 Q0 \xc3\xa9 1 1 r\xe0\n",
        ["-q"],
    ),
    "blank_lines_in_run": (QRELS, b"\n" + RUN.replace(b"\n", b"\n\n  \n"), ["-q"]),
    "malformed_run_after_blank_lines": (
        QRELS, b"\n\n1 Q0 a 1 3 r\n\n1 Q0 b 2\n", []
    ),
    "malformed_qrels_blank_line": (b"1 0 a 1\n\n1 0 b 1\n", RUN, []),
    "malformed_qrels_five_fields": (b"1 0 a 1\n1 0 b 1 extra\n", RUN, []),
    "run_extra_fields": (QRELS, RUN.replace(b" r\n", b" r extra fields\n"), ["-q"]),
    "tab_vt_ff_separators": (
        QRELS.replace(b" ", b"\t"), RUN.replace(b" ", b"\x0b").replace(b"Q0", b"Q0\x0c"), []
    ),
    "no_final_newline": (QRELS.rstrip(b"\n"), RUN.rstrip(b"\n"), ["-q"]),
}


def _large_cases() -> dict[str, tuple[bytes, bytes, list[str]]]:
    cases = {}
    for name, odd in {
        "large_hash_line": b"#QQ Q0 DD 0 0.5 tag\n",
        "large_clean": b"QQ Q0 DD 1 0.5 tag\n",
        "large_cr_line": b"QQ Q0 DD 0 0.5 tag\rQQ Q0 d999 1 0.25 tag\n",
        "large_hex_score": b"QQ Q0 DD 0 0x1p-1 tag\n",
        "large_malformed": b"QQ Q0 DD 0\n",
        "large_tabs": b"QQ\tQ0\tDD\t0\t0.5\ttag\n",
    }.items():
        qrels, run = _large(60_000, odd, 47_001)
        cases[name] = (qrels, run, ["-q", "-m", "all_trec"])
    return cases


CASES.update(_large_cases())
#: Cases whose stdout is compared by its SHA-256 (too large to commit whole).
LARGE = {name for name in CASES if name.startswith("large_")}


def materialise(directory: Path, name: str) -> tuple[Path, Path, list[str]]:
    """Write the case's files under ``directory``: (qrels path, run path, arguments)."""
    qrels, run, args = CASES[name]
    qrels_path, run_path = directory / f"{name}.qrels", directory / f"{name}.run"
    qrels_path.write_bytes(qrels)
    run_path.write_bytes(run)
    return qrels_path, run_path, args


def outcome(command: Runner, name: str, directory: Path) -> dict[str, object]:
    """What ``command`` printed for case ``name``, as the expected file records it (file
    paths in messages replaced by QRELS and RUN; a large case's stdout by its SHA-256)."""
    qrels_path, run_path, args = materialise(directory, name)
    status, stdout, stderr = command([*args, str(qrels_path), str(run_path)])
    stderr = stderr.replace(str(qrels_path).encode(), b"QRELS")
    stderr = stderr.replace(str(run_path).encode(), b"RUN")
    return {
        "status": status,
        "stderr": stderr.decode("latin-1"),
        "stdout": hashlib.sha256(stdout).hexdigest() if name in LARGE else stdout.decode("latin-1"),
    }


if __name__ == "__main__":
    write_expected(sys.argv[1], CASES, outcome, EXPECTED)
