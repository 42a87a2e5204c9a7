"""Keep numba's on-disk cache of the package's compiled loops true to the sources.

numba (0.68) stamps the cache of each compiled function with a hash of *its own* source
file only. A function's cached machine code also holds every compiled function it calls, so
when a called function changes in another file (an upgrade, a ``git pull`` into an editable
install, an edit), the caller's cache still loads, with the old callee inside: silently
stale results. :func:`refresh` closes that gap for a package: it hashes the source of every
module of the package that holds compiled code into one digest, keeps the digest in a
stamp file beside each cache folder, and deletes that folder's cache files of the package
whenever the digest differs, so that the next use compiles against the sources as they are.

Only the contents count (a ``touch`` changes nothing, as for numba itself). The cache folder
of a module is the one numba picks: ``NUMBA_CACHE_DIR`` when set, else ``__pycache__`` beside
the module when writable, else numba's folder in the user's cache. Cost: reading and hashing
the compiled modules' sources once per process (a few milliseconds). It is best effort: any
file-system error leaves the cache as it is.
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

__all__ = ["compiled_sources", "digests", "refresh"]

#: the stamp file written beside each cache folder's files
STAMP = "streamsvm-compiled-sources.sha256"
_MARKERS = (b"@njit", b"@jit", b"@intrinsic", b"@overload", b"@generated_jit", b"@vectorize")


def _read_compiled(package_dir: Path) -> dict[Path, bytes]:
    """The contents of the ``.py`` files under ``package_dir`` that define compiled code, by
    path, in path order (each file read once)."""
    contents = {}
    for path in sorted(Path(package_dir).rglob("*.py")):
        text = path.read_bytes()
        if any(marker in text for marker in _MARKERS):
            contents[path] = text
    return contents


def compiled_sources(package_dir: Path) -> list[Path]:
    """The ``.py`` files under ``package_dir`` that define compiled code, in path order."""
    return list(_read_compiled(package_dir))


def _imports(path: Path, root: Path) -> set[Path]:
    """The package's ``.py`` files that ``path`` imports (relative or absolute imports of
    the package, anywhere in the module)."""
    package = root.name
    here = path.parent
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here
                for _ in range(node.level - 1):
                    base = base.parent
            elif node.module and node.module.split(".")[0] == package:
                base = root.parent
            else:
                continue
            parts = node.module.split(".") if node.module else []
            target = base.joinpath(*parts)
            candidates = [target.with_suffix(".py"), target / "__init__.py"]
            candidates += [target / f"{alias.name}.py" for alias in node.names]
            found.update(c for c in candidates if c.is_file())
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == package:
                    target = root.parent.joinpath(*parts)
                    found.update(c for c in (target.with_suffix(".py"), target / "__init__.py")
                                 if c.is_file())
    return found


def digests(package_dir: Path, contents: dict[Path, bytes] | None = None) -> dict[Path, str]:
    """For each compiled module: SHA-256 over its source and the sources of every compiled
    module it imports, directly or through other modules of the package (what its cached
    code may hold). ``contents``: the compiled sources already read (:func:`_read_compiled`)."""
    root = Path(package_dir).resolve()
    if contents is None:
        contents = _read_compiled(root)
    sources = list(contents)
    compiled = set(sources)
    # compiled code calls compiled code only: the graph needs the compiled modules and the
    # package __init__ files that re-export them
    nodes = compiled | set(root.rglob("__init__.py"))
    direct = {path: _imports(path, root) & nodes for path in nodes}
    out = {}
    for path in sources:
        seen, todo = {path}, [path]
        while todo:
            for dep in direct.get(todo.pop(), ()):
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        out[path] = _hash(sorted(seen & compiled), root, contents)
    return out


def _cache_folder(py_file: Path) -> Path | None:
    """The folder numba caches ``py_file``'s functions in (its own locators, in its order)."""
    from numba.core import caching

    def _placeholder():  # the locators read a function's first line number only
        pass

    names = (("UserProvidedCacheLocator", "_UserProvidedCacheLocator"),
             ("InTreeCacheLocator", "_InTreeCacheLocator"),
             ("UserWideCacheLocator", "_UserWideCacheLocator"))
    for public, private in names:
        locator_class = getattr(caching, public, None) or getattr(caching, private, None)
        if locator_class is None:
            continue
        locator = locator_class.from_function(_placeholder, str(py_file))
        if locator is not None:
            return Path(locator.get_cache_path())
    return None


def _read_stamps(stamp: Path) -> dict[str, str]:
    if not stamp.is_file():
        return {}
    pairs = (line.split() for line in stamp.read_text().splitlines())
    return {p[0]: p[1] for p in pairs if len(p) == 2}


def _hash(paths: list[Path], root: Path, contents: dict[Path, bytes]) -> str:
    """SHA-256 over the files' paths (relative to ``root``) and contents, in the order given."""
    sha = hashlib.sha256()
    for path in paths:
        sha.update(path.relative_to(root).as_posix().encode() + b"\0")
        sha.update(contents[path] + b"\0")
    return sha.hexdigest()


def refresh(package_dir: Path) -> list[Path]:
    """Delete the package's numba cache files of every module whose compiled sources (its
    own and those it imports) differ from the ones its cache was stamped with; returns the
    files deleted. When no compiled source changed since the stamps were written (the
    usual case) this reads the sources and the stamps, and nothing else."""
    root = Path(package_dir).resolve()
    try:
        contents = _read_compiled(root)
        sources = list(contents)
        whole = _hash(sources, root, contents)
        folder_of = {path: _cache_folder(path) for path in sources}
        folders = {folder for folder in folder_of.values() if folder is not None}
        if all(_read_stamps(folder / STAMP).get("*") == whole for folder in folders):
            return []
        by_module = digests(root, contents)
    except (OSError, SyntaxError, ImportError):
        return []
    deleted = []
    for folder in folders:
        wanted = {path.stem: by_module[path] for path, f in folder_of.items() if f == folder}
        stamp = folder / STAMP
        try:
            stamps = _read_stamps(stamp)
            stale = {stem for stem, digest in wanted.items() if stamps.get(stem) != digest}
            for entry in folder.iterdir():
                if entry.suffix in (".nbi", ".nbc") and entry.name.split(".", 1)[0] in stale:
                    entry.unlink(missing_ok=True)
                    deleted.append(entry)
            partial = folder / f"{STAMP}.{os.getpid()}"
            partial.write_text(f"* {whole}\n" + "".join(
                f"{stem} {digest}\n" for stem, digest in sorted(wanted.items())))
            os.replace(partial, stamp)
        except OSError:
            continue
    return deleted
