"""What one training run is: :class:`TrainConfig`, the algorithms' defaults, a policy's metadata.

Example:
    >>> cfg = TrainConfig("decrypto", "eve", steps=30_000, opponents={"alice": ["glove:k=16"]})
    >>> cfg.out
    'runs/decrypto-eve-maskable_ppo-s0'
"""

from __future__ import annotations

import numbers
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import cluegym
from cluegym.envs.core.text import is_integer
from cluegym.harness.runner import check_count
from cluegym.harness.seeding import check_match_seed
from cluegym.training.policy_agent import ALGORITHMS
from cluegym.wrappers.seat_task import learner_env_options
from cluegym.wrappers.shaping import check_shaping_scale

__all__ = ["ALGO_VALUE_RULES", "DEFAULT_ALGO_KWARGS", "RUN_OUTPUTS", "TrainConfig", "check_algo_values",
           "check_run_seeds", "claim_run_folder", "earlier_run_outputs", "policy_metadata"]

#: Defaults per algorithm, tuned for these small feature vectors (overridable per run).
DEFAULT_ALGO_KWARGS: dict[str, dict[str, Any]] = {
    "maskable_ppo": {"n_steps": 256, "batch_size": 256, "n_epochs": 10, "learning_rate": 1e-3,
                     "ent_coef": 0.01, "gamma": 0.99, "policy_kwargs": {"net_arch": [64, 64]}},
    "ppo": {"n_steps": 256, "batch_size": 256, "n_epochs": 10, "learning_rate": 1e-3,
            "ent_coef": 0.01, "gamma": 0.99, "policy_kwargs": {"net_arch": [64, 64]}},
    "a2c": {"n_steps": 16, "learning_rate": 1e-3, "gamma": 0.99, "policy_kwargs": {"net_arch": [64, 64]}},
    "dqn": {"learning_rate": 1e-3, "buffer_size": 50_000, "learning_starts": 1_000, "batch_size": 64,
            "gamma": 0.99, "train_freq": 4, "target_update_interval": 1_000, "exploration_fraction": 0.3,
            "policy_kwargs": {"net_arch": [64, 64]}},
}


def _number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)



#: What each value must be, by the words an error says it in.
_VALUE_KINDS: dict[str, Callable[[Any], bool]] = {
    "a number > 0": lambda v: _number(v) and v > 0,
    "a number >= 0": lambda v: _number(v) and v >= 0,
    "a number in [0, 1]": lambda v: _number(v) and 0 <= v <= 1,
    "an integer >= 1": lambda v: is_integer(v) and v >= 1,
    "an integer >= 0": lambda v: is_integer(v) and v >= 0,
    "an object of keyword arguments": lambda v: isinstance(v, dict),
}

#: The numeric arguments of the training algorithms (SB3's PPO, MaskablePPO, A2C and DQN, and
#: RLlib's PPO: their names differ but for ``gamma``) and what each must be. The libraries take
#: most of these unchecked: ``gamma="x"``, ``n_epochs=0`` or ``batch_size=0`` failed in the
#: first update, after the run had claimed its folder and evaluated its baselines, and
#: ``gamma=1.5``, ``gae_lambda=2`` or ``clip_range=-1`` trained on without a word.
ALGO_VALUE_RULES: dict[str, str] = {
    "learning_rate": "a number > 0", "lr": "a number > 0",
    "gamma": "a number in [0, 1]", "gae_lambda": "a number in [0, 1]", "lambda_": "a number in [0, 1]",
    "n_steps": "an integer >= 1", "batch_size": "an integer >= 1", "n_epochs": "an integer >= 1",
    "train_batch_size_per_learner": "an integer >= 1", "minibatch_size": "an integer >= 1",
    "num_epochs": "an integer >= 1",
    "clip_range": "a number > 0", "clip_range_vf": "a number > 0", "clip_param": "a number > 0",
    "vf_clip_param": "a number > 0",
    "ent_coef": "a number >= 0", "entropy_coeff": "a number >= 0", "vf_coef": "a number >= 0",
    "vf_loss_coeff": "a number >= 0", "kl_coeff": "a number >= 0", "kl_target": "a number > 0",
    "max_grad_norm": "a number > 0", "grad_clip": "a number > 0", "target_kl": "a number > 0",
    "buffer_size": "an integer >= 1", "learning_starts": "an integer >= 0", "target_update_interval": "an integer >= 1",
    "exploration_fraction": "a number in [0, 1]", "exploration_initial_eps": "a number in [0, 1]",
    "exploration_final_eps": "a number in [0, 1]", "tau": "a number in [0, 1]",
    "policy_kwargs": "an object of keyword arguments",
}


