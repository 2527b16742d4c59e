"""The multi-agent learning view as a PettingZoo AEC env: only the learning seat to decide is
selected (see :mod:`cluegym.wrappers.multiseat` for the view as a whole)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import gymnasium
import numpy as np
from pettingzoo import AECEnv

import cluegym
from cluegym.agents import make_agent
from cluegym.envs.core.options import check_reset_options
from cluegym.envs.core.rng import check_seed, integers
from cluegym.envs.core.seats import UnknownSeatError, seat_entry, seat_get
from cluegym.harness.seats import check_agents_fit
from cluegym.harness.seeding import own_seed_of, with_own_seed
from cluegym.wrappers.seat_task import (choice_index, last_verdict, learner_defaults_named, learner_env_options,
                                        penalty)
from cluegym.wrappers.selfplay import SeatTask, make_task
from cluegym.wrappers.shaping import PotentialShaping

__all__ = ["MultiSeatEnv", "learning_seats"]


def learning_seats(game: str, learners: str | Sequence[str], env: Any) -> list[str]:
    """The learning seats named by ``learners``: a list of seats, a comma-separated
    string (``"bob,eve"``) or ``"all"``.

    Raises:
        ValueError: an unknown seat, or none named.
        TypeError: ``learners`` is neither a str nor a list of seats.
    """
    seats = list(env.possible_agents)
    if isinstance(learners, str):
        if learners == "all":
            return seats
        learners = [name.strip() for name in learners.split(",") if name.strip()]
    if not isinstance(learners, (list, tuple)) or not all(isinstance(seat, str) for seat in learners):
        raise TypeError(f"learners must be 'all', seats separated by commas or a list of seats, got {learners!r}")
    chosen = list(dict.fromkeys(learners))
    unknown = [seat for seat in chosen if seat not in seats]
    if unknown or not chosen:
        raise ValueError(f"{game} has no seat(s) {unknown or learners!r}; seats: {', '.join(seats)}")
    return chosen


class MultiSeatEnv(AECEnv):
    """Learning seats of a cluegym game as a PettingZoo AEC env (see the module docstring).

    Args:
        game: registered game name, e.g. ``"undercover"``.
        learners: the learning seats (a list, a comma-separated string, or ``"all"``).
        opponents: seat -> agent spec for the other seats; ``"*"`` for every seat not named;
            default: the game's ``DEFAULT_AGENTS`` (then ``"random"``).
        task_options: options of every learning seat's task (e.g. ``{"embedding": "glove"}``).
        env_kwargs: game options, over the game's learner defaults (``GameSpec.learner_env``:
            Dixit reveals captions).
        observation_key: the key of the feature vector (``"observation"``, or
            ``"observations"`` for RLlib's action-masking module).
        invalid_action_penalty: reward for a choice the game rejects (default 0).
        numeric_infos: infos hold numbers only: a finished game gives ``game_return`` but not
            the ``game_result`` record, a rejection sets ``rejected`` to True instead of the
            reason. Tianshou needs it: its replay buffer stores every info and rejects the
            None it pads a text entry with in the steps that lack it ("NaNs in buffer").
        shaping: potential-based reward shaping from the game's potential: a scale (0 or
            None: off; gamma 0.99) or a :class:`~cluegym.wrappers.shaping.PotentialShaping`.
    """

    metadata = {"name": "cluegym_multiseat", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: str,
        learners: str | Sequence[str] = "all",
        *,
        opponents: Mapping[str, str] | None = None,
        task_options: Mapping[str, Any] | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        observation_key: str = "observation",
        invalid_action_penalty: float = 0.0,
        render_mode: str | None = None,
        numeric_infos: bool = False,
        shaping: float | PotentialShaping | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(observation_key, str) or observation_key == "action_mask":
            raise ValueError(f"observation_key must be a name other than 'action_mask', got {observation_key!r}")
        module = cluegym.env_module(game)
        self.game = game
        kwargs = {"record_observations": False, **learner_env_options(game, env_kwargs)}  # digests cost time
        with learner_defaults_named(game, env_kwargs):
            self.game_env = module.raw_env(**kwargs)
        self.possible_agents = learning_seats(game, learners, self.game_env)
        self.tasks: dict[str, SeatTask] = {}
        refused: ValueError | None = None  # the first seat's refusal, under learners="all"
        for seat in self.possible_agents:
            try:
                self.tasks[seat] = make_task(game, seat, self.game_env, **dict(task_options or {}))
            except ValueError as exc:
                if learners != "all":
                    raise
                refused = refused or exc
        if refused is not None:
            if not self.tasks:  # no seat builds: the options, not the seats (the error as it is)
                raise refused
            # The default learns every seat: a game whose seats do not all have a task (Taboo's
            # attacker) failed with the task's own words, which did not say what to name.
            # Worded for both callers: MultiSeatEnv's learners=... and cluegym train's --seats.
            raise ValueError(f"{refused}; every seat learns by default ('all'): name the learning seats, of those "
                             f"that can learn: {', '.join(self.tasks)}") from refused
        self.feature_size = max(int(np.prod(t.featurizer.observation_space.shape)) for t in self.tasks.values())
        self.n_actions = max(t.n_actions for t in self.tasks.values())
        self.observation_key = observation_key
        observation_space = gymnasium.spaces.Dict({
            observation_key: gymnasium.spaces.Box(-np.inf, np.inf, (self.feature_size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.n_actions,), np.int8),
        })
        action_space = gymnasium.spaces.Discrete(self.n_actions)
        self.observation_spaces = {seat: observation_space for seat in self.possible_agents}
        self.action_spaces = {seat: action_space for seat in self.possible_agents}
        self.invalid_action_penalty = penalty(invalid_action_penalty)
        self.numeric_infos = bool(numeric_infos)
        if isinstance(shaping, bool) or not (shaping is None or isinstance(shaping, (int, float, PotentialShaping))):
            raise TypeError(f"shaping must be a scale or a PotentialShaping, got {shaping!r}")
        self.shaping: PotentialShaping | None = (
            shaping if isinstance(shaping, PotentialShaping) or not shaping
            else PotentialShaping.for_game(game, scale=float(shaping))) or None
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not supported; choose from {self.metadata['render_modes']}")
        self.render_mode = render_mode
        defaults: dict[str, str] = dict(getattr(module, "DEFAULT_AGENTS", {}))
        named = dict(opponents or {})
        wildcard = named.pop("*", None)
        wrong = sorted(set(named) - set(self.game_env.possible_agents)) + sorted(set(named) & set(self.possible_agents))
        if wrong:
            raise ValueError(f"opponents name seat(s) {', '.join(wrong)}: not a non-learning seat of {game}")
        # An entry given (even "") is the user's, and make_agent refuses a bad one: "or" made
        # an empty one the game's default player without a word.
        self.opponent_specs = {
            seat: named[seat] if seat in named else wildcard if wildcard is not None
            else defaults.get(seat) or defaults.get("*") or "random"
            for seat in self.game_env.possible_agents if seat not in self.possible_agents
        }
        self._players = {
            seat: make_agent(spec, game=game, seat=seat, action_space=self.game_env.action_space(seat))
            for seat, spec in self.opponent_specs.items()
        }
        self._delegates = {
            seat: make_agent(task.delegate, game=game, seat=seat, action_space=self.game_env.action_space(seat))
            for seat, task in self.tasks.items() if task.delegate is not None
        }
        # Per learning seat, how its observation is built (lean where the task allows it).
        self._observers = {seat: task.observer(self.game_env, self._delegates.get(seat))
                           for seat, task in self.tasks.items()}
        check_agents_fit(self.game_env, {**self._players, **self._delegates})
        # Each agent with its spec's own seed (mixed into the seed drawn for it every game, as a
        # match mixes it), read once: specs do not change.
        self._own_seeds = [(agent, own_seed_of(agent))
                           for agent in [*self._players.values(), *self._delegates.values()]]
        self._rng: np.random.Generator | None = None
        self._pending: dict[str, tuple[dict[str, Any], dict[str, Any], list[Any] | None]] = {}
        # seat -> (the pending decision it was built for, its padded mask): see _action_mask.
        self._masks: dict[str, tuple[Any, np.ndarray]] = {}

    # ----------------------------------------------------------------- game driving
    def observation_space(self, agent: str) -> gymnasium.Space:
        return seat_entry(self.observation_spaces, agent, self._unknown_seat)

    def action_space(self, agent: str) -> gymnasium.Space:
        return seat_entry(self.action_spaces, agent, self._unknown_seat)

    def _unknown_seat(self, agent: Any) -> UnknownSeatError:
        """The error for a name that is not one of the learning seats."""
        return UnknownSeatError.of(f"{self.game}'s multi-seat view", agent, self.possible_agents)

    def _check_reset(self, seed: Any, options: Any) -> None:
        """``reset``'s checks, before anything of the last game changes (the view reads no
        options: a non-empty dict is taken, as PettingZoo's API has it, and warned of)."""
        check_seed(seed)
        if options is not None:
            check_reset_options(options, (), "the multi-seat view")

    def _start_game(self, seed: int | None, options: Any = None) -> None:
        self._check_reset(seed, options)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.game_env.reset(seed=integers(self._rng, 2**63 - 1))
        for agent, own_seed in self._own_seeds:
            agent.reset(with_own_seed(integers(self._rng, 2**63 - 1), own_seed))
        self._pending = {}
        self.game_rewards = {seat: 0.0 for seat in self.possible_agents}
        self.shaping_rewards = {seat: 0.0 for seat in self.possible_agents}
        # A seat's potential at its last decision (None before its first: no transition yet).
        self._phi: dict[str, float | None] = {seat: None for seat in self.possible_agents}

    def _shape(self, seat: str, rewards: dict[str, float], terminal: bool) -> None:
        """Close ``seat``'s transition at a decision (or at the game's end) with the shaping
        term; the first decision of a game only records the potential."""
        if self.shaping is None:
            return
        phi = self.shaping.phi(self.game_env, seat, terminal)
        before = self._phi[seat]
        if before is not None:
            term = self.shaping.term(before, phi)
            rewards[seat] = rewards.get(seat, 0.0) + term
            self.shaping_rewards[seat] += term
        self._phi[seat] = None if terminal else phi

    def _collect(self, rewards: dict[str, float]) -> None:
        # The game's non-zero rewards only: most steps give none, and a learning seat's zero
        # is in self.rewards already (reset and _zero_rewards write 0.0).
        step_rewards = self.game_env.rewards
        if not any(step_rewards.values()):  # one C-level pass: most steps reward nobody
            return
        game_rewards = self.game_rewards
        for seat, reward in step_rewards.items():
            if reward and seat in game_rewards:
                reward = float(reward)
                rewards[seat] = rewards.get(seat, 0.0) + reward
                game_rewards[seat] += reward

    def _zero_rewards(self) -> None:
        """PettingZoo's ``_clear_rewards`` in floats: a learner's step gives every seat a
        float reward, its zeros included (a dead step keeps PettingZoo's own)."""
        rewards = self.rewards
        for seat in rewards:
            rewards[seat] = 0.0

    def _decision(self, seat: str) -> tuple[dict[str, Any], dict[str, Any], list[Any] | None] | None:
        """The learner's pending decision at ``seat`` (None: the task gives it to the delegate).

        The seat's observation is built only for whoever reads it (:meth:`SeatTask.route`)."""
        env, task = self.game_env, self.tasks[seat]
        info = env.infos.get(seat, {})
        observe = self._observers[seat]
        if task.learns_every_decision:  # the common case, without route()'s closure
            observation = observe(seat)
        elif task.learner_acts_from_info:  # whose decision it is, from info alone
            if not task.learner_acts(None, info):
                return None  # the delegate's: _play_turn gives it an observation if it reads one
            observation = observe(seat)
        else:
            learner, observation = task.route(info, lambda: observe(seat), self._delegates.get(seat))
            if not learner:
                return None
        candidates = list(task.candidates(observation, info))[: task.n_actions] if task.candidates else None
        return observation, info, candidates

    def _play_turn(self, rewards: dict[str, float]) -> str | None:
        """Play the game's current decision if it is not a learner's: a dead step, another
        seat's agent, or a delegated decision of a learning seat.

        Returns:
            None when played, else the learning seat that has to decide (its decision pending).
        """
        env = self.game_env
        seat = env.agent_selection
        if env.terminations[seat] or env.truncations[seat]:
            env.step(None)  # a seat out of the game (e.g. eliminated)
            return None
        if seat in self._pending:
            return seat
        if seat in self.tasks:
            decision = self._decision(seat)
            if decision is not None:
                self._pending[seat] = decision
                return seat
            player = self._delegates[seat]
        else:
            player = self._players[seat]
        # An agent that decides from info alone gets no observation (none is built; the env
        # keeps one built for the task's check, so it is not built twice).
        action = player.act(env.observe(seat) if player.reads_observation else None, env.infos.get(seat, {}))
        env.step(action)
        self._collect(rewards)
        return None

    def _play_others(self, rewards: dict[str, float]) -> str | None:
        """Play until a learning seat decides; that seat, or None when the game is over."""
        while not self.game_env.game_over:
            seat = self._play_turn(rewards)
            if seat is not None:
                return seat
        return None

    def _apply_learner(self, seat: str, action: Any, rewards: dict[str, float]) -> str | None:
        """Apply a learning seat's choice; return the game's rejection reason, if any."""
        index = choice_index(action, self.n_actions, seat)
        observation, info, candidates = self._pending.pop(seat)
        task = self.tasks[seat]
        # None for a choice the seat's decision does not offer (a padded choice, say): the game
        # rejects it, and the reason is the view's (choice_error), not the game's.
        self.game_env.step(task.env_action(index, observation, info, candidates, self._delegates.get(seat)))
        self._collect(rewards)
        rejected, _ = last_verdict(self.game_env, seat)
        if rejected is not None:
            rejected = task.choice_error(index, candidates) or rejected
            rewards[seat] = rewards.get(seat, 0.0) + self.invalid_action_penalty
        return rejected

    def features(self, seat: str) -> dict[str, np.ndarray]:
        """The padded observation of a learning seat (zeros when it has no decision pending).

        Raises:
            UnknownSeatError: ``seat`` is not a learning seat.
        """
        if seat_get(self.observation_spaces, seat) is None:
            raise self._unknown_seat(seat)
        pending = self._pending.get(seat)
        if pending is None:
            vector = np.zeros(self.feature_size, dtype=np.float32)
        else:
            values = self.tasks[seat].features(*pending)
            if type(values) is not np.ndarray or values.dtype != np.float32 or values.ndim != 1:
                values = np.asarray(values, dtype=np.float32).reshape(-1)
            if values.size == self.feature_size:
                vector = values.copy()  # the caller may keep or change it: never a kept array
            else:
                vector = np.zeros(self.feature_size, dtype=np.float32)
                vector[: values.size] = values
        return {self.observation_key: vector, "action_mask": self._action_mask(seat)}

    def _action_mask(self, seat: str) -> np.ndarray:
        """The padded mask of a learning seat (no features computed: infos need only this).

        Each decision's mask is built once (the info and the observation both carry it) and
        handed out as a copy: the caller may keep or change it."""
        pending = self._pending.get(seat)
        cached = self._masks.get(seat)
        if cached is not None and cached[0] is pending:
            return cached[1].copy()
        if pending is None:
            mask = np.zeros(self.n_actions, dtype=np.int8)
        else:
            legal = self.tasks[seat].legal(*pending)  # never empty (SeatTask.legal)
            if legal.size == self.n_actions:  # the seat's choices are the padded space's
                mask = legal.astype(np.int8)
            else:
                mask = np.zeros(self.n_actions, dtype=np.int8)
                mask[: legal.size] = legal
        self._masks[seat] = (pending, mask)
        return mask.copy()

    def _end_infos(self) -> dict[str, Any]:
        shaped = {"shaping_return": dict(self.shaping_rewards)} if self.shaping is not None else {}
        if self.numeric_infos:
            return {"game_return": dict(self.game_rewards), **shaped}
        return {"game_result": self.game_env.game_result(), "game_return": dict(self.game_rewards), **shaped}

    # ----------------------------------------------------------------- AEC API
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.features(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game; the seed draws the game seed and the other seats' agent seeds
        (Gymnasium seeding: ``reset()`` without a seed continues the generator). The view
        reads no ``options``: a non-empty dict is warned of and ignored.

        Raises:
            TypeError: ``seed`` is neither None nor an integer, or ``options`` is no dict.
            ValueError: a negative ``seed``. Either is raised before anything changes.
        """
        self._start_game(seed, options)
        self.agents = list(self.possible_agents)
        self.rewards = {seat: 0.0 for seat in self.agents}
        self._cumulative_rewards = {seat: 0.0 for seat in self.agents}
        self.terminations = {seat: False for seat in self.agents}
        self.truncations = {seat: False for seat in self.agents}
        self.infos = {seat: {} for seat in self.agents}
        self._rewarded = False
        rewards: dict[str, float] = {}
        self._advance(rewards)

    def _advance(self, rewards: dict[str, float]) -> None:
        next_seat = self._play_others(rewards)
        if self.shaping is not None:
            for seat in self.agents if next_seat is None else [next_seat]:
                self._shape(seat, rewards, terminal=next_seat is None)
        for seat, reward in rewards.items():
            self.rewards[seat] = reward
        # Whether a seat's reward is not zero now: the next step clears them only then.
        self._rewarded = bool(rewards)
        if next_seat is None:
            end = self._end_infos()
            for seat in self.agents:
                self.terminations[seat] = True
                self.infos[seat] = dict(end)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = next_seat
            self.infos[next_seat] = {"action_mask": self._action_mask(next_seat)}
        if rewards:  # else every seat's reward is zero: nothing to add
            self._accumulate_rewards()

    def step(self, action: Any) -> None:
        try:  # free unless it raises: before reset there is no seat, after the game's dead steps no agent
            seat = self.agent_selection
            dead = self.terminations[seat] or self.truncations[seat]
        except (AttributeError, KeyError):
            raise RuntimeError("no game is in progress: call reset() to start one") from None
        if dead:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[seat] = 0.0
        if self._rewarded:
            self._zero_rewards()
        rewards: dict[str, float] = {}
        rejected = self._apply_learner(seat, action, rewards)
        self._advance(rewards)
        if rejected is not None and seat in self.infos:
            self.infos[seat]["rejected"] = True if self.numeric_infos else rejected

    def render(self) -> str | None:
        return self.game_env.render() if self.render_mode == "ansi" else None

    def close(self) -> None:
        self.game_env.close()
