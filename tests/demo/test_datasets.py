"""Tests for prfeval._demo.datasets: the SMART reader and the bundled Cranfield collection."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from importlib import resources

import pytest

from prfeval._core.errors import InputFormatError
from prfeval._demo.datasets import (
    Document,
    load_cranfield,
    parse_cranfield_qrels,
    parse_smart,
    queries_from_records,
    write_qrels,
)
from prfeval._demo.datasets.cranfield import DOCUMENTS_FILE, QRELS_FILE, QUERIES_FILE
from prfeval._demo.datasets.smart import documents_from_records


def _bundled(name: str) -> str:
    resource = resources.files("prfeval").joinpath("data").joinpath("cranfield").joinpath(name)
    return resource.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def cran():
    return load_cranfield()


# --- Cranfield ------------------------------------------------------------------------------


def test_cranfield_documents(cran):
    assert len(cran.documents) == 1400
    assert [d.doc_id for d in cran.documents] == [str(i) for i in range(1, 1401)]
    first = cran.documents[0]
    assert first.title == (
        "experimental investigation of the aerodynamics of a\nwing in a slipstream ."
    )
    assert first.authors == "brenckman,m."
    assert first.source == "j. ae. scs. 25, 1958, 324."
    assert first.text.startswith(first.title)  # .W repeats the title
    assert first.text.endswith("the specific configuration of the experiment .")


def test_cranfield_odd_documents(cran):
    # 471 and 995 are empty records; 240 repeats .A and .B, whose parts are concatenated
    assert cran.documents[470] == Document("471")
    assert cran.documents[994] == Document("995")
    doc240 = cran.documents[239]
    assert doc240.authors == (
        "dean r. chapman\napplication to turbulent separations is made for a prandtl number of"
    )
    assert doc240.source.startswith("naca technote 3792\nunity in low-speed flow")
    assert doc240.text.endswith("injected into the separated region  .")


def test_cranfield_queries_are_numbered_by_position(cran):
    assert len(cran.queries) == 225
    assert [q.qid for q in cran.queries] == [str(i) for i in range(1, 226)]
    assert [q.smart_id for q in cran.queries[:5]] == ["001", "002", "004", "008", "009"]
    assert cran.queries[1].text == (
        "what are the structural and aeroelastic problems associated with flight\n"
        "of high speed aircraft ."
    )


def test_cranfield_qrels(cran):
    file_lines = [line for line in _bundled(QRELS_FILE).splitlines() if line.strip()]
    assert sum(len(judged) for judged in cran.qrels.values()) == len(file_lines) == 1837
    assert list(cran.qrels) == [str(i) for i in range(1, 226)]
    grades = Counter(g for judged in cran.qrels.values() for g in judged.values())
    assert grades == {-1: 225, 1: 128, 2: 387, 3: 734, 4: 363}
    assert list(cran.qrels["1"].items())[:3] == [("184", 2), ("29", 2), ("31", 2)]
    relevant_2 = [d for d, g in cran.qrels["2"].items() if g >= 1]
    assert len(relevant_2) == 24  # seed 000: codes 1-4 relevant


def test_write_qrels_round_trip(cran, tmp_path):
    path = tmp_path / "cran.qrels"
    assert write_qrels(path, cran.qrels) == 1837
    lines = path.read_text().splitlines()
    assert len(lines) == 1837
    assert lines[0] == "1 0 184 2"
    assert lines[-1] == "225 0 1188 -1"
    back: dict[str, dict[str, int]] = {}
    for line in lines:
        qid, iteration, doc_id, grade = line.split(" ")
        assert iteration == "0"
        back.setdefault(qid, {})[doc_id] = int(grade)
    assert back == cran.qrels


def test_write_qrels_rejects_ids_with_spaces(tmp_path):
    with pytest.raises(ValueError, match="whitespace"):
        write_qrels(tmp_path / "q", {"1": {"doc 1": 1}})
    with pytest.raises(ValueError, match="whitespace"):
        write_qrels(tmp_path / "q", {"": {"d": 1}})


def test_load_cranfield_from_directory(tmp_path):
    for name in (DOCUMENTS_FILE, QUERIES_FILE, QRELS_FILE):
        (tmp_path / name).write_text(_bundled(name))
    cran = load_cranfield(tmp_path)
    assert len(cran.documents) == 1400 and len(cran.queries) == 225


def test_load_cranfield_reports_file_and_line(tmp_path):
    for name in (DOCUMENTS_FILE, QUERIES_FILE):
        (tmp_path / name).write_text(_bundled(name))
    lines = _bundled(QRELS_FILE).splitlines()
    lines[16] = "2 1401 3"  # no such document
    (tmp_path / QRELS_FILE).write_text("\n".join(lines))
    with pytest.raises(InputFormatError) as info:
        load_cranfield(tmp_path)
    assert info.value.line_number == 17
    assert info.value.path == str(tmp_path / QRELS_FILE)
    assert str(info.value) == f"{tmp_path / QRELS_FILE}:17: unknown document 1401"


def test_load_cranfield_bad_document_file(tmp_path):
    (tmp_path / QUERIES_FILE).write_text(_bundled(QUERIES_FILE))
    (tmp_path / DOCUMENTS_FILE).write_text(".I 1\n.T\ntitle\n.I\n.W\ntext\n")
    with pytest.raises(InputFormatError) as info:
        load_cranfield(tmp_path)
    assert info.value.line_number == 4


# --- Cranfield qrels parser -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line_number", "reason"),
    [
        ("1 184 2\n1 29\n", 2, "expected 3 fields (query doc_id code), got 2"),
        ("1 184 2\n\n1 29 x\n", 3, "query, doc_id and code must be integers"),
        ("1 184 2\n1 184 3\n", 2, "query 1, document 184 is judged twice"),
        ("7 184 2\n", 1, "unknown query 7"),
    ],
)
def test_parse_cranfield_qrels_errors(text, line_number, reason):
    with pytest.raises(InputFormatError) as info:
        parse_cranfield_qrels(text, path="q.txt", qids=["1", "2"])
    assert info.value.line_number == line_number
    assert info.value.reason == reason


def test_parse_cranfield_qrels_normalises_query_numbers():
    assert parse_cranfield_qrels("001 5 -1 \n001 7 1\n") == {"1": {"5": -1, "7": 1}}


# --- SMART reader ---------------------------------------------------------------------------

CACM_LIKE = """\
.I 1
.T
Preliminary Report-International Algebraic Language
.B
CACM December, 1958
.A
Perlis, A. J.
.N
CA581203 JB March 22, 1978  8:28 PM
.X
100\t5\t1
123\t5\t1

