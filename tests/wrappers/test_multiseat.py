"""The multi-agent learning view: PettingZoo conformance, padding, masks, bots, and Gymnasium ids."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import cluegym
from cluegym.wrappers.multiseat import MultiSeatEnv, MultiSeatParallelEnv
from cluegym.wrappers.registration import gymnasium_id
from fifth_game import GAME

#: (game, learning seats, opponents): cheap setups of every game with a learner task.
SETUPS = [
    ("decrypto", "bob,eve", {"alice": "random"}),
    ("undercover", "all", {}),
    ("fifthgame", "guesser", {"hinter": "random"}),
]


@pytest.fixture(scope="module", autouse=True)
def fifthgame():
    spec = cluegym.register_game(GAME)
    yield spec
    cluegym.unregister_game(spec.id)


@pytest.fixture(autouse=True)
def _quiet_api_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _first_legal(observation: dict) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


@pytest.mark.parametrize("game, learners, opponents", SETUPS)
def test_aec_and_parallel_conformance(game, learners, opponents):
    def make():
        return MultiSeatEnv(game, learners, opponents=opponents)

    api_test(make(), num_cycles=200)
    seed_test(make, num_cycles=100)
    parallel_api_test(MultiSeatParallelEnv(game, learners, opponents=opponents), num_cycles=200)
    parallel_seed_test(lambda: MultiSeatParallelEnv(game, learners, opponents=opponents), num_cycles=100)


@pytest.mark.parametrize("game, learners, opponents", SETUPS)
def test_identical_padded_spaces_and_legal_masks(game, learners, opponents):
    env = MultiSeatEnv(game, learners, opponents=opponents)
    first = env.possible_agents[0]
    for seat in env.possible_agents:  # Tianshou needs one space for every learning seat
        assert env.observation_space(seat) == env.observation_space(first)
        assert env.action_space(seat) == env.action_space(first)
    env.reset(seed=3)
    decisions, result = 0, None
    for seat in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            result = info["game_result"]
            env.step(None)
            continue
        assert observation["action_mask"].any() and env.observation_space(seat).contains(observation)
        task_choices = env.tasks[seat].n_actions
        assert not observation["action_mask"][task_choices:].any(), "padded choices are masked"
        decisions += 1
        env.step(_first_legal(observation))
    assert decisions > 0
    assert result["invalid_actions"] == 0, "legal choices are never rejected"


def test_a_masked_choice_is_rejected_then_asked_again():
    env = MultiSeatEnv("fifthgame", "guesser", opponents={"hinter": "random"}, invalid_action_penalty=-0.5)
    env.reset(seed=0)
    first = _first_legal(env.observe("guesser"))
    env.step(first)
    if env.terminations["guesser"]:
        pytest.skip("found on the first guess")
    assert env.observe("guesser")["action_mask"][first] == 0
    env.step(first)  # guessed already: masked, and the game rejects it
    assert env.agent_selection == "guesser" and "already guessed" in env.infos["guesser"]["rejected"]
    assert env.rewards["guesser"] == -0.5


@pytest.mark.parametrize("choice, reason", [
    (10, "choice 10 is out of range 0..7"),  # a padded choice: Eve's codes make the space 24 wide
    (30, "choice 30 is out of range 0..7"),  # outside the space too
])
def test_a_choice_the_seat_does_not_have_is_rejected_with_the_views_reason(choice, reason):
    env = MultiSeatEnv("decrypto", "alice,eve", opponents={"bob": "random"}, invalid_action_penalty=-0.5)
    env.reset(seed=0)
    assert env.agent_selection == "alice" and env.action_space("alice").n == 24
    state = env.game_env.state
    env.step(choice)
    assert env.agent_selection == "alice" and env.infos["alice"]["rejected"] == reason
    assert env.rewards["alice"] == -0.5 and env.game_env.state is state


def test_parallel_block_decides_together():
    env = MultiSeatParallelEnv("decrypto", "bob,eve", opponents={"alice": "random"})
    observations, infos = env.reset(seed=1)
    assert infos["bob"]["acting"] and infos["eve"]["acting"], "Bob and Eve guess without seeing each other"
    actions = {seat: _first_legal(observations[seat]) for seat in env.agents}
    _, _, _, _, infos = env.step(actions)
    assert infos["bob"]["acting"] and infos["eve"]["acting"]


@pytest.mark.parametrize("bad", ["x", None, 1.5, True])
def test_parallel_block_with_a_wrong_type_applies_nothing(bad):
    """A wrong type at the block's second seat raises before the first seat's choice is
    played (it once was played, and the next step then ignored both seats' choices)."""
    env = MultiSeatParallelEnv("decrypto", "bob,eve", opponents={"alice": "random"})
    env.reset(seed=1)
    game = env.aec.game_env
    with pytest.raises(TypeError, match="eve: action must be an integer"):
        env.step({"bob": 0, "eve": bad})
    assert game.agent_selection == "bob" and not game.state.guesses, "nothing applied"
    _, _, _, _, infos = env.step({"bob": 0, "eve": 99})
    assert game.state.guesses.get("bob") is not None, "bob's choice is played"
    assert infos["eve"]["rejected"] == "choice 99 is out of range 0..23"


def test_parallel_view_names_no_seat_clearly():
    """A name that is no learning seat: the spaces raised a bare KeyError, and an action for
    it (a typo, or a bot's seat) was ignored; now UnknownSeatError, with nothing applied."""
    from cluegym.envs.core import UnknownSeatError

    env = MultiSeatParallelEnv("decrypto", "bob,eve", opponents={"alice": "random"})
    observations, _ = env.reset(seed=1)
    for call in ("observation_space", "action_space"):
        for name in ("alice", ["bob"]):
            with pytest.raises(UnknownSeatError, match="decrypto's multi-seat view has no seat"):
                getattr(env, call)(name)
    actions = {seat: _first_legal(observations[seat]) for seat in env.agents}
    before = env.aec.game_env.game_record()
    with pytest.raises(UnknownSeatError, match="decrypto's multi-seat view has no seat 'alice'; seats: bob, eve"):
        env.step({**actions, "alice": 0})
    assert env.aec.game_env.game_record() == before
    env.step(actions)
    assert env.aec.game_env.game_record() != before


def test_parallel_and_aec_views_play_the_same_games():
    def play_aec(seed):
        env = MultiSeatEnv("undercover", "all")
        env.reset(seed=seed)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else _first_legal(observation))
        return env.game_env.game_record()

    def play_parallel(seed):
        env = MultiSeatParallelEnv("undercover", "all")
        observations, infos = env.reset(seed=seed)
        while env.agents:
            actions = {s: _first_legal(observations[s]) for s in env.agents if infos[s]["acting"]}
            observations, _, _, _, infos = env.step(actions)
        return env.aec.game_env.game_record()

    for seed in range(2):
        assert play_aec(seed) == play_parallel(seed)


