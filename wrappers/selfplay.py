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
after ``max_retries`` rejections the game's documented fallback applies.

Example:
    >>> from sb3_contrib import MaskablePPO
    >>> env = SelfPlayEnv("decrypto", "eve", opponents={"alice": "glove:k=16", "bob": "glove"})
    >>> model = MaskablePPO("MlpPolicy", env, seed=0).learn(20_000)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import gymnasium
import numpy as np

import cluegym
from cluegym.agents import make_agent
from cluegym.envs.core.registry import env_module, game_spec, load_reference
from cluegym.wrappers.candidates import CandidateGenerator
from cluegym.wrappers.featurizers import Featurizer
from cluegym.wrappers.numeric import NumericFeatures
from cluegym.wrappers.shaping import PotentialShaping

__all__ = ["SeatTask", "make_task", "generic_task", "PolicyPool", "SelfPlayEnv", "make_vec_env"]


def _always(observation: dict[str, Any], info: dict[str, Any]) -> bool:
    return True


@dataclass
class SeatTask:
    """How a learner plays one seat of one game: features in, a discrete choice out.

    Attributes:
        game: registered game name.
        seat: the seat the learner plays.
        featurizer: observation (+ candidates) -> ``Box`` vector.
        n_actions: size of the learner's ``Discrete`` action space.
        candidates: for Text actions, the per-step candidate generator (index -> env action).
        to_env_action: maps ``(index, observation, info, candidates)`` to the env action;
            None: the candidate at ``index`` when there are candidates, else ``index``.
        learner_acts: ``(observation, info) -> bool``: whether this decision is the learner's
            (the rest go to ``delegate``).
        delegate: agent spec playing the seat's other decisions.
        combine: ``(learner_action, delegate_action) -> env action`` when the learner fills
            only part of an action whose other parts the delegate gives (e.g. the Taboo
            defender's guess, with the delegate's utterance); see :meth:`env_action`.
        metric: ``(name, function(metrics, results))``: the number training reports and
            evaluation curves plot (e.g. Eve's interception rate), from the game's metrics
            dict and the games' results (``record["result"]``, for per-seat numbers).
        role: seats with the same role can take the learner's snapshots in self-play.
        options: the keyword options that rebuild this task with :func:`make_task`.
    """

    game: str
    seat: str
    featurizer: Featurizer
    n_actions: int
    candidates: CandidateGenerator | None = None
    to_env_action: Callable[[int, dict[str, Any], dict[str, Any], Sequence[Any] | None], Any] | None = None
    learner_acts: Callable[[dict[str, Any], dict[str, Any]], bool] = _always
    delegate: str | None = None
    combine: Callable[[Any, Any], Any] | None = None
    metric: tuple[str, Callable[[dict[str, Any], list[dict[str, Any]]], float]] | None = None
    role: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def legal(self, observation: dict[str, Any], info: dict[str, Any], candidates: Sequence[Any] | None) -> np.ndarray:
        """Boolean mask of the legal choices for this decision."""
        if candidates is not None:
            mask = np.zeros(self.n_actions, dtype=bool)
            mask[: min(len(candidates), self.n_actions)] = True
            return mask
        raw = observation.get("action_mask") if isinstance(observation, dict) else None
        if raw is None:
            raw = info.get("action_mask")
        if isinstance(raw, dict):  # Dict action spaces: the mask of the learner's entry
            raw = next((v for v in raw.values() if v is not None), None)
        if raw is None:
            return np.ones(self.n_actions, dtype=bool)
        return np.asarray(raw, dtype=bool).reshape(-1)[: self.n_actions]

    def env_action(self, index: int, observation: dict[str, Any], info: dict[str, Any],
                   candidates: Sequence[Any] | None, delegate: Any = None) -> Any:
        """The env action for the learner's choice ``index``; with ``combine``, joined with
        what ``delegate`` (the agent playing :attr:`delegate`) answers to the same view."""
        if self.to_env_action is not None:
            action = self.to_env_action(index, observation, info, candidates)
        elif candidates is not None:
            action = candidates[index] if 0 <= index < len(candidates) else None
        else:
            action = int(index)
        if self.combine is None:
            return action
        if delegate is None:
            raise ValueError(f"the {self.game}/{self.seat} task combines its choice with the delegate's "
                             "action: pass delegate=")
        return self.combine(action, delegate.act(observation, info))

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None) -> np.ndarray:
        return self.featurizer(observation, info, candidates)

    def score(self, metrics: dict[str, Any], results: Sequence[dict[str, Any]] = ()) -> float | None:
        """The task's metric from the game metrics and results (None when the task has none)."""
        return None if self.metric is None else float(self.metric[1](metrics, list(results)))

    @property
    def metric_name(self) -> str | None:
        return None if self.metric is None else self.metric[0]


