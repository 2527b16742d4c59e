"""cluegym: multi-agent PettingZoo environments for clue-giving games.

Games are registered once, in :data:`ENVS`; agents once, in
:data:`cluegym.agents.AGENTS`. Nothing heavy is imported here.

Example:
    >>> import cluegym
    >>> env = cluegym.make("decrypto", max_turns=8)
    >>> env.reset(seed=0)
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__version__ = "0.1.0"

#: Registered games: versioned id -> module exposing ``env()``, ``raw_env()``
#: (and ``parallel_env()`` where the game has a parallel view). One line per game.
ENVS: dict[str, str] = {
    "decrypto_v0": "cluegym.envs.decrypto.env",
    "undercover_v0": "cluegym.envs.undercover.env",
    "taboo_v0": "cluegym.envs.taboo.env",
    "dixit_v0": "cluegym.envs.dixit.env",
}


def _resolve(name: str) -> str:
    """Map ``"decrypto"`` or ``"decrypto_v0"`` to a registered versioned id."""
    if name in ENVS:
        return name
    versions = sorted(k for k in ENVS if k.rsplit("_v", 1)[0] == name)
    if not versions:
        known = ", ".join(sorted({k.rsplit("_v", 1)[0] for k in ENVS}))
        raise ValueError(f"unknown game {name!r}; registered games: {known}")
    return versions[-1]


def env_module(name: str) -> ModuleType:
    """Import and return the module of a registered game (by name or versioned id)."""
    return importlib.import_module(ENVS[_resolve(name)])


def make(name: str, **kwargs: Any):
    """Create a registered game as a wrapped PettingZoo AEC env.

    Args:
        name: game name (``"decrypto"``) or versioned id (``"decrypto_v0"``).
        **kwargs: the game's config options (see its env docstring).

    Returns:
        The AEC environment, wrapped like ``<game>_v0.env()``.
    """
    return env_module(name).env(**kwargs)


def registered_games() -> list[str]:
    """Names of the registered games (latest version each)."""
    return sorted({k.rsplit("_v", 1)[0] for k in ENVS})
