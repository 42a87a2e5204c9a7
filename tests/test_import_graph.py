"""No import cycle between the modules of ``streamsvm``, counting imports inside functions.

Every module under ``src/streamsvm`` is parsed with :mod:`ast` (nothing is imported) and every
``import`` / ``from ... import`` statement anywhere in it is collected: at module level, inside
functions and methods, under ``if TYPE_CHECKING:`` and in ``try`` blocks alike. Relative imports
are resolved against the importing module's package.

How packages count: a package's ``__init__.py`` is the module named after the package
(``streamsvm.datasets``). ``from p import x`` is an edge to the submodule ``p.x`` when ``p/x.py``
or ``p/x/`` exists, otherwise to ``p`` itself (``x`` is then a name defined in ``p/__init__``);
``import p.x`` and ``from p.x import y`` are edges to ``p.x`` (or ``p.x.y`` when ``y`` is a
submodule). Python also runs the parent packages' ``__init__`` first, but those implied edges
are not counted: a package ``__init__`` that re-exports its submodules (``from .readers import
iter_csv``) would otherwise make every submodule part of a cycle with its own package. What is
forbidden is a module that imports, directly or through other modules, a module that imports it
back — including through a package ``__init__`` that it reads a name from. Imports by a name
computed at run time (``importlib.import_module``, as ``registry`` does) are not seen.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "streamsvm"
ROOT = Path(__file__).resolve().parents[1] / "src" / PACKAGE


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imported_modules(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules of the package that ``module`` imports anywhere in its source."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _package_of(module, path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                if node.level > 1:
                    base = base[: -(node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            assert target in known, f"{module} imports {target}, which is not a module"
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in known else target)
    found.discard(module)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    files = module_files(root)
    known = set(files)
    return {name: imported_modules(name, path, known) for name, path in files.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path ``[a, b, ..., a]``, or None (iterative depth-first search)."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(graph, WHITE)
    for start in sorted(graph):
        if colour[start] != WHITE:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        colour[start] = GREY
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[node] = BLACK
                stack.pop()
            elif colour[child] == GREY:
                path = [n for n, _ in stack]
                return path[path.index(child):] + [child]
            elif colour[child] == WHITE:
                colour[child] = GREY
                stack.append((child, iter(sorted(graph[child]))))
    return None


def test_the_graph_sees_function_level_and_relative_imports(tmp_path):
    pkg = tmp_path / PACKAGE
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import f\n")
    (pkg / "a.py").write_text("def f():\n    from . import b\n")
    (pkg / "b.py").write_text("from .sub import helper, NAME\n")
    (pkg / "sub" / "__init__.py").write_text("NAME = 1\n")
    (pkg / "sub" / "helper.py").write_text(
        "class C:\n    def m(self):\n        from ..a import f\n")
    graph = import_graph(pkg)
    assert graph == {
        PACKAGE: {f"{PACKAGE}.a"},
        f"{PACKAGE}.a": {f"{PACKAGE}.b"},
        f"{PACKAGE}.b": {f"{PACKAGE}.sub.helper", f"{PACKAGE}.sub"},
        f"{PACKAGE}.sub": set(),
        f"{PACKAGE}.sub.helper": {f"{PACKAGE}.a"},
    }
    cycle = find_cycle(graph)
    assert cycle == [f"{PACKAGE}.a", f"{PACKAGE}.b", f"{PACKAGE}.sub.helper", f"{PACKAGE}.a"]


def test_no_import_cycle_in_the_package():
    graph = import_graph()
    assert len(graph) > 20
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


#: The layers of ``docs/design.md``, lowest first: a module imports modules of its own layer
#: and of the layers below, never of one above. Entries are the top-level names under
#: ``streamsvm`` (a module, or a package with everything in it); the package's own
#: ``__init__`` re-exports from every layer and stands above them all.
LAYERS = {
    "utilities": ("_version", "_compiled_cache", "utils"),
    "maths": ("kernels", "qp", "metrics"),
    "input": ("input", "datasets"),
    "contract": ("base", "persistence"),
    "families": ("linear", "meb", "budget", "lasvm", "active", "distributed"),
    "tools": ("registry", "evaluate", "bench", "sharded", "cli"),
}


def layer_of(module: str, layers: dict = LAYERS) -> int | None:
    """Index of the layer that holds ``module`` (None: the package root, above all)."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    for index, names in enumerate(layers.values()):
        if parts[1] in names:
            return index
    raise AssertionError(f"{module} is in no layer of LAYERS (add it to one, and to "
                         "docs/design.md's table)")


def upward_imports(graph: dict[str, set[str]], layers: dict = LAYERS) -> list[str]:
    """Every import of a module of a higher layer, as ``'a (layer) -> b (layer)'``."""
    names = list(layers)
    found = []
    for module, imported in sorted(graph.items()):
        here = layer_of(module, layers)
        if here is None:
            continue
        for target in sorted(imported):
            there = layer_of(target, layers)
            if there is not None and there > here:
                found.append(f"{module} ({names[here]}) -> {target} ({names[there]})")
    return found


def test_an_upward_import_is_found(tmp_path):
    pkg = tmp_path / PACKAGE
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .low import x\n")
    (pkg / "low" / "__init__.py").write_text("")
    (pkg / "low" / "x.py").write_text("def f():\n    from ..high import g\n")
    (pkg / "high.py").write_text("from .low.x import f\n")
    layers = {"bottom": ("low",), "top": ("high",)}
    assert upward_imports(import_graph(pkg), layers) == [
        f"{PACKAGE}.low.x (bottom) -> {PACKAGE}.high (top)"]


def test_imports_go_down_the_layers():
    graph = import_graph()
    assert upward_imports(graph) == []


def test_the_design_page_draws_the_same_layers():
    """``docs/design.md``'s layer table is this data: same layers, same order, same names."""
    import re

    text = (ROOT.parents[1] / "docs" / "design.md").read_text(encoding="utf-8")
    text = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\w+) \| ([^|]+) \|", text, flags=re.MULTILINE)
    table = {layer: tuple(name.rstrip("/") for name in re.findall(r"`([^`]+)`", cell))
             for layer, cell in rows if layer != "layer"}
    assert list(table) == list(LAYERS)
    for layer, names in LAYERS.items():
        assert sorted(table[layer]) == sorted(names), layer
    top_level = {path.stem if path.suffix else path.name for path in ROOT.iterdir()
                 if (path.suffix == ".py" and path.stem != "__init__")
                 or (path.is_dir() and (path / "__init__.py").exists())}
    assert top_level == {name for names in LAYERS.values() for name in names}


MODULE_LINES = 700  #: the most lines a module of the package may hold (one idea each)
CONTRACT_PART_LINES = 400  #: ... and a part of the estimator contract (``base/``)


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_outgrows_one_idea():
    too_long = {str(path.relative_to(ROOT)): n for path in ROOT.rglob("*.py")
                if (n := _lines(path)) > (CONTRACT_PART_LINES if path.parent.name == "base"
                                          else MODULE_LINES)}
    assert too_long == {}, f"split these modules by idea: {too_long}"

