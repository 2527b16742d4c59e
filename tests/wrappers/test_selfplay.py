"""SelfPlayEnv: gymnasium/SB3 env checks, seeded determinism, masks, the policy pool."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from cluegym.wrappers.policy_pool import PolicyPool
from cluegym.wrappers.selfplay import SelfPlayEnv
from cluegym.wrappers.vec_env import make_vec_env
from cluegym.wrappers.shaping import PotentialShaping

OPPONENTS = {
    "alice": {"bob": "glove", "eve": "glove"},
    "bob": {"alice": "glove:k=16", "eve": "glove"},
    "eve": {"alice": "glove:k=16", "bob": "glove"},
}


@pytest.mark.parametrize("seat", ["alice", "bob", "eve"])
def test_check_env_passes_for_every_decrypto_seat(seat):
    env = SelfPlayEnv("decrypto", seat, opponents=OPPONENTS[seat], shaping=True)
    check_env(env, skip_render_check=True)
    sb3_check_env(env, warn=False)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == bool and info["action_mask"].any()


def _rollout(env, seed, steps=40):
    """Play seeded random legal choices; return everything the learner saw."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    trace = [obs.tobytes()]
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs.tobytes(), reward, terminated))
        if terminated:
            trace.append(info["game_result"]["keywords"])
            obs, _ = env.reset()
    return trace


def test_same_seed_same_games_other_seed_other_games():
    env = SelfPlayEnv("decrypto", "eve", opponents=OPPONENTS["eve"])
    first, again = _rollout(env, 3), _rollout(env, 3)
    assert first == again
    assert _rollout(env, 4) != first


def test_reset_takes_numpy_seeds_and_refuses_what_is_no_seed():
    """The game envs' seed rule and messages (Gymnasium's own check refused numpy's integers
    and raised its own Error type); a refused seed changes nothing."""
    env, twin = (SelfPlayEnv("decrypto", "eve", opponents={"alice": "random", "bob": "random"}) for _ in range(2))
    first, _ = env.reset(seed=np.int64(3))
    assert np.array_equal(first, twin.reset(seed=3)[0])
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None, got -1"):
        env.reset(seed=-1)
    for no_seed in (1.5, True, "3"):
        with pytest.raises(TypeError, match="seed must be a non-negative integer or None"):
            env.reset(seed=no_seed)
    assert np.array_equal(env.reset()[0], twin.reset()[0])
    assert env.raw.game_record() == twin.raw.game_record()  # the same game, not only the same view of it


@pytest.mark.parametrize("options, error, message", [
    ("game_seed=3", TypeError, "options must be a dict (or None), got 'game_seed=3'"),
    ({"game_seed": 1.5}, TypeError, "options['game_seed']: seed must be a non-negative integer or None, got 1.5"),
    ({"game_seed": "7"}, TypeError, "options['game_seed']: seed must be"),
    ({"game_seed": -1}, ValueError, "options['game_seed']: seed must be a non-negative integer or None, got -1"),
    ({"opponents": {"atacker": "random"}}, ValueError, "options['opponents'] names 'atacker': the seats it takes are attacker"),
    ({"opponents": {"attacker": "no-such-agent"}}, ValueError, "unknown agent 'no-such-agent'"),
    ({"opponents": {"attacker": 3}}, TypeError, "options['opponents']['attacker'] must be an agent spec"),
    ({"opponents": ["random"]}, TypeError, "options['opponents'] must be a dict of seat -> value"),
    ({"agent_seeds": {"attacker": -5}}, ValueError, "options['agent_seeds']['attacker']: seed must be"),
    ({"agent_seeds": {"nobody": 1}}, ValueError, "the seats it takes are attacker, defender"),
])
def test_reset_options_are_checked_before_anything_changes(options, error, message):
    """A bad option once failed after the game was reset (the last game lost), with numpy's
    or int()'s message, or was taken silently (a float seed, a misspelt seat)."""
    env = SelfPlayEnv("taboo", "defender", opponents={"attacker": "random"}, task_options={"speaker": "random"})
    env.reset(seed=0)
    state, pending, players = env.raw.state, env._pending, env.opponent_specs()
    with pytest.raises(error) as raised:
        env.reset(options=options)
    assert message in str(raised.value)
    assert env.raw.state is state and env._pending is pending and env.opponent_specs() == players


