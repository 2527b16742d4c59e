"""CandidateActions: Text actions as Discrete choices over candidates, with masks; PettingZoo API."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from cluegym.envs import decrypto_v0
from cluegym.envs.core.matching import hint_keyword, mentions_word
from cluegym.wrappers.candidates import CandidateActions, candidate_mask, candidate_text
from cluegym.wrappers.decrypto import HintCandidates


@pytest.fixture(scope="module")
def hints():
    return HintCandidates(n=6)


def wrapped(hints, n=6):
    return CandidateActions(decrypto_v0.env(), {"alice": hints}, n=n)


def test_spaces_and_observation(hints):
    env = wrapped(hints)
    env.reset(seed=0)
    assert env.action_space("alice").n == 6
    assert env.action_space("bob") == decrypto_v0.env().action_space("bob")  # others untouched
    # A name that is no seat gets the env's own error, an unhashable one too (was a TypeError)
    from cluegym.envs.core import UnknownSeatError
    for call in ("action_space", "observation_space", "observe"):
        for name in ("nobody", ["alice"]):
            with pytest.raises(UnknownSeatError, match="decrypto_v0 has no seat"):
                getattr(env, call)(name)
    for name in ("nobody", ["alice"]):
        with pytest.raises(UnknownSeatError, match="decrypto_v0 has no seat"):
            env.candidates(name)
    # a seat without candidates: a KeyError that says so (was KeyError('bob'))
    with pytest.raises(KeyError, match="seat 'bob' has no candidates; wrapped seats: alice"):
        env.candidates("bob")
    obs, *_ = env.last()
    assert env.agent_selection == "alice"
    assert env.observation_space("alice").contains(obs)
    assert len(obs["candidates"]) == 6 and obs["action_mask"].sum() == len(env.candidates("alice"))
    keywords = obs["keywords"]
    for triple in env.candidates("alice"):
        assert len(triple) == 3 and len(set(triple)) == 3
        assert not any(hint_keyword(h, keywords) for h in triple)  # the env's (paper) hint rule
    # candidate i uses each digit keyword's i-th closest word: the first ones are the closest
    words = hints.words
    first, last = env.candidates("alice")[0], env.candidates("alice")[-1]
    code = [int(d) - 1 for d in obs["code"]]
    sim = lambda triple: np.mean([words.vector(h) @ words.vector(keywords[d]) for h, d in zip(triple, code)])
    assert sim(first) > sim(last)


def test_choice_is_applied_and_hints_never_repeat(hints):
    env = wrapped(hints)
    env.reset(seed=1)
    given = []
    for seat in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if seat == "alice":
            choice = int(np.flatnonzero(obs["action_mask"])[-1])
            expected = env.candidates("alice")[choice]
            env.step(choice)
            assert env.unwrapped.state.hints == expected
            given.extend(expected)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert len(given) == len(set(given)) > 3


def test_masked_or_bad_index_is_rejected_with_reason(hints):
    env = CandidateActions(decrypto_v0.env(), {"alice": lambda obs, info: [("fruit", "wing", "tower")]}, n=4)
    env.reset(seed=0, options={"keywords": ["apple", "bird", "castle", "piano"]})
    for bad, reason in [(3, "masked"), (9, "out of range"), ("fruit", "integer index")]:
        env.step(bad)
        assert env.agent_selection == "alice"
        assert reason in env.infos["alice"]["error"]
        assert env.unwrapped.state.phase == "encode"  # nothing applied
    env.step(0)
    assert env.unwrapped.state.hints == ("fruit", "wing", "tower")


def test_a_live_seats_none_is_rejected_with_the_wrappers_reason():
    """It reached the game as None, whose words were the game's ("hints must be a tuple of 3
    strings, got NoneType"), not a word about the candidate choice."""
    env = CandidateActions(decrypto_v0.env(), {"alice": lambda obs, info: [("fruit", "wing", "tower")]}, n=4)
    env.reset(seed=0)
    env.step(None)
    assert env.agent_selection == "alice" and env.unwrapped.state.phase == "encode"
    assert env.infos["alice"]["error"] == "a candidate choice must be an integer index in 0..3, got None"


def test_pettingzoo_api_test_passes(hints):
    api_test(wrapped(hints), num_cycles=30)


def test_dict_entry_replacement_and_helpers():
    assert candidate_text(("a", "b")) == "a | b" and candidate_text("x") == "x"
    assert candidate_mask([1, 2], 4).tolist() == [1, 1, 0, 0]
    with pytest.raises(ValueError, match="no entry"):
        CandidateActions(decrypto_v0.env(), {"alice": lambda o, i: []}, n=3, key="description")
    with pytest.raises(ValueError, match="no seat"):
        CandidateActions(decrypto_v0.env(), {"mallory": lambda o, i: []}, n=3)


def test_undercover_description_candidates_fill_the_text_entry():
    from cluegym.envs import undercover_v0
    from cluegym.wrappers.undercover import DescriptionCandidates

    generator = DescriptionCandidates(n=5)
    env = CandidateActions(undercover_v0.env(), {f"player_{i}": generator for i in range(5)}, n=5, key="description")
    env.reset(seed=0)
    spoken = []
    for _ in range(5):  # the first speaking round
        seat = env.agent_selection
        obs, *_ = env.last()
        assert env.action_space(seat)["description"].n == 5 and obs["candidate_mask"].sum() == 5
        cands = env.candidates(seat)
        assert not any(mentions_word(c, obs["word"]) for c in cands)
        assert not set(cands) & set(spoken)
        env.step({"description": 0})
        assert "error" not in env.infos[seat]
        spoken.append(cands[0])
    record = env.unwrapped.game_record()
    assert [s["action"]["description"] for s in record["steps"][:5]] == spoken
