"""The compiled modules: which run as Cython builds, and a guard against stale ones.

``pip install`` compiles the game layer (every module under ``envs/`` but the packages'
``__init__.py``; setup.py's ``COMPILED_PACKAGES``) with Cython where Cython and a C compiler
are present: the same Python source, compiled as it is (types declared only where a
``.pxd`` sits beside a module), for 10-20% more env steps per second (docs/performance.md,
"Fourteenth pass" and "Nineteenth pass"), and of the learning views the typed modules only
(``TYPED_ONLY_PACKAGES``: a ``.pxd`` beside them, "Twenty-first pass"). Without them the install still succeeds and the
sources run as Python. The build writes a manifest, ``cluegym/_compiled.json``: per compiled
module, its build and the SHA-256 of what it was built from (:func:`source_digest`).

An editable install keeps each build beside its source, and Python prefers a build to the
source beside it: a source edited since the build would silently not run. So
:class:`CompiledModuleFinder` (installed by ``import cluegym``, before any game module loads)
loads a build only while its source is the one it was built from; an edited source runs as
Python, with a ``RuntimeWarning`` that says to rebuild (``pip install -e .``).

``CLUEGYM_PURE_PYTHON=1`` in the environment runs every source as Python (profilers such as
cProfile and py-spy see compiled functions as one native call; compare the two paths).

Example:
    >>> import cluegym, cluegym.envs.core.base as base
    >>> base.__file__.endswith(".so")   # True where the build compiled it  # doctest: +SKIP
    True
    >>> cluegym.compiled.compiled_modules()["cluegym.envs.core.base"]   # its build's path  # doctest: +SKIP
    '.../envs/core/base.cpython-311-x86_64-linux-gnu.so'
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
#: The build's manifest, in the cluegym package's folder (setup.py writes it).
MANIFEST_NAME = "_compiled.json"
#: The environment variable that chooses the profile-guided build (see :func:`pgo_flags`).
PGO_SWITCH = "CLUEGYM_PGO"
#: The values of :data:`PGO_SWITCH` (any case, spaces around) that ask for a plain build
#: (``scripts/setup.sh`` spells the same ones in its ``case``).
PGO_OFF_VALUES = ("0", "off", "no", "false")


def pgo_asked(value: str | None) -> str:
    """:data:`PGO_SWITCH`'s ``value`` as the build and ``scripts/setup.sh`` read it: lower
    case, spaces around dropped, ``"auto"`` when unset or blank.

    Example:
        >>> pgo_asked(" OFF "), pgo_asked(None), pgo_asked("  ")
        ('off', 'auto', 'auto')
    """
    return (value or "").strip().lower() or "auto"


def pgo_requested(value: str | None) -> bool:
    """Whether :data:`PGO_SWITCH`'s ``value`` leaves the profile-guided build on: anything
    but one of :data:`PGO_OFF_VALUES` (unset and ``""`` mean ``auto``).

    Example:
        >>> pgo_requested(" OFF "), pgo_requested(None), pgo_requested("use")
        (False, True, True)
    """
    return pgo_asked(value) not in PGO_OFF_VALUES


def pgo_profile_path(profile_dir: Path, object_file: str | Path) -> Path:
    """Where GCC writes (``generate``) and reads (``use``) the counts of ``object_file``:
    the object's absolute path, ``.gcda`` for its suffix, under ``profile_dir`` (GCC's
    naming with ``-fprofile-generate=DIR`` / ``-fprofile-use=DIR``; ``-fprofile-prefix-path``
    does not shorten absolute paths). So both builds must put their objects in one folder.

    Example:
        >>> pgo_profile_path(Path("/p"), "/work/build/pgo-objects/base.o").as_posix()
        '/p/work/build/pgo-objects/base.gcda'
    """
    return profile_dir.joinpath(*Path(object_file).resolve().with_suffix(".gcda").parts[1:])


def pgo_flags(mode: str, compiler_version: str, profile_dir: Path) -> tuple[str, list[str], list[str]]:
    """The compiler's flags for a profile-guided build (GCC's PGO) of the compiled modules.

    ``scripts/setup.sh`` builds the package twice where GCC is: once instrumented
    (``generate``: every run of a build writes its branch and call counts under
    ``profile_dir``), then, after :mod:`cluegym.benchmarks.pgo` has played every game with
    that build, optimized with those counts (``use``): the hot paths laid out together and
    the cold ones (the error handling Cython writes around every call) moved aside, for
    11-18% more env steps per second from the same code (docs/performance.md,
    "Twenty-seventh pass"). The same source and semantics: only the machine code's layout,
    inlining and branch order change.

    GCC names a profile by its object file's absolute path (:func:`pgo_profile_path`), so
    both builds put their objects in the same folder (setup.py's ``PGO_BUILD_TEMP``).

    Args:
        mode: :data:`PGO_SWITCH`'s value: ``"generate"``, ``"use"``, ``"off"`` (or another of
            :data:`PGO_OFF_VALUES`), or ``""`` / ``"auto"``: ``use`` where ``profile_dir``
            holds a profile, else ``off``.
        compiler_version: the C compiler's ``--version`` text ("" if unknown): only GCC
            (its text names the Free Software Foundation) gets the flags; another compiler
            builds without them.
        profile_dir: where the counts are written and read.

    Returns:
        ``(mode applied, compile flags, link flags)``; ``("off", [], [])`` for a plain build.

    Example:
        >>> pgo_flags("off", "gcc (Debian 12.2.0) 12.2.0 ... Free Software Foundation", Path("build/pgo"))
        ('off', [], [])
    """
    mode = pgo_asked(mode)
    if mode in PGO_OFF_VALUES or "Free Software Foundation" not in compiler_version:
        return "off", [], []
    if mode not in ("auto", "generate", "use"):
        raise ValueError(f"{PGO_SWITCH}={mode!r}: use generate, use, off or auto")
    if mode == "generate":
        # single: the counters of one thread (the training run is single-threaded; atomic
        # updates would make it slower, not its counts truer).
        return "generate", [f"-fprofile-generate={profile_dir}", "-fprofile-update=single"], ["-fprofile-generate"]
    if not any(profile_dir.rglob("*.gcda")):
        return "off", [], []
    # partial-training: what the training did not run (error paths, other options) is
    # optimized as in a plain build, not for size as never run. A module edited since the
    # training keeps the counts of its unchanged functions; the others build as without.
    # profile-correction: an edited function whose checksum still matches gets counts that
    # do not add up (GCC stops with "corrupted profile info" otherwise: seen editing a typed
    # module of wrappers/ and running pip install -e .); GCC smooths them instead.
    return "use", [f"-fprofile-use={profile_dir}", "-fprofile-partial-training", "-fprofile-correction",
                   "-Wno-missing-profile", "-Wno-coverage-mismatch"], []


def source_digest(path: Path) -> str:
    """SHA-256 (hex) of what a module's build was made from: what the manifest records per build.

    That is the source file's bytes; for a typed module (one with a ``.pxd`` beside it, see
    setup.py), the sources and ``.pxd`` files of every typed module of its package. Their
    builds read each other's objects as C structs, so an edit to any of them must run them all
    as Python: a build beside a Python module of the group would misread its objects."""
    if not path.with_suffix(".pxd").is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for declarations in sorted(path.parent.glob("*.pxd")):
        for file in (declarations.with_suffix(".py"), declarations):
            data = file.read_bytes() if file.is_file() else b""
            digest.update(f"{file.name}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()


def package_modules(package: str, folder: Path, typed_only: bool = False) -> dict[str, Path]:
    """The modules of ``package`` (its sources in ``folder``) that the build compiles: dotted
    name -> source, every ``.py`` under ``folder`` but the packages' ``__init__.py`` and what
    sits in ``__pycache__`` or ``data`` folders; with ``typed_only``, only the modules with a
    ``.pxd`` beside them. setup.py compiles these, and the tests check that each one was.

    Example:
        >>> sorted(package_modules("cluegym.envs", Path("envs")))[:2]  # doctest: +SKIP
        ['cluegym.envs.core.base', 'cluegym.envs.core.cython_fallback']
    """
    modules = {}
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        if path.name == "__init__.py" or {"__pycache__", "data"} & set(parts[:-1]):
            continue
        if typed_only and not path.with_suffix(".pxd").is_file():
            continue
        modules[".".join([package, *parts])] = path
    return modules


def runs_built(source: Path, build: Path, digest: str) -> bool:
    """Whether a manifest's module runs its build: the build and the source are there and the
    source is the one it was built from (``digest``, :func:`source_digest`); else the source
    runs as Python (:class:`CompiledModuleFinder`)."""
    return build.is_file() and source.is_file() and source_digest(source) == digest


class CompiledModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules of a manifest: the build while its source is unchanged,
    else the source (with a warning), and every source while :data:`OFF_SWITCH` is set.

    Args:
        modules: dotted name -> ``(source .py path, build path, the source's SHA-256 at
            the build)``.

    Modules not in the manifest are left to the other finders.
    """

    def __init__(self, modules: dict[str, tuple[Path, Path, str]]) -> None:
        self.modules = modules

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        entry = self.modules.get(fullname)
        if entry is None:
            return None
        source, build, digest = entry
        if not source.is_file():  # deleted since the build: its build must not stand in for it
            raise ModuleNotFoundError(f"No module named {fullname!r} (its source is gone; its old build is ignored)",
                                      name=fullname)
        if os.environ.get(OFF_SWITCH, "") in ("", "0"):
            if runs_built(source, build, digest):
                return importlib.util.spec_from_file_location(fullname, build)
            if build.is_file():  # built from another source
                warnings.warn(
                    f"{fullname}{' (or a typed module of its package)' if source.with_suffix('.pxd').is_file() else ''} "
                    f"was edited since it was compiled: running its Python source "
                    f"(rebuild with `pip install -e .` for the compiled speed)", RuntimeWarning, stacklevel=2,
                )
        return importlib.util.spec_from_file_location(fullname, source)


