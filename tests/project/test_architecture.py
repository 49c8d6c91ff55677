"""The layout keeps its promises: layers import one way, no import cycles (lazy imports
inside functions included), no module takes another's private names, and ``import prfeval``
stays light.

The import graph is read from the sources with :mod:`ast`, so an import that only runs in a
rare branch, or inside a function (a lazy import), counts as much as one at the top. Imports
under ``if TYPE_CHECKING:`` count too, for the layers, the private names (an annotation naming
a higher layer is an arrow back up) and the cycles: two modules that each name the other
cannot be read, nor moved, one without the other (issue 47 broke the last such pair,
``_core/ranking`` and ``_core/views``). No code reads another module's objects' private
attributes, and every public name imports (issue 25, item 4).
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "prfeval"

#: Each top-level package's layer: a module may import its own package or a lower layer.
#: Packages are named without the leading underscore that marks the internal ones
#: (``prfeval/_core`` is ``core``), so the table reads the same before and after they moved.
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
    "plot": 5,
    "report": 6,
    "trec_eval": 7,
    "cli": 8,
}
#: The subpackages users import (besides ``prfeval`` itself): each declares ``__all__``.
PUBLIC_PACKAGES = ("cli", "plot", "spark")
#: Whether the internal packages carry their leading underscore yet (issue 25, item 4: the
#: privatize migration gives each internal package's folder one).
MIGRATED = (PACKAGE / "_core").is_dir()
#: Private modules other packages still import until the migration makes them public within
#: their internal package (it renames this one ``arrays``); empty once migrated.
PENDING = frozenset() if MIGRATED else frozenset({"prfeval.core._arrays"})  # privatize: keep


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _nodes(tree: ast.AST, *, type_checking: bool):
    """Every node, but those under ``if TYPE_CHECKING:`` unless ``type_checking``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if not type_checking and _is_type_checking(node):
            stack.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(
    name: str, *, type_checking: bool = False, source: str | None = None
) -> list[tuple[str, list[str]]]:
    """(imported prfeval module, names taken from it) for each import in module ``name``,
    those under ``if TYPE_CHECKING:`` too when ``type_checking``; read from ``source`` when
    given (a test of the checks), else from the module's file."""
    tree = ast.parse(MODULES[name].read_text() if source is None else source)
    found = []
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    for node in _nodes(tree, type_checking=type_checking):
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
            for n in names:  # `from prfeval._io import stream` imports a module
                if f"{base}.{n}" in MODULES:
                    found.append((f"{base}.{n}", []))
            found.append((base, [n for n in names if f"{base}.{n}" not in MODULES]))
    return [(m, names) for m, names in found if m in MODULES and m != name]


# The trees are read when a test first asks, not on import: every pytest-xdist worker imports
# this module to collect it, and only the one that runs its tests needs them.


@functools.cache
def declared(name: str) -> list[tuple[str, list[str]]]:
    """What module ``name`` names, annotations under ``if TYPE_CHECKING:`` too: the layers and
    the private names are read from it (an annotation naming a higher layer is an arrow back
    up)."""
    return imports_of(name, type_checking=True)


def package_of(name: str) -> str | None:
    """The top-level package of a module, without the underscore of an internal one."""
    parts = name.split(".")
    return parts[1].removeprefix("_") if len(parts) > 1 else None


def layer(name: str) -> int | None:
    package = package_of(name)
    return None if package is None else LAYERS.get(package)


def test_every_package_has_a_layer():
    packages = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    loose = {p for p in packages if p.removeprefix("_") not in LAYERS and (PACKAGE / p).is_dir()}
    assert not loose, f"packages without a layer: {sorted(loose)}"


def test_internal_packages_are_private_once_migrated():
    """After the migration every package but the public ones carries a leading underscore,
    and each public package's modules do; before it, none does (no half-moved tree)."""
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    internal = {p.removeprefix("_") for p in folders} - set(PUBLIC_PACKAGES)
    want = {f"_{p}" for p in internal} if MIGRATED else internal
    assert folders - set(PUBLIC_PACKAGES) == want, sorted(folders)
    if MIGRATED:
        for package in PUBLIC_PACKAGES:
            public = [
                p.name
                for p in (PACKAGE / package).glob("*.py")
                if not p.name.startswith("_")
            ]
            assert not public, f"prfeval.{package} has public modules: {public}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down_the_layers(name):
    """Imports under ``if TYPE_CHECKING:`` included."""
    own = layer(name)
    if own is None:  # prfeval/__init__ and __main__: the top
        return
    for target, _ in declared(name):
        other = layer(target)
        same_package = package_of(target) == package_of(name)
        assert same_package or other is None or other < own, (
            f"{name} (layer {own}) imports {target} (layer {other})"
        )


