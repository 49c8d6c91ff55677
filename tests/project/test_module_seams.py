"""Modules split along what they do keep their seams: the old import paths name the same
objects, the ranking's views need only the arrays their protocol names, and the helpers that
replaced repeated code say what the copies said."""

from __future__ import annotations

import numpy as np
import pytest

from prfeval._core.errors import InputFormatError


def test_explain_still_names_the_types_it_exported():
    import prfeval
    from prfeval._retrieval import explain, explain_columns, explanation

    for name in ("Explanation", "RankedDocument", "CutTie", "RECALL_LEVELS"):
        assert getattr(explain, name) is getattr(explanation, name)
    for name in ("Places", "Missed"):
        assert getattr(explain, name) is getattr(explain_columns, name)
    assert set(explain.__all__) >= {"Explanation", "Places", "Missed", "explain_worst"}
    assert prfeval.Explanation is explanation.Explanation


def test_tabular_still_names_what_its_importers_take():
    from prfeval._io import columns, source, table_read, tabular

    assert tabular.read_table is table_read.read_table
    assert tabular.COLUMN_ALIASES is columns.COLUMN_ALIASES
    assert tabular.TABULAR_SUFFIXES is source.TABULAR_SUFFIXES
    assert tabular.tabular_kind is source.tabular_kind


class _Arrays:
    """Only what :class:`~prfeval._core.views.RankedArrays` names: two queries, the first
    with a relevant document at rank 2, the second with a judged non-relevant one."""

    def __init__(self) -> None:
        from prfeval._core.views import UNJUDGED

        self.offsets = np.array([0, 3, 4], dtype=np.int64)
        self.grades = np.array([UNJUDGED, 1, UNJUDGED, 0], dtype=np.int64)
        self.first = np.ones(4, dtype=bool)
        self.trec_rel = np.where(self.grades == UNJUDGED, -1, self.grades)
        self.judged_grades = np.array([1, 2, 0], dtype=np.int64)
        self.judged_query_index = np.array([0, 0, 1], dtype=np.int64)
        self.n_queries = 2


def test_views_read_only_the_arrays_their_protocol_names():
    from prfeval._core.views import RankingViews

    arrays = _Arrays()
    views = RankingViews(arrays)
    assert views.judged.at.tolist() == [1, 3]
    relevant = views.relevant(1)
    assert (relevant.query.tolist(), relevant.rank0.tolist()) == ([0], [1])
    assert relevant.n_rel_ret.tolist() == [1, 0]
    assert views.n_relevant(1).tolist() == [2, 0]
    del arrays
    with pytest.raises(ReferenceError):  # the views hold their ranking weakly
        views.n_relevant(2)


def test_a_test_and_its_correction_read_the_same_in_a_comparison_and_a_gate():
    from types import SimpleNamespace

    from prfeval._report.comparison_tables import describe_test
    from prfeval._report.gate import describe_test as gate_test

    settings = {"test": "randomization", "n_permutations": 10000, "n_bootstrap": 1000,
                "seed": 0, "correction": "holm", "n_tests": 3}  # fmt: skip
    words = ("two-sided paired randomization test with 10,000 random sign flips from random "
             "seed 0")  # fmt: skip
    assert describe_test(SimpleNamespace(settings=settings)) == (
        words + ", Holm-corrected over 3 tests"
    )
    assert gate_test(SimpleNamespace(settings={**settings, "alpha": 0.05})) == (
        f"p: {words}; p adj.: Holm-corrected over 3 tests. A drop over budget fails only "
        "where p adj. <= 0.05 (--alpha)."
    )
    one = {**settings, "test": "bootstrap", "correction": "none", "n_tests": 1}
    assert describe_test(SimpleNamespace(settings=one)) == (
        "two-sided paired bootstrap test with 1,000 resamples from random seed 0, not "
        "corrected for many tests"
    )
    assert gate_test(SimpleNamespace(settings={**one, "test": "ttest", "alpha": None})) == (
        "p: two-sided paired t-test, not corrected for many tests. Without --alpha, a drop "
        "over budget fails whatever p says."
    )


def test_utf8_text_names_the_line_of_the_first_bad_byte():
    from prfeval._io.source import utf8_text

    assert utf8_text(b"\xef\xbb\xbfq1\n", "f") == "q1\n"  # the byte order mark dropped
    with pytest.raises(InputFormatError, match=r"^f:3: not valid UTF-8 text$"):
        utf8_text(b"a\nb\n\xff\n", "f")
    with pytest.raises(InputFormatError, match=r"^f:2: not UTF-8 text$"):
        utf8_text(b"a\n\xfe", "f", problem="not UTF-8 text")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{bad", r"^t:4: invalid JSON: Expecting property name enclosed in double quotes$"),
        ("[1, 2]", r"^t:4: expected a JSON object per line, got a list$"),
    ],
)
def test_a_json_lines_line_is_one_object(text, message):
    from prfeval._io.jsonl_rows import line_object

    assert line_object('{"a": 1}', 4, "t") == {"a": 1}
    with pytest.raises(InputFormatError, match=message):
        line_object(text, 4, "t")


def test_a_classification_result_lists_its_averages_in_report_order():
    import prfeval

    single = prfeval.classify([0, 1, 1, 0, 2], [0, 1, 0, 0, 2])
    names = [name for name, _, _ in single.averages()]
    assert names == ["micro", "macro", "weighted", "f_of_means"]
    _, values, baseline = single.averages()[1]
    assert values is single.macro and baseline is single.no_skill.macro
    multi = prfeval.classify([{1}, {2}, {1, 2}], [{1}, {1}, {1, 2}])
    assert [name for name, _, _ in multi.averages()] == [
        "micro", "macro", "weighted", "samples", "f_of_means"
    ]
