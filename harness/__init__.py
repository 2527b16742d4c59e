"""cluegym.harness: play matches between agents (the layer between envs and agents).

The match harness plays seeded games (:mod:`~cluegym.harness.seeding`), fills the seats
(:mod:`~cluegym.harness.seats`), runs the play loop with forfeits (:mod:`~cluegym.harness.play`),
logs and resumes results (:mod:`~cluegym.harness.results`) and runs whole matches with
concurrency and a progress bar (:mod:`~cluegym.harness.runner`; an agent's KeyboardInterrupt stops
them cleanly, :mod:`~cluegym.harness.stopping`), locally or as Ray tasks across
a cluster (:mod:`~cluegym.harness.distributed`); the commands that run them read their
``NAME=VALUE`` arguments with :mod:`~cluegym.harness.arguments`. It imports only
:mod:`cluegym.envs` and third-party packages: agents reach it through
:class:`~cluegym.harness.agent_protocol.MatchAgent`, and the caller passes the agent factory
(:func:`cluegym.agents.run_match` passes the agent registry's ``make_agent``).

Example:
    >>> from cluegym.agents import make_agent
    >>> from cluegym.harness import run_match
    >>> summary = run_match("decrypto", {"*": "random"}, make_agent=make_agent, games=4, progress=False)
"""

from __future__ import annotations

from cluegym.harness.agent_protocol import AgentFactory, CallLogger, EnvChecker, Forfeit, MatchAgent, ResultObserver
from cluegym.harness.distributed import RayNotInstalledError
from cluegym.harness.match_game import play_match_game, play_match_game_async
from cluegym.harness.play import agent_game_stats, play_game, play_game_async
from cluegym.harness.results import error_text
from cluegym.harness.runner import format_metrics, run_match, summarize
from cluegym.harness.seats import build_agents, check_agents_fit, resolve_seats
from cluegym.harness.seeding import agent_seed, check_match_seed, game_seed, own_seed_of, with_own_seed
from cluegym.harness.stopping import CarriedStop, GameSlots, run_carrying_stops

__all__ = [
    "AgentFactory", "CallLogger", "CarriedStop", "EnvChecker", "Forfeit", "GameSlots", "MatchAgent",
    "RayNotInstalledError", "ResultObserver", "agent_game_stats", "agent_seed", "build_agents",
    "check_agents_fit", "check_match_seed", "error_text", "format_metrics", "game_seed", "own_seed_of",
    "play_game", "play_game_async", "play_match_game", "play_match_game_async", "resolve_seats",
    "run_carrying_stops", "run_match", "summarize", "with_own_seed",
]
