"""`cluegym play`: a person plays a full short Dixit game in headless Chromium, on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import pytest
from browser import chromium, screenshot_is_a_picture

from cluegym.agents import run_match
from cluegym.benchmarks import play_server
from cluegym.benchmarks.play_server import PlaySession
from cluegym.benchmarks.replay_html import load_record
from cluegym.cli import main


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


def test_stopping_a_session_saves_no_game_the_person_did_not_play(tmp_path):
    # Ctrl-C closed the console, every pending and later question read as "the human left":
    # the games left were played through with the person forfeiting and saved as results
    results = tmp_path / "g.jsonl"
    session = PlaySession("decrypto", "bob", {"*": "random"}, games=3, env_kwargs={"max_turns": 2},
                          results_path=results)
    session.start()
    deadline = time.monotonic() + 60
    while session.console.turn is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert session.console.turn is not None
    assert session.console.submit(float(session.console.turn_id), "1 2 3") is not None  # a turn id is an int
    session.close()
    assert session._done.wait(30) and session.error == "the session was stopped"
    assert not results.exists() or results.read_text() == ""
    again = PlaySession("decrypto", "bob", {"*": "random"}, games=3, env_kwargs={"max_turns": 2},
                        results_path=results)
    again.close()
    assert again.games_left == 3  # a rerun plays them


def test_wait_with_a_timeout_gives_up_on_an_unanswered_question():
    # wait() blocked for as long as the human's question stayed unanswered: a script whose
    # answers stopped hung there
    session = PlaySession("taboo", "defender", {"attacker": "random"}, seed=1)
    with pytest.raises(ValueError, match="timeout must be None or a number of seconds >= 0, got -1"):
        session.wait(timeout=-1)
    session.start()
    try:
        started = time.monotonic()
        with pytest.raises(TimeoutError, match="the match is not over after 0.3 s"):
            session.wait(timeout=0.3)
        assert time.monotonic() - started < 5
        assert session.summary is None  # still serving, the question still waiting
        with urllib.request.urlopen(session.url + "state", timeout=10) as reply:
            assert json.loads(reply.read())["status"] in ("waiting", "your_turn")
    finally:
        session.close()
    assert session._done.wait(30) and session.error == "the session was stopped"


def test_play_with_every_game_already_played_serves_nothing(tmp_path, capsys):
    results = tmp_path / "g.jsonl"
    session = PlaySession("taboo", "defender", {"attacker": "random"}, seed=1, results_path=results)
    session.start()
    try:
        deadline = time.monotonic() + 60
        while session.state()["status"] != "over" and time.monotonic() < deadline:
            turn = session.state()["turn"]
            if turn is not None:
                session.console.submit(turn["turn_id"], "is it a kind of animal")
            time.sleep(0.02)
        assert session.wait(linger_s=0) is not None
    finally:
        session.close()
    played = results.read_text()
    argv = ["play", "taboo", "--seat", "defender", "--agent", "attacker=random", "--seed", "1", "--port", "0",
            "--results", str(results)]
    started = time.monotonic()
    assert main(argv) == 0 and time.monotonic() - started < 8  # no page, no linger
    out = capsys.readouterr().out
    assert "open http" not in out and "already holds all 1 games of this match: nothing to play" in out
    assert results.read_text() == played
    later = PlaySession("taboo", "defender", {"attacker": "random"}, seed=1, games=3, results_path=results)
    assert later.games_left == 2  # more games: the ones not played yet
    later.close()


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


@pytest.mark.parametrize(("extra", "expected"), [
    (["--port", "70000"], "port must be 0-65535 (0: any free port), got 70000"),
    (["--port", "-5"], "port must be 0-65535 (0: any free port), got -5"),
    (["--agent", "defender=nosuch"], "unknown agent 'nosuch'"),
    (["--agent", "defender=human"], "defender would be human too: the page plays only --seat attacker"),
    (["--results", "{tmp}"], "is a directory, not a file"),
    (["--results", "{tmp}/file/g.jsonl"], "is not writable"),
    (["--results", "{tmp}/other.jsonl"], "holds games of a different match"),
])
def test_bad_arguments_fail_in_one_line_before_the_page_is_served(tmp_path, capsys, extra, expected):
    (tmp_path / "file").write_text("")
    run_match("taboo", {"*": "random"}, games=1, seed=5, results_path=tmp_path / "other.jsonl", progress=False)
    capsys.readouterr()
    argv = ["play", "taboo", "--seat", "attacker", "--agent", "*=random", "--port", "0",
            *(arg.format(tmp=tmp_path) for arg in extra)]
    started = time.monotonic()
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    assert exited.value.code == 2 and time.monotonic() - started < 8  # not after the page's linger
    assert "open http" not in out  # nothing was served
    assert err.startswith("cluegym: error: ") and err.count("\n") == 1 and expected in err


def _raw_request(port: int, request: bytes, timeout: float = 5.0) -> tuple[int, dict]:
    """Send ``request`` as is; returns the status and JSON body (0 and {} when none came)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(request)
        reply = b""
        try:
            while chunk := conn.recv(65536):
                reply += chunk
        except (TimeoutError, ConnectionError):
            return 0, {}
    if not reply:
        return 0, {}
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_malformed_requests_get_a_4xx_and_the_server_keeps_serving(capfd, monkeypatch):
    monkeypatch.setattr(play_server, "REQUEST_TIMEOUT_S", 1.0, raising=False)  # the stalled request below
    session = PlaySession("taboo", "defender", {"*": "random"}, seed=1)
    port = session._server.server_address[1]
    session.start()
    try:
        def post(headers: bytes, body: bytes) -> tuple[int, dict]:
            return _raw_request(port, b"POST /answer HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n" + body)

        deep = b"[" * 30_000  # json recurses once per "["
        status, reply = post(b"Content-Length: %d\r\n" % len(deep), deep)
        assert status == 409 and reply == {"ok": False, "error": "the request must be JSON {turn_id, text}"}
        for length in (b"-1", b"abc", b"+2", b"1_0"):
            status, reply = post(b"Content-Length: " + length + b"\r\n", b"{}")
            assert status == 400 and "Content-Length must be a byte count" in reply["error"]
        status, reply = post(b"Content-Length: 1000000000\r\n", b"{}")  # refused unread
        assert status == 413 and f"at most {play_server.MAX_BODY_BYTES} bytes" in reply["error"]
        status, reply = post(b"Content-Length: 50\r\n", b"{}")  # 48 bytes never come
        assert status == 408 and not reply["ok"]

        deadline = time.monotonic() + 30
        while (state := session.state())["status"] != "your_turn" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert state["status"] == "your_turn" and state["error"] is None  # the game is still on
        answer = json.dumps({"turn_id": state["turn"]["turn_id"], "text": "is it a kind of animal"}).encode()
        assert post(b"Content-Length: %d\r\n" % len(answer), answer) == (200, {"ok": True, "error": None})
    finally:
        session.close()
    assert "Traceback" not in capfd.readouterr().err


def test_a_taken_port_leaves_no_results_file_behind(tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as exited:
            main(["play", "taboo", "--seat", "attacker", "--agent", "*=random", "--port", str(port),
                  "--results", str(tmp_path / "new" / "g.jsonl")])
    assert exited.value.code == 2 and "in use" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
