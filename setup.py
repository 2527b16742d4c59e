"""Package discovery for cluegym's folder layout.

The top-level folders ``envs/``, ``harness/``, ``agents/``, ``wrappers/``, ``training/`` and
``benchmarks/`` are installed as ``cluegym.envs``, ``cluegym.harness``, ... so a new
game or agent module is picked up without touching any list: every folder with an
``__init__.py`` becomes a package and every file under a ``data/`` folder ships.

Two optional C extensions are built where a C compiler and the Python headers are present:
``cluegym.envs.core._digest`` (the bytes of the record's observation digest,
``envs/core/_digest.c``) and ``cluegym.envs.core._rng`` (numpy's seed hashing and bounded
draws, for the generator of every reset and the games' scalar draws, ``envs/core/_rng.c``).
Without a compiler the install still succeeds and both run their Python (numpy) paths: the
same digests, generators and draws, slower.

The game layer (every module under ``envs/`` but the packages' ``__init__.py``) is compiled
with Cython where Cython and a compiler are present (``CLUEGYM_NO_COMPILE=1`` skips it): the
same source, compiled as it is, with Python's semantics; where a ``.pxd`` sits beside a module,
its declarations type what they name (Undercover's State, round records and public views are
extension types, read by the rules, views, prompts and env as structs; the modules run as plain
Python without a build). Of the learning views (``wrappers/``), only the typed modules are
compiled (a ``.pxd`` beside them: the Undercover voter features' loops in C doubles,
Decrypto's per-code scores in C floats); the others measured no faster compiled. The build
writes ``cluegym/_compiled.json`` (in the wheel or the checkout), the digest of each compiled
module's source, which ``cluegym.compiled`` reads to load a build only while its source is
unchanged. Any module that fails to compile runs as Python.

Where the compiler is GCC, every extension can be a profile-guided build (``CLUEGYM_PGO``:
``generate`` builds it instrumented, ``use`` from the counts in ``build/pgo``, ``off`` plainly;
unset, the counts are used where they are): ``scripts/setup.sh`` runs the three steps, and the
manifest records the mode (``cluegym.compiled.pgo_flags``, docs/performance.md).
"""

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent
NAMESPACE = {
    "cluegym": "cluegym",
    "cluegym.envs": "envs",
    "cluegym.harness": "harness",
    "cluegym.agents": "agents",
    "cluegym.wrappers": "wrappers",
    "cluegym.training": "training",
    "cluegym.benchmarks": "benchmarks",
}


def _discover() -> tuple[list[str], dict[str, str], dict[str, list[str]]]:
    packages: list[str] = []
    package_dir: dict[str, str] = {}
    package_data: dict[str, list[str]] = {}
    for name, folder in NAMESPACE.items():
        package_dir[name] = folder
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT / folder)
            if "__pycache__" in rel.parts:
                continue
            package = ".".join([name, *rel.parts]) if rel.parts else name
            packages.append(package)
            # The .pxd beside a typed module ships with it: its build's digest covers them.
            typed = sorted(p.name for p in init.parent.glob("*.pxd"))
            if typed:
                package_data[package] = typed
            data_dir = init.parent / "data"
            if data_dir.is_dir():
                package_data[package] = package_data.get(package, []) + [
                    str(p.relative_to(init.parent))
                    for p in sorted(data_dir.rglob("*"))
                    if p.is_file() and "__pycache__" not in p.parts
                ]
    return packages, package_dir, package_data


#: The packages compiled with Cython (every module but __init__.py): the game layer. The
#: manifest of the builds goes in the cluegym package folder (cluegym/compiled.py reads it there).
COMPILED_PACKAGES = {"cluegym.envs": "envs"}
#: The packages of which only the typed modules (a .pxd beside them) are compiled: the
#: learning views, which measured no faster compiled as they are (docs/performance.md,
#: "Fourteenth pass") but faster where their loops declare C types ("Twenty-first pass").
TYPED_ONLY_PACKAGES = {"cluegym.wrappers": "wrappers"}
#: Every package with compiled modules -> its source folder.
SOURCE_FOLDERS = {**COMPILED_PACKAGES, **TYPED_ONLY_PACKAGES}
MANIFEST_PACKAGE, MANIFEST_NAME = "cluegym", "_compiled.json"
#: The profile of the profile-guided build (``cluegym.compiled.pgo_flags``; scripts/setup.sh
#: makes it): in the checkout's build folder, never in a wheel or the repository.
PGO_DIR = ROOT / "build" / "pgo"
#: Where the objects of a profile-guided build go: one folder for both of its builds, since
#: GCC names a profile by its object's absolute path (pip's builds use a new folder each).
PGO_BUILD_TEMP = ROOT / "build" / "pgo-objects"


