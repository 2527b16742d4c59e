"""Layers point down only, and no private name crosses a package.

Every module of every cluegym package (the folders mapped in setup.py's ``NAMESPACE``) is
parsed with :mod:`ast`; each import (module level, in functions, under ``TYPE_CHECKING``)
that names a cluegym module is mapped to its layer::

    envs (and the registry re-export in cluegym/__init__) < harness < agents < wrappers
        < training < benchmarks < cli

A module may import from its own layer or lower ones. ``from cluegym.x import _name`` (or a
``_module`` in the path) is allowed only inside the package that defines it. Lazy
``"module:attr"`` references (the game and agent registries) are strings, not imports: they
are how lower layers name the parts above them without importing them.
"""

from __future__ import annotations

import ast
import gc
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Layer rank by module prefix (the longest prefix wins); a module imports ranks <= its own.
LAYERS: dict[str, int] = {
    "cluegym": 0,  # cluegym/__init__.py: version and the game registry's re-exports
    "cluegym.envs": 0,
    "cluegym.harness": 1,
    "cluegym.agents": 2,
    "cluegym.wrappers": 3,
    "cluegym.training": 4,
    "cluegym.benchmarks": 5,
    "cluegym.cli": 6,
}
LAYER_NAMES = {0: "envs", 1: "harness", 2: "agents", 3: "wrappers", 4: "training", 5: "benchmarks", 6: "cli"}

#: Edges still being removed by other work, as ``"importer: statement"`` (see
#: :attr:`ImportEdge.key`). Each entry must still occur: a removed edge fails the test until it
#: is taken off the list, so the list only shrinks.
ALLOWED: set[str] = set()


@dataclass(frozen=True)
class ImportEdge:
    """One import of a cluegym module (or of a name from one) by a cluegym module."""

    importer: str
    target: str  # the imported module, or ``module.name`` for a name that is not a module
    module: str  # the module the import reads from
    name: str | None  # the imported name (``from module import name``), else None
    line: int

    @property
    def statement(self) -> str:
        """The import as written (relative imports resolved)."""
        return f"from {self.module} import {self.name}" if self.name else f"import {self.module}"

    @property
    def key(self) -> str:
        """How :data:`ALLOWED` names the edge: ``"importer: statement"`` (no line number)."""
        return f"{self.importer}: {self.statement}"

    def __str__(self) -> str:
        return f"{self.importer}:{self.line}: {self.statement}"


def parse(source: str) -> ast.Module:
    """``ast.parse`` with the garbage collector paused.

    On CPython 3.11 a finalizer that formats a traceback (asyncio's "Task exception was never
    retrieved", once left by a stopped match) calls ``ast.parse`` from inside ours when a
    collection runs mid-parse, and ours then fails with "AST constructor recursion depth mismatch".
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(source)
    finally:
        if enabled:
            gc.enable()


def namespace() -> dict[str, str]:
    """setup.py's package -> folder mapping, read without running setup.py."""
    tree = parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "NAMESPACE" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py defines no NAMESPACE mapping")


def cluegym_modules() -> dict[str, Path]:
    """Every module of the installed packages: dotted name -> source file."""
    modules: dict[str, Path] = {}
    for package, folder in namespace().items():
        base = ROOT / folder
        nested = [ROOT / f for p, f in namespace().items() if p != package and p.startswith(package + ".")]
        for path in sorted(base.rglob("*.py")):
            if "__pycache__" in path.parts or any(path.is_relative_to(n) for n in nested):
                continue
            parts = path.relative_to(base).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


def layer(module: str) -> int | None:
    """The layer rank of a cluegym module (None outside cluegym)."""
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len, default=None)
    return None if best is None else LAYERS[best]


def package_of(module: str, is_package: bool) -> str:
    """The package a module belongs to (a package belongs to itself)."""
    return module if is_package else module.rpartition(".")[0]


def imports_of(importer: str, source: str, *, is_package: bool, known: set[str]) -> list[ImportEdge]:
    """Every import of a cluegym module in ``source`` (the code of module ``importer``)."""
    edges: list[ImportEdge] = []
    for node in ast.walk(parse(source)):
        if isinstance(node, ast.Import):
            edges += [ImportEdge(importer, a.name, a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package_of(importer, is_package).split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, module] if module else base)
            for alias in node.names:
                full = f"{module}.{alias.name}"
                edges.append(ImportEdge(importer, full if full in known else module, module, alias.name, node.lineno))
    return [e for e in edges if e.module == "cluegym" or e.module.startswith("cluegym.")]


def is_private(part: str) -> bool:
    """``_x`` is private; ``__x__`` (dunder) is not."""
    return part.startswith("_") and not part.startswith("__")


def private_owner(edge: ImportEdge, known: set[str]) -> tuple[str, str] | None:
    """``(private part, the package that owns it)`` when the import reaches a private name or
    module (``_x``, not dunder), else None."""
    parts = edge.module.split(".")
    for i, part in enumerate(parts):
        if is_private(part):
            return part, ".".join(parts[:i])
    if edge.name and is_private(edge.name):
        if edge.target != edge.module:  # a private module: owned by the package it sits in
            return edge.name, edge.module
        is_package = any(m.startswith(edge.module + ".") for m in known)
        return edge.name, package_of(edge.module, is_package)
    return None


