"""prfeval as users install it: ``python -m build`` makes an sdist and a wheel; with cargo the
wheel holds the compiled pass and is tagged for the platform, without it the wheel is pure
Python and the build says why in one line; nothing an earlier build left in ``build/``
reaches a wheel; the sdist holds the Rust sources, the licence and every test; and the wheel,
installed in a fresh environment with no Rust on the PATH, evaluates as the development
install does, byte for byte, with the compiled pass in use.

Each build works on a copy of the tree (what git tracks), as a clean clone would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from support import ROOT, SMALL_QRELS, SMALL_RUN

pytestmark = pytest.mark.process

NO_RUST_PATH = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                               if not (Path(p) / "cargo").exists())


def _tree(tmp_path: Path) -> Path:
    """The files git tracks, copied (the working tree's versions)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=False)  # fmt: skip
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the packaging tests build from what git tracks")
    tree = tmp_path / "tree"
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    return tree


def _build(tree: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("build", reason="the packaging tests need build: pip install '.[test]'")
    env = {**os.environ, "PATH": path if path is not None else os.environ.get("PATH", "")}
    env.pop("PRFEVAL_BUILD_NATIVE", None)
    return subprocess.run([sys.executable, "-m", "build", "--no-isolation", *args, str(tree)],
                          capture_output=True, text=True, timeout=900, env=env,
                          check=False)  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An sdist and a wheel built with cargo, from a tree whose build/ holds a stale file."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo (Rust) is not on the PATH: no compiled pass to build")
    tree = _tree(tmp_path_factory.mktemp("with-rust"))
    stale = tree / "build" / "lib" / "prfeval" / "stale_module.py"
    stale.parent.mkdir(parents=True)
    stale.write_text("LEFT_BY_AN_EARLIER_BUILD = True\n")
    done = _build(tree)
    assert done.returncode == 0, done.stderr[-3000:]
    return tree / "dist"


def test_the_wheel_holds_the_compiled_pass_and_is_tagged_for_the_platform(built) -> None:
    (wheel,) = built.glob("*.whl")
    assert wheel.name.endswith("-cp311-abi3-linux_x86_64.whl"), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "prfeval/_native/libprfeval_pass.abi3.so" in names
    assert not [n for n in names if "stale_module" in n]  # build/ was emptied first
    assert not [n for n in names if n.startswith(("tests/", "native/"))]
    metadata = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata and "Requires-Python: >=3.11" in metadata
    assert "Author: The prfeval developers" in metadata
    urls = {line.split(": ", 1)[1].split(",")[0] for line in metadata.splitlines()
            if line.startswith("Project-URL: ")}
    assert urls == {"Homepage", "Documentation", "Source", "Changelog", "Issues"}, urls


def test_the_sdist_holds_the_rust_sources_the_licence_and_the_tests(built) -> None:
    (sdist,) = built.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    tracked = subprocess.run(["git", "ls-files", "tests", "native"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    missing = sorted(set(tracked) - names)
    assert not missing, missing[:10]
    assert {"LICENSE", "CHANGELOG.md", "setup.py", "native/pass/Cargo.toml"} <= names
    assert not [n for n in names if n.startswith("native/pass/target")]


def test_twine_accepts_both(built) -> None:
    pytest.importorskip("twine")
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict",
                           *map(str, built.iterdir())],
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_without_rust_the_wheel_is_pure_and_the_build_says_why(tmp_path) -> None:
    tree = _tree(tmp_path)
    done = _build(tree, "--wheel", path=NO_RUST_PATH)
    assert done.returncode == 0, done.stderr[-3000:]
    said = [line for line in (done.stdout + done.stderr).splitlines()
            if "the compiled pass is not built" in line]
    assert said and said[0].strip().startswith("prfeval: cargo not found:")
    (wheel,) = (tree / "dist").glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".so")]


def test_the_wheel_installed_without_rust_evaluates_as_the_development_install(
    built, tmp_path
) -> None:
    (wheel,) = built.glob("*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{NO_RUST_PATH}"}
    env.pop("PYTHONPATH", None)
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                                str(wheel)], capture_output=True, text=True, timeout=900,
                               env=env, check=False)  # fmt: skip
    if installed.returncode != 0:
        pytest.skip(f"the wheel's dependencies could not be installed: {installed.stderr[-500:]}")
    (tmp_path / "qrels").write_text(SMALL_QRELS)
    (tmp_path / "run").write_text(SMALL_RUN)
    version = subprocess.run([str(venv / "bin" / "prfeval"), "--version"], cwd=tmp_path,
                             env=env, capture_output=True, text=True, timeout=120, check=False)
    assert version.stdout.splitlines()[1] == "compiled pass: yes", version.stdout
    argv = ["evaluate", "qrels", "run", "-m", "P@1 R@2 MAP nDCG@10", "-q", "--format", "json"]
    ours = subprocess.run([str(venv / "bin" / "prfeval"), *argv], cwd=tmp_path, env=env,
                          capture_output=True, timeout=300, check=False)  # fmt: skip
    dev = subprocess.run([sys.executable, "-m", "prfeval", *argv], cwd=tmp_path,
                         capture_output=True, timeout=300, check=False)  # fmt: skip
    assert ours.returncode == dev.returncode == 0, ours.stderr
    assert ours.stdout == dev.stdout
