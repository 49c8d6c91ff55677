"""The report survives ids and run names that are HTML: in Chromium, and in its source.

A doc id ``<!--<script>`` inside the page's JSON made the HTML parser take the rest of the
page into the JSON's script element (after ``<!--``, ``<script`` opens a nested state that
only ``-->`` leaves), so the page's own script never ran: no sorting, no drill-down. Every
``<``, ``>`` and ``&`` of the JSON is now a ``\\u`` escape.

The browser is launched as in tests/report/test_report_browser.py (the system's Chromium, skipped
with the reason when there is none, unless PRFEVAL_REQUIRE_BROWSER=1).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from prfeval._comparison.study import study
from prfeval._report.html import render_study
from support.report_data import drilldown

HOSTILE = ("<!--<script>", "</script>", "<!--", "-->", "]]>", "a&amp;b", "<b>x</b>")
# Two pages: every id above, and "<!--<script>" alone. Alone it is the one that broke the
# page; beside "-->", which ends what "<!--" began, the old page survived it.
CASES = {
    "all": (HOSTILE, ("<!--<script>", "</script> -->]]>")),
    "comment-script": (("<!--<script>", "x<!--<script>"), ("<!--<script>", "b<!--<script>")),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, tmp_path_factory) -> tuple[Path, tuple[str, ...], tuple[str, ...]]:
    """A study whose query ids, doc ids and run names are HTML-like, with its figures:
    (the page, its ids, its run names)."""
    hostile, names = CASES[request.param]
    folder = tmp_path_factory.mktemp("hostile")
    qrels, runs = [], {name: [] for name in names}
    docs = (*hostile, *(f"d{j}" for j in range(8)))
    queries = (*hostile, "plain")
    for i, q in enumerate(queries):
        qrels += [f"{q} 0 {d} {int((i + j) % 2 == 0)}" for j, d in enumerate(docs)]
        for r, name in enumerate(names):
            order = docs if r == 0 else docs[::-1]
            runs[name] += [f"{q} Q0 {d} {k + 1} {20 - k - (i * r) % 3} r{r}"
                           for k, d in enumerate(order[: 11 + (i + r) % 4])]
    (folder / "qrels.trec").write_text("\n".join(qrels) + "\n")
    paths = {}
    for r, (name, lines) in enumerate(runs.items()):
        paths[name] = folder / f"run{r}.trec"
        paths[name].write_text("\n".join(lines) + "\n")
    s = study(folder / "qrels.trec", paths, ["P@5", "AP"], depth=20)
    out = folder / "report.html"
    out.write_text(render_study(s), encoding="utf-8")
    return out, hostile, names


def test_the_page_script_data_has_no_markup(case) -> None:
    """In the source: the JSON element holds no "<", ">" or "&", and reads back exactly."""
    page_file, hostile, names = case
    page = page_file.read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="drilldown-data">(.*?)</script>',
                      page, re.S)
    assert match is not None
    text = match.group(1)
    assert not set(text) & {"<", ">", "&"}
    assert json.loads(text)["runs"] == list(names)
    data = drilldown(page)
    assert set(data["queries"]) == {*hostile, "plain"}
    docs = {d for q in data["queries"].values() for e in q.values() for d in e["docs"]}
    assert set(hostile) <= docs
    # Two script elements (the data, the page's script), and the page's script is whole.
    assert len(re.findall(r"^<script\b", page, re.M)) == 2
    assert page.endswith("</script>\n</body>\n</html>\n")


def test_assets_hold_nothing_that_ends_their_element() -> None:
    from importlib import resources

    assets = resources.files("prfeval._report").joinpath("assets")
    for name, closing in (("report.js", "</script"), ("report.css", "</style")):
        text = assets.joinpath(name).read_text("utf-8").lower()
        assert closing not in text and "<!--" not in text, name


def test_hostile_ids_display_literally_and_the_page_works(browser, case) -> None:
    page_file, hostile, names = case
    queries = (*hostile, "plain")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:"))
                  else r.abort())
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(page_file.resolve().as_uri())

        # The title and headings show the run names as text.
        assert page.locator("h1").inner_text() == "prfeval report: " + " vs ".join(names)
        # The per-query table: one row per query, its id shown as it is.
        rows = page.locator("#per-query tbody tr")
        assert rows.count() == len(queries)
        shown = page.locator("#per-query tbody tr td:first-child").all_inner_texts()
        assert sorted(shown) == sorted(queries)
        assert sorted(r.get_attribute("data-query") for r in rows.all()) == sorted(queries)

        # Sorting works (the page's script ran).
        header = page.locator("#per-query thead th").nth(1)
        column = page.locator("#per-query tbody tr td:nth-child(2)")
        header.click()
        values = [float(v) for v in column.all_inner_texts()]
        assert values == sorted(values)
        assert header.get_attribute("aria-sort") == "ascending"

        # The drill-down of the first query: its ranking in each run, ids as text.
        target = hostile[1]
        index = [r.get_attribute("data-query") for r in rows.all()].index(target)
        rows.nth(index).click()
        page.wait_for_selector("#drilldown[aria-busy=false]")
        panel = page.locator("#drilldown")
        assert panel.is_visible()
        assert panel.locator("h3").first.inner_text() == f"Query {target}"
        titles = panel.locator("h3.run-name").all_inner_texts()
        assert [t.strip() for t in titles] == list(names)
        ranked = panel.locator("table").first.locator("tbody tr td:nth-child(2)")
        assert set(hostile) <= set(ranked.all_inner_texts())

        # The filter finds an id by a part of it that is markup.
        page.fill("#query-filter", "<!--")
        visible = [r.get_attribute("data-query") for r in rows.all() if r.is_visible()]
        assert sorted(visible) == sorted(q for q in queries if "<!--" in q)

        # The figures are there, with the run names as text.
        figures = page.locator("#figures figure svg")
        assert figures.count() == 4
        svg_text = " ".join(figures.nth(i).text_content() for i in range(4))
        for name in names:
            assert name in svg_text
        assert page.evaluate("document.scripts.length") == 2
        assert errors == []
    finally:
        context.close()
