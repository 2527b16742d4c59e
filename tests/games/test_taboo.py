"""Adversarial Taboo: derivative matching on tricky cases, rules by scripted games (rule
breaks, slips, right and wrong guesses, turn limit), malformed actions and fallbacks,
metrics, conformance, and a seeded golden playthrough."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from pettingzoo.test import api_test, seed_test

from cluegym.envs.core.record import replay, transcript
from cluegym.envs.taboo import env as taboo_env
from cluegym.envs.taboo.env import TabooEnv, raw_env
from cluegym.envs.core.matching import is_same_word_guess, lemmas, same_word, says_word
from cluegym.envs.taboo.rules import SILENCE, TabooConfig, metrics

GOLDEN = Path(__file__).parent / "golden" / "taboo_seed4.txt"
TARGETS = ["apple", "mouse", "bus", "fire", "run", "cat", "knife", "child", "doctor", "river"]

# ------------------------------------------------------------------ derivative matching
@pytest.mark.parametrize("text, word", [
    ("I ate two apples", "apple"),          # plural
    ("the Apple's skin", "apple"),          # possessive, capitals
    ("he was running late", "run"),         # -ing with a doubled consonant
    ("they ran home", "run"),               # irregular past
    ("three blind mice", "mouse"),          # irregular plural
    ("sharp knives", "knife"),              # -ves plural
    ("the buses were late", "bus"),         # -es plural the stemmer misses (WordNet morphy)
    ("fired from a cannon", "fire"),        # -ed
    ("the children laughed", "child"),      # irregular plural
    ("a fire-truck passed", "fire"),        # hyphenated compound part
    ("doctors and nurses", "doctor"),
    ("two sea otters", "sea otter"),        # multi-word, inflected
    ("my icecream melted", "ice cream"),    # multi-word, closed up
])
def test_derivatives_are_matched(text, word):
    assert says_word(text, word)


@pytest.mark.parametrize("text, word", [
    ("a category error", "cat"),            # shares letters only
    ("scatter the seeds", "cat"),
    ("a business plan", "bus"),
    ("a red carpet", "car"),
    ("the pineapple was sweet", "apple"),   # a compound is not a derivative (strict mode only)
    ("a firefighter came", "fire"),
    ("I see it", "saw"),                    # "saw" is a past of see, never the reverse
    ("the sea is calm", "sea otter"),       # one word of a phrase (strict mode only)
    ("", "apple"),
])
def test_non_derivatives_are_not_matched(text, word):
    assert not says_word(text, word)


def test_strict_mode_counts_containment_and_phrase_words():
    assert says_word("the pineapple was sweet", "apple", strict=True)
    assert says_word("a firefighter came", "fire", strict=True)
    assert says_word("the sea is calm", "sea otter", strict=True)
    assert not says_word("a red carpet", "cars", strict=True)


def test_lemmas_and_guesses():
    assert "bus" in lemmas("buses") and "mouse" in lemmas("mice") and "run" in lemmas("running")
    assert same_word("saw", "see") and not same_word("see", "saw")
    assert is_same_word_guess("Apples", "apple") and is_same_word_guess("an apple", "apple")
    assert is_same_word_guess("the mice", "mouse")
    assert not is_same_word_guess("apple pie", "apple") and not is_same_word_guess("pear", "apple")
    assert is_same_word_guess("sea otter", "sea otter") and not is_same_word_guess("otter", "sea otter")


@pytest.mark.parametrize("target, guess, right", [
    # a target of articles only: its content tokens were none, and every guess was wrong
    ("the", "the", True), ("the", "The", True), ("an", "an", True), ("of", "of", True),
    ("the", "a", False), ("the", "apple", False), ("the", "the the", False),
])
def test_a_target_of_articles_only_is_named_by_itself(target, guess, right):
    assert is_same_word_guess(guess, target) is right
    env = raw_env(targets=[target])
    env.reset(seed=0)
    env.step({"utterance": "A small word."})
    env.step({"utterance": "", "guess": guess})
    assert env.state.end_reason == ("correct_guess" if right else "wrong_guess")


def test_says_word_skips_only_pairs_with_no_form_in_common():
    # says_word reads most pairs' verdict from the words' kept forms (word_forms); the skip is
    # sound: same_word of any pair implies a shared form, so the verdicts are same_word's.
    import random

    from cluegym.envs.core.data import shipped_word_list
    from cluegym.envs.core.matching import _parts, word_forms

    words = list(shipped_word_list("cluegym.envs.decrypto", "hint_vocab.txt")[::5])
    words += ["mice", "mouse", "Mice", "\u0130x", "running", "ran", "run", "buses", "bus", "geese", "goose",
              "children", "child", "better", "good", "went", "go", "saw", "see", "fires", "firing"]
    rng = random.Random(0)
    for word in words[::9] + words[-21:]:
        for text in rng.sample(words, 60) + words[-21:]:
            (target,) = _parts(word)
            for part in _parts(text):
                if same_word(part, target):
                    assert not word_forms(part).isdisjoint(word_forms(target)), (part, target)
            assert says_word(text, word) == any(same_word(part, target) for part in _parts(text)), (text, word)
    assert word_forms("x" * 41) is None and says_word("y" * 41 + " fire", "fire")


def test_first_mention_skips_word_sets_with_no_form_in_common():
    # first_mention (Decrypto's hint rule) tells "none of these words" from the text's and the
    # word tuple's kept forms; its answers are the word-by-word checks', matches included.
    import random

    from cluegym.envs.core.data import shipped_word_list
    from cluegym.envs.core.matching import _says_none, first_mention

    vocab = list(shipped_word_list("cluegym.envs.decrypto", "hint_vocab.txt"))
    texts = vocab[::7] + ["fire-truck", "fire's", "mice", "firing", "the mouse", "sea otter", "R2-D2", "", "x" * 60]
    pool = vocab[::3] + ["fire", "mouse", "sea otter", "pen", "arm", "the", "", "x" * 50]
    rng = random.Random(0)
    skipped = 0
    for _ in range(20_000):
        text = rng.choice(texts)
        words = tuple(rng.sample(pool, 3)) + ((text.split("-")[0] or "a") if rng.random() < 0.3 else rng.choice(pool),)
        expected = next((word for word in words if says_word(text, word)), None)
        for strict in (False, True):
            assert first_mention(text, words, substring=strict) == next(
                (word for word in words if says_word(text, word, strict=strict)), None), (text, words, strict)
        skipped += _says_none(text, words)
        assert not (_says_none(text, words) and expected is not None)
    assert skipped > 5_000  # most sets are told apart by forms
    assert not _says_none("fire truck", ("sea otter", "ice"))  # a phrase among the words: checked one by one
    assert first_mention("fire truck", ("ice", "fire")) == "fire" and first_mention("mice", ("mouse",), substring=False)


def test_says_word_keeps_short_texts_verdicts_and_they_are_the_checks():
    from cluegym.envs.core.matching import _kept_verdict, _says_word

    class Text(str):
        pass

    pairs = [("The buses were late", "bus", False), ("a category error", "cat", False),
             ("a category error", "cat", True), ("three geese", "goose", False), ("firefighter", "fire", True),
             ("a sea otter swims", "sea otter", False), ("otter", "sea otter", True), ("", "apple", False),
             ("x" * 90 + " apples", "apple", False), ("x" * 110 + " apples", "apple", False)]
    _kept_verdict.cache_clear()
    for text, word, strict in pairs * 2:  # computed, then read back
        verdict = _says_word(text, word, strict)
        assert says_word(text, word, strict=strict) is verdict, (text, word, strict)
        assert says_word(Text(text), word, strict=strict) is verdict  # a str subclass: not kept
    assert _kept_verdict.cache_info().hits > 0 and _kept_verdict.cache_info().currsize < len(pairs) + 4


# ------------------------------------------------------------------------- the game
def new_env(target: str = "apple", seed: int = 0, **kwargs) -> TabooEnv:
    env = raw_env(targets=TARGETS, **kwargs)
    env.reset(seed=seed, options={"target": target})
    return env


def test_views_and_turn_order():
    env = new_env()
    assert env.agent_selection == "attacker"
    assert env.observe("attacker")["target"] == "apple"
    defender = env.observe("defender")
    assert "target" not in defender and "apple" not in defender["prompt"]
    assert "The secret word is [apple]" in env.observe("attacker")["prompt"]
    env.step({"utterance": "What grows in an orchard?"})
    assert env.agent_selection == "defender"
    env.step({"utterance": "Trees, I suppose.", "guess": ""})
    assert env.agent_selection == "attacker"
    obs = env.observe("defender")
    assert obs["dialogue"][:2] == ("What grows in an orchard?", "Trees, I suppose.") and obs["turn"] == 1
    assert 'Attacker (turn 1): "What grows in an orchard?"' in obs["prompt"]


@pytest.mark.parametrize("utterance", ["I love apples", "An APPLE a day", "apple's core"])
def test_attacker_saying_the_target_is_a_rule_break(utterance):
    env = new_env()
    env.step({"utterance": utterance})
    assert env.state.end_reason == "attacker_said_target" and env.state.winner == "defender"
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"attacker": -1.0, "defender": 1.0}
    assert "error" not in env.infos["attacker"]  # a game event, not a rejected action


def test_irregular_derivative_rule_break():
    env = new_env(target="mouse")
    env.step("Cats chase mice.")
    assert env.state.end_reason == "attacker_said_target"


def test_defender_saying_the_target_loses_even_with_a_right_guess():
    env = new_env()
    env.step({"utterance": "Think of an orchard."})
    env.step({"utterance": "Apples grow there.", "guess": "apple"})
    assert env.state.end_reason == "defender_said_target" and env.state.winner == "attacker"
    assert env._cumulative_rewards == {"attacker": 1.0, "defender": -1.0}


@pytest.mark.parametrize("guess, reason", [
    ("apple", "correct_guess"), ("Apples", "correct_guess"), ("an apple", "correct_guess"),
    ("pear", "wrong_guess"), ("apple pie", "wrong_guess"),
])
def test_guesses_end_the_game(guess, reason):
    env = new_env()
    env.step({"utterance": "Think of an orchard."})
    env.step({"utterance": "", "guess": guess})
    assert env.state.end_reason == reason
    winner = "defender" if reason == "correct_guess" else "attacker"
    assert env.state.winner == winner and env._cumulative_rewards[winner] == 1.0
    result = env.game_record()["result"]
    assert result["guess"] == guess and result["guess_turn"] == 1


def test_turn_limit_is_a_draw():
    env = new_env(max_turns=3)
    for turn in range(3):
        env.step({"utterance": f"Clue number {turn + 1}."})
        env.step({"utterance": "No idea yet.", "guess": ""})
    assert env.state.end_reason == "turn_limit" and env.state.winner is None
    assert env._cumulative_rewards == {"attacker": 0.0, "defender": 0.0}
    assert "This is your last turn" not in env.observe("defender")["prompt"]
    result = env.game_record()["result"]
    assert result["attacker_turns"] == result["defender_turns"] == 3


@pytest.mark.parametrize("seat, action, reason", [
    ("attacker", {"utterance": ""}, "empty"),
    ("attacker", {"utterance": "   "}, "empty"),
    ("attacker", {"utterance": "x" * 301}, "longer than 300"),
    ("attacker", {"utterance": 7}, "must be a string"),
    ("attacker", {"utterance": "hi", "guess": "apple"}, "unknown action field 'guess'"),
    ("attacker", 12, "must be a dict"),
    ("attacker", None, "must be a dict"),
    ("defender", {"utterance": "", "guess": ""}, "empty"),
    ("defender", {"utterance": "ok", "guess": "a very long guess phrase"}, "at most 3 words"),
    ("defender", {"utterance": "ok", "guess": 3}, "must be a string"),
    ("defender", {"utterance": "ok", "guess": "!!!"}, "must contain a word"),
    ("defender", {"utterance": "ok", "mood": "happy"}, "unknown action field 'mood'"),
])
def test_malformed_actions_rejected_then_fallback(seat, action, reason):
    env = new_env(max_retries=1)
    if seat == "defender":
        env.step({"utterance": "Think of an orchard."})
    env.step(action)
    assert env.agent_selection == seat and reason in env.infos[seat]["error"]
    assert len(env.state.dialogue) == (0 if seat == "attacker" else 1)
    env.step(action)
    assert env.agent_selection != seat and "fallback" in env.infos[seat]
    assert env.state.dialogue[-1].text == SILENCE and env.state.dialogue[-1].guess is None
    assert env.game_record()["counters"] == {"invalid_actions": 2, "fallbacks": 1, "forfeits": 0}


def test_strict_word_check_option():
    env = new_env(target="fire", strict_word_check=True)
    env.step("A firefighter came.")
    assert env.state.end_reason == "attacker_said_target"
    env = new_env(target="fire")
    env.step("A firefighter came.")
    assert env.state.end_reason is None


def test_config_and_targets(tmp_path):
    with pytest.raises(ValueError, match="max_turns"):
        TabooConfig(max_turns=0)
    with pytest.raises(FileNotFoundError):
        raw_env(targets=str(tmp_path / "none.txt"))
    path = tmp_path / "targets.txt"
    path.write_text("# my targets\nlantern\n")
    env = raw_env(targets=str(path))
    env.reset(seed=0)
    assert env.state.target == "lantern"


def test_shipped_targets():
    from cluegym.envs.taboo.env import random_vocabulary

    words = random_vocabulary()
    assert len(words) >= 300 and len(set(words)) == len(words)
    env = taboo_env.raw_env()
    env.reset(seed=0)
    assert env.state.target in words


def test_metrics():
    results = [
        {"winner": "defender", "end_reason": "correct_guess", "guess": "apple", "guess_turn": 2, "attacker_turns": 2, "defender_turns": 2},
        {"winner": "attacker", "end_reason": "wrong_guess", "guess": "pear", "guess_turn": 4, "attacker_turns": 4, "defender_turns": 4},
        {"winner": None, "end_reason": "turn_limit", "guess": None, "guess_turn": None, "attacker_turns": 5, "defender_turns": 5},
        {"winner": "defender", "end_reason": "attacker_said_target", "guess": None, "guess_turn": None, "attacker_turns": 1, "defender_turns": 0},
    ]
    m = metrics(results)
    assert m["attacker_win_rate"] == 0.25 and m["defender_win_rate"] == 0.5 and m["draw_rate"] == 0.25
    assert m["attacker_rule_break_rate"] == 0.25 and m["defender_slip_rate"] == 0.0
    assert m["guess_rate"] == 0.5 and m["guess_accuracy"] == 0.5 and m["avg_turns_to_guess"] == 3.0
    assert m["avg_turns"] == pytest.approx(23 / 4)
    assert metrics([]) == {"games": 0}


@pytest.mark.parametrize("kwargs", [{}, {"max_turns": 2}])
def test_pettingzoo_api_and_seed(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(taboo_env.env(targets=TARGETS, **kwargs), num_cycles=40)
        seed_test(lambda: taboo_env.env(targets=TARGETS, **kwargs), num_cycles=40)


def _scripted(seed: int) -> dict:
    env = taboo_env.env(targets=TARGETS)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        elif agent == "attacker":
            env.step({"utterance": f"Clue {int(obs['turn']) + 1} about it."})
        else:
            env.step({"utterance": "Hmm.", "guess": "river" if obs["turn"] == 3 else ""})
    return env.unwrapped.game_record()


def test_same_seed_same_game_and_replay():
    a, b = _scripted(4), _scripted(4)
    assert json.dumps(a) == json.dumps(b)
    assert any(_scripted(s)["result"]["target"] != a["result"]["target"] for s in range(5, 9))
    assert replay(a)["result"] == a["result"]


def test_golden_playthrough():
    record = _scripted(4)
    lines = [f"{s['agent']}: {s['action']}" for s in record["steps"]]
    text = "\n".join(lines) + "\n\n" + transcript(record) + "\n"
    if not GOLDEN.exists():  # regenerate by deleting the file; the committed file pins behaviour
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text)
        pytest.fail(f"golden transcript was missing and has been written to {GOLDEN}; commit it")
    assert text == GOLDEN.read_text()
