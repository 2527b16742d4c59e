"""cluegym: multi-agent PettingZoo environments for clue-giving games.

Each game declares itself once, in its folder (``GAME = GameSpec(...)`` in
``cluegym/envs/<game>/__init__.py``), or with :func:`register_game`; agents are registered in
:data:`cluegym.agents.AGENTS`. The registry lives in :mod:`cluegym.envs.core.registry`; its
public names are re-exported here. Nothing heavy is imported.

Example:
    >>> import cluegym
    >>> cluegym.registered_games()
    ['decrypto', 'dixit', 'taboo', 'undercover']
    >>> env = cluegym.make("decrypto", max_turns=8)
    >>> env.reset(seed=0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluegym import compiled

# Before any game module loads: the compiled game layer is loaded only while its sources are
# the ones it was built from (see cluegym/compiled.py).
compiled.install()

from cluegym.envs.core.registry import (  # noqa: E402 - after the finder, on purpose
    GameSpec,
    env_class,
    env_module,
    game_ids,
    game_spec,
    load_reference,
    make,
    register_game,
    registered_games,
    registered_specs,
    unregister_game,
)

if TYPE_CHECKING:  # options.py imports numpy; `import cluegym` stays light
    from cluegym.envs.core.options import Option

__version__ = "0.1.0"

__all__ = [
    "GameSpec", "env_class", "env_module", "game_ids", "game_options", "game_spec", "load_reference", "make",
    "register_game", "registered_games", "registered_specs", "unregister_game",
]


def game_options(name: str) -> dict[str, Option]:
    """The options of a registered game, in declaration order: its env class's keyword
    arguments with their type, default and description (from the class docstring).

    Example:
        >>> import cluegym
        >>> opt = cluegym.game_options("decrypto")["max_turns"]
        >>> opt.type_name, opt.default
        ('int', 8)
    """
    # Deferred on purpose: options.py imports numpy, and `import cluegym` must stay light.
    from cluegym.envs.core.options import declared_options

    return declared_options(env_class(name))
