"""VLM agents on Dixit through a fake OpenAI-compatible server: images go out as PNG data
URLs, DixitWorld's JSON answers map to the env's actions, both listener strategies work,
and text-only models get the captions instead of the pictures."""

from __future__ import annotations

import base64
import io
import json
import re

import numpy as np
import pytest
from PIL import Image

from cluegym.agents import run_match
from cluegym.agents.llm.fake_server import FakeChatServer
from cluegym.agents.llm.parsing import ParseError
from cluegym.agents.llm.adapters import dixit as dixit_prompts
from cluegym.envs.dixit.env import IMAGE_SIZE

ENV = {"num_rounds": 4}


def texts(request) -> str:
    out = []
    for m in request["messages"]:
        c = m["content"]
        out += [p.get("text", "") for p in c if p.get("type") == "text"] if isinstance(c, list) else [c]
    return "\n".join(out)


def images(request) -> list[str]:
    return [p["image_url"]["url"] for m in request["messages"] if isinstance(m["content"], list)
            for p in m["content"] if p.get("type") == "image_url"]


def dixit_reply(request) -> str:
    t = texts(request)
    own = re.search(r"Candidate (\d+)[^\n]*your own card", t)
    own = int(own.group(1)) if own else 0
    if '"clue"' in t:
        return '{"reasoning": "moody", "card": "2", "clue": "a quiet storm"}'
    if "numerical rating" in t:
        return '{"reasoning": "fits", "answer": "%d"}' % (len(t) % 100)
    if "candidate number" in t:
        return 'Here you go: {"reasoning": "best", "answer": "Candidate %d"}' % (1 if own != 1 else 2)
    if "crafted Dixit description" in t:
        return '```json\n{"reasoning": "r", "answer": "the lighthouse dreams"}\n```'
    return '{"reasoning": "r", "answer": "1"}'


@pytest.fixture(scope="module")
def server():
    with FakeChatServer(dixit_reply) as srv:
        yield srv


def spec(name: str, server, extra: str = "") -> str:
    sep = "," if ":" in name else ":"
    return f"{name}{sep}backend=openai,base_url={server.base_url},model=fake{extra}"


def test_parse_action_per_phase():
    obs = {"phase": 0, "hand": np.zeros((4, 8, 8, 3), np.uint8), "candidate_ids": np.array([3, 5, 7, 9])}
    assert dixit_prompts.parse_action('{"reasoning": "x", "card": "3", "clue": " a  tide "}', obs, {}, "p") == {"card": 2, "clue": "a tide"}
    with pytest.raises(ParseError, match="card number from 1 to 4"):
        dixit_prompts.parse_action('{"card": 9, "clue": "x"}', obs, {}, "p")
    with pytest.raises(ParseError, match="clue is empty"):
        dixit_prompts.parse_action('{"card": 1, "clue": ""}', obs, {}, "p")
    assert dixit_prompts.parse_action('{"reasoning": "x", "answer": "4"}', {**obs, "phase": 1}, {}, "p") == {"card": 3}
    assert dixit_prompts.parse_action("{'answer': 'Candidate 2'}", {**obs, "phase": 2}, {}, "p") == {"card": 1}


def test_generalist_sends_every_card_image(server):
    before = len(server.requests)
    summary = run_match("dixit", {"*": spec("llm", server)}, games=1, seed=0, env_kwargs=ENV, progress=False)
    assert summary["metrics"]["rounds"] == 4
    sent = server.requests[before:]
    first = sent[0]
    assert texts(first).startswith("You are playing Dixit") and len(images(first)) == 4  # the storyteller's hand
    png = Image.open(io.BytesIO(base64.b64decode(images(first)[0].split(",", 1)[1])))
    height, width = IMAGE_SIZE
    assert png.size == (width, height)  # the observation's thumbnails (use image_size for full cards)
    votes = [r for r in sent if "candidate number" in texts(r)]
    assert votes and all(len(images(r)) == 4 for r in votes)  # storyteller's card + 3 distractors
    record = summary["first_game"]
    logged = record["agent_logs"]["player_0"][0]["messages"][0]["content"]
    assert any(p.get("type") == "image_url" and p["image_url"]["url"].startswith("<image sha1:") for p in logged)
    assert len(json.dumps(record)) < 2_000_000  # images are digested, not stored