def _manifest_body(path: Path) -> dict[str, Any]:
    """The manifest at ``path`` as JSON; ``{}`` where there is none or it cannot be read."""
    try:
        body = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return body if isinstance(body, dict) else {}


def pgo_build_mode(path: Path | None = None) -> str:
    """The profile-guided mode of the build whose manifest is ``path`` (default: the installed
    one): ``"generate"``, ``"use"`` or ``"off"`` (also where nothing was compiled).

    Example:
        >>> pgo_build_mode() in ("generate", "use", "off")
        True
    """
    return _build_mode(_manifest_body(path or Path(__file__).with_name(MANIFEST_NAME)))


def _build_mode(body: dict[str, Any]) -> str:
    mode = body.get("pgo", "off")
    return mode if mode in ("generate", "use") else "off"


#: What the profile-guided build's profile was trained on, beside its counts: the compiled
#: modules' source digests of the instrumented build (setup.py writes it; see :func:`pgo_stale_modules`).
PGO_TRAINED_NAME = "trained.json"


def manifest_digests(body: dict[str, Any]) -> dict[str, str]:
    """Each compiled module of a manifest (already read) -> the digest of the source it was
    built from (:func:`source_digest`); ``{}`` for a manifest without modules."""
    try:
        return {name: entry["sha256"] for entries in body["packages"].values() for name, entry in entries.items()}
    except (KeyError, TypeError, AttributeError):
        return {}


