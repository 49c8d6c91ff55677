"""A user's code type-checks against prfeval's public names: a misspelt one is the type
checker's error (the lazy ``__getattr__`` that answers at run time is hidden from it), and
the names users write, ``__version__`` among them, have types."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT

pytestmark = pytest.mark.process


def _mypy(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="the type-checking test needs mypy: pip install '.[test]'")
    (tmp_path / "user.py").write_text(code)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
         "--python-version", "3.11", str(tmp_path / "user.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def test_a_misspelt_public_name_is_a_type_error(tmp_path: Path) -> None:
    done = _mypy("import prfeval\n\nprfeval.evalute\n", tmp_path)
    assert done.returncode == 1
    assert 'Module has no attribute "evalute"; maybe "evaluate"?' in done.stdout


def test_the_public_names_users_write_type_check(tmp_path: Path) -> None:
    code = (
        "import prfeval\n\n"
        "version: str = prfeval.__version__\n"
        "e = prfeval.evaluate({'q': {'a': 1}}, {'q': {'a': 1.0}}, 'P@1')\n"
        "r = prfeval.recall_at_k(['a'], ['a'], k=1)\n"
        "c = prfeval.compare\n"
    )
    done = _mypy(code, tmp_path)
    assert done.returncode == 0, done.stdout


def test_every_public_name_is_imported_for_type_checkers() -> None:
    """``__all__`` names nothing the ``if TYPE_CHECKING:`` block (or the module itself) leaves
    out: a name answered only by the lazy ``__getattr__`` is an error in a user's checker."""
    tree = ast.parse((ROOT / "src" / "prfeval" / "__init__.py").read_text())
    typed: set[str] = set()
    public: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom):
                    typed |= {a.asname or a.name for a in inner.names}
                elif isinstance(inner, ast.AnnAssign) and isinstance(inner.target, ast.Name):
                    typed.add(inner.target.id)
        elif isinstance(node, ast.ImportFrom):
            typed |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            typed.add(node.name)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            public = ast.literal_eval(node.value)
    assert public, "no __all__ found"
    assert sorted(set(public) - typed) == []