def make_task(game: str, seat: str, env: Any = None, **options: Any) -> SeatTask:
    """Build the :class:`SeatTask` of ``game``/``seat``: the builder the game names in its
    ``GameSpec.learner_task``, or :func:`generic_task` when it names none.

    Args:
        game: registered game name (or versioned id).
        seat: the learner's seat.
        env: the raw game env the task will play (for its sizes); None: default options.
        **options: the task's own options (e.g. ``embedding="glove"``).

    Raises:
        ValueError: an unknown game, a task missing from this installation, or (generic
            task) a seat whose action is not ``Discrete``.
    """
    reference = game_spec(game).learner_task
    if reference is None:
        task = generic_task(game, seat, env, **options)
    else:
        try:
            builder = load_reference(reference)
        except ModuleNotFoundError as exc:
            raise ValueError(f"no learner task for game {game!r} in this installation") from exc
        task = builder(seat, env, **options)
    task.options = dict(options)
    return task


def generic_task(game: str, seat: str, env: Any = None, *, metric: str | None = None) -> SeatTask:
    """The learner task of a game that declares none: the seat's own ``Discrete`` choice
    from its numeric observation fields (:class:`~cluegym.wrappers.numeric.NumericFeatures`),
    masked by ``obs["action_mask"]`` when the game gives one. No role (no snapshot sharing).

    Args:
        game: registered game name.
        seat: the learner's seat.
        env: the raw game env (for its spaces); None: default options.
        metric: the entry of the game's ``metrics()`` that training reports and evaluates
            (``cluegym train GAME --task metric=success_rate``); None: no metric.

    Raises:
        ValueError: the seat's action is not ``Discrete`` (such a game needs its own task)
            or its observation has no numeric field.
    """
    raw = env if env is not None else env_module(game).raw_env()
    space = raw.action_space(seat)
    if not isinstance(space, gymnasium.spaces.Discrete):
        raise ValueError(f"no learner task for {game!r} seat {seat!r}: its GameSpec names no learner_task and the "
                         f"seat acts with {type(space).__name__}, not Discrete (the generic task needs Discrete)")
    start = int(space.start)
    return SeatTask(
        game=game, seat=seat, featurizer=NumericFeatures(raw.observation_space(seat)), n_actions=int(space.n),
        to_env_action=(lambda index, *_: start + int(index)) if start else None,
        metric=None if metric is None else (metric, lambda metrics, results: _game_metric(game, metrics, metric)),
    )


def _game_metric(game: str, metrics: Mapping[str, Any], name: str) -> float:
    if name not in metrics:
        raise ValueError(f"{game} reports no metric {name!r}; its metrics: {', '.join(sorted(metrics))}")
    return float(metrics[name])


