"""Per-choice scoring policies: one small network scores every choice with shared weights.

A clue-game decision is a choice among items that each come with their own evidence: 24
Decrypto codes (how well each code's hint-keyword pairs match), Alice's candidate hint
triples, Undercover's players to vote for, Dixit's cards. A plain MLP must learn a separate
output for each position; a *scorer* applies the same network to every choice's features
(plus the shared context) and reads its output as that choice's logit, so what it learns
about one code holds for all of them, and it learns from far fewer games.

Featurizers that lay their vector out as ``[n_choices x per_choice | context]`` declare
``per_choice`` (features per choice); :func:`scorer_policy` then gives the SB3 policy class
and its ``policy_kwargs``. The value head stays a plain MLP over the whole vector.

Example:
    >>> policy, kwargs = scorer_policy("maskable_ppo", per_choice=5)
    >>> policy.__name__, kwargs["per_choice"]
    ('MaskableScorerPolicy', 5)
    >>> model = MaskablePPO(policy, env, policy_kwargs=kwargs)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy
from torch import nn

__all__ = ["ChoiceScorer", "ScorerPolicy", "MaskableScorerPolicy", "scorer_policy"]


class ChoiceScorer(nn.Module):
    """Logits of ``n_choices`` choices from ``[n_choices x per_choice | context]`` features.

    Args:
        n_choices: number of choices (the action space size).
        per_choice: features per choice.
        context: length of the shared context that follows the per-choice block.
        hidden: hidden width of the shared scoring MLP.
    """

    def __init__(self, n_choices: int, per_choice: int, context: int, hidden: int = 64) -> None:
        super().__init__()
        self.n_choices, self.per_choice, self.context = n_choices, per_choice, context
        self.net = nn.Sequential(nn.Linear(per_choice + context, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        # The output layer starts at zero: an untrained scorer is the uniform policy (every
        # choice equally likely), so training starts from chance, not from a lucky init.
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        block = self.n_choices * self.per_choice
        per = features[:, :block].reshape(-1, self.n_choices, self.per_choice)
        shared = features[:, block:block + self.context].unsqueeze(1).expand(-1, self.n_choices, -1)
        return self.net(torch.cat([per, shared], dim=-1)).squeeze(-1)


class _ScorerMixin:
    """Replaces the action head by a :class:`ChoiceScorer` fed with the raw features."""

    def __init__(self, *args: Any, per_choice: int = 1, scorer_hidden: int = 64, **kwargs: Any) -> None:
        self.per_choice = int(per_choice)
        self.scorer_hidden = int(scorer_hidden)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)  # type: ignore[misc]
        n_choices = int(self.action_space.n)  # type: ignore[attr-defined]
        total = int(self.features_dim)  # type: ignore[attr-defined]
        context = total - n_choices * self.per_choice
        if context < 0:
            raise ValueError(f"features of size {total} cannot hold {n_choices} choices x {self.per_choice}")
        if self.mlp_extractor.latent_dim_pi != total:  # type: ignore[attr-defined]
            raise ValueError("a scorer policy needs net_arch with pi=[] (the scorer reads the features)")
        self.action_net = ChoiceScorer(n_choices, self.per_choice, context, self.scorer_hidden)
        self.optimizer = self.optimizer_class(  # type: ignore[attr-defined]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[attr-defined]

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()  # type: ignore[misc]
        data.update(per_choice=self.per_choice, scorer_hidden=self.scorer_hidden)
        return data


class ScorerPolicy(_ScorerMixin, ActorCriticPolicy):
    """PPO/A2C policy whose action logits come from a shared per-choice scorer."""


class MaskableScorerPolicy(_ScorerMixin, MaskableActorCriticPolicy):
    """MaskablePPO policy whose action logits come from a shared per-choice scorer."""


def scorer_policy(algo: str, per_choice: int, hidden: int = 64, value_net: tuple[int, ...] = (64, 64)) -> tuple[type, dict[str, Any]]:
    """The scorer policy class for ``algo`` and its ``policy_kwargs``.

    Raises:
        ValueError: for algorithms without an actor-critic policy (DQN).
    """
    kwargs = {"per_choice": per_choice, "scorer_hidden": hidden,
              "net_arch": {"pi": [], "vf": list(value_net)}}
    if algo == "maskable_ppo":
        return MaskableScorerPolicy, kwargs
    if algo in ("ppo", "a2c"):
        return ScorerPolicy, kwargs
    raise ValueError(f"no scorer policy for {algo!r}; DQN uses an MLP Q-network")