def first_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """The first import cycle of the graph ``edges`` (module -> the modules it imports), as
    the modules around it with the first repeated at the end; ``None`` if there is none."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found is not None:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found is not None:
                return found
    return None


def import_edges() -> dict[str, set[str]]:
    """Every module's imports of prfeval modules: lazy ones and ``if TYPE_CHECKING:`` ones
    included."""
    return {name: {t for t, _ in declared(name)} for name in MODULES}


def test_no_import_cycles():
    cycle = first_cycle(import_edges())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_the_cycle_check_finds_lazy_and_annotation_cycles():
    """The check above can fail: an import inside a function, or under ``if TYPE_CHECKING:``,
    back to a module that imports this one at the top is a cycle (``_core/views`` once named
    ``_core/ranking`` so)."""
    lazy = "def f():\n    from prfeval._core.ranking import JudgedRanking\n"
    annotation = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import prfeval._core.ranking\n"
    )
    for source in (lazy, annotation):
        edges = import_edges()
        edges["prfeval._core.views"] = {
            t for t, _ in imports_of("prfeval._core.views", type_checking=True, source=source)
        }
        cycle = first_cycle(edges)
        assert cycle is not None and set(cycle) == {"prfeval._core.ranking", "prfeval._core.views"}
    assert first_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def _is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def private_owner(dotted: str) -> str | None:
    """The package a dotted name is private to, the innermost (``None``: public).

    A name with a leading underscore is private to the package or module that holds it:
    ``prfeval._report._text`` to ``prfeval._report``, ``prfeval._core.ids._order`` to
    ``prfeval._core.ids``. The underscore of an internal package (``prfeval._core``) and of a
    public package's module (``prfeval.spark._engine``) says "not for users": they are
    private to ``prfeval``, so that the CLI may drive the Spark engine's modules."""
    parts = dotted.split(".")
    owner = None
    for i in range(1, len(parts)):
        if _is_private(parts[i]):
            opened = i == 1 or (i == 2 and parts[1] in PUBLIC_PACKAGES)
            owner = parts[0] if opened else ".".join(parts[:i])
    return owner


def _inside(module: str, owner: str) -> bool:
    return module == owner or module.startswith(owner + ".")


def private_imports(name: str) -> list[str]:
    """The private modules and names that module ``name`` imports from outside their owner."""
    offences = []
    for target, names in declared(name):
        for dotted in [target, *(f"{target}.{n}" for n in names)]:
            owner = private_owner(dotted)
            if owner is None or _inside(name, owner):
                continue
            if any(dotted == p or dotted.startswith(p + ".") for p in PENDING):
                continue
            offences.append(f"{name} imports {dotted}")
    return offences


def test_no_module_takes_another_packages_private_modules_or_names():
    """A module imports a private module or name (``_x``) only from within the package or
    module that holds it; ``if TYPE_CHECKING:`` imports included."""
    offences = [o for name in sorted(MODULES) for o in private_imports(name)]
    assert not offences, offences


def test_the_private_import_check_finds_offences():
    """The rule above can fail: a private name of another module, a private module of
    another package, and a module inside a private module's package (allowed)."""
    assert private_owner("prfeval._core.ranking._helper") == "prfeval._core.ranking"
    assert private_owner("prfeval._report._text.render_table") == "prfeval._report"
    assert private_owner("prfeval._core.ranking.JudgedRanking") == "prfeval"
    assert private_owner("prfeval.spark._engine") == "prfeval"
    assert private_owner("prfeval.spark._engine._helper") == "prfeval.spark._engine"
    assert private_owner("prfeval.cli.main") is None
    assert not _inside("prfeval.cli._evaluate_cmd", "prfeval.spark")
    assert _inside("prfeval._report.html", "prfeval._report")


