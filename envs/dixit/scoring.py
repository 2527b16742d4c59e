"""Dixit's scoring: the points of one round under either scoring rule, and the scored round.

Scoring (:func:`score_round`), ``c`` correct listeners out of ``L``:

============  ==============================  ==============================
outcome       ``"dixitworld"``                ``"official"``
============  ==============================  ==============================
0 < c < L     storyteller +3, correct +3      storyteller +3, correct +3
c == L        storyteller 0, listeners +3     storyteller 0, listeners +2
c == 0        storyteller 0, listeners +2     storyteller 0, listeners +2
============  ==============================  ==============================

and in every case +1 to a distractor's owner for each vote it receives.

Example:
    >>> score_round(4, 0, 10, {0: 10, 1: 11, 2: 12, 3: 13}, {1: 10, 2: 11, 3: 10})
    ([3, 4, 0, 3], 'partial')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

#: Scoring rules (see the module docstring).
SCORINGS: tuple[str, ...] = ("dixitworld", "official")
#: Round outcomes, from the storyteller's point of view.
OUTCOMES: tuple[str, ...] = ("partial", "all_correct", "all_wrong")
#: Points of the storyteller and of each correct listener on a partial-correct round.
PARTIAL_POINTS = 3


def score_round(
    num_players: int,
    storyteller: int,
    target: int,
    played: Mapping[int, int],
    votes: Mapping[int, int | None],
    scoring: str = "dixitworld",
) -> tuple[list[int], str]:
    """Points of one round and its outcome.

    Args:
        num_players: players in the game.
        storyteller: the storyteller's seat.
        target: the storyteller's card.
        played: seat -> card it put on the table (the storyteller's target included).
        votes: listener seat -> card it voted for (None: no vote, counted as wrong).
        scoring: ``"dixitworld"`` or ``"official"``.

    Returns:
        (points per seat, outcome): the outcome is ``"partial"`` (some but not all listeners
        found the target), ``"all_correct"`` or ``"all_wrong"``.

    Example:
        >>> score_round(4, 0, 10, {0: 10, 1: 11, 2: 12, 3: 13}, {1: 10, 2: 11, 3: 10})
        ([3, 4, 0, 3], 'partial')
    """
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, got {scoring!r}")
    listeners = [p for p in range(num_players) if p != storyteller]
    correct = [p for p in listeners if votes.get(p) == target]
    points = [0] * num_players
    if 0 < len(correct) < len(listeners):
        outcome = "partial"
        points[storyteller] += PARTIAL_POINTS
        for p in correct:
            points[p] += PARTIAL_POINTS
    elif correct:
        outcome = "all_correct"
        for p in listeners:
            points[p] += PARTIAL_POINTS if scoring == "dixitworld" else 2
    else:
        outcome = "all_wrong"
        for p in listeners:
            points[p] += 2
    owner = {card: seat for seat, card in played.items()}
    for voter, card in votes.items():
        seat = owner.get(card) if card is not None else None
        if seat is not None and seat != storyteller and seat != voter:
            points[seat] += 1
    return points, outcome


@dataclass
class RoundRecord:
    """One scored round, public once revealed.

    Attributes:
        round: 0-based round number.
        hand_phase: 0 before the hand swap, 1 after it.
        storyteller: the storyteller's seat.
        clue: the storyteller's clue.
        target: the storyteller's card.
        played: per seat, the card it put on the table.
        candidates: the shuffled candidate cards, as shown to the listeners.
        votes: per seat, the card it voted for (-1 for the storyteller or no vote).
        points: per seat, the points of this round.
        outcome: ``"partial"``, ``"all_correct"`` or ``"all_wrong"``.
    """

    round: int
    hand_phase: int
    storyteller: int
    clue: str
    target: int
    played: list[int]
    candidates: list[int]
    votes: list[int]
    points: list[int]
    outcome: str

    @property
    def listeners(self) -> list[int]:
        return [p for p in range(len(self.played)) if p != self.storyteller]

    @property
    def correct(self) -> list[int]:
        """Listeners that voted for the target."""
        return [p for p in self.listeners if self.votes[p] == self.target]

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round, "hand_phase": self.hand_phase, "storyteller": self.storyteller,
            "clue": self.clue, "target": self.target, "played": list(self.played),
            "candidates": list(self.candidates), "votes": list(self.votes), "points": list(self.points),
            "outcome": self.outcome, "correct": self.correct,
            "target_position": self.candidates.index(self.target),
        }
