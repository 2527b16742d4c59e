"""The human agent: every game playable by typed answers; the terminal path through a pseudo-terminal."""

from __future__ import annotations

import io
import itertools
import re
import sys

import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.agents.base import Forfeit
from cluegym.agents.human import HumanAgent, HumanTurn, TerminalConsole, view_fields
from cluegym.harness import build_agents, play_game

#: Answers a scripted "human" cycles through, per game: each rejection moves to the next one.
ANSWERS = {
    "dixit": ["card=1; clue=a quiet evening", "1", "2", "3", "4"],
    "decrypto": ["velvet, harbor, lantern", *("-".join(map(str, p)) for p in itertools.permutations(range(1, 5), 3))],
    "undercover": ["it is something you can find outside", *(f"player_{i}" for i in range(5))],
    "taboo": ["think of something we eat", "guess=apple; utterance=maybe fruit"],
}


class ScriptedConsole:
    """Types the next answer of a cycle at every question; keeps every question it was asked."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = itertools.cycle(answers)
        self.turns: list[HumanTurn] = []

    async def ask(self, turn: HumanTurn) -> str:
        self.turns.append(turn)
        return next(self.answers)


@pytest.mark.parametrize("game", ["dixit", "decrypto", "undercover", "taboo"])
def test_humans_in_every_seat_finish_every_game(game):
    env = cluegym.make(game, **({"num_rounds": 4} if game == "dixit" else {}))
    agents = build_agents(game, env, dict.fromkeys(env.possible_agents, "human"), make_agent=make_agent)
    consoles = {}
    for seat, agent in agents.items():
        assert isinstance(agent, HumanAgent)
        agent.console = consoles[seat] = ScriptedConsole(ANSWERS[game])
    record = play_game(env, agents, seed=3)
    assert record["result"] and not any("forfeit" in step for step in record["steps"])
    turns = [turn for console in consoles.values() for turn in console.turns]
    assert all(turn.prompt.strip() and turn.fields for turn in turns)
    # answers the env turned down were asked again with its reason
    rejected = [step["error"] for step in record["steps"] if "error" in step]
    reasons = [turn.reason for turn in turns if turn.reason and turn.reason.startswith("the game rejected")]
    assert len(reasons) == len(rejected)
    assert all(reason.endswith(error) for reason, error in zip(reasons, rejected))
    if game == "dixit":
        assert any(len(turn.images) == 8 for turn in turns)  # a hand and the candidates, as images


def test_unreadable_answer_is_asked_again_and_end_of_input_forfeits():
    env = cluegym.make("decrypto")
    env.reset(seed=0)
    observation, _, _, _, info = env.last()
    alice = make_agent("human", game="decrypto", seat="alice", action_space=env.action_space("alice"))
    alice.console = TerminalConsole(input=io.StringIO("\nsun, moon, star\n"), output=io.StringIO())
    assert alice.act(observation, info) == ("sun", "moon", "star")
    shown = alice.console.output.getvalue()
    assert "!! could not read your answer: no hints found" in shown and "keywords:" in shown
    assert alice.stats()["unreadable_answers"] == 1
    alice.console = TerminalConsole(input=io.StringIO(""), output=io.StringIO())
    with pytest.raises(Forfeit, match="left"):
        alice.act(observation, info)


def test_view_fields_sets_images_apart():
    import numpy as np

    fields, images = view_fields({"prompt": "p", "hand": np.zeros((2, 4, 4, 3), np.uint8), "n": np.int64(3),
                                  "action_mask": {"card": np.ones(2)}})
    assert fields == {"hand": [{"$image": 0}, {"$image": 1}], "n": 3} and len(images) == 2


def test_terminal_play_through_a_pseudo_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    summary = tmp_path / "summary.json"
    child = pexpect.spawn(
        sys.executable, ["-m", "cluegym.cli", "run", "decrypto", "--agent", "alice=human", "--agent", "bob=random",
                         "--agent", "eve=random", "--games", "1", "--seed", "0", "--no-progress", "--no-show",
                         "--summary", str(summary)],
        encoding="utf-8", timeout=120, dimensions=(50, 200),
    )
    try:
        child.expect(r"keywords: (\[[^\]]*\])")
        keywords = re.findall(r'"([^"]+)"', child.match.group(1))
        child.expect("your answer> ")
        child.sendline("")  # unreadable: asked again at once
        child.expect(r"!! could not read your answer")
        child.expect("your answer> ")
        child.sendline(f"{keywords[0]}, river, stone")  # a keyword as a hint: the env rejects it
        child.expect(r"!! the game rejected your last answer: (.*)\r\n")
        assert keywords[0] in child.match.group(1) or "keyword" in child.match.group(1)
        safe = [w for w in ("velvet", "harbor", "lantern", "meadow", "violin") if w not in keywords][:3]
        turns = 0
        while child.expect(["your answer> ", pexpect.EOF]) == 0:
            child.sendline(", ".join(safe))
            turns += 1
        assert turns >= 1
    finally:
        child.close()
    assert child.exitstatus == 0, child.before
    import json

    data = json.loads(summary.read_text())
    assert data["games"] == 1 and data["seat_counters"]["alice"]["invalid_actions"] == 1
    assert data["agent_stats"]["alice"]["unreadable_answers"] == 1