def _compiled_sources() -> dict[str, tuple[str, Path]]:
    """The compiled modules: dotted name -> (its package, its .py file)."""
    package_modules = _compiled_helpers().package_modules
    return {name: (package, path)
            for package, folder in SOURCE_FOLDERS.items()
            for name, path in package_modules(package, ROOT / folder, package in TYPED_ONLY_PACKAGES).items()}


@functools.lru_cache(maxsize=1)
def _compiled_helpers() -> Any:
    """``cluegym/compiled.py``, loaded from its file (the package is not installed yet)."""
    spec = importlib.util.spec_from_file_location("_cluegym_compiled", ROOT / "cluegym" / "compiled.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _source_digest(path: Path) -> str:
    """``cluegym.compiled.source_digest``: the digest the manifest records and ``import
    cluegym`` checks, from the one definition."""
    return _compiled_helpers().source_digest(path)


def _pxd_include() -> str:
    """The folder Cython searches for cimported ``.pxd`` files, made afresh for this build.

    A few game modules declare C types for the build in a ``.pxd`` beside them (Cython's
    augmenting ``.pxd``; e.g. ``envs/undercover/state.pxd`` makes the State an extension type)
    and cimport each other by their installed names (``cluegym.envs.undercover.state``). The
    sources sit under ``envs/``, not ``cluegym/envs/``, so the ``.pxd`` files are copied under
    ``build/pxd/cluegym/...`` (with the package markers Cython looks for) and that folder is
    the include path."""
    include = ROOT / "build" / "pxd"
    shutil.rmtree(include, ignore_errors=True)
    for package, folder in SOURCE_FOLDERS.items():
        for pxd in sorted((ROOT / folder).rglob("*.pxd")):
            target = include.joinpath(*package.split("."), pxd.relative_to(ROOT / folder))
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(pxd, target)
    for directory in [include, *include.rglob("*")]:
        if directory.is_dir() and directory != include:
            (directory / "__init__.pxd").touch()
    return str(include)


def _cythonized() -> list[Extension]:
    """One optional Cython extension per compiled module, or none (no Cython, or
    ``CLUEGYM_NO_COMPILE=1``). A module Cython cannot compile is left out (it runs as Python)."""
    if os.environ.get("CLUEGYM_NO_COMPILE", "") not in ("", "0"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("cluegym: Cython is not installed; the game layer runs as Python")
        return []
    # Plain Python semantics: no C types inferred for variables or taken from annotations (a
    # numpy integer stays welcome where a hint says int), and functions keep their
    # signatures and pickle by name.
    # nonecheck: a typed variable that holds None raises AttributeError, as in Python, instead
    # of crashing the process (the typed modules' State parameters; see _pxd_include).
    directives = {"language_level": 3, "binding": True, "annotation_typing": False, "infer_types": False,
                  "nonecheck": True}
    include = _pxd_include()
    extensions = []
    for name, (_, path) in _compiled_sources().items():
        module = Extension(name, [str(path.relative_to(ROOT))], optional=True)
        try:
            (module,) = cythonize([module], build_dir="build/cython", quiet=True, compiler_directives=directives,
                                   include_path=[include])
        except Exception as exc:  # noqa: BLE001 - Cython cannot compile this module: it runs as Python
            print(f"cluegym: {name} is not compiled ({type(exc).__name__}); it runs as Python")
            continue
        extensions.append(module)
    return extensions


class BuildExt(build_ext):
    """build_ext that writes the manifest of the compiled modules: per package, per module
    compiled now, its source, its build (relative to the package's folder) and the SHA-256
    of its source. A module whose compile failed has no entry (and no build: the old ones
    are removed first), so it runs as Python."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:  # ~45 modules: compile them on every core
            self.parallel = os.cpu_count() or 1
        helpers = _compiled_helpers()
        if helpers.pgo_requested(os.environ.get(helpers.PGO_SWITCH)):
            self.build_temp = str(PGO_BUILD_TEMP)  # see PGO_BUILD_TEMP (scratch either way)

    def build_extensions(self) -> None:
        if self.compiler.compiler_type == "unix" and "CFLAGS" not in os.environ:
            # No C debug info (Python's flags ask for -g): the same machine code, ~20% less
            # compile time, which an install pays once or, profile-guided, twice. Set CFLAGS
            # to choose the flags yourself (it replaces Python's: "-DNDEBUG -fwrapv -O3 -g").
            for ext in self.extensions:
                ext.extra_compile_args = [*ext.extra_compile_args, "-g0"]
        self.pgo_mode = self._profile_guided()
        # The extensions a "use" build found no profile for (GCC says nothing, as asked:
        # -Wno-missing-profile): the manifest lists them, and a test checks the game layer's.
        profile_path = _compiled_helpers().pgo_profile_path
        self.pgo_missing = sorted(ext.name for ext in self.extensions if self.pgo_mode == "use" and not any(
            profile_path(PGO_DIR, obj).is_file()
            for obj in self.compiler.object_filenames(ext.sources, output_dir=self.build_temp)))
        super().build_extensions()

    def _profile_guided(self) -> str:
        """Add the profile-guided build's flags (``CLUEGYM_PGO``, see
        ``cluegym.compiled.pgo_flags``) to every extension where the compiler takes them;
        return the mode applied."""
        helpers = _compiled_helpers()
        command = list(getattr(self.compiler, "compiler_so", None) or [])
        try:
            version = subprocess.run([command[0], "--version"], capture_output=True, text=True, timeout=60).stdout
        except (IndexError, OSError, subprocess.SubprocessError):
            version = ""
        mode, compile_flags, link_flags = helpers.pgo_flags(os.environ.get(helpers.PGO_SWITCH, ""), version, PGO_DIR)
        if mode == "off":
            return mode
        # A flag this compiler refuses would fail every (optional) extension, which would then
        # run as Python: try them on an empty file first.
        with tempfile.TemporaryDirectory() as scratch:
            probe = subprocess.run([*command, *compile_flags, "-x", "c", "-c", "-", "-o", f"{scratch}/probe.o"],
                                   input="int cluegym_probe;\n", capture_output=True, text=True)
        if probe.returncode != 0:
            print(f"cluegym: the compiler refuses the profile-guided build's flags; plain build ({probe.stderr[:200]})")
            return "off"
        print(f"cluegym: profile-guided build: {mode} (profile in {PGO_DIR})")
        self.force = True  # the extensions built before with other flags (up to date by time) are rebuilt
        for ext in self.extensions:
            ext.extra_compile_args = [*ext.extra_compile_args, *compile_flags]
            ext.extra_link_args = [*ext.extra_link_args, *link_flags]
        return mode

    def _pgo_stale(self, body: dict[str, Any]) -> list[str] | None:
        """The instrumented build records the sources its runs train the profile on; a build
        from that profile lists (and names here) the modules whose source has changed since:
        GCC builds their changed functions without counts, and nothing else would say so
        (``cluegym.compiled.pgo_stale_modules``; the benchmarks print it)."""
        helpers = _compiled_helpers()
        digests = helpers.manifest_digests(body)
        if body["pgo"] == "generate":
            helpers.write_pgo_trained(PGO_DIR, digests)
        if body["pgo"] != "use":
            return []
        stale = helpers.pgo_stale_modules(helpers.pgo_trained_digests(PGO_DIR), digests)
        if stale:
            print(f"cluegym: {len(stale)} compiled modules changed since the profile in {PGO_DIR} was trained "
                  f"and build without its counts where they changed ({', '.join(stale)}): "
                  "`bash scripts/setup.sh` trains it again")
        return stale

    def run(self) -> None:
        sources = _compiled_sources()
        # Every compiled module's old build goes, compiled now or not: one that does not
        # compile any more must not be found beside its source.
        for name in sources:
            Path(self.get_ext_fullpath(name)).unlink(missing_ok=True)
        super().run()
        manifest: dict[str, dict[str, dict[str, str]]] = {}
        for ext in self.extensions:
            build = Path(self.get_ext_fullpath(ext.name))
            if ext.name not in sources or not build.is_file():
                continue
            package, source = sources[ext.name]
            # The package's folder, in the checkout (editable) or the build (wheel): where a
            # module "x" of it would be built.
            folder = Path(self.get_ext_fullpath(package + ".x")).parent
            manifest.setdefault(package, {})[ext.name] = {
                "source": source.relative_to(ROOT / SOURCE_FOLDERS[package]).as_posix(),
                "build": build.relative_to(folder).as_posix(),
                "sha256": _source_digest(source),
            }
        path = Path(self.get_ext_fullpath(MANIFEST_PACKAGE + ".x")).parent / MANIFEST_NAME
        if manifest:
            body = {"packages": manifest, "pgo": getattr(self, "pgo_mode", "off"),
                    "pgo_missing": getattr(self, "pgo_missing", [])}
            body["pgo_stale"] = self._pgo_stale(body)
            path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")
        else:
            path.unlink(missing_ok=True)


PACKAGES, PACKAGE_DIR, PACKAGE_DATA = _discover()
EXTENSIONS = [
    # optional: a failed compile is a warning, and the Python side falls back (record.py, rng.py)
    Extension("cluegym.envs.core._digest", ["envs/core/_digest.c"], optional=True),
    Extension("cluegym.envs.core._rng", ["envs/core/_rng.c"], optional=True),
]
EXTENSIONS += _cythonized()
setup(packages=PACKAGES, package_dir=PACKAGE_DIR, package_data=PACKAGE_DATA, ext_modules=EXTENSIONS,
      cmdclass={"build_ext": BuildExt})
