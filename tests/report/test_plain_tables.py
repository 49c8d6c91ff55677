"""Tables laid out directly (``plain_table``) are line for line rich's layout
(``rich_table``), on seeded random tables; and what the direct layout leaves to rich."""

from __future__ import annotations

import random
import string

import pytest

from prfeval._report.table_layout import plain_table, rich_table


def random_cell(rng: random.Random) -> str:
    alphabet = string.ascii_letters + string.digits + " .-_@[]()/%+"
    cell = "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 3, 6, 12])))
    return cell.strip()  # (one beginning or ending with a space is left to rich)


@pytest.mark.parametrize("seed", range(40))
def test_plain_layout_is_rich_layout(seed):
    rng = random.Random(seed)
    n_cols = rng.randint(1, 6)
    # The first header is wider than the titles (a wider title is wrapped, by rich only).
    headers = ["query id", *(random_cell(rng) or "h" for _ in range(n_cols - 1))]
    rows = [[random_cell(rng) for _ in range(n_cols)] for _ in range(rng.randint(0, 8))]
    title = rng.choice([None, "Per query", "t"])
    align = rng.choice([0, 1, 2])
    plain = plain_table(title, headers, rows, align, 200)
    assert plain is not None
    assert plain == rich_table(title, headers, rows, align, 200)


@pytest.mark.parametrize(
    ("title", "headers", "rows", "width"),
    [
        (None, ["query", "P@10"], [["caf\u00e9", "0.5"]], 200),  # not ASCII
        (None, ["query", "P@10"], [["a:smile:", "0.5"]], 200),  # an emoji name
        (None, ["query", "P@10"], [["a\tb", "0.5"]], 200),  # not printable
        (None, ["query", "P@10"], [["ab ", "0.5"]], 200),  # a space rich would trim
        (None, ["query", "P@10"], [["x" * 50, "0.5"]], 40),  # wider than the width
        ("a title much longer than the table", ["q"], [["1"]], 200),  # a wrapped title
    ],
)
def test_what_rich_would_wrap_or_replace_is_left_to_rich(title, headers, rows, width):
    assert plain_table(title, headers, rows, 1, width) is None
