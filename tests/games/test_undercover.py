"""Undercover: rules by scripted games (ties, eliminations, wins, timeouts), hidden roles and
votes, invalid descriptions and votes with their fallbacks, the rules protocol's verbs alone
and its simultaneous votes, conformance, and a seeded golden playthrough (belief reports and
metrics: test_undercover_beliefs.py; options and word pairs: test_undercover_config.py)."""

from __future__ import annotations

import json
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import cluegym
from cluegym.envs.core.record import digest, replay, transcript
from cluegym.envs.undercover import env as undercover_env
from cluegym.envs.undercover.config import SILENCE, UndercoverConfig
from cluegym.envs.undercover.env import UndercoverEnv, raw_env
from cluegym.envs.undercover.rules import UndercoverRules
from random_play import random_agents, start_game

GOLDEN = Path(__file__).parent / "golden" / "undercover_seed3.txt"
# Civilians player_0, player_1, player_2 ("bee"); undercover player_3, player_4 ("butterfly").
WORDS = ["bee", "butterfly"]
UNDERCOVER = [3, 4]


def new_env(seed: int = 0, **kwargs) -> UndercoverEnv:
    env = raw_env(**kwargs)
    env.reset(seed=seed, options={"words": WORDS, "undercover": UNDERCOVER})
    return env


def idx(seat: str) -> int:
    return int(seat.rsplit("_", 1)[1])


def speak_round(env: UndercoverEnv, text: str = "It lives near flowers.") -> list[str]:
    """Every living player speaks; returns the speaking order."""
    order = []
    while env.state.phase == "speak":
        seat = env.agent_selection
        order.append(seat)
        env.step({"description": text, "vote": 0, "beliefs": ""})
        assert "error" not in env.infos[seat], env.infos[seat]
    return order


def vote_round(env: UndercoverEnv, votes: dict[int, int]) -> None:
    """Every living player votes; ``votes`` maps voter index -> target index."""
    assert env.state.phase == "vote"
    while env.state.phase == "vote":
        seat = env.agent_selection
        env.step({"description": "", "vote": votes[idx(seat)], "beliefs": ""})
        assert "error" not in env.infos[seat], env.infos[seat]


def test_deal_hidden_roles_and_words():
    env = new_env()
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    for i, seat in enumerate(env.possible_agents):
        obs = env.observe(seat)
        assert obs["word"] == ("butterfly" if i in UNDERCOVER else "bee")
        other = "bee" if i in UNDERCOVER else "butterfly"
        assert other not in obs["prompt"]
        assert "Your secret word is '" + obs["word"] + "'" in obs["prompt"]
        assert not any(key in obs for key in ("role", "roles"))
        assert obs["team_sizes"].tolist() == [3, 2]
    # seeded deals: the word pair side and the undercover seats are drawn at random
    deals = set()
    for seed in range(12):
        e = raw_env()
        e.reset(seed=seed)
        deals.add((e.state.undercover_word, tuple(r == "undercover" for r in e.state.roles)))
    assert len(deals) > 6


def test_speaking_order_is_shuffled_each_round_and_votes_in_seat_order():
    env = new_env(seed=1)
    orders = []
    for _ in range(3):
        orders.append(speak_round(env))
        assert sorted(orders[-1]) == env.possible_agents
        voters = []
        while env.state.phase == "vote":
            voters.append(env.agent_selection)
            env.step({"vote": (idx(env.agent_selection) + 1) % 5})  # a 5-cycle: a tie
        assert voters == env.possible_agents
    assert len({tuple(o) for o in orders}) > 1


