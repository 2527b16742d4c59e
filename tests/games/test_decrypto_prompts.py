"""Decrypto prompts are the paper's Listings 1-7 (appendix A.2/A.3), quoted here from the paper.

Each quote below is copied from decrypto.txt (the listings and the interface screenshots,
Figures 6-8); the env's prompt and the ``llm-cot`` messages must contain it word for word.
"""

from __future__ import annotations

import pytest

import cluegym
from cluegym.agents.llm.adapters.decrypto import paper_messages
from cluegym.envs.decrypto.env import CODES
from cluegym.envs.decrypto.prompts import FIRST_TURN, role_prompt, system_prompt
from cluegym.envs.decrypto.rules import DecryptoConfig

KEYWORDS = ["condition", "task", "issue", "device"]  # the paper's example keywords (Listings 5-7)

LISTING_1 = [
    "You are playing a variant of the code guessing game Decrypto. The setup of the game is the following:",
    "The Encoder and Decoder share a list of 4 secret keywords that they can rely on to help communication. "
    "Each keyword has a digit associated with it.",
    "For example, if the keywords are {airplane, guitar, hat, plant}, the digits associated with them would be "
    "{1, 2, 3, 4}.",
    "Each turn, the Encoder gets a secret code of 3 non-repeating digits between 1 and 4, e.g. 3-1-2.",
    "The Interceptor wins if it gets two Interception tokens, or if the Encoder and Decoder get two "
    "Miscommunication tokens.",
    "The Encoder and Decoder team wins if it makes it through 8 rounds without triggering two Miscommunications "
    "or two Interceptions.",
    "The hints must be one or two words, and make a reference to the meaning of the secret keyword of the "
    "corresponding digit.",
    "Codes are unique; the same code cannot occur twice in the same game.",
    'For example, if the four secret keywords are\n{1: "airplane", 2: "guitar", 3: "hat", 4: "plant"}\nand the '
    "code for that turn is 3-1-2, which means that we need hints for {3: hat, 1: airplane, 2: guitar}, the Encoder "
    "could hint {3: gentleman, 1: wing, 2: music}. Note that the order of the hints is important.",
    "Ignore these keywords in the future.",
    "When responding, first think through your decision step-by-step. After your step-by-step thinking, provide "
    'your final answer as a dictionary, clearly marked with "ANSWER:".',
]
LISTING_2 = [
    'You are the Encoder. Provide your hints like "ANSWER: {"hints": ["hint_X", "hint_Y", "hint_Z"]}", where '
    "hint_X, hint_Y, hint_Z are one or two words each. Make sure that the ordering of the hints follows the order "
    "of the code.",
    '- For the digit 2, the keyword is "hat". Since the previous hint for this keyword was "top", I want to give a '
    'hint that is different but still related to wearing a hat. One possible hint is "cap".',
    'So, the final hints are: {"hints": ["cap", "flame", "solve"]}',
]
LISTING_3 = [
    'You are the Decoder. Provide your guess like "ANSWER: {"guess": "X-Y-Z"}". Make sure that the ordering of the '
    "guess follows the order of the hints.",
    "4. Now that we have the connections, we can determine the code by looking at the order of the hints: "
    "{a: hat, b: fire, c: answer}. Therefore, the code is {2-1-3}.",
    'Final answer:\nANSWER: {"guess": "2-1-3"}',
]
LISTING_4 = [
    "You are the Interceptor. You do not have access to the four keywords. Provide your guess like "
    '"ANSWER: {"guess": "X-Y-Z"}" Make sure that the ordering of the guess follows the order of the hints.',
    "Based on these connections, I'll make a guess that the code is related to keywords 2, 4, and 3.",
    "Remember that the keywords could be anything. Use the most recent hint history to your advantage.\n"
    "Remember that digits do not repeat in the code and range from 1 to 4.",
]


def _env_after_paper_turn_1():
    """The paper's example game: turn 1 was code 3-1-4 with hints problem/status/machine."""
    env = cluegym.make("decrypto")
    env.reset(seed=0, options={"keywords": KEYWORDS})
    env.unwrapped.state.code = (3, 1, 4)
    env.step(("problem", "status", "machine"))
    env.step(CODES.index((3, 1, 4)))
    env.step(CODES.index((1, 2, 3)))
    return env


