"""Shared fixtures: a local Spark session per test module that asks for one; the Cranfield
demo's files, made once per session by ``prfeval demo`` as a new user runs it.

The Spark tests skip, saying why, when pyspark is not installed or no Java runtime is found
(``java`` on the PATH or ``$JAVA_HOME/bin/java``); CI installs one (``.ci/run``). The session
is ``local[2]``, tuned for small data: two shuffle partitions, no web UI, no adaptive
re-partitioning (partition counts stay as asked), Spark's own log lines silenced.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

SPARK_TEST_SETTINGS = {
    "spark.driver.memory": "1g",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # One a pytest-xdist worker: two sessions at once never share a folder.
    "spark.sql.warehouse.dir": os.path.join(
        tempfile.gettempdir(),
        f"prfeval-spark-warehouse-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}",
    ),
}


def java_runtime() -> str | None:
    """The java executable Spark would start, if there is one."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        return candidate if os.access(candidate, os.X_OK) else None
    return shutil.which("java")


@pytest.fixture(scope="module")
def spark():
    """A ``local[2]`` SparkSession for one test module, stopped after it."""
    pytest.importorskip("pyspark", reason="the Spark tests need pyspark: pip install '.[spark]'")
    if java_runtime() is None:
        pytest.skip("the Spark tests need a Java runtime (java on the PATH, or JAVA_HOME)")
    from pyspark.sql import SparkSession

    from prfeval.spark._session import local_settings

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers import this prfeval
    builder = SparkSession.builder.master("local[2]").appName("prfeval-tests")
    settings = {**local_settings(), **SPARK_TEST_SETTINGS}
    # C1-only JIT and the serial collector start the JVM faster; tests are short jobs.
    settings["spark.driver.extraJavaOptions"] += " -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # a JAVA_HOME that does not start counts as no Java
        pytest.skip(f"could not start Spark: {exc}")
    session.sparkContext.setLogLevel("FATAL")
    yield session
    session.stop()


@pytest.fixture
def small_trec(tmp_path: Path) -> tuple[str, str]:
    """``support.SMALL_QRELS`` and ``support.SMALL_RUN`` written as ``qrels`` and ``run`` in the
    test's folder: (judgments path, run path)."""
    from support import SMALL_QRELS, SMALL_RUN

    (tmp_path / "qrels").write_text(SMALL_QRELS)
    (tmp_path / "run").write_text(SMALL_RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


@dataclass(frozen=True)
class DemoRun:
    """What ``prfeval demo --out FOLDER/prfeval-demo`` left: run from ``FOLDER``, the README's
    ``prfeval-demo/...`` paths resolve."""

    folder: Path
    stdout: str
    stderr: str

    @property
    def out(self) -> Path:
        return self.folder / "prfeval-demo"


def _run_demo(folder: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "prfeval", "demo", "--out", str(folder / "prfeval-demo")],
        cwd=folder, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "COLUMNS": "80"},  # tables and notes as on an 80-column terminal
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="session")
def cranfield_demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """``prfeval demo`` (what ``make demo`` runs) once per session, in a process of its own:
    Cranfield ranked by BM25, its files, figures and report in ``out``. Under pytest-xdist
    the workers share one run: the first to need it makes it, under a lock, in the temporary
    folder they share, and records its exit code and output beside it."""
    for module in ("bm25s", "Stemmer", "matplotlib"):
        pytest.importorskip(module, reason="the demo needs prfeval[demo]")
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        folder = tmp_path_factory.mktemp("readme")
        code, out, err = _run_demo(folder)
    else:
        from filelock import FileLock

        shared = tmp_path_factory.getbasetemp().parent  # the same for every worker of a run
        folder, record = shared / "readme", shared / "readme.json"
        with FileLock(str(shared / "readme.lock")):
            if not record.exists():
                folder.mkdir()
                record.write_text(json.dumps(_run_demo(folder)), encoding="utf-8")
            code, out, err = json.loads(record.read_text(encoding="utf-8"))
    if code != 0:
        pytest.fail(f"prfeval demo exited {code}:\n{err}")
    return DemoRun(folder, out, err)


# -- The browser of the HTML report's tests: Debian's Chromium driven by Playwright ---------

CHROMIUM_ENV = "PRFEVAL_CHROMIUM"
REQUIRE_ENV = "PRFEVAL_REQUIRE_BROWSER"
CANDIDATES = ("chromium", "chromium-headless-shell", "chromium-browser", "google-chrome")


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


#: Test modules that start a JVM or a browser, run processes under load, or run in separate
#: processes to see what the operating system sees (a closed or broken stream, a signal) or
#: what a fresh interpreter loads: they run in CI and in ``make test``; ``make quick``
#: (``pytest -m "not slow"``) leaves them out locally.
SLOW_MODULES = {
    "test_spark_blocks": "spark",
    "test_spark_cli": "spark",
    "test_spark_engine": "spark",
    "test_spark_errors": "spark",
    "test_report_browser": "browser",
    "test_report_large": "browser",
    "test_report_escaping": "browser",
    "test_exit_stress": "stress",
    "test_broken_pipe": "process",
    "test_closed_stderr": "process",
    "test_import_cost": "process",  # what a fresh interpreter loads
}

#: Marks of single tests of modules that are otherwise quick: ``process`` (it runs in a process
#: of its own), ``large`` (it writes and reads tens of megabytes).
SLOW_MARKS = ("process", "large")

#: Fixtures that start a JVM or a browser, or run the whole demo (Cranfield ranked by BM25,
#: its figures and report: about 7 s): a test that asks for one is ``slow`` wherever it is
#: (tests/core/test_partials.py reduces on Spark beside tests that need neither).
SLOW_FIXTURES = {"spark": "spark", "browser": "browser", "cranfield_demo": "demo"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow modules' tests, every test marked ``process`` or ``large`` and every test
    that asks for a Spark session, a browser or the demo's output, ``slow`` and by what they
    need (``spark``, ``browser``, ``demo``, ``stress``, ``process``, ``large``), so that one
    flag selects or leaves them out."""
    for item in items:
        module = getattr(item, "module", None)  # doctest items have none
        kinds = {SLOW_MODULES.get(module.__name__ if module is not None else "")}
        kinds |= {SLOW_FIXTURES[f] for f in getattr(item, "fixturenames", ()) if f in SLOW_FIXTURES}
        kinds |= {kind for kind in SLOW_MARKS if item.get_closest_marker(kind) is not None}
        kinds.discard(None)
        if kinds:
            item.add_marker(pytest.mark.slow)
        for kind in sorted(kinds):
            item.add_marker(getattr(pytest.mark, kind))
