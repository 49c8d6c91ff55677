"""The layout keeps its promises: layers import one way, no import cycles (lazy imports
inside functions included), no module takes another's private names, and ``import prfeval``
stays light.

The import graph is read from the sources with :mod:`ast`, so an import that only runs in a
rare branch counts as much as one at the top. Imports under ``if TYPE_CHECKING:`` are left
out: they never run, and annotations may name what a module's callers define.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "prfeval"

#: Each top-level package's layer: a module may import its own package or a lower layer.
LAYERS = {
    "core": 0,
    "io": 1,
    "measures": 1,
    "retrieval": 2,
    "classification": 2,
    "leakage": 2,
    "comparison": 3,
    "spark": 3,
    "plots": 4,
    "demo": 5,
    "report": 6,
    "cli": 7,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _runtime_nodes(tree: ast.AST):
    """Every node but those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str) -> list[tuple[str, list[str]]]:
    """(imported prfeval module, names taken from it) for each import in module ``name``."""
    tree = ast.parse(MODULES[name].read_text())
    found = []
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names if a.name.startswith("prfeval")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            if not base.startswith("prfeval"):
                continue
            names = [a.name for a in node.names]
            for n in names:  # `from prfeval.io import stream` imports a module
                if f"{base}.{n}" in MODULES:
                    found.append((f"{base}.{n}", []))
            found.append((base, [n for n in names if f"{base}.{n}" not in MODULES]))
    return [(m, names) for m, names in found if m in MODULES and m != name]


GRAPH = {name: imports_of(name) for name in MODULES}


def layer(name: str) -> int | None:
    parts = name.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_every_package_has_a_layer():
    packages = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    loose = {p for p in packages if p not in LAYERS and (PACKAGE / p).is_dir()}
    assert not loose, f"packages without a layer: {sorted(loose)}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down_the_layers(name):
    own = layer(name)
    if own is None:  # prfeval/__init__ and __main__: the top
        return
    for target, _ in GRAPH[name]:
        other = layer(target)
        same_package = target.split(".")[1] == name.split(".")[1]
        assert same_package or other is None or other < own, (
            f"{name} (layer {own}) imports {target} (layer {other})"
        )


def test_no_import_cycles():
    edges = {name: {t for t, _ in deps} for name, deps in GRAPH.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)


def test_no_module_takes_another_modules_private_names():
    offences = [
        f"{name} imports {n} from {target}"
        for name, deps in GRAPH.items()
        for target, names in deps
        for n in names
        if n.startswith("_") and not n.startswith("__")
    ]
    assert not offences, offences


def _private(dotted: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))


def test_tests_and_bench_reach_into_no_private_module_or_name():
    root = PACKAGE.parents[1]
    offences = []
    for path in [*sorted((root / "tests").glob("*.py")), *sorted((root / "bench").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("prfeval"):
                offences += [
                    f"{path.name}: {a.name} from {node.module}"
                    for a in node.names
                    if _private(f"{node.module}.{a.name}")
                ]
            elif isinstance(node, ast.Import):
                offences += [
                    f"{path.name}: {a.name}"
                    for a in node.names
                    if a.name.startswith("prfeval") and _private(a.name)
                ]
    assert not offences, offences


def test_import_prfeval_loads_no_numpy_and_is_quick():
    code = (
        "import sys, time\n"
        "t = time.perf_counter()\n"
        "import prfeval\n"
        "took = time.perf_counter() - t\n"
        "heavy = [m for m in ('numpy', 'pyarrow', 'pandas', 'matplotlib', 'scipy', 'click', "
        "'rich') if m in sys.modules]\n"
        "print(','.join(heavy)); print(took)\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
        ).stdout.split("\n")
        for _ in range(3)
    ]
    assert all(heavy == "" for heavy, *_ in runs), runs
    # About 10 ms on a quiet machine; the bound leaves room for a loaded CI runner.
    assert min(float(took) for _, took, *_ in runs) < 0.1