.I 2
.T
Extraction of Roots by Repeated Subtractions
.W
.T is not a marker when followed by text
second line
"""


def test_parse_smart_keeps_unknown_fields():
    records = parse_smart(CACM_LIKE, path="cacm.all")
    assert [r.record_id for r in records] == ["1", "2"]
    assert [r.line_number for r in records] == [1, 14]
    assert [letter for letter, _ in records[0].fields] == ["T", "B", "A", "N", "X"]
    assert records[0].get("X") == "100\t5\t1\n123\t5\t1"
    assert records[0].get("W") == ""
    docs = documents_from_records(records)
    assert docs[0].title == "Preliminary Report-International Algebraic Language"
    assert docs[0].source == "CACM December, 1958"
    assert docs[0].extra == (
        ("N", "CA581203 JB March 22, 1978  8:28 PM"),
        ("X", "100\t5\t1\n123\t5\t1"),
    )
    assert docs[1].text == ".T is not a marker when followed by text\nsecond line"


def test_parse_smart_concatenates_repeated_fields_and_handles_crlf():
    records = parse_smart(".I 9\r\n.W\r\nfirst\r\n.A\r\nsomeone\r\n.W\r\nsecond\r\n")
    assert records[0].fields == (("W", "first\nsecond"), ("A", "someone"))


def test_queries_from_records():
    records = parse_smart(".I 001\n.W\nfirst ?\n.I 004\n.W\nsecond ?\n")
    by_order = queries_from_records(records)
    assert [(q.qid, q.smart_id, q.text) for q in by_order] == [
        ("1", "001", "first ?"),
        ("2", "004", "second ?"),
    ]
    assert [q.qid for q in queries_from_records(records, number_by_order=False)] == ["001", "004"]
    with pytest.raises(InputFormatError, match=r"no '\.W' text") as info:
        queries_from_records(parse_smart(".I 1\n.T\ntitle only\n"), path="q")
    assert info.value.line_number == 1


@pytest.mark.parametrize(
    ("text", "line_number", "reason"),
    [
        ("\nstray text\n.I 1\n.W\nx\n", 2, "text before the first '.I' line"),
        (".W\nx\n", 1, "field marker before the first '.I' line"),
        (".I 1\n.W\nx\n.I\n.W\ny\n", 4, "expected '.I <id>', got 0 ids"),
        (".I 1 2\n.W\nx\n", 1, "expected '.I <id>', got 2 ids"),
        (".I 1\n.W\nx\n.I 1\n.W\ny\n", 4, "record id '1' appears twice"),
        (".I 1\norphan\n.W\nx\n", 2, "text before the record's first field marker (such as '.W')"),
        ("\n\n", None, "no '.I' record found"),
    ],
)
def test_parse_smart_errors(text, line_number, reason):
    with pytest.raises(InputFormatError) as info:
        parse_smart(text, path="bad.all")
    assert info.value.line_number == line_number
    assert info.value.reason == reason
    assert info.value.path == "bad.all"


def test_datasets_import_is_light():
    code = (
        "import sys, prfeval._demo.datasets, prfeval._demo.bm25\n"
        "heavy = {'bm25s', 'Stemmer', 'scipy', 'pandas'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
