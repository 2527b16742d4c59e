"""Trained RLlib policies as cluegym agents: ``rllib:path=runs/x/checkpoint,policy=shared``.

An RLlib run (:mod:`cluegym.training.rllib_engine`) saves Algorithm checkpoints (RLlib's own
layout, resumable with ``Algorithm.from_checkpoint``) and writes :data:`METADATA_FILE` beside
them: the game, the learning seats, which policy plays which seat, the seat tasks' options and
the padded sizes of the multi-seat learning view
(:class:`~cluegym.wrappers.multiseat.MultiSeatEnv`). :class:`RLlibAgent` loads one policy's
RLModule from ``CHECKPOINT/learner_group/learner/rl_module/<policy>``, rebuilds its seat's task
from the metadata, pads the features and the mask exactly as the learning view does, and plays
the masked argmax of the module's logits: always a legal choice. Loading needs ``ray[rllib]``
but no running Ray.

Example:
    cluegym run undercover --agent 'player_0=rllib:path=runs/uc/checkpoint' --agent '*=glove:infer=false'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

import cluegym
from cluegym.training.policy_agent import TaskAgent, read_metadata
from cluegym.wrappers.seat_task import make_task

__all__ = ["METADATA_FILE", "MODULES_DIR", "RLlibAgent", "load_rllib_module", "read_checkpoint_metadata",
           "choose_policy", "module_logits"]

#: The cluegym metadata written into every checkpoint folder of an RLlib run.
METADATA_FILE = "cluegym_policies.json"
#: Where an Algorithm checkpoint keeps one RLModule per policy (RLlib 2.x new API stack).
MODULES_DIR = Path("learner_group", "learner", "rl_module")

#: Loaded modules by (module folder, mtime of its state in ns): a checkpoint saved again reloads.
_LOADED: dict[tuple[str, int], Any] = {}
#: Game envs that only tell sizes and options, by (game, options as JSON): a match builds its
#: agents for every game, and building an env (its Text spaces) costs more than a game's votes.
_PROBES: dict[tuple[str, str], Any] = {}


def _probe_env(game: str, env_kwargs: dict[str, Any]) -> Any:
    """A raw env of ``game`` with ``env_kwargs``, for sizes only (never stepped; cached)."""
    key = (game, json.dumps(env_kwargs, sort_keys=True, default=str))
    if key not in _PROBES:
        _PROBES[key] = cluegym.env_module(game).raw_env(**env_kwargs)
    return _PROBES[key]


def read_checkpoint_metadata(path: str | Path) -> dict[str, Any]:
    """The cluegym metadata of an RLlib checkpoint folder.

    Raises:
        FileNotFoundError: ``path`` is not a checkpoint of ``cluegym train --engine rllib``.
    """
    meta = Path(path) / METADATA_FILE
    if not meta.is_file():
        raise FileNotFoundError(f"{str(path)!r} is not an RLlib checkpoint of cluegym train --engine rllib "
                                f"(no {METADATA_FILE} in it)")
    return read_metadata(meta, ("game", "policies", "roles", "feature_size", "n_actions"), "RLlib policy metadata")


def load_rllib_module(checkpoint: str | Path, policy: str) -> Any:
    """The RLModule of ``policy`` in an Algorithm checkpoint, on CPU, in eval mode (cached).

    Raises:
        FileNotFoundError: the checkpoint holds no module ``policy`` (the message lists them).
    """
    # Deferred on purpose: ray[rllib] is an optional, heavy dependency (cluegym[rllib]).
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as exc:
        raise ImportError("the rllib agent needs RLlib: pip install 'cluegym[rllib]'") from exc

    folder = Path(checkpoint) / MODULES_DIR / policy
    state = folder / "module_state.pkl"
    if not state.is_file():
        found = sorted(p.name for p in (Path(checkpoint) / MODULES_DIR).glob("*") if p.is_dir())
        raise FileNotFoundError(f"checkpoint {str(checkpoint)!r} has no policy {policy!r}; "
                                f"it has: {', '.join(found) or 'none'}")
    key = (str(folder.resolve()), state.stat().st_mtime_ns)
    if key not in _LOADED:
        module = RLModule.from_checkpoint(str(folder.resolve()))  # Ray reads a relative path as a URI
        module.eval()
        if len(_LOADED) > 32:
            _LOADED.clear()
        _LOADED[key] = module
    return _LOADED[key]


def module_logits(module: Any, features: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The module's masked action logits for one padded observation (``-inf`` where masked)."""
    import torch  # deferred: heavy; loaded when a policy first plays

    batch = {"obs": {"observations": torch.as_tensor(features, dtype=torch.float32).reshape(1, -1),
                     "action_mask": torch.as_tensor(mask, dtype=torch.float32).reshape(1, -1)}}
    with torch.no_grad():
        logits = module.forward_inference(batch)["action_dist_inputs"]
    return np.where(mask.astype(bool), logits.cpu().numpy().reshape(-1).astype(np.float64), -np.inf)