def test_votes_are_hidden_until_everyone_voted():
    env = new_env()
    speak_round(env)
    before = env.observe("player_4")
    env.step({"vote": 3})
    env.step({"vote": 3})
    during = env.observe("player_4")
    assert (during["votes"] == -1).all() and "->" not in during["prompt"]
    # the votes are simultaneous: a voter's view (not even a count of the votes) does not
    # change while the others vote, and it is asked for its vote all along
    assert digest(during) == digest(before) and "Vote for the player" in during["prompt"]
    assert "you have voted" in env.observe("player_0")["prompt"]
    env.step({"vote": 3})
    env.step({"vote": 0})
    env.step({"vote": 0})
    after = env.observe("player_4")
    assert after["votes"][0].tolist() == [3, 3, 3, 0, 0]
    assert "player_0 -> player_3" in after["prompt"]
    assert env.infos["player_0"]["last_round"]["eliminated"] == "player_3"


def test_tie_eliminates_nobody():
    env = new_env()
    speak_round(env)
    vote_round(env, {0: 3, 1: 3, 2: 4, 3: 4, 4: 1})  # 2-2-1
    assert all(env.state.alive)
    assert env.state.round == 1 and env.state.phase == "speak"
    assert "a tie, nobody was eliminated" in env.observe("player_0")["prompt"]
    assert env.game_record()["steps"][-1]["events"][-1]["eliminated"] is None


def test_civilians_win_when_all_undercover_out_and_eliminated_players_sit_out():
    env = new_env()
    speak_round(env)
    vote_round(env, {0: 3, 1: 3, 2: 3, 3: 0, 4: 0})
    assert env.state.alive == [True, True, True, False, True]
    assert "player_3" in env.agents  # stays until the game ends
    order = speak_round(env)
    assert "player_3" not in order
    assert env.observe("player_3")["eliminated_round"][3] == 0
    assert "You were eliminated in round 1" in env.observe("player_3")["prompt"]
    vote_round(env, {0: 4, 1: 4, 2: 4, 4: 0})
    assert env.state.winner == "civilians" and env.state.end_reason == "undercover_eliminated"
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {
        "player_0": 1.0, "player_1": 1.0, "player_2": 1.0, "player_3": -1.0, "player_4": -1.0,
    }
    result = env.game_record()["result"]
    assert result["rounds"] == 2 and [e["player"] for e in result["eliminated"]] == ["player_3", "player_4"]
    assert result["roles"]["player_4"] == "undercover" and result["words"] == {"civilian": "bee", "undercover": "butterfly"}
    for _ in list(env.agents):
        env.step(None)
    assert env.agents == []


def test_undercover_win_when_one_civilian_left():
    env = new_env()
    speak_round(env)
    vote_round(env, {0: 1, 1: 0, 2: 0, 3: 0, 4: 0})
    speak_round(env)
    vote_round(env, {1: 2, 2: 1, 3: 1, 4: 1})
    assert env.state.winner == "undercover" and env.state.end_reason == "one_civilian_left"
    assert env._cumulative_rewards["player_0"] == -1.0 and env._cumulative_rewards["player_3"] == 1.0
    assert "the undercover players won" in env.observe("player_2")["prompt"]


@pytest.mark.parametrize("timeout_winner, rewards", [
    ("civilians", (1.0, -1.0)), ("undercover", (-1.0, 1.0)), ("none", (0.0, 0.0)),
])
def test_timeout(timeout_winner, rewards):
    env = new_env(max_rounds=2, timeout_winner=timeout_winner)
    for _ in range(2):
        speak_round(env)
        vote_round(env, {0: 1, 1: 0, 2: 3, 3: 4, 4: 2})  # 1 vote each: a tie
    assert env.state.end_reason == "timeout"
    assert env.state.winner == (None if timeout_winner == "none" else timeout_winner)
    assert env._cumulative_rewards["player_0"] == rewards[0]
    assert env._cumulative_rewards["player_3"] == rewards[1]