def test_unknown_learning_seat_is_a_clear_error():
    with pytest.raises(ValueError, match="decrypto has no seat"):
        MultiSeatEnv("decrypto", "bob,mallory")
    with pytest.raises(ValueError, match="not a non-learning seat"):
        MultiSeatEnv("decrypto", "bob,eve", opponents={"eve": "random"})


def test_the_default_learners_name_the_seats_that_can_learn_when_a_seat_cannot():
    """``MultiSeatEnv("taboo")`` learns every seat by default, and Taboo's attacker has no task:
    the error was the task's own, which did not say to name the defender."""
    with pytest.raises(ValueError, match=r"'attacker' has none; every seat learns by default \('all'\): .*: defender$"):
        MultiSeatEnv("taboo")
    assert MultiSeatEnv("taboo", "defender").possible_agents == ["defender"]
    with pytest.raises(ValueError, match="'attacker' has none$"):  # named by the user: as it is
        MultiSeatEnv("taboo", "attacker,defender")
    with pytest.raises(ValueError, match="has no option 'bogus'; its options"):  # no seat builds: as it is
        MultiSeatEnv("taboo", task_options={"bogus": 1})


@pytest.mark.parametrize("call", ["observe", "features", "action_space", "observation_space"])
def test_a_name_that_is_no_learning_seat_is_a_clear_error(call):
    """observe("nobody") returned a zero vector and its mask (as for a learning seat with no
    decision), the spaces a bare KeyError; a non-learning seat of the game is no seat here."""
    from cluegym.envs.core import UnknownSeatError

    env = MultiSeatEnv("decrypto", "bob,eve", opponents={"alice": "random"})
    env.reset(seed=0)
    for name in ("nobody", "alice"):
        with pytest.raises(UnknownSeatError, match=f"decrypto's multi-seat view has no seat '{name}'; seats: bob, eve"):
            getattr(env, call)(name)
    # An unhashable name too (observe raised a bare TypeError from the seat check's lookup)
    with pytest.raises(UnknownSeatError, match=r"decrypto's multi-seat view has no seat \['bob'\]; seats: bob, eve"):
        getattr(env, call)(["bob"])


def test_a_reset_with_a_seed_that_is_no_seed_changes_nothing():
    """A negative or float seed raises before the view starts a game (numpy's message for
    -1, a float truncated before): the next reset() plays what it would have."""
    def make() -> MultiSeatEnv:
        return MultiSeatEnv("decrypto", "bob,eve", opponents={"alice": "random"})

    env, twin = make(), make()
    env.reset(seed=4)
    twin.reset(seed=4)
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None, got -1"):
        env.reset(seed=-1)
    with pytest.raises(TypeError, match="got 1.5"):
        env.reset(seed=1.5)
    env.reset()
    twin.reset()
    assert env.game_env.game_record() == twin.game_env.game_record()


