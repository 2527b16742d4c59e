"""Games/s of LLM-agent matches against an OpenAI-compatible server, by concurrency.

A fake chat server (:mod:`cluegym.agents.llm.fake_server`) runs in its own process on
127.0.0.1 and answers every request after a fixed delay with a well-formed Decrypto answer,
so the only costs are the simulated model latency and the harness (env steps, prompts,
parsing, the openai client, asyncio). Decrypto games with ``llm`` agents in all three seats
are played with ``run_match(..., concurrency=c)`` for c = 1, 8, 32, 64.

Scaling efficiency = (games/s at c) / (c x games/s at 1): 1.0 means the harness adds nothing
and c games overlap perfectly; the gap is harness overhead (CPU per request: one event loop
serves every game, so a burst of c replies waits c x that CPU), the start of a level (c envs
and their agents built at once) and its tail (the last games run alone; Decrypto games differ
in length). ``req_eff`` is the same ratio in requests/s, which games of different lengths do
not skew. ``cpu_ms/req`` is this process's CPU time (the harness and its HTTP client; the
server runs in its own process) over the level's requests.

    python -m cluegym.benchmarks.llm_concurrency                 # delay 0.2 s, c = 1 8 32 64
    python -m cluegym.benchmarks.llm_concurrency --delay 0.5 --levels 1 64          # issue 15: 8 waves
    python -m cluegym.benchmarks.llm_concurrency --delay 0.5 --levels 1 64 --waves 2  # start and tail weigh more
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

import cluegym
from cluegym.agents import run_match
from cluegym.benchmarks.host import describe_host
from cluegym.benchmarks.usage import check_outputs, non_negative_float, positive_int

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


#: The agents' request timeout (seconds): the server's delay must stay under it, else every
#: request times out, is retried and forfeits its decision, and the rows measure no match.
REQUEST_TIMEOUT_S = 60


def measure(base_url: str, concurrency: int, games: int, max_turns: int, seed: int = 0,
            http_client: str = "auto") -> dict[str, Any]:
    """One match at one concurrency level: games/s, requests/s, calls per game, and this
    process's CPU per request."""
    spec = (f"llm:backend=openai,base_url={base_url},model=fake,max_in_flight=256,timeout={REQUEST_TIMEOUT_S},"
            f"http_client={http_client}")
    cpu = time.process_time()
    summary = run_match(
        "decrypto", {"*": spec}, games=games, seed=seed, concurrency=concurrency,
        env_kwargs={"keywords": KEYWORDS, "max_turns": max_turns}, progress=False,
    )
    cpu = time.process_time() - cpu
    calls = sum(s.get("llm_calls", 0.0) for s in summary["agent_stats"].values())
    return {
        "concurrency": concurrency, "games": games, "wall_s": summary["wall_s"],
        "games_per_s": games / summary["wall_s"], "requests_per_s": calls / summary["wall_s"],
        "calls_per_game": calls / games, "cpu_s": cpu, "cpu_ms_per_request": 1000 * cpu / max(calls, 1.0),
    }


