"""The per-choice scorer as an RLlib module: action masking plus one network scoring every choice.

The RLlib twin of :mod:`cluegym.training.policies` (the SB3 scorer policies): when every
learning seat's featurizer lays its vector out as ``[n_choices x per_choice | context]``
(``per_choice`` declared), :class:`ScorerMaskingTorchRLModule` replaces the actor's MLP by a
:class:`~cluegym.training.policies.ChoiceScorer` reading the raw features, so what the policy
learns about one choice (a player to vote for, a code) holds for all of them. The value
network stays RLlib's MLP; masking is RLlib's ``ActionMaskingTorchRLModule``'s.

Example:
    >>> import gymnasium as gym
    >>> import numpy as np
    >>> import torch
    >>> from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    >>> spec = RLModuleSpec(module_class=ScorerMaskingTorchRLModule,
    ...                     model_config={"fcnet_hiddens": [64, 64], "per_choice": 11, "feature_size": 59})
    >>> spec.observation_space = gym.spaces.Dict({  # 5 choices x 11 features + 4 of context
    ...     "action_mask": gym.spaces.Box(0, 1, (5,), np.float32),
    ...     "observations": gym.spaces.Box(-np.inf, np.inf, (59,), np.float32)})
    >>> spec.action_space = gym.spaces.Discrete(5)
    >>> module = spec.build()
    >>> type(module.pi).__name__, module.pi.n_choices, module.pi.per_choice, module.pi.context
    ('ChoiceScorer', 5, 11, 4)
    >>> batch = {"obs": {"action_mask": torch.tensor([[1.0, 1.0, 0.0, 1.0, 0.0]]), "observations": torch.zeros(1, 59)}}
    >>> logits = module.forward_inference(batch)["action_dist_inputs"]
    >>> (logits > -1e9).tolist()  # the masked choices get (almost) minus infinity
    [[True, True, False, True, False]]
"""

from __future__ import annotations

from typing import Any

# Deferred on purpose is not possible here: this module *is* an RLlib module class. It is only
# imported by the RLlib engine and by RLlib when it rebuilds a checkpoint's module.
from ray.rllib.core.columns import Columns
from ray.rllib.core.models.base import ENCODER_OUT
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from torch import nn

from cluegym.training.policies import ChoiceScorer

__all__ = ["ScorerMaskingTorchRLModule"]


class _RawFeatures(nn.Module):
    """An actor 'encoder' that hands the observation vector on unchanged (the scorer reads it)."""

    def forward(self, batch: dict[str, Any]) -> dict[str, Any]:
        return {ENCODER_OUT: batch[Columns.OBS]}


class ScorerMaskingTorchRLModule(ActionMaskingTorchRLModule):
    """PPO with action masking whose action logits come from a shared per-choice scorer.

    ``model_config`` needs ``per_choice`` (features per choice) and ``feature_size`` (length of
    the observation vector); ``scorer_hidden`` (default 64) sets the scorer's width.
    """

    def setup(self) -> None:
        super().setup()
        per_choice, total = int(self.model_config["per_choice"]), int(self.model_config["feature_size"])
        n_choices = int(self.action_space.n)
        context = total - n_choices * per_choice
        if context < 0:
            raise ValueError(f"features of size {total} cannot hold {n_choices} choices x {per_choice}")
        self.encoder.actor_encoder = _RawFeatures()
        self.pi = ChoiceScorer(n_choices, per_choice, context, int(self.model_config.get("scorer_hidden", 64)))
