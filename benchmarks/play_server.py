"""Play a seat in the browser: ``cluegym play GAME --seat SEAT`` serves a page on 127.0.0.1.

The page shows the seat's view (its prompt, its structured fields, cards as images) and takes
the answer, read as in the terminal (:mod:`cluegym.agents.human`: the prompt's format, a bare
value, or ``key=value`` pairs; clicking a card fills ``card=N``). The other seats are agents
(``--agent SEAT=SPEC``, else the game's defaults). The games run through the match harness
(:func:`cluegym.harness.run_match`), so ``--results`` keeps them for ``cluegym replay``.

The server is the standard library's :class:`~http.server.ThreadingHTTPServer`, bound to
127.0.0.1 only; the page polls ``GET /state`` and posts ``POST /answer``; it loads nothing
from elsewhere. Everything that can be checked (port, game, seats, agent specs, the results
file) is checked by :class:`PlaySession`'s constructor, before the server binds. A request the
page would never send (a bad or oversized ``Content-Length``, a body that is no answer) gets a
4xx status with a one-line JSON reason, and the server goes on serving.

Example:
    Here the page's requests are made from Python, answering as a person would type:

    >>> import json, time, urllib.request
    >>> session = PlaySession("dixit", "player_0", {"*": "random"}, env_kwargs={"num_rounds": 2})  # port 0: a free one
    >>> session.url.startswith("http://127.0.0.1:")
    True
    >>> session.start()          # serves on session.url, plays in a background thread
    >>> def answer(turn):        # storyteller: a card and a clue; else a card that is not one's own
    ...     phase, own = turn["fields"]["phase"], turn["fields"]["own_candidate"]
    ...     return "card=1; clue=a quiet sunset" if phase == 0 else "2" if own == 0 else "1"
    >>> deadline = time.monotonic() + 60
    >>> while time.monotonic() < deadline:  # what the page does: poll the state, post the answers
    ...     state = json.load(urllib.request.urlopen(session.url + "state"))
    ...     if state["status"] == "over":
    ...         break
    ...     if state["status"] == "your_turn":
    ...         body = json.dumps({"turn_id": state["turn"]["turn_id"], "text": answer(state["turn"])}).encode()
    ...         _ = urllib.request.urlopen(session.url + "answer", data=body)
    ...     time.sleep(0.05)
    >>> state["status"]
    'over'
    >>> # the match summary, once the games are over, and the server shut down (a session cut
    >>> # short: TimeoutError after 60 s, and close() stops it)
    >>> summary = session.wait(timeout=60)
    >>> summary["ok"], summary["agent_stats"]["player_0"], summary["metrics"]["seat:player_0"]["mean_score"]
    (True, {'decisions': 3.0, 'unreadable_answers': 0.0, 'env_rejections': 0.0}, 3.0)

    cluegym play dixit --seat player_0 --agent '*=caption' --env num_rounds=4
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import math
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from cluegym.agents import AgentSpecError, make_agent
from cluegym.agents.human import HumanAgent, HumanTurn
from cluegym.benchmarks.usage import UsageError, parse_assignments, parse_options
from cluegym.envs.core.record import to_jsonable
from cluegym.envs.core.registry import env_module
from cluegym.harness import build_agents, resolve_seats, run_match
from cluegym.harness.results import match_signature
from cluegym.harness.runner import check_match_counts, resumed_rows

__all__ = ["PlaySession", "WebConsole", "register_cli"]

#: Longest answer the page may post (the env bounds text actions far below this).
MAX_ANSWER_CHARS = 10_000
#: Largest request body read: the longest answer with every character JSON-escaped (a control
#: character is 6 bytes, ``\u0001``) plus room for the keys and the turn id. A larger body is
#: refused unread rather than cut short into JSON that no longer parses.
MAX_BODY_BYTES = 6 * MAX_ANSWER_CHARS + 1024
#: Seconds a client may take to send its request: one that stalls (a Content-Length larger than
#: what it sends) would otherwise hold its server thread until it disconnects.
REQUEST_TIMEOUT_S = 10.0


def _png_uri(image: np.ndarray) -> str:
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(image, dtype=np.uint8)).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class _BadRequest(Exception):
    """A request the page never sends: the status to answer with, and why (the message)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class _Server(ThreadingHTTPServer):
    """The page's HTTP server; a client that went away mid-request is not reported."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Print other errors as the standard library does; a closed tab or a client that gave up
        (its socket reset, or silent past :data:`REQUEST_TIMEOUT_S`) is no server fault, and a
        traceback in the player's terminal would only alarm them."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class PlayStopped(KeyboardInterrupt):
    """The session was stopped (Ctrl-C) while the page's player had a question pending: the
    match stops as a Ctrl-C stops it (the game is not recorded, a rerun plays it), instead of
    the human forfeiting every decision left and those games being saved as played."""


class WebConsole:
    """The human's console behind the page: :meth:`ask` (the game thread) publishes a turn and
    waits; :meth:`submit` (an HTTP thread) hands in the answer.

    Raises:
        PlayStopped: from :meth:`ask`, once :meth:`close` was called.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.turn_id = 0
        self.turn: dict[str, Any] | None = None
        self._answer: str | None = None
        self.closed = False

    async def ask(self, turn: HumanTurn) -> str | None:
        payload = {
            "seat": turn.seat, "game": turn.game, "prompt": turn.prompt, "fields": turn.fields,
            "images": [_png_uri(image) for image in turn.images], "reason": turn.reason,
        }
        with self._cond:
            if self.closed:  # stopped between two questions
                raise PlayStopped("the play session was stopped")
            self.turn_id += 1
            payload["turn_id"] = self.turn_id
            self.turn, self._answer = payload, None
            self._cond.notify_all()
        # a thread: the match's event loop keeps running (other seats' LLM calls, the bar)
        answer = await asyncio.to_thread(self._wait)
        if answer is None and self.closed:
            raise PlayStopped("the play session was stopped")
        return answer

    def _wait(self) -> str | None:
        with self._cond:
            while self._answer is None and not self.closed:
                self._cond.wait(0.5)
            answer, self._answer, self.turn = self._answer, None, None
            return answer

    def submit(self, turn_id: Any, text: Any) -> str | None:
        """Hand in an answer; returns why it was not taken (None when taken)."""
        if not isinstance(text, str) or len(text) > MAX_ANSWER_CHARS:
            return f"the answer must be text of at most {MAX_ANSWER_CHARS} characters"
        with self._cond:
            if self.turn is None or type(turn_id) is not int or turn_id != self.turn_id:  # 1.0 and true were taken
                return "it is not your turn (the page is behind: it will refresh)"
            self._answer = text
            self._cond.notify_all()
        return None

    def close(self) -> None:
        """Stop waiting (the session is shutting down): a pending question gets no answer."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()


class PlaySession:
    """A match with one human seat, served on 127.0.0.1.

    Args:
        game: registered game name.
        seat: the human's seat.
        agents: seat -> agent spec for the other seats (``"*"`` fills them).
        games: games to play.
        seed: match seed.
        env_kwargs: game options.
        port: port on 127.0.0.1 (0: any free one).
        results_path: append each finished game to this JSONL (for ``cluegym replay``).

    All of these are checked here, before the server binds (as :func:`~cluegym.harness.run_match`
    checks them before its first game), so a bad argument never shows a page that then fails.

    Raises:
        ValueError: a port outside 0-65535, an unknown game, seat or game option, an agent spec
            for the human's seat, fewer than one game, a negative seed, or a ``results_path``
            that is a folder, cannot be written or holds another match's games.
        TypeError: a seed or a game count that is no integer.
        AgentSpecError: a spec that names no usable agent.
        OSError: the port is taken.
    """

    def __init__(self, game: str, seat: str, agents: dict[str, str] | None = None, *, games: int = 1, seed: int = 0,
                 env_kwargs: dict[str, Any] | None = None, port: int = 0, results_path: str | Path | None = None) -> None:
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be 0-65535 (0: any free port), got {port}")
        check_match_counts(games, seed, 1)  # as run_match checks them, before the page is served
        self.game, self.seat, self.games, self.seed = game, seat, games, seed
        self.env_kwargs = dict(env_kwargs or {})
        probe = env_module(game).env(**self.env_kwargs)
        seats = list(probe.possible_agents)
        if seat not in seats:
            raise ValueError(f"{game} has no seat {seat!r}; seats: {', '.join(seats)}")
        agents = dict(agents or {})
        if agents.get(seat, "human").partition(":")[0] != "human":
            raise ValueError(f"--seat {seat} is the human's seat: drop --agent {seat}={agents[seat]}")
        agents[seat] = "human"
        self.seats = resolve_seats(game, agents, seats)
        # One page, one person: another human seat (--agent '*=human') was asked on this page,
        # under "you play <seat>", with that seat's private view.
        others = [other for other, spec in self.seats.items() if other != seat and spec.partition(":")[0] == "human"]
        if others:
            raise ValueError(f"{', '.join(others)} would be human too: the page plays only --seat {seat}; give the "
                             f"other seats agents (e.g. --agent '*=random')")
        self.console = WebConsole()
        # run_match makes these checks too, but only once the match thread runs: after the page
        # is served. The same harness checks, here, fail before anything is shown.
        build_agents(game, probe, self.seats, make_agent=self._make_agent)
        # Bound before the results file is checked (and created): a taken port left a new
        # empty results file, and its folders, behind its usage error.
        self._server = _Server(("127.0.0.1", port), self._handler())
        self.results_path = results_path
        #: Games of this match still to play (fewer than ``games`` when ``results_path`` holds some).
        self.games_left = games
        if results_path:  # a file that is no results file of this match is refused
            try:
                rows = resumed_rows(env_module(game), Path(results_path),
                                    match_signature(game, self.seats, seed, self.env_kwargs))
            except BaseException:
                self._server.server_close()
                raise
            self.games_left -= sum(1 for index, row in rows.items() if index < games and "record" in row)
        self.finished: list[dict[str, Any]] = []
        self.summary: dict[str, Any] | None = None
        self.error: str | None = None
        self.over_seen = threading.Event()
        self._done = threading.Event()
        self._serving = False
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"

    def _make_agent(self, spec: str, **kwargs: Any) -> Any:
        agent = make_agent(spec, **kwargs)
        if isinstance(agent, HumanAgent):
            agent.console = self.console
        return agent

    def _play(self) -> None:
        try:
            self.summary = run_match(
                self.game, self.seats, games=self.games, seed=self.seed, env_kwargs=self.env_kwargs,
                results_path=self.results_path, progress=False, make_agent=self._make_agent,
                on_game=lambda index, record: self.finished.append(
                    {"index": index, "result": to_jsonable(record["result"]), "returns": record["returns"]}),
            )
        except Exception as exc:  # noqa: BLE001 - shown on the page and returned by wait()
            self.error = f"{type(exc).__name__}: {exc}"
        except KeyboardInterrupt:  # PlayStopped: close() during the match; its finished games are kept
            self.error = "the session was stopped"
        finally:
            self._done.set()

    def state(self) -> dict[str, Any]:
        """What the page polls: the status, the pending turn, the finished games."""
        turn = self.console.turn
        status = "over" if self._done.is_set() else "your_turn" if turn is not None else "waiting"
        if status == "over":
            self.over_seen.set()
        return {"status": status, "game": self.game, "seat": self.seat, "seats": self.seats, "turn": turn,
                "finished": self.finished, "games": self.games, "error": self.error}

    def start(self) -> None:
        """Serve the page and start playing (both in background threads)."""
        self._serving = True
        threading.Thread(target=self._server.serve_forever, name="cluegym-play-http", daemon=True).start()
        threading.Thread(target=self._play, name="cluegym-play-match", daemon=True).start()

    def wait(self, linger_s: float = 10.0, timeout: float | None = None) -> dict[str, Any] | None:
        """Block until the games are over and the page has shown it (at most ``linger_s`` more
        seconds), stop serving, and return the match summary (None when the match failed).

        Args:
            linger_s: how long the page may take to show the end once the games are over.
            timeout: the most seconds to wait for the games to end (None: as long as the human
                takes).

        Raises:
            ValueError: a ``timeout`` that is not a finite number >= 0.
            TimeoutError: the games are not over after ``timeout`` seconds. The session goes
                on serving; :meth:`close` stops it (a script whose answers stopped would
                otherwise wait forever).
        """
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not math.isfinite(timeout) or timeout < 0):
            raise ValueError(f"timeout must be None or a number of seconds >= 0, got {timeout!r}")
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._done.wait(0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic()))):
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"the match is not over after {timeout:g} s (a question is waiting for its "
                                   "answer); close() stops the session")
        self.over_seen.wait(linger_s)
        self.close()
        return self.summary

    def close(self) -> None:
        """Stop serving; a pending question is abandoned."""
        self.console.close()
        if self._serving:  # shutdown() waits for serve_forever(), forever if it never ran
            self._serving = False
            self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        session = self

        class Handler(BaseHTTPRequestHandler):
            timeout = REQUEST_TIMEOUT_S  # read when a session is made, so tests can shorten it

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
                pass  # polling would flood the terminal

            def _send(self, code: int, body: bytes, kind: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def _read_body(self) -> bytes:
                """The request body, as long as its Content-Length says.

                Raises:
                    _BadRequest: a Content-Length that is no byte count (400) or over
                        :data:`MAX_BODY_BYTES` (413), or a body that stops short (400) or
                        stalls (408).
                """
                declared = self.headers.get("Content-Length", "0").strip()
                # int() alone takes "-1" (rfile.read(-1) then waits for the client to hang
                # up), "+5" and "1_0"; only plain digits are a byte count.
                if not (declared.isascii() and declared.isdigit()):
                    raise _BadRequest(400, f"Content-Length must be a byte count, got {declared[:20]!r}")
                length = int(declared)
                if length > MAX_BODY_BYTES:
                    raise _BadRequest(413, f"the request body must be at most {MAX_BODY_BYTES} bytes, got {length}")
                try:
                    body = self.rfile.read(length)
                except TimeoutError:
                    raise _BadRequest(408, f"the request body did not arrive within {self.timeout:g} s") from None
                if len(body) < length:
                    raise _BadRequest(400, f"the request body ended after {len(body)} of {length} bytes")
                return body

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                if self.path in ("/", "/index.html"):
                    self._send(200, PAGE.encode(), "text/html; charset=utf-8")
                elif self.path == "/state":
                    self._send(200, json.dumps(session.state()).encode(), "application/json")
                else:
                    self._send(404, b"not found", "text/plain")

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                if self.path != "/answer":
                    self._send(404, b"not found", "text/plain")
                    return
                try:
                    body = json.loads(self._read_body() or b"{}")
                    problem = session.console.submit(body.get("turn_id"), body.get("text"))
                    code = 200 if problem is None else 409
                except _BadRequest as exc:
                    code, problem = exc.code, str(exc)
                except (ValueError, AttributeError, RecursionError):
                    # RecursionError: json nests one level per "[" and gives up past the
                    # interpreter's recursion limit; like any other non-answer body, a 409.
                    code, problem = 409, "the request must be JSON {turn_id, text}"
                self._send(code, json.dumps({"ok": problem is None, "error": problem}).encode(), "application/json")

        return Handler


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>cluegym play</title><style>
body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
header { background: #24324a; color: #fff; padding: .6em 1em; }
main { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; padding: 1em; }
section { border: 1px solid #ddd; border-radius: 6px; padding: .6em 1em; background: #fafafa; overflow: auto; }
h2 { font-size: 1.05em; margin: .2em 0 .5em; } pre { white-space: pre-wrap; font-size: .85em; margin: 0; }
#reason { background: #fde2e2; border-left: 4px solid #c33; padding: .3em .6em; margin: .3em 0; }
#answer { width: 100%; font-size: 1.05em; padding: .3em; box-sizing: border-box; }
img.card { height: 150px; margin: 3px; border: 2px solid #999; border-radius: 5px; cursor: pointer; }
img.card:hover { border-color: #24324a; } .num { font-size: .8em; color: #555; text-align: center; }
.cards { display: flex; flex-wrap: wrap; } table td { vertical-align: top; padding: .15em .5em; font-size: .85em; }
</style></head><body>
<header><b>cluegym play</b> &mdash; <span id="who"></span> &mdash; <span id="status">connecting</span></header>
<main>
<section><h2>Your view</h2><div id="reason" hidden></div><table><tbody id="fields"></tbody></table>
<form id="form"><p><input id="answer" autocomplete="off" placeholder="your answer (click a card to pick it)">
</p><button id="send" type="submit">Send</button> <span id="sent"></span></form>
<p style="font-size:.85em;color:#555">Answer as the prompt asks, or just the value (e.g. 2, or red, sky, tree), or
key=value pairs separated by ';' (e.g. card=2; clue=a quiet sunset).</p>
<h2>Finished games</h2><pre id="result">none yet</pre></section>
<section><h2>Your prompt</h2><pre id="prompt"></pre></section>
</main>
<script>
let shown = -1;
const el = (id) => document.getElementById(id);
function esc(t) { const d = document.createElement('div'); d.textContent = String(t); return d.innerHTML; }
function value(v, images) {
  if (v && typeof v === 'object' && !Array.isArray(v) && '$image' in v) return card(v, images, 0);
  if (Array.isArray(v) && v.length && v.every(x => x && typeof x === 'object' && '$image' in x))
    return '<div class="cards">' + v.map((x, i) => card(x, images, i + 1)).join('') + '</div>';
  return '<pre>' + esc(JSON.stringify(v)) + '</pre>';
}
function card(v, images, n) {
  return `<div><img class="card" data-card="${n}" alt="card ${n}" src="${images[v['$image']]}">` +
         (n ? `<div class="num">${n}</div>` : '') + '</div>';
}
function pick(n) {
  const box = el('answer');
  box.value = /card=\\d+/.test(box.value) ? box.value.replace(/card=\\d+/, `card=${n}`)
            : (box.value.includes('=') ? `card=${n}; ${box.value}` : `card=${n}`);
  box.focus();
}
async function poll() {
  let state;
  try { state = await (await fetch('/state', {cache: 'no-store'})).json(); } catch (e) { el('status').textContent = 'server gone'; return; }
  el('who').textContent = `${state.game}, you play ${state.seat}`;
  el('status').textContent = state.status === 'your_turn' ? 'your turn' : state.status === 'over' ? 'game over' : 'the others are playing...';
  el('result').textContent = state.finished.length ? state.finished.map(g =>
    `game ${g.index}: returns ${JSON.stringify(g.returns)}`).join('\\n') : 'none yet';
  if (state.error) el('result').textContent += '\\nerror: ' + state.error;
  const turn = state.turn;
  el('send').disabled = !turn;
  if (turn && turn.turn_id !== shown) {
    shown = turn.turn_id;
    el('form').dataset.turn = String(shown);
    el('prompt').textContent = turn.prompt;
    el('fields').innerHTML = Object.entries(turn.fields).map(([k, v]) =>
      `<tr><td><b>${esc(k)}</b></td><td>${value(v, turn.images)}</td></tr>`).join('');
    document.querySelectorAll('img.card').forEach(img => img.onclick = () => pick(img.dataset.card));
    el('reason').hidden = !turn.reason; el('reason').textContent = turn.reason || '';
    el('sent').textContent = '';
  }
  if (state.status !== 'over') setTimeout(poll, 250);
}
el('form').onsubmit = async (e) => {
  e.preventDefault();
  const reply = await fetch('/answer', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({turn_id: shown, text: el('answer').value})});
  const body = await reply.json();
  el('sent').textContent = body.ok ? 'sent' : body.error;
  if (body.ok) { el('answer').value = ''; el('send').disabled = true; }
};
poll();
</script></body></html>
"""