def test_reset_options_play_the_game_they_name_and_warn_of_a_misspelt_key():
    env, twin = (SelfPlayEnv("taboo", "defender", opponents={"attacker": "random"}, task_options={"speaker": "random"})
                 for _ in range(2))
    options = {"game_seed": 11, "agent_seeds": {"attacker": 1, "defender": 2}, "opponents": {"attacker": "glove"}}
    first, _ = env.reset(seed=0, options=options)
    assert np.array_equal(first, twin.reset(seed=5, options=options)[0]), "the options fix the game, not the seed"
    assert env.raw.game_record()["seed"] == 11 and env.opponent_specs() == {"attacker": "glove"}
    with pytest.warns(UserWarning, match="SelfPlayEnv does not read the reset option\\(s\\) 'game_sead'; its reset "
                                         "options are 'game_seed', 'agent_seeds', 'opponents'") as caught:
        env.reset(options={"game_sead": 11})
    assert caught[0].filename == __file__, "the warning names the caller's reset, not the view's code"


@pytest.mark.parametrize("game, seat", [("decrypto", "eve"), ("decrypto", "alice"), ("decrypto", "bob"),
                                        ("undercover", "player_0"), ("taboo", "defender")])
def test_a_finished_game_shows_zeros_unless_final_features(game, seat):
    """The observation that comes with ``terminated`` is zeros (no decision is pending, as in
    the multi-seat view); with ``final_features=True`` it is the task's features of the
    seat's final observation. The games themselves (rewards, results) are the same."""
    runs = {}
    for final in (False, True):
        env = SelfPlayEnv(game, seat, opponents={"*": "random"}, final_features=final)
        rng = np.random.default_rng(0)
        env.reset(seed=5)
        finals, rewards = [], []
        while len(finals) < 3:
            obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            rewards.append(reward)
            if terminated:
                assert env.observation_space.contains(obs) and info["action_mask"].all()
                expected = env.task.features(env.raw.observe(seat), env.raw.infos.get(seat, {}),
                                             [] if env.task.candidates is not None else None)
                finals.append((obs, expected))
                env.reset()
            else:
                assert obs.any()
        runs[final] = (finals, rewards)
    assert runs[False][1] == runs[True][1]
    for (zeros, expected), (featurized, again) in zip(runs[False][0], runs[True][0]):
        assert not zeros.any() and expected.any()
        np.testing.assert_array_equal(featurized, again)
        np.testing.assert_array_equal(featurized, expected)


def test_maskable_ppo_learns_the_same_with_or_without_final_features():
    """SB3 reads a terminated episode's last observation only on truncation (never here):
    the same seeded MaskablePPO run ends with the same weights either way."""
    import torch
    from sb3_contrib import MaskablePPO

    weights = {}
    for final in (False, True):
        env = make_vec_env(2, seed=0, game="decrypto", seat="eve", opponents={"*": "random"}, final_features=final)
        model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=2, seed=0, device="cpu")
        model.learn(256)
        assert model.num_timesteps == 256
        weights[final] = [p.detach().clone() for p in model.policy.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(weights[False], weights[True]))


def test_masks_never_allow_an_illegal_code():
    """Over many steps every unmasked code is legal for the env (never rejected) and every
    masked one is a code already revealed."""
    env = SelfPlayEnv("decrypto", "bob", opponents={"alice": "glove:k=16", "eve": "random"})
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(300):
        mask = env.action_masks()
        revealed = {tuple(r.code) for r in env.raw.state.history}
        for i, code in enumerate(env.raw.codes):
            assert mask[i] == (code not in revealed)
        obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert "rejected" not in info
        checked += 1
        if terminated:
            assert info["invalid_actions"] == 0
            env.reset()
    assert checked == 300


