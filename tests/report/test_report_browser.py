"""The shared report in a real browser: headless Chromium driven by Playwright.

The page is opened from disk; every request it makes is recorded and any that is not local
is aborted and fails the test, as does any console error. Skips with the reason (and how to
get a browser) when the playwright package or a Chromium binary is missing, unless
PRFEVAL_REQUIRE_BROWSER=1 (CI sets it once it has installed one), which turns the skip into a
failure. PRFEVAL_CHROMIUM overrides where the browser is looked for; screenshots go to the
test's folder, and also to PRFEVAL_SCREENSHOT_DIR when it is set.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from prfeval import evaluate
from prfeval.cli import main
from support.hand_made import qrels_lines, run_dict_lines, write_lines
from support.random_data import Noisy, judged_runs, rounded

SCREENSHOT_ENV = "PRFEVAL_SCREENSHOT_DIR"
LOCAL = ("file:", "data:", "blob:", "about:")


@dataclass
class Guard:
    """What would make a self-contained page not so, or broken."""

    requests: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert not self.outside, f"requests left the page: {self.outside}"
        assert not self.console_errors, f"console errors: {self.console_errors}"
        assert not self.page_errors, f"uncaught errors: {self.page_errors}"


@pytest.fixture()
def open_guarded(browser):
    """Open a guarded page at a window width: ``open_guarded(width) -> (page, guard)``."""
    contexts = []

    def open_at(width: int, height: int = 900):
        guard = Guard()
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)

        def route(r):
            if r.request.url.startswith(LOCAL):
                r.continue_()
            else:
                guard.outside.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        if hasattr(context, "route_web_socket"):
            context.route_web_socket("**/*", lambda ws: guard.outside.append(ws.url))
        context.on("request", lambda req: guard.requests.append(req.url))
        page = context.new_page()
        page.on("console",
                lambda m: guard.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: guard.page_errors.append(str(exc)))
        return page, guard

    try:
        yield open_at
    finally:
        for context in contexts:
            context.close()


@pytest.fixture()
def guarded(open_guarded):
    return open_guarded(1280)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    # Thirty queries judging 25 of 80 documents; the reranker's scores are bm25's plus noise.
    qrels, (a, b) = judged_runs(11, queries=[str(q) for q in range(1, 31)], n_docs=80,
                                judged=25, grades=(0, 3), retrieved=50, scores=rounded(3),
                                also=[Noisy(0.15, 4)])  # fmt: skip
    paths = {name: folder / name for name in ("qrels.trec", "bm25.run", "rerank.run")}
    for path, lines in zip(paths.values(), (qrels_lines(qrels), run_dict_lines(a, "a"),
                                            run_dict_lines(b, "b")), strict=True):  # fmt: skip
        write_lines(path, lines)
    out = folder / "report.html"
    with pytest.raises(SystemExit) as done:
        main(["report", *map(str, paths.values()), "-m", "P@10 R@20 SetF", "--depth", "15",
              "-o", str(out)])
    assert done.value.code == 0
    return out, paths


def _screenshot(page, tmp_path: Path, name: str) -> Path:
    shots = tmp_path / "screens"
    shots.mkdir(exist_ok=True)
    path = shots / name
    page.screenshot(path=str(path), full_page=True)
    extra = os.environ.get(SCREENSHOT_ENV)
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / name)
    return path


def test_report_loads_alone_shows_the_numbers_and_responds(guarded, report, tmp_path):
    page, guard = guarded
    out, paths = report
    page.goto(out.resolve().as_uri())
    assert guard.requests == [out.resolve().as_uri()]  # the page itself, and nothing else

    # The summary shows the run's macro P@10, as evaluate gives it.
    e = evaluate(paths["qrels.trec"], paths["bm25.run"], "P@10")
    summary = page.locator("#summary tbody tr").first
    assert f"{e.macro['P@10']:.4f}" in summary.inner_text()

    # One row per query.
    rows = page.locator("#per-query tbody tr")
    assert rows.count() == 30

    # A click on a header sorts by that column (values as numbers, ascending then descending).
    header = page.locator("#per-query thead th").nth(1)
    second = page.locator("#per-query tbody tr td:nth-child(2)")
    header.click()
    values = [float(v) for v in second.all_inner_texts()]
    assert values == sorted(values)
    header.click()
    values = [float(v) for v in second.all_inner_texts()]
    assert values == sorted(values, reverse=True)
    assert header.get_attribute("aria-sort") == "descending"

    # The filter hides the rows whose query id does not match.
    page.fill("#query-filter", "2")
    shown = [r for r in page.locator("#per-query tbody tr").all() if r.is_visible()]
    assert shown and all("2" in r.get_attribute("data-query") for r in shown)
    assert len(shown) < 30
    page.fill("#query-filter", "")

    # Largest differences first: the rows sorted by |difference|, descending.
    page.click("#largest-differences")
    column = int(page.get_attribute("#largest-differences", "data-column")) + 1
    diffs = [abs(float(v)) for v in page.locator(f"#per-query tbody tr td:nth-child({column})")
             .evaluate_all("cells => cells.map(c => c.getAttribute('data-value') || '0')")]
    assert diffs and diffs == sorted(diffs, reverse=True)

    # A click on a query opens its drill-down: its ranking in each run.
    page.locator('#per-query tbody tr[data-query="7"]').click()
    page.wait_for_selector('#drilldown[data-shown="7"][aria-busy=false]')
    panel = page.locator("#drilldown")
    assert panel.is_visible()
    text = panel.inner_text()
    assert "Query 7" in text and "bm25.run" in text and "rerank.run" in text
    assert panel.locator("table").count() == 2
    assert panel.locator("table").first.locator("tbody tr").count() == 15  # --depth 15
    # P and R by rank, computed in the page from the relevant flags, are explain's.
    from prfeval import explain

    e = explain(paths["qrels.trec"], paths["bm25.run"], "7", "P@10 R@20 SetF", depth=15)
    cells = panel.locator("table").first.locator("tbody tr").nth(14).locator("td")
    assert cells.nth(1).inner_text() == e.ranking[14].doc_id
    assert cells.nth(5).inner_text() == f"{e.ranking[14].precision:.3f}"
    assert cells.nth(6).inner_text() == f"{e.ranking[14].recall:.3f}"

    # The figures are there, and drawn at a real size.
    figures = page.locator("#figures figure svg")
    assert figures.count() == 4
    for i in range(4):
        box = figures.nth(i).bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 150
    assert page.locator("#figures figcaption").count() == 4

    shot = _screenshot(page, tmp_path, "report.png")
    assert shot.stat().st_size > 10_000
    guard.assert_clean()


def test_page_fits_the_window_width(guarded, report):
    page, guard = guarded
    out, _ = report
    page.goto(out.resolve().as_uri())
    # Wide tables scroll inside their box; the page itself never scrolls sideways.
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    guard.assert_clean()


# Thirty queries 1-30 and three whose ids hold "13": a filter for a part of an id shows them.
QUERY_IDS = [*map(str, range(1, 31)), "113", "132", "213"]
RUNS = ("bm25.run", "rm3.run", "dense.run")


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
    """A report of three runs with the default nine measures: 27 columns per query, and two
    of differences."""
    folder = tmp_path_factory.mktemp("three")
    rng = np.random.default_rng(12)
    qrels: list[str] = []
    runs: dict[str, list[str]] = {name: [] for name in RUNS}
    for q in QUERY_IDS:
        judged = rng.choice(80, size=25, replace=False)
        qrels += [f"{q} 0 d{d} {int(rng.integers(0, 3))}" for d in judged]
        docs = rng.choice(80, size=50, replace=False)
        base = rng.random(50)
        for i, lines in enumerate(runs.values()):
            scores = base + rng.normal(0.0, 0.25 * i, 50)
            lines += [f"{q} Q0 d{d} 0 {s:.4f} r{i}" for d, s in zip(docs, scores, strict=True)]
    (folder / "qrels.trec").write_text("\n".join(qrels) + "\n")
    for name, lines in runs.items():
        (folder / name).write_text("\n".join(lines) + "\n")
    out = folder / "report.html"
    with pytest.raises(SystemExit) as done:
        main(["report", str(folder / "qrels.trec"), *(str(folder / n) for n in RUNS),
              "--depth", "15", "-o", str(out)])
    assert done.value.code == 0
    return out


# Every element the page itself would have to scroll sideways to show: out of the window and
# not inside a box that clips or scrolls it (a table's wrapper, an SVG).
_OUTSIDE = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    let clipped = false;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== "visible") { clipped = true; break; }
    }
    if (!clipped && (r.left < -0.5 || r.right > width + 0.5)) {
      out.push(el.tagName + "#" + el.id + "." + el.getAttribute("class") + " " +
               Math.round(r.left) + ".." + Math.round(r.right));
    }
  }
  return out;
}"""