@pytest.mark.parametrize("text, reason", [
    ("It is a bee.", "own word"),
    ("Bees make honey.", "own word"),
    ("It sounds like buzzing BEES!", "own word"),
    ("", "empty"),
    ("   \n\t ", "empty"),
    ("go " * 41, "more than 40 words"),
    ("x" * 201, "longer than 200"),
    (42, "must be a string"),
])
def test_invalid_descriptions_rejected_then_fallback(text, reason):
    env = new_env(max_retries=1)
    speaker = env.agent_selection
    env.state.roles = tuple("civilian" for _ in range(5))  # every seat has "bee" here
    env.step({"description": text})
    assert env.agent_selection == speaker and reason in env.infos[speaker]["error"]
    assert env.infos[speaker]["retries_left"] == 1
    assert env.state.descriptions == {}
    env.step({"description": text})
    assert env.agent_selection != speaker
    assert env.state.descriptions[idx(speaker)] == SILENCE
    assert "fallback" in env.infos[speaker]
    assert env.game_record()["counters"] == {"invalid_actions": 2, "fallbacks": 1, "forfeits": 0}


@pytest.mark.parametrize("text", ["A beetle is not it.", "It has a beehive nearby.", "It can be seen near flowers."])
def test_related_words_are_fine(text):
    env = new_env()
    env.state.roles = tuple("civilian" for _ in range(5))
    speaker = env.agent_selection
    env.step({"description": text})
    assert "error" not in env.infos[speaker]


def test_multiword_words_and_strict_mode():
    env = new_env()
    env.reset(seed=0, options={"words": ["otter", "sea otter"], "undercover": UNDERCOVER})
    env.state.roles = tuple("undercover" for _ in range(5))  # every seat has "sea otter"
    seat = env.agent_selection
    env.step({"description": "Two sea otters float."})
    assert "own word 'sea otter'" in env.infos[seat]["error"]
    env.step({"description": "Like an otter, in salt water."})
    assert "error" not in env.infos[seat]
    strict = raw_env(strict_word_check=True)
    strict.reset(seed=0, options={"words": ["otter", "sea otter"], "undercover": UNDERCOVER})
    strict.state.roles = tuple("undercover" for _ in range(5))
    seat = strict.agent_selection
    strict.step({"description": "Like an otter, in salt water."})
    assert "own word" in strict.infos[seat]["error"]


@pytest.mark.parametrize("vote, reason", [
    ("self", "yourself"), (5, "out of range"), (-1, "out of range"), ("player_1", "player index"),
    (True, "player index"), (1.5, "player index"), (None, "give a \"vote\""), ("dead", "eliminated"),
])
def test_invalid_votes_rejected_then_no_vote(vote, reason):
    env = new_env(max_retries=1)
    speak_round(env)
    vote_round(env, {0: 4, 1: 4, 2: 4, 3: 0, 4: 0})  # player_4 out
    speak_round(env)
    voter = env.agent_selection
    if vote == "self":
        vote = idx(voter)
    elif vote == "dead":
        vote = 4
    env.step({"description": "", "vote": vote, "beliefs": ""})
    assert env.agent_selection == voter and reason in env.infos[voter]["error"]
    env.step({"vote": vote})
    assert env.agent_selection != voter
    assert env.state.votes[idx(voter)] is None  # fallback: no vote counted


def test_action_forms_and_masks():
    env = new_env()
    seat = env.agent_selection
    assert set(env.infos[seat]["action_mask"]) == {"vote"}  # the one discrete entry
    assert env.infos[seat]["action_mask"]["vote"].tolist() == [int(i != idx(seat)) for i in range(5)]
    waiting = next(other for other in env.possible_agents if other != seat)
    assert not env.infos[waiting]["action_mask"]["vote"].any()  # not its turn
    env.step("A bare string is a description.")
    assert "error" not in env.infos[seat]
    env.step({"description": "ok", "colour": "red"})
    assert "unknown action field 'colour'" in env.infos[env.agent_selection]["error"]
    env.step(["not", "a", "dict"])
    assert "must be a string" in env.infos[env.agent_selection]["error"]
    assert env.action_space(seat).contains({"description": "x", "vote": 1, "beliefs": ""})


