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
"""

from pathlib import Path

from setuptools import Extension, setup

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
            data_dir = init.parent / "data"
            if data_dir.is_dir():
                package_data[package] = [
                    str(p.relative_to(init.parent))
                    for p in sorted(data_dir.rglob("*"))
                    if p.is_file() and "__pycache__" not in p.parts
                ]
    return packages, package_dir, package_data


PACKAGES, PACKAGE_DIR, PACKAGE_DATA = _discover()
EXTENSIONS = [
    # optional: a failed compile is a warning, and the Python side falls back (record.py, rng.py)
    Extension("cluegym.envs.core._digest", ["envs/core/_digest.c"], optional=True),
    Extension("cluegym.envs.core._rng", ["envs/core/_rng.c"], optional=True),
]
setup(packages=PACKAGES, package_dir=PACKAGE_DIR, package_data=PACKAGE_DATA, ext_modules=EXTENSIONS)