class PolicyPool:
    """The agents one opponent seat draws from at each reset.

    Entries are agent specs (``"glove:k=16"``, ``"random"``, ``"ppo:path=snap.zip"``).
    Snapshots of the learner join through :meth:`add_snapshot`; only the newest
    ``max_snapshots`` are kept. Each reset draws uniformly over the fixed entries and the
    snapshots, except that with probability ``latest_prob`` the newest snapshot is drawn.

    Args:
        entries: the fixed agent specs (at least one).
        max_snapshots: snapshots kept (oldest dropped first).
        latest_prob: chance of facing the newest snapshot when there is one.

    Example:
        >>> pool = PolicyPool(["glove", "random"])
        >>> pool.add_snapshot("runs/eve/snapshots/step_10000.zip")
        >>> pool.sample(np.random.default_rng(0))
    """

    def __init__(self, entries: Sequence[str], max_snapshots: int = 5, latest_prob: float = 0.5) -> None:
        entries = [entries] if isinstance(entries, str) else list(entries)
        if not entries:
            raise ValueError("a policy pool needs at least one agent spec")
        if not 0.0 <= latest_prob <= 1.0:
            raise ValueError(f"latest_prob must be in [0, 1], got {latest_prob}")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be >= 1, got {max_snapshots}")
        self.entries = [str(e) for e in entries]
        self.snapshots: list[str] = []
        self.max_snapshots = int(max_snapshots)
        self.latest_prob = float(latest_prob)

    def add_snapshot(self, path: str) -> None:
        """Add a frozen snapshot of the learner (a saved policy file)."""
        spec = f"ppo:path={path}"
        if spec in self.snapshots:  # a pool shared by several seats gets each snapshot once
            return
        self.snapshots.append(spec)
        del self.snapshots[: max(0, len(self.snapshots) - self.max_snapshots)]

    def sample(self, rng: np.random.Generator) -> str:
        """Draw the spec for one game."""
        if self.snapshots and rng.random() < self.latest_prob:
            return self.snapshots[-1]
        options = self.entries + self.snapshots
        return options[int(rng.integers(len(options)))]

    def __repr__(self) -> str:
        return f"PolicyPool({self.entries}, snapshots={len(self.snapshots)})"


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
        env_kwargs: game options (observation digests are off unless asked for: speed).
        shaping: a :class:`PotentialShaping`, True for the game's default potential, or
            None/False (the default) for the plain game reward.
        selfplay: add learner snapshots to the pools of same-role seats (see
            :meth:`add_snapshot`).
        invalid_action_penalty: reward for an action the env rejects (default 0).
        max_snapshots: snapshots each pool keeps.
        render_mode: ``"ansi"`` to get the game table from :meth:`render`.
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
    ) -> None:
        super().__init__()
        module = cluegym.env_module(game)
        self.game = game
        self.seat = seat
        self.env_kwargs = dict(env_kwargs or {})
        self.aec = _make_game_env(module, self.env_kwargs)
        self.raw = self.aec.unwrapped
        if seat not in self.aec.possible_agents:
            raise ValueError(f"{game} has no seat {seat!r}; seats: {', '.join(self.aec.possible_agents)}")
        self.task = task or make_task(game, seat, self.raw, **dict(task_options or {}))
        self.observation_space = self.task.featurizer.observation_space
        self.action_space = gymnasium.spaces.Discrete(self.task.n_actions)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not supported; choose from {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.invalid_action_penalty = float(invalid_action_penalty)
        if shaping is True:
            shaping = PotentialShaping.for_game(game)
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
            entry = opponents.get(other) or wildcard or defaults.get(other) or defaults.get("*") or "random"
            self.pools[other] = entry if isinstance(entry, PolicyPool) else PolicyPool(entry, max_snapshots)
        self.selfplay = bool(selfplay)
        self.snapshot_seats = [s for s in self.pools if self.selfplay and self._same_role(s)]
        self._agents: dict[str, Any] = {}  # spec/seat -> agent instance, reused across games
        self._players: dict[str, Any] = {}
        self._delegate: Any = None
        self._pending: tuple[dict[str, Any], dict[str, Any], list[Any] | None] | None = None
        self._phi = 0.0
        self._game_return = 0.0
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

            self._agents[key] = make_agent(spec, game=self.game, seat=seat,
                                           action_space=self.aec.action_space(seat))
        return self._agents[key]

    def add_snapshot(self, path: str) -> list[str]:
        """Add a saved learner policy to the pools of same-role seats (self-play only).

        Returns:
            The seats whose pools took it (empty when self-play is off or no seat shares
            the learner's role, e.g. in Decrypto).
        """
        for other in self.snapshot_seats:
            self.pools[other].add_snapshot(str(path))
        return list(self.snapshot_seats)

    def opponent_specs(self) -> dict[str, str]:
        """The specs playing the other seats in the current game."""
        return {seat: spec for seat, (spec, _) in self._players.items()}

    def _game_over(self) -> bool:
        env = self.aec
        return not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)

    def _collect(self) -> float:
        return float(self.raw.rewards.get(self.seat, 0.0))

    def _advance(self) -> float:
        """Let the other seats (and the delegate) act until the learner decides or the game ends."""
        reward = 0.0
        env = self.aec
        while not self._game_over():
            seat = env.agent_selection
            if env.terminations[seat] or env.truncations[seat]:
                env.step(None)  # a seat out of the game (e.g. eliminated): dead step
                reward += self._collect()
                continue
            obs = env.observe(seat)
            info = env.infos.get(seat, {})
            if seat == self.seat:
                if self.task.learner_acts(obs, info):
                    cands = list(self.task.candidates(obs, info))[: self.task.n_actions] if self.task.candidates else None
                    self._pending = (obs, info, cands)
                    return reward
                if self._delegate is None:
                    raise RuntimeError(f"task for {self.game}/{self.seat} skips a decision but has no delegate")
                action = self._delegate.act(obs, info)
            else:
                action = self._players[seat][1].act(obs, info)
            env.step(action)
            reward += self._collect()
        self._pending = None
        return reward

    def _observation(self) -> np.ndarray:
        if self._pending is not None:
            obs, info, cands = self._pending
        else:
            obs, info, cands = self.aec.observe(self.seat), self.aec.infos.get(self.seat, {}), None
            if self.task.candidates is not None:
                cands = []
        return self.task.features(obs, info, cands)

    def action_masks(self) -> np.ndarray:
        """Legal choices of the pending decision (all True when the game is over)."""
        if self._pending is None:
            return np.ones(self.task.n_actions, dtype=bool)
        mask = self.task.legal(*self._pending)
        return mask if mask.any() else np.ones(self.task.n_actions, dtype=bool)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks()}
        if self._pending is not None and self._pending[1].get("error"):
            info["error"] = self._pending[1]["error"]
        return info

    # ----------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a new game: draw its seed and opponents from the env's generator.

        Options:
            game_seed: play this exact game seed (evaluation on fixed games).
            agent_seeds: seat -> seed for the agents (default: drawn).
            opponents: seat -> spec for this game only (instead of drawing from the pools).
        """
        super().reset(seed=seed)
        options = dict(options or {})
        for _ in range(100):  # a game that ends before the learner's first decision is redrawn
            game_seed = options.get("game_seed")
            if game_seed is None:
                game_seed = int(self.np_random.integers(2**63 - 1))
            self.aec.reset(seed=int(game_seed))
            fixed = options.get("opponents") or {}
            agent_seeds = options.get("agent_seeds") or {}
            self._players = {}
            for other, pool in self.pools.items():
                spec = fixed.get(other) or pool.sample(self.np_random)
                agent = self._agent(spec, other)
                agent.reset(agent_seeds.get(other, int(self.np_random.integers(2**63 - 1))))
                self._players[other] = (spec, agent)
            if self.task.delegate is not None:
                self._delegate = self._agent(self.task.delegate, self.seat)
                self._delegate.reset(agent_seeds.get(self.seat, int(self.np_random.integers(2**63 - 1))))
            self._game_return = self._advance()
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
        if isinstance(action, np.ndarray):
            action = action.reshape(-1)[0] if action.size == 1 else action
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action must be an integer in 0..{self.task.n_actions - 1}, got {action!r}")
        obs, info, cands = self._pending
        env_action = self.task.env_action(int(action), obs, info, cands, self._delegate)
        self.aec.step(env_action)
        reward = self._collect()
        after = self.raw.infos.get(self.seat, {})
        fell_back = bool(after.get("fallback"))
        retry = not fell_back and self.aec.agent_selection == self.seat and after.get("error") is not None
        rejected = after.get("error") if (retry or fell_back) else None
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
        if terminated:
            record = self.raw.game_record()
            info["game_return"] = self._game_return
            info["game_result"] = record.get("result")
            info["invalid_actions"] = self._invalid
            info["opponents"] = self.opponent_specs()
        return self._observation(), float(shaped), terminated, False, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.raw._render_text()
        return None

    def close(self) -> None:
        self.aec.close()


def _make_game_env(module: Any, env_kwargs: Mapping[str, Any]) -> Any:
    """The game's AEC env; observation digests off unless asked for (they cost time)."""
    kwargs = dict(env_kwargs)
    if "record_observations" not in kwargs:
        try:
            return module.env(**kwargs, record_observations=False)
        except TypeError as exc:
            if "record_observations" not in str(exc):
                raise
    return module.env(**kwargs)


