"""A game that declares only its env trains without ``--task metric=``: the seat's mean return.

The test-only fifth game (tests/fifth_game) names no learner task, so the guesser plays the
generic task, which has no metric unless asked for one. Training then evaluates, plots and
prints the guesser's mean episode return as ``mean_return``.
"""

from __future__ import annotations

import csv
import json
import math

import pytest

import cluegym
from cluegym.agents import run_match
from cluegym.cli import main
from cluegym.training.evaluation import MEAN_RETURN, evaluate_agent, evaluation_metric
from cluegym.training.train import TrainConfig, learner_task
from fifth_game import GAME


@pytest.fixture(scope="module", autouse=True)
def fifthgame():
    """The fifth game, registered for this module only."""
    spec = cluegym.register_game(GAME)
    yield spec
    cluegym.unregister_game(spec.id)


def test_a_task_without_metric_is_evaluated_by_the_seats_mean_return():
    config = TrainConfig("fifthgame", "guesser", opponents={"hinter": ["random"]}, eval_games=6, eval_seed=2,
                         progress=False)
    task = learner_task(config)
    assert task.metric is None and evaluation_metric(task) == MEAN_RETURN
    metrics = evaluate_agent(config, "random", task=task)
    direct = run_match("fifthgame", {"guesser": "random", "hinter": "random"}, games=6, seed=2, progress=False)
    assert metrics[MEAN_RETURN] == pytest.approx(direct["mean_return"]["guesser"])
    assert MEAN_RETURN not in evaluate_agent(config, "random", task=None)  # no task: the game's metrics only
    named = TrainConfig("fifthgame", "guesser", opponents={"hinter": ["random"]}, eval_games=6, eval_seed=2,
                        task_options={"metric": "success_rate"}, progress=False)
    assert evaluation_metric(learner_task(named)) == "success_rate"


def test_cli_train_without_task_metric_reports_mean_return(tmp_path, capsys):
    out = tmp_path / "guesser"
    code = main(["train", "fifthgame", "--seat", "guesser", "--steps", "64", "--n-envs", "1", "--eval-games", "6",
                 "--eval-seed", "4", "--eval-every", "1000", "--baseline", "random", "--algo-arg", "n_steps=32",
                 "--algo-arg", "batch_size=16", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "mean_return on 6 evaluation games (seed 4):" in printed
    assert "the guesser seat's mean episode return" in printed

    summary = json.loads((out / "summary.json").read_text())
    assert summary["metric"] == MEAN_RETURN
    assert [point["steps"] for point in summary["curve"]] == [0, 64]
    values = [point[MEAN_RETURN] for point in summary["curve"]] + [summary["baselines"]["random"]]
    assert all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values)  # a guesser's return: found (1) or not (0)
    with (out / "eval.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [float(row[MEAN_RETURN]) for row in rows] == [point[MEAN_RETURN] for point in summary["curve"]]
    assert (out / "curve.png").is_file()

    # The table's numbers are real: the saved policy and the baseline replayed on the same games.
    policy = run_match("fifthgame", {"guesser": f"ppo:path={out / 'policy.zip'}", "hinter": "random"},
                       games=6, seed=4, progress=False)
    assert summary["final"][MEAN_RETURN] == pytest.approx(policy["mean_return"]["guesser"])
    baseline = run_match("fifthgame", {"guesser": "random", "hinter": "random"}, games=6, seed=4, progress=False)
    assert summary["baselines"]["random"] == pytest.approx(baseline["mean_return"]["guesser"])
