"""A uniformly random legal player for every seat of every game."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from cluegym.agents.base import Agent
from cluegym.envs.core.registry import env_module
from cluegym.envs.core.rng import integers


class RandomAgent(Agent):
    """Samples a legal action: masked discrete choices, random words for text actions.

    Text actions are filled with words from the game module's ``random_vocabulary()`` when it
    defines one (e.g. Decrypto's hint nouns), else from a small built-in list, so that a random
    player produces well-formed (though meaningless) clues instead of line noise. ``Dict``
    entries the game module names in ``RANDOM_AGENT_EMPTY_ENTRIES`` (optional reports, such as
    Undercover's ``beliefs`` JSON, that a random word would only make unreadable) are left
    empty; their word is still drawn, so the generator's stream (and every seeded game with
    random players) is the same as when they were filled.

    Example:
        >>> import cluegym
        >>> env = cluegym.make("decrypto"); env.reset(seed=0)
        >>> obs, _, _, _, info = env.last()
        >>> hints = RandomAgent("decrypto", "alice", env.action_space("alice"), seed=0).act(obs, info)
        >>> hints  # random hint nouns
        ('spotlight', 'page', 'lantern')
        >>> env.step(hints); env.step(0)  # bob guesses code 0; eve intercepts next
        >>> agent = RandomAgent("decrypto", "eve", env.action_space("eve"), seed=0)
        >>> obs, _, _, _, info = env.last()
        >>> agent.act(obs, info)  # a legal index under info["action_mask"]
        20
    """

    _FALLBACK_WORDS = (
        "river", "stone", "light", "garden", "music", "paper", "winter", "bridge",
        "cloud", "engine", "forest", "silver", "window", "animal", "ocean", "market",
    )

    #: Decides from ``info["action_mask"]`` when given no observation (the same draws as
    #: from ``observation["action_mask"]``), so the learning views build it none.
    reads_observation = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A subclass with its own act() may read the observation: it gets one unless it
        # says otherwise.
        super().__init_subclass__(**kwargs)
        if "act" in cls.__dict__ and "reads_observation" not in cls.__dict__:
            cls.reads_observation = True

    def act(self, observation: dict[str, Any] | None, info: dict[str, Any]) -> Any:
        mask = None
        if isinstance(observation, dict) and "action_mask" in observation:
            mask = observation["action_mask"]
        elif "action_mask" in info:
            mask = info["action_mask"]
        # The space itself, not the seeded property: sampling uses self.rng, and seeding a
        # Dict space at every game costs more than the game's moves (see Agent.action_space).
        space = self._action_space
        sampler = self.__dict__.get("_sampler")
        if sampler is None or sampler.space is not space:
            sampler = self._sampler = _sampler(space, self._empty_entries())
        return sampler(mask, self.rng, self._words(), self)

    def _words(self) -> tuple[str, ...]:
        if not hasattr(self, "_vocabulary"):
            provider = getattr(env_module(self.game), "random_vocabulary", None)
            self._vocabulary = tuple(provider()) if provider else self._FALLBACK_WORDS
        return self._vocabulary

    def _empty_entries(self) -> frozenset[str]:
        """The game module's ``RANDOM_AGENT_EMPTY_ENTRIES`` (none when it names none)."""
        return frozenset(getattr(env_module(self.game), "RANDOM_AGENT_EMPTY_ENTRIES", ()))


# The sampler of an action space, built once per space (a Dict space's entries are not
# dispatched on at every move). Each draws exactly what the per-move dispatch it replaces drew.
def _sampler(space: gymnasium.Space, empty_entries: frozenset[str] = frozenset()) -> "_Sampler":
    """The sampler of ``space``; a ``Dict``'s Text entries named in ``empty_entries`` give ""."""
    if isinstance(space, gymnasium.spaces.Discrete):
        return _DiscreteSampler(space)
    if isinstance(space, gymnasium.spaces.Text):
        return _TextSampler(space)
    if isinstance(space, gymnasium.spaces.Tuple):
        return _TupleSampler(space)
    if isinstance(space, gymnasium.spaces.Dict):
        return _DictSampler(space, empty_entries)
    return _Sampler(space)


class _Sampler:
    """Any other space: its own ``sample()``, seeded from the agent's last reset."""

    def __init__(self, space: gymnasium.Space) -> None:
        self.space = space

    def __call__(self, mask: Any, rng: np.random.Generator, words: tuple[str, ...], agent: RandomAgent) -> Any:
        agent.action_space  # noqa: B018 - seeds the space (and its parts) from the last reset
        return self.space.sample()


class _DiscreteSampler(_Sampler):
    """A uniformly random legal choice (any choice when the mask allows none)."""

    def __init__(self, space: gymnasium.spaces.Discrete) -> None:
        super().__init__(space)
        self.n, self.start = space.n, space.start

    def __call__(self, mask: Any, rng: np.random.Generator, words: tuple[str, ...], agent: RandomAgent) -> Any:
        if mask is None:
            legal = np.arange(self.n)
        elif type(mask) is np.ndarray and mask.ndim == 1:
            legal = mask.nonzero()[0]
        else:
            legal = np.asarray(mask).ravel().nonzero()[0]
        if legal.size == 0:
            legal = np.arange(self.n)
        # The same draw as rng.choice(legal), at a quarter of its cost.
        return int(self.start + legal[integers(rng, len(legal))])


class _TextSampler(_Sampler):
    """A random word of the game's vocabulary, clipped to the space's length."""

    def __call__(self, mask: Any, rng: np.random.Generator, words: tuple[str, ...], agent: RandomAgent) -> Any:
        return str(words[integers(rng, len(words))])[: self.space.max_length]


class _EmptyTextSampler(_TextSampler):
    """An optional Text entry left empty, after drawing the word it would have had (so the
    draws that follow are the ones a filled entry left)."""

    def __call__(self, mask: Any, rng: np.random.Generator, words: tuple[str, ...], agent: RandomAgent) -> Any:
        super().__call__(mask, rng, words, agent)
        return ""


class _TupleSampler(_Sampler):
    def __init__(self, space: gymnasium.spaces.Tuple) -> None:
        super().__init__(space)
        self.parts = [_sampler(part) for part in space.spaces]

    def __call__(self, mask: Any, rng: np.random.Generator, words: tuple[str, ...], agent: RandomAgent) -> Any:
        masks = mask if isinstance(mask, (tuple, list)) else [None] * len(self.parts)
        return tuple(part(m, rng, words, agent) for part, m in zip(self.parts, masks))


class _DictSampler(_Sampler):
    def __init__(self, space: gymnasium.spaces.Dict, empty_entries: frozenset[str] = frozenset()) -> None:
        super().__init__(space)
        self.entries = [
            (key, _EmptyTextSampler(entry) if key in empty_entries and isinstance(entry, gymnasium.spaces.Text)
             else _sampler(entry))
            for key, entry in space.spaces.items()
        ]

    def __call__(self, mask: Any, rng: np.random.Generator, words: tuple[str, ...], agent: RandomAgent) -> Any:
        masks = mask if isinstance(mask, dict) else {}
        return {key: entry(masks.get(key), rng, words, agent) for key, entry in self.entries}
