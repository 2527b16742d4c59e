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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # options.py imports numpy; `import cluegym` stays light
    from cluegym.envs.core.options import Option

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

    Options are checked against the game's declared options (:func:`game_options`) before
    the env is built: text converts to the declared type (``max_turns="8"`` -> 8), and an
    unknown or mistyped option is a one-line ``ValueError`` that lists the accepted ones.

    Args:
        name: game name (``"decrypto"``) or versioned id (``"decrypto_v0"``).
        **kwargs: the game's config options (``cluegym list GAME`` shows them).

    Returns:
        The AEC environment, wrapped like ``<game>_v0.env()``.

    Raises:
        ValueError: an unknown game, an unknown option, a value of the wrong type
            (:class:`~cluegym.envs.core.options.OptionError`), or one the game rejects.
    """
    return env_module(name).env(**kwargs)


def env_class(name: str) -> type:
    """The env class of a registered game: the class in its module whose ``game_id`` is the
    game's versioned id (e.g. ``DecryptoEnv`` for ``"decrypto"``)."""
    versioned = _resolve(name)
    module = importlib.import_module(ENVS[versioned])
    for value in vars(module).values():
        if isinstance(value, type) and getattr(value, "game_id", None) == versioned:
            return value
    raise LookupError(f"module {module.__name__} defines no class with game_id {versioned!r}")


def game_options(name: str) -> dict[str, Option]:
    """The options of a registered game, in declaration order: its env class's keyword
    arguments with their type, default and description (from the class docstring).

    Example:
        >>> opt = cluegym.game_options("decrypto")["max_turns"]
        >>> opt.type_name, opt.default
        ('int', 8)
    """
    from cluegym.envs.core.options import declared_options

    return declared_options(env_class(name))


def registered_games() -> list[str]:
    """Names of the registered games (latest version each)."""
    return sorted({k.rsplit("_v", 1)[0] for k in ENVS})
