"""Seating two agents at a Dixit table so the hand swap trades hands between them.

DixitWorld swaps hands between the phases (P1<->P3, P2<->P4: seat ``p`` passes its hand to
seat ``p + N/2``) "to eliminate hand-quality bias". That only works between agents when a
seat and its swap partner hold different agents: with one agent at P1/P3 (``player_0`` and
``player_2``) the swap trades hands within that agent and a lucky deal stays with it. The
seating here puts agent A on the first ``N/2`` seats and agent B on the rest, so every swap
crosses over (4 players: A at ``player_0``, ``player_1``; B at ``player_2``, ``player_3``).

Example:
    >>> pair_seating("caption", "vision")
    {'player_0': 'caption', 'player_1': 'caption', 'player_2': 'vision', 'player_3': 'vision'}
    >>> swap_partner("player_1")
    'player_3'
"""

from __future__ import annotations

from typing import Mapping

from cluegym.envs.core.seats import seat_name


def _seat_number(seat: str, num_players: int) -> int:
    prefix, _, number = seat.rpartition("_")
    if prefix != "player" or not number.isdigit() or not 0 <= int(number) < num_players:
        raise ValueError(f"{seat!r} is not a seat of a {num_players}-player Dixit table (player_0 .. "
                         f"player_{num_players - 1})")
    return int(number)


def swap_partner(seat: str, num_players: int = 4) -> str:
    """The seat whose hand ``seat`` receives at the hand swap (and that receives its hand).

    Raises:
        ValueError: not a seat of the table, or an odd number of players (no pairwise swap).
    """
    if num_players % 2:
        raise ValueError(f"the hand swap pairs seats only with an even number of players, got {num_players}")
    return seat_name((_seat_number(seat, num_players) + num_players // 2) % num_players)


def pair_seating(agent_a: str, agent_b: str, num_players: int = 4) -> dict[str, str]:
    """Seats for a match of ``agent_a`` against ``agent_b``: A on the first half of the table,
    B on the second, so every hand swap is between the two agents.

    Raises:
        ValueError: an odd number of players.
    """
    if num_players % 2 or num_players < 2:
        raise ValueError(f"a two-agent Dixit table needs an even number of players, got {num_players}")
    half = num_players // 2
    return {seat_name(p): agent_a if p < half else agent_b for p in range(num_players)}


def swaps_within_agent(seats: Mapping[str, str], num_players: int = 4) -> list[tuple[str, str]]:
    """The swap pairs ``(seat, partner)`` whose two seats hold the same agent: empty when every
    hand swap trades hands between different agents (what a fair mixed match needs).

    Example:
        >>> swaps_within_agent({"player_0": "a", "player_2": "a", "player_1": "b", "player_3": "b"})
        [('player_0', 'player_2'), ('player_1', 'player_3')]
    """
    pairs = []
    for p in range(num_players // 2):
        seat, partner = seat_name(p), swap_partner(seat_name(p), num_players)
        if seats.get(seat) is not None and seats.get(seat) == seats.get(partner):
            pairs.append((seat, partner))
    return pairs