def write_pgo_trained(profile_dir: Path, digests: dict[str, str]) -> None:
    """Record, in ``profile_dir``, the source digests of the instrumented build whose runs
    train the profile (``digests``: :func:`manifest_digests` of its manifest)."""
    profile_dir.mkdir(parents=True, exist_ok=True)
    (profile_dir / PGO_TRAINED_NAME).write_text(json.dumps({"modules": digests}, indent=1, sort_keys=True) + "\n")


def pgo_trained_digests(profile_dir: Path) -> dict[str, str] | None:
    """The source digests the profile in ``profile_dir`` was trained on (see
    :func:`write_pgo_trained`); None where they were not recorded or cannot be read."""
    modules = _manifest_body(profile_dir / PGO_TRAINED_NAME).get("modules")
    if not isinstance(modules, dict) or not all(isinstance(v, str) for v in modules.values()):
        return None
    return modules


def pgo_stale_modules(trained: dict[str, str] | None, built: dict[str, str]) -> list[str] | None:
    """The modules of a profile-guided ``use`` build whose source is not the one the profile
    was trained on (``trained``: :func:`pgo_trained_digests`; ``built``: :func:`manifest_digests`
    of the build), sorted; None where the trained sources are unknown.

    GCC builds such a module's changed functions without their counts (as a plain build), so a
    benchmark on it reads slow: ``scripts/setup.sh`` trains the profile again whenever a source
    changed, while a plain ``pip install -e .`` keeps the old one.

    Example:
        >>> pgo_stale_modules({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "4"})
        ['b', 'c']
        >>> pgo_stale_modules(None, {"a": "1"}) is None
        True
    """
    if trained is None:
        return None
    return sorted(name for name, digest in built.items() if trained.get(name) != digest)


def _names(modules: list[str], most: int = 4) -> str:
    """Up to ``most`` module names without the ``cluegym.`` prefix, then how many more."""
    shown = [m.removeprefix("cluegym.") for m in modules[:most]]
    more = f" and {len(modules) - most} more" if len(modules) > most else ""
    return ", ".join(shown) + more