def test_three_players_one_vote_ends_it():
    env = raw_env(num_players=3, num_undercover=1, word_pairs=[["car", "truck"]])
    env.reset(seed=0, options={"words": ["car", "truck"], "undercover": [0]})
    speak_round(env, "It has wheels.")
    vote_round(env, {0: 1, 1: 0, 2: 0})
    assert env.state.winner == "civilians"
    env.reset(seed=0, options={"words": ["car", "truck"], "undercover": [0]})
    speak_round(env, "It has wheels.")
    vote_round(env, {0: 1, 1: 2, 2: 1})
    assert env.state.winner == "undercover"


@pytest.mark.parametrize("kwargs", [{}, {"num_players": 4, "num_undercover": 2, "max_rounds": 3},
                                    {"num_players": 7, "num_undercover": 3}])
def test_pettingzoo_api_and_seed(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(undercover_env.env(**kwargs), num_cycles=40)
        seed_test(lambda: undercover_env.env(**kwargs), num_cycles=40)


@pytest.mark.parametrize("seed", [0, 1, 4])  # the three ends: undercover out, timeout, one civilian left
def test_protocol_verbs_play_a_whole_game(seed):
    """new_game/to_move/legal_mask/apply/rewards/result alone, no env: the result is what was played."""
    rules = UndercoverRules(UndercoverConfig(max_rounds=4), word_pairs=[("bee", "butterfly")])
    rng, pick = np.random.default_rng(seed), np.random.default_rng(100 + seed)
    state = rules.new_game(rng, {"words": WORDS, "undercover": UNDERCOVER})
    alive = list(rules.seats)
    played: list[tuple[dict, dict, str | None]] = []
    said: dict[str, str] = {}
    voted: dict[str, str] = {}
    while (seat := rules.to_move(state)) is not None:
        block = rules.simultaneous(state)
        assert block[0] == seat
        for other in rules.seats:  # only the acting block has legal votes: the other living players
            expected = [int(other in block and s in alive and s != other) for s in rules.seats]
            assert rules.legal_mask(state, other)["vote"].tolist() == expected
        if len(said) < len(alive):
            text = f"clue {len(played)} of {seat}"
            events = rules.apply(state, seat, {"description": text}, rng)
            assert events == [{"type": "description", "player": seat, "round": len(played), "text": text}]
            said[seat] = text
            continue
        assert block == tuple(s for s in alive if s not in voted)  # every voter left, seat order
        target = rules.seats[int(pick.choice(np.flatnonzero(rules.legal_mask(state, seat)["vote"])))]
        events = rules.apply(state, seat, {"vote": rules.seat_index(target)}, rng)
        assert events[0] == {"type": "vote", "player": seat, "round": len(played)}
        voted[seat] = target
        if len(voted) < len(alive):
            assert len(events) == 1
            continue
        tally = Counter(voted.values()).most_common()
        out = tally[0][0] if len(tally) == 1 or tally[0][1] > tally[1][1] else None
        assert events[1]["type"] == "round_over" and events[1]["eliminated"] == out
        played.append((said, voted, out))
        alive = [s for s in alive if s != out]
        said, voted = {}, {}
    result = rules.result(state)
    assert [(r["descriptions"], r["votes"], r["eliminated"]) for r in result["history"]] == played
    assert result["survivors"] == alive
    undercover_left = [s for s in alive if rules.seat_index(s) in UNDERCOVER]
    civilians_left = len(alive) - len(undercover_left)
    if not undercover_left:
        expected = ("civilians", "undercover_eliminated")
    elif civilians_left <= 1:
        expected = ("undercover", "one_civilian_left")
    else:
        expected = ("civilians", "timeout")
        assert len(played) == 4
    assert (result["winner"], result["end_reason"]) == expected
    assert rules.rewards(state) == {
        s: 1.0 if (rules.seat_index(s) in UNDERCOVER) == (expected[0] == "undercover") else -1.0 for s in rules.seats
    }
    assert rules.simultaneous(state) == () and not any(rules.legal_mask(state, s)["vote"].any() for s in rules.seats)


def _scripted(seed: int) -> dict:
    env = cluegym.make("undercover")
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        elif obs["phase"] == 0:
            env.step({"description": f"round {int(obs['round']) + 1} thoughts"})
        else:
            env.step({"vote": int(np.flatnonzero(obs["vote_mask"])[0])})
    return env.unwrapped.game_record()


def test_same_seed_same_game_and_replay():
    a, b = _scripted(5), _scripted(5)
    assert json.dumps(a) == json.dumps(b)
    assert _scripted(6)["result"] != a["result"]
    assert replay(a)["result"] == a["result"]


def _golden_transcript() -> str:
    """A seeded scripted game: fixed descriptions per seat, votes for the lowest living other."""
    env = cluegym.make("undercover")
    env.reset(seed=3)
    lines = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            lines.append(f"{agent}: reward {reward:+.0f}")
            env.step(None)
            continue
        if obs["phase"] == 0:
            action = {"description": ["It is small.", "It is common.", "It is lovely.", "It is odd.", "It is here."][int(obs["player"])]}
        else:
            action = {"vote": int(np.flatnonzero(obs["vote_mask"])[0])}
        lines.append(f"{agent}: {action}")
        env.step(action)
    return "\n".join(lines) + "\n\n" + transcript(env.unwrapped.game_record()) + "\n"


def test_golden_playthrough():
    text = _golden_transcript()
    if not GOLDEN.exists():  # regenerate by deleting the file; the committed file pins behaviour
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text)
        pytest.fail(f"golden transcript was missing and has been written to {GOLDEN}; commit it")
    assert text == GOLDEN.read_text()


