"""The compiled game layer: which modules run as Cython builds, and a guard against stale ones.

``pip install`` compiles the game layer (every module under ``envs/`` but the packages'
``__init__.py``, listed in setup.py) with Cython where Cython and a C compiler are present:
the same Python source, compiled as it is (no type declarations), ~6-20% more env steps per
second (docs/performance.md, "Fourteenth pass"). Without them the install still succeeds and
the sources run as Python. The build writes a manifest, ``envs/_compiled.json``: per compiled
module, its build and the SHA-256 of the source it was built from.

An editable install keeps each build beside its source, and Python prefers a build to the
source beside it: a source edited since the build would silently not run. So
:class:`CompiledModuleFinder` (installed by ``import cluegym``, before any game module loads)
loads a build only while its source is the one it was built from; an edited source runs as
Python, with a ``RuntimeWarning`` that says to rebuild (``pip install -e .``).

``CLUEGYM_PURE_PYTHON=1`` in the environment runs every source as Python (profilers such as
cProfile and py-spy see compiled functions as one native call; compare the two paths).

Example:
    >>> import cluegym, cluegym.envs.core.base as base
    >>> base.__file__.endswith(".so")   # True where the build compiled it
    >>> cluegym.compiled.compiled_modules()["cluegym.envs.core.base"]   # its build's path
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

#: The environment variable that, set to anything but ``""`` or ``"0"``, runs every compiled
#: module's source as Python.
OFF_SWITCH = "CLUEGYM_PURE_PYTHON"
#: The build's manifest, beside the game layer's package (``cluegym.envs``) folder's modules.
MANIFEST_NAME = "_compiled.json"


def source_digest(path: Path) -> str:
    """SHA-256 (hex) of a source file's bytes: what the manifest records per build."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


class CompiledModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules of a manifest: the build while its source is unchanged,
    else the source (with a warning), and every source while :data:`OFF_SWITCH` is set.

    Args:
        root: the folder the manifest's paths are relative to (the ``envs/`` folder).
        modules: the manifest's ``modules``: dotted name -> ``{"source": relative path of
            the .py, "build": relative path of its build, "sha256": the source's digest}``.

    Modules not in the manifest are left to the other finders.
    """

    def __init__(self, root: Path, modules: dict[str, dict[str, str]]) -> None:
        self.root = root
        self.modules = modules

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        entry = self.modules.get(fullname)
        if entry is None:
            return None
        source = self.root / entry["source"]
        build = self.root / entry["build"]
        if not source.is_file():  # deleted since the build: its build must not stand in for it
            raise ModuleNotFoundError(f"No module named {fullname!r} (its source is gone; its old build is ignored)",
                                      name=fullname)
        if os.environ.get(OFF_SWITCH, "") in ("", "0") and build.is_file():
            if source_digest(source) == entry["sha256"]:
                return importlib.util.spec_from_file_location(fullname, build)
            warnings.warn(
                f"{fullname} was edited since it was compiled: running its Python source "
                f"(rebuild with `pip install -e .` for the compiled speed)", RuntimeWarning, stacklevel=2,
            )
        return importlib.util.spec_from_file_location(fullname, source)


def read_manifest(folder: Path) -> dict[str, dict[str, str]]:
    """The ``modules`` of ``folder``'s build manifest; empty where there is none (nothing was
    compiled) or it cannot be read."""
    try:
        manifest = json.loads((folder / MANIFEST_NAME).read_text())
        modules = manifest["modules"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return modules if isinstance(modules, dict) else {}


def install() -> CompiledModuleFinder | None:
    """Put a :class:`CompiledModuleFinder` for the game layer's manifest first in
    ``sys.meta_path`` (once); None when nothing was compiled. ``import cluegym`` calls it."""
    spec = importlib.util.find_spec("cluegym.envs")  # its folder, without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0])
    for finder in sys.meta_path:
        if isinstance(finder, CompiledModuleFinder) and finder.root == folder:
            return finder
    modules = read_manifest(folder)
    if not modules:
        return None
    finder = CompiledModuleFinder(folder, modules)
    sys.meta_path.insert(0, finder)
    return finder


def compiled_modules() -> dict[str, str]:
    """The game modules running as builds in this process: dotted name -> the build's path
    (the hand-written C extensions ``_digest`` and ``_rng`` left out)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    running = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if name.startswith("cluegym.") and path.endswith(suffixes) and not name.rpartition(".")[2].startswith("_"):
            running[name] = path
    return running