def private_attributes_defined(tree: ast.AST) -> set[str]:
    """The private attributes a module defines: its own private functions and globals, its
    classes' private members (methods, class attributes, dataclass fields, ``__slots__``),
    and what it assigns as ``x._name``."""
    found: set[str] = set()
    for item in getattr(tree, "body", []):
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(item.name)
        elif isinstance(item, (ast.Assign, ast.AnnAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            found |= {t.id for t in targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    found.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    for t in item.targets:
                        if isinstance(t, ast.Name):
                            found.add(t.id)
                            if t.id == "__slots__" and isinstance(
                                item.value, (ast.Tuple, ast.List)
                            ):
                                found |= {
                                    e.value
                                    for e in item.value.elts
                                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                                }
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) == "object.__setattr__"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
        ):
            found.add(str(node.args[1].value))
    return {name for name in found if _is_private(name)}


@functools.cache
def trees() -> dict[str, ast.AST]:
    return {name: ast.parse(path.read_text()) for name, path in MODULES.items()}


@functools.cache
def owners() -> dict[str, set[str]]:
    """Every private attribute a prfeval class or module defines, and the modules defining
    it."""
    found: dict[str, set[str]] = {}
    for name, tree in trees().items():
        for attr in private_attributes_defined(tree):
            found.setdefault(attr, set()).add(name)
    return found


def foreign_private_reads(name: str, tree: ast.AST) -> list[str]:
    """``x._attr`` in module ``name`` where ``_attr`` is a private attribute that prfeval
    defines only in other modules (an object's private state, read or written from outside
    the module of its class). Attributes prfeval never defines (a library's own, such as
    pyspark's) are not its to guard here."""
    defined = owners()
    return [
        f"{name}:{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and _is_private(node.attr)
        and node.attr in defined
        and name not in defined[node.attr]
    ]


def test_no_code_reads_another_objects_private_attributes():
    offences = [o for name, tree in sorted(trees().items()) for o in
                foreign_private_reads(name, tree)]  # fmt: skip
    assert not offences, offences


def test_the_private_attribute_check_finds_offences():
    """The check above can fail: ``jr._cache`` read where ``_cache`` is not defined."""
    owner = ast.parse("class R:\n    _cache: dict\n    def f(self):\n        self._n = 1\n")
    assert private_attributes_defined(owner) == {"_cache", "_n"}
    owners().setdefault("_probe_cache", set()).add("prfeval._core.ranking")
    try:
        reader = ast.parse("def g(jr):\n    return jr._probe_cache[1]\n")
        assert foreign_private_reads("prfeval._measures.ranks", reader) == [
            "prfeval._measures.ranks:2: jr._probe_cache"
        ]
        assert foreign_private_reads("prfeval._core.ranking", reader) == []
    finally:
        owners().pop("_probe_cache")


def test_every_public_name_imports():
    """Each name of ``prfeval.__all__`` and of each public subpackage's ``__all__`` resolves
    (the lazy tables point at modules and names that exist)."""
    import importlib

    for package in ("prfeval", *(f"prfeval.{p}" for p in PUBLIC_PACKAGES)):
        module = importlib.import_module(package)
        exported = module.__all__
        assert exported, package
        missing = [n for n in exported if getattr(module, n, None) is None]
        assert not missing, f"{package}: {missing}"
        assert sorted(set(exported)) == sorted(exported), f"{package}: repeated names"


def _test_private(dotted: str) -> bool:
    """Whether a test may not import ``dotted``: tests are white-box, so the packages the
    migration made private (``prfeval._core``) and the public packages' modules
    (``prfeval.spark._engine``) are open to them; a private name within a module, or a
    module its package keeps private (``report._text``), is not."""
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if not _is_private(part) or i == 0:
            continue
        if i == 1 and part.removeprefix("_") in LAYERS:
            continue  # an internal package
        if i == 2 and parts[1] in PUBLIC_PACKAGES and f"{parts[0]}.{parts[1]}.{part}" in MODULES:
            continue  # a module of a public package
        return True
    return False


#: The most lines a module may hold: past it, a module does more than one job (split it along
#: what its code does, not by the count).
MAX_MODULE_LINES = 700


def test_no_module_is_longer_than_a_maintainer_reads_at_once():
    long = {name: n for name, path in MODULES.items()
            if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, long


def test_tests_and_bench_reach_into_no_private_module_or_name():
    root = PACKAGE.parents[1]
    offences = []
    scripts = [*sorted((root / "tests").rglob("*.py")), *sorted((root / "bench").rglob("*.py"))]
    assert len(scripts) > 100, "the tests are not where this check looks"
    for path in scripts:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("prfeval"):
                offences += [
                    f"{path.name}: {a.name} from {node.module}"
                    for a in node.names
                    if _test_private(f"{node.module}.{a.name}")
                ]
            elif isinstance(node, ast.Import):
                offences += [
                    f"{path.name}: {a.name}"
                    for a in node.names
                    if a.name.startswith("prfeval") and _test_private(a.name)
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


# --- trec_eval's facts live in each measure's declaration (issue 25, item 3) -------------------

#: The modules that print and drive trec_eval: they read what is particular to a measure (its
#: place in trec_eval's table, its sets, how its rows are printed) from the registry.
TREC_EVAL_MODULES = (
    "prfeval._trec_eval.printing",
    "prfeval._trec_eval.driver",
    "prfeval._trec_eval.arguments",
    "prfeval._trec_eval.measure_selection",
)
#: trec_eval's option letters (its getopt string "hvqm:cl:nD:JN:M:R:T:oZ:", and V for
#: --trec-eval-version), which the command compares options with: R is also recall's name.
OPTION_LETTERS = frozenset("hvqmclnDJNMRTZoV")


def measure_names() -> set[str]:
    """Every name of a measure: the registry's (canonical, aliases, trec_eval's as typed and
    as printed), those of trec_eval's table that prfeval does not compute, and the names of
    trec_eval's sets of measures but the plain words and those also typed after -R."""
    from prfeval._measures import TREC_REGISTRY as r

    sets = set(r.trec_sets) - {"official", "set", "prefs", "qrels_jg"}
    return {*r.names(), *r.trec_table, *r.trec_unsupported, *r.trec_unsupported_sets, *sets}


def measure_name_literals(source: str, names: set[str]) -> list[str]:
    """The string constants of ``source`` (docstrings and other bare strings left out) that
    are a measure's name, or one with parameters or a cutoff (``NumRel(rel=0)``, ``P.10``)."""
    tree = ast.parse(source)
    bare = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in bare or node.value in OPTION_LETTERS:
            continue
        head = node.value.split("(")[0].split("@")[0].split(".")[0]
        if node.value in names or (head != node.value and head in names):
            found.append(f"line {node.lineno}: {node.value!r}")
    return found


@pytest.mark.parametrize("name", TREC_EVAL_MODULES)
def test_trec_eval_output_names_no_measure(name):
    """No measure is special-cased by name, nor listed, where trec_eval's rows are made."""
    found = measure_name_literals(MODULES[name].read_text(), measure_names())
    assert not found, found


def test_the_name_check_finds_names():
    """The check above can fail: a table of names, a comparison with a canonical name and a
    hidden measure written out are each found (the forms the code had before issue 25)."""
    source = (
        '"""Docstrings may name map and NumQ."""\n'
        'TABLE_ORDER = ("runid", "num_q", "map")\n'
        'if d.name == "NumQ" or opt == "R":\n'
        '    extra = ["NumRel(rel=0)", "P.10", "prefs_simp", "all_prefs"]\n'
    )
    found = measure_name_literals(source, measure_names())
    assert [f.split(": ", 1)[1] for f in found] == [
        "'runid'", "'num_q'", "'map'", "'NumQ'", "'NumRel(rel=0)'", "'P.10'", "'prefs_simp'",
        "'all_prefs'",
    ]


def test_trec_eval_table_is_derived_from_the_declarations():
    """trec_eval's table is each declaration's place, and is trec_eval's own list of measures
    (pytrec_eval's, compiled from trec_eval 9.0.8); -m all_trec prints it in that order."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from prfeval._measures import REGISTRY, TREC_REGISTRY
    from prfeval._measures.trec_table import TREC_NAMES
    from prfeval._trec_eval.measure_selection import measure_entries

    placed = sorted(
        (t.place, t.name)
        for d in REGISTRY.values()
        for t in TREC_NAMES.get(d.name, ())
        if t.place is not None and t.since == 9  # 10.0's additions: trec_table_10
    )
    assert TREC_REGISTRY.trec_table == tuple(name for _, name in placed)
    # all_trec is the table but the judgment-group measures (-R qrels_jg only).
    every = [n for n in TREC_REGISTRY.trec_table if TREC_REGISTRY.trec_name(n)[0].all_trec]
    assert set(every) == set(pytrec_eval.supported_measures)
    printed = list(dict.fromkeys(t.name for _, t in measure_entries([("all_trec", None)])))
    assert printed == every


def test_measure_functions_write_no_parameter_default():
    """A parameter's default is declared once, in its Param; the measures' functions read
    complete parameters (``m.param``), never ``m.get(name, default)``."""
    from prfeval._measures import PARAMS

    offences = []
    for name, path in MODULES.items():
        if not name.startswith("prfeval._measures"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and len(node.args) == 2
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in PARAMS
            ):
                offences.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    assert not offences, offences


def test_parameters_are_resolved_before_a_function_is_called():
    """Every measure the registry builds carries each of its parameters, given or by the
    default its Param declares."""
    from prfeval._measures import PARAMS, parse_measures

    names = "RBP RBP(p=0.5)@10 ERR@5 IPrecAvg Utility(fp=-2) nDCG@3 G utility.2,-1,0,0"
    for m in parse_measures(names):
        d = m.definition
        given = dict(m.params)
        want = {
            key: given.get(key, PARAMS[key].default)
            for key in d.params
            if key not in ("rel", "beta", "alpha")
        }
        assert dict(m.values) == want, m
        assert all(m.param(key) == value for key, value in want.items())
    assert parse_measures("RBP(p=0.5)")[0].param("p") == 0.5
    assert parse_measures("utility.2,-1,0,0")[0].param("tp") == 2.0
