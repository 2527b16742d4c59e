"""Dixit baselines: the caption agent (captions + GloVe + MiniLM) and the vision agent
(EfficientNet-lite0 labels + MiniLM), on real models from installed packages."""

from __future__ import annotations

import numpy as np
import pytest

import cluegym
from cluegym.agents import AgentSpecError, make_agent, run_match
from cluegym.agents.embedding.dixit import CaptionAgent, VisionAgent, content_words
from cluegym.envs.core.matching import mentions_word
from cluegym.envs.dixit.env import DixitEnv, raw_env

pytestmark = pytest.mark.slow
HANDS = [[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23], [30, 31, 32, 33]]


def agent(spec: str, env: DixitEnv, seat: str = "player_0"):
    return make_agent(spec, game="dixit", seat=seat, action_space=env.action_space(seat), seed=0)


@pytest.fixture(scope="module")
def captioned() -> DixitEnv:
    env = raw_env(reveal_captions=True, num_rounds=4)
    env.reset(seed=0, options={"hands": HANDS})
    return env


def test_registry_names_resolve():
    env = raw_env()
    assert isinstance(agent("caption", env), CaptionAgent)
    assert isinstance(agent("vision:top_k=3,grid=0", env), VisionAgent)
    glove = agent("glove:rank=2", env)
    assert isinstance(glove, CaptionAgent) and glove.embedding == "glove" and glove.rank == 2
    with pytest.raises(ValueError, match="rank"):
        agent("caption:rank=-1", env)
    with pytest.raises(ValueError, match="top_k"):
        agent("vision:top_k=0", env)
    with pytest.raises(ValueError, match="label rank"):
        agent("vision:rank=0", env)
    with pytest.raises(AgentSpecError, match="no parameter"):
        agent("vision:colour=1", env)


def test_caption_clues_follow_the_rank_knob(captioned):
    teller = agent("caption", captioned)
    caption = "a dark cat looks down on a crimson spider beneath an empty moon"
    clues = []
    for rank in (1, 2, 5):
        teller.rank = rank
        clues.append(teller.clue_for(caption))
    assert len(set(clues)) == 3
    for clue in clues:
        assert not any(mentions_word(clue, w, substring=False) for w in content_words(caption)), clue
    teller.rank = 0
    assert teller.clue_for(caption) == caption


def test_caption_storyteller_listener_and_distractor(captioned):
    env = captioned
    teller = agent("caption", env)
    action = teller.act(env.observe("player_0"), env.infos["player_0"])
    assert set(action) == {"card", "clue"} and 0 <= action["card"] < 4 and action["clue"]
    env.step(action)
    # a listener whose hand holds a card captioned exactly like the clue picks that card
    listener = agent("caption", env, "player_1")
    obs = dict(env.observe("player_1"))
    captions = list(obs["hand_captions"])
    obs["clue"] = captions[2]
    assert listener.act(obs, env.infos["player_1"]) == {"card": 2}
    for _ in range(3):
        seat = env.agent_selection
        env.step(agent("caption", env, seat).act(env.observe(seat), env.infos[seat]))
    seat = env.agent_selection
    obs = dict(env.observe(seat))
    obs["clue"] = env.caption(env.state.target)  # the storyteller's own caption: unmistakable
    vote = agent("caption", env, seat).act(obs, env.infos[seat])["card"]
    assert env.state.candidates[vote] == env.state.target
    assert obs["card_mask"][vote] == 1


def test_caption_agent_needs_revealed_captions():
    env = raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="reveal_captions=True"):
        agent("caption", env).act(env.observe("player_0"), env.infos["player_0"])


