"""cluegym environments.

Each registered game is importable by its versioned id, PettingZoo style::

    from cluegym.envs import decrypto_v0
    env = decrypto_v0.env()

The ids come from :data:`cluegym.ENVS`; modules load lazily on first access.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def __getattr__(name: str) -> ModuleType:
    from cluegym import ENVS

    if name in ENVS:
        return importlib.import_module(ENVS[name])
    raise AttributeError(f"module 'cluegym.envs' has no attribute {name!r}")


def __dir__() -> list[str]:
    from cluegym import ENVS

    return sorted([*globals(), *ENVS])
