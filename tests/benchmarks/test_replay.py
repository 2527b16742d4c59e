"""`cluegym replay`: a recorded game as one offline HTML page, checked in a real headless Chromium."""

from __future__ import annotations

import json

import pytest
from browser import chromium, screenshot_is_a_picture

import cluegym
from cluegym.agents import make_agent, run_match
from cluegym.agents.random_agent import RandomAgent
from cluegym.benchmarks.replay_html import load_record, replay_html, replay_model
from cluegym.cli import main
from cluegym.envs.core.record import ReplayMismatch
from cluegym.harness import build_agents, play_game


class KeywordBlurter(RandomAgent):
    """Decrypto's Alice who first gives a keyword as a hint (rejected), then a random set."""

    def act(self, observation, info):
        if self.seat == "alice" and not info.get("error"):
            return (observation["keywords"][0], "river", "stone")
        return super().act(observation, info)


def decrypto_record_with_a_rejection_and_calls() -> dict:
    env = cluegym.make("decrypto")
    agents = build_agents("decrypto", env, dict.fromkeys(env.possible_agents, "random"), make_agent=make_agent)
    agents["alice"] = KeywordBlurter("decrypto", "alice", env.action_space("alice"), seed=0)
    record = play_game(env, agents, seed=5, agent_seeds={"alice": 1, "bob": 2, "eve": 3})
    # an LLM agent's call log as the harness stores it (what LLMAgent.drain_log returns)
    record["agent_logs"] = {"bob": [{"seat": "bob", "decision": 1, "attempt": 0, "model": "scripted",
                                     "latency_s": 0.4321, "step": "guess",
                                     # markup in a reply: "<!--<script>" once left the page blank
                                     "reply": '<!--<script> </script> ANSWER: {"guess": "1-2-3"}'}]}
    return record


def test_model_replays_views_rejections_and_calls():
    record = decrypto_record_with_a_rejection_and_calls()
    model = replay_model(record)
    first = model["steps"][0]
    assert first["seat"] == "alice" and "keywords" in first["view"] and first["prompt"].strip()
    assert first["error"] and "keyword" in first["error"].lower()
    assert model["steps"][1]["seat"] == "alice" and model["steps"][1]["decision"] == 1 and not model["steps"][1]["error"]
    bob = next(s for s in model["steps"] if s["seat"] == "bob")
    assert bob["calls"][0]["latency_s"] == 0.4321
    assert model["returns"] == record["returns"] and "Decrypto" in model["table"]
    tampered = json.loads(json.dumps(record))
    tampered["steps"][2]["obs"] = "0" * 16
    with pytest.raises(ReplayMismatch, match="step 2"):
        replay_model(tampered)


def test_load_record_and_cli_errors(tmp_path, capsys):
    results = tmp_path / "games.jsonl"
    run_match("taboo", {"*": "random"}, games=2, seed=0, results_path=results, progress=False)
    assert load_record(results, 1)["game"] == "taboo_v0"
    with pytest.raises(ValueError, match=r"no finished game 7 \(games there: 0, 1\)"):
        load_record(results, 7)
    page = tmp_path / "out" / "taboo.html"
    assert main(["replay", str(results), "--game", "1", "--html", str(page)]) == 0
    assert page.read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(tmp_path / "nope.jsonl"), "--html", str(page)])
    assert exc.value.code == 2 and "is not a file" in capsys.readouterr().err