def test_vision_agent_sees_pixels_and_rates():
    env = raw_env(num_rounds=4)
    env.reset(seed=0, options={"hands": HANDS})
    vision = agent("vision:grid=0", env)
    obs = env.observe("player_0")
    assert "hand_captions" not in obs
    action = vision.act(obs, env.infos["player_0"])
    assert 0 <= action["card"] < 4 and action["clue"]
    vectors = vision.card_vectors(obs, "hand", 4)
    assert vectors.shape == (4, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    single = {"clue": action["clue"], "candidates": obs["hand"][action["card"]:action["card"] + 1]}
    rating = vision.rate(single)
    similarity = float(vision.similarities(single, "candidates", 1)[0])
    assert 0.0 <= rating <= 100.0 and rating == round(50 * (1 + similarity), 1)


def test_efficientnet_labels_and_cache():
    from cluegym.agents.encoders import images as efficientnet

    labels = efficientnet.imagenet_labels()
    assert len(labels) == 1000 and labels[292] == "tiger" and "(" not in labels[21]
    deck = raw_env().deck
    tiger = deck.images(["card_005"], (144, 96))  # "a tiger casts the reflection of a tree frog ..."
    probs = efficientnet.class_probabilities(tiger, grid=0)
    assert probs.shape == (1, 1000) and abs(float(probs.sum()) - 1.0) < 1e-3
    assert "tiger" in [name for name, _ in efficientnet.top_labels(probs[0], 3)]
    cached = len(efficientnet.IMAGE_CACHE)
    efficientnet.class_probabilities(np.concatenate([tiger, tiger]), grid=0)
    assert len(efficientnet.IMAGE_CACHE) == cached
    with pytest.raises(ValueError, match="shape"):
        efficientnet.class_probabilities(np.zeros((96, 64, 3), dtype=np.uint8))


def test_caption_and_vision_agents_play_a_match_without_invalid_actions():
    summary = run_match(
        "dixit", {"player_0": "caption", "player_1": "vision:grid=0", "player_2": "caption:rank=3",
                  "player_3": "random"},
        games=1, seed=0, env_kwargs={"reveal_captions": True, "num_rounds": 8}, progress=False,
    )
    m = summary["metrics"]
    assert m["games"] == 1 and m["rounds"] == 8
    assert m["invalid_actions"] == 0 and m["fallbacks"] == 0
    assert m["partial"] + m["all_correct"] + m["all_wrong"] == pytest.approx(100.0)


def test_caption_listeners_beat_chance():
    # with the caption itself as the clue (rank 0) caption listeners find nearly every target
    summary = run_match("dixit", {"*": "caption:rank=0"}, games=1, seed=1,
                        env_kwargs={"reveal_captions": True, "num_rounds": 8}, progress=False)
    assert summary["metrics"]["listener_accuracy"] >= 90.0
    assert summary["metrics"]["all_correct"] >= 75.0


def test_default_agents_play_the_default_game_out_of_the_box():
    module = cluegym.env_module("dixit")
    assert module.DEFAULT_AGENTS == {"*": "vision"}
    summary = run_match("dixit", {}, games=1, seed=0, env_kwargs={"num_rounds": 4}, progress=False)
    assert set(summary["seats"].values()) == {"vision"} and summary["metrics"]["rounds"] == 4


def test_storytellers_do_not_retell_a_card_while_they_hold_untold_ones():
    env = raw_env(reveal_captions=True, num_rounds=16, hand_swap=False)  # 4 stories per seat
    env.reset(seed=2, options={"hands": HANDS})
    players = {seat: agent("caption", env, seat) for seat in env.possible_agents}
    while not env.game_over:
        seat = env.agent_selection
        env.step(players[seat].act(env.observe(seat), env.infos[seat]))
    for p in range(4):
        told = [r.target for r in env.state.history if r.storyteller == p]
        assert sorted(told) == sorted(HANDS[p]), told  # each of its 4 cards once


def test_what_depends_on_a_card_alone_is_kept_and_changes_no_game(monkeypatch, tmp_path):
    """The vision agent keeps each picture's vector and the caption agent each caption's clue:
    a kept vector is the pooling of a fresh batch, bit for bit, a kept clue the fresh search,
    and a match with nothing kept is the same match."""
    import json

    from cluegym.agents.embedding import dixit as dixit_baselines
    from cluegym.agents.encoders.images import class_probabilities, probability_keys

    env = raw_env(reveal_captions=True, num_rounds=4)
    env.reset(seed=0, options={"hands": HANDS})
    vision = agent("vision:grid=0", env)
    images = env.deck.images(env.deck.card_ids[:12], tuple(env.image_size))
    fresh = vision._pooled(class_probabilities(images, grid=0))
    dixit_baselines._CARD_VECTORS.clear()
    for batch in ([0, 1, 2, 3], [2, 5, 7], [11, 0, 5, 9, 3]):
        np.testing.assert_array_equal(vision.card_vectors({"hand": images[batch]}, "hand", len(batch)), fresh[batch])
    probs = class_probabilities(images, grid=0)
    keys = probability_keys(images, grid=0)
    for rank in (1, 3):
        storyteller = agent(f"vision:grid=0,rank={rank}", env)
        dixit_baselines._LABEL_IDS.clear()
        for batch in ([0, 1, 2, 3], [2, 5, 7], [11, 0, 5, 9, 3]):
            assert storyteller._label_ids(images[batch], [keys[i] for i in batch]) == \
                np.argsort(-probs[batch], axis=1)[:, rank - 1].tolist()
    teller = agent("caption", env)
    for caption in [str(c) for c in env.observe("player_0")["hand_captions"]]:
        assert teller.clue_for(caption) == teller._search_clue(caption) == teller.clue_for(caption)

    def records(path):
        run_match("dixit", {"player_0": "caption", "player_1": "vision:grid=0", "player_2": "caption:rank=3",
                            "player_3": "vision:grid=0"}, games=1, seed=2, progress=False, results_path=path,
                  env_kwargs={"reveal_captions": True, "num_rounds": 6})
        return [json.loads(line)["record"] for line in path.read_text().splitlines()]

    kept = records(tmp_path / "kept.jsonl")
    for cache in (dixit_baselines._CARD_VECTORS, dixit_baselines._LABEL_IDS, dixit_baselines._CLUES):
        monkeypatch.setattr(cache, "put", lambda key, value: None)
        cache.clear()
    assert records(tmp_path / "fresh.jsonl") == kept
    assert not dixit_baselines._CARD_VECTORS and not dixit_baselines._LABEL_IDS and not dixit_baselines._CLUES


@pytest.mark.parametrize("spec", ["caption", "glove", "minilm:rank=2"])
def test_a_caption_agent_is_refused_up_front_where_captions_are_hidden(spec, tmp_path):
    results = tmp_path / "results.jsonl"
    with pytest.raises(ValueError, match=r"^player_1: the caption agent reads captions: make the env with "
                                         r"reveal_captions=True"):
        run_match("dixit", {"player_1": spec}, games=2, seed=0, results_path=results, progress=False)
    assert not results.exists()  # refused before any game or file
    from cluegym.cli import main
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "dixit", "--agent", f"*={spec}", "--games", "1", "--no-progress", "--no-show"])
    assert str(exit_info.value).startswith("cluegym: error: player_0: the caption agent reads captions")
    assert "\n" not in str(exit_info.value)