@pytest.mark.parametrize("quote", LISTING_1)
def test_listing_1_is_every_seats_system_prompt(quote):
    assert quote in system_prompt(DecryptoConfig())
    env = cluegym.make("decrypto")
    env.reset(seed=0)
    assert quote in env.observe("alice")["prompt"]


@pytest.mark.parametrize("seat, quotes", [("alice", LISTING_2), ("bob", LISTING_3), ("eve", LISTING_4)])
def test_listings_2_to_4_are_the_role_prompts(seat, quotes):
    for quote in quotes:
        assert quote in role_prompt(seat, DecryptoConfig())


def test_first_turn_says_so():
    env = cluegym.make("decrypto")
    env.reset(seed=0, options={"keywords": KEYWORDS})
    prompt = env.observe("alice")["prompt"]
    assert FIRST_TURN == "This is the first turn. There are no past hints or past codes."
    assert FIRST_TURN + "\nTurn 1: 0 Miscommunications, 0 Interceptions so far.\nYou are the Encoder." in prompt


def test_listing_5_alice_user_prompt():
    env = _env_after_paper_turn_1()
    env.unwrapped.state.code = (3, 4, 1)  # Figure 12's turn-2 code
    prompt = env.observe("alice")["prompt"]
    assert FIRST_TURN not in prompt
    assert (
        "Turn 1 summary:\nCode: 3-1-4\n"
        'Hints: ["problem", "status", "machine"]\n'  # the paper prints a Python list: values are quoted here
        "Decoder guess: 3-1-4\nInterceptor guess: 1-2-3\n\n"
        'Hint History:\nKeyword 1: "status"\nKeyword 2:\nKeyword 3: "problem"\nKeyword 4: "machine"\n'
        "Code History: 3-1-4\n\n"
        "Turn 2: 0 Miscommunications, 0 Interceptions so far.\n"
        "You are the Encoder.\n"
        "The four keywords are: {1: condition, 2: task, 3: issue, 4: device}\n"
        "The code is 3-4-1, which corresponds to the keywords {3: issue, 4: device, 1: condition}.\n"
        "First, think out loud, step-by-step about what hints you should use. Use the meaning of the keywords to "
        "come up with a one or two-word hint for each digit of the code. Make sure the order of the hints matches "
        "the order of the code.\n"
        'Then provide your three hints like "ANSWER: {"hints": ["hint_X", "hint_Y", "hint_Z"]}", where hint_X, '
        "hint_Y, hint_Z are your hints."
    ) in prompt


def test_listings_6_and_7_bob_and_eve_user_prompts():
    env = _env_after_paper_turn_1()
    env.step(("conflict", "tool", "state"))
    bob, eve = env.observe("bob")["prompt"], env.observe("eve")["prompt"]
    hints = 'The hints given by the Encoder for this turn are: {a: "conflict", b: "tool", c: "state"}\n'
    assert (
        "Turn 2: 0 Miscommunications, 0 Interceptions so far.\nYou are the Decoder.\n"
        "The four keywords are: {1: condition, 2: task, 3: issue, 4: device}\n" + hints
        + "For example, you might think the following connections are true {a: X, b: Y, c: Z}, where X, Y, Z are "
        "non-repeating digits from 1 to 4.\n"
        'Your guess should be in the order of the hints: {"guess": "X-Y-Z"}.\n'
        "What is your guess for the three-digit code? Apply concise, step-by-step thinking, double-check the order, "
        'and then provide your final answer as "ANSWER: {"guess": "X-Y-Z"}".'
    ) in bob
    assert (
        "Turn 2: 0 Miscommunications, 0 Interceptions so far.\nYou are the Interceptor.\n" + hints
        + "For example, you might think the following connections are true: {a: X, b: Y, c: Z}, where X, Y, Z are "
        'non-repeating digits from 1 to 4. Your guess should be in the order of the hints: {"guess": "X-Y-Z"}.\n'
        "Use the hint history to your advantage.\n"
        "What is your guess for the three-digit code? Reply with very concise, step-by-step thinking, followed by "
        'your final answer as "ANSWER: {"guess": "X-Y-Z"}".'
    ) in eve
    assert "condition" not in eve


