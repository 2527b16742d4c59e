"""A game defined only by a folder under tests/ gets everything for free once registered.

``tests/fifth_game/`` (guess the number with a hint) declares ``GAME = GameSpec(name=
"fifthgame", env=...)`` and nothing else: no baselines, no LLM adapter, no learner task, no
potential. Registered with :func:`cluegym.register_game`, it gets PettingZoo conformance,
the ``random`` and generalist ``llm`` agents, the learner view (``SelfPlayEnv``, SB3,
MaskablePPO), records that replay, and ``cluegym run``/``list``/``train``. The walk-through
is docs/adding_a_game.md.
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import cluegym
from cluegym.agents import make_agent, run_match
from cluegym.agents.llm.backends import ScriptedBackend
from cluegym.agents.llm.fake_server import FakeChatServer
from cluegym.cli import main
from cluegym.envs.core.record import replay
from cluegym.wrappers.numeric import NumericFeatures
from cluegym.wrappers.selfplay import SelfPlayEnv, make_task
from cluegym.wrappers.shaping import potential_function
from fifth_game import GAME


@pytest.fixture(scope="module", autouse=True)
def fifthgame():
    """The fifth game, registered for this module only."""
    spec = cluegym.register_game(GAME)
    yield spec
    cluegym.unregister_game(spec.id)


@pytest.fixture(autouse=True)
def _quiet_api_warnings():
    # api_test warns about Dict observations and Text spaces, which cluegym uses by design.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def binary_search_reply(request: dict) -> str:
    """A perfect LLM player: the hinter says something, the guesser halves the range."""
    prompt = request["messages"][0]["content"]
    if "Give your hint" in prompt:
        return 'My hint is ANSWER: "somewhere in the range"'
    low, high = map(int, re.search(r"the secret is from (\d+) to (\d+)\.", prompt).groups())
    return f"Halving the range. ANSWER: {(low + high) // 2}"


# ------------------------------------------------------------------------------ registry
def test_registered_like_a_built_in_game(fifthgame):
    assert fifthgame.id == "fifthgame_v0" and "fifthgame" in cluegym.registered_games()
    assert "fifthgame_v0" in cluegym.game_ids() and cluegym.game_spec("fifthgame_v0") is fifthgame
    from cluegym.envs import fifthgame_v0  # here, not at the top: it exists once the fixture registered it

    assert fifthgame_v0 is cluegym.env_module("fifthgame")
    assert cluegym.make("fifthgame", max_number="12").unwrapped.rules.config.max_number == 12
    with pytest.raises(ValueError, match="already registered"):
        cluegym.register_game(GAME)
    assert cluegym.register_game(GAME, replace=True) is GAME


def test_unregistered_game_is_unknown(fifthgame):
    cluegym.unregister_game("fifthgame")
    try:
        with pytest.raises(ValueError, match="unknown game 'fifthgame'; registered games: decrypto, dixit"):
            cluegym.make("fifthgame")
    finally:
        cluegym.register_game(fifthgame)


# --------------------------------------------------------------------------- conformance
def test_pettingzoo_api_and_seed_tests():
    api_test(cluegym.make("fifthgame"), num_cycles=60)
    seed_test(cluegym.env_module("fifthgame").env, num_cycles=60)


def test_parallel_view_for_free():
    module = cluegym.env_module("fifthgame")
    parallel_api_test(module.parallel_env(), num_cycles=60)
    parallel_seed_test(module.parallel_env, num_cycles=60)
    env = module.parallel_env()
    observations, infos = env.reset(seed=4)
    assert infos["hinter"]["acting"] and not infos["guesser"]["acting"]
    assert not observations["guesser"]["action_mask"].any()
    observations, *_ = env.step({"hinter": "rather small"})
    assert observations["guesser"]["action_mask"].all()


def test_invalid_actions_are_rejected_then_fall_back():
    env = cluegym.make("fifthgame", max_retries=1)
    env.reset(seed=0)
    env.step("about 12")
    assert env.infos["hinter"]["error"] == "a hint may not contain digits; say it in words"
    env.step("about 12")  # second rejection: the fallback hint applies
    assert env.agent_selection == "guesser" and env.observe("guesser")["hint"] == "(no hint)"
    env.step(np.int64(5))
    if env.agent_selection == "hinter":  # a wrong guess: 5 cannot be guessed again
        env.step("again")
        assert env.observe("guesser")["action_mask"][4] == 0
        env.step(5)
        assert env.infos["guesser"]["error"] == "5 was already guessed"


# -------------------------------------------------------------------------------- agents
def test_random_agents_play_and_records_replay():
    records = []
    summary = run_match("fifthgame", {"*": "random"}, games=6, seed=0, progress=False,
                        on_game=lambda index, record: records.append(record))
    assert summary["ok"] and summary["games"] == 6
    assert 0 <= summary["metrics"]["success_rate"] <= 1 and summary["metrics"]["invalid_actions"] == 0
    assert replay(records[0]) == {k: v for k, v in records[0].items() if k not in ("returns", "agent_logs")}


def test_generic_llm_agent_reads_answers_by_the_action_space():
    env = cluegym.make("fifthgame")
    env.reset(seed=1)
    hinter = make_agent("llm", game="fifthgame", seat="hinter", action_space=env.action_space("hinter"))
    hinter.backend = ScriptedBackend(['Sure. ANSWER: "a little above ten"'])
    obs, _, _, _, info = env.last()
    assert hinter.act(obs, info) == "a little above ten"
    assert hinter.backend.requests[0] == [{"role": "user", "content": obs["prompt"]}]  # the prompt, verbatim
    env.step("a little above ten")
    guesser = make_agent("llm", game="fifthgame", seat="guesser", action_space=env.action_space("guesser"))
    guesser.backend = ScriptedBackend(["It is 11 or 12.", "ANSWER: 25", "ANSWER: 11"])
    obs, _, _, _, info = env.last()
    assert guesser.act(obs, info) == 11
    reasks = [r[-1]["content"] for r in guesser.backend.requests[1:]]
    assert "several numbers (11, 12)" in reasks[0] and "from 1 to 20, got 25" in reasks[1]
    assert guesser.stats()["parse_failures"] == 2


def test_no_baseline_specialist_or_potential_where_none_is_declared():
    space = cluegym.make("fifthgame").action_space("guesser")
    with pytest.raises(ValueError, match="no embedding baseline for game 'fifthgame'"):
        make_agent("glove", game="fifthgame", seat="guesser", action_space=space)
    with pytest.raises(ValueError, match="no specialist .llm-cot. prompts for game 'fifthgame'"):
        make_agent("llm-cot", game="fifthgame", seat="guesser", action_space=space)
    with pytest.raises(ValueError, match="no reward-shaping potential for 'fifthgame'"):
        potential_function("fifthgame")


# --------------------------------------------------------------------------- learner view
def test_generic_learner_task_and_selfplay_env():
    task = make_task("fifthgame", "guesser")
    assert isinstance(task.featurizer, NumericFeatures) and task.n_actions == 20
    # round (6, one-hot) + low (20) + high (20) + action_mask (20); prompt and hint skipped
    assert task.featurizer.observation_space.shape == (66,)
    with pytest.raises(ValueError, match="seat acts with Text, not Discrete"):
        make_task("fifthgame", "hinter")
    env = SelfPlayEnv("fifthgame", "guesser")  # the hinter: the game's DEFAULT_AGENTS (random)
    check_env(env, skip_render_check=True)
    sb3_check_env(env, warn=False)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["action_mask"].all()
    _, _, terminated, _, info = env.step(6)  # index 6 is the number 7
    assert terminated or not info["action_mask"][6]
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0)
    model.learn(64)
    action, _ = model.predict(env.reset(seed=1)[0], action_masks=env.action_masks(), deterministic=True)
    assert env.action_space.contains(int(action))


def test_gymnasium_id_and_multi_agent_view():
    import gymnasium

    from cluegym.wrappers.multiseat import MultiSeatParallelEnv
    from cluegym.wrappers.registration import register_gymnasium_envs

    assert "cluegym/fifthgame-v0" in register_gymnasium_envs() + list(gymnasium.registry)
    env = gymnasium.make("cluegym/fifthgame-v0", seat="guesser")
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation) and info["action_mask"].all()
    parallel = MultiSeatParallelEnv("fifthgame", "guesser")
    observations, infos = parallel.reset(seed=0)
    assert list(observations) == ["guesser"] and observations["guesser"]["action_mask"].sum() == 20


def test_generic_task_metric_is_a_game_metric():
    task = make_task("fifthgame", "guesser", metric="success_rate")
    assert task.metric_name == "success_rate" and task.score({"success_rate": 0.25, "games": 4}) == 0.25
    with pytest.raises(ValueError, match="reports no metric 'wins'"):
        make_task("fifthgame", "guesser", metric="wins").score({"success_rate": 0.25})


# ----------------------------------------------------------------------------- the CLI
def test_cluegym_list_shows_the_game(capsys):
    assert main(["list"]) == 0
    assert "fifthgame    seats: hinter, guesser" in capsys.readouterr().out
    assert main(["list", "fifthgame"]) == 0
    out = capsys.readouterr().out
    assert "max_number: int = 20" in out and "default agents: hinter=random, guesser=random" in out


def test_cluegym_run_with_random_and_llm_agents(tmp_path, capsys):
    assert main(["run", "fifthgame", "--games", "4", "--no-progress", "--summary", str(tmp_path / "r.json")]) == 0
    summary = json.loads((tmp_path / "r.json").read_text())
    assert summary["ok"] and summary["seats"] == {"hinter": "random", "guesser": "random"}
    with FakeChatServer(binary_search_reply) as server:
        llm = f"llm:backend=openai,base_url={server.base_url},model=fake"
        code = main(["run", "fifthgame", "--agent", f"*={llm}", "--games", "3", "--no-progress",
                     "--summary", str(tmp_path / "llm.json")])
    assert code == 0
    summary = json.loads((tmp_path / "llm.json").read_text())
    assert summary["metrics"]["success_rate"] == 1.0  # halving 1..20 finds it within 5 guesses
    assert summary["agent_stats"]["guesser"]["parse_failures"] == 0 and summary["metrics"]["fallbacks"] == 0
    assert "success_rate" in capsys.readouterr().out


def test_cluegym_train_then_play_the_policy(tmp_path, capsys):
    out = tmp_path / "guesser"
    assert main(["train", "fifthgame", "--seat", "guesser", "--task", "metric=success_rate", "--steps", "64",
                 "--n-envs", "1", "--eval-games", "4", "--algo-arg", "n_steps=32", "--algo-arg", "batch_size=16",
                 "--out", str(out)]) == 0
    assert "success_rate on 4 evaluation games" in capsys.readouterr().out
    assert main(["run", "fifthgame", "--agent", f"guesser=ppo:path={out / 'policy.zip'}", "--games", "2",
                 "--no-progress"]) == 0