def test_a_caption_agent_plays_where_captions_are_shown():
    summary = run_match("dixit", {"player_1": "caption"}, games=1, seed=0, progress=False,
                        env_kwargs={"reveal_captions": True, "num_rounds": 2})
    assert summary["ok"] and summary["seat_counters"]["player_1"]["agent_errors"] == 0
    assert summary["seat_counters"]["player_1"]["decisions"] > 0


def test_the_learning_views_refuse_a_caption_agent_where_captions_are_hidden():
    from cluegym.wrappers.multiseat import MultiSeatEnv
    from cluegym.wrappers.selfplay import SelfPlayEnv
    # captions hidden on purpose: the learning views reveal them by default (GameSpec.learner_env)
    with pytest.raises(ValueError, match=r"^player_1: the caption agent reads captions"):
        MultiSeatEnv("dixit", ["player_0"], opponents={"*": "caption"}, env_kwargs={"reveal_captions": False})
    # the learner's delegate (story and distractor) is a caption agent: refused when the view
    # is built (it was at the first reset)
    with pytest.raises(ValueError, match=r"^player_0: the caption agent reads captions"):
        SelfPlayEnv("dixit", "player_0", opponents={"*": "random"}, env_kwargs={"num_rounds": 2, "reveal_captions": False})
    shown = SelfPlayEnv("dixit", "player_0", opponents={"*": "caption"},
                        env_kwargs={"num_rounds": 2, "reveal_captions": True})
    shown.reset(seed=0)
    shown.step(int(np.flatnonzero(shown.action_masks())[0]))
