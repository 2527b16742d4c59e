"""A uniformly random legal player for every seat of every game."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from cluegym.agents.base import Agent
from cluegym.envs.core.registry import env_module


class RandomAgent(Agent):
    """Samples a legal action: masked discrete choices, random words for text actions.

    Text actions are filled with words from the game module's ``random_vocabulary()`` when it
    defines one (e.g. Decrypto's hint nouns), else from a small built-in list, so that a random
    player produces well-formed (though meaningless) clues instead of line noise.

    Example:
        >>> agent = RandomAgent("decrypto", "eve", env.action_space("eve"), seed=0)
        >>> agent.act(obs, info)
    """

    _FALLBACK_WORDS = (
        "river", "stone", "light", "garden", "music", "paper", "winter", "bridge",
        "cloud", "engine", "forest", "silver", "window", "animal", "ocean", "market",
    )

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        mask = None
        if isinstance(observation, dict) and "action_mask" in observation:
            mask = observation["action_mask"]
        elif "action_mask" in info:
            mask = info["action_mask"]
        # The space itself, not the seeded property: sampling uses self.rng, and seeding a
        # Dict space at every game costs more than the game's moves (see Agent.action_space).
        return self._sample(self._action_space, mask, self._words())

    def _words(self) -> tuple[str, ...]:
        if not hasattr(self, "_vocabulary"):
            provider = getattr(env_module(self.game), "random_vocabulary", None)
            self._vocabulary = tuple(provider()) if provider else self._FALLBACK_WORDS
        return self._vocabulary

    def _sample(self, space: gymnasium.Space, mask: Any, words: Any) -> Any:
        if isinstance(space, gymnasium.spaces.Discrete):
            legal = np.arange(space.n) if mask is None else np.asarray(mask).ravel().nonzero()[0]
            if legal.size == 0:
                legal = np.arange(space.n)
            # The same draw as rng.choice(legal), at a quarter of its cost.
            return int(space.start + legal[self.rng.integers(len(legal))])
        if isinstance(space, gymnasium.spaces.Text):
            return str(words[int(self.rng.integers(len(words)))])[: space.max_length]
        if isinstance(space, gymnasium.spaces.Tuple):
            masks = mask if isinstance(mask, (tuple, list)) else [None] * len(space.spaces)
            return tuple(self._sample(s, m, words) for s, m in zip(space.spaces, masks))
        if isinstance(space, gymnasium.spaces.Dict):
            masks = mask if isinstance(mask, dict) else {}
            return {k: self._sample(s, masks.get(k), words) for k, s in space.spaces.items()}
        self.action_space  # noqa: B018 - seeds the space (and its parts) from the last reset
        return space.sample()
