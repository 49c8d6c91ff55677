"""trec_eval 9.0.8's judgment groups (-R qrels_jg, map_avgjg, P_avgjg, Rprec_mult_avgjg) and
z-scores (-Z): its quicktest files, hand counts and bad input. The seeded random cases the
binary printed (tests/trec_eval/trec_eval_jg_z_cases.py) are replayed byte for byte by
test_recorded_outputs.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from prfeval._trec_eval.driver import main
from prfeval._trec_eval.judgment_groups import evaluate_judgment_groups
from prfeval._trec_eval.zscores import read_zscores

DATA = Path(__file__).parents[1] / "data"
QUICK = DATA / "trec_eval_quicktest"


def run_cli(argv: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capfd.readouterr()
    return status, out, err


@pytest.fixture
def quick(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The quicktest files under test/, as trec_eval's quicktest names them."""
    (tmp_path / "test").mkdir()
    for name in ("qrels.123", "results.test", "qrels.test", "zscores_file"):
        shutil.copy(QUICK / name, tmp_path / "test" / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_quicktest_qrels_jg(quick: Path, capfd: pytest.CaptureFixture[str]) -> None:
    argv = ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "test/qrels.123", "test/results.test"]
    status, out, err = run_cli(argv, capfd)
    assert (status, err) == (0, "")
    assert out == (QUICK / "out.test.qrels_jg").read_text()


def test_quicktest_zscores(quick: Path, capfd: pytest.CaptureFixture[str]) -> None:
    argv = ["-q", "-m", "all_trec", "-Z", "test/zscores_file", "test/qrels.test",
            "test/results.test"]
    status, out, err = run_cli(argv, capfd)
    assert (status, err) == (0, "")
    assert out == (QUICK / "out.test.aqZ").read_text()


# --- hand counts ----------------------------------------------------------------------------

JG = {"q": {"a": {"d1": 1, "d3": 0}, "b": {"d2": 1, "d3": 1}, "c": {"d9": 0}}}
RUN = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}


def test_hand_counted_groups() -> None:
    e = evaluate_judgment_groups(JG, RUN, "map_avgjg P_avgjg_1 P_avgjg_2 Rprec_mult_avgjg_1.00")
    # Group a: d1 relevant at rank 1, R = 1: AP 1, P@1 1, P@2 1/2, Rprec 1.
    # Group b: d2 at 2 and d3 at 3, R = 2: AP (1/2 + 2/3) / 2 = 7/12, P@1 0, P@2 1/2,
    #          Rprec (c = floor(2 + 0.9) = 2) 1/2.
    # Group c: no relevant document: 0 everywhere, and it still counts.
    assert e.macro["map_avgjg"] == pytest.approx((1 + 7 / 12 + 0) / 3)
    assert e.macro["P_avgjg_1"] == pytest.approx(1 / 3)
    assert e.macro["P_avgjg_2"] == pytest.approx((0.5 + 0.5) / 3)
    assert e.macro["Rprec_mult_avgjg_1.00"] == pytest.approx((1 + 0.5) / 3)
    assert e.query_ids == ("q",)


def test_one_group_is_the_ordinary_measure() -> None:
    from prfeval import evaluate

    plain = {"q": {"d1": 1, "d3": 0, "d2": 1}}
    e = evaluate_judgment_groups({"q": {"only": plain["q"]}}, RUN, "map_avgjg P_avgjg_2")
    ordinary = evaluate(plain, RUN, "map P_2")
    assert e.macro["map_avgjg"] == pytest.approx(ordinary.macro["map"])
    assert e.macro["P_avgjg_2"] == pytest.approx(ordinary.macro["P_2"])


def test_zscores_hand_counted(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "qrels").write_text("q 0 d1 1\nq 0 d2 0\nr 0 d1 1\n")
    (tmp_path / "run").write_text("q Q0 d1 1 2 t\nq Q0 d2 2 1 t\nr Q0 d2 1 1 t\n")
    # q: P_1 = 1 -> (1 - 0.5) / 0.25 = 2; r: P_1 = 0 -> (0 - 0.5) / 0.5 = -1; num_ret of q
    # equals its mean with deviation 0 -> 0; r has no num_ret entry -> -1000000.
    (tmp_path / "z").write_text("q P_1 0.5 0.25\nr P_1 0.5 0.5\nq num_ret 2 0\n")
    status, out, err = run_cli(
        ["-q", "-m", "P.1", "-m", "num_ret", "-Z", str(tmp_path / "z"),
         str(tmp_path / "qrels"), str(tmp_path / "run")],
        capfd,
    )
    assert (status, err) == (0, "")
    assert out == (
        "Znum_ret               \tq\t0.0000\n"
        "ZP_1                   \tq\t2.0000\n"
        "Znum_ret               \tr\t-1000000.0000\n"
        "ZP_1                   \tr\t-1.0000\n"
        "Znum_ret               \tall\t-1000000.0000\n"
        "ZP_1                   \tall\t0.5000\n"
    )


