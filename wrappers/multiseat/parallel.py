"""The multi-agent learning view as a PettingZoo ParallelEnv: the learning seats of a
simultaneous block decide together (see :mod:`cluegym.wrappers.multiseat`)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import gymnasium
import numpy as np
from pettingzoo import ParallelEnv

from cluegym.envs.core.seats import check_block_actions
from cluegym.wrappers.multiseat.aec import MultiSeatEnv
from cluegym.wrappers.seat_task import choice_index

__all__ = ["MultiSeatParallelEnv"]


class MultiSeatParallelEnv(ParallelEnv):
    """The ParallelEnv twin of :class:`MultiSeatEnv` (same arguments).

    Every learning seat stays in ``agents`` until the game ends (PettingZoo's parallel API);
    each step, the learning seats of the rules' current simultaneous block decide together
    (``infos[seat]["acting"]``); the others get a zero observation and an all-zero mask, and
    their actions are ignored (they may be omitted). An action for a name that is no learning
    seat raises ``UnknownSeatError`` (nothing is applied), as the spaces do.
    """

    metadata = {"name": "cluegym_multiseat_parallel", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(self, game: str, learners: str | Sequence[str] = "all", **kwargs: Any) -> None:
        self.aec = MultiSeatEnv(game, learners, **kwargs)
        self.possible_agents = list(self.aec.possible_agents)
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces
        self.render_mode = self.aec.render_mode
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> gymnasium.Space:
        return self.aec.observation_space(agent)  # UnknownSeatError for a name that is no learning seat

    def action_space(self, agent: str) -> gymnasium.Space:
        return self.aec.action_space(agent)

    def _acting(self, rewards: dict[str, float]) -> list[str]:
        """Play the other seats up to the next learning decision; the learning seats of that
        simultaneous block, each with its decision pending, in the order the game asks them."""
        aec = self.aec
        if aec._play_others(rewards) is None:
            return []
        game = aec.game_env
        block = [seat for seat in game.rules.simultaneous(game.state) if seat in aec.tasks]
        for seat in block:
            if seat not in aec._pending:
                decision = aec._decision(seat)
                if decision is not None:
                    aec._pending[seat] = decision
        acting = [seat for seat in block if seat in aec._pending]
        for seat in acting:
            aec._shape(seat, rewards, terminal=False)
        return acting

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a game (see :meth:`MultiSeatEnv.reset`)."""
        self.aec._start_game(seed, options)
        self.agents = list(self.possible_agents)
        # Rewards the game paid before the first decision (a Dixit storyteller's first round)
        # go out with the first step's, as the AEC view's cumulative rewards deliver them.
        self._carried: dict[str, float] = {}
        self._block = self._acting(self._carried)
        return self._observations(), self._infos({})

    def step(self, actions: dict[str, Any]):
        """The acting seats' choices, applied in the game's order; bots of the same block act
        in their turn. A rejected choice stops the block: that seat acts again next step.

        Raises:
            KeyError: an acting seat has no action (nothing is applied).
            UnknownSeatError: an action for a name that is no learning seat (nothing is
                applied; a typo would otherwise be ignored as a waiting seat's action is).
            TypeError: an acting seat's action is no integer (nothing is applied, the other
                seats' choices neither).
        """
        if not self.agents:
            raise RuntimeError("the game is over: call reset() to start a new one")
        check_block_actions(actions, self._block, self.action_spaces, self.aec._unknown_seat)
        # Every acting seat's choice is checked before the first is applied: a wrong type at
        # the block's second seat once raised after the first seat's choice was played.
        choices = {seat: choice_index(actions[seat], self.aec.n_actions, seat) for seat in self._block}
        rewards, self._carried = self._carried, {}
        rejected: dict[str, str] = {}
        aec, game = self.aec, self.aec.game_env
        for seat in self._block:
            # Bots and delegated decisions before this seat in the block act first, in the
            # order the game asks them (none of them sees a learner's choice of this block).
            while not game.game_over and game.agent_selection != seat:
                if aec._play_turn(rewards) is not None:
                    break  # another learning seat decides first (not expected within a block)
            if game.game_over or game.agent_selection != seat:
                break
            reason = aec._apply_learner(seat, choices[seat], rewards)
            if reason is not None:
                rejected[seat] = reason
                break
        self._block = self._acting(rewards) if not game.game_over else []
        over = game.game_over
        if over:
            for seat in self.agents:
                aec._shape(seat, rewards, terminal=True)
        observations = self._observations()
        full_rewards = {seat: float(rewards.get(seat, 0.0)) for seat in self.agents}
        terminations = {seat: over for seat in self.agents}
        truncations = {seat: False for seat in self.agents}
        infos = self._infos(rejected)
        if over:
            end = aec._end_infos()
            for seat in self.agents:
                infos[seat].update(end)
            self.agents = []
        return observations, full_rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {seat: self.aec.features(seat) if seat in self._block else self._idle() for seat in self.agents}

    def _idle(self) -> dict[str, np.ndarray]:
        return {self.aec.observation_key: np.zeros(self.aec.feature_size, dtype=np.float32),
                "action_mask": np.zeros(self.aec.n_actions, dtype=np.int8)}

    def _infos(self, rejected: Mapping[str, str]) -> dict[str, dict[str, Any]]:
        infos = {seat: {"acting": seat in self._block} for seat in self.agents}
        for seat, reason in rejected.items():
            infos[seat]["rejected"] = True if self.aec.numeric_infos else reason
        return infos

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
