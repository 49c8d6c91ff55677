"""The shared report in a real browser: headless Chromium driven by Playwright.

The page is opened from disk; every request it makes is recorded and any that is not local
is aborted and fails the test, as does any console error. Skips with the reason (and how to
get a browser) when the playwright package or a Chromium binary is missing, unless
PRFEVAL_REQUIRE_BROWSER=1 (CI sets it once it has installed one), which turns the skip into a
failure. PRFEVAL_CHROMIUM overrides where the browser is looked for; screenshots go to the
test's folder, and also to PRFEVAL_SCREENSHOT_DIR when it is set.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from prfeval import evaluate
from prfeval.cli import main

CHROMIUM_ENV = "PRFEVAL_CHROMIUM"
REQUIRE_ENV = "PRFEVAL_REQUIRE_BROWSER"
SCREENSHOT_ENV = "PRFEVAL_SCREENSHOT_DIR"
CANDIDATES = ("chromium", "chromium-headless-shell", "chromium-browser", "google-chrome")
LOCAL = ("file:", "data:", "blob:", "about:")


def find_chromium() -> tuple[str | None, str]:
    override = os.environ.get(CHROMIUM_ENV)
    if override:
        path = shutil.which(override) or override
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path, ""
        return None, f"${CHROMIUM_ENV}={override!r} is not an executable file"
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path, ""
    return None, (
        f"no Chromium found (looked for {', '.join(CANDIDATES)} on PATH; or set "
        f"${CHROMIUM_ENV}); install one with: apt-get install -y --no-install-recommends chromium"
    )


def skip_or_fail(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but the browser tests cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if importlib.util.find_spec("playwright") is None:
        skip_or_fail(
            "the playwright package is not installed (pip install playwright; the tests use "
            "the system's Chromium, so never run 'playwright install')"
        )
    exe, reason = find_chromium()
    if exe is None:
        skip_or_fail(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        # Chromium's crash reporter writes under $XDG_CONFIG_HOME: keep it in the test's space.
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path_factory.mktemp("chromium-config"))}
        b = pw.chromium.launch(
            executable_path=exe,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--disable-background-networking"],
            env=env,
        )
        try:
            yield b
        finally:
            b.close()


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
def guarded(browser):
    guard = Guard()
    context = browser.new_context(viewport={"width": 1280, "height": 900})

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
    page.on("console", lambda m: guard.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: guard.page_errors.append(str(exc)))
    try:
        yield page, guard
    finally:
        context.close()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(11)
    qrels, a, b = [], [], []
    for q in range(1, 31):
        judged = rng.choice(80, size=25, replace=False)
        qrels += [f"{q} 0 d{d} {int(rng.integers(0, 3))}" for d in judged]
        docs = rng.choice(80, size=50, replace=False)
        scores = np.round(rng.random(50), 3)
        a += [f"{q} Q0 d{d} 0 {s} a" for d, s in zip(docs, scores, strict=True)]
        b += [f"{q} Q0 d{d} 0 {s + rng.normal(0, 0.15):.4f} b"
              for d, s in zip(docs, scores, strict=True)]
    paths = {name: folder / name for name in ("qrels.trec", "bm25.run", "rerank.run")}
    for path, lines in zip(paths.values(), (qrels, a, b), strict=True):
        path.write_text("\n".join(lines) + "\n")
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
    diffs = [abs(float(v)) for v in
             page.locator(f"#per-query tbody tr td:nth-child({column})").all_inner_texts()]
    assert diffs == sorted(diffs, reverse=True)

    # A click on a query opens its drill-down: its ranking in each run.
    page.locator('#per-query tbody tr[data-query="7"]').click()
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
