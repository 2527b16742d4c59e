"""Game ``i`` of a match, from seats to its results row: the one code path that local and Ray
runs share, so both write the same row for the same game, byte for byte.

Example:
    >>> from cluegym.agents import make_agent
    >>> seats = {"alice": "random", "bob": "random", "eve": "random"}
    >>> signature = {"game": "decrypto", "seats": seats, "seed": 0, "env": {}}
    >>> row, line = play_match_game("decrypto", seats, 3, seed=0, env_kwargs={}, signature=signature,
    ...                             make_agent=make_agent)
    >>> row["index"], row["record"]["result"]["winner"], row["record"]["returns"]
    (3, 'interceptor', {'alice': -1.0, 'bob': -1.0, 'eve': 1.0})
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

from cluegym.envs.core.registry import env_module
from cluegym.harness.agent_protocol import AgentFactory, MatchAgent
from cluegym.harness.play import agent_game_stats, play_game_async
from cluegym.harness.results import error_text, game_row
from cluegym.harness.seats import build_agents
from cluegym.harness.seeding import agent_seed, game_seed, own_seed_of

__all__ = ["play_match_game", "play_match_game_async"]


async def play_match_game_async(
    game: str,
    seats: dict[str, str],
    index: int,
    *,
    seed: int,
    signature: dict[str, Any],
    make_agent: AgentFactory,
    new_env: Callable[[], Any],
    on_agents: Callable[[dict[str, MatchAgent]], None] | None = None,
) -> tuple[dict[str, Any], str, Any | None]:
    """Play game ``index`` of the match seeded ``seed`` and return its results row.

    The env is reset with ``game_seed(seed, index)`` (and the options its
    ``match_game_options(index)`` gives, where the env has that method) and each seat's fresh
    agent with ``agent_seed(seed, index, seat, own_seed)``, where ``own_seed`` is the seed its
    spec sets (``seed=S``; None without one, see :func:`~cluegym.harness.own_seed_of`). Anything
    that fails inside the game (env, agent reset, an env bug) makes the row an errored one;
    agents' own failures cost one decision only.

    Args:
        game: registered game name.
        seats: seat -> agent spec, every seat filled (see :func:`~cluegym.harness.resolve_seats`).
        index: the game's index in the match.
        seed: the match seed.
        signature: the match signature written in every row.
        make_agent: the agent factory.
        new_env: returns the env to play on (built fresh or reused: ``reset`` starts afresh).
        on_agents: called with the game's agents once built (a progress bar shows their counters).

    Returns:
        ``(row, line, env)``: the row, its JSONL line, and the env to reuse (None when the
        game errored: it may have left its env inconsistent).
    """
    players: dict[str, MatchAgent] = {}
    env = None
    try:
        env = new_env()
        players = build_agents(game, env, seats, make_agent=make_agent)
        if on_agents is not None:
            on_agents(players)
        # A spec's seed=S is mixed into its seat's per-game seed (the reset would otherwise
        # overwrite it): S and T play differently, while every game still gets its own seed.
        seat_seeds = {s: agent_seed(seed, index, j, own_seed_of(players[s])) for j, s in enumerate(env.possible_agents)}
        # A game may ask for per-game reset options (Undercover's every-pair schedule needs the
        # game's index); other games have no such hook and reset without options, as before.
        options_for = getattr(env.unwrapped, "match_game_options", None)
        options = options_for(index) if callable(options_for) else None
        record = await play_game_async(env, players, game_seed(seed, index), seat_seeds, options)
        row, line = game_row(signature, index, agent_game_stats(players), record=record)
    except Exception as exc:  # noqa: BLE001 - one game's failure ends that game only
        row, line = game_row(signature, index, agent_game_stats(players), error=error_text(exc))
        env = None
    return row, line, env


def play_match_game(game: str, seats: dict[str, str], index: int, *, seed: int, env_kwargs: dict[str, Any],
                    signature: dict[str, Any], make_agent: AgentFactory,
                    stopped: Callable[[], Awaitable[bool]] | None = None,
                    poll_s: float = 1.0) -> tuple[dict[str, Any], str] | None:
    """:func:`play_match_game_async` on a new env, synchronously: a game played by a Ray worker.

    Args:
        stopped: asked every ``poll_s`` seconds while the game awaits its agents (an LLM's
            reply); when it answers True the game is cancelled (its agents' awaits, requests
            included) and None is returned. A game over before the first ask never asks; one
            whose agents never await plays to its end.
        poll_s: seconds between asks of ``stopped``.

    Returns:
        ``(row, line)``: the results row and its JSONL line; None when ``stopped`` ended it.
    """

    async def play() -> tuple[dict[str, Any], str] | None:
        game_task = asyncio.ensure_future(play_match_game_async(
            game, seats, index, seed=seed, signature=signature, make_agent=make_agent,
            new_env=lambda: env_module(game).env(**env_kwargs),
        ))
        while stopped is not None and not game_task.done():
            await asyncio.wait({game_task}, timeout=poll_s)
            if not game_task.done() and await stopped():
                game_task.cancel()
                await asyncio.gather(game_task, return_exceptions=True)
                return None
        row, line, _ = await game_task
        return row, line

    return asyncio.run(play())
