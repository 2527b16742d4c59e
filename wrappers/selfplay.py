"""Self-play: one learning seat as a single-agent ``gymnasium.Env``, so SB3 runs unmodified.

:class:`SelfPlayEnv` plays a cluegym game in which one seat (the learner) is driven by
``step(action)`` and every other seat by an agent drawn, at each reset, from that seat's
:class:`PolicyPool`: fixed baselines and random players given as agent specs
(``"glove:k=16"``, ``"random"``), and frozen snapshots of the learner (``"ppo:path=..."``)
added while training. What the learner sees and chooses comes from a :class:`SeatTask`:

- a :class:`~cluegym.wrappers.featurizers.Featurizer` turns the seat's observation into a
  fixed ``float32`` ``Box`` (the env's ``observation_space``);
- the action is ``Discrete(n)``: the seat's own discrete choice (a Decrypto code, a vote, a
  card) or an index into per-step candidates (:mod:`cluegym.wrappers.candidates`) for Text
  actions; :meth:`SelfPlayEnv.action_masks` gives the legal choices (sb3-contrib's
  ``MaskablePPO`` reads it) and ``info["action_mask"]`` holds the same;
- decisions of the seat the learner does not make (e.g. Undercover speeches when training a
  voter) are played by a *delegate* agent.

Rewards are the seat's game rewards, plus optional potential-based shaping
(:mod:`cluegym.wrappers.shaping`); ``info["unshaped_reward"]`` always holds the game reward
and, when a game ends, ``info["game_return"]`` its unshaped total and ``info["game_result"]``
the game's result for its ``metrics()``. An action the env rejects (e.g. a masked choice from
an algorithm without masks) costs ``invalid_action_penalty``; the seat then acts again, and
after ``max_retries`` rejections the game's documented fallback applies. A choice the decision
does not offer (outside ``0..n - 1``, or past its candidates) is rejected the same way, with
``info["rejected"]`` saying so (:meth:`~cluegym.wrappers.seat_task.SeatTask.choice_error`).

Example:
    >>> from sb3_contrib import MaskablePPO
    >>> env = SelfPlayEnv("decrypto", "eve", opponents={"alice": "glove:k=16", "bob": "glove"})
    >>> model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, seed=0)
    >>> model.learn(256).num_timesteps  # a smoke run; the README trains Eve for 4,000-8,000 steps
    256

Several copies for SB3: :func:`cluegym.wrappers.vec_env.make_vec_env`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import gymnasium
import numpy as np

import cluegym
from cluegym.agents import check_agent_spec, make_agent
from cluegym.envs.core.base import ClueGameEnv
from cluegym.envs.core.options import check_reset_options
from cluegym.envs.core.rng import check_seed, integers
from cluegym.envs.core.text import describe
from cluegym.harness.seats import check_agents_fit
from cluegym.harness.seeding import own_seed_of, with_own_seed
from cluegym.wrappers.policy_pool import PolicyPool
from cluegym.wrappers.seat_task import (SeatTask, choice_index, generic_task, last_verdict, learner_defaults_named,
                                        learner_env_options, make_task, penalty)
from cluegym.wrappers.shaping import PotentialShaping, check_shaping_scale

# SeatTask, make_task, generic_task (wrappers.seat_task) and PolicyPool (wrappers.policy_pool)
# are re-exported: the game wrappers and older code import them from here.
__all__ = ["SelfPlayEnv", "SeatTask", "make_task", "generic_task", "PolicyPool", "make_game_env"]


class SelfPlayEnv(gymnasium.Env):
    """One learning seat of a cluegym game as a single-agent ``gymnasium.Env``.

    Args:
        game: registered game name, e.g. ``"decrypto"``.
        seat: the learner's seat, e.g. ``"eve"``.
        opponents: seat -> agent spec, list of specs, or :class:`PolicyPool`; ``"*"`` for
            every seat not named. Seats not named get the game's ``DEFAULT_AGENTS``.
        task: the learner's :class:`SeatTask`; None builds the game's default for the seat
            with ``task_options``.
        task_options: options of the default task (e.g. ``{"embedding": "glove"}``).
        env_kwargs: game options (observation digests are off unless asked for: speed), over
            the game's learner defaults (``GameSpec.learner_env``: Dixit reveals captions).
        shaping: a :class:`PotentialShaping`, True for the game's default potential, a
            number for it at that scale (finite, >= 0), or None/False/0 (the default) for the
            plain game reward.
        selfplay: add learner snapshots to the pools of same-role seats (see
            :meth:`add_snapshot`).
        invalid_action_penalty: reward for an action the env rejects (default 0).
        max_snapshots: snapshots each pool keeps.
        render_mode: ``"ansi"`` to get the game table from :meth:`render`.
        final_features: featurize the seat's observation when the game ends (the observation
            ``step`` returns with ``terminated``). By default that observation is zeros, as
            the multi-seat view's for a seat with no decision pending: none is, and RL
            libraries do not learn from a terminated episode's last observation (SB3 reads
            ``terminal_observation`` only on truncation, which this env never returns), while
            featurizing it was 8-23% of a decision (Taboo, Undercover, Decrypto).

    Raises:
        ValueError: an unknown game or seat, an opponent named for no opponent seat, or a
            task option the seat's task does not take.
        AgentSpecError: an opponent's or the delegate's agent spec names no agent (or a
            parameter it does not take): checked here, not at the first reset.
        TypeError: an opponent entry that is no agent spec.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str,
        seat: str,
        *,
        opponents: Mapping[str, str | Sequence[str] | PolicyPool] | None = None,
        task: SeatTask | None = None,
        task_options: Mapping[str, Any] | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        shaping: PotentialShaping | bool | None = None,
        selfplay: bool = False,
        invalid_action_penalty: float = 0.0,
        max_snapshots: int = 5,
        render_mode: str | None = None,
        final_features: bool = False,
    ) -> None:
        super().__init__()
        module = cluegym.env_module(game)
        self.game = game
        self.seat = seat
        self.env_kwargs = dict(env_kwargs or {})
        self.aec = make_game_env(game, self.env_kwargs)
        self.raw = self.aec.unwrapped
        # cluegym's adapter (every registered game): its game_over is every seat's end.
        self._adapter = isinstance(self.raw, ClueGameEnv)
        if seat not in self.aec.possible_agents:
            raise ValueError(f"{game} has no seat {seat!r}; seats: {', '.join(self.aec.possible_agents)}")
        self.task = task or make_task(game, seat, self.raw, **dict(task_options or {}))
        self.observation_space = self.task.featurizer.observation_space
        self.action_space = gymnasium.spaces.Discrete(self.task.n_actions)
        self._all_legal = np.ones(self.task.n_actions, dtype=bool)  # copied where every choice is legal
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not supported; choose from {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.final_features = bool(final_features)
        self.invalid_action_penalty = penalty(invalid_action_penalty)
        if shaping is True:
            shaping = PotentialShaping.for_game(game)
        elif shaping is not None and shaping is not False and not isinstance(shaping, PotentialShaping):
            # a number is a scale of the game's potential (as MultiSeatEnv takes it); 0 is none
            scale = check_shaping_scale(shaping)
            shaping = PotentialShaping.for_game(game, scale=scale) if scale else None
        self.shaping: PotentialShaping | None = shaping or None
        defaults: dict[str, str] = getattr(module, "DEFAULT_AGENTS", {})
        opponents = dict(opponents or {})
        wildcard = opponents.pop("*", None)
        unknown = sorted(set(opponents) - set(self.aec.possible_agents))
        if unknown or seat in opponents:
            bad = unknown or [seat]
            raise ValueError(f"opponents name seat(s) {', '.join(bad)}: not an opponent seat of {game} "
                             f"(learner {seat!r}; seats {', '.join(self.aec.possible_agents)})")
        self.pools: dict[str, PolicyPool] = {}
        for other in self.aec.possible_agents:
            if other == seat:
                continue
            # An entry given (even "" or []) is the user's, checked below: "or" made an empty
            # one the game's default players without a word.
            entry = (opponents[other] if other in opponents else wildcard if wildcard is not None
                     else defaults.get(other) or defaults.get("*") or "random")
            try:
                pool = entry if isinstance(entry, PolicyPool) else PolicyPool(entry, max_snapshots)
                for spec in pool.entries:  # an unknown agent or parameter fails here, not at the first reset
                    check_agent_spec(spec, game=game, seat=other)
            except ValueError as exc:  # AgentSpecError too: which seat's entry it is
                raise type(exc)(f"opponents[{other!r}]: {exc}") from None
            self.pools[other] = pool
        self.selfplay = bool(selfplay)
        self.snapshot_seats = [s for s in self.pools if self.selfplay and self._same_role(s)]
        self._agents: dict[str, Any] = {}  # spec/seat -> agent instance, reused across games
        self._snapshot_specs: set[str] = set()  # the snapshots' specs among them
        self._players: dict[str, Any] = {}
        self._delegate: Any = None
        if self.task.delegate is not None:
            # Built now (the same agent every game): a delegate that cannot play this env (Dixit's
            # caption agent with reveal_captions=False) is refused here, not at the first reset.
            self._agent(self.task.delegate, seat)
        # The raw env's observe, or its lean_observe when the task and delegate allow it.
        self._observe_learner = self.task.observer(self.raw)
        self._pending: tuple[dict[str, Any], dict[str, Any], list[Any] | None] | None = None
        # The pending decision the mask was built for, and the mask (see action_masks).
        self._mask: tuple[Any, np.ndarray] | None = None
        self._phi = 0.0
        self._game_return = 0.0
        self._carried_reward = 0.0
        self._invalid = 0

    # ----------------------------------------------------------------- helpers
    def _same_role(self, other: str) -> bool:
        if self.task.role is None:
            return False
        try:
            other_task = make_task(self.game, other, self.raw, **self.task.options)
        except ValueError:
            return False
        return other_task.role == self.task.role

    def _agent(self, spec: str, seat: str) -> Any:
        key = (spec, seat)
        if key not in self._agents:
            agent = make_agent(spec, game=self.game, seat=seat, action_space=self.aec.action_space(seat))
            check_agents_fit(self.aec, {seat: agent})  # e.g. a caption agent where captions are hidden
            self._agents[key] = agent
        return self._agents[key]

    def add_snapshot(self, path: str) -> list[str]:
        """Add a saved learner policy to the pools of same-role seats (self-play only).

        The snapshot's agent is built for each of those seats now, so a file that is missing,
        or a policy of another game or role, fails here (in the training callback that saved
        it) rather than at a later reset that draws it; no pool takes it then. The agents of
        snapshots that no pool keeps any longer (``max_snapshots``) are let go.

        Returns:
            The seats whose pools took it (empty when self-play is off or no seat shares
            the learner's role, e.g. in Decrypto).

        Raises:
            FileNotFoundError: no saved policy at ``path``.
            ValueError: the policy does not fit a seat (another game, role or feature size).
        """
        if not Path(path).is_file():  # checked for every learner: without a same-role seat nothing loads it
            raise FileNotFoundError(f"policy file {str(path)!r} does not exist (a policy is a .zip with its .json)")
        spec = PolicyPool.snapshot_spec(str(path))
        for other in self.snapshot_seats:
            self._agent(spec, other)
        for other in self.snapshot_seats:
            self.pools[other].add_snapshot(str(path))
        if self.snapshot_seats:
            self._snapshot_specs.add(spec)
            kept = {s for pool in self.pools.values() for s in pool.snapshots}
            kept.update(spec for spec, _ in self._players.values())  # the current game's players stay
            for dropped in self._snapshot_specs - kept:
                self._snapshot_specs.discard(dropped)
                for key in [key for key in self._agents if key[0] == dropped]:
                    del self._agents[key]
        return list(self.snapshot_seats)

    def opponent_specs(self) -> dict[str, str]:
        """The specs playing the other seats in the current game."""
        return {seat: spec for seat, (spec, _) in self._players.items()}

    def _game_over(self) -> bool:
        # The raw env's state, read directly: through the order-enforcing wrapper every
        # attribute costs a __getattr__ hop, and the views read them at every step.
        env = self.raw
        if self._adapter:  # the adapter's rules say it in one call: nobody is to move
            return env.game_over
        terminations, truncations = env.terminations, env.truncations
        for agent in env.agents:  # a loop, not all(<generator>): this runs at every env step
            if not (terminations[agent] or truncations[agent]):
                return False
        return True

    def _collect(self) -> float:
        return float(self.raw.rewards.get(self.seat, 0.0))

    def _advance(self) -> float:
        """Let the other seats (and the delegate) act until the learner decides or the game ends."""
        reward = 0.0
        env, task = self.raw, self.task  # reads from the raw env; moves through the wrapper
        while not self._game_over():
            seat = env.agent_selection
            if env.terminations[seat] or env.truncations[seat]:
                self.aec.step(None)  # a seat out of the game (e.g. eliminated): dead step
                reward += self._collect()
                continue
            info = env.infos.get(seat, {})
            if seat != self.seat:
                player = self._players[seat][1]
                # An agent that decides from info alone gets no observation (none is built).
                action = player.act(env.observe(seat) if player.reads_observation else None, info)
            else:
                if task.learns_every_decision:  # the common case, without route()'s closure
                    learner, obs = True, self._observe_learner(seat)
                else:
                    learner, obs = task.route(info, lambda: self._observe_learner(seat), self._delegate)
                if learner:
                    cands = list(task.candidates(obs, info))[: task.n_actions] if task.candidates else None
                    self._pending = (obs, info, cands)
                    return reward
                if self._delegate is None:
                    raise RuntimeError(f"task for {self.game}/{self.seat} skips a decision but has no delegate")
                action = self._delegate.act(obs, info)
            self.aec.step(action)
            reward += self._collect()
        self._pending = None
        return reward

    def _observation(self) -> np.ndarray:
        if self._pending is not None:
            obs, info, cands = self._pending
        elif not self.final_features:  # the game is over: no decision to describe
            return np.zeros(self.observation_space.shape, dtype=self.observation_space.dtype)
        else:
            obs, info, cands = self._observe_learner(self.seat), self.raw.infos.get(self.seat, {}), None
            if self.task.candidates is not None:
                cands = []
        return self.task.features(obs, info, cands)

    def action_masks(self) -> np.ndarray:
        """Legal choices of the pending decision (all True when the game is over); a new
        array at each call (a decision's mask is built once: the info and sb3-contrib's
        ``MaskablePPO`` both ask for it)."""
        pending = self._pending
        if pending is None:
            return self._all_legal.copy()
        kept = self._mask
        if kept is None or kept[0] is not pending:
            kept = self._mask = (pending, self.task.legal(*pending))
        return kept[1].copy()

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks()}
        if self._pending is not None and self._pending[1].get("error"):
            info["error"] = self._pending[1]["error"]
        return info

    #: The options :meth:`reset` reads.
    RESET_OPTIONS = ("game_seed", "agent_seeds", "opponents")

    def _checked_options(self, options: Any) -> dict[str, Any]:
        """``reset``'s ``options`` as a dict, checked before anything changes (see :meth:`reset`);
        a key it does not read is warned of (taken, as Gymnasium's API has it, but most likely
        misspelt)."""
        if options is None:  # every training reset: nothing to check, kept cheap
            return {}
        options = check_reset_options(options, self.RESET_OPTIONS, "SelfPlayEnv")
        _check_option_seed("options['game_seed']", options.get("game_seed"))
        opponents = self._seat_option(options, "opponents", list(self.pools))
        for seat, spec in opponents.items():
            if not isinstance(spec, str):
                raise TypeError(f"options['opponents'][{seat!r}] must be an agent spec (a str), got {describe(spec)}")
            self._agent(spec, seat)  # an unknown spec fails here (AgentSpecError), the game untouched
        seeded = [*self.pools, self.seat] if self.task.delegate is not None else list(self.pools)
        for seat, agent_seed in self._seat_option(options, "agent_seeds", seeded).items():
            _check_option_seed(f"options['agent_seeds'][{seat!r}]", agent_seed)
        return dict(options)

    def _seat_option(self, options: Mapping[str, Any], name: str, seats: list[str]) -> Mapping[str, Any]:
        """``options[name]``: a seat -> value mapping over ``seats`` (empty when not given)."""
        value = options.get(name) or {}
        if not isinstance(value, Mapping):
            raise TypeError(f"options[{name!r}] must be a dict of seat -> value, got {describe(value)}")
        wrong = [seat for seat in value if seat not in seats]
        if wrong:
            raise ValueError(f"options[{name!r}] names {', '.join(map(describe, wrong))}: the seats it takes "
                             f"are {', '.join(seats)}")
        return value

    # ----------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a new game: draw its seed and opponents from the env's generator.

        Options:
            game_seed: play this exact game seed (evaluation on fixed games).
            agent_seeds: seat -> seed for the agents, used as given (default: drawn from the
                env's generator, with an agent's own seed, a spec's ``seed=S``, mixed in as a
                match mixes it: :func:`cluegym.harness.with_own_seed`); the learner's seat
                seeds its delegate.
            opponents: seat -> spec for this game only (instead of drawing from the pools).

        Raises:
            TypeError: ``seed`` (or a seed of ``options``) is neither None nor an integer
                (Python's or numpy's), ``options`` or one of its entries has the wrong type.
            ValueError: a negative seed, or an option naming a seat it does not take.
            AgentSpecError: an unknown agent spec in ``options["opponents"]``. Each is raised
                before anything changes.

        Example:
            >>> env = SelfPlayEnv("taboo", "defender", opponents={"attacker": "random"})
            >>> observation, info = env.reset(seed=0, options={"game_seed": 7})
        """
        check_seed(seed)  # the games' own check and messages (Gymnasium's refuses numpy's integers)
        options = self._checked_options(options)
        super().reset(seed=None if seed is None else int(seed))
        for _ in range(100):  # a game that ends before the learner's first decision is redrawn
            game_seed = options.get("game_seed")
            if game_seed is None:
                game_seed = integers(self.np_random, 2**63 - 1)
            fixed = options.get("opponents") or {}
            agent_seeds = options.get("agent_seeds") or {}
            # Every agent of the game is built before the game starts: one that cannot be built
            # or cannot play this env (EnvChecker) raises with the last game as it was.
            players: dict[str, tuple[str, Any, int]] = {}
            for other, pool in self.pools.items():
                spec = fixed.get(other) or pool.sample(self.np_random)
                agent = self._agent(spec, other)
                drawn = with_own_seed(integers(self.np_random, 2**63 - 1), own_seed_of(agent))
                players[other] = (spec, agent, agent_seeds.get(other, drawn))
            delegate = None
            if self.task.delegate is not None:
                delegate = self._agent(self.task.delegate, self.seat)
                drawn = with_own_seed(integers(self.np_random, 2**63 - 1), own_seed_of(delegate))
                delegate_seed = agent_seeds.get(self.seat, drawn)
            self.aec.reset(seed=int(game_seed))
            self._players = {}
            for other, (spec, agent, agent_seed) in players.items():
                agent.reset(agent_seed)
                self._players[other] = (spec, agent)
            if delegate is not None:
                self._delegate = delegate
                delegate.reset(delegate_seed)
            self._observe_learner = self.task.observer(self.raw, self._delegate)
            # What the game paid before the learner's first decision (a Dixit storyteller's
            # first round) is the first step's reward: reset returns none, and the steps'
            # rewards must sum to the game's return.
            self._carried_reward = self._advance()
            self._game_return = 0.0
            self._invalid = 0
            if self._pending is not None:
                break
            if options.get("game_seed") is not None:
                raise RuntimeError(f"game seed {game_seed} ends before {self.seat!r} decides anything")
        else:  # pragma: no cover - needs a game where the learner almost never acts
            raise RuntimeError(f"100 games in a row ended before {self.seat!r} decided anything")
        self._phi = self.shaping.phi(self.raw, self.seat, False) if self.shaping else 0.0
        return self._observation(), self._info()

    def step(self, action: Any):
        if self._pending is None:
            raise RuntimeError("the game is over: call reset()")
        index = choice_index(action, self.task.n_actions)
        obs, info, cands = self._pending
        env_action = self.task.env_action(index, obs, info, cands, self._delegate)
        self.aec.step(env_action)
        reward, self._carried_reward = self._carried_reward + self._collect(), 0.0
        error, fell_back = last_verdict(self.raw, self.seat)
        if error is not None:  # a choice the decision does not offer: the view's reason, not the game's
            error = self.task.choice_error(index, cands) or error
        retry = not fell_back and self.raw.agent_selection == self.seat and error is not None
        rejected = error if (retry or fell_back) else None
        self._invalid += rejected is not None
        reward += self._advance()
        terminated = self._pending is None
        self._game_return += reward
        shaped = reward + (self.invalid_action_penalty if rejected is not None else 0.0)
        if self.shaping:
            phi = self.shaping.phi(self.raw, self.seat, terminated)
            shaped += self.shaping.term(self._phi, phi)
            self._phi = phi
        info = self._info()
        info["unshaped_reward"] = reward
        if rejected is not None:
            info["rejected"] = rejected
            if "error" in info:  # the seat decides again: its error is the rejection's reason
                info["error"] = rejected
        if terminated:
            info["game_return"] = self._game_return
            info["game_result"] = self.raw.game_result()
            info["invalid_actions"] = self._invalid
            info["opponents"] = self.opponent_specs()
        return self._observation(), float(shaped), terminated, False, info

    def render(self) -> str | None:
        """The game table as text with ``render_mode="ansi"``; None otherwise."""
        if self.render_mode == "ansi":
            # The game env built without render_mode="human" returns its table as text.
            return self.raw.render()
        return None

    def close(self) -> None:
        self.aec.close()


def _check_option_seed(label: str, seed: Any) -> None:
    """:func:`check_seed` of a seed of ``reset``'s options, its error starting with ``label``
    (where the seed is, e.g. ``options['game_seed']``)."""
    try:
        check_seed(seed)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{label}: {exc}") from None


def make_game_env(game: str, env_kwargs: Mapping[str, Any] | None = None) -> Any:
    """The AEC env a :class:`SelfPlayEnv` of ``game`` plays: ``env_kwargs`` over the game's
    learner defaults (:func:`~cluegym.wrappers.seat_task.learner_env_options`), with
    observation digests off unless asked for (a learner needs no record digests; they cost
    time).

    Example:
        >>> raw = make_game_env("dixit").unwrapped
        >>> raw.record_observations, raw.reveal_captions
        (False, True)
    """
    module = cluegym.env_module(game)
    kwargs = learner_env_options(game, env_kwargs)
    with learner_defaults_named(game, env_kwargs):
        if "record_observations" not in kwargs:
            try:
                return module.env(**kwargs, record_observations=False)
            except TypeError as exc:
                if "record_observations" not in str(exc):
                    raise
        return module.env(**kwargs)