def test_round_record_json_is_built_once_and_handed_out_as_copies():
    """A finished round's JSON (its event, the infos' last_round, the result's history) is
    built once and each caller gets its own copy; a record changed in what the JSON shows
    (the outcome, a vote or a description added) is built again."""
    from cluegym.envs.undercover.state import RoundRecord, seat_names

    record = RoundRecord(round=1, order=(2, 0, 1), descriptions={2: "a hive", 0: "buzz"},
                         votes={0: 1, 1: 0, 2: None}, eliminated=None)
    names = seat_names(3)
    fresh = {"round": 1, "order": [2, 0, 1], "descriptions": {"player_2": "a hive", "player_0": "buzz"},
             "votes": {"player_0": "player_1", "player_1": "player_0", "player_2": None},
             "tally": {"player_0": 1, "player_1": 1}, "eliminated": None}
    first = record.as_dict(names)
    assert first == fresh == record.as_dict() == record.as_dict(list(names))
    first["votes"]["player_0"] = "changed"
    first["order"].append(9)
    assert record.as_dict(names) == fresh  # the caller's copy was its own
    record.eliminated = 1
    assert record.as_dict(names)["eliminated"] == "player_1"
    record.descriptions[1] = "honey"
    assert record.as_dict(names)["descriptions"]["player_1"] == "honey"
    assert RoundRecord(1, (0,), {}, {}, None) == RoundRecord(1, (0,), {}, {}, None)  # the kept JSON is not compared


