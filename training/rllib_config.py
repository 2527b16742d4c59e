"""What one RLlib run is: :class:`RLlibTrainConfig`, its policies, PPO's defaults, checkpoint metadata.

Policies (``--policies``), over the learning seats (``--seats``):

- ``shared``: one policy (id ``"shared"``) plays every learning seat;
- ``per-seat``: one policy per learning seat (id = the seat);
- ``per-role``: one policy per seat-task role (id = the role; e.g. Decrypto's ``bob`` and
  ``eve`` differ, Undercover's players all share the role ``player``); a seat without a role
  gets a policy of its own.

Example:
    >>> cfg = RLlibTrainConfig("decrypto", seats=["bob", "eve"], policies="per-seat",
    ...                        opponents={"alice": ["glove:k=16"]}, steps=20_000)
    >>> cfg.out
    'runs/decrypto-bob+eve-rllib-s0'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import cluegym
from cluegym.training.config import check_algo_values, check_counts, check_run_seeds
from cluegym.wrappers.seat_task import learner_env_options
from cluegym.wrappers.shaping import check_shaping_scale, potential_function

__all__ = ["POLICY_MODES", "DEFAULT_PPO_KWARGS", "RLlibTrainConfig", "SeatPolicyMap", "policy_ids",
           "checkpoint_metadata"]

#: The ``--policies`` choices.
POLICY_MODES = ("shared", "per-seat", "per-role")

#: PPO defaults for these small feature vectors (``PPOConfig.training`` keywords; overridable
#: per run with ``--algo-arg``). ``train_batch_size_per_learner`` env steps make one iteration.
DEFAULT_PPO_KWARGS: dict[str, Any] = {
    "lr": 1e-3, "gamma": 0.99, "lambda_": 0.95, "train_batch_size_per_learner": 512, "minibatch_size": 128,
    "num_epochs": 8, "entropy_coeff": 0.01, "vf_loss_coeff": 0.5, "clip_param": 0.2,
}
#: Hidden layers of each policy's MLP (the value network gets its own, same sizes).
DEFAULT_HIDDEN = (64, 64)


@dataclass
class RLlibTrainConfig:
    """Everything one RLlib run needs (saved with the run as ``config.json``).

    Attributes:
        game: registered game name.
        seats: the learning seats (``["bob", "eve"]``) or ``"all"``.
        policies: ``shared``, ``per-seat`` or ``per-role`` (module docstring).
        steps: env steps to sample (one step = one learning seat's decision), rounded up to
            whole iterations of ``train_batch_size_per_learner`` steps.
        opponents: seat -> agent specs, the pool that seat draws from each game (``"*"``: every
            non-learning seat not named; default: the game's default agents).
        selfplay: snapshots of the learner join the pools of non-learning seats that share a
            learning seat's role, playing that seat's policy.
        snapshot_every, max_snapshots: env steps between snapshots, snapshots kept per pool.
        eval_every, eval_games, eval_seed: evaluation period (env steps), games and match seed.
        eval_opponents: seat -> spec of the non-learning seats in evaluation (default: each
            pool's first spec).
        baselines: agent specs evaluated in every learning seat on the same games.
        invalid_action_penalty: reward for a choice the game rejects.
        shaping: potential-based reward shaping scale from the game's potential, with PPO's
            ``gamma`` (0: off, the default); evaluation always plays the unshaped game.
        task_options, env_kwargs: the seat tasks' and the game's options (the game's
            learner defaults filled in: ``GameSpec.learner_env``).
        algo_kwargs: overrides of :data:`DEFAULT_PPO_KWARGS`, plus ``fcnet_hiddens`` (a list).
        num_env_runners: RLlib env runner processes (0: sample in the driver).
        ray_address: Ray cluster to join (``HOST:PORT``, ``auto``), or ``local``: a Ray of
            this machine on 127.0.0.1, started for the run.
        scorer: score every choice with one shared network (:mod:`.rllib_scorer`) when every
            learning seat's features are laid out per choice alike; else (or False) an MLP.
        seed: seeds RLlib (networks, env runners' env seeds); 0 <= seed < 2**32.
        out: run folder.
        overwrite: replace an earlier run in ``out`` (else a folder holding one is refused:
            :func:`~cluegym.training.config.claim_run_folder`).
        progress: print a line per evaluation.
    """

    game: str
    seats: list[str] | str = "all"
    policies: str = "shared"
    steps: int = 20_000
    opponents: dict[str, list[str]] = field(default_factory=dict)
    selfplay: bool = False
    snapshot_every: int = 5_000
    max_snapshots: int = 5
    eval_every: int = 5_000
    eval_games: int = 100
    eval_seed: int = 12_345
    eval_opponents: dict[str, str] | None = None
    baselines: list[str] = field(default_factory=list)
    invalid_action_penalty: float = 0.0
    shaping: float = 0.0
    task_options: dict[str, Any] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    algo_kwargs: dict[str, Any] = field(default_factory=dict)
    num_env_runners: int = 0
    ray_address: str = "local"
    scorer: bool = True
    seed: int = 0
    out: str = ""
    overwrite: bool = False
    progress: bool = True

    def __post_init__(self) -> None:
        cluegym.env_module(self.game)  # an unknown game: ValueError naming the registered ones
        # The game's learner defaults filled in (Dixit: captions revealed), as TrainConfig does.
        self.env_kwargs = learner_env_options(self.game, self.env_kwargs)
        if self.policies not in POLICY_MODES:
            raise ValueError(f"policies must be one of {', '.join(POLICY_MODES)}, got {self.policies!r}")
        check_counts(self, ("steps", "snapshot_every", "max_snapshots", "eval_every", "eval_games"))
        check_run_seeds(self.seed, self.eval_seed, "RLlib")
        check_algo_values(self.algo_kwargs)
        hidden = self.algo_kwargs.get("fcnet_hiddens", DEFAULT_HIDDEN)
        if not isinstance(hidden, (list, tuple)) or not all(isinstance(h, int) and not isinstance(h, bool)
                                                             and h >= 1 for h in hidden):
            raise ValueError(f"algo_kwargs (--algo-arg): fcnet_hiddens must be a list of layer sizes >= 1, "
                             f"e.g. [64, 64], got {hidden!r}")
        self.shaping = check_shaping_scale(self.shaping)
        if self.shaping:
            potential_function(self.game)  # a game without a potential: ValueError now, not in a runner
        if int(self.num_env_runners) < 0:
            raise ValueError(f"num_env_runners must be >= 0, got {self.num_env_runners}")
        if isinstance(self.seats, str) and self.seats != "all":
            self.seats = [s.strip() for s in self.seats.split(",") if s.strip()]
        self.opponents = {seat: [specs] if isinstance(specs, str) else list(specs)
                          for seat, specs in self.opponents.items()}
        seats = "all" if self.seats == "all" else "+".join(self.seats)
        self.out = self.out or f"runs/{self.game}-{seats}-rllib-s{self.seed}"


def policy_ids(seats: list[str], roles: Mapping[str, str | None], mode: str) -> dict[str, str]:
    """Learning seat -> policy id for a ``--policies`` mode (module docstring).

    Example:
        >>> policy_ids(["bob", "eve"], {"bob": "bob", "eve": "eve"}, "shared")
        {'bob': 'shared', 'eve': 'shared'}
    """
    if mode == "shared":
        return {seat: "shared" for seat in seats}
    if mode == "per-seat":
        return {seat: seat for seat in seats}
    if mode == "per-role":
        return {seat: roles.get(seat) or seat for seat in seats}
    raise ValueError(f"policies must be one of {', '.join(POLICY_MODES)}, got {mode!r}")


class SeatPolicyMap:
    """RLlib's ``policy_mapping_fn``: a learning seat's policy id (a picklable callable, sent
    to every env runner).

    Example:
        >>> SeatPolicyMap({"bob": "bob", "eve": "eve"})("eve", None)
        'eve'
    """

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self.mapping = dict(mapping)

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        return self.mapping[agent_id]


def checkpoint_metadata(config: RLlibTrainConfig, view: Any, mapping: Mapping[str, str], steps: int) -> dict[str, Any]:
    """What a checkpoint's ``cluegym_policies.json`` records: enough for the ``rllib`` agent to
    rebuild each seat's task and pad its features as the learning view did.

    Args:
        config: the run.
        view: the run's :class:`~cluegym.wrappers.multiseat.MultiSeatEnv` (sizes, tasks).
        mapping: learning seat -> policy id.
        steps: env steps the checkpoint was trained on.
    """
    return {"engine": "rllib", "game": config.game, "seats": list(view.possible_agents), "policies": dict(mapping),
            "policy_mode": config.policies, "roles": {seat: task.role for seat, task in view.tasks.items()},
            "feature_size": int(view.feature_size), "n_actions": int(view.n_actions), "steps": int(steps),
            "task_options": config.task_options, "env_kwargs": config.env_kwargs, "opponents": config.opponents,
            "seed": config.seed, "cluegym": cluegym.__version__}
