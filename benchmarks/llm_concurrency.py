"""Games/s of LLM-agent matches against an OpenAI-compatible server, by concurrency.

A fake chat server (:mod:`cluegym.agents.llm.fake_server`) runs in its own process on
127.0.0.1 and answers every request after a fixed delay with a well-formed Decrypto answer,
so the only costs are the simulated model latency and the harness (env steps, prompts,
parsing, the openai client, asyncio). Decrypto games with ``llm`` agents in all three seats
are played with ``run_match(..., concurrency=c)`` for c = 1, 8, 32, 64.

Scaling efficiency = (games/s at c) / (c x games/s at 1): 1.0 means the harness adds nothing
and c games overlap perfectly; the gap is harness overhead (CPU per request) and tail effects.

    python -m cluegym.benchmarks.llm_concurrency                 # delay 0.2 s, c = 1 8 32 64
    python -m cluegym.benchmarks.llm_concurrency --delay 0.5 --levels 1 8 32 64 128 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from typing import Any, Sequence

from cluegym.agents import run_match

KEYWORDS = ["apple", "river", "guitar", "castle", "doctor", "pencil", "tiger", "cloud", "engine", "forest"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(delay_s: float) -> tuple[subprocess.Popen, str]:
    """Start the fake server in a separate process (so it does not share the GIL with the
    harness being measured); return it and its base URL once it accepts connections."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cluegym.agents.llm.fake_server", "--port", str(port), "--delay", str(delay_s)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}/v1"
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("fake chat server did not start")


def measure(base_url: str, concurrency: int, games: int, max_turns: int, seed: int = 0) -> dict[str, Any]:
    """One match at one concurrency level: games/s, requests/s, calls per game."""
    spec = f"llm:backend=openai,base_url={base_url},model=fake,max_in_flight=256,timeout=60"
    summary = run_match(
        "decrypto", {"*": spec}, games=games, seed=seed, concurrency=concurrency,
        env_kwargs={"keywords": KEYWORDS, "max_turns": max_turns}, progress=False,
    )
    calls = sum(s.get("llm_calls", 0.0) for s in summary["agent_stats"].values())
    return {
        "concurrency": concurrency, "games": games, "wall_s": summary["wall_s"],
        "games_per_s": games / summary["wall_s"], "requests_per_s": calls / summary["wall_s"],
        "calls_per_game": calls / games,
    }


def run(delay_s: float = 0.2, levels: Sequence[int] = (1, 8, 32, 64), max_turns: int = 2,
        games_per_level: int | None = None) -> list[dict[str, Any]]:
    """Measure every level against one server; add ``efficiency`` relative to level 1."""
    proc, base_url = start_server(delay_s)
    try:
        measure(base_url, 4, 4, max_turns, seed=99)  # warm-up: imports, client, connections
        rows = []
        for c in levels:
            games = games_per_level or max(4, 2 * c)
            rows.append(measure(base_url, c, games, max_turns))
    finally:
        proc.terminate()
        proc.wait(10)
    base = next((r["games_per_s"] for r in rows if r["concurrency"] == 1), rows[0]["games_per_s"] / rows[0]["concurrency"])
    for r in rows:
        r["speedup"] = r["games_per_s"] / base
        r["efficiency"] = r["speedup"] / r["concurrency"]
        r["delay_s"] = delay_s
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=0.2, help="server delay per request, seconds (default 0.2)")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--max-turns", type=int, default=2, help="Decrypto turns per game (default 2)")
    parser.add_argument("--games", type=int, help="games per level (default max(4, 2 x concurrency))")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    rows = run(args.delay, args.levels, args.max_turns, args.games)
    print(f"Decrypto, llm agents in 3 seats, fake server delay {args.delay}s, {os.cpu_count()} CPUs")
    print(f"{'concurrency':>11} {'games':>6} {'wall_s':>7} {'games/s':>8} {'req/s':>7} {'speedup':>8} {'efficiency':>10}")
    for r in rows:
        print(f"{r['concurrency']:>11} {r['games']:>6} {r['wall_s']:>7.2f} {r['games_per_s']:>8.2f} "
              f"{r['requests_per_s']:>7.1f} {r['speedup']:>8.1f} {r['efficiency']:>10.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
