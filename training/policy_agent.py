"""Trained policies as cluegym agents: ``ppo:path=runs/eve/policy.zip`` plays in any match.

A saved policy is two files side by side: the Stable-Baselines3 model (``policy.zip``) and its
metadata (``policy.json``: game, seat, algorithm, the :class:`~cluegym.wrappers.seat_task.SeatTask`
options and game options it was trained with). :class:`PolicyAgent` rebuilds the seat task
(featurizer, candidates, delegate) from the metadata, so the policy sees exactly the features
it was trained on, and always picks a legal choice: masked argmax over the policy's logits
(PPO, MaskablePPO, A2C) or Q-values (DQN), whatever the algorithm.

From the shell: ``cluegym run decrypto --agent eve=ppo:path=runs/decrypto-eve/policy.zip --games 100``.

Example:
    A (barely trained) policy saved and played from Python, as ``cluegym run`` does:

    >>> from sb3_contrib import MaskablePPO
    >>> from cluegym.agents import run_match
    >>> from cluegym.wrappers.vec_env import make_vec_env
    >>> env = make_vec_env(1, seed=0, game="decrypto", seat="eve", opponents={"alice": "random", "bob": "random"})
    >>> model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0, device="cpu").learn(64)
    >>> save_policy(model, "runs/decrypto-eve/policy", {"game": "decrypto", "seat": "eve", "algo": "maskable_ppo"})
    PosixPath('runs/decrypto-eve/policy.zip')
    >>> summary = run_match("decrypto", {"alice": "glove:k=16", "bob": "glove",
    ...                                  "eve": "ppo:path=runs/decrypto-eve/policy.zip"},
    ...                     games=8, seed=0, progress=False)
    >>> summary["ok"], summary["metrics"]["games"], summary["metrics"]["interception_rate"]
    (True, 8, 0.046875)
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np

import cluegym
from cluegym.agents import make_agent
from cluegym.agents.base import Agent
from cluegym.envs.core.registry import game_spec
from cluegym.harness.arguments import env_flag
from cluegym.wrappers.seat_task import SeatTask, learner_env_options, make_task

__all__ = ["ALGORITHMS", "PolicyAgent", "TaskAgent", "TaskRandomAgent", "algorithm_class", "save_policy", "load_policy", "policy_scores"]

#: Training algorithms by name: "module:class". MaskablePPO uses action masks while learning.
ALGORITHMS: dict[str, str] = {
    "maskable_ppo": "sb3_contrib:MaskablePPO",
    "ppo": "stable_baselines3:PPO",
    "a2c": "stable_baselines3:A2C",
    "dqn": "stable_baselines3:DQN",
}


def algorithm_class(name: str) -> type:
    """The SB3 class of a registered algorithm name.

    Raises:
        ValueError: for an unknown name (the message lists the known ones).
    """
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)}")
    module, _, attr = ALGORITHMS[name].partition(":")
    return getattr(importlib.import_module(module), attr)


def _paths(path: str | Path) -> tuple[Path, Path]:
    path = Path(path)
    model = path if path.suffix == ".zip" else path.with_suffix(".zip")
    return model, model.with_suffix(".json")


def save_policy(model: Any, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Save an SB3 model and its metadata (``.zip`` + ``.json``); returns the ``.zip`` path.

    Args:
        model: the trained SB3 model.
        path: where to save (``.zip`` added when missing).
        metadata: at least ``game``, ``seat``, ``algo``; also ``task_options``, ``env_kwargs``.
    """
    missing = {"game", "seat", "algo"} - set(metadata)
    if missing:
        raise ValueError(f"policy metadata lacks {', '.join(sorted(missing))}")
    model_path, meta_path = _paths(path)
    model_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(model_path))
    meta_path.write_text(json.dumps(metadata, indent=2, sort_keys=True, default=str))
    return model_path


#: Loaded policies by (resolved path, mtime in ns, size): a file saved again reloads.
_LOADED: dict[tuple[str, int, int], tuple[Any, dict[str, Any]]] = {}


def read_metadata(path: Path, required: tuple[str, ...], what: str) -> dict[str, Any]:
    """The JSON object of a saved policy's metadata file, with every ``required`` key.

    Written by ``cluegym train`` beside each policy; one edited or truncated by hand gave a
    ``KeyError`` traceback, or a message that named neither the file nor the key.

    Raises:
        ValueError: one line naming ``what``, the file and the problem (not JSON, not an
            object, a key missing).
    """
    try:
        metadata = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{what} {str(path)!r} is not JSON ({exc})") from None
    if not isinstance(metadata, dict):
        raise ValueError(f"{what} {str(path)!r} is not a JSON object")
    missing = [key for key in required if key not in metadata]
    if missing:
        raise ValueError(f"{what} {str(path)!r} lacks {', '.join(map(repr, missing))} (not written by cluegym train?)")
    return metadata


