"""The harness plays any agent that follows its protocol, built by any factory: it needs
nothing from cluegym.agents (which re-exports its Forfeit)."""

from __future__ import annotations

from typing import Any

import gymnasium
import pytest

import cluegym
from cluegym.agents.base import Agent
from cluegym.agents.base import Forfeit as AgentsForfeit
from cluegym.harness import Forfeit, MatchAgent, agent_seed, resolve_seats, run_match


class Resigner:
    """Not a cluegym Agent: gives up every decision, counts what it was asked."""

    def __init__(self, seat: str) -> None:
        self.seat = seat
        self.asked = 0
        self.seeds: list[int | None] = []
        self.results: list[dict[str, Any]] = []

    def reset(self, seed: int | None = None) -> None:
        self.seeds.append(seed)

    async def act_async(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        self.asked += 1
        raise Forfeit(f"{self.seat} resigns decision {self.asked}")

    def stats(self) -> dict[str, float]:
        return {"asked": float(self.asked), "label": "not a number"}  # type: ignore[dict-item]

    def observe_result(self, record: dict[str, Any]) -> None:
        self.results.append(record)


def test_forfeit_is_one_class_for_agents_and_harness():
    assert AgentsForfeit is Forfeit
    assert isinstance(Resigner("eve"), MatchAgent) and issubclass(Agent, MatchAgent)


def test_a_match_of_protocol_agents_from_a_plain_factory():
    built: list[tuple[str, str, str, int | None]] = []
    players: list[Resigner] = []

    def factory(spec: str, *, game: str, seat: str, action_space: gymnasium.Space, seed: int | None = None) -> Resigner:
        assert action_space == cluegym.make(game).action_space(seat)
        built.append((spec, game, seat, seed))
        players.append(Resigner(seat))
        return players[-1]

    summary = run_match("decrypto", {"*": "resign"}, make_agent=factory, games=2, seed=4,
                        env_kwargs={"max_turns": 2}, progress=False)
    # one probe build per seat before play (bad specs fail fast), then one per seat and game
    assert [(spec, seat) for spec, _, seat, _ in built] == [("resign", s) for s in ("alice", "bob", "eve")] * 3
    counters = summary["seat_counters"]
    assert summary["games"] == 2 and summary["errored_games"]["count"] == 0
    assert all(c["forfeits"] == c["decisions"] > 0 and c["agent_errors"] == 0 for c in counters.values())
    # numeric stats only; each agent reset with its seat's seed, and shown its game's record
    assert summary["agent_stats"]["alice"] == {"asked": float(counters["alice"]["decisions"])}
    game_players = players[3:]
    assert [p.seeds for p in game_players] == [[agent_seed(4, i, j)] for i in range(2) for j in range(3)]
    assert all(len(p.results) == 1 and "result" in p.results[0] for p in game_players)


def test_seats_resolve_explicit_then_wildcard_then_game_defaults():
    seats = ["alice", "bob", "eve"]
    assert resolve_seats("decrypto", {"*": "random", "eve": "glove"}, seats) == \
        {"alice": "random", "bob": "random", "eve": "glove"}
    defaults = cluegym.env_module("decrypto").DEFAULT_AGENTS
    assert resolve_seats("decrypto", {}, seats) == {s: defaults.get(s) or defaults.get("*") or "random" for s in seats}
    with pytest.raises(ValueError, match="decrypto has no seat carol; seats: alice, bob, eve"):
        resolve_seats("decrypto", {"carol": "random"}, seats)
