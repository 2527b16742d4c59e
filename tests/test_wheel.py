"""The built wheel installs into a fresh venv and every module in it imports."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_imports_every_module(tmp_path):
    # Build from a copy of the sources: setuptools builds in-tree into build/, whose stale
    # files (a module deleted since) would otherwise end up in the wheel and in the checkout.
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", "runs", "*.so", "_compiled.json"))
    dist = tmp_path / "dist"
    # Unoptimized (what is checked is what the wheel holds and that it imports, not its
    # speed): a fraction of the compile time of an install's -O3.
    build_env = {**os.environ, "CFLAGS": "-DNDEBUG -fwrapv -O0 -g0", "CLUEGYM_PGO": "off"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "-q", "-w", str(dist)],
        check=True, cwd=tmp_path, env=build_env,
    )
    (wheel,) = dist.glob("cluegym-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    modules = sorted(
        n[:-3].replace("/", ".").removesuffix(".__init__")
        for n in names if n.endswith(".py") and n.startswith("cluegym/")
    )
    for expected in ("cluegym.envs.core.base", "cluegym.envs.decrypto.env", "cluegym.agents.base",
                     "cluegym.harness.runner", "cluegym.cli"):
        assert expected in modules
    assert any(n.startswith("cluegym/envs/decrypto/data/") for n in names), "word lists must ship"
    compiler = bool(shutil.which("cc") or shutil.which("gcc"))
    # The C extensions are built into the wheel where a compiler is (optional otherwise).
    for extension in ("_digest", "_rng"):
        built = any(n.startswith(f"cluegym/envs/core/{extension}") and n.endswith(".so") for n in names)
        assert built or not compiler, f"cluegym.envs.core.{extension} was not built into the wheel"
    # So is the game layer, with Cython (a test dependency): a build per module, and the
    # manifest of their sources' digests that cluegym.compiled reads.
    cython = importlib.util.find_spec("Cython") is not None
    compiled = compiler and cython
    if compiled:
        packages = json.loads(zipfile.ZipFile(wheel).read("cluegym/_compiled.json"))["packages"]
        assert "cluegym.envs.core.base" in packages["cluegym.envs"]
        assert "cluegym.envs.undercover.rules" in packages["cluegym.envs"]
        # Of the learning views, the typed modules only (a .pxd beside them, shipped with them).
        assert set(packages["cluegym.wrappers"]) == {"cluegym.wrappers.featurizers", "cluegym.wrappers.undercover",
                                                     "cluegym.wrappers.decrypto_scores", "cluegym.wrappers.similarity",
                                                     "cluegym.wrappers.taboo"}
        assert "cluegym/wrappers/undercover.pxd" in names and "cluegym/wrappers/similarity.pxd" in names
        for package, entries in packages.items():
            folder = package.replace(".", "/")
            for entry in entries.values():
                assert f"{folder}/{entry['build']}" in names and f"{folder}/{entry['source']}" in names

    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    py = target / "bin" / "python"
    site = Path(subprocess.check_output([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip())
    # Dependencies come from the test venv (no network install); cluegym only from the wheel.
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    code = (
        "import importlib, cluegym, sys\n"
        f"assert cluegym.__file__.startswith({str(site)!r}), cluegym.__file__\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "from cluegym.envs.core import record, rng\n"
        f"assert (record.ACCELERATED and rng.ACCELERATED) or not {compiler!r}\n"
        "from cluegym.compiled import compiled_modules\n"
        "running = compiled_modules()\n"
        f"assert ('cluegym.envs.core.base' in running and 'cluegym.envs.decrypto.env' in running) or not {compiled!r}\n"
        "assert all(path.startswith(" + repr(str(site)) + ") for path in running.values()), running\n"
        "print(len(sys.modules), len(running))\n"
    )
    subprocess.run([str(py), "-c", code], check=True, cwd=tmp_path)
