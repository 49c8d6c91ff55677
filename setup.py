"""The build's one decision that pyproject.toml cannot state: whether the compiled pass is
built into the wheel.

With cargo (Rust) on the PATH, setuptools-rust builds ``native/pass`` (no dependencies, so
offline) as a plain C library that prfeval loads with ctypes, and the wheel is tagged for
the platform (``cp311-abi3-linux_x86_64``: one wheel for every CPython from 3.11). Without
it (or with ``PRFEVAL_BUILD_NATIVE=0``: ``make`` builds the library itself for an editable
install), the build says so in one line and makes a pure-Python wheel (``py3-none-any``)
that reads every run with Arrow, with the same results. Each build starts from an empty
``build/`` so that nothing an earlier build left there (a library, a removed module) reaches
the wheel.
"""

from __future__ import annotations

import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build import build

#: Why the compiled pass is not built, or ``None`` when it is.
WHY_NOT = (
    "PRFEVAL_BUILD_NATIVE=0" if os.environ.get("PRFEVAL_BUILD_NATIVE", "").strip() == "0"
    else "cargo not found" if shutil.which("cargo") is None
    else None
)  # fmt: skip


class FreshBuild(build):
    """``build``, after emptying what an earlier build left in its folders, and saying
    (once, as the build runs) when the compiled pass is left out."""

    def run(self) -> None:
        for folder in (self.build_lib, self.build_temp):
            shutil.rmtree(folder, ignore_errors=True)
        if WHY_NOT is not None:
            print(f"prfeval: {WHY_NOT}: the compiled pass is not built, and prfeval reads "
                  "every run with Arrow (the same results, slower on large runs)",
                  file=sys.stderr)
        super().run()


def rust_extensions() -> list[object]:
    if WHY_NOT is not None:
        return []
    from setuptools_rust import Binding, RustExtension

    return [RustExtension("prfeval._native.libprfeval_pass", "native/pass/Cargo.toml",
                          binding=Binding.NoBinding, py_limited_api=True, optional=True,
                          args=["--offline"])]


extensions = rust_extensions()
setup(
    cmdclass={"build": FreshBuild},
    rust_extensions=extensions,
    # The library is no extension module, but it is built for one platform: tag the wheel so.
    options={"bdist_wheel": {"py_limited_api": "cp311"}} if extensions else {},
    zip_safe=False,
)