# A table and the box it scrolls in.
_WRAPPER = """(table) => {
  const box = table.parentElement;
  return {cls: box.className, overflow: getComputedStyle(box).overflowX,
          scrollWidth: box.scrollWidth, table: table.getBoundingClientRect().width,
          left: box.getBoundingClientRect().left, right: box.getBoundingClientRect().right};
}"""

# A cell, scrolled into view as a reader would scroll to it (unless scroll is false): inside
# its box and the window, and not under anything else (the sticky query column) at its centre.
_SHOW_CELL = """(cell, scroll) => {
  if (scroll !== false) cell.scrollIntoView({block: "nearest", inline: "nearest"});
  const r = cell.getBoundingClientRect();
  const box = cell.closest(".scroll").getBoundingClientRect();
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  return {
    text: cell.textContent,
    inside: r.width > 0 && r.left >= Math.max(0, box.left) - 1 &&
            r.right <= Math.min(document.documentElement.clientWidth, box.right) + 1,
    uncovered: hit !== null && cell.contains(hit),
    at: [r.left, r.top, r.right, r.bottom],
    hit: hit === null ? null : hit.outerHTML.slice(0, 80),
  };
}"""


def _assert_columns_reachable(page, table) -> list[str]:
    """Every column of ``table`` can be scrolled to in its own box; returns the headers."""
    width = page.evaluate("document.documentElement.clientWidth")
    box = table.evaluate(_WRAPPER)
    assert "scroll" in box["cls"].split() and box["overflow"] in ("auto", "scroll"), box
    assert box["scrollWidth"] >= box["table"] - 1, box  # the box holds the whole table
    assert box["left"] >= 0 and box["right"] <= width + 0.5, box
    headers = table.locator("thead tr").last.locator("th")
    texts = []
    for i in range(headers.count()):
        shown = headers.nth(i).evaluate(_SHOW_CELL)
        assert shown["inside"] and shown["uncovered"], shown
        texts.append(" ".join(shown["text"].split()))
    return texts