def check_algo_values(algo_kwargs: Mapping[str, Any]) -> None:
    """Raise ValueError unless each value of :data:`ALGO_VALUE_RULES` in ``algo_kwargs`` is
    what it must be (``None``, where the library takes it as "off", and schedules, callables in
    SB3 and lists in RLlib, are left to the library, as are names not in the table).

    Example:
        >>> check_algo_values({"gamma": 0.95, "n_epochs": 4})
        >>> check_algo_values({"gamma": "x"})
        Traceback (most recent call last):
        ValueError: algo_kwargs (--algo-arg): gamma must be a number in [0, 1], got 'x'
    """
    for name, value in algo_kwargs.items():
        kind = ALGO_VALUE_RULES.get(name)
        if kind is None or value is None or callable(value) or isinstance(value, (list, tuple)):
            continue
        if not _VALUE_KINDS[kind](value):
            raise ValueError(f"algo_kwargs (--algo-arg): {name} must be {kind}, got {value!r}")


def check_counts(config: Any, names: Iterable[str]) -> None:
    """Raise unless each attribute ``names`` of ``config`` is an integer >= 1 (a float such as
    ``steps=2.5`` was cut to 2 and ``True`` read as 1), as a match checks its counts
    (:func:`~cluegym.harness.runner.check_count`: TypeError for no integer, ValueError under 1).

    Example:
        >>> import types
        >>> check_counts(types.SimpleNamespace(steps=2.5), ["steps"])
        Traceback (most recent call last):
        TypeError: steps must be an integer >= 1, got 2.5
    """
    for name in names:
        check_count(name, getattr(config, name))


def check_run_seeds(seed: Any, eval_seed: Any, library: str) -> None:
    """Raise unless a training run's ``seed`` and ``eval_seed`` are match seeds and ``seed``
    is below 2**32, the most numpy's legacy global generator takes (``library`` seeds it with
    ``seed``; the error says so).

    Example:
        >>> check_run_seeds(0, 10_000, "RLlib")
        >>> check_run_seeds(2**32, 0, "RLlib")
        Traceback (most recent call last):
        ValueError: seed must be below 2**32 (RLlib seeds numpy's global generator with it), got 4294967296
    """
    check_match_seed(seed, "seed")
    check_match_seed(eval_seed, "eval_seed")
    if seed >= 2**32:
        raise ValueError(f"seed must be below 2**32 ({library} seeds numpy's global generator with it), got {seed}")


#: What a run of either engine writes in its folder; a folder holding any of them (or a
#: TensorBoard ``events.out.tfevents.*`` file) holds an earlier run.
RUN_OUTPUTS = ("config.json", "summary.json", "policy.zip", "policy.json", "checkpoint", "checkpoints", "snapshots",
               "eval.csv", "progress.csv", "curve.png", "table.md")


def earlier_run_outputs(out: str | Path) -> list[str]:
    """The names in ``out`` that an earlier run wrote (:data:`RUN_OUTPUTS`), sorted."""
    folder = Path(out)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir()
                  if p.name in RUN_OUTPUTS or p.name.startswith("events.out.tfevents."))


