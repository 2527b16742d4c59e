"""Seeded fuzzing of every LLM answer parser (each game adapter, CoMet, the ToM probes, the
shared helpers) with hostile replies: NaN, Infinity, 1e400, 5,000-digit numbers, JSON nested
3,000 deep, negative numbers, fractions, wrong types, megabytes of text, long blank runs (regex
backtracking). Only ParseError may escape, every call is fast, and whatever parses is in range."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any, Callable

import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.agents.base import Forfeit
from cluegym.agents.llm import comet
from cluegym.agents.llm.agent import text_bounds_error
from cluegym.agents.llm.backends import ScriptedBackend
from cluegym.agents.llm.fault_server import ANSWER_KEYS, FAULTS, hostile_reply
from cluegym.agents.llm.parsing import (
    ParseError, extract_dict, parse_int, parse_json_answer, parse_labeled, parse_tags,
)
from cluegym.agents.llm.adapters import decrypto, dixit, taboo, undercover

NINES = "9" * 5000
VALUES = [
    "NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1e308", "-1", "0", "2.5", "3.0", "4", "7", NINES, "-" + NINES,
    f'"player_{NINES}"', '"player_-1"', '"player_2"', '"player_2.5"', '"Player 3"', '"1-2-3"', '"2-1-3"', '"213"',
    f'"{NINES}"', '"1e400"', '"NaN"', '"-3"', '"Card 3"', '"Candidate 2"', '"85/100"', '"  "', '""', "true", "null",
    "[]", "{}", "[1, 2, 3]", "[2.0, 1.0, 3.0]", "[-1, 2, 3]", '["a", "b", "c"]', '["a", 1, null]', '[["a"], "b", "c"]',
    '{"a": NaN}', '{"self": "civilian", "others": {"player_1": Infinity}}', "[" * 3000 + "]" * 3000,
    '{"a":' * 3000 + "1" + "}" * 3000, '"' + "word " * 20000 + '"', "'single quoted'", '"a \\" quote"',
]
WRAPPERS = [
    "ANSWER: {{{body}}}", "**ANSWER**: {{{body}}}", "```json\n{{{body}}}\n```", "Sure! {{{body}}} Hope it helps.",
    "ANSWER: {{{body}", "<think>ANSWER: {{{body}}}</think> ANSWER: {{{body}}}", "<think>" * 3000 + "ANSWER: {{{body}}}",
    "final answer = {{{body}}}", "ANSWER: [{body}]", "<RESPONSE><DIALOGUE>{body}</DIALOGUE><CANDIDATE>{body}</CANDIDATE>",
]
PATHOLOGICAL = [
    "", " ", "ANSWER:", "answer" + " " * 60000 + "x", "1" + " " * 60000 + "2", "<" + " " * 60000 + "x",
    "<DIALOGUE><" + " " * 60000 + "/x", "*" * 60000, "\n" * 60000 + "vote: 3", "{" * 60000, "[" * 60000,
    '"' * 60000, "{}" * 30000, "[1,2,3]" * 8000, "ANSWER: " * 8000, "<think>" * 8000, "</think>" * 8000,
    "'" * 60000, "\\" * 60000, "x" * 2_000_000 + ' ANSWER: {"guess": "1-2-3", "vote": 2, "answer": 1}',
    "\u201c" * 30000, "\x00\x0b\x0c\r" * 10000, "ANSWER: {" + ", ".join(f'"k{i}": {i}' for i in range(20000)) + "}",
]


def hostile_replies(seed: int, count: int) -> list[str]:
    """The fault server's reply faults, the pathological corpus, and ``count`` random
    combinations of hostile values, keys and wrappers."""
    rng = random.Random(seed)
    replies = [hostile_reply(f, 'ANSWER: {"guess": "1-2-3"}', 300_000) for f in
               ("nan", "inf", "-inf", "1e400", "hugeint", "negative", "fraction", "wrongtype", "deep", "giant")]
    replies += PATHOLOGICAL
    keys = list(ANSWER_KEYS) + ["reasoning", "GUESS", "Vote", "x"]
    for _ in range(count):
        fields = ", ".join(f'"{rng.choice(keys)}": {rng.choice(VALUES)}' for _ in range(rng.randint(1, 4)))
        reply = rng.choice(WRAPPERS).format(body=fields)
        if rng.random() < 0.3:  # cut off by max_tokens
            reply = reply[: rng.randint(0, len(reply))]
        replies.append(reply)
    return replies


def steps_until(env, predicate: Callable[[dict[str, Any]], bool], act: Callable[[str, dict, dict], Any]):
    for _ in range(200):
        obs, _, term, trunc, info = env.last()
        if predicate(obs):
            return obs, info
        env.step(None if term or trunc else act(env.agent_selection, obs, info))
    raise AssertionError("phase not reached")


def observations() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    out = {}
    env = cluegym.make("decrypto", keywords=["apple", "river", "guitar", "castle", "doctor"])
    env.reset(seed=0)
    out["alice"] = env.last()[0], env.last()[4]
    env.step(("fruit", "stream", "strings"))
    out["bob"] = env.last()[0], env.last()[4]
    env.step(0)
    out["eve"] = env.last()[0], env.last()[4]
    env = cluegym.make("undercover")
    env.reset(seed=0)
    out["speak"] = env.last()[0], env.last()[4]
    out["vote"] = steps_until(env, lambda o: int(o["phase"]) == 1, lambda s, o, i: {"description": "a thing you can hold"})
    env = cluegym.make("dixit", num_rounds=2)
    env.reset(seed=0)
    out["story"] = env.last()[0], env.last()[4]
    env.step({"card": 0, "clue": "a quiet storm"})
    out["distract"] = env.last()[0], env.last()[4]
    out["listen"] = steps_until(env, lambda o: int(o["phase"]) == 2 and int(o["own_candidate"]) >= 0,
                                lambda s, o, i: {"card": 0})
    return out


def parsers() -> dict[str, Callable[[str], Any]]:
    obs = observations()

    def adapter(module, key: str, seat: str) -> Callable[[str], Any]:
        o, i = obs[key]
        return lambda t: module.parse_action(t, o, i, seat)

    vote_obs = obs["vote"][0]
    listen_obs, listen_info = obs["listen"]
    return {
        "decrypto/alice": adapter(decrypto, "alice", "alice"),
        "decrypto/bob": adapter(decrypto, "bob", "bob"),
        "decrypto/eve": adapter(decrypto, "eve", "eve"),
        "decrypto/keywords": lambda t: decrypto.parse_keywords(t, 4),
        "undercover/speak": adapter(undercover, "speak", "player_0"),
        "undercover/vote": adapter(undercover, "vote", f"player_{int(vote_obs['player'])}"),
        "comet/vote": lambda t: comet.parse_vote(t, vote_obs),
        "comet/description": comet.parse_description,
        "comet/attacker": comet.parse_attacker,
        "comet/defender": comet.parse_defender,
        **{f"comet/{key}": (lambda k: lambda t: extract_dict(t, k))(key)
           for key in ("features", "hypotheses", "beliefs", "identity", "strategy", "feature", "revision")},
        "taboo/attacker": lambda t: taboo.parse_action(t, {}, {}, "attacker"),
        "taboo/defender": lambda t: taboo.parse_action(t, {}, {}, "defender"),
        "dixit/story": adapter(dixit, "story", "player_0"),
        "dixit/distract": adapter(dixit, "distract", "player_1"),
        "dixit/listen": adapter(dixit, "listen", "player_1"),
        "dixit/describe": dixit.parse_description,
        "dixit/score": lambda t: parse_int(parse_json_answer(t)[0], 0, 100, "score", allow_fraction=True),
        "dixit/direct": lambda t: dixit.card_choice(parse_json_answer(t)[0], listen_obs, listen_info),
        "labeled": lambda t: parse_labeled(t, ["speech", "vote"]),
        "tags": lambda t: parse_tags(t, ["FOCUS", "DIALOGUE"], required=["DIALOGUE"]),
    }


def check_in_range(name: str, value: Any, obs: dict[str, tuple[dict, dict]]) -> None:
    """What parses is a legal action: range- and mask-checked."""
    if name in ("decrypto/bob", "decrypto/eve"):
        assert isinstance(value, int) and obs[name.split("/")[1]][0]["action_mask"][value]
    elif name in ("undercover/vote", "comet/vote"):
        vote = value["vote"] if isinstance(value, dict) else value
        assert isinstance(vote, int) and obs["vote"][0]["vote_mask"][vote]
    elif name in ("dixit/listen", "dixit/direct"):
        card = value["card"] if isinstance(value, dict) else value
        assert isinstance(card, int) and card != int(obs["listen"][0]["own_candidate"])
        assert obs["listen"][1]["action_mask"]["card"][card]
    elif name == "dixit/score":
        assert isinstance(value, int) and 0 <= value <= 100
    elif name == "decrypto/alice":
        assert len(value) == 3 and all(isinstance(h, str) and h for h in value)


def test_only_parse_errors_escape_every_parser():
    replies = hostile_replies(seed=0, count=150)
    table = parsers()
    obs = observations()
    spaces = {"decrypto/alice": cluegym.make("decrypto").action_space("alice")}
    slowest = (0.0, "", "")
    parsed = 0
    for reply in replies:
        for name, parse in table.items():
            start = time.perf_counter()
            try:
                value = parse(reply)
            except ParseError as exc:
                assert str(exc) and len(str(exc)) < 1000, name  # a short reason for the model
                value = None
            except Exception as exc:  # noqa: BLE001 - the point of the test
                pytest.fail(f"{name} raised {type(exc).__name__}: {str(exc)[:200]} on {reply[:120]!r}")
            took = time.perf_counter() - start
            slowest = max(slowest, (took, name, reply[:60]))
            if value is not None:
                parsed += 1
                check_in_range(name, value, obs)
                if name in spaces:
                    text_bounds_error(value, spaces[name])  # must not raise either
    assert parsed > 100  # the corpus also holds readable answers, and they are read
    assert slowest[0] < 5.0, f"{slowest[1]} took {slowest[0]:.1f}s on {slowest[2]!r}"


def test_hostile_numbers_are_refused_with_a_reason():
    obs = observations()
    vote_obs, vote_info = obs["vote"]
    seat = f"player_{int(vote_obs['player'])}"
    for fault in ("nan", "inf", "-inf", "1e400", "hugeint", "negative", "fraction", "deep"):
        reply = hostile_reply(fault)
        for parse in (lambda t: decrypto.parse_action(t, *obs["bob"], "bob"),
                      lambda t: undercover.parse_action(t, vote_obs, vote_info, seat),
                      lambda t: dixit.parse_action(t, *obs["listen"], "player_1")):
            with pytest.raises(ParseError):
                parse(reply)
    with pytest.raises(ParseError, match="by its whole number"):
        undercover.player_index(f"player_{NINES}", 5)
    with pytest.raises(ParseError, match="you cannot vote for player_"):
        undercover.player_index(int(vote_obs["player"]), 5, vote_obs["vote_mask"])  # oneself
    with pytest.raises(ParseError, match="whole number"):
        undercover.player_index(2.5, 5)
    assert undercover.player_index(2.0, 5) == 2
    with pytest.raises(ParseError, match="NaN"):
        parse_int(float("nan"), 1, 4)
    with pytest.raises(ParseError):
        parse_int(10**5000, 1, 4)
    with pytest.raises(ParseError, match="own card"):
        dixit.card_choice(int(obs["listen"][0]["own_candidate"]) + 1, *obs["listen"])


@pytest.mark.parametrize("game,seat,name", [
    ("decrypto", "alice", "llm"), ("decrypto", "alice", "llm-cot"), ("undercover", "player_0", "llm"),
    ("undercover", "player_0", "llm-cot"), ("undercover", "player_0", "comet"), ("taboo", "defender", "llm"),
    ("taboo", "attacker", "comet"), ("taboo", "defender", "comet"), ("dixit", "player_0", "llm"),
    ("dixit", "player_0", "llm-cot"),
])
def test_agents_turn_any_reply_into_an_action_or_a_forfeit(game, seat, name):
    """Through the whole agent (logging, bounds check, re-asks): an action or Forfeit, nothing else."""
    env = cluegym.make(game, **({"num_rounds": 2} if game == "dixit" else {}))
    env.reset(seed=1)
    while env.agent_selection != seat:
        env.unwrapped.forfeit("skip to the seat under test")
    obs, _, _, _, info = env.last()
    replies = hostile_replies(seed=hash((game, seat, name)) % 1000, count=12)[::3]
    agent = make_agent(f"{name}:parse_retries=1", game=game, seat=seat, action_space=env.action_space(seat), seed=0)
    agent.backend = ScriptedBackend(replies)
    outcomes = []
    for _ in range(len(replies)):
        agent.reset(0)
        try:
            outcomes.append(asyncio.run(agent.act_async(obs, info)))
        except Forfeit as exc:
            assert "step" in str(exc)
            outcomes.append(None)
    assert agent.stats()["forfeits"] == outcomes.count(None)
    for call in agent.drain_log():
        assert "parsed" in call or "parse_error" in call
        assert len(call["reply"]) <= 100_000


def test_fault_catalogue_covers_the_issue():
    assert {"nan", "inf", "-inf", "1e400", "deep", "hugeint", "hang", "drop", "drop_mid", "slow"} <= set(FAULTS)
    assert hostile_reply("deep").count("[") >= 3000 and "9" * 5000 in hostile_reply("hugeint")
