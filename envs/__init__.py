"""cluegym environments: the shared core and one folder per game.

Each game folder declares itself in its ``__init__.py`` (``GAME = GameSpec(...)``, see
:mod:`cluegym.envs.core.registry`). Every registered game is a module named by its versioned
id, PettingZoo style, made on first import from the game's env module: its public names plus
``parallel_env`` (:mod:`cluegym.envs.core.parallel`) when the game defines none::

    import cluegym.envs.decrypto_v0            # or: from cluegym.envs import decrypto_v0
    env = cluegym.envs.decrypto_v0.env()       # AEC
    par = cluegym.envs.decrypto_v0.parallel_env()
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

from cluegym.envs.core.registry import game_ids, game_spec


class _VersionedIdFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``cluegym.envs.<game>_v<N>`` for every registered game id (see module docstring)."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != __name__ or name.startswith("_") or name not in game_ids():
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module object

    def exec_module(self, module: ModuleType) -> None:
        game_module = importlib.import_module(game_spec(module.__name__.rpartition(".")[2]).env)
        names = getattr(game_module, "__all__", None) or [n for n in vars(game_module) if not n.startswith("_")]
        module.__dict__.update({name: getattr(game_module, name) for name in names if hasattr(game_module, name)})
        module.__doc__ = game_module.__doc__
        module.__all__ = list(names)
        if not hasattr(module, "parallel_env") and hasattr(game_module, "raw_env"):
            # Imported here, not at the top: the parallel view needs PettingZoo, and this
            # package's __init__ must stay light for the game folders' pure rules modules.
            from cluegym.envs.core.parallel import parallel_env_factory

            module.parallel_env = parallel_env_factory(game_module.raw_env)
            module.__all__.append("parallel_env")


if not any(isinstance(finder, _VersionedIdFinder) for finder in sys.meta_path):
    sys.meta_path.append(_VersionedIdFinder())


def __getattr__(name: str) -> ModuleType:
    # Dunder probes (copy, pickle, doctest ...) skip the registry; any other unknown name,
    # e.g. a game folder not imported yet (``from cluegym.envs import decrypto``), gets
    # AttributeError, so the import system goes on to import the sub-package.
    if not name.startswith("__") and name in game_ids():
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'cluegym.envs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *game_ids()])