def test_a_masked_choice_is_rejected_not_applied():
    env = SelfPlayEnv("decrypto", "eve", opponents=OPPONENTS["eve"], invalid_action_penalty=-0.5)
    env.reset(seed=5)
    # play until some code is masked (revealed), then pick it
    rng = np.random.default_rng(1)
    while env.action_masks().all():
        _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated:
            env.reset()
    turn = env.raw.state.turn
    masked = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, _, info = env.step(masked)
    assert "already revealed" in info["rejected"]
    assert reward == -0.5 and not terminated
    assert env.raw.state.turn == turn and "eve" not in env.raw.state.guesses  # nothing applied
    assert info["error"] == info["rejected"]


@pytest.mark.parametrize("game, seat, task_options", [
    ("taboo", "defender", {"speaker": "random"}),  # candidates, combined with the delegate's utterance
    ("decrypto", "alice", {}),  # candidates
    ("decrypto", "eve", {}),  # the game's own codes
    ("undercover", "player_0", {"speaker": "random"}),
])
@pytest.mark.parametrize("choice", [-1, 99])
def test_a_choice_out_of_range_is_rejected_with_the_views_reason(game, seat, task_options, choice):
    """An index outside the action space changes nothing but the retry count, costs the
    penalty, and says so; Taboo's defender once took it as "no guess" and played on."""
    env = SelfPlayEnv(game, seat, opponents={"*": "random"}, task_options=task_options, invalid_action_penalty=-0.5)
    env.reset(seed=3)
    state, steps = env.raw.state, len(env.raw.game_record()["steps"])
    _, reward, terminated, _, info = env.step(choice)
    n = env.action_space.n
    assert info["rejected"] == f"choice {choice} is out of range 0..{n - 1}" == info["error"]
    assert reward == -0.5 and not terminated and env.raw.agent_selection == seat
    assert env.raw.state is state, "nothing of the game changed"
    record = env.raw.game_record()
    assert len(record["steps"]) == steps + 1 and record["steps"][-1]["error"], "the game counted one rejected move"


def test_a_choice_past_the_candidates_is_rejected_not_played():
    """A Taboo decision with 3 candidates: choice 5 is in the action space but names no
    candidate; it is rejected (not the defender's "no guess"), and a choice that names one
    plays."""
    from dataclasses import replace

    from cluegym.wrappers.selfplay import make_task

    task = make_task("taboo", "defender", speaker="random")
    offered = task.candidates
    task = replace(task, candidates=lambda observation, info: offered(observation, info)[:3])
    env = SelfPlayEnv("taboo", "defender", opponents={"*": "random"}, task=task, invalid_action_penalty=-1.0)
    _, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [True] * 3 + [False] * 5
    dialogue = len(env.raw.state.dialogue)
    _, reward, terminated, _, info = env.step(5)
    assert info["rejected"] == "choice 5 names no candidate: this decision offers choices 0..2"
    assert reward == -1.0 and not terminated and len(env.raw.state.dialogue) == dialogue
    _, reward, _, _, info = env.step(0)  # no guess: the game goes on
    assert "rejected" not in info and len(env.raw.state.dialogue) > dialogue


def test_unshaped_reward_is_reported_and_shaping_telescopes():
    """With gamma=1 the shaping terms of a whole game sum to -phi(start) (phi(end) = 0)."""
    shaping = PotentialShaping.for_game("decrypto", gamma=1.0, scale=1.0)
    env = SelfPlayEnv("decrypto", "eve", opponents=OPPONENTS["eve"], shaping=shaping)
    for seed in range(3):
        env.reset(seed=seed)
        phi0 = shaping.phi(env.raw, "eve", False)
        shaped = unshaped = 0.0
        rng = np.random.default_rng(seed)
        while True:
            _, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            shaped += reward
            unshaped += info["unshaped_reward"]
            if terminated:
                break
        assert unshaped == info["game_return"] in (-1.0, 1.0)
        assert shaped == pytest.approx(unshaped - phi0)


