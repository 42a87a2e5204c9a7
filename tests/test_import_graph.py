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