def choose_policy(metadata: dict[str, Any], seat: str, policy: str | None, game: str) -> str:
    """The policy that plays ``seat``: ``policy`` when given; else the one trained in that seat;
    else the only one with ``seat``'s role (self-play snapshots play same-role seats).

    Raises:
        ValueError: an unknown policy, or none (or several) that can play ``seat``.
    """
    policies: dict[str, str] = metadata["policies"]  # learning seat -> policy id
    known = sorted(set(policies.values()))
    if policy:
        if policy not in known:
            raise ValueError(f"checkpoint has no policy {policy!r}; policies: {', '.join(known)}")
        return policy
    if seat in policies:
        return policies[seat]
    probe = _probe_env(game, metadata.get("env_kwargs", {}))
    role = make_task(game, seat, probe, **metadata.get("task_options", {})).role
    same_role = sorted({pid for s, pid in policies.items() if role is not None and metadata["roles"].get(s) == role})
    if len(same_role) == 1:
        return same_role[0]
    raise ValueError(f"the checkpoint's policies ({', '.join(known)}) were trained in seats "
                     f"{', '.join(policies)}; name the one to play {seat!r} with policy=ID")


class RLlibAgent(TaskAgent):
    """A policy of an RLlib checkpoint playing its seat (registered as ``rllib``).

    Args:
        path: the checkpoint folder (``runs/x/checkpoint`` or ``runs/x/checkpoints/iter_N``).
        policy: the policy id; default: the policy trained in this seat, else the only one
            with this seat's role.
        deterministic: pick the best legal choice (default) or sample from the policy.
    """

    games = ("*",)
    task_name = "rllib"

    def __init__(self, game: str, seat: str, action_space: Any, *, path: str = "", policy: str = "",
                 deterministic: bool = True, seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        if not path:
            raise ValueError("the rllib agent needs path=<checkpoint folder of cluegym train --engine rllib>")
        self.path = str(path)
        self.metadata = read_checkpoint_metadata(self.path)
        trained_game = str(self.metadata["game"]).rsplit("_v", 1)[0]
        if trained_game != game.rsplit("_v", 1)[0]:
            raise ValueError(f"checkpoint {self.path} was trained on {trained_game!r}, not {game!r}")
        self.policy = choose_policy(self.metadata, seat, policy or None, game)
        self.deterministic = bool(deterministic)
        probe = _probe_env(game, self.metadata.get("env_kwargs", {}))
        self.task = make_task(game, seat, probe, **self.metadata.get("task_options", {}))
        self.feature_size, self.n_actions = int(self.metadata["feature_size"]), int(self.metadata["n_actions"])
        own = int(np.prod(self.task.featurizer.observation_space.shape))
        if own > self.feature_size or self.task.n_actions > self.n_actions:
            raise ValueError(f"seat {seat!r} has {own} features and {self.task.n_actions} choices; policy "
                             f"{self.policy!r} takes {self.feature_size} and {self.n_actions}")
        self.module = load_rllib_module(self.path, self.policy)
        self.play_task(self.task, action_space, seed)

    @property
    def greedy(self) -> bool:
        return self.deterministic

    def features_and_legal(self, observation: dict[str, Any], info: dict[str, Any],
                           candidates: list[Any] | None) -> tuple[np.ndarray, np.ndarray]:
        """Features and legal mask padded to the learning view's sizes (as it pads them)."""
        vector = np.zeros(self.feature_size, dtype=np.float32)
        values = np.asarray(self.task.features(observation, info, candidates), dtype=np.float32).reshape(-1)
        vector[: values.size] = values
        mask = np.zeros(self.n_actions, dtype=bool)
        legal = self.task.legal(observation, info, candidates)
        mask[: legal.size] = legal  # never empty (SeatTask.legal)
        return vector, mask

    def choice_scores(self, features: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return module_logits(self.module, features, mask)