def test_pool_swap_draws_snapshots_for_same_role_seats(tmp_path):
    pool = PolicyPool(["glove", "random"], max_snapshots=2, latest_prob=1.0)
    rng = np.random.default_rng(0)
    assert {pool.sample(rng) for _ in range(50)} == {"glove", "random"}
    for i in range(3):
        pool.add_snapshot(str(tmp_path / f"s{i}.zip"))
    assert pool.snapshots == [f"ppo:path={tmp_path / 's1.zip'}", f"ppo:path={tmp_path / 's2.zip'}"]
    assert {pool.sample(rng) for _ in range(20)} == {f"ppo:path={tmp_path / 's2.zip'}"}
    pool.latest_prob = 0.0
    assert len({pool.sample(rng) for _ in range(200)}) == 4  # 2 fixed + 2 kept snapshots

    # Decrypto's seats all have different roles: self-play has no seat to put snapshots in.
    env = SelfPlayEnv("decrypto", "eve", opponents=OPPONENTS["eve"], selfplay=True)
    (tmp_path / "x.zip").write_bytes(b"")
    assert env.add_snapshot(str(tmp_path / "x.zip")) == []
    with pytest.raises(FileNotFoundError, match="does not exist"):  # refused though no seat would load it
        env.add_snapshot(str(tmp_path / "missing.zip"))
    # Undercover's players share one role: every other seat takes the snapshot.
    env = SelfPlayEnv("undercover", "player_0", selfplay=True, opponents={f"player_{i}": "random" for i in range(1, 5)},
                      task_options={"speaker": "random"})
    snapshot = _untrained_policy(env, tmp_path / "snap")
    assert env.add_snapshot(snapshot) == [f"player_{i}" for i in range(1, 5)]
    assert all(env.pools[s].snapshots == [f"ppo:path={snapshot}"] for s in env.pools)


def _untrained_policy(env: SelfPlayEnv, path) -> str:
    """An untrained MaskablePPO policy of ``env``'s seat, saved as training saves snapshots."""
    from sb3_contrib import MaskablePPO

    from cluegym.training.policy_agent import save_policy

    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0, device="cpu")
    metadata = {"game": env.game, "seat": env.seat, "algo": "maskable_ppo", "task_options": env.task.options}
    return str(save_policy(model, path, metadata))


def test_a_snapshot_that_cannot_play_is_refused_when_added(tmp_path):
    """A missing file, or a policy of another role, joined the pools without a word and failed
    at a later reset that drew it: in the middle of training, in a VecEnv worker."""
    env = SelfPlayEnv("undercover", "player_0", selfplay=True, opponents={"*": "random"},
                      task_options={"speaker": "random"}, max_snapshots=1)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        env.add_snapshot(str(tmp_path / "missing.zip"))
    decrypto = SelfPlayEnv("decrypto", "eve", opponents=OPPONENTS["eve"])
    foreign = _untrained_policy(decrypto, tmp_path / "eve")
    with pytest.raises(ValueError, match="was trained on 'decrypto', not 'undercover'"):
        env.add_snapshot(foreign)
    assert all(pool.snapshots == [] for pool in env.pools.values()), "no pool took either"
    first = env.add_snapshot(_untrained_policy(env, tmp_path / "s1"))
    assert first == ["player_1", "player_2", "player_3", "player_4"]
    env.reset(seed=0)
    second = _untrained_policy(env, tmp_path / "s2")
    env.add_snapshot(second)  # max_snapshots=1: the first leaves every pool, and its agents go
    held = {spec for spec, _ in env._agents}
    playing = {spec for spec, _ in env._players.values()}
    assert f"ppo:path={second}" in held
    assert (f"ppo:path={tmp_path / 's1.zip'}" in held) == (f"ppo:path={tmp_path / 's1.zip'}" in playing)


def test_opponents_are_redrawn_each_game():
    env = SelfPlayEnv("decrypto", "eve", opponents={"alice": "glove:k=16", "bob": ["glove", "random"]})
    env.reset(seed=0)
    seen = set()
    for _ in range(12):
        env.reset()
        seen.add(env.opponent_specs()["bob"])
    assert seen == {"glove", "random"}


def test_bad_arguments_fail_clearly():
    with pytest.raises(ValueError, match="no seat 'mallory'"):
        SelfPlayEnv("decrypto", "mallory")
    with pytest.raises(ValueError, match="not an opponent seat"):
        SelfPlayEnv("decrypto", "eve", opponents={"eve": "glove"})
    env = SelfPlayEnv("decrypto", "eve", opponents=OPPONENTS["eve"])
    env.reset(seed=0)
    with pytest.raises(TypeError, match="integer"):
        env.step("3-1-4")


