"""`cluegym play`: a person plays a full short Dixit game in headless Chromium, on 127.0.0.1."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest
from browser import chromium, screenshot_is_a_picture

from cluegym.benchmarks.play_server import PlaySession
from cluegym.benchmarks.replay_html import load_record


def test_session_checks_its_seat_and_serves_only_localhost():
    with pytest.raises(ValueError, match="no seat 'nobody'"):
        PlaySession("taboo", "nobody")
    with pytest.raises(ValueError, match="the human's seat"):
        PlaySession("taboo", "defender", {"defender": "random"})
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        PlaySession("taboo", "defender", {"*": "random"}, seed=-1)  # every game errored, on the page
    with pytest.raises(ValueError, match="games must be >= 1, got 0"):
        PlaySession("taboo", "defender", {"*": "random"}, games=0)
    session = PlaySession("taboo", "defender", {"*": "random"})
    try:
        assert session.url.startswith("http://127.0.0.1:")
        assert session._server.server_address[0] == "127.0.0.1"
    finally:
        session._server.server_close()


def test_answers_over_http_play_a_taboo_game(tmp_path):
    session = PlaySession("taboo", "defender", {"attacker": "random"}, seed=1, results_path=tmp_path / "g.jsonl")
    session.start()
    try:
        def state():
            with urllib.request.urlopen(session.url + "state", timeout=10) as reply:
                return json.loads(reply.read())

        def post(body):
            request = urllib.request.Request(session.url + "answer", data=json.dumps(body).encode(), method="POST")
            try:
                with urllib.request.urlopen(request, timeout=10) as reply:
                    return reply.status, json.loads(reply.read())
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read())

        deadline = time.monotonic() + 60
        while (current := state())["status"] != "over" and time.monotonic() < deadline:
            if current["status"] == "your_turn":
                turn = current["turn"]
                assert turn["seat"] == "defender" and "target" not in turn["fields"]  # the defender's view
                assert post({"turn_id": turn["turn_id"] + 5, "text": "x"})[0] == 409  # a stale page
                assert post({"turn_id": turn["turn_id"], "text": "is it a kind of animal"}) == (200, {"ok": True, "error": None})
            time.sleep(0.05)
        summary = session.wait(linger_s=0)
    finally:
        session.close()
    assert summary is not None and summary["games"] == 1
    assert load_record(tmp_path / "g.jsonl", 0)["game"] == "taboo_v0"


def test_a_person_plays_a_full_dixit_game_in_chromium(tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    session = PlaySession("dixit", "player_0", {"*": "random"}, seed=0, env_kwargs={"num_rounds": 2},
                          results_path=tmp_path / "dixit.jsonl")
    session.start()
    picks = 0
    try:
        with chromium() as driver:
            driver.get(session.url)
            wait = WebDriverWait(driver, 60, poll_frequency=0.05)
            seen = -1
            while True:  # each question: wait for it, pick a card, send
                wait.until(lambda d: d.find_element(By.ID, "status").text in ("your turn", "game over")
                           and (d.find_element(By.ID, "status").text == "game over"
                                or not d.find_element(By.ID, "send").get_attribute("disabled")))
                if driver.find_element(By.ID, "status").text == "game over":
                    break
                prompt = driver.find_element(By.ID, "prompt").text
                assert "You are player_0" in prompt
                cards = driver.find_elements(By.CSS_SELECTOR, "img.card[data-card]")
                assert cards and driver.execute_script(
                    "return Array.from(document.querySelectorAll('img.card')).every(i => i.complete && i.naturalWidth > 0)")
                if seen < 0:
                    screenshot = driver.get_screenshot_as_png()
                    assert screenshot_is_a_picture(screenshot)
                    seen = 0
                # cycle through the cards: a card the seat may not pick comes back with the reason
                numbered = [c for c in cards if c.get_attribute("data-card") != "0"]
                numbered[picks % len(numbered)].click()
                picks += 1
                box = driver.find_element(By.ID, "answer")
                assert box.get_attribute("value").startswith("card=")
                if "create a description" in prompt:  # the storyteller: a card and a clue
                    box.send_keys("; clue=a quiet evening")
                turn = driver.find_element(By.ID, "form").get_attribute("data-turn")
                driver.find_element(By.ID, "send").click()
                # the next question (a re-ask, or the next decision) or the end
                wait.until(lambda d: d.find_element(By.ID, "form").get_attribute("data-turn") != turn
                           or d.find_element(By.ID, "status").text == "game over")
            assert "game 0: returns" in driver.find_element(By.ID, "result").text
        summary = session.wait(linger_s=5)
    finally:
        session.close()
    assert summary is not None and summary["games"] == 1 and picks >= 3
    record = load_record(tmp_path / "dixit.jsonl", 0)
    mine = [s for s in record["steps"] if s["agent"] == "player_0"]
    assert mine and not any("forfeit" in s for s in mine)
    assert any(isinstance(s.get("action"), dict) and s["action"].get("clue") == "a quiet evening" for s in mine)
