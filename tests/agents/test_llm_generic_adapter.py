"""The generic LLM adapter reads replies by the action space: Discrete (range and mask), Text
(cleaned and bounded), Dict/Tuple (JSON entries per sub-space); anything else is a ParseError."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from cluegym.agents.llm.adapters.generic import GenericAdapter, read_answer
from cluegym.agents.llm.parsing import ParseError
from cluegym.envs.core.spaces import text_space

NUMBER = gymnasium.spaces.Discrete(10, start=1)
MASK = np.array([0, 1, 1, 0, 0, 0, 1, 0, 0, 0], dtype=np.int8)  # 2, 3 and 7 are legal


@pytest.mark.parametrize("reply, expected", [
    ("7", 7), ("ANSWER: 3", 3), ("I pick **2**.", 2), ("<think>maybe 9 or 10</think> ANSWER: 7", 7),
    ("Card 3 it is", 3), ("ANSWER: 7.0", 7), ("After 5 and 9 were ruled out... ANSWER: 2", 2),
])
def test_discrete_answers(reply, expected):
    assert read_answer(reply, NUMBER, MASK) == expected


@pytest.mark.parametrize("reply, reason", [
    ("no idea", "no number found; answer with one whole number from 1 to 10, e.g. ANSWER: 2"),
    ("2 or 3", "several numbers (2, 3); give exactly one"),
    ("ANSWER: 11", "from 1 to 10, got 11"),
    ("ANSWER: 4", "4 is not allowed now; allowed: 2, 3, 7"),
    ("ANSWER: 2.5", "a whole number"),
    ("ANSWER: " + "9" * 5000, "from 1 to 10"),
])
def test_discrete_unreadable(reply, reason):
    with pytest.raises(ParseError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        read_answer(reply, NUMBER, MASK)


def test_mask_from_info_when_the_observation_has_none():
    adapter = GenericAdapter(NUMBER)
    assert adapter.parse_action("ANSWER: 4", {"prompt": "p"}, {}, "seat") == 4
    with pytest.raises(ParseError, match="not allowed now"):
        adapter.parse_action("ANSWER: 4", {"prompt": "p"}, {"action_mask": MASK}, "seat")
    assert adapter.generalist_messages({"prompt": "Guess."}, {}, "seat") == [{"role": "user", "content": "Guess."}]
    with pytest.raises(ValueError, match="has no 'prompt'"):
        adapter.generalist_messages({"x": 1}, {}, "seat")


def test_text_answers_are_cleaned_and_bounded():
    space = text_space(20, min_length=1)
    assert read_answer('Here it goes. ANSWER: "a quiet\nstorm"', space) == "a quiet storm"
    assert read_answer("  a dozen  ", space) == "a dozen"
    with pytest.raises(ParseError, match="is 33 characters long; at most 20 are allowed"):
        read_answer("ANSWER: " + "a much longer answer than allowed", space)
    with pytest.raises(ParseError, match="is empty"):
        read_answer('ANSWER: ""', space)


def test_dict_and_tuple_answers_are_read_per_entry():
    space = gymnasium.spaces.Dict({"card": gymnasium.spaces.Discrete(4), "clue": text_space(30, min_length=1),
                                   "note": text_space(10, min_length=0)})
    masks = {"card": np.array([0, 1, 1, 0], dtype=np.int8), "clue": None}
    assert read_answer('ANSWER: {"Card": "2", "clue": "a red door"}', space, masks) == \
        {"card": 2, "clue": "a red door", "note": ""}
    with pytest.raises(ParseError, match='the "card": 3 is not allowed now; allowed: 1, 2'):
        read_answer('{"card": 3, "clue": "x"}', space, masks)
    with pytest.raises(ParseError, match='lacks "clue"'):
        read_answer('{"card": 1}', space, masks)
    pair = gymnasium.spaces.Tuple([gymnasium.spaces.Discrete(3), text_space(10)])
    assert read_answer('I choose [2, "moon"]', pair) == (2, "moon")
    with pytest.raises(ParseError, match="no JSON array of 2 entries"):
        read_answer("[1, 2, 3]", pair)


def test_spaces_it_cannot_read():
    with pytest.raises(ParseError, match="cannot read a Box action"):
        read_answer("ANSWER: 0.5", gymnasium.spaces.Box(0, 1, shape=(2,)))
    nested = gymnasium.spaces.Dict({"x": gymnasium.spaces.Box(0, 1, shape=(2,))})
    with pytest.raises(ParseError, match='the "x": the generic LLM adapter cannot read a Box entry'):
        read_answer('{"x": [0.5, 0.5]}', nested)