@pytest.mark.parametrize("kwargs, error, message", [
    # each failed only at the first reset (an agent is built then), or with another function's words
    ({"opponents": {"attacker": "gloove"}}, ValueError, "unknown agent 'gloove'"),
    ({"opponents": {"attacker": "glove:kk=3"}}, ValueError, "parameter"),
    ({"task_options": {"speaker": "nobody"}}, ValueError, "unknown agent 'nobody'"),  # the delegate
    ({"opponents": {"attacker": 3}}, TypeError, "a policy pool takes an agent spec or a list of them, got 3"),
    ({"opponents": {"attacker": ["random", None]}}, TypeError, "a policy pool's entries are agent specs (str), got None"),
    ({"task_options": {"n_candidate": 4}}, ValueError,
     "taboo's learner task has no option 'n_candidate'; its options: embedding, n_candidates, speaker"),
    ({"invalid_action_penalty": "-1"}, TypeError, "invalid_action_penalty must be a number, got '-1'"),
    ({"invalid_action_penalty": float("nan")}, ValueError, "invalid_action_penalty must be finite, got nan"),
])
def test_a_bad_opponent_delegate_or_task_option_fails_when_the_env_is_built(kwargs, error, message):
    with pytest.raises(error) as raised:
        SelfPlayEnv("taboo", "defender", **kwargs)
    assert message in str(raised.value)


@pytest.mark.parametrize("vec_kind", ["dummy", "subproc"])
def test_vectorised_envs_step_in_lockstep(vec_kind, tmp_path):
    vec = make_vec_env(2, vec=vec_kind, seed=0, game="decrypto", seat="eve", opponents=OPPONENTS["eve"])
    obs = vec.reset()
    assert obs.shape == (2, vec.observation_space.shape[0])
    masks = np.stack(vec.env_method("action_masks"))
    actions = [int(np.flatnonzero(m)[0]) for m in masks]
    obs, rewards, dones, infos = vec.step(np.array(actions))
    assert obs.shape[0] == 2 and len(infos) == 2
    (tmp_path / "snap.zip").write_bytes(b"")
    assert vec.env_method("add_snapshot", str(tmp_path / "snap.zip")) == [[], []]  # decrypto: no same-role seat
    vec.close()


def test_subprocess_envs_are_forked_after_the_game_preloads(tmp_path, monkeypatch):
    """make_vec_env(vec="subproc") reads what the game reads lazily (Dixit's deck) before the
    workers are forked, so that they share it instead of each reading its own."""
    from PIL import Image  # noqa: PLC0415
    import stable_baselines3.common.vec_env as sb3_vec  # noqa: PLC0415
    from cluegym.envs.dixit.deck_options import get_deck  # noqa: PLC0415

    for i in range(30):
        Image.new("RGB", (30, 45), (i * 8, 40, 90)).save(tmp_path / f"pic{i:02d}.png")
    # Captions: the Dixit learning views reveal them (GameSpec.learner_env).
    (tmp_path / "captions.json").write_text(json.dumps({f"pic{i:02d}": f"a blue card number {i}" for i in range(30)}))
    deck = get_deck(str(tmp_path), None)
    filled_at_fork = []

    class RecordingSubprocVecEnv:  # stands for SB3's: what the deck holds when the workers would start
        def __init__(self, builders, start_method=None):
            table = deck._tables.get((24, 16))
            filled_at_fork.append((len(builders), start_method, len(table.filled) if table else 0))

        def seed(self, seed):
            return [seed]

    monkeypatch.setattr(sb3_vec, "SubprocVecEnv", RecordingSubprocVecEnv)
    make_vec_env(2, vec="subproc", seed=0, game="dixit", seat="player_0",
                 env_kwargs={"deck": str(tmp_path), "image_size": "24x16", "num_rounds": 2})
    assert filled_at_fork == [(2, "fork", len(deck))]


