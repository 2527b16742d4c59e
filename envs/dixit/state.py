"""Dixit's game state: everything about one game, in one dataclass (no rules, no images).

Seats and cards are numbered here (seat ``p`` is ``player_p``; a card is its index in the
deck); :class:`~cluegym.envs.dixit.rules.DixitRules` changes a state through the protocol's
verbs, and the env and prompts only read it.

Example:
    >>> state = DixitState(hands=[[0, 1], [2, 3], [4, 5]], draw_pile=[6, 7], scores=[0, 0, 0])
    >>> state.storyteller, state.listeners
    (0, [1, 2])
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from cluegym.envs.dixit.scoring import RoundRecord


@functools.lru_cache(maxsize=256)
def listeners_of(storyteller: int, num_players: int) -> tuple[int, ...]:
    """The listeners of ``storyteller``'s round, in play order (seat order after it).

    Cached (keyed by two small ints): the rules ask for them several times per move, and a
    table of N seats has only N rotations.

    Example:
        >>> listeners_of(2, 4)
        (3, 0, 1)
    """
    return tuple((storyteller + k) % num_players for k in range(1, num_players))


@dataclass
class DixitState:
    """Everything about one game.

    Attributes:
        hands: per seat, its cards; slot order is stable (a refilled card takes the slot of
            the card it replaces).
        draw_pile: undealt cards, next draw last.
        discard: discarded cards (with ``refill``).
        round: current round (0-based).
        phase: ``"story"``, ``"distract"``, ``"vote"`` or ``"over"``.
        clue: this round's clue (``""`` until given).
        played: seat -> hand slot it played this round.
        candidates: this round's shuffled candidate cards (empty until the vote).
        votes: seat -> candidate index it voted for this round.
        scores: per seat, the running score.
        history: scored rounds, oldest first.
        end_reason: ``"rounds"``, ``"target_score"`` or ``"deck_exhausted"`` once over.
    """

    hands: list[list[int]]
    draw_pile: list[int]
    discard: list[int] = field(default_factory=list)
    round: int = 0
    phase: str = "story"
    clue: str = ""
    played: dict[int, int] = field(default_factory=dict)
    candidates: list[int] = field(default_factory=list)
    votes: dict[int, int] = field(default_factory=dict)
    scores: list[int] = field(default_factory=list)
    history: list[RoundRecord] = field(default_factory=list)
    end_reason: str | None = None

    @property
    def num_players(self) -> int:
        return len(self.hands)

    @property
    def storyteller(self) -> int:
        """This round's storyteller: the storytellers rotate seat by seat."""
        return self.round % len(self.hands)

    @property
    def listeners(self) -> list[int]:
        """This round's listeners, in play order (seat order after the storyteller)."""
        return list(listeners_of(self.storyteller, len(self.hands)))

    @property
    def target(self) -> int | None:
        """The storyteller's card this round, once chosen."""
        return self.card_played_by(self.storyteller)

    def card_played_by(self, seat: int) -> int | None:
        """The card ``seat`` put on the table this round, if any."""
        slot = self.played.get(seat)
        return None if slot is None else self.hands[seat][slot]

    def own_candidate(self, seat: int) -> int | None:
        """Index among the candidates of the card ``seat`` played, during the vote."""
        card = self.card_played_by(seat)
        if card is None or card not in self.candidates:
            return None
        return self.candidates.index(card)
