"""Adversarial Taboo embedding baselines: the attacker never says the target and steers from
broad to close neighbours; the defender guesses the nearest word when confident, otherwise
answers on topic without its suspects; full matches and baseline vs random."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cluegym
from cluegym.agents import make_agent, run_match
from cluegym.envs.core.matching import says_word

TARGETS = ["piano", "apple", "river", "doctor", "winter", "camera", "garden", "soldier", "coffee", "horse"]


@pytest.fixture(scope="module")
def env():
    e = cluegym.make("taboo", targets=TARGETS)
    e.reset(seed=0)
    return e


def agent(env, seat, spec="glove", seed=0):
    a = make_agent(spec, game="taboo", seat=seat, action_space=env.action_space(seat), seed=seed)
    a.reset(seed)
    return a


def obs(target=None, dialogue=(), turns=5):
    """A hand-made observation; each seat has spoken len(dialogue) // 2 times before its turn."""
    out = {"dialogue": tuple(dialogue) + ("",) * (2 * turns - len(dialogue)), "turn": len(dialogue) // 2}
    if target is not None:
        out["target"] = target
    return out


def test_attacker_never_says_the_target_and_never_repeats(env):
    attacker = agent(env, "attacker")
    vec = attacker.vectors
    for target in TARGETS:
        attacker.reset(0)
        dialogue: list[str] = []
        used: set[str] = set()
        for _ in range(5):
            utterance = attacker.act(obs(target, dialogue), {})["utterance"]
            assert not says_word(utterance, target, strict=True), (target, utterance)
            assert attacker.last_words and not used & set(attacker.last_words)
            assert all(w in utterance for w in attacker.last_words)
            used |= set(attacker.last_words)
            dialogue += [utterance, "Hmm."]
        # the words it picked relate to the target
        assert float(vec.vector(" ".join(dialogue[0::2])) @ vec.vector(target)) > 0.3


def test_attacker_steers_from_broad_to_close(env):
    attacker = agent(env, "attacker", "glove:k=40,words_per_turn=2")
    vec = attacker.vectors
    first = attacker.act(obs("piano", []), {})["utterance"]
    dialogue = [first, "ok"] * 4
    last = attacker.act(obs("piano", dialogue), {})["utterance"]

    assert first and last

    def closeness(words: list[str]) -> float:
        return float(np.mean([vec.vector(w) @ vec.vector("piano") for w in words]))

    attacker.reset(0)
    attacker.act(obs("piano", []), {})
    broad = closeness(attacker.last_words)
    attacker.act(obs("piano", dialogue), {})
    assert closeness(attacker.last_words) > broad


def test_defender_guesses_the_nearest_word_when_confident(env):
    defender = agent(env, "defender", "glove:threshold=0,stable=false")
    action = defender.act(obs(dialogue=["I keep thinking about violin, cello and harpsichord."]), {})
    assert action["guess"] and not says_word(action["utterance"], action["guess"])
    ranking = [w for w, _ in defender.last_ranking]
    assert action["guess"] == ranking[0] and "violin" not in ranking  # never a word already said
    assert "piano" in ranking[:10]


def test_defender_waits_for_a_stable_confident_best_word(env):
    cautious = agent(env, "defender", "glove:threshold=0.99")
    action = cautious.act(obs(dialogue=["I keep thinking about violin, cello and harpsichord."]), {})
    assert action["guess"] == ""
    suspects = [w for w, _ in cautious.last_ranking]
    assert action["utterance"] and not any(says_word(action["utterance"], s) for s in suspects)
    stable = agent(env, "defender", "glove:threshold=0")
    talk = ["Picture violin, cello and harpsichord for a moment."]
    assert stable.act(obs(dialogue=talk), {})["guess"] == ""  # first time this word is the best one
    second = stable.act(obs(dialogue=talk + ["Music, then.", "I keep thinking about keyboard, concerto and pianist."]), {})
    if stable.last_ranking[0][0] == stable.previous_best and second["guess"]:
        assert second["guess"] == stable.last_ranking[0][0]


def test_closed_candidate_list(env, tmp_path):
    path = tmp_path / "candidates.txt"
    path.write_text("\n".join(TARGETS) + "\n")
    defender = agent(env, "defender", f"glove:threshold=0,stable=false,candidates={path}")
    action = defender.act(obs(dialogue=["I keep thinking about violin, cello and concerto."]), {})
    assert action["guess"] == "piano"


def test_full_games_are_valid():
    summary = run_match("taboo", {"attacker": "glove", "defender": "glove"}, games=6, seed=0,
                        env_kwargs={"targets": TARGETS}, progress=False)
    m = summary["metrics"]
    assert m["games"] == 6 and m["invalid_actions"] == 0 and m["attacker_rule_break_rate"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("embedding", ["word2vec", "minilm"])
def test_other_embeddings_play_full_games(embedding):
    summary = run_match("taboo", {"*": embedding}, games=2, seed=0, env_kwargs={"targets": TARGETS}, progress=False)
    assert summary["metrics"]["invalid_actions"] == 0 and summary["metrics"]["attacker_rule_break_rate"] == 0


@pytest.mark.slow
def test_baseline_attacker_beats_random_defender_and_closed_set_defender_wins_more(tmp_path):
    path = tmp_path / "candidates.txt"
    path.write_text("\n".join(TARGETS) + "\n")
    kwargs = {"games": 20, "seed": 0, "env_kwargs": {"targets": TARGETS}, "progress": False}
    vs_random_defender = run_match("taboo", {"attacker": "glove", "defender": "random"}, **kwargs)["metrics"]
    assert vs_random_defender["attacker_win_rate"] >= 0.8
    open_set = run_match("taboo", {"attacker": "glove", "defender": "glove"}, **kwargs)["metrics"]
    closed = run_match("taboo", {"attacker": "glove", "defender": f"glove:candidates={path}"}, **kwargs)["metrics"]
    assert closed["defender_win_rate"] > open_set["defender_win_rate"] > vs_random_defender["defender_win_rate"]


def _records(path, **options):
    run_match("taboo", {"attacker": "glove", "defender": "glove"}, games=4, seed=3, progress=False,
              env_kwargs={"targets": TARGETS}, results_path=path, **options)
    return [json.loads(line)["record"] for line in path.read_text().splitlines()]


def test_defender_ranking_is_the_full_sort_read_lazily(env, monkeypatch, tmp_path):
    """The defender ranks the start of its candidates by a partition and sorts the rest only
    when the words already said eat that start: the ranking of sorting every score, whether
    the start holds (the usual case) or not (a one-word start), and the same games."""
    from cluegym.agents.embedding import taboo as taboo_baselines
    from cluegym.agents.embedding.speech import SaidFilter

    defender = agent(env, "defender")
    dialogue = ("I keep thinking about keys, melody and concert.", "Is it loud?",
                "It has keys and pedals, an instrument.", "An organ?")
    observation = obs(dialogue=dialogue)
    scores = defender.candidates.scores(defender.topic(observation))
    said = SaidFilter(list(dialogue))
    words = defender.candidates.words
    full = [(words[i], float(scores[i])) for i in np.argsort(-scores, kind="stable").tolist() if not said(words[i])]
    real_top_order = taboo_baselines.top_order
    for start in (None, 1):
        if start is not None:
            monkeypatch.setattr(taboo_baselines, "top_order", lambda values, k: real_top_order(values, start))
        for n in (2, 10, 300):
            assert defender.ranking(observation, n) == full[:n]
    expected = _records(tmp_path / "one_word_start.jsonl")
    monkeypatch.setattr(taboo_baselines, "top_order", real_top_order)
    assert _records(tmp_path / "partition.jsonl") == expected
