"""A recorded game as one self-contained HTML page that steps through it turn by turn.

Game records keep digests of observations, not the observations, so the page is built by
replaying the record through its env (:func:`cluegym.envs.core.record.replay` semantics, each
digest checked): at every step the page shows the seat to move, what it saw (its prompt and
its structured view, images such as Dixit's cards included), what it submitted, whether the env
rejected it (and why), any fallback or forfeit, the game events, and the LLM calls of that
decision with their latency when the record carries agent logs. The outcome (result, returns,
the final table) closes the page. Images are embedded as PNG data URIs, each distinct image
once; the page needs no server and no network.

Example:
    >>> from cluegym.agents import run_match
    >>> _ = run_match("decrypto", {"*": "random"}, games=1, seed=0, results_path="decrypto.jsonl",
    ...               progress=False)
    >>> record = load_record("decrypto.jsonl", game=0)
    >>> page = replay_html(record)
    >>> page.startswith("<!DOCTYPE html>"), record["result"]["winner"]
    (True, 'interceptor')
    >>> _ = Path("game0.html").write_text(page)  # opens offline in any browser

    cluegym replay runs/dixit/matches/000-a-vs-b.jsonl --game 3 --html dixit3.html
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import html
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from cluegym.envs.core.record import ReplayMismatch, digest, to_jsonable, transcript
from cluegym.envs.core.registry import make
from cluegym.benchmarks.usage import usage_error

__all__ = ["load_record", "register_cli", "replay_html", "replay_model"]

#: Observation keys shown elsewhere on the page (the prompt) or not useful to a reader.
_HIDDEN_KEYS = ("prompt",)


def load_record(path: str | Path, game: int = 0) -> dict[str, Any]:
    """The record of game ``game`` from a results JSONL (``cluegym run --results``, a tournament's
    ``matches/*.jsonl``) or from a JSONL of bare records (then ``game`` is the line number, from 0).

    Raises:
        ValueError: a missing file, or no finished game ``game`` in it (the message lists the ones there).
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path} is not a file")
    found: dict[int, dict[str, Any]] = {}
    for n, line in enumerate(path.read_text(errors="replace").splitlines()):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a kill
        if not isinstance(row, dict):
            continue
        if "record" in row and isinstance(row.get("index"), int):
            found[row["index"]] = row["record"]
        elif "steps" in row and "game" in row:
            found[n] = row
    if game not in found:
        shown = ", ".join(map(str, sorted(found)[:20])) or "none"
        raise ValueError(f"{path} has no finished game {game} (games there: {shown})")
    return found[game]


class _Images:
    """Distinct images of the game as PNG data URIs, keyed by a hash of their pixels."""

    def __init__(self) -> None:
        self.uris: dict[str, str] = {}

    def add(self, array: np.ndarray) -> str:
        key = hashlib.sha1(np.ascontiguousarray(array).tobytes() + str(array.shape).encode()).hexdigest()[:12]
        if key not in self.uris:
            buffer = io.BytesIO()
            Image.fromarray(np.asarray(array, dtype=np.uint8)).save(buffer, format="PNG", optimize=True)
            self.uris[key] = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
        return key


def _is_image(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype == np.uint8 and value.ndim == 3 and value.shape[-1] in (1, 3, 4)


def _view(observation: Any, images: _Images) -> dict[str, Any]:
    """The structured view: every field but the prompt, images replaced by ``{"$img": key}``."""
    if not isinstance(observation, dict):
        return {"observation": to_jsonable(observation)}
    view: dict[str, Any] = {}
    for key, value in observation.items():
        if key in _HIDDEN_KEYS:
            continue
        if _is_image(value):
            view[key] = {"$img": images.add(value)}
        elif isinstance(value, np.ndarray) and value.ndim == 4 and value.dtype == np.uint8 and _is_image(value[0]):
            view[key] = [{"$img": images.add(img)} for img in value]
        else:
            view[key] = to_jsonable(value)
    return view


def _decisions(steps: list[dict[str, Any]]) -> list[int]:
    """Each step's decision number for its seat (1, 2, ...): a rejected submission and the
    re-ask that follows are one decision, as LLM agents count them in their call logs."""
    counts: dict[str, int] = {}
    open_decision: dict[str, bool] = {}
    numbers = []
    for step in steps:
        seat = step["agent"]
        if not open_decision.get(seat):
            counts[seat] = counts.get(seat, 0) + 1
        open_decision[seat] = "error" in step and "fallback" not in step and "forfeit" not in step
        numbers.append(counts[seat])
    return numbers


def replay_model(record: dict[str, Any]) -> dict[str, Any]:
    """Everything the page shows, as JSON: steps (seat, prompt, view, action, rejection,
    fallback, forfeit, events, LLM calls), images, outcome.

    Raises:
        ReplayMismatch: the record does not replay (another version of the game, a tampered file).
    """
    env = make(record["game"], **record["config"])
    env.reset(seed=record["seed"], options=record.get("options"))
    images = _Images()
    logs = record.get("agent_logs") or {}
    if not isinstance(logs, dict) or not all(isinstance(calls, list) and all(isinstance(c, dict) for c in calls)
                                             for calls in logs.values() if calls is not None):
        raise ValueError("the record's agent_logs must map seats to lists of call logs")
    calls_by_decision: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for seat, calls in logs.items():
        for call in calls or []:
            calls_by_decision.setdefault((seat, int(call.get("decision", 0))), []).append(call)
    steps = []
    shown_calls: set[tuple[str, int]] = set()
    returns = {seat: 0.0 for seat in env.possible_agents}
    for i, (step, decision) in enumerate(zip(record["steps"], _decisions(record["steps"]))):
        seat = env.agent_selection
        if seat != step["agent"]:
            raise ReplayMismatch(f"step {i}: {seat!r} to move, record says {step['agent']!r}")
        observation = env.observe(seat)
        if step.get("obs") is not None and digest(observation) != step["obs"]:
            raise ReplayMismatch(f"step {i}: observation of {seat!r} differs from the record")
        key = (seat, decision)
        calls = calls_by_decision.get(key, []) if key not in shown_calls else []
        shown_calls.add(key)
        steps.append({
            "seat": seat, "decision": decision,
            "prompt": observation.get("prompt", "") if isinstance(observation, dict) else "",
            "view": _view(observation, images), "action": step.get("action"), "error": step.get("error"),
            "fallback": step.get("fallback"), "forfeit": step.get("forfeit"), "events": step.get("events", []),
            "calls": [_call_view(c) for c in calls],
        })
        if "forfeit" in step:
            env.unwrapped.forfeit(step["forfeit"])
        else:
            env.step(env.unwrapped.action_from_json(seat, step["action"]))
        for name, reward in env.unwrapped.rewards.items():  # each step's rewards, as the players collect them
            returns[name] = returns.get(name, 0.0) + float(reward)
    _check_outcome(record, env.unwrapped.game_record(), returns)
    return {
        "game": record["game"], "seed": record["seed"], "config": record["config"], "steps": steps,
        "images": images.uris, "result": record.get("result"), "returns": record.get("returns"),
        "table": transcript(record),
    }


def _check_outcome(record: dict[str, Any], replayed: dict[str, Any], returns: dict[str, float]) -> None:
    """Raise ReplayMismatch unless the record's steps end the game with the record's result
    and returns (``replayed``: the replayed env's record; ``returns``: its rewards summed): the
    page shows both, and a record cut short (or edited) showed a game that stopped mid-way
    under the recorded outcome of the whole game."""
    if "result" not in replayed:
        raise ReplayMismatch(f"the record stops after {len(record['steps'])} steps, before the game's end")
    recorded = record.get("returns")
    # Returns are sums of floats, added up in another order by the players' loop: compared
    # to a relative 1e-9, not bit for bit.
    same_returns = isinstance(recorded, dict) and set(recorded) == set(returns) and all(
        isinstance(recorded[seat], (int, float)) and math.isclose(recorded[seat], total, rel_tol=1e-9, abs_tol=1e-12)
        for seat, total in returns.items())
    for key, same, value in (("result", _as_json(record.get("result")) == _as_json(replayed["result"]),
                              replayed["result"]), ("returns", same_returns, returns)):
        if not same:
            raise ReplayMismatch(f"the record's {key} differs from its replay's: {_as_json(record.get(key))} "
                                 f"recorded, {_as_json(value)} replayed")


def _as_json(value: Any) -> Any:
    """``value`` as it reads back from a results file (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(to_jsonable(value)))


def _call_view(call: dict[str, Any]) -> dict[str, Any]:
    """The parts of an LLM call log entry the page shows."""
    keys = ("step", "attempt", "model", "backend", "latency_s", "prompt_tokens", "completion_tokens", "cached",
            "reply", "parsed", "parse_error", "error", "messages")
    return {k: call[k] for k in keys if k in call}


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
header { background: #24324a; color: #fff; padding: .6em 1em; position: sticky; top: 0; z-index: 2; }
header button { font-size: 1em; margin-right: .3em; } header input[type=range] { width: 30em; vertical-align: middle; }
main { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; padding: 1em; }
section { border: 1px solid #ddd; border-radius: 6px; padding: .6em 1em; background: #fafafa; overflow: auto; }
h2 { font-size: 1.05em; margin: .2em 0 .5em; } pre { white-space: pre-wrap; font-size: .85em; margin: 0; }
.rejected { background: #fde2e2; border-left: 4px solid #c33; padding: .3em .6em; margin: .3em 0; }
.fallback { background: #fff3cd; border-left: 4px solid #d9a400; padding: .3em .6em; margin: .3em 0; }
.accepted { background: #e2f5e2; border-left: 4px solid #2a2; padding: .3em .6em; margin: .3em 0; }
.call { border-top: 1px dashed #bbb; padding: .3em 0; font-size: .9em; }
table.view td { vertical-align: top; padding: .15em .5em; border-bottom: 1px solid #eee; font-size: .85em; }
table.view td.key { font-weight: 600; white-space: nowrap; }
img.card { height: 120px; margin: 2px; border: 1px solid #999; border-radius: 4px; image-rendering: auto; }
#outcome { grid-column: 1 / span 2; }
"""

_SCRIPT = r"""
const data = JSON.parse(document.getElementById('replay-data').textContent);
let current = 0;
const el = (id) => document.getElementById(id);
function esc(text) { const d = document.createElement('div'); d.textContent = String(text); return d.innerHTML; }
function show(value) {
  if (value && typeof value === 'object' && !Array.isArray(value) && '$img' in value) {
    return `<img class="card" alt="image ${value['$img']}" src="${data.images[value['$img']]}">`;
  }
  if (Array.isArray(value) && value.length && value.every(v => v && typeof v === 'object' && '$img' in v)) {
    return value.map(show).join('');
  }
  return `<pre>${esc(JSON.stringify(value))}</pre>`;
}
function render() {
  const step = data.steps[current];
  el('step-index').textContent = `${current + 1} / ${data.steps.length}`;
  el('slider').value = current;
  el('seat').textContent = `${step.seat} (decision ${step.decision})`;
  el('prompt').textContent = step.prompt;
  el('view').innerHTML = Object.entries(step.view).map(([k, v]) =>
    `<tr><td class="key">${esc(k)}</td><td>${show(v)}</td></tr>`).join('');
  let did = '';
  if (step.forfeit !== null && step.forfeit !== undefined) {
    did += `<div class="rejected forfeit">forfeit: ${esc(step.forfeit)}</div>`;
  } else if (step.error) {
    did += `<div class="rejected">rejected: <code>${esc(JSON.stringify(step.action))}</code><br>reason: ${esc(step.error)}</div>`;
  } else {
    did += `<div class="accepted">action: <code>${esc(JSON.stringify(step.action))}</code></div>`;
  }
  if (step.fallback) {
    did += `<div class="fallback">fallback: <code>${esc(JSON.stringify(step.fallback.action))}</code> (${esc(step.fallback.reason)})</div>`;
  }
  el('action').innerHTML = did;
  el('events').innerHTML = step.events.length ? step.events.map(e => `<li><code>${esc(JSON.stringify(e))}</code></li>`).join('') : '<li>none</li>';
  el('calls').innerHTML = step.calls.length ? step.calls.map(c =>
    `<div class="call">${esc(c.model || '')} attempt ${c.attempt ?? 0}: <b>${c.latency_s ?? '?'} s</b>` +
    (c.error ? ` <span class="rejected">error: ${esc(c.error)}</span>` : '') +
    (c.parse_error ? ` <span class="rejected">unreadable: ${esc(c.parse_error)}</span>` : '') +
    (c.reply !== undefined ? `<pre>${esc(c.reply)}</pre>` : '') + '</div>').join('') : 'none recorded';
  el('prev').disabled = current === 0;
  el('next').disabled = current === data.steps.length - 1;
}
function go(i) { current = Math.max(0, Math.min(data.steps.length - 1, i)); render(); }
el('first').onclick = () => go(0);
el('prev').onclick = () => go(current - 1);
el('next').onclick = () => go(current + 1);
el('last').onclick = () => go(data.steps.length - 1);
el('slider').max = data.steps.length - 1;
el('slider').oninput = (e) => go(Number(e.target.value));
document.addEventListener('keydown', (e) => { if (e.key === 'ArrowRight') go(current + 1); if (e.key === 'ArrowLeft') go(current - 1); });
el('result').textContent = JSON.stringify({returns: data.returns, result: data.result}, null, 1);
el('table').textContent = data.table;
render();
"""


def replay_html(record: dict[str, Any], title: str | None = None) -> str:
    """The page for one game record (see the module docstring).

    Raises:
        ReplayMismatch: the record does not replay with the installed game.
    """
    model = replay_model(record)
    title = title or f"{record['game']} game, seed {record['seed']}"
    # Inside <script> no "<" may stay: "</" ends the element early, and "<!--" with "<script"
    # after it puts the parser in a state where the element's own "</script>" no longer ends
    # it (a recorded reply "<!--<script>" left a blank page). JSON strings take "\u003c".
    payload = json.dumps(model, allow_nan=False).replace("<", "\\u003c")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{_STYLE}</style></head>
<body>
<header><b>{html.escape(title)}</b> &nbsp;
<button id="first" title="first step">first</button><button id="prev" title="previous step (left arrow)">&#x25C0;</button>
<span id="step-index"></span>
<button id="next" title="next step (right arrow)">&#x25B6;</button><button id="last" title="last step">last</button>
<input id="slider" type="range" min="0" value="0" aria-label="step"></header>
<main>
<section><h2>Seat to move: <span id="seat"></span></h2><h2>What it did</h2><div id="action"></div>
<h2>Events</h2><ul id="events"></ul><h2>LLM calls</h2><div id="calls"></div></section>
<section><h2>Its prompt</h2><pre id="prompt"></pre></section>
<section style="grid-column: 1 / span 2"><h2>Its structured view</h2><table class="view"><tbody id="view"></tbody></table></section>
<section id="outcome"><h2>Outcome</h2><pre id="result"></pre><h2>Final table</h2><pre id="table"></pre></section>
</main>
<script id="replay-data" type="application/json">{payload}</script>
<script>{_SCRIPT}</script>
</body></html>
"""


def cmd_replay(args: argparse.Namespace) -> int:
    """``cluegym replay RESULTS.jsonl --game K --html OUT.html``."""
    out = Path(args.html)
    if out.resolve() == Path(args.results).resolve():
        usage_error(f"--html {out} is the results file: writing the page there would destroy it")
    try:
        record = load_record(args.results, args.game)
        page = replay_html(record, title=f"{record['game']}: game {args.game} of {Path(args.results).name}")
    except (ValueError, ReplayMismatch, KeyError, TypeError) as exc:
        usage_error(f"{args.results}: {exc}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page)
    except OSError as exc:
        usage_error(f"--html {out} is not writable ({exc.strerror or exc})")
    print(f"written {out} ({len(page) / 1e6:.1f} MB, {len(record['steps'])} steps); open it in a browser")
    return 0


def register_cli(subparsers: Any) -> None:
    """Add ``cluegym replay``."""
    parser = subparsers.add_parser("replay", help="one recorded game as a self-contained HTML page",
                                   description="Replay game K of a results JSONL (cluegym run --results, or a "
                                               "tournament's matches/*.jsonl) into one offline HTML page that "
                                               "steps through the game: what each seat saw and did.")
    parser.add_argument("results", help="results JSONL")
    parser.add_argument("--game", type=int, default=0, help="the game's index in the match (default 0)")
    parser.add_argument("--html", required=True, help="the page to write, e.g. game0.html")
    parser.set_defaults(func=cmd_replay)