def build_summary(manifest: Path | None = None) -> str:
    """One line on the compiled build that runs the game layer: how many modules, whether it
    is the profile-guided build, and which modules run slower than a fresh
    ``scripts/setup.sh`` would make them (changed since the profile was trained; edited since
    the build, so running as Python). The throughput benchmarks print it under the host's
    line: a figure from such a build is not the project's.

    Args:
        manifest: the build's manifest (default: the installed ``cluegym/_compiled.json``).

    Example:
        >>> build_summary().startswith("build: ")
        True
    """
    if os.environ.get(OFF_SWITCH, "") not in ("", "0"):
        return f"build: the sources run as Python ({OFF_SWITCH} is set)"
    body = _manifest_body(manifest or Path(__file__).with_name(MANIFEST_NAME))
    modules = _manifest_modules(body)
    if not modules:
        return "build: nothing compiled (the sources run as Python)"
    mode = _build_mode(body)
    parts = [f"build: {len(modules)} modules compiled, " + {
        "use": "profile-guided",
        "generate": "instrumented (the profile-guided build's training build: ~20% slower)",
        "off": "plain (not profile-guided)",
    }[mode]]
    stale = body.get("pgo_stale") if mode == "use" else []
    if not isinstance(stale, list):  # None: a build from a profile whose sources were not recorded
        parts.append("the sources its profile was trained on were not recorded")
    elif stale:
        parts.append(f"{len(stale)} changed since its profile was trained, without its counts where they "
                     f"changed ({_names(stale)})")
    edited = sorted(name for name, entry in modules.items() if not runs_built(*entry))
    if edited:
        parts.append(f"{len(edited)} edited since the build, running as Python ({_names(edited)})")
    if stale or edited:
        parts.append("`bash scripts/setup.sh` builds and trains them again")
    return "; ".join(parts)


def instrumented_build_warning(mode: str, switch: str | None) -> str | None:
    """What ``import cluegym`` warns when the installed build is the profile-guided build's
    instrumented one (``mode`` ``"generate"``: a ``scripts/setup.sh`` stopped before its
    optimized build), unless :data:`PGO_SWITCH` (``switch``) says ``generate`` (the training
    run itself); None otherwise."""
    if mode != "generate" or pgo_asked(switch) == "generate":
        return None
    return ("cluegym's compiled game layer is the instrumented build of the profile-guided build "
            "(scripts/setup.sh stopped before its optimized build?): it runs ~20% slower and writes "
            "counts under build/pgo whenever a process exits; rerun `bash scripts/setup.sh`, or set "
            f"{PGO_SWITCH}=off and run `pip install --no-deps -e .` for a plain build")


def read_manifest(path: Path) -> dict[str, tuple[Path, Path, str]]:
    """The compiled modules the manifest at ``path`` lists, each as
    :class:`CompiledModuleFinder` takes it (its package's folder found without importing
    the package); empty where there is no manifest (nothing was compiled) or it cannot be read."""
    return _manifest_modules(_manifest_body(path))


def _manifest_modules(body: dict[str, Any]) -> dict[str, tuple[Path, Path, str]]:
    """:func:`read_manifest` of a manifest already read."""
    try:
        packages = body["packages"]
        modules = {}
        for package, entries in packages.items():
            try:
                spec = importlib.util.find_spec(package)
            except ImportError:  # a package of another version of cluegym: nothing of it loads
                continue
            if spec is None or not spec.submodule_search_locations:
                continue
            folder = Path(list(spec.submodule_search_locations)[0])
            for name, entry in entries.items():
                modules[name] = (folder / entry["source"], folder / entry["build"], entry["sha256"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ImportError):
        return {}
    return modules


def install(manifest: Path | None = None) -> CompiledModuleFinder | None:
    """Put a :class:`CompiledModuleFinder` for the build's manifest (``manifest``, default
    ``cluegym/_compiled.json``) first in ``sys.meta_path``, once; None when nothing was
    compiled. Warns (``RuntimeWarning``) when the build is an instrumented one left installed
    (see :func:`instrumented_build_warning`). ``import cluegym`` calls it."""
    for finder in sys.meta_path:
        if isinstance(finder, CompiledModuleFinder):
            return finder
    body = _manifest_body(manifest or Path(__file__).with_name(MANIFEST_NAME))  # read once, at import
    modules = _manifest_modules(body)
    if not modules:
        return None
    message = instrumented_build_warning(_build_mode(body), os.environ.get(PGO_SWITCH))
    if message is not None:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    finder = CompiledModuleFinder(modules)
    sys.meta_path.insert(0, finder)
    return finder


def compiled_modules() -> dict[str, str]:
    """The modules running as builds in this process: dotted name -> the build's path (the
    hand-written C extensions ``_digest`` and ``_rng`` left out)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    running = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if name.startswith("cluegym.") and path.endswith(suffixes) and not name.rpartition(".")[2].startswith("_"):
            running[name] = path
    return running
