"""The one PettingZoo AEC adapter that every cluegym game builds on.

:class:`ClueGameEnv` holds the boilerplate once: agent selection, rewards and their
accumulation, terminations and dead steps, seeding (one ``np.random.Generator`` per game),
validation of every action with retries and clear reasons in ``infos[agent]["error"]``, a
documented fallback after ``max_retries`` rejections, and a JSON game record that replays.

A game subclasses it and fills in a few hooks (Pgx style)::

    class MyGameEnv(ClueGameEnv):
        game_id = "mygame_v0"
        def _new_game(self, rng, options): ...        # build the rules state
        def _to_move(self): ...                      # seat to act, None when over
        def _observe(self, agent): ...               # observation dict with "prompt"
        def _check_action(self, agent, action): ...  # -> (normalized action, error or None)
        def _fallback_action(self, agent): ...       # -> (action, description)
        def _apply_action(self, agent, action): ...  # -> events (JSON) of this move
        def _final_rewards(self): ...                # -> reward per seat at game end
        def _result(self): ...                       # -> JSON outcome for metrics

Example:
    >>> env = cluegym.make("decrypto")
    >>> env.reset(seed=0)
    >>> for agent in env.agent_iter():
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     action = None if terminated or truncated else policy(obs, info)
    ...     env.step(action)
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cluegym.envs.core.record import digest, to_jsonable


class ClueGameEnv(AECEnv):
    """Base AEC environment for turn-based clue games (see module docstring for the hooks).

    Args:
        max_retries: how many times a seat may resubmit after an invalid action before the
            game's fallback action is applied (and recorded) in its place.
        render_mode: ``"human"`` prints the table, ``"ansi"`` returns it as a string.
        record_observations: store an observation digest per step in the game record, so
            :func:`cluegym.envs.core.record.replay` can verify a replay.

    Attributes:
        config: the game's JSON-serialisable options (recorded with every game).
        rng: the game's generator, created by :meth:`reset` from its seed.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "is_parallelizable": False}
    #: Registered versioned id, e.g. ``"decrypto_v0"``.
    game_id: str = ""

    def __init__(
        self,
        *,
        max_retries: int = 3,
        render_mode: str | None = None,
        record_observations: bool = True,
        config: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(max_retries, (int, np.integer)) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} not supported; choose from {self.metadata['render_modes']}"
            )
        self.max_retries = int(max_retries)
        self.render_mode = render_mode
        self.record_observations = record_observations
        self.config: dict[str, Any] = {
            **(config or {}),
            "max_retries": self.max_retries,
            "record_observations": record_observations,
        }
        self.observation_spaces: dict[str, gymnasium.Space] = {}
        self.action_spaces: dict[str, gymnasium.Space] = {}
        self.rng = np.random.default_rng()
        self._seed: int | None = None
        self._options: dict[str, Any] | None = None
        self._steps: list[dict[str, Any]] = []
        self._retries: dict[str, int] = {}
        self._counters: dict[str, int] = {}

    # ------------------------------------------------------------------ hooks
    def _new_game(self, rng: np.random.Generator, options: dict[str, Any] | None) -> None:
        """Create the rules state for a new game, drawing all randomness from ``rng``."""
        raise NotImplementedError

    def _to_move(self) -> str | None:
        """The seat that acts next, or None when the game is over."""
        raise NotImplementedError

    def _observe(self, agent: str) -> dict[str, Any]:
        """The observation of ``agent`` (a dict matching its observation space)."""
        raise NotImplementedError

    def _action_mask(self, agent: str) -> Any:
        """The mask to publish in ``infos[agent]["action_mask"]``, or None for no info mask."""
        return None

    def _info(self, agent: str) -> dict[str, Any]:
        """Extra info for ``agent`` (e.g. the last turn's outcome as that seat may see it)."""
        return {}

    def _check_action(self, agent: str, action: Any) -> tuple[Any, str | None]:
        """Validate ``action``; return (normalized action, None) or (None, reason)."""
        raise NotImplementedError

    def _fallback_action(self, agent: str) -> tuple[Any, str]:
        """The action applied after too many rejections, and a description of it."""
        raise NotImplementedError

    def _apply_action(self, agent: str, action: Any) -> list[dict[str, Any]]:
        """Apply a valid action to the rules state; return this move's events (JSON)."""
        raise NotImplementedError

    def _step_rewards(self, events: list[dict[str, Any]]) -> dict[str, float]:
        """Rewards earned by this move (default: none until the end)."""
        return {}

    def _final_rewards(self) -> dict[str, float]:
        """Reward per seat when the game ends."""
        raise NotImplementedError

    def _result(self) -> dict[str, Any]:
        """JSON outcome of a finished game, consumed by the game's ``metrics()``."""
        raise NotImplementedError

    def _render_text(self) -> str:
        """A human-readable view of the table."""
        return ""

    def action_from_json(self, agent: str, action: Any) -> Any:
        """Rebuild an action from its JSON form in a record (lists back to tuples)."""
        space = self.action_spaces[agent]
        if isinstance(space, gymnasium.spaces.Tuple) and isinstance(action, list):
            return tuple(action)
        return action

    # ------------------------------------------------------------- PettingZoo API
    def observation_space(self, agent: str) -> gymnasium.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, Any]:
        return self._observe(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. The same ``seed`` (and actions) gives the same game."""
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (2**63))
        self._seed = int(seed)
        self._options = to_jsonable(options) if options else None
        self.rng = np.random.default_rng(self._seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._retries = {a: 0 for a in self.agents}
        self._counters = {"invalid_actions": 0, "fallbacks": 0}
        self._steps = []
        self._skip_agent_selection = None
        self._new_game(self.rng, options)
        self._refresh_infos()
        self.agent_selection = self._to_move()
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        obs_digest = digest(self._observe(agent)) if self.record_observations else None
        try:
            normalized, error = self._check_action(agent, action)
        except Exception as exc:  # noqa: BLE001 - a malformed action must never crash the env
            normalized, error = None, f"malformed action ({type(exc).__name__}: {exc})"
        entry: dict[str, Any] = {"agent": agent, "action": to_jsonable(action), "obs": obs_digest}
        fallback_note = None
        if error is not None:
            self._retries[agent] += 1
            self._counters["invalid_actions"] += 1
            entry["error"] = error
            if self._retries[agent] <= self.max_retries:
                self._steps.append(entry)
                self._refresh_infos()
                self.infos[agent].update(
                    error=error,
                    rejected_action=to_jsonable(action),
                    retries_left=self.max_retries - self._retries[agent] + 1,
                )
                self._accumulate_rewards()
                return
            normalized, fallback_note = self._fallback_action(agent)
            self._counters["fallbacks"] += 1
            entry["fallback"] = {"action": to_jsonable(normalized), "reason": fallback_note}
        self._retries[agent] = 0
        events = self._apply_action(agent, normalized)
        entry["events"] = to_jsonable(events)
        self._steps.append(entry)
        for seat, reward in self._step_rewards(events).items():
            self.rewards[seat] += float(reward)
        next_agent = self._to_move()
        self._refresh_infos()
        if fallback_note is not None:
            self.infos[agent].update(error=error, fallback=fallback_note)
        if next_agent is None:
            for seat, reward in self._final_rewards().items():
                self.rewards[seat] += float(reward)
            for seat in self.agents:
                self.terminations[seat] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = next_agent
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _refresh_infos(self) -> None:
        self.infos = {}
        for seat in self.agents:
            info = dict(self._info(seat))
            mask = self._action_mask(seat)
            if mask is not None:
                info["action_mask"] = mask
            self.infos[seat] = info

    def render(self) -> str | None:
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ records
    @property
    def game_over(self) -> bool:
        """Whether the current game has ended."""
        return self._to_move() is None

    def game_record(self) -> dict[str, Any]:
        """The JSON-serialisable record of the current game (see :mod:`.record`)."""
        record = {
            "game": self.game_id,
            "config": to_jsonable(self.config),
            "seed": self._seed,
            "options": self._options,
            "steps": list(self._steps),
            "counters": dict(self._counters),
        }
        if self.game_over:
            record["result"] = to_jsonable({**self._result(), **self._counters})
        return record


def wrap(env: AECEnv) -> AECEnv:
    """PettingZoo's standard checks: out-of-bounds and order enforcement.

    cluegym validates actions itself (invalid ones are rejected with a reason, not a crash),
    so no ``TerminateIllegalWrapper`` is applied.
    """
    return wrappers.OrderEnforcingWrapper(env)
