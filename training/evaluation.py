"""Evaluating a learner: an agent in the learner's seat on the same seeded games every time.

Every evaluation (each checkpoint, each baseline) plays ``config.eval_games`` games with match
seed ``config.eval_seed`` against the same opponents, so the numbers compare directly. The
number a run reports and plots is its task's metric (:attr:`SeatTask.metric
<cluegym.wrappers.seat_task.SeatTask.metric>`, e.g. Eve's interception rate); a task without
one (the generic task of a game that declares only its env) is measured by the learning seat's
mean episode return, :data:`MEAN_RETURN`.

Example:
    >>> from cluegym.wrappers.seat_task import make_task
    >>> config = TrainConfig("decrypto", "eve", opponents={"alice": ["glove"], "bob": ["glove"]}, eval_games=10)
    >>> task = make_task("decrypto", "eve")
    >>> metric = evaluation_metric(task); metric
    'interception_rate'
    >>> round(evaluate_agent(config, "glove", task=task)[metric], 3)
    0.465
    >>> round(evaluate_agent(config, "random", task=task)[metric], 3)
    0.05
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

import cluegym
from cluegym.agents import make_agent, run_match
from cluegym.harness.seats import check_agents_fit
from cluegym.training.config import TrainConfig
from cluegym.wrappers.seat_task import SeatTask

__all__ = ["MEAN_RETURN", "EvaluationError", "check_evaluation_specs", "checked_evaluation", "evaluation_metric",
           "evaluation_opponents", "evaluate_agent", "evaluate_policy", "evaluation_row"]

#: The metric of a task that names none: the learning seat's mean (unshaped) episode return.
MEAN_RETURN = "mean_return"


class EvaluationError(RuntimeError):
    """An evaluation match that did not play as asked: a game errored, or a seat's agent failed
    every decision (so a fallback played it). Its numbers would describe other games, or
    another player, than the run reports."""


def check_evaluation_specs(game: str, learner_seats: Iterable[str], baselines: Iterable[str],
                           opponents: Mapping[str, str], env_kwargs: Mapping[str, Any] | None = None) -> None:
    """Raise unless every baseline can play every learner seat and every evaluation opponent
    its seat, in the game the evaluations play (``env_kwargs``).

    Each agent is built once here, as its evaluation builds it (a saved policy loads, an
    embedding's vectors load once per process), so a policy file that is missing or plays
    another seat or role fails too, and the env is offered to each (``check_env``). A run calls
    this before it touches its folder, so a mistake fails at once, not at the first evaluation
    after minutes of training.

    Raises:
        ValueError: an evaluation opponent for a seat the game lacks or for a learner's own
            seat (its agent is the one evaluated: the opponent replaced it in every match), or
            an agent that cannot be built or cannot play the env (:class:`AgentSpecError` for
            a bad spec).

    Example:
        >>> check_evaluation_specs("decrypto", ["eve"], ["random", "glove"], {"alice": "glove:k=16"})
    """
    seats = list(learner_seats)
    env = cluegym.env_module(game).env(**dict(env_kwargs or {}))
    learning = [seat for seat in opponents if seat in seats]
    if learning:
        raise ValueError(f"evaluation opponents name the learning seat(s) {', '.join(learning)}: the evaluated "
                         f"agent plays them")
    unknown = [seat for seat in opponents if seat not in env.possible_agents]
    if unknown:
        raise ValueError(f"evaluation opponents name seat(s) {', '.join(map(repr, unknown))} that {game} lacks; "
                         f"its seats: {', '.join(env.possible_agents)}")
    for spec, seat in [*((spec, seat) for spec in baselines for seat in seats), *((s, o) for o, s in opponents.items())]:
        agent = make_agent(spec, game=game, seat=seat, action_space=env.action_space(seat))
        check_agents_fit(env, {seat: agent})
    env.close()


def checked_evaluation(summary: dict[str, Any], what: str) -> dict[str, Any]:
    """``summary`` (a :func:`~cluegym.harness.run_match` summary) when the match played as
    asked, else :class:`EvaluationError` naming ``what`` was evaluated, the match's problems
    and the first errored game's error.

    Example:
        >>> checked_evaluation({"ok": False, "problems": ["1 of 2 games errored"],
        ...                     "errored_games": {"games": [{"index": 1, "error": "ValueError: x"}]}}, "random")
        Traceback (most recent call last):
        cluegym.training.evaluation.EvaluationError: evaluating random: 1 of 2 games errored (game 1: ValueError: x)
    """
    if not summary["ok"]:
        errored = summary["errored_games"]["games"]
        first = f" (game {errored[0]['index']}: {errored[0]['error']})" if errored else ""
        raise EvaluationError(f"evaluating {what}: {'; '.join(summary['problems'])}{first}")
    return summary


def evaluation_metric(task: SeatTask) -> str:
    """The name of the number training reports for ``task``: its metric, else :data:`MEAN_RETURN`.

    Example:
        >>> from cluegym.wrappers.seat_task import generic_task, make_task
        >>> evaluation_metric(make_task("decrypto", "eve"))
        'interception_rate'
        >>> evaluation_metric(generic_task("decrypto", "eve"))  # a task without a metric
        'mean_return'
    """
    return task.metric_name or MEAN_RETURN


def evaluation_opponents(config: TrainConfig) -> dict[str, str]:
    """Seat -> spec of the other seats in evaluation games (default: each pool's first spec)."""
    if config.eval_opponents is not None:
        return dict(config.eval_opponents)
    return {seat: specs[0] for seat, specs in config.opponents.items() if specs}


def evaluate_agent(config: TrainConfig, spec: str, games: int | None = None,
                   task: SeatTask | None = None) -> dict[str, Any]:
    """Metrics of agent ``spec`` in the learner's seat on the evaluation games.

    Args:
        config: the run (game, seat, opponents, evaluation games and seed, game options).
        spec: the agent spec playing the learner's seat.
        games: games to play (default ``config.eval_games``).
        task: with a task, its evaluation metric (:func:`evaluation_metric`) is added to the
            game's metrics under its name.

    Returns:
        The game's ``metrics()`` over those games, plus the task's metric.

    Raises:
        EvaluationError: a game errored, or a seat's agent failed every decision: no number is
            reported for games other than those asked for.
    """
    seats = {config.seat: spec, **evaluation_opponents(config)}
    results: list[dict[str, Any]] = []
    summary = run_match(config.game, seats, games=games or config.eval_games, seed=config.eval_seed,
                        env_kwargs=config.env_kwargs, progress=False,
                        on_game=lambda index, record: results.append(record["result"]))
    checked_evaluation(summary, f"{spec} in {config.seat}")
    metrics = dict(summary["metrics"])
    if task is not None and task.metric is not None:
        metrics[task.metric_name] = task.score(metrics, results)
    elif task is not None:
        metrics[MEAN_RETURN] = float(summary["mean_return"][config.seat])
    return metrics


def evaluate_policy(config: TrainConfig, path: str | Path, games: int | None = None,
                    task: SeatTask | None = None) -> dict[str, Any]:
    """Metrics of a saved policy (played as ``ppo:path=...``) on the evaluation games."""
    return evaluate_agent(config, f"ppo:path={path}", games, task)


def evaluation_row(config: TrainConfig, task: SeatTask, path: Path, steps: int, minutes: float) -> dict[str, Any]:
    """One curve point: the saved policy at ``path`` on the evaluation games, numbers only.

    Prints a progress line when ``config.progress``.
    """
    metrics = evaluate_policy(config, path, task=task)
    row = {"steps": steps, "train_minutes": minutes,
           **{k: v for k, v in metrics.items() if isinstance(v, (int, float))}}
    if config.progress:
        metric = evaluation_metric(task)
        print(f"[{config.game}/{config.seat}] step {steps:>7}  {metric} {row[metric]:.3f}"
              f"  ({minutes:.1f} min training)", flush=True)
    return row
