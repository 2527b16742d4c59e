"""Decrypto prompt variants (Figure 4): mode 0 is the paper's text, modes 1-4 (ours) state the
same game and show the same facts, and the llm-cot agent sends the modes it is given."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

import cluegym
from cluegym.agents import AgentSpecError, make_agent
from cluegym.agents.llm.adapters.decrypto import paper_messages
from cluegym.agents.llm.adapters.decrypto_variants import (
    MODE_NAMES, MODES, check_mode, system_prompt_variant, user_prompt,
)
from cluegym.agents.llm.backends.scripted import ScriptedBackend
from cluegym.envs.core.text import quote_text
from cluegym.envs.decrypto.env import CODES
from cluegym.envs.decrypto.prompts import role_prompt, system_prompt, turn_request, turn_summaries
from cluegym.envs.decrypto.rules import DecryptoConfig, DecryptoState, TurnRecord

CFG = DecryptoConfig()
KEYWORDS = ("condition", "task", "issue", "device")
HISTORY = [
    TurnRecord(turn=0, code=(3, 1, 4), hints=("problem", "status", "machine"), bob_guess=(3, 1, 4), eve_guess=(1, 2, 3)),
    TurnRecord(turn=1, code=(2, 4, 1), hints=("chore", "gadget", "state"), bob_guess=(2, 1, 4), eve_guess=(2, 4, 1)),
]


def later_state(seat: str, **changes) -> DecryptoState:
    """Turn 3 after HISTORY: Alice holds code 1-3-2; Bob has her hints."""
    state = DecryptoState(keywords=KEYWORDS, turn=2, phase="encode" if seat == "alice" else "decode", code=(1, 3, 2),
                          hints=("health", "conflict", "duty") if seat == "bob" else (), history=list(HISTORY),
                          miscommunications=1, interceptions=1)
    return dataclasses.replace(state, **changes)


def test_mode_zero_is_the_papers_text():
    for seat in ("alice", "bob", "eve"):
        assert system_prompt_variant(CFG, seat, 0) == system_prompt(CFG) + "\n\n" + role_prompt(seat, CFG)
        state = later_state(seat) if seat != "eve" else later_state("bob")
        assert user_prompt(CFG, seat, 0, state) == turn_summaries(state, CFG) + turn_request(seat, state, CFG)
    assert MODES == 5 and MODE_NAMES[0] == "paper"


@pytest.mark.parametrize("seat", ["alice", "bob"])
def test_every_mode_is_distinct_and_asks_for_the_same_answer(seat):
    systems = [system_prompt_variant(CFG, seat, m) for m in range(MODES)]
    users = [user_prompt(CFG, seat, m, later_state(seat)) for m in range(MODES)]
    assert len(set(systems)) == MODES and len(set(users)) == MODES
    assert len({s.split("\n\n")[0] for s in systems}) == MODES  # the rules component varies too
    for text in systems + users:
        if seat == "alice":
            assert 'ANSWER: {"hints": ["hint_X", "hint_Y", "hint_Z"]}' in text
        else:  # the decoder's prompts never show the hints format (the fake server keys on it)
            assert '"hints"' not in text and 'ANSWER: {"guess": "X-Y-Z"}' in text
    for text in systems:  # the game's counts are in every rules text
        assert "8" in text and "2" in text and "4" in text and "Interception" in text and "Miscommunication" in text


@pytest.mark.parametrize("seat,mode", list(itertools.product(["alice", "bob"], range(1, MODES))))
def test_every_variant_shows_every_fact_of_the_turn(seat, mode):
    state = later_state(seat)
    text = user_prompt(CFG, seat, mode, state)
    for word in KEYWORDS:
        assert word in text
    for record in HISTORY:
        for hint in record.hints:
            assert quote_text(hint) in text  # other seats' hints always quoted
        for code in (record.code, record.bob_guess, record.eve_guess):
            assert "-".join(map(str, code)) in text
    if seat == "alice":
        assert "1-3-2" in text and "1: condition, 3: issue, 2: task" in text
    else:
        assert all(quote_text(h) in text for h in state.hints)
    # every fact shown: changing any one changes the prompt
    for change in ({"miscommunications": 0}, {"interceptions": 0}, {"turn": 3}, {"history": HISTORY[:1]},
                   {"keywords": ("condition", "task", "issue", "engine")}):
        assert user_prompt(CFG, seat, mode, dataclasses.replace(state, **change)) != text, change
    first = user_prompt(CFG, seat, mode, later_state(seat, turn=0, history=[], miscommunications=0, interceptions=0))
    assert "problem" not in first and ("1 of 8" in first or "1/8" in first)


def test_variants_follow_the_config():
    cfg = DecryptoConfig(num_keywords=5, code_length=4, max_turns=6, miscommunication_limit=3, interception_limit=3)
    state = DecryptoState(keywords=KEYWORDS + ("engine",), code=(5, 1, 2, 3))
    for mode in range(1, MODES):
        system = system_prompt_variant(cfg, "alice", mode)
        assert system != system_prompt_variant(CFG, "alice", mode) and "6 turns" in system
        assert 'ANSWER: {"hints": ["hint_X", "hint_Y", "hint_Z", "hint_U"]}' in system
        assert 'ANSWER: {"guess": "X-Y-Z-U"}' in system_prompt_variant(cfg, "bob", mode)
        assert "5-1-2-3" in user_prompt(cfg, "alice", mode, state)


def test_bad_modes_are_one_line_errors():
    for bad in (5, -1, "2", True, 1.0):
        with pytest.raises(ValueError, match="must be an integer mode 0-4"):
            check_mode(bad, "system_mode", "alice")
    with pytest.raises(ValueError, match="only the encoder and decoder"):
        system_prompt_variant(CFG, "eve", 1)
    env = cluegym.make("decrypto")
    with pytest.raises((AgentSpecError, ValueError), match="user_mode"):
        make_agent("llm-cot:user_mode=2", game="decrypto", seat="eve", action_space=env.action_space("eve"))
    with pytest.raises((AgentSpecError, ValueError), match="system_mode"):
        make_agent("llm-cot:system_mode=9", game="decrypto", seat="bob", action_space=env.action_space("bob"))


def test_agent_sends_its_modes_and_reads_the_answer():
    env = cluegym.make("decrypto", keywords=list(KEYWORDS) + ["engine"])
    env.reset(seed=0, options={"keywords": list(KEYWORDS)})
    alice = make_agent("llm-cot:system_mode=3,user_mode=4", game="decrypto", seat="alice",
                       action_space=env.action_space("alice"), seed=0)
    alice.backend = ScriptedBackend(['Reasoning. ANSWER: {"hints": ["health", "chore", "gadget"]}'])
    obs, _, _, _, info = env.last()
    env.step(alice.act(obs, info))
    system, user = alice.backend.requests[0]
    assert system == {"role": "system", "content": system_prompt_variant(CFG, "alice", 3)}
    assert user["content"].startswith("STATUS: turn 1/8") and "TURN LOG: empty" in user["content"]
    assert alice.drain_log()[0]["style"] == "decrypto-paper[system=story,user=checklist]"
    bob = make_agent("llm-cot:system_mode=2,user_mode=1", game="decrypto", seat="bob",
                     action_space=env.action_space("bob"), seed=0)
    bob.backend = ScriptedBackend(['ANSWER: {"guess": "2-1-3"}'])
    obs, _, _, _, info = env.last()
    assert bob.act(obs, info) == CODES.index((2, 1, 3))
    sent = bob.backend.requests[0]
    assert sent == paper_messages(obs, "bob", CFG, system_mode=2, user_mode=1)
    assert '"health", "chore", "gadget"' not in sent[1]["content"]  # Bob sees them lettered, quoted
    assert 'a: "health"' in sent[1]["content"]
