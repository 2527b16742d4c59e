"""Tolerant answer parsing on a corpus of real-looking malformed LLM replies."""

from __future__ import annotations

import pytest

from cluegym.agents.llm.parsing import (
    ParseError, extract_dict, parse_code, parse_hints, parse_int, parse_json_answer, parse_labeled, parse_tags,
)

CODE_REPLIES = [
    ('1. The hint for a is cap... {a: 2}\nANSWER: {"guess": "2-1-3"}', (2, 1, 3)),
    ("ANSWER: {'guess': '2-1-3'}", (2, 1, 3)),
    ('**ANSWER:** { "guess": "4 - 1 - 2" }', (4, 1, 2)),
    ('ANSWER: {\\"guess\\": \\"3-4-1\\"}', (3, 4, 1)),  # copied the prompt's escaping
    ('Final answer:\n```json\n{"guess": [3, 1, 2]}\n```', (3, 1, 2)),
    ('ANSWER: {"guess": "213"}', (2, 1, 3)),
    ('ANSWER: {"guess": "2, 4, 1"}', (2, 4, 1)),
    ("ANSWER: 2-4-3.", (2, 4, 3)),
    ("Final Answer: 1-4-2", (1, 4, 2)),
    ('ANSWER: { guess: "2-1-3", }', (2, 1, 3)),  # unquoted key, trailing comma
    ("ANSWER: {\u201cguess\u201d: \u201c2-3-4\u201d}", (2, 3, 4)),  # curly quotes
    ('ANSWER: {"guess": "2-1-3"', (2, 1, 3)),  # cut off by max_tokens
    ('<think>Maybe ANSWER: {"guess": "1-2-3"}?</think>\nANSWER: {"guess": "3-2-1"}', (3, 2, 1)),
    ('First I thought ANSWER: {"guess": "1-2-3"} but no.\nANSWER: {"guess": "4-3-2"}', (4, 3, 2)),  # last one wins
    ("My reasoning points to keywords 1, then 3, then 4, so the code is 1-3-4", (1, 3, 4)),
    ('{"guess": "4-2-1", "confidence": "high"}', (4, 2, 1)),
]

BAD_CODE_REPLIES = [
    ('ANSWER: {"guess": "1-1-2"}', "not a valid code"),
    ('ANSWER: {"guess": "1-2-5"}', "not a valid code"),
    ('ANSWER: {"guess": "1-2"}', "not a valid code"),
    ('ANSWER: {"guess": "X-Y-Z"}', "no code found"),
    ("I'm sorry, I can't help with that.", "no code found"),
    ("", "no code found"),
]

HINT_REPLIES = [
    ('ANSWER: {"hints": ["cap", "flame", "solve"]}', ("cap", "flame", "solve")),
    ("ANSWER: {'hints': ['ice cream', \"it's hot\", 'sun']}", ("ice cream", "it's hot", "sun")),
    ('ANSWER: {"hints": ["cap", "flame", "solve"', ("cap", "flame", "solve")),  # cut off
    ('ANSWER: ["cap", "flame", "solve"]', ("cap", "flame", "solve")),
    ('ANSWER: {"hints": "cap, flame, solve"}', ("cap", "flame", "solve")),
    ('**ANSWER**: {"Hints": ["Cap.", " flame ", "solve"]}', ("Cap", "flame", "solve")),
    ('ANSWER: {\\"hints\\": [\\"cap\\", \\"flame\\", \\"solve\\"]}', ("cap", "flame", "solve")),
    ('Hints for 2, 1, 3:\n```\n{"hints": ["cap","flame","solve"],}\n```', ("cap", "flame", "solve")),
]


@pytest.mark.parametrize("reply,expected", CODE_REPLIES)
def test_parse_code_tolerates_real_formats(reply, expected):
    assert parse_code(reply, code_length=3, num_keywords=4) == expected


@pytest.mark.parametrize("reply,reason", BAD_CODE_REPLIES)
def test_parse_code_explains_failures(reply, reason):
    with pytest.raises(ParseError, match=reason) as info:
        parse_code(reply, code_length=3, num_keywords=4)
    assert 'ANSWER: {"guess": "3-2-1"}' in str(info.value)  # tells the model what to send


@pytest.mark.parametrize("reply,expected", HINT_REPLIES)
def test_parse_hints_tolerates_real_formats(reply, expected):
    assert parse_hints(reply, count=3) == expected


def test_parse_hints_wrong_count_and_missing():
    with pytest.raises(ParseError, match="you gave 2 hints"):
        parse_hints('ANSWER: {"hints": ["cap", "flame"]}', count=3)
    with pytest.raises(ParseError, match="no hints found"):
        parse_hints("I would say cap, flame and solve.", count=3)


def test_json_answer_with_prose_fences_and_escapes():
    assert parse_json_answer('```json\n{"reasoning": "calm sea", "answer": "3"}\n```') == ("3", "calm sea")
    assert parse_json_answer('Sure! {"reasoning": "a \\"lonely\\" moon", "answer": 2} Hope it helps') == (2, 'a "lonely" moon')
    assert parse_json_answer("{'reasoning': 'x', 'answer': 'Card 4'}")[0] == "Card 4"
    with pytest.raises(ParseError):
        parse_json_answer("The answer is card 3.")


def test_parse_int_ranges():
    assert parse_int("Card 3", 1, 4) == 3
    assert parse_int(85.5, 0, 100, allow_fraction=True) == 85  # a rating may be fractional
    assert parse_int(3.0, 1, 4) == 3 and parse_int("Card 3.0", 1, 4) == 3
    with pytest.raises(ParseError, match="whole number"):
        parse_int(2.5, 1, 4)  # a card number may not
    assert parse_int("85/100", 0, 100) == 85
    with pytest.raises(ParseError, match="from 1 to 4"):
        parse_int("7", 1, 4)
    with pytest.raises(ParseError):
        parse_int("none", 1, 4)


def test_tags_and_labels():
    text = "<RESPONSE>\n<strategy>guess</strategy><CANDIDATE>apple</CANDIDATE>\n<DIALOGUE>I love pie"
    assert parse_tags(text, ["strategy", "candidate", "dialogue"]) == {"strategy": "guess", "candidate": "apple", "dialogue": "I love pie"}
    with pytest.raises(ParseError, match="<DIALOGUE>"):
        parse_tags("<FOCUS>x</FOCUS>", ["FOCUS", "DIALOGUE"], required=["DIALOGUE"])
    assert parse_labeled("**Speech:** It is sweet.\nvote: 3", ["speech", "vote"]) == {"speech": "It is sweet.", "vote": "3"}


def test_extract_dict_prefers_the_answer_after_the_marker():
    reply = 'Example from the rules: {"guess": "1-2-3"}. ANSWER: {"guess": "4-3-2"}'
    assert extract_dict(reply, "guess") == {"guess": "4-3-2"}
    with pytest.raises(ParseError, match='dictionary with "hints"'):
        extract_dict(reply, "hints")