# Each legend text's size as drawn, in CSS px: its font size times the SVG's scale.
_LEGEND_SIZES = """() => Array.from(
  document.querySelectorAll('#figures svg g[id^="legend"] text'), (t) => {
    const m = t.getScreenCTM();
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    return {text: t.textContent, px: px, height: t.getBoundingClientRect().height};
  })"""


def test_a_phone_reaches_every_column_reads_the_legends_and_the_drilldown(
    open_guarded, three_runs, tmp_path
):
    """At 400 px: each table scrolls sideways in its own box (the interval and p columns
    there to be scrolled to), the page itself never does, the figures fit with legends of 9
    px or more, and a query's drill-down fits the window."""
    page, guard = open_guarded(400, 800)
    page.goto(three_runs.resolve().as_uri())
    page.locator('#per-query tbody tr[data-query="7"]').click()
    page.wait_for_selector('#drilldown[data-shown="7"][aria-busy=false]')
    panel = page.locator("#drilldown")
    assert panel.is_visible() and panel.locator("table").count() == 3

    assert page.evaluate("document.documentElement.scrollWidth") <= 400
    assert page.evaluate(_OUTSIDE) == []

    summary = _assert_columns_reachable(page, page.locator("#summary table"))
    assert "95% interval of the macro" in summary
    comparison = _assert_columns_reachable(page, page.locator("#comparison table"))
    assert {"95% interval", "p", "p adj.", "sig."} <= set(comparison)
    per_query = _assert_columns_reachable(page, page.locator("#per-query"))
    assert len(per_query) == 1 + 27 + 2
    for i in range(3):
        _assert_columns_reachable(page, panel.locator("table").nth(i))

    # The drill-down panel, and each run's box in it, within the window.
    boxes = panel.evaluate("""(p) => [p, ...p.querySelectorAll(".runs > div")].map((e) => {
      const r = e.getBoundingClientRect(); return [r.left, r.right, e.scrollWidth, e.clientWidth];
    })""")
    for left, right, scroll_width, client_width in boxes:
        assert left >= 0 and right <= 400 and scroll_width <= client_width + 1

    # The figures fit the width, and their legends can be read.
    figures = page.locator("#figures figure svg")
    assert figures.count() == 4
    for i in range(4):
        svg = figures.nth(i)
        assert svg.get_attribute("viewBox")
        box = svg.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 400.5
        assert box["width"] > 300
    sizes = page.evaluate(_LEGEND_SIZES)
    assert len(sizes) > 10  # three legends, one entry or more per run
    small = [s for s in sizes if s["px"] < 9 or s["height"] < 9]
    assert not small, small[:5]

    _screenshot(page, tmp_path, "report-400.png")
    guard.assert_clean()