def test_specialist_messages_split_system_and_user():
    env = _env_after_paper_turn_1()
    env.step(("conflict", "tool", "state"))
    obs = env.observe("eve")
    system, user = paper_messages(obs, "eve", DecryptoConfig())
    assert system["role"] == "system" and user["role"] == "user"
    assert system["content"] == system_prompt(DecryptoConfig()) + "\n\n" + role_prompt("eve", DecryptoConfig())
    assert user["content"].startswith("Turn 1 summary:") and obs["prompt"].endswith(user["content"])


def test_counts_follow_the_config():
    cfg = DecryptoConfig(num_keywords=5, code_length=2, max_turns=6, interception_limit=3)
    text = system_prompt(cfg) + role_prompt("eve", cfg)
    assert "a secret code of 2 non-repeating digits between 1 and 5, e.g. 3-1." in text
    assert "through 6 rounds without triggering two Miscommunications or three Interceptions" in text
    assert "access to the five keywords" in text and "range from 1 to 5." in text


def test_views_of_the_past_match_the_prompt_builders_over_consecutive_games():
    """The env extends its kept view of the past turns by one turn at a time (also across
    games, from the last game's view); every observation must still show what the prompt
    builders make from the State alone (turn_summaries via full_prompt, hint_history). Half
    the steps are not observed (an agent that reads only its info), so that a view is
    sometimes asked for two turns after the last one the env built."""
    import numpy as np

    from cluegym.envs.core.spaces import pad_texts
    from cluegym.envs.decrypto.prompts import full_prompt

    env = cluegym.make("decrypto", record_observations=False)
    game, cfg = env.unwrapped, env.unwrapped.game_config
    rng = np.random.default_rng(7)
    hints = ["river", "stone", "lantern", "meadow", "violin", "harbor"]
    checked = 0
    for seed in range(40):
        env.reset(seed=seed)
        for seat in env.agent_iter():
            observe = bool(rng.random() < 0.5)
            obs, _, term, trunc, info = env.last(observe=observe)
            if observe:
                state = game.state
                assert obs["prompt"] == full_prompt(seat, state, cfg)
                assert obs["hint_history"] == tuple(pad_texts(h, cfg.max_turns) for h in state.hint_history(4))
                turns = len(state.history)
                assert obs["code_history"][:turns].tolist() == [list(r.code) for r in state.history]
                assert obs["guess_history"][:turns].tolist() == [[list(r.bob_guess), list(r.eve_guess)]
                                                                for r in state.history]
                assert not obs["code_history"][turns:].any() and not obs["guess_history"][turns:].any()
                checked += 1
            if term or trunc:
                env.step(None)
            elif seat == "alice":
                env.step(tuple(rng.choice(hints, size=cfg.code_length, replace=False)))
            else:
                env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert checked > 150


def test_view_of_another_games_past_is_not_extended():
    """A game whose first observation comes one turn after the length of the last game's
    history (an agent that observed nothing of it) gets its own past, not the last game's
    past with one turn added."""
    from cluegym.envs.decrypto.prompts import full_prompt

    env = cluegym.make("decrypto", record_observations=False)
    game = env.unwrapped

    def play_turn(bob_right: bool) -> None:
        code = game.state.code
        env.step(("river", "stone", "lantern"))
        wrong = next(i for i, c in enumerate(CODES) if c != code and c not in game.state.used_codes)
        env.step(CODES.index(code) if bob_right else wrong)  # bob
        env.step(wrong)  # eve

    env.reset(seed=1)
    play_turn(bob_right=False)
    play_turn(bob_right=False)  # two miscommunications: over after 2 turns
    assert game.state.phase == "over"
    env.last()  # the finished game's view (2 turns) is the one kept
    env.reset(seed=2)
    for _ in range(3):
        play_turn(bob_right=True)
    state = game.state
    assert len(state.history) == 3 and state.phase == "encode"
    assert env.last()[0]["prompt"] == full_prompt("alice", state, game.game_config)