def make_vec_env(n_envs: int = 1, *, vec: str = "dummy", seed: int = 0, **kwargs: Any) -> Any:
    """``n_envs`` :class:`SelfPlayEnv` copies in an SB3 ``DummyVecEnv`` or ``SubprocVecEnv``.

    Args:
        n_envs: number of envs.
        vec: ``"dummy"`` (one process) or ``"subproc"`` (one process per env).
        seed: env ``i`` is seeded ``seed + i``.
        **kwargs: :class:`SelfPlayEnv` arguments (``game``, ``seat``, ``opponents``, ...).
    """
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if vec not in ("dummy", "subproc"):
        raise ValueError(f"vec must be 'dummy' or 'subproc', got {vec!r}")

    def factory(index: int) -> Callable[[], gymnasium.Env]:
        def build() -> gymnasium.Env:
            if vec == "subproc":
                import torch

                torch.set_num_threads(1)  # one process per env already: threads only contend
            env = Monitor(SelfPlayEnv(**kwargs), info_keywords=("game_return",))
            env.reset(seed=seed + index)
            return env
        return build

    builders = [factory(i) for i in range(n_envs)]
    vec_env = SubprocVecEnv(builders, start_method="fork") if vec == "subproc" else DummyVecEnv(builders)
    vec_env.seed(seed)
    return vec_env