@pytest.mark.parametrize("num_players", [5, 7])
def test_observations_built_from_kept_views_equal_ones_built_from_scratch(num_players):
    # The env keeps views of the public record (finished rounds, the round in play, the line
    # of who is still in) and reuses their parts from step to step: every observation must
    # be what the prompt functions and a fresh view build from the State alone.
    from cluegym.envs.undercover.prompts import full_prompt, history_text  # noqa: PLC0415
    from cluegym.envs.undercover.view import finished_rounds, public_view  # noqa: PLC0415

    env = cluegym.make("undercover", num_players=num_players, num_undercover=2)
    game = env.unwrapped
    agents = random_agents(env, "undercover")
    checked = eliminated = 0
    for seed in range(6):
        start_game(env, agents, seed)
        for seat in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            state, cfg, p = game.state, game.game_config, int(seat.split("_")[1])
            assert obs["prompt"] == full_prompt(p, state, cfg, game.rules.player_to_move(state))
            fresh = public_view(None, state, finished_rounds(None, state, cfg.num_players, cfg.max_rounds))
            assert fresh.finished.text == history_text(state)
            assert obs["descriptions"] == fresh.descriptions
            for key, array in (("speaking_order", fresh.order), ("alive", fresh.alive),
                               ("eliminated_round", fresh.eliminated), ("votes", fresh.finished.votes)):
                np.testing.assert_array_equal(obs[key], array)
            checked += 1
            eliminated += not all(state.alive)
            env.step(None if term or trunc else agents[seat].act(obs, info))
    assert checked > 100 and eliminated > 20


def _view_fields(view) -> dict:
    fields = ("key_phase", "key_round", "key_order", "key_descriptions", "key_alive", "key_eliminated", "transcript",
              "round_text", "living", "descriptions", "in_order")
    values = {name: getattr(view, name) for name in fields}
    values.update({name: getattr(view, name).tolist() for name in ("order", "alive", "eliminated")})
    return values


def test_a_description_extends_the_previous_view_and_only_the_next_speakers():
    # After most speaking steps the view of the round in play is the previous view with one
    # more line and row (view.after_description): it must be what a view built from the
    # State alone holds, and it must not serve a State whose descriptions left the order.
    from cluegym.envs.undercover.view import after_description, finished_rounds, public_view  # noqa: PLC0415

    env = new_env(seed=2)
    game, cfg = env.unwrapped, env.unwrapped.game_config
    speak_round(env)
    vote_round(env, {0: 1, 1: 2, 2: 3, 3: 4, 4: 0})  # a tie: the second round is played by all five
    state = game.state
    finished = finished_rounds(None, state, cfg.num_players, cfg.max_rounds)
    view = public_view(None, state, finished)
    extended = 0
    for speaker in state.order:
        before = view
        env.step({"description": f"Something about number {speaker}."})
        after = after_description(before, state, finished)
        assert after is not None
        view = public_view(before, state, finished)
        assert _view_fields(view) == _view_fields(after) == _view_fields(public_view(None, state, finished))
        assert view.order is before.order and view.living is before.living  # shared, not rebuilt
        extended += 1
    assert state.phase == "vote" and extended == cfg.num_players and "  Voting:" in view.transcript
    assert after_description(view, state, finished) is None  # no description while voting

    # A round whose descriptions do not follow its order is rebuilt from the State.
    env.reset(seed=2)
    state = game.state
    finished = finished_rounds(None, state, cfg.num_players, cfg.max_rounds)
    view = public_view(None, state, finished)
    state.descriptions[state.order[1]] = "Out of turn."
    assert after_description(view, state, finished) is None
    rebuilt = public_view(view, state, finished)
    assert not rebuilt.in_order and '"Out of turn."' in rebuilt.transcript
    assert _view_fields(rebuilt) == _view_fields(public_view(None, state, finished))
    # ... and an earlier description changed in place is not kept either.
    env.reset(seed=3)
    state = game.state
    finished = finished_rounds(None, state, cfg.num_players, cfg.max_rounds)
    first, second = state.order[0], state.order[1]
    env.step({"description": "The first line."})
    view = public_view(None, state, finished)
    state.descriptions[first] = "An edited line."
    state.descriptions[second] = "The second line."
    assert after_description(view, state, finished) is None
    assert '"An edited line."' in public_view(view, state, finished).transcript
