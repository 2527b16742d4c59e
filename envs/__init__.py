"""cluegym environments: the shared core and one folder per game.

Each game folder declares itself in its ``__init__.py`` (``GAME = GameSpec(...)``, see
:mod:`cluegym.envs.core.registry`). Every registered game is importable by its versioned id,
PettingZoo style; its module loads on first access::

    from cluegym.envs import decrypto_v0
    env = decrypto_v0.env()
"""

from __future__ import annotations

from types import ModuleType

from cluegym.envs.core.registry import env_module, game_ids


def __getattr__(name: str) -> ModuleType:
    # Dunder probes (copy, pickle, doctest ...) skip the registry; any other unknown name,
    # e.g. a game folder not imported yet (``from cluegym.envs import decrypto``), gets
    # AttributeError, so the import system goes on to import the sub-package.
    if not name.startswith("__") and name in game_ids():
        return env_module(name)
    raise AttributeError(f"module 'cluegym.envs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *game_ids()])
