"""Peer environments for the throughput benchmark: TextArena and PettingZoo games.

Each peer plays whole games with a cheap scripted policy, the way its documentation shows
(TextArena: a new ``ta.make`` env per game, ``reset(num_players=...)``, ``get_observation`` /
``step`` until done, ``close``; PettingZoo: ``agent_iter`` / ``last`` / ``step`` over one env),
so its figures are comparable with :mod:`cluegym.benchmarks.throughput`'s. The peers are an
optional extra (``pip install -e ".[peers]"``, installed by ``scripts/setup.sh --test``):
:func:`available_peers` lists those that import.

Example:
    >>> peer = PEERS["textarena/Taboo-v0"]
    >>> steps = peer.play_game(seed=0)        # one game, its number of steps
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

#: The peer every figure is compared with (issue 15: "each game's ratio to TextArena Taboo").
REFERENCE_PEER = "textarena/Taboo-v0"

def _textarena_game(env_id: str, num_players: int, policy: Callable[[Any, int, str], str]) -> Callable[[int], int]:
    """One game of a TextArena env; ``policy(game, player_id, observation)`` -> action text."""
    def play_game(seed: int) -> int:
        import textarena as ta  # deferred: an optional extra, imported only when a peer runs

        env = ta.make(env_id=env_id)
        env.reset(num_players=num_players, seed=seed)
        game = env
        while hasattr(game, "env"):  # the game under TextArena's wrappers, for the scripted policy
            game = game.env
        steps, done = 0, False
        while not done:
            player_id, observation = env.get_observation()
            done, _ = env.step(action=policy(game, player_id, observation))
            steps += 1
        env.close()
        return steps

    return play_game


def _taboo_policy(game: Any, player_id: int, observation: str) -> str:
    """Clue givers (seats 0 and 2 of 4) give a harmless clue, guessers guess in brackets."""
    return "something you can find at home" if player_id % 2 == 0 else "[river]"


def _mafia_policy(game: Any, player_id: int, observation: str) -> str:
    """Name the first living player other than oneself (a legal target in every phase)."""
    alive = game.state.game_state["alive_players"]
    target = next((p for p in alive if p != player_id), player_id)
    return f"I suspect [{target}]" if game.phase.name == "DAY_DISCUSSION" else f"[{target}]"


def _pettingzoo_game(module: str) -> Callable[[int], int]:
    """One game of a PettingZoo classic env (one env for all games), random legal moves."""
    state: dict[str, Any] = {}

    def play_game(seed: int) -> int:
        env = state.get("env")
        if env is None:
            env = state["env"] = importlib.import_module(module).env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        return steps

    return play_game


@dataclass(frozen=True)
class Peer:
    """A peer environment: its package and a function that plays one game."""

    name: str
    package: str
    play_game: Callable[[int], int]

    def available(self) -> bool:
        """Whether its package (and what it needs) imports here."""
        if importlib.util.find_spec(self.package.split(".")[0]) is None:
            return False
        try:
            self.play_game(0)
        except ImportError:
            return False
        return True


#: The peers, by the name the benchmark prints.
PEERS: dict[str, Peer] = {
    "textarena/Taboo-v0": Peer("textarena/Taboo-v0", "textarena", _textarena_game("Taboo-v0", 4, _taboo_policy)),
    "textarena/SecretMafia-v0": Peer(
        "textarena/SecretMafia-v0", "textarena", _textarena_game("SecretMafia-v0", 6, _mafia_policy)),
    "pettingzoo/connect_four_v3": Peer(
        "pettingzoo/connect_four_v3", "pettingzoo.classic.connect_four_v3",
        _pettingzoo_game("pettingzoo.classic.connect_four_v3")),
    "pettingzoo/texas_holdem_v4": Peer(
        "pettingzoo/texas_holdem_v4", "pettingzoo.classic.texas_holdem_v4",
        _pettingzoo_game("pettingzoo.classic.texas_holdem_v4")),
}


def available_peers() -> list[Peer]:
    """The peers whose packages are installed (``pip install -e ".[peers]"``)."""
    return [peer for peer in PEERS.values() if peer.available()]