@pytest.mark.parametrize("view", [MultiSeatEnv, MultiSeatParallelEnv])
def test_reset_options_are_no_dict_refused_and_unread_ones_warned_of(view):
    env = view("decrypto", "bob,eve", opponents={"alice": "random"})
    env.reset(seed=0)
    game = env.game_env if view is MultiSeatEnv else env.aec.game_env
    state = game.state
    with pytest.raises(TypeError, match="options must be a dict \\(or None\\), got 'game_seed=3'"):
        env.reset(options="game_seed=3")
    assert game.state is state, "nothing changed"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=1, options={})  # RLlib's and Tianshou's empty options: no warning
        with pytest.warns(UserWarning, match="the multi-seat view does not read the reset option\\(s\\) 'game_seed'; "
                                             "its reset options are none") as caught:
            env.reset(options={"game_seed": 3})
        assert caught[0].filename == __file__, "the warning names the caller's reset, not the view's code"


@pytest.mark.parametrize("kwargs, error, message", [
    ({"observation_key": 3}, ValueError, "observation_key must be a name other than 'action_mask', got 3"),
    ({"observation_key": "action_mask"}, ValueError, "other than 'action_mask'"),  # it hid the mask
    ({"invalid_action_penalty": True}, TypeError, "invalid_action_penalty must be a number, got True"),
])
def test_bad_view_arguments_fail_clearly(kwargs, error, message):
    with pytest.raises(error) as raised:
        MultiSeatEnv("decrypto", "bob,eve", opponents={"alice": "random"}, **kwargs)
    assert message in str(raised.value)


def test_gymnasium_make_builds_the_learner_view():
    import cluegym.wrappers  # noqa: F401 - registers the ids

    assert gymnasium_id("decrypto") == "cluegym/decrypto-v0"
    env = gymnasium.make("cluegym/decrypto-v0", seat="eve", opponents={"alice": "random", "bob": "random"})
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation) and info["action_mask"].any()
    with pytest.raises(ValueError, match="needs seat=one of alice, bob, eve"):
        gymnasium.make("cluegym/decrypto-v0")
    env = gymnasium.make("cluegym.wrappers:cluegym/undercover-v0", seat="player_0")
    assert isinstance(env.action_space, gymnasium.spaces.Discrete)


@pytest.mark.parametrize("game, learners, opponents", SETUPS)
def test_terminate_illegal_wrapper_works_unchanged(game, learners, opponents):
    """PettingZoo's TerminateIllegalWrapper reads obs["action_mask"][action]: legal choices
    play a whole game; a masked choice ends it with the illegal reward for that seat."""
    from pettingzoo.utils.wrappers import TerminateIllegalWrapper

    env = TerminateIllegalWrapper(MultiSeatEnv(game, learners, opponents=opponents), illegal_reward=-1)
    env.reset(seed=0)
    steps = 0
    for seat in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else _first_legal(observation))
        steps += 1
    assert steps > len(env.possible_agents), "a legal game runs to its end"
    assert all(reward > -1 for reward in env.rewards.values())

    env.reset(seed=0)
    for seat in env.agent_iter():  # legal choices until a decision has a masked one
        observation, _, terminated, truncated, _ = env.last()
        assert not (terminated or truncated), "no decision with a masked choice"
        masked = np.flatnonzero(observation["action_mask"] == 0)
        if len(masked):
            env.step(int(masked[0]))
            break
        env.step(_first_legal(observation))
    assert env.terminations[seat] and env.rewards[seat] == -1


@pytest.mark.parametrize("game, task_options, env_kwargs", [
    ("decrypto", {}, {}),
    ("undercover", {"speaker": "random"}, {}),
    ("dixit", {"player": "random"}, {"reveal_captions": True, "num_rounds": 2, "image_size": [16, 16]}),
])
def test_every_learner_step_gives_float_rewards_that_sum_to_the_game_return(game, task_options, env_kwargs):
    """Every seat learning, random moves: after each learner's step every reward is a float
    (its zeros too), and each seat's rewards over a game add up to its ``game_return`` and to
    what the game env itself gave it (tallied at each of its steps)."""
    env = MultiSeatEnv(game, "all", opponents={"*": "random"}, task_options=task_options, env_kwargs=env_kwargs)
    game_env, tally = env.game_env, {}
    game_step = game_env.step

    def step(action):
        game_step(action)
        for seat in tally:
            tally[seat] += float(game_env.rewards.get(seat, 0.0))

    game_env.step = step
    rng = np.random.default_rng(0)
    rewarded = 0
    for seed in range(4):
        tally.update(dict.fromkeys(env.possible_agents, 0.0))
        env.reset(seed=seed)  # the game's reset and first moves: rewards tallied from here
        totals = dict.fromkeys(env.possible_agents, 0.0)
        returns = None
        for seat in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            totals[seat] += reward  # what the seat gained since it last acted
            if terminated or truncated:
                returns = info["game_return"]
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            assert all(type(value) is float for value in env.rewards.values()), env.rewards
            rewarded += any(env.rewards.values())
        assert returns is not None and totals == pytest.approx(returns) and returns == pytest.approx(tally)
    assert rewarded  # some steps did reward a seat
