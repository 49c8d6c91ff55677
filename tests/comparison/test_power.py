"""The power of the paired t-test, the detectable difference and the queries needed, against
statsmodels' TTestPower.power (the exact noncentral t); effect sizes against hand counts."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import prfeval
from prfeval import UsageError
from prfeval._comparison.power import effect_size, power_at
from support.cli import run_cli

statsmodels_power = pytest.importorskip("statsmodels.stats.power")
optimize = pytest.importorskip("scipy.optimize")


def oracle(d: float, n: int, alpha: float = 0.05) -> float:
    return float(statsmodels_power.TTestPower().power(d, n, alpha, alternative="two-sided"))


@pytest.mark.parametrize("n", [2, 3, 5, 10, 25, 50, 225, 1000])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_power_equals_the_noncentral_t_of_statsmodels(n: int, alpha: float) -> None:
    for d in (0.0, 0.05, 0.2, 0.5, -0.5, 1.0, 2.5):
        expected = oracle(abs(d), n, alpha)
        if np.isfinite(expected):  # statsmodels gives NaN far in the tail
            assert power_at(d, n, alpha) == pytest.approx(expected, abs=1e-6)
    assert power_at(0.0, n, alpha) == pytest.approx(alpha, abs=1e-12)


@pytest.mark.parametrize(("sd", "n", "alpha", "target"), [
    (0.2, 50, 0.05, 0.8), (0.07, 225, 0.05, 0.8), (0.1, 5, 0.05, 0.8), (0.1, 10, 0.01, 0.9),
    (0.15, 1000, 0.05, 0.95), (0.25, 20, 0.1, 0.5),
])
def test_detectable_diff_is_the_exact_root_of_the_power_function(
    sd: float, n: int, alpha: float, target: float
) -> None:
    mdd = prfeval.detectable_diff(sd, n, alpha=alpha, power=target)
    # The root of statsmodels' own power function, solved tightly (its solve_power is
    # looser, up to 2.4e-5 off).
    high = 0.01
    while oracle(high, n, alpha) < target:  # statsmodels is NaN far past the root
        high *= 1.5
    root = optimize.brentq(lambda d: oracle(d, n, alpha) - target, 1e-9, high, xtol=1e-14)
    assert mdd == pytest.approx(sd * root, rel=1e-6)
    assert oracle(mdd / sd, n, alpha) == pytest.approx(target, abs=1e-6)


@pytest.mark.parametrize(("n", "alpha"), [(2, 0.05), (3, 0.01)])
def test_detectable_diff_where_statsmodels_gives_nan(n: int, alpha: float) -> None:
    # statsmodels' power is NaN here (scipy's nct.cdf of the lower tail is); the lower tail
    # is below 1e-9, so the upper tail alone, scipy's nct.sf, is the power.
    stats = pytest.importorskip("scipy.stats")
    mdd = prfeval.detectable_diff(1.0, n, alpha=alpha)
    crit = stats.t.isf(alpha / 2, n - 1)
    assert stats.nct.sf(crit, n - 1, mdd * np.sqrt(n)) == pytest.approx(0.8, abs=1e-6)
    assert stats.nct.sf(crit, n - 1, -mdd * np.sqrt(n)) < 1e-9


@pytest.mark.parametrize(("sd", "delta", "alpha", "target"), [
    (0.2, 0.1, 0.05, 0.8), (0.07, 0.01, 0.05, 0.8), (0.3, 0.05, 0.01, 0.9),
    (0.05, 0.2, 0.05, 0.8), (1.0, 0.01, 0.05, 0.8), (0.2, 0.02, 0.1, 0.95),
])
def test_queries_needed_is_the_smallest_n_that_reaches_the_power(
    sd: float, delta: float, alpha: float, target: float
) -> None:
    n = prfeval.queries_needed(sd, delta, alpha=alpha, power=target)
    assert n >= 2
    assert oracle(delta / sd, n, alpha) >= target - 1e-12
    if n > 2:
        assert oracle(delta / sd, n - 1, alpha) < target


def test_queries_needed_hand_checked_case() -> None:
    # d_z = 0.5 at alpha 0.05 and power 0.8: 34 pairs (Cohen 1988's table gives 33 from
    # the normal approximation; the exact t needs one more).
    assert prfeval.queries_needed(0.2, 0.1) == 34
    assert oracle(0.5, 33) < 0.8 <= oracle(0.5, 34)


def test_no_spread_detects_anything() -> None:
    assert prfeval.detectable_diff(0.0, 10) == 0.0
    assert prfeval.queries_needed(0.0, 0.01) == 2


@pytest.mark.parametrize(("call", "words"), [
    (lambda: prfeval.queries_needed(0.2, 0.0), "delta must be a finite number > 0"),
    (lambda: prfeval.queries_needed(-0.1, 0.1), "sd_diff must be a finite number >= 0"),
    (lambda: prfeval.queries_needed(0.2, 0.1, power=0.03), "must be above alpha"),
    (lambda: prfeval.detectable_diff(0.2, 1), "integer >= 2"),
    (lambda: prfeval.detectable_diff(0.2, 10, alpha=1.5), "alpha must be a number"),
    (lambda: prfeval.detectable_diff(float("nan"), 10), "sd_diff must be a finite"),
])
def test_bad_planning_input_is_a_usage_error(call, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        call()


def test_effect_size_by_hand() -> None:
    assert effect_size([0.1, 0.2, 0.3]) == pytest.approx(2.0)
    assert effect_size([-0.5, 0.0, -0.1, -0.2]) == pytest.approx(-0.2 / np.sqrt(0.14 / 3))
    assert np.isnan(effect_size([0.3, 0.3, 0.3]))
    assert np.isnan(effect_size([0.3]))


# Four queries, two runs, P@2 by hand: A = 1/2, 0, 1, 1/2; B = 1, 1/2, 1/2, 1.
QRELS = "".join(f"q{q} 0 r{q}{i} 1\n" for q in range(1, 5) for i in range(2))
RUN_A = ("q1 Q0 r10 1 2 a\nq1 Q0 x 2 1 a\nq2 Q0 x 1 2 a\nq2 Q0 y 2 1 a\n"
         "q3 Q0 r30 1 2 a\nq3 Q0 r31 2 1 a\nq4 Q0 r40 1 2 a\nq4 Q0 y 2 1 a\n")
RUN_B = ("q1 Q0 r10 1 2 b\nq1 Q0 r11 2 1 b\nq2 Q0 r20 1 2 b\nq2 Q0 y 2 1 b\n"
         "q3 Q0 r30 1 2 b\nq3 Q0 y 2 1 b\nq4 Q0 r40 1 2 b\nq4 Q0 r41 2 1 b\n")
# B - A per query: +1/2, +1/2, -1/2, +1/2: mean 1/4; squared deviations 3/16 * 3 + 9/16
# = 3/4, over n - 1 = 3: variance 1/4, sd 1/2.
MEAN, SD = 0.25, 0.5


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


def test_power_of_two_runs_by_hand(files) -> None:
    result = prfeval.power(files["qrels"], {"a": files["a.run"], "b": files["b.run"]}, "P@2",
                           delta=0.25)
    r = result.row("P@2")
    assert (r.n, r.mean_diff) == (4, pytest.approx(MEAN))
    assert r.sd_diff == pytest.approx(SD)
    assert r.effect_size == pytest.approx(MEAN / SD)
    assert r.power == pytest.approx(oracle(MEAN / SD, 4), abs=1e-6)
    assert oracle(r.min_detectable_diff / SD, 4) == pytest.approx(0.8, abs=1e-6)
    assert r.queries_needed == 34  # d_z = 0.5, as in the hand-checked case above
    assert oracle(MEAN / SD, r.queries_needed) >= 0.8 > oracle(MEAN / SD, r.queries_needed - 1)
    # The sign follows B - A.
    flipped = prfeval.power(files["qrels"], {"b": files["b.run"], "a": files["a.run"]}, "P@2")
    assert flipped.row("P@2").effect_size == pytest.approx(-MEAN / SD)
    assert flipped.row("P@2").queries_needed is None


def test_power_refuses_counts_and_wrong_run_counts(files) -> None:
    runs = {"a": files["a.run"], "b": files["b.run"]}
    with pytest.raises(UsageError, match="NumRet is not averaged"):
        prfeval.power(files["qrels"], runs, "NumRet")
    with pytest.raises(UsageError, match="exactly two runs"):
        prfeval.power(files["qrels"], {"a": files["a.run"]}, "P@2")
    with pytest.raises(UsageError, match="delta must be"):
        prfeval.power(files["qrels"], runs, "P@2", delta=-0.1)


def test_cli_json_has_one_object_per_measure(files, capsys) -> None:
    code, out, _ = run_cli(capsys, "power", files["qrels"], files["a.run"], files["b.run"],
                           "-m", "P@2 P@1", "--delta", "0.25", "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert [r["measure"] for r in rows] == ["P@2", "P@1"]
    assert set(rows[0]) == {"measure", "n", "mean_diff", "sd_diff", "effect_size", "power",
                            "min_detectable_diff", "queries_needed"}
    assert rows[0]["mean_diff"] == pytest.approx(MEAN)
    assert rows[0]["queries_needed"] == 34
    # P@1: B - A is 0, +1, 0, 0: mean 1/4, squared deviations 3/16 * 3 + 9/16, sd 1/2.
    assert rows[1]["mean_diff"] == pytest.approx(0.25)
    assert rows[1]["sd_diff"] == pytest.approx(0.5)
    code, out, _ = run_cli(capsys, "power", files["qrels"], files["a.run"], files["b.run"],
                           "-m", "P@2", "--format", "json")
    assert json.loads(out)[0]["queries_needed"] is None


@pytest.mark.parametrize(("extra", "words"), [
    (["--delta", "-1"], "--delta must be a number > 0"),
    (["--power", "1.2"], "strictly between 0 and 1"),
    (["--alpha", "0.9", "--power", "0.5"], "must be above alpha"),
])
def test_cli_bad_levels_exit_2(files, capsys, extra, words) -> None:
    code, _, err = run_cli(capsys, "power", files["qrels"], files["a.run"], files["b.run"],
                           "-m", "P@2", *extra)
    assert code == 2 and words in err and "Traceback" not in err


def test_cli_needs_two_runs(files, capsys) -> None:
    code, _, err = run_cli(capsys, "power", files["qrels"], files["a.run"], "-m", "P@2")
    assert code == 2 and "exactly two runs" in err


def test_cli_without_scipy_names_the_extra(files, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    code, _, err = run_cli(capsys, "power", files["qrels"], files["a.run"], files["b.run"],
                           "-m", "P@2")
    assert code == 2 and "pip install 'prfeval[stats]'" in err
    assert len(err.strip().splitlines()) == 1