def claim_run_folder(out: str | Path, overwrite: bool) -> Path:
    """Make ``out`` the folder of a new run, once everything the run was told is checked.

    A folder holding an earlier run is refused unless ``overwrite``: mixing two runs leaves a
    ``config.json`` that does not describe the ``policy.zip`` beside it, checkpoints of both
    runs in one curve's folder, and (RLlib self-play) the earlier run's snapshots in the new
    run's opponent pools, so the same seed no longer plays the same games. With ``overwrite``
    the earlier run's outputs are deleted; other files in the folder are left alone.

    Raises:
        FileExistsError: ``out`` holds an earlier run and ``overwrite`` is false.

    Example:
        >>> folder = claim_run_folder("runs/decrypto-eve-maskable_ppo-s0", overwrite=False); folder
        PosixPath('runs/decrypto-eve-maskable_ppo-s0')
        >>> _ = (folder / "policy.zip").write_bytes(b"")  # as if a run had finished there
        >>> claim_run_folder(folder, overwrite=False)
        Traceback (most recent call last):
        FileExistsError: runs/decrypto-eve-maskable_ppo-s0 holds an earlier run (policy.zip);
        choose another folder (--out) or replace that run (--overwrite)
        >>> claim_run_folder(folder, overwrite=True); earlier_run_outputs(folder)
        PosixPath('runs/decrypto-eve-maskable_ppo-s0')
        []
    """
    folder = Path(out)
    earlier = earlier_run_outputs(folder)
    if earlier and not overwrite:
        raise FileExistsError(f"{folder} holds an earlier run ({', '.join(earlier)}); choose another folder "
                              "(--out) or replace that run (--overwrite)")
    for name in earlier:
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass
class TrainConfig:
    """Everything one training run needs (saved with the run as ``config.json``).

    Attributes:
        game, seat: what to learn.
        algo: ``maskable_ppo`` (default), ``ppo``, ``a2c`` or ``dqn``.
        steps: learner env steps (decisions) to train; rounded up to the algorithm's update
            granularity (:func:`~cluegym.training.schedule.update_granularity`), as the run says.
        n_envs: parallel envs; ``vec`` ``"dummy"`` (one process) or ``"subproc"``.
        opponents: seat -> agent specs forming its pool (default: the game's DEFAULT_AGENTS).
        selfplay: put learner snapshots into same-role seats' pools.
        snapshot_every, max_snapshots: snapshot period (env steps) and pool size.
        eval_every, eval_games, eval_seed: evaluation period, games and match seed.
        eval_opponents: seat -> spec for evaluation (default: each pool's first spec).
        baselines: agent specs evaluated in the learner's seat on the same games, for the
            curve's reference lines and the summary table (e.g. ``["glove", "random"]``).
        shaping: potential-based shaping scale (0: off, the default).
        invalid_action_penalty: reward for a rejected action.
        task_options, env_kwargs: the seat task's and the game's options (the game's
            learner defaults filled in: ``GameSpec.learner_env``; a task without a
            metric of its own is evaluated by the seat's mean episode return, ``"mean_return"``;
            the generic task takes ``metric=<a game metric>``).
        algo_kwargs: overrides of :data:`DEFAULT_ALGO_KWARGS`.
        seed: seeds the model and the envs (0 <= seed < 2**32).
        out: run folder (default ``runs/<game>-<seat>-<algo>-s<seed>``).
        overwrite: replace an earlier run in ``out`` (else a folder holding one is refused:
            :func:`claim_run_folder`).
        tensorboard: also log for TensorBoard (needs the ``tensorboard`` package).
        torch_threads: torch CPU threads (1 is fastest for these small networks).
        scorer: when the featurizer lays out per-choice features, score every choice with
            one shared network (:mod:`cluegym.training.policies`; PPO family); else an MLP.
        progress: print evaluation lines while training.
    """

    game: str
    seat: str
    algo: str = "maskable_ppo"
    steps: int = 50_000
    n_envs: int = 4
    vec: str = "dummy"
    opponents: dict[str, list[str]] = field(default_factory=dict)
    selfplay: bool = False
    snapshot_every: int = 10_000
    max_snapshots: int = 5
    eval_every: int = 10_000
    eval_games: int = 100
    eval_seed: int = 12_345
    eval_opponents: dict[str, str] | None = None
    baselines: list[str] = field(default_factory=list)
    shaping: float = 0.0
    invalid_action_penalty: float = 0.0
    task_options: dict[str, Any] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    algo_kwargs: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    out: str = ""
    overwrite: bool = False
    tensorboard: bool = False
    progress: bool = True
    scorer: bool = True
    torch_threads: int = 1

    def __post_init__(self) -> None:
        if self.algo not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algo!r}; choose from {', '.join(ALGORITHMS)}")
        check_counts(self, ("steps", "n_envs", "snapshot_every", "max_snapshots", "eval_every", "eval_games"))
        check_run_seeds(self.seed, self.eval_seed, "Stable-Baselines3")
        self.shaping = check_shaping_scale(self.shaping)  # nan trained on nan rewards until the first update failed
        check_algo_values(self.algo_kwargs)
        if self.vec not in ("dummy", "subproc"):
            raise ValueError(f"vec must be 'dummy' or 'subproc', got {self.vec!r}")
        self.opponents = {seat: [specs] if isinstance(specs, str) else list(specs)
                          for seat, specs in self.opponents.items()}
        # The game's learner defaults filled in here, so the saved policy's metadata and the
        # evaluation matches play the game the learner trained on (Dixit: captions revealed).
        self.env_kwargs = learner_env_options(self.game, self.env_kwargs)
        self.out = self.out or f"runs/{self.game}-{self.seat}-{self.algo}-s{self.seed}"


def policy_metadata(config: TrainConfig, steps: int) -> dict[str, Any]:
    """What a saved policy's ``.json`` records: enough to rebuild its seat task and game."""
    return {"game": config.game, "seat": config.seat, "algo": config.algo, "steps": steps,
            "task_options": config.task_options, "env_kwargs": config.env_kwargs,
            "opponents": config.opponents, "seed": config.seed, "cluegym": cluegym.__version__}
