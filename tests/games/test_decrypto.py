"""Decrypto: rules by scripted moves, invalid hints/codes, rewards, records, golden playthrough."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import cluegym
from cluegym.envs.core.record import ReplayMismatch, replay, transcript
from cluegym.envs.decrypto.env import CODES, DecryptoEnv, raw_env
from cluegym.envs.decrypto.rules import PASS_HINT, SEATS, DecryptoConfig, DecryptoRules, metrics

KEYWORDS = ["guitar", "horse", "castle", "apple"]
GOLDEN = Path(__file__).parent / "golden" / "decrypto_seed7.txt"


def new_env(**kwargs) -> DecryptoEnv:
    env = raw_env(**kwargs)
    env.reset(seed=kwargs.pop("seed", 0), options={"keywords": KEYWORDS})
    return env


def code_of(env: DecryptoEnv) -> tuple[int, ...]:
    return env.state.code


def play_turn(env: DecryptoEnv, bob_right: bool, eve_right: bool, hints=("music", "saddle", "tower")) -> None:
    code = code_of(env)
    assert env.agent_selection == "alice"
    env.step(hints)
    wrong = next(i for i, c in enumerate(CODES) if c != code and env.observe("bob")["action_mask"][i])
    right = CODES.index(code)
    assert env.agent_selection == "bob"
    env.step(right if bob_right else wrong)
    assert env.agent_selection == "eve"
    env.step(right if eve_right else wrong)


def test_turn_order_and_reveal():
    env = new_env()
    assert env.agent_selection == "alice"
    obs = env.observe("alice")
    assert tuple(obs["keywords"]) == tuple(KEYWORDS)
    assert len(obs["code"]) == 3 and len(set(obs["code"].tolist())) == 3
    assert "keywords" not in env.observe("eve")
    code = code_of(env)
    play_turn(env, bob_right=True, eve_right=False)
    assert env.state.turn == 1
    last = env.infos["eve"]["last_turn"]
    assert last["code"] == list(code) and not last["miscommunication"] and not last["interception"]
    hh = env.observe("eve")["hint_history"]
    for digit, hint in zip(code, ("music", "saddle", "tower")):
        assert hh[digit - 1][0] == hint
    assert env.observe("eve")["code_history"][0].tolist() == list(code)
    # a revealed code is masked out and never drawn again
    assert env.observe("bob")["action_mask"][CODES.index(code)] == 0
    assert code_of(env) != code


def test_eve_does_not_see_bobs_guess_before_guessing():
    env = new_env()
    env.step(("music", "saddle", "tower"))
    before = env.observe("eve")
    env.step(0)
    after = env.observe("eve")
    assert before["prompt"] == after["prompt"]
    assert np.array_equal(before["guess_history"], after["guess_history"])


def test_two_miscommunications_end_game_eve_wins():
    env = new_env()
    play_turn(env, bob_right=False, eve_right=False)
    assert not any(env.terminations.values())
    play_turn(env, bob_right=False, eve_right=False)
    assert all(env.terminations.values())
    assert env.state.winner == "interceptor" and env.state.end_reason == "miscommunications"
    assert env._cumulative_rewards == {"alice": -1.0, "bob": -1.0, "eve": 1.0}
    result = env.game_record()["result"]
    assert result["turns"] == 2 and result["miscommunications"] == 2


def test_two_interceptions_end_game():
    env = new_env()
    play_turn(env, bob_right=True, eve_right=True)
    play_turn(env, bob_right=True, eve_right=True)
    assert env.state.end_reason == "interceptions"
    assert env._cumulative_rewards["eve"] == 1.0


def test_surviving_all_turns_wins_for_encoders():
    env = new_env(max_turns=4)
    play_turn(env, True, True)
    for _ in range(3):
        play_turn(env, True, False)
    assert env.state.winner == "encoders" and env.state.end_reason == "survived"
    assert env._cumulative_rewards == {"alice": 1.0, "bob": 1.0, "eve": -1.0}
    # dead steps remove every agent
    for agent in list(env.agents):
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize(
    "hints, reason",
    [
        (("guitars", "saddle", "tower"), "keyword 'guitar'"),
        (("music", "horses", "tower"), "keyword 'horse'"),
        (("music", "apple pie", "tower"), "keyword 'apple'"),
        (("music", "castle-keep", "tower"), "keyword 'castle'"),
        (("music", "three word hint", "tower"), "3 words"),
        (("music", "", "tower"), "empty"),
        (("music", "saddle"), "expected 3 hints"),
        ("music saddle tower", "tuple"),
        (("music", 7, "tower"), "string"),
        (("music", "2", "tower"), "with a letter"),
        (("music", "saddle!", "tower"), "letters"),
    ],
)
def test_invalid_hints_rejected_with_reason_and_game_intact(hints, reason):
    env = new_env()
    code = code_of(env)
    env.step(hints)
    assert env.agent_selection == "alice"
    assert reason in env.infos["alice"]["error"]
    assert env.infos["alice"]["retries_left"] == 3
    assert env.state.phase == "encode" and env.state.code == code
    env.step(("music", "saddle", "tower"))
    assert env.agent_selection == "bob" and "error" not in env.infos["alice"]


@pytest.mark.parametrize("hint", ["horseshoe", "farm", "R2-D2", "7-Eleven", "applesauce", "castellan"])
def test_paper_hint_rule_accepts_words_that_only_share_letters(hint):
    # The paper: "real words (including proper nouns) ... refer to the meaning of the
    # keywords, not to their spelling" (section 2). Only the keyword, its stem/lemma or the
    # keyword as a whole word is refused; KEYWORDS are guitar, horse, castle, apple.
    env = new_env()
    env.step(("music", hint, "tower"))
    assert env.agent_selection == "bob", env.infos["alice"].get("error")


@pytest.mark.parametrize("hint, keyword", [("horseshoe", "horse"), ("applesauce", "apple")])
def test_substring_hint_rule_is_an_option(hint, keyword):
    env = new_env(hint_rule="substring")
    env.step(("music", hint, "tower"))
    assert env.agent_selection == "alice"
    assert f"keyword {keyword!r}" in env.infos["alice"]["error"]
    with pytest.raises(ValueError, match="hint_rule"):
        DecryptoConfig(hint_rule="letters")


def test_fallback_after_max_retries_keeps_valid_hints():
    env = new_env(max_retries=1)
    env.step(("music", "horse", "tower"))
    env.step(("music", "horses", "tower"))
    assert env.agent_selection == "bob"
    assert env.state.hints == ("music", PASS_HINT, "tower")
    assert "fallback" in env.infos["alice"]
    record = env.game_record()
    assert record["counters"] == {"invalid_actions": 2, "fallbacks": 1, "forfeits": 0}
    assert record["steps"][-1]["fallback"]["action"] == ["music", PASS_HINT, "tower"]


@pytest.mark.parametrize("action", [24, -1, "1-2-3", 2.5, None, True, (1, 2, 3)])
def test_invalid_guess_rejected(action):
    env = new_env()
    env.step(("music", "saddle", "tower"))
    env.step(action)
    assert env.agent_selection == "bob"
    assert "error" in env.infos["bob"]
    env.step(0)
    assert env.agent_selection == "eve"


def test_revealed_code_is_rejected_then_fallback_is_legal():
    env = new_env(max_retries=0)
    first = code_of(env)
    play_turn(env, True, False)
    env.step(("music", "saddle", "tower"))
    env.step(CODES.index(first))
    assert "already revealed" in env.infos["bob"]["error"]
    assert env.agent_selection == "eve"  # max_retries=0: fallback applied at once
    assert env.state.guesses["bob"] != first


def test_config_options():
    rules = DecryptoRules(DecryptoConfig(num_keywords=5, code_length=2, max_turns=3))
    assert len(rules.codes) == 20
    env = raw_env(num_keywords=5, code_length=2, max_turns=3, keywords=["a1", "b2", "c3", "d4", "e5", "f6"])
    env.reset(seed=1)
    assert env.action_space("bob").n == 20
    assert len(env.observe("alice")["code"]) == 2
    with pytest.raises(ValueError, match="max_turns"):
        DecryptoConfig(max_turns=25)
    with pytest.raises(ValueError, match="keyword list"):
        raw_env(keywords=["one", "two"])
    with pytest.raises(FileNotFoundError):
        raw_env(keywords="/nonexistent/list.txt")


def test_prompt_has_paper_structure():
    env = new_env()
    play_turn(env, True, False)
    alice = env.observe("alice")["prompt"]
    eve = env.observe("eve")["prompt"]
    assert "You are playing a variant of the code guessing game Decrypto" in alice
    assert "Turn 1 summary:" in alice and "Hint History:" in alice and "Code History:" in alice
    assert "Turn 2: 0 Miscommunications, 0 Interceptions so far." in alice
    assert "The four keywords are: {1: guitar, 2: horse, 3: castle, 4: apple}" in alice
    assert "You are the Interceptor" in eve and "keywords are: {1: guitar" not in eve
    assert all(ch.isprintable() or ch in "\n\t" for ch in eve)


def test_same_seed_same_game_and_replay():
    def scripted(seed):
        env = raw_env()
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            elif agent == "alice":
                env.step(("alpha", "beta", "gamma"))
            else:
                env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        return env.game_record()

    a, b = scripted(5), scripted(5)
    assert json.dumps(a) == json.dumps(b)
    assert scripted(6)["result"]["keywords"] != a["result"]["keywords"] or scripted(6)["steps"] != a["steps"]
    assert replay(a)["result"] == a["result"]
    tampered = json.loads(json.dumps(a))
    tampered["seed"] = 999
    with pytest.raises(ReplayMismatch):
        replay(tampered)


def test_metrics():
    results = [
        {"winner": "encoders", "end_reason": "survived", "turns": 8, "miscommunications": 1, "interceptions": 0},
        {"winner": "interceptor", "end_reason": "miscommunications", "turns": 2, "miscommunications": 2, "interceptions": 1},
    ]
    m = metrics(results)
    assert m["games"] == 2 and m["encoder_win_rate"] == 0.5 and m["avg_turns"] == 5.0
    assert m["miscommunication_end_rate"] == 0.5 and m["miscommunication_rate"] == pytest.approx(3 / 10)


def test_protocol_verbs_play_a_whole_game():
    """new_game/to_move/legal_mask/apply/rewards/result alone, no env: the result is what was played."""
    rules = DecryptoRules(DecryptoConfig(max_turns=5))
    rng = np.random.default_rng(3)
    state = rules.new_game(rng, {"keywords": KEYWORDS})
    assert state.keywords == tuple(KEYWORDS) and rules.to_move(state) == "alice"
    played: list[tuple] = []
    while (seat := rules.to_move(state)) is not None:
        for other in SEATS:
            mask = rules.legal_mask(state, other)
            if other == "alice":
                assert mask is None
            else:  # only a seat still to guess this turn has legal codes
                assert mask.any() == (other in rules.simultaneous(state))
        if seat == "alice":
            code, hints = state.code, ("music", "saddle", "tower")
            events = rules.apply(state, seat, hints, rng)
            assert events == [{"type": "hints", "turn": len(played), "hints": list(hints)}]
            guesses = {}
            continue
        legal = np.flatnonzero(rules.legal_mask(state, seat))
        # Bob is right on even turns; Eve guesses at random among the legal codes.
        index = rules.code_index[code] if seat == "bob" and len(played) % 2 == 0 else int(rng.choice(legal))
        guesses[seat] = CODES[index]
        events = rules.apply(state, seat, index, rng)
        if seat == "eve":
            assert events[1]["type"] == "reveal" and events[1]["code"] == list(code)
            played.append((code, guesses["bob"], guesses["eve"]))
    result = rules.result(state)
    assert [(tuple(t["code"]), tuple(t["bob_guess"]), tuple(t["eve_guess"])) for t in result["history"]] == played
    misses = sum(bob != code for code, bob, _ in played)
    catches = sum(eve == code for code, _, eve in played)
    assert (result["miscommunications"], result["interceptions"]) == (misses, catches)
    assert len({code for code, _, _ in played}) == len(played)  # codes never recur
    expected = "interceptor" if misses >= 2 or catches >= 2 else "encoders"
    assert result["winner"] == expected and result["turns"] == len(played)
    sign = 1.0 if expected == "encoders" else -1.0
    assert rules.rewards(state) == {"alice": sign, "bob": sign, "eve": -sign}
    assert all(not rules.legal_mask(state, seat).any() for seat in ("bob", "eve"))


def _golden_transcript() -> str:
    """A seeded scripted game (fixed hints, Bob always right, Eve picks the first legal code)."""
    env = cluegym.make("decrypto")
    env.reset(seed=7)
    lines = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            lines.append(f"{agent}: reward {reward:+.0f}")
            env.step(None)
            continue
        if agent == "alice":
            action = tuple(["moon", "river", "lamp", "tiger"][d - 1] for d in obs["code"])
        elif agent == "bob":
            action = CODES.index(tuple(env.unwrapped.state.code))
        else:
            action = int(np.flatnonzero(obs["action_mask"])[0])
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