def violations(importer: str, edges: list[ImportEdge], *, is_package: bool, known: set[str]) -> list[str]:
    """The imports that point up a layer, or take a private name from another package."""
    out = []
    own_layer, own_package = layer(importer), package_of(importer, is_package)
    for edge in edges:
        target_layer = layer(edge.target)
        if own_layer is not None and target_layer is not None and target_layer > own_layer:
            out.append(f"{edge}  ({LAYER_NAMES[own_layer]} -> {LAYER_NAMES[target_layer]}: points up)")
            continue
        private = private_owner(edge, known)
        if private is not None and private[1] != own_package:
            out.append(f"{edge}  (private {private[0]!r} of {private[1]} used outside it)")
    return out


def scan() -> tuple[dict[str, list[str]], int]:
    """The violations of every module (not counting :data:`ALLOWED`), and how many imports were read."""
    modules = cluegym_modules()
    known = set(modules)
    found: dict[str, list[str]] = {}
    edges = 0
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        module_edges = imports_of(name, path.read_text(), is_package=is_package, known=known)
        edges += len(module_edges)
        problems = violations(name, [e for e in module_edges if e.key not in ALLOWED],
                              is_package=is_package, known=known)
        if problems:
            found[name] = problems
    return found, edges


def test_every_package_folder_is_scanned():
    modules = cluegym_modules()
    for package in namespace():
        assert package in modules, f"{package} has no __init__.py under its folder"
        assert layer(package) is not None, f"{package} has no layer in LAYERS"
    assert {"cluegym.harness.runner", "cluegym.agents.base", "cluegym.cli"} <= set(modules)


def test_imports_point_down_only_and_keep_private_names_at_home():
    found, edges = scan()
    assert edges > 100, "the scan found too few imports to be reading the code"
    report = "\n".join(line for problems in found.values() for line in problems)
    assert not found, f"imports that break the layering:\n{report}"


def test_allow_list_holds_only_edges_that_still_exist():
    modules = cluegym_modules()
    known = set(modules)
    present = set()
    for name, path in modules.items():
        present |= {e.key for e in imports_of(
            name, path.read_text(), is_package=path.name == "__init__.py", known=known)}
    stale = sorted(ALLOWED - present)
    assert not stale, f"these edges are gone: take them off ALLOWED: {stale}"


def test_the_harness_imports_only_envs_below_it():
    modules = cluegym_modules()
    known = set(modules)
    for name, path in modules.items():
        if name.startswith("cluegym.harness"):
            for edge in imports_of(name, path.read_text(), is_package=path.name == "__init__.py", known=known):
                assert layer(edge.target) in (0, 1), f"{edge}: the harness may import only cluegym.envs"


KNOWN = {"cluegym", "cluegym.envs", "cluegym.envs.core", "cluegym.envs.core.registry", "cluegym.envs.dixit",
         "cluegym.envs.dixit.env", "cluegym.harness", "cluegym.harness.play", "cluegym.agents", "cluegym.agents.base",
         "cluegym.agents.llm", "cluegym.agents.llm.agent", "cluegym.agents.llm.parsing", "cluegym.training",
         "cluegym.training.train", "cluegym.benchmarks", "cluegym.benchmarks.dixitbench", "cluegym.cli"}


@pytest.mark.parametrize(("importer", "source", "bad"), [
    ("cluegym.envs.core.registry", "def f():\n    from cluegym.agents import make_agent\n", "points up"),
    ("cluegym.harness.play", "import cluegym.agents.base\n", "points up"),
    ("cluegym.harness.play", "from ..agents import base\n", "points up"),
    ("cluegym.agents.base", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import cluegym.training.train\n",
     "points up"),
    ("cluegym.training.train", "from cluegym.benchmarks import dixitbench\n", "points up"),
    ("cluegym.benchmarks.dixitbench", "from cluegym.cli import main\n", "points up"),
    ("cluegym.benchmarks.dixitbench", "from cluegym.envs.dixit.env import _image_size\n", "private"),
    ("cluegym.agents.llm.agent", "from cluegym.agents.llm.parsing import ParseError\n", None),
    ("cluegym.agents.llm.agent", "from .parsing import _helper\n", None),
    ("cluegym.agents.llm", "from .parsing import _helper\n", None),
    ("cluegym.benchmarks.dixitbench", "import cluegym\nfrom cluegym.agents import make_agent\n", None),
    ("cluegym.envs.core.registry", "import importlib\nimportlib.import_module('cluegym.agents')\n", None),
])
def test_the_checker_flags_what_it_should(importer, source, bad):
    is_package = importer in {"cluegym.agents.llm"}
    edges = imports_of(importer, source, is_package=is_package, known=KNOWN)
    found = violations(importer, edges, is_package=is_package, known=KNOWN)
    if bad is None:
        assert found == []
    else:
        assert len(found) == 1 and bad in found[0], found