def load_policy(path: str | Path) -> tuple[Any, dict[str, Any]]:
    """Load a saved policy and its metadata (cached per file version, CPU).

    Raises:
        FileNotFoundError: when the ``.zip`` or its ``.json`` is missing.
    """
    model_path, meta_path = _paths(path)
    for p in (model_path, meta_path):
        if not p.is_file():
            raise FileNotFoundError(f"policy file {str(p)!r} does not exist (a policy is a .zip with its .json)")
    stat = model_path.stat()
    key = (str(model_path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _LOADED:
        metadata = read_metadata(meta_path, ("algo", "game", "seat"), "policy metadata")
        model = algorithm_class(metadata["algo"]).load(str(model_path), device="cpu")
        if len(_LOADED) > 32:
            _LOADED.clear()
        _LOADED[key] = (model, metadata)
    return _LOADED[key]


def policy_scores(model: Any, features: np.ndarray) -> np.ndarray:
    """The policy's preference for each discrete choice: logits (PPO family) or Q-values (DQN)."""
    import torch  # deferred: heavy; loaded when a policy first plays

    with torch.no_grad():
        obs_tensor, _ = model.policy.obs_to_tensor(np.asarray(features, dtype=np.float32))
        if hasattr(model, "q_net"):
            scores = model.q_net(obs_tensor)
        else:
            scores = model.policy.get_distribution(obs_tensor).distribution.logits
    return scores.cpu().numpy().reshape(-1).astype(np.float64)


class TaskAgent(Agent):
    """Base of the agents that play a seat through its learner task
    (:class:`~cluegym.wrappers.seat_task.SeatTask`): the task's delegate plays the decisions the
    learner does not make, and the learner's decision is a masked choice among the task's
    choices. A subclass sets its task with :meth:`play_task` and scores choices in
    :meth:`choice_scores`; :meth:`act` does the rest once for all of them: a choice the env
    rejected is never offered again for that decision, the pick is the best legal score
    (``greedy``) or a softmax sample, and the task turns it into the env's action.
    """

    games = ("*",)
    #: Pick the best legal score; otherwise sample from the softmax of the legal scores.
    greedy: bool = True

    def play_task(self, task: SeatTask, action_space: Any, seed: int | None) -> None:
        """Play through ``task``: build its delegate and reset the per-decision bookkeeping."""
        self.task = task
        self.delegate = None
        if task.delegate is not None:
            self.delegate = make_agent(task.delegate, game=self.game, seat=self.seat, action_space=action_space,
                                       seed=seed)
        self._rejected: set[int] = set()
        self._last_choice: int | None = None
        self.counters = {"decisions": 0, "rejected": 0}

    def check_env(self, env: Any) -> None:
        """Refuse an env whose options differ from what the seat's learner task needs
        (``GameSpec.learner_env``, e.g. Dixit's captions), then ask the delegate (the harness
        calls this before any game): such an env failed every decision as an agent error.

        Raises:
            ValueError: one line naming the option and how to set it.
        """
        config = getattr(getattr(env, "unwrapped", env), "config", None)
        if isinstance(config, dict):
            for key, value in game_spec(self.game).learner_env.items():
                if key in config and config[key] != value:
                    raise ValueError(f"the {self.task_name} agent's learner task needs {key}={value!r}, the env "
                                     f"has {config[key]!r}: make the env with it (cluegym run {self.game} "
                                     f"{env_flag(key, value)})")
        if self.delegate is not None:
            self.delegate.check_env(env)

    #: How :meth:`check_env`'s errors name the agent.
    task_name: str = "policy"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.delegate is not None:
            self.delegate.reset(None if seed is None else seed + 1)
        self._rejected, self._last_choice = set(), None

    def features_and_legal(self, observation: dict[str, Any], info: dict[str, Any],
                           candidates: list[Any] | None) -> tuple[np.ndarray, np.ndarray]:
        """The features the policy reads and the legal choices (default: the task's own)."""
        return (self.task.features(observation, info, candidates),
                np.asarray(self.task.legal(observation, info, candidates), dtype=bool))

    def choice_scores(self, features: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One score per choice (higher is better) for ``features``; ``mask`` is what is legal."""
        raise NotImplementedError

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        if not self.task.learner_acts(observation, info):
            return self.delegate.act(observation, info)
        if info.get("error") and self._last_choice is not None:
            # The env turned the last choice down: never offer it again for this decision.
            self._rejected.add(self._last_choice)
            self.counters["rejected"] += 1
        else:
            self._rejected = set()
        candidates = list(self.task.candidates(observation, info))[: self.task.n_actions] if self.task.candidates else None
        features, legal = self.features_and_legal(observation, info, candidates)
        mask = legal.copy()
        mask[list(self._rejected)] = False
        if not mask.any():
            mask = legal
        scores = np.where(mask, self.choice_scores(features, mask), -np.inf)
        if self.greedy:
            choice = int(np.argmax(scores))
        else:
            probs = np.exp(scores - scores.max())
            probs /= probs.sum()
            choice = int(self.rng.choice(len(probs), p=probs))
        self._last_choice = choice
        self.counters["decisions"] += 1
        return self.task.env_action(choice, observation, info, candidates, self.delegate)

    def stats(self) -> dict[str, float]:
        return {f"policy_{k}": float(v) for k, v in self.counters.items()}


class PolicyAgent(TaskAgent):
    """A saved Stable-Baselines3 policy playing its seat (registered as ``ppo``).

    Args:
        path: the saved policy (``.zip``; its ``.json`` metadata must sit beside it).
        deterministic: pick the best legal choice (default) or sample from the policy.

    The policy may play another seat than the one it was trained for when both have the same
    role (self-play snapshots in symmetric games); otherwise the seat must match.
    """

    games = ("*",)
    task_name = "ppo"

    def __init__(self, game: str, seat: str, action_space: Any, *, path: str = "",
                 deterministic: bool = True, seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        if not path:
            raise ValueError("the ppo agent needs path=<saved policy .zip>")
        self.path = str(path)
        self.deterministic = bool(deterministic)
        self.model, self.metadata = load_policy(self.path)
        trained_game = str(self.metadata["game"]).rsplit("_v", 1)[0]
        if trained_game != game.rsplit("_v", 1)[0]:
            raise ValueError(f"policy {self.path} was trained on {trained_game!r}, not {game!r}")
        probe = cluegym.env_module(game).raw_env(**self.metadata.get("env_kwargs", {}))
        self.task = make_task(game, seat, probe, **self.metadata.get("task_options", {}))
        trained_seat = self.metadata["seat"]
        if seat != trained_seat:
            trained_role = make_task(game, trained_seat, probe, **self.metadata.get("task_options", {})).role
            if trained_role is None or trained_role != self.task.role:
                raise ValueError(f"policy {self.path} plays seat {trained_seat!r}; seat {seat!r} has another role")
        if tuple(self.model.observation_space.shape) != tuple(self.task.featurizer.observation_space.shape):
            raise ValueError(f"policy {self.path} expects features of shape {self.model.observation_space.shape}, "
                             f"the task gives {self.task.featurizer.observation_space.shape}")
        self.play_task(self.task, action_space, seed)

    @property
    def greedy(self) -> bool:  # a Q-network's values are not a distribution: always argmax
        return self.deterministic or hasattr(self.model, "q_net")

    def choice_scores(self, features: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return policy_scores(self.model, features)


class TaskRandomAgent(TaskAgent):
    """The chance level of a trained policy: a uniformly random legal choice of the seat's
    learner task, with the task's delegate playing the other decisions (registered as
    ``task-random``; e.g. a random Undercover voter that speaks like the GloVe baseline).

    The task is built with its default options (a random choice needs no features).
    """

    games = ("*",)
    task_name = "task-random"

    def __init__(self, game: str, seat: str, action_space: Any, *, seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        probe = cluegym.env_module(game).raw_env(**learner_env_options(game))  # Dixit: captions revealed
        self.play_task(make_task(game, seat, probe), action_space, seed)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        if not self.task.learner_acts(observation, info):
            return self.delegate.act(observation, info)
        candidates = list(self.task.candidates(observation, info))[: self.task.n_actions] if self.task.candidates else None
        legal = np.flatnonzero(self.task.legal(observation, info, candidates))
        choice = int(legal[int(self.rng.integers(len(legal)))])  # never empty (SeatTask.legal)
        return self.task.env_action(choice, observation, info, candidates, self.delegate)

    def stats(self) -> dict[str, float]:
        return {}  # chance needs no counters
