"""Command lines on which trec_eval 9.0.8's argument rules matter, and what it printed for
each, replayed by ``tests/trec_eval/test_recorded_outputs.py``.

Each case is a list of arguments and the inputs it reads: trec_eval's own quicktest files
(``tests/data/trec_eval_quicktest``), or small judgments and runs made here from a fixed
seed. ``PYTHONPATH=tests python tests/trec_eval/trec_eval_args_cases.py /path/to/trec_eval``
runs the built binary (9.0.8, from usnistgov/trec_eval at tag v9.0.8) on every case and writes
``tests/data/trec_eval_908_args.json``: the argv (files named QRELS and RUN), stdout,
stderr and exit status. Only that output is committed, never the binary.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from support.recordings import Runner, recorded, write_expected

EXPECTED = Path(__file__).parents[1] / "data" / "trec_eval_908_args.json"
QUICKTEST = Path(__file__).parents[1] / "data" / "trec_eval_quicktest"


def _small() -> tuple[bytes, bytes]:
    """Four queries, grades 0 to 3 (and one -1), 12 results each with a few tied scores."""
    rng = random.Random(908)
    qrels, run = [], []
    for q in range(1, 5):
        for d in range(15):
            if rng.random() < 0.7:
                grade = rng.choice((0, 0, 1, 2, 3, -1)) if q != 3 else rng.choice((0, 1))
                qrels.append(b"%d 0 d%02d %d\n" % (q, d, grade))
        for rank, d in enumerate(rng.sample(range(20), 12)):
            score = round(rng.random(), 1)
            run.append(b"%d Q0 d%02d %d %.1f sys\n" % (q, d, rank + 1, score))
    return b"".join(qrels), b"".join(run)


SMALL_QRELS, SMALL_RUN = _small()
#: The small run with d05 retrieved twice for query 3 (queries 1 and 2 come before it).
DUP_RUN = SMALL_RUN + b"3 Q0 d05 13 0.05 sys\n3 Q0 d05 14 0.01 sys\n"

#: trec_eval's own quicktest line (its expected output: test/out.test.meas_params).
QUICK_LINE_TEXT = (
    "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
    "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
    "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20"
)
QUICK_LINE = QUICK_LINE_TEXT.split()

#: Arguments before the two files, for the small inputs.
SMALL_ARGS: dict[str, list[str]] = {
    # Cutoffs: atol of each comma-separated item, sorted; <= 0 or repeated is refused.
    "P_fraction": ["-m", "P.5.5"],
    "P_fraction_list": ["-m", "P.5.9,2.1"],
    "P_zero": ["-m", "P.0"],
    "P_negative": ["-m", "P.-5,10"],
    "P_empty_item": ["-m", "P.5,,10"],
    "P_leading_comma": ["-m", "P.,5"],
    "P_trailing_comma": ["-m", "P.5,"],
    "P_repeated": ["-m", "P.5,5"],
    "P_repeated_after_atol": ["-m", "P.5,5.7"],
    "P_unsorted": ["-m", "P.10,2,7"],
    "P_plus_sign": ["-m", "P.+5"],
    "P_leading_space": ["-m", "P. 5"],
    "P_trailing_junk": ["-m", "P.5junk,3x"],
    "P_hex": ["-m", "P.0x10"],
    "P_only_junk": ["-m", "P.abc"],
    "P_twice_first_wins": ["-m", "P.5", "-m", "P.10"],
    "P_plain_then_params": ["-m", "P", "-m", "P.3"],
    "P_empty_params": ["-m", "P."],
    "P_attached": ["-mP.2,4"],
    "P_long_option": ["--measure=P.3"],
    "success_zero": ["-m", "success.0"],
    "success_list": ["-m", "success.1,3,12"],
    "success_repeated": ["-m", "success.1,1"],
    "recall_fraction": ["-m", "recall.3.99"],
    "map_cut_list": ["-m", "map_cut.3,1000"],
    "ndcg_cut_fraction": ["-m", "ndcg_cut.10,20,23.4"],
    "ndcg_cut_zero": ["-m", "ndcg_cut.0"],
    "relative_P": ["-m", "relative_P.2"],
    # Measures without parameters ignore them; so do sets.
    "map_params_ignored": ["-m", "map.5"],
    "num_ret_params_ignored": ["-m", "num_ret.junk"],
    "official_params_ignored": ["-m", "official.5"],
    "set_params_ignored": ["-m", "set.1"],
    # Levels: atof of each item, printed %3.2f; repeats refused.
    "iprec_leading_dot": ["-m", "iprec_at_recall..5"],
    "iprec_list": ["-m", "iprec_at_recall.0.9,0.1,0.5"],
    "iprec_repeated": ["-m", "iprec_at_recall.0.1,0.10"],
    "iprec_close_levels": ["-m", "iprec_at_recall.0.101,0.1"],
    "iprec_junk": ["-m", "iprec_at_recall.0.5x"],
    "Rprec_mult_one": ["-m", "Rprec_mult.1"],
    "Rprec_mult_repeated": ["-m", "Rprec_mult.1,1.0"],
    "Rprec_mult_list": ["-m", "Rprec_mult.0.5,2,1.5"],
    # Numbers: named by the text as typed.
    "utility_weights": ["-m", "utility.2,-1,0,0"],
    "utility_empty_item": ["-m", "utility.2,,0,0"],
    "utility_c_numbers": ["-m", "utility.1e0,-1x,0,0"],
    "utility_with_N": ["-N", "100", "-m", "utility.1,-1,-1,1"],
    "11pt_one_level": ["-m", "11pt_avg.0.5"],
    "11pt_repeated_level": ["-m", "11pt_avg.0.5,0.5"],
    "11pt_leading_dots": ["-m", "11pt_avg..25,.5,.75"],
    "set_F_beta_squared": ["-m", "set_F.2"],
    "set_F_half": ["-m", "set_F.0.5"],
    "set_F_two_numbers": ["-m", "set_F.1,2"],
    "relstring_length": ["-m", "relstring.5"],
    "relstring_fraction": ["-m", "relstring.5.9"],
    "relstring_zero": ["-q", "-m", "relstring.0"],
    # Gains: name=value pairs, checked for their shape.
    "ndcg_gains": ["-m", "ndcg.1=3,2=9"],
    "ndcg_gains_fraction": ["-m", "ndcg.1=3,2=9,3=4.5"],
    "ndcg_trailing_comma": ["-m", "ndcg.1=3,"],
    "ndcg_no_grade": ["-m", "ndcg.=3"],
    "ndcg_two_equals": ["-m", "ndcg.1=3=4"],
    "ndcg_empty_pair": ["-m", "ndcg.1=3,,2=4"],
    "ndcg_no_equals": ["-m", "ndcg.1"],
    "ndcg_junk_gain": ["-m", "ndcg.1=x"],
    "ndcg_rel_gains": ["-m", "ndcg_rel.1=2"],
    "Rndcg_gains": ["-m", "Rndcg.2=3"],
    "G_gains": ["-m", "G.1=1,2=5"],
    # yaap: outside all_trec, computed.
    "yaap": ["-m", "yaap"],
    "yaap_per_query": ["-q", "-m", "yaap"],
    "yaap_complete": ["-c", "-m", "yaap"],
    "yaap_level_2": ["-l", "2", "-m", "yaap"],
    "all_trec_has_no_yaap": ["-m", "all_trec", "-m", "yaap.3"],
    # Options with odd numbers.
    "level_zero": ["-l", "0", "-m", "num_rel_ret", "-m", "P.5"],
    "level_junk": ["-l", "2x", "-m", "num_rel"],
    "level_minus_one": ["-l", "-1", "-m", "num_rel_ret", "-m", "num_rel"],
    "N_small_utility": ["-N", "3", "-m", "utility.1,-1,-1,1"],
    "N_negative_utility": ["-N", "-5", "-m", "utility.1,1,1,1"],
    "M_fraction": ["-M", "5.9", "-m", "num_ret"],
    "bad_param_and_illegal_name": ["-m", "P.0", "-m", "nope"],
    "two_bad_params_table_order": ["-m", "success.0", "-m", "P.0"],
    # Values outside prfeval's domains, which trec_eval computes with anyway.
    "utility_three_weights": ["-m", "utility.1,2,3"],
    "relstring_negative": ["-q", "-m", "relstring.-3"],
    "iprec_level_above_one": ["-m", "iprec_at_recall.1.5"],
    "11pt_negative_level": ["-m", "11pt_avg.-0.5"],
    "Rprec_mult_negative": ["-m", "Rprec_mult.-1"],
    "set_F_negative": ["-m", "set_F.-1"],
    "ndcg_infinite_gain": ["-m", "ndcg.1=inf"],
    "ndcg_grade_twice": ["-m", "ndcg.1=3,1=5"],
    "P_past_2_to_53": ["-m", "P.99999999999999999999"],
    "success_past_32_bits": ["-m", "success.4294967296,5"],
    "success_past_32_bits_three": ["-m", "success.4294967296,5,1"],
    "recall_past_32_bits": ["-m", "recall.4294967296,5"],
    "map_cut_past_32_bits": ["-m", "map_cut.4294967296,5"],
    "ndcg_cut_past_32_bits": ["-m", "ndcg_cut.4294967296,5"],
    "P_past_32_bits": ["-m", "P.4294967296,5,3"],
    "relative_P_past_32_bits": ["-m", "relative_P.4294967296,5"],
    "ndcg_grade_twice_lower_last": ["-q", "-m", "ndcg.1=5,1=3,2=1"],
    "ndcg_infinite_gains_per_query": ["-q", "-m", "ndcg.1=inf,2=-inf"],
    "G_infinite_gain": ["-q", "-m", "G.1=inf"],
    "relstring_infinite": ["-q", "-m", "relstring.inf"],
    "iprec_negative_level": ["-q", "-m", "iprec_at_recall.-0.5,0.5"],
    "Rprec_mult_negative_and_large": ["-q", "-m", "Rprec_mult.-0.5,3"],
    "set_F_negative_half": ["-q", "-m", "set_F.-0.5"],
    "utility_three_weights_per_query": ["-q", "-m", "utility.1,2,3", "-m", "map"],
    # 11pt_avg reads its levels in the order given, assuming them ascending.
    "11pt_levels_descending": ["-q", "-m", "11pt_avg.1,0.5"],
    "11pt_levels_unsorted": ["-q", "-m", "11pt_avg.0.3,0.1,0.9,0,0.5"],
    "11pt_levels_outside_unsorted": ["-q", "-m", "11pt_avg.2,-3"],
    "11pt_levels_judged_only": ["-q", "-J", "-m", "11pt_avg.0.7,0.2,-1,0.4"],
}
#: The same, on the run with a repeated document.
DUP_ARGS: dict[str, list[str]] = {
    "repeat_summary": ["-m", "map"],
    "repeat_per_query": ["-q", "-m", "map", "-m", "P.5"],
    "repeat_runid_only": ["-q", "-m", "runid"],
    "repeat_under_M": ["-q", "-M", "12", "-m", "num_ret"],
    "repeat_per_query_judged_only": ["-q", "-J", "-m", "num_ret"],
    "repeat_after_utility_refused": ["-q", "-m", "utility.1,2,3,4,5"],
}
#: On trec_eval's quicktest files.
QUICK_ARGS: dict[str, list[str]] = {
    "quicktest_meas_params": QUICK_LINE,
    "quicktest_yaap": ["-q", "-m", "yaap"],
}

#: name -> (arguments before the files, which inputs)
CASES: dict[str, tuple[list[str], str]] = {
    **{name: (args, "small") for name, args in SMALL_ARGS.items()},
    **{name: (args, "dup") for name, args in DUP_ARGS.items()},
    **{name: (args, "quick") for name, args in QUICK_ARGS.items()},
}


def materialise(directory: Path, inputs: str) -> tuple[Path, Path]:
    """The judgments and run of ``inputs``, as files (the quicktest's where they are)."""
    if inputs == "quick":
        return QUICKTEST / "qrels.test", QUICKTEST / "results.test"
    qrels, run = directory / "qrels", directory / "run"
    qrels.write_bytes(SMALL_QRELS)
    run.write_bytes(DUP_RUN if inputs == "dup" else SMALL_RUN)
    return qrels, run


def outcome(command: Runner, name: str, directory: Path) -> dict[str, object]:
    """What ``command`` printed for case ``name``, as the expected file records it (file
    paths in argv and messages replaced by QRELS and RUN)."""
    args, inputs = CASES[name]
    qrels, run = materialise(directory, inputs)
    return recorded(command, args, qrels, run)


if __name__ == "__main__":
    write_expected(sys.argv[1], CASES, outcome, EXPECTED)