def test_three_runs_per_query_columns_are_all_reachable_at_1280(open_guarded, three_runs):
    """27 columns and more are wider than a 1280 px window: the table scrolls in its box with
    the query ids kept in view, and the run switches narrow it to one run's columns."""
    page, guard = open_guarded(1280)
    page.goto(three_runs.resolve().as_uri())
    table = page.locator("#per-query")
    headers = _assert_columns_reachable(page, table)
    assert len(headers) == 1 + 27 + 2
    assert headers[-1].startswith("\u0394") and "dense.run" in headers[-1]
    # Scrolled to the last column, each row still names its query.
    row = table.locator("tbody tr").first
    last = row.locator("td").last.evaluate(_SHOW_CELL)
    assert last["inside"] and last["uncovered"], last
    assert table.evaluate("t => t.parentElement.scrollLeft") > 0
    query = row.locator("td").first.evaluate(_SHOW_CELL, False)
    assert query["inside"] and query["uncovered"] and query["text"] == "1", query
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280

    # One run's columns: they fit, no scrolling needed.
    switches = page.locator("#run-columns")
    assert switches.is_visible()
    for name in RUNS[1:]:
        switches.get_by_label(name).uncheck()
    visible = table.locator("thead th:visible")
    assert visible.count() == 1 + 9
    assert all("bm25.run" in t for t in visible.all_inner_texts()[1:])
    assert table.evaluate("t => t.parentElement.scrollWidth <= t.parentElement.clientWidth")
    for name in RUNS[1:]:
        switches.get_by_label(name).check()
    assert visible.count() == 1 + 27 + 2
    guard.assert_clean()


def test_filter_by_exact_query_ids(open_guarded, three_runs):
    """A part of an id matches 13, 113, 132 and 213; "exact ids" only 13; a comma lists
    several ids."""
    from playwright.sync_api import expect

    page, guard = open_guarded(1280)
    page.goto(three_runs.resolve().as_uri())
    count = page.locator("#query-count")
    shown = page.locator("#per-query tbody tr:not([hidden])")

    def ids() -> set[str]:
        return set(shown.evaluate_all("rows => rows.map(r => r.getAttribute('data-query'))"))

    expect(count).to_have_text(f"{len(QUERY_IDS)} of {len(QUERY_IDS)} shown")
    page.fill("#query-filter", "13")
    expect(count).to_have_text(f"4 of {len(QUERY_IDS)} shown")
    assert ids() == {"13", "113", "132", "213"}
    page.check("#query-exact")
    expect(count).to_have_text(f"1 of {len(QUERY_IDS)} shown")
    assert ids() == {"13"}
    assert page.locator('#per-query tbody tr[data-query="13"]').is_visible()
    page.fill("#query-filter", "13, 7")
    expect(count).to_have_text(f"2 of {len(QUERY_IDS)} shown")
    assert ids() == {"13", "7"}
    page.uncheck("#query-exact")
    expect(count).to_have_text(f"7 of {len(QUERY_IDS)} shown")
    assert ids() == {"13", "113", "132", "213", "7", "17", "27"}
    page.fill("#query-filter", "")
    expect(count).to_have_text(f"{len(QUERY_IDS)} of {len(QUERY_IDS)} shown")
    guard.assert_clean()