def cmd_play(args: argparse.Namespace) -> int:
    """``cluegym play GAME --seat SEAT``: serve the page until the games are over; exit 0 (played),
    1 (the match failed), 2 (bad arguments, checked before the page is served) or 130 (Ctrl-C)."""
    agents = parse_assignments(args.agent, "--agent", "SEAT=SPEC")
    env_kwargs = parse_options(args.env, "--env")
    try:
        session = PlaySession(args.game, args.seat, agents, games=args.games, seed=args.seed, env_kwargs=env_kwargs,
                              port=args.port, results_path=args.results)
    except (AgentSpecError, ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    if session.games_left == 0:  # a page that is over at once would be no game to play
        session.close()
        print(f"cluegym play: {args.results} already holds all {args.games} games of this match: nothing to "
              f"play (see them with cluegym replay {args.results}, or give more --games)")
        return 0
    session.start()
    print(f"cluegym play: open {session.url} in a browser (you play {args.seat}; Ctrl-C to stop)", flush=True)
    if args.open:
        import webbrowser  # only when asked: it may start a browser process

        webbrowser.open(session.url)
    try:
        summary = session.wait()
    except KeyboardInterrupt:
        session.close()
        print("\ncluegym: interrupted", file=sys.stderr)
        return 130
    if summary is None:
        print(f"cluegym: play failed: {session.error}", file=sys.stderr)
        return 1
    for game in session.finished:
        print(f"game {game['index']}: returns {game['returns']}")
    return 0


def register_cli(subparsers: Any) -> None:
    """Add ``cluegym play``."""
    parser = subparsers.add_parser("play", help="play a seat yourself in the browser (a local page on 127.0.0.1)",
                                   description="Serve a local page (127.0.0.1 only) that shows your seat's view, "
                                               "cards as images, and takes your answers; the other seats are agents.")
    parser.add_argument("game", help="game name, e.g. dixit")
    parser.add_argument("--seat", required=True, help="the seat you play, e.g. player_0")
    parser.add_argument("--agent", action="append", default=[], metavar="SEAT=SPEC",
                        help="agent for another seat ('*' fills them; default: the game's default agents)")
    parser.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="game option; repeatable")
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (default 8765; 0: any free port)")
    parser.add_argument("--results", help="append the games to this JSONL (replay them with cluegym replay)")
    parser.add_argument("--open", action="store_true", help="open the page in the default browser")
    parser.set_defaults(func=cmd_play)
