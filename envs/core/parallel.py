"""The PettingZoo ``ParallelEnv`` view of any cluegym game (``<game>_v0.parallel_env()``).

Every seat of the game is in ``agents`` until the game ends (PettingZoo's parallel API lets
agents leave only when they are done). Each step, the seats of the rules' current
simultaneous block act together (:meth:`~cluegym.envs.core.rules.GameRules.simultaneous`:
Decrypto's Bob and Eve guessing, Undercover's votes, Dixit's distractors and votes); in a
sequential phase the block is one seat. ``infos[seat]["acting"]`` says which seats' actions
count; the others' are ignored (they may be omitted; a name that is no seat of the game is
an ``UnknownSeatError``), and their ``obs["action_mask"]`` is all zeros.

Underneath, the block's actions are stepped through the game's AEC env in the order the AEC
env asks them, so the parallel env and the AEC env play the same game from the same seed and
actions, and :meth:`ParallelClueEnv.game_record` is the same record. A rejected action stops
the block there: its seat (and the block members after it, whose actions were not used) act
again in the next step, exactly as the AEC env would ask them, with the reason in
``infos[seat]["error"]``.

Example:
    >>> from cluegym.envs import undercover_v0
    >>> def policy(observation, info):  # a scripted seat: one description, the first legal vote
    ...     vote = int(info["action_mask"]["vote"].argmax())
    ...     return {"description": "it is round", "beliefs": "", "vote": vote}
    >>> env = undercover_v0.parallel_env()
    >>> observations, infos = env.reset(seed=0)
    >>> while env.agents:
    ...     actions = {seat: policy(observations[seat], infos[seat]) for seat in env.agents if infos[seat]["acting"]}
    ...     observations, rewards, terminations, truncations, infos = env.step(actions)
    >>> env.state().winner, rewards
    ('civilians', {'player_0': 1.0, 'player_1': -1.0, 'player_2': -1.0, 'player_3': 1.0, 'player_4': 1.0})
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
from pettingzoo import ParallelEnv

from cluegym.envs.core.base import ClueGameEnv
from cluegym.envs.core.seats import check_block_actions

__all__ = ["ParallelClueEnv", "parallel_env_factory"]


class ParallelClueEnv(ParallelEnv):
    """A cluegym game as a PettingZoo ``ParallelEnv`` (see the module docstring).

    Args:
        aec_env: the game's raw AEC env (``raw_env(**options)``), which keeps the state,
            the checks and the record.
    """

    def __init__(self, aec_env: ClueGameEnv) -> None:
        if not isinstance(aec_env, ClueGameEnv):
            raise TypeError(f"ParallelClueEnv needs a raw cluegym env (raw_env()), got {type(aec_env).__name__}")
        self.aec_env = aec_env
        self.metadata = {**aec_env.metadata, "is_parallelizable": True}
        self.possible_agents = list(aec_env.possible_agents)
        self.observation_spaces = aec_env.observation_spaces
        self.action_spaces = aec_env.action_spaces
        self.render_mode = aec_env.render_mode
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> gymnasium.Space:
        return self.aec_env.observation_space(agent)

    def action_space(self, agent: str) -> gymnasium.Space:
        return self.aec_env.action_space(agent)

    def acting(self) -> tuple[str, ...]:
        """The seats whose actions the next :meth:`step` uses (empty once the game is over)."""
        state = self.aec_env.state
        return () if state is None else tuple(self.aec_env.rules.simultaneous(state))

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start a game (Gymnasium seeding, as the AEC env); observations and infos per seat."""
        self.aec_env.reset(seed=seed, options=options)
        self.agents = list(self.aec_env.agents)
        return self._observations(), self._infos(self.acting())

    def step(self, actions: dict[str, Any]) -> tuple[
        dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
    ]:
        """Apply the acting seats' actions (see the module docstring).

        Raises:
            KeyError: an acting seat has no action (nothing is applied).
            UnknownSeatError: an action for a name that is no seat of the game (a typo would
                otherwise go unnoticed, as the actions of seats not acting are ignored;
                nothing is applied). A ``ValueError`` and a ``KeyError``.
            RuntimeError: a step after the game ended (``agents`` is empty).
        """
        if not self.agents:
            raise RuntimeError("the game is over: call reset() to start a new one")
        block = self.acting()
        check_block_actions(actions, block, self.action_spaces, self.aec_env._unknown_seat)
        env = self.aec_env
        rewards = {seat: 0.0 for seat in self.agents}
        for seat in block:
            if env.game_over or env.agent_selection != seat:
                break  # defensive: the block is always what the AEC env asks next
            env.step(actions[seat])
            for agent, reward in env.rewards.items():
                rewards[agent] += float(reward)
            if "retries_left" in env.infos[seat]:
                break  # rejected: this seat and the rest of the block act again next step
        over = env.game_over
        observations = self._observations()
        terminations = {seat: over for seat in self.agents}
        truncations = {seat: False for seat in self.agents}
        infos = self._infos(self.acting())
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, Any]:
        return {seat: self.aec_env.observe(seat) for seat in self.agents}

    def _infos(self, block: tuple[str, ...]) -> dict[str, dict[str, Any]]:
        return {seat: {**self.aec_env.infos.get(seat, {}), "acting": seat in block} for seat in self.agents}

    def game_record(self) -> dict[str, Any]:
        """The game record, identical to the AEC env's for the same seed and actions."""
        return self.aec_env.game_record()

    def game_result(self) -> dict[str, Any] | None:
        """The finished game's result, the record's ``"result"`` (see :meth:`ClueGameEnv.game_result`)."""
        return self.aec_env.game_result()

    def forfeit(self, reason: str) -> None:
        """The first acting seat gives up its decision (see :meth:`ClueGameEnv.forfeit`)."""
        self.aec_env.forfeit(reason)

    def render(self) -> Any:
        return self.aec_env.render()

    def close(self) -> None:
        self.aec_env.close()

    def state(self) -> Any:
        """The rules' State of the current game (the whole hidden state; for tests and tools)."""
        return self.aec_env.state


def parallel_env_factory(raw_env: Callable[..., ClueGameEnv]) -> Callable[..., ParallelClueEnv]:
    """``parallel_env(**options)`` for a game whose module defines ``raw_env(**options)``.

    Example:
        >>> from cluegym.envs.taboo.env import raw_env
        >>> parallel_env = parallel_env_factory(raw_env)
        >>> env = parallel_env(max_turns=4)
        >>> observations, infos = env.reset(seed=0)
        >>> env.agents, env.aec_env.game_config.max_turns
        (['attacker', 'defender'], 4)
    """

    def parallel_env(**options: Any) -> ParallelClueEnv:
        """The game as a PettingZoo ``ParallelEnv`` (see :mod:`cluegym.envs.core.parallel`)."""
        return ParallelClueEnv(raw_env(**options))

    return parallel_env