def test_zscore_lookup_takes_the_next_querys_first_entry(tmp_path: Path) -> None:
    # trec_eval's search also looks one entry past a query's own: 'num_ret' sorts after
    # every measure of 302, and 304's first entry has that name.
    (tmp_path / "z").write_text("302 map 0.1 0\n304 num_ret 1 2\n")
    z = read_zscores(str(tmp_path / "z"))
    found, means, sds = z.lookup(["302", "303"], ["map", "num_ret", "P_5"])
    assert found.tolist() == [[True, True, False], [False, False, False]]
    assert means[0].tolist()[:2] == [0.1, 1.0]
    assert np.isclose(sds[0, 1], 2.0)


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q map 1 2\n\n", "trec_eval.get_zscores: Malformed line 2\n"),
        ("q map 1 2 3\n", "trec_eval.get_zscores: Malformed line 1\n"),
        ("q map 1\n", "trec_eval.get_zscores: Malformed line 1\n"),
        ("", "trec_eval.get_prefs: Cannot read zscores file 'ZFILE'\n"),
    ],
)
def test_bad_zscores(
    text: str, message: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    z = tmp_path / "z"
    z.write_text(text)
    (tmp_path / "qrels").write_text("q 0 d1 1\n")
    (tmp_path / "run").write_text("q Q0 d1 1 2 t\n")
    status, out, err = run_cli(["-Z", str(z), str(tmp_path / "qrels"), str(tmp_path / "run")],
                               capfd)
    assert (status, out, err) == (255, "", message.replace("ZFILE", str(z)))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q a d1 1\nq a d1\n", "trec_eval.get_qrels_jg: Malformed line 2\n"),
        ("q a d1 1\nq a d1 0\n", "trec_eval.get_qrels: duplicate docs d1\n"),
        ("", "trec_eval.get_qrels_jg: Cannot read qrels file 'QFILE'\n"),
    ],
)
def test_bad_qrels_jg(
    text: str, message: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    q = tmp_path / "qrels"
    q.write_text(text)
    (tmp_path / "run").write_text("q Q0 d1 1 2 t\n")
    status, out, err = run_cli(["-R", "qrels_jg", "-m", "qrels_jg", str(q),
                                str(tmp_path / "run")], capfd)
    expected = message.replace("QFILE", str(q)) + f"trec_eval: Quit in file '{q}'\n"
    assert (status, out, err) == (2, "", expected)


def test_measure_of_the_other_format(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "qrels").write_text("q 0 d1 1\n")
    (tmp_path / "run").write_text("q Q0 d1 1 2 t\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    status, out, err = run_cli(["-R", "qrels_jg", "-m", "map", *files], capfd)
    assert status == 4 and out == ""
    assert err.endswith("trec_eval: Can't calculate measure 'map'\n")
    status, out, err = run_cli(["-q", "-m", "map", "-m", "map_avgjg", *files], capfd)
    assert (status, out) == (4, "")
    assert err == ("trec_eval: rel_info format not qrels_jg or results format not "
                   "trec_results\ntrec_eval: Can't calculate measure 'map_avgjg'\n")


def test_all_trec_leaves_out_judgment_groups() -> None:
    from prfeval._measures import TREC_REGISTRY

    assert "map_avgjg" in TREC_REGISTRY.trec_table
    assert "map_avgjg" not in TREC_REGISTRY.trec_sets["all_trec"]
    assert TREC_REGISTRY.trec_sets["qrels_jg"] == (
        "runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"
    )


def test_public_api_and_file_input() -> None:
    import prfeval

    e = prfeval.evaluate_judgment_groups(
        QUICK / "qrels.123", str(QUICK / "results.test"), "map_avgjg"
    )
    # trec_eval's out.test.qrels_jg: map_avgjg 0.0266, 0.2571, 0.0552 and 0.1130 for all.
    assert [round(v, 4) for v in e.values[0]] == [0.0266, 0.2571, 0.0552]
    assert round(e.macro["map_avgjg"], 4) == 0.1130