def test_a_record_that_does_not_end_as_recorded_is_refused():
    """The page took the outcome from the record unchecked: a record cut to half its steps
    showed a game stopping mid-way under the whole game's result, and negated returns showed
    as the game's."""
    record = decrypto_record_with_a_rejection_and_calls()
    cut = json.loads(json.dumps(record))
    cut["steps"] = cut["steps"][: len(cut["steps"]) // 2]
    with pytest.raises(ReplayMismatch, match=f"the record stops after {len(cut['steps'])} steps, before the game's end"):
        replay_model(cut)
    negated = json.loads(json.dumps(record))
    negated["returns"] = {seat: -value for seat, value in negated["returns"].items()}
    with pytest.raises(ReplayMismatch, match="the record's returns differs from its replay's"):
        replay_model(negated)
    edited = json.loads(json.dumps(record))
    edited["result"]["winner"] = "nobody"
    with pytest.raises(ReplayMismatch, match="the record's result differs"):
        replay_model(edited)
    assert replay_model(json.loads(json.dumps(record)))["returns"] == record["returns"]


def test_the_cli_refuses_what_would_destroy_or_crash_on_its_input(tmp_path, capsys):
    """``--html`` naming the results file overwrote it with the page; agent logs that are not
    a mapping gave an AttributeError traceback."""
    results = tmp_path / "games.jsonl"
    run_match("taboo", {"*": "random"}, games=1, seed=0, results_path=results, progress=False)
    before = results.read_text()
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(results), "--html", str(tmp_path / "." / "games.jsonl")])
    assert exc.value.code == 2 and results.read_text() == before
    assert "is the results file: writing the page there would destroy it" in capsys.readouterr().err
    row = json.loads(before)
    row["record"]["agent_logs"] = ["not", "a", "mapping"]
    results.write_text(json.dumps(row) + "\n")
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(results), "--html", str(tmp_path / "page.html")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "agent_logs must map seats to lists of call logs" in err
    assert "Traceback" not in err and not (tmp_path / "page.html").exists()


def test_pages_step_through_dixit_and_decrypto_in_chromium(tmp_path):
    dixit = tmp_path / "dixit.jsonl"
    run_match("dixit", {"*": "random"}, games=1, seed=2, env_kwargs={"num_rounds": 4}, results_path=dixit,
              progress=False)
    dixit_page = tmp_path / "dixit.html"
    dixit_page.write_text(replay_html(load_record(dixit, 0)))
    decrypto_page = tmp_path / "decrypto.html"
    decrypto_page.write_text(replay_html(decrypto_record_with_a_rejection_and_calls()))
    for page in (dixit_page, decrypto_page):  # offline: nothing on the page points outside it
        text = page.read_text()
        assert "http://" not in text and "https://" not in text and "src=\"//" not in text

    from selenium.webdriver.common.by import By

    with chromium() as driver:
        driver.get(dixit_page.as_uri())
        assert driver.find_element(By.ID, "step-index").text == "1 / 28"  # 4 rounds x (1 + 3 + 3)
        assert driver.find_element(By.ID, "seat").text.startswith("player_0")
        assert "storyteller" in driver.find_element(By.ID, "prompt").text.lower()
        for _ in range(4):
            driver.find_element(By.ID, "next").click()
        assert driver.find_element(By.ID, "step-index").text == "5 / 28"
        assert driver.find_element(By.ID, "seat").text.startswith("player_1")  # a listener's vote
        cards = driver.find_elements(By.CSS_SELECTOR, "#view img.card")
        assert len(cards) == 8  # its hand and the candidates
        assert driver.execute_script("return Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
        assert "player_0" in driver.find_element(By.ID, "result").text
        assert screenshot_is_a_picture(driver.get_screenshot_as_png())

        driver.get(decrypto_page.as_uri())
        assert "rejected" in driver.find_element(By.ID, "action").text
        assert "keyword" in driver.find_element(By.ID, "action").text.lower()
        driver.find_element(By.ID, "next").click()
        assert driver.find_element(By.ID, "action").text.startswith("action:")
        driver.find_element(By.ID, "next").click()
        assert driver.find_element(By.ID, "seat").text.startswith("bob")
        assert "0.4321 s" in driver.find_element(By.ID, "calls").text
        assert "<!--<script> </script> ANSWER" in driver.find_element(By.ID, "calls").text  # shown, not parsed
        driver.find_element(By.ID, "last").click()
        assert driver.find_element(By.ID, "next").get_attribute("disabled")
        assert screenshot_is_a_picture(driver.get_screenshot_as_png())