@pytest.mark.parametrize("listener", ["direct", "entailment"])
def test_dixitworld_steps_and_listener_strategies(server, listener):
    summary = run_match("dixit", {"*": spec("llm-cot", server, f",listener={listener}")}, games=1, seed=0,
                        env_kwargs=ENV, progress=False)
    record = summary["first_game"]
    steps = [c["step"] for calls in record["agent_logs"].values() for c in calls]
    assert steps.count("select_target") == 4 and steps.count("describe") == 4 and steps.count("distractor") == 12
    if listener == "direct":
        assert steps.count("direct_selection") == 12
    else:
        # one scoring call per candidate that is not the listener's own card
        assert steps.count("entailment_score") == 12 * 3 and "direct_selection" not in steps
    clues = [e["clue"] for s in record["steps"] for e in s.get("events", []) if e.get("type") == "story"]
    assert clues == ["the lighthouse dreams"] * 4
    assert record["counters"]["fallbacks"] == 0


def test_text_only_models_get_captions_instead_of_pictures(server):
    before = len(server.requests)
    run_match("dixit", {"*": spec("llm", server, ",vision=false")}, games=1, seed=0,
              env_kwargs={**ENV, "reveal_captions": True}, progress=False)
    first = server.requests[before]
    assert images(first) == [] and "[image]" in texts(first)
    assert re.search(r"Card 1: \w+", texts(first))  # the env's prompt lists the captions


def _tiny_bench() -> dict:
    """Two hand-made DixitBench items over the shipped deck (no MiniLM needed)."""
    items = [
        {"id": "card_000:easy", "card": "card_000", "difficulty": "easy", "clue": "a lemon moon",
         "candidates": ["card_003", "card_000", "card_010", "card_020", "card_030", "card_040"], "answer": 1},
        {"id": "card_005:hard", "card": "card_005", "difficulty": "hard", "clue": "a tiger",
         "candidates": ["card_005", "card_006", "card_007", "card_008", "card_009", "card_011"], "answer": 0},
    ]
    return {"metadata": {"benchmark": "DixitBench", "deck": "default", "deck_folder": None, "clue": "caption"},
            "items": items}


@pytest.mark.parametrize("name", ["llm", "llm-cot", "llm-cot:listener=entailment"])
def test_dixitbench_both_strategies_work_for_every_llm_agent(server, name):
    from cluegym.benchmarks.dixitbench import STRATEGIES, evaluate

    before = len(server.requests)
    results = evaluate(_tiny_bench(), spec(name, server), strategies=STRATEGIES, image_size=(48, 32))
    for strategy in STRATEGIES:
        assert results["strategies"][strategy]["invalid"] == 0, strategy
    sent = server.requests[before:]
    ratings = [r for r in sent if "numerical rating" in texts(r)]
    # entailment: one rating request per candidate (6 per item), each with its one image, the paper's prompt
    assert len(ratings) >= 12 and all(len(images(r)) == 1 for r in ratings)
    assert all("You are evaluating how well an image matches a given clue in a Dixit game." in texts(r)
               for r in ratings)
    for row in results["items"]:
        # the fake server answers len(prompt) % 100: the argmax of those ratings is the pick
        assert all(0 <= r <= 100 for r in row["ratings"])
        assert row["entailment"] in np.flatnonzero(np.array(row["ratings"]) == max(row["ratings"]))


def test_dixitbench_counts_a_forfeited_rating_as_invalid():
    from cluegym.benchmarks.dixitbench import evaluate

    with FakeChatServer(lambda request: '{"reasoning": "hmm", "answer": "very good"}') as bad:
        results = evaluate(_tiny_bench(), spec("llm", bad, ",parse_retries=0"), strategies=("entailment",),
                           image_size=(48, 32), limit=1)
    assert results["strategies"]["entailment"]["invalid"] == 1
    assert results["items"][0]["ratings"] == [None] * 6