def run(delay_s: float = 0.2, levels: Sequence[int] = (1, 8, 32, 64), max_turns: int = 2,
        games_per_level: int | None = None, waves: int = 8, http_client: str = "auto") -> list[dict[str, Any]]:
    """Measure every level against one server (``waves x c`` games at level c, at least 4,
    unless ``games_per_level``); add ``efficiency`` (games/s) and ``req_eff`` (requests/s)
    relative to level 1.

    Raises:
        ValueError: ``levels`` lacks level 1 (the baseline: without it the lowest level was
            measured against itself and read 1.00) or names a level twice, or ``delay_s`` is
            not under :data:`REQUEST_TIMEOUT_S`.
    """
    if not 0 <= delay_s < REQUEST_TIMEOUT_S:
        raise ValueError(f"delay_s must be from 0 to under the agents' {REQUEST_TIMEOUT_S} s request timeout, "
                         f"got {delay_s}")
    if 1 not in levels:
        raise ValueError(f"levels must include 1, the baseline of the efficiencies; got {list(levels)}")
    if len(set(levels)) != len(levels):
        raise ValueError(f"levels must each be given once; got {list(levels)}")
    proc, base_url = start_server(delay_s)
    try:
        measure(base_url, 4, 4, max_turns, seed=99, http_client=http_client)  # warm-up: imports, first connections
        rows = []
        for c in levels:
            games = games_per_level if games_per_level is not None else max(4, waves * c)
            rows.append(measure(base_url, c, games, max_turns, http_client=http_client))
    finally:
        proc.terminate()
        proc.wait(10)
    first = next(r for r in rows if r["concurrency"] == 1)
    base, base_requests = first["games_per_s"], first["requests_per_s"]
    for r in rows:
        r["speedup"] = r["games_per_s"] / base
        r["efficiency"] = r["speedup"] / r["concurrency"]
        r["req_eff"] = r["requests_per_s"] / (base_requests * r["concurrency"])
        r["delay_s"] = delay_s
        r["http_client"] = http_client
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=non_negative_float, default=0.2,
                        help="server delay per request, seconds (default 0.2)")
    parser.add_argument("--levels", type=positive_int, nargs="+", default=[1, 8, 32, 64],
                        help="concurrency levels, each once, 1 among them (default 1 8 32 64): efficiency is "
                             "relative to level 1, games/s at c over c x games/s at 1")
    parser.add_argument("--max-turns", type=positive_int, default=2, help="Decrypto turns per game (default 2)")
    parser.add_argument("--waves", type=positive_int, default=8,
                        help="games per level = waves x concurrency, at least 4 (default 8: the steady state; "
                             "with 2 the start and the tail of a level weigh a fifth)")
    parser.add_argument("--games", type=positive_int, help="games per level (overrides --waves)")
    parser.add_argument("--http-client", default="auto", choices=("auto", "lean", "openai"),
                        help="the llm agents' http_client (default auto: the lean client here)")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    # Refused here, before the server starts and the levels play (run() raises the same).
    if 1 not in args.levels:
        parser.error(f"--levels must include 1: efficiency is relative to level 1 "
                     f"(got {' '.join(map(str, args.levels))})")
    if args.delay >= REQUEST_TIMEOUT_S:  # every request would time out: a match of forfeits, hours long
        parser.error(f"--delay must be under the agents' {REQUEST_TIMEOUT_S} s request timeout, got {args.delay}")
    twice = sorted({c for c in args.levels if args.levels.count(c) > 1})
    if twice:
        parser.error(f"--levels names {' '.join(map(str, twice))} more than once")
    try:  # the game's own bound on --max-turns (distinct codes), else a traceback after the warm-up
        cluegym.make("decrypto", keywords=KEYWORDS, max_turns=args.max_turns).close()
    except ValueError as error:
        parser.error(f"--max-turns: {error}")
    check_outputs(parser, {"--json": args.json})
    host = describe_host()
    rows = run(args.delay, args.levels, args.max_turns, args.games, args.waves, args.http_client)
    for r in rows:
        r["host"] = host.as_dict()
    print(host.lines())
    print(f"Decrypto, llm agents in 3 seats, fake server delay {args.delay}s, http_client={args.http_client}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    print(f"{'concurrency':>11} {'games':>6} {'wall_s':>7} {'games/s':>8} {'req/s':>7} {'cpu_ms/req':>10} "
          f"{'speedup':>8} {'efficiency':>10} {'req_eff':>8}")
    for r in rows:
        print(f"{r['concurrency']:>11} {r['games']:>6} {r['wall_s']:>7.2f} {r['games_per_s']:>8.2f} "
              f"{r['requests_per_s']:>7.1f} {r['cpu_ms_per_request']:>10.2f} {r['speedup']:>8.1f} "
              f"{r['efficiency']:>10.2f} {r['req_eff']:>8.2f}")
    top = max(rows, key=lambda r: r["concurrency"])
    print(f"scaling efficiency at {top['concurrency']} concurrent games: {top['efficiency']:.2f} "
          f"(requests: {top['req_eff']:.2f}); harness CPU {top['cpu_ms_per_request']:.2f} ms per request")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
