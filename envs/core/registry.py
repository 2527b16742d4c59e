"""The game registry: every game declares itself once, in a :class:`GameSpec`.

A built-in game's folder ``envs/<game>/`` declares ``GAME = GameSpec(...)`` in its
``__init__.py``; the registry finds those on its first use (it imports each sub-package of
:mod:`cluegym.envs` except ``core``: cheap, since a game package's ``__init__`` imports only
this module). A game defined elsewhere (a plug-in, a test) calls :func:`register_game`.

A spec names the game's parts in higher layers (baselines, LLM adapter, learner task,
shaping potential) as strings, and each layer loads what it needs with
:func:`load_reference`, so ``envs/`` imports nothing above it. This module imports only the
standard library: ``import cluegym`` stays light.

Example:
    >>> from cluegym.envs.core.registry import GameSpec, game_spec, make, register_game
    >>> game_spec("decrypto").id
    'decrypto_v0'
    >>> register_game(GameSpec(name="mygame", env="mypackage.mygame.env"))  # doctest: +SKIP
    >>> env = make("mygame", max_rounds=3)  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
import threading
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Mapping

__all__ = [
    "GameSpec", "env_class", "env_module", "game_ids", "game_spec", "load_reference", "make", "register_game",
    "registered_games", "registered_specs", "unregister_game",
]

#: A game name: lower-case letters, digits and underscores, starting with a letter.
GAME_NAME = re.compile(r"[a-z][a-z0-9_]*")
#: A dotted module path, e.g. ``cluegym.envs.decrypto.env``.
MODULE_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
#: A ``module:attr`` reference, e.g. ``cluegym.wrappers.decrypto:seat_task``.
ATTR_REFERENCE = re.compile(rf"{MODULE_PATH.pattern}:[A-Za-z_]\w*")
_VERSION_SUFFIX = re.compile(r"_v\d+$")


@dataclass(frozen=True, kw_only=True)
class GameSpec:
    """Everything cluegym needs to know about one game, in one place.

    Only ``name`` and ``env`` are required. Every other part is optional: without it the
    layer that needs it falls back to a generic version (the ``random`` agent and the
    generalist ``llm`` agent play any game from its spaces; a seat with a ``Discrete`` action
    gets a generic learner task) or says clearly that the game has none.

    Attributes:
        name: the game's name, e.g. ``"decrypto"``: lower case, digits and ``_``, no
            ``_v<N>`` suffix (that is :attr:`id`).
        env: the module of the AEC env, exposing ``env(**options)``, ``raw_env(**options)``,
            ``metrics(results)`` and ``DEFAULT_AGENTS`` (seat -> agent spec), optionally
            ``random_vocabulary()`` and ``parallel_env(**options)``. Its env class's
            ``game_id`` is :attr:`id`.
        version: the version in the id (``decrypto_v0``); bump it when rules change results.
            A bare name resolves to its highest registered version.
        baselines: module of the embedding baselines (``glove``, ``word2vec``, ``minilm``),
            exposing ``agent_class(seat) -> type[Agent]``, e.g.
            ``"cluegym.agents.embedding.decrypto"``.
        llm_adapter: module of the LLM adapter, exposing ``generalist_messages``,
            ``parse_action`` and ``specialist_class(seat)`` (``llm-cot``), e.g.
            ``"cluegym.agents.llm.adapters.decrypto"``; None: the generic adapter (the
            prompt verbatim, the answer read by the action space) and no ``llm-cot``.
        learner_task: ``"module:function"`` building a learner's ``SeatTask`` as
            ``function(seat, env, **options)``, e.g. ``"cluegym.wrappers.decrypto:seat_task"``;
            None: the generic task (numeric observation fields, Discrete actions only).
        potential: ``"module:function"`` of the reward-shaping potential
            ``function(raw_env, seat) -> float``; None: no shaping for this game.
        data: the package whose ``data/`` folder ships the game's word lists or decks (read
            with ``importlib.resources``, e.g. by the embedding loaders), e.g.
            ``"cluegym.envs.decrypto"``; None when the game ships none.
        learner_env: game options the learning views (``SelfPlayEnv``, ``MultiSeatEnv``,
            ``cluegym train``) default to where their caller names none: what the game's
            learner task needs to read, e.g. Dixit's ``{"reveal_captions": True}`` (its
            listener features compare the clue with the cards' captions). An option given
            explicitly wins. Empty by default.

    Raises:
        ValueError: a malformed name, version or module reference (one line, naming the field).

    Example:
        >>> GameSpec(name="decrypto", env="cluegym.envs.decrypto.env",
        ...          learner_task="cluegym.wrappers.decrypto:seat_task").id
        'decrypto_v0'
    """

    name: str
    env: str
    version: int = 0
    baselines: str | None = None
    llm_adapter: str | None = None
    learner_task: str | None = None
    potential: str | None = None
    data: str | None = None
    # Not hashed (a dict): a spec's hash is its names', as before this field.
    learner_env: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not GAME_NAME.fullmatch(self.name):
            raise ValueError(f"GameSpec name must be lower-case letters, digits and '_' starting with a letter, "
                             f"got {self.name!r}")
        if _VERSION_SUFFIX.search(self.name):
            raise ValueError(f"GameSpec name {self.name!r} ends in a version: give it as version=, "
                             f"e.g. name={_VERSION_SUFFIX.sub('', self.name)!r}")
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 0:
            raise ValueError(f"GameSpec version must be an integer >= 0, got {self.version!r}")
        for field_name, pattern, shape in (
            ("env", MODULE_PATH, "a module path"), ("baselines", MODULE_PATH, "a module path"),
            ("llm_adapter", MODULE_PATH, "a module path"), ("data", MODULE_PATH, "a package path"),
            ("learner_task", ATTR_REFERENCE, "'module:function'"), ("potential", ATTR_REFERENCE, "'module:function'"),
        ):
            value = getattr(self, field_name)
            if value is None and field_name != "env":
                continue
            if not isinstance(value, str) or not pattern.fullmatch(value):
                raise ValueError(f"GameSpec {field_name} of {self.name!r} must be {shape}, got {value!r}")
        if not isinstance(self.learner_env, Mapping) or not all(
                isinstance(key, str) and key.isidentifier() for key in self.learner_env):
            raise ValueError(f"GameSpec learner_env of {self.name!r} must map game option names to values, "
                             f"got {self.learner_env!r}")
        object.__setattr__(self, "learner_env", dict(self.learner_env))  # the spec's own copy

    @property
    def id(self) -> str:
        """The versioned id, e.g. ``"decrypto_v0"`` (PettingZoo style: ``cluegym.envs.decrypto_v0``)."""
        return f"{self.name}_v{self.version}"


_specs: dict[str, GameSpec] = {}  # versioned id -> spec
_discovered = False
_discovering = False
_lock = threading.RLock()


def _discover() -> None:
    """Register the built-in games (the ``GAME`` of each sub-package of cluegym.envs), once.

    All or nothing: a game package that fails to import (or declares a bad ``GAME``) raises
    here, on every registry call, rather than leaving a registry without that game.
    """
    global _discovered, _discovering
    with _lock:
        if _discovered or _discovering:  # done, or a game package calling the registry while imported
            return
        _discovering = True
        try:
            envs = importlib.import_module("cluegym.envs")
            found: list[GameSpec] = []
            for info in sorted(pkgutil.iter_modules(envs.__path__), key=lambda i: i.name):
                if not info.ispkg or info.name == "core":
                    continue
                spec = getattr(importlib.import_module(f"cluegym.envs.{info.name}"), "GAME", None)
                if spec is None:
                    continue  # a folder without a GAME is not a game (e.g. shared helpers)
                if not isinstance(spec, GameSpec):
                    raise TypeError(f"cluegym.envs.{info.name}.GAME must be a GameSpec, got {type(spec).__name__}")
                found.append(spec)
            duplicates = sorted({s.id for s in found if [t.id for t in found].count(s.id) > 1})
            if duplicates:
                raise ValueError(f"two game folders declare the same id: {', '.join(duplicates)}")
            for spec in found:
                _specs.setdefault(spec.id, spec)  # a game registered while discovering keeps its spec
            _discovered = True
        finally:
            _discovering = False


def _add(spec: GameSpec, *, replace: bool) -> None:
    existing = _specs.get(spec.id)
    if existing is not None and not replace:
        raise ValueError(f"game {spec.id!r} is already registered (env {existing.env}); "
                         "pass replace=True to replace it, or register another version")
    _specs[spec.id] = spec


def register_game(spec: GameSpec, *, replace: bool = False) -> GameSpec:
    """Register a game defined outside ``cluegym.envs`` (a plug-in, a test).

    Args:
        spec: the game's declaration.
        replace: replace a game registered under the same id instead of failing.

    Returns:
        ``spec``, registered.

    Raises:
        TypeError: ``spec`` is not a :class:`GameSpec`.
        ValueError: a game with the same id is already registered and ``replace`` is False.

    Example:
        >>> register_game(GameSpec(name="fifthgame", env="fifth_game.env"))  # doctest: +SKIP
    """
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register_game takes a GameSpec, got {type(spec).__name__}")
    _discover()
    with _lock:
        _add(spec, replace=replace)
    return spec


def unregister_game(name_or_id: str) -> list[GameSpec]:
    """Remove a game: a versioned id removes that version, a bare name every version.

    Returns:
        The specs removed.

    Raises:
        ValueError: no such game is registered.
    """
    _discover()
    with _lock:
        ids = [name_or_id] if name_or_id in _specs else [i for i, s in _specs.items() if s.name == name_or_id]
        if not ids:
            raise _unknown(name_or_id)
        envs_package = sys.modules.get("cluegym.envs")
        for game_id in ids:  # its versioned-id module goes too (see cluegym.envs) ...
            sys.modules.pop(f"cluegym.envs.{game_id}", None)
            if envs_package is not None:  # ... and the package attribute the import set, or
                # ``from cluegym.envs import <id>`` would find the old module after a re-register
                envs_package.__dict__.pop(game_id, None)
        return [_specs.pop(i) for i in ids]


def _unknown(name: str) -> ValueError:
    return ValueError(f"unknown game {name!r}; registered games: {', '.join(registered_games())}")


def game_spec(name_or_id: str) -> GameSpec:
    """The spec of a registered game, by name (its highest version) or versioned id.

    Raises:
        ValueError: an unknown game (the message lists the registered ones).
    """
    _discover()
    with _lock:
        if isinstance(name_or_id, str) and name_or_id in _specs:
            return _specs[name_or_id]
        versions = [s for s in _specs.values() if s.name == name_or_id]
    if not versions:
        raise _unknown(str(name_or_id))
    return max(versions, key=lambda s: s.version)


def registered_specs() -> list[GameSpec]:
    """Every registered spec, all versions, sorted by id."""
    _discover()
    with _lock:
        return [_specs[i] for i in sorted(_specs)]


def registered_games() -> list[str]:
    """The names of the registered games, sorted (each once, whatever its versions)."""
    return sorted({spec.name for spec in registered_specs()})


def game_ids() -> list[str]:
    """The versioned ids of the registered games, sorted (``["decrypto_v0", ...]``)."""
    return [spec.id for spec in registered_specs()]


def load_reference(reference: str) -> Any:
    """Import what a spec field names: ``"module"`` gives the module, ``"module:attr"`` the
    attribute. The layer that owns the field turns a failure into its own clear error.

    Raises:
        ModuleNotFoundError: the module is not installed.
        AttributeError: the module has no such attribute.
    """
    module_name, _, attr = reference.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr) if attr else module


def env_module(name_or_id: str) -> ModuleType:
    """The module ``cluegym.envs.<game>_v<N>`` of a registered game (by name or versioned id):
    its env module's names, plus ``parallel_env`` (see :mod:`cluegym.envs`).

    Raises:
        ValueError: an unknown game.
    """
    return importlib.import_module(f"cluegym.envs.{game_spec(name_or_id).id}")


def env_class(name_or_id: str) -> type:
    """The env class of a registered game: the class in its env module whose ``game_id`` is
    the game's id (e.g. ``DecryptoEnv`` for ``"decrypto"``).

    Raises:
        ValueError: an unknown game.
        LookupError: the env module defines no class with that ``game_id``.
    """
    spec = game_spec(name_or_id)
    module = importlib.import_module(spec.env)
    for value in vars(module).values():
        if isinstance(value, type) and getattr(value, "game_id", None) == spec.id:
            return value
    raise LookupError(f"module {module.__name__} defines no class with game_id {spec.id!r}")


def make(name_or_id: str, **options: Any) -> Any:
    """Create a registered game as a wrapped PettingZoo AEC env.

    Options are checked against the game's declared options before the env is built: text
    converts to the declared type (``max_turns="8"`` -> 8), and an unknown or mistyped option
    is a one-line ``ValueError`` that lists the accepted ones.

    Args:
        name_or_id: game name (``"decrypto"``) or versioned id (``"decrypto_v0"``).
        **options: the game's options (``cluegym list GAME`` shows them).

    Returns:
        The AEC env, as ``<game>_v0.env(**options)`` builds it.

    Raises:
        ValueError: an unknown game, an unknown option, a value of the wrong type
            (:class:`~cluegym.envs.core.options.OptionError`), or one the game rejects.
    """
    return env_module(name_or_id).env(**options)