@pytest.mark.parametrize("worker_threads", [1, 3, None])
def test_subprocess_workers_run_torch_and_the_blas_on_their_threads(monkeypatch, worker_threads):
    """Each worker of make_vec_env(vec="subproc") shares the cores with the others: its torch
    and numpy BLAS run one thread by default (a thread per core each spun against the other
    workers), ``worker_threads`` of them when given, the libraries' own with None."""
    import stable_baselines3.common.vec_env as sb3_vec  # noqa: PLC0415
    import torch  # noqa: PLC0415
    from threadpoolctl import threadpool_info, threadpool_limits  # noqa: PLC0415

    threads_in_worker = []

    class InProcessSubprocVecEnv:  # stands for SB3's: runs a worker's builder here, as the worker would
        def __init__(self, builders, start_method=None):
            builders[0]()
            threads_in_worker.append((torch.get_num_threads(), {lib["num_threads"] for lib in threadpool_info()}))

        def seed(self, seed):
            return [seed]

    monkeypatch.setattr(sb3_vec, "SubprocVecEnv", InProcessSubprocVecEnv)
    torch_threads = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        with threadpool_limits(limits=2):  # restores this process's BLAS threads on exit
            kwargs = {} if worker_threads == 1 else {"worker_threads": worker_threads}
            make_vec_env(2, vec="subproc", seed=0, game="decrypto", seat="eve", opponents=OPPONENTS["eve"], **kwargs)
    finally:
        torch.set_num_threads(torch_threads)
    expected = worker_threads or 2  # None: the threads the process had
    assert threads_in_worker == [(expected, {expected})]


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_worker_threads_must_be_a_positive_int_or_none(bad):
    with pytest.raises(ValueError, match="worker_threads must be None or an int >= 1"):
        make_vec_env(2, vec="subproc", worker_threads=bad, game="decrypto", seat="eve")


def _scramble(value):
    """Change everything mutable in ``value`` in place (arrays too, where numpy lets it)."""
    if isinstance(value, dict):
        for item in value.values():
            _scramble(item)
        value.clear()
    elif isinstance(value, list):
        for item in value:
            _scramble(item)
        value.clear()
    elif isinstance(value, np.ndarray):
        if not value.flags.writeable and value.flags.owndata:
            value.flags.writeable = True
        if value.flags.writeable:
            value.fill(1)


def _same_info(fast, plain):
    """Equal infos; Monitor's episode time ("t") is the wall clock's."""
    assert set(fast) == set(plain)
    for key, value in plain.items():
        if key == "episode":
            assert {k: v for k, v in fast[key].items() if k != "t"} == {k: v for k, v in value.items() if k != "t"}
        elif isinstance(value, np.ndarray):
            np.testing.assert_array_equal(fast[key], value)
        else:
            assert fast[key] == value, key


@pytest.mark.parametrize("game,seat", [("decrypto", "eve"), ("taboo", "defender")])
def test_vectorised_infos_are_copies_that_share_nothing_with_the_envs(game, seat):
    """make_vec_env's DummyVecEnv copies each step's infos and their arrays instead of SB3's
    deep copy: the same stream as SB3's own buffers give, and a caller that scrambles every
    info and observation it gets changes nothing that follows."""
    from collections import OrderedDict

    kwargs = dict(seed=3, game=game, seat=seat, opponents={"*": "random"})
    fast, plain = make_vec_env(2, **kwargs), make_vec_env(2, **kwargs)
    plain.buf_infos, plain.buf_obs = list(plain.buf_infos), OrderedDict(plain.buf_obs)  # SB3's deep copies
    np.testing.assert_array_equal(fast.reset(), plain.reset())
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        masks = np.stack(plain.env_method("action_masks"))
        np.testing.assert_array_equal(np.stack(fast.env_method("action_masks")), masks)
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        (obs, rewards, dones, infos), expected = fast.step(actions), plain.step(actions)
        np.testing.assert_array_equal(obs, expected[0])
        np.testing.assert_array_equal(rewards, expected[1])
        np.testing.assert_array_equal(dones, expected[2])
        for i, (info, plain_info) in enumerate(zip(infos, expected[3])):
            _same_info(info, plain_info)
            assert info is not fast.buf_infos[i] and info["action_mask"] is not fast.buf_infos[i]["action_mask"]
        ended += int(dones.sum())
        obs.fill(1)
        for info in infos:
            _scramble(info)
    assert ended >= 4  # finished games' results went through the copies
    fast.close()
    plain.close()
