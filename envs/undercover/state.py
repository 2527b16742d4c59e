"""Undercover's game state: everything about one game, in one dataclass, and its finished rounds.

Players are numbered here (player ``p`` is seat ``player_p``, see
:func:`~cluegym.envs.core.seats.seat_name`); :class:`~cluegym.envs.undercover.rules.
UndercoverRules` changes a state through the rules protocol's verbs, and the env and prompts
only read it.

Example:
    >>> state = UndercoverState(civilian_word="bee", undercover_word="butterfly",
    ...                         roles=("civilian", "undercover", "civilian"), alive=[True] * 3, order=(2, 0, 1))
    >>> state.speaker, state.word_of(1)
    (2, 'butterfly')
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

try:
    import cython
except ImportError:  # no Cython at run time: the type declarations do nothing
    from cluegym.envs.core import cython_fallback as cython

from cluegym.envs.core.seats import seat_name
from cluegym.envs.undercover.config import CIVILIAN


@functools.lru_cache(maxsize=64)
def seat_names(num_players: int) -> tuple[str, ...]:
    """Every seat's name by player number, ``("player_0", ...)``: built once per table size,
    as prompts, infos and records name players over and over."""
    return tuple(seat_name(p) for p in range(num_players))


# Extension types in the compiled build (their fields declared in state.pxd): the rules, the
# views and the prompts read these fields ~75 times a step, and a typed read is a struct load
# where a compiled generic one costs ~17 ns (docs/performance.md, "Nineteenth pass"). As
# Python (no build, or CLUEGYM_PURE_PYTHON=1) they are plain dataclasses.
@cython.dataclasses.dataclass
@cython.cclass
class RoundRecord:
    """One finished round: who spoke in what order and said what, the votes, the outcome."""

    round: int
    order: tuple[int, ...]
    descriptions: dict[int, str]
    votes: dict[int, int | None]  # voter -> target (None: no valid vote, the fallback)
    eliminated: int | None  # None: a tie (or no votes), nobody is eliminated
    # as_dict's parts, kept with the names and outcome they were built for: a finished round
    # is shown three times (its event, the infos' last_round, the result's history).
    _json: tuple[Any, ...] | None = cython.dataclasses.field(default=None, init=False, repr=False, compare=False)

    def tally(self) -> dict[int, int]:
        """Votes received per player (players without a vote left out), by player."""
        counts: dict[int, int] = {}
        for target in self.votes.values():
            if target is not None:
                counts[target] = counts.get(target, 0) + 1
        return dict(sorted(counts.items()))

    def as_dict(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """The round as JSON, players by seat name (as in events, results and infos).

        Args:
            names: :func:`seat_names` of the table, when the caller has it (faster than
                naming each player); None names them one by one.
        """
        kept = self._json
        if kept is None or kept[0] != names or kept[1] != self.eliminated or kept[2] != len(self.votes) or (
            kept[3] != len(self.descriptions)
        ):
            name = seat_name if names is None else names.__getitem__
            kept = self._json = (
                None if names is None else tuple(names), self.eliminated, len(self.votes), len(self.descriptions),
                {name(p): d for p, d in self.descriptions.items()},
                {name(v): (None if t is None else name(t)) for v, t in self.votes.items()},
                {name(p): n for p, n in self.tally().items()},
                None if self.eliminated is None else name(self.eliminated),
            )
        # New dicts and list each time (of strings, numbers and None: copies all the way down).
        return {
            "round": self.round, "order": list(self.order), "descriptions": dict(kept[4]), "votes": dict(kept[5]),
            "tally": dict(kept[6]), "eliminated": kept[7],
        }


@cython.dataclasses.dataclass
@cython.cclass
class UndercoverState:
    """Everything about one game.

    Attributes:
        civilian_word: the majority's word.
        undercover_word: the minority's word.
        roles: per player, ``"civilian"`` or ``"undercover"`` (never shown to the players).
        alive: per player, whether it is still in the game.
        order: this round's speaking order (empty once the game is over).
        round: current round (0-based).
        phase: ``"speak"``, ``"vote"`` or ``"over"``.
        descriptions: this round's descriptions so far, by player.
        votes: this round's votes so far (voter -> target, None: no valid vote), hidden
            until everyone has voted.
        history: finished rounds, oldest first.
        eliminated_round: per eliminated player, the round it went out in.
        winner: ``"civilians"``, ``"undercover"``, or None (a draw, or still running).
        end_reason: ``"undercover_eliminated"``, ``"one_civilian_left"`` or ``"timeout"``.
        beliefs: the scored belief reports, in play order.
        unreadable_beliefs: ``(seat, reason)`` when the last move's belief report could not
            be read (that seat's info shows the reason until the next move), else None.
    """

    civilian_word: str
    undercover_word: str
    roles: tuple[str, ...]
    alive: list[bool]
    order: tuple[int, ...]
    round: int = 0
    phase: str = "speak"
    descriptions: dict[int, str] = cython.dataclasses.field(default_factory=dict)
    votes: dict[int, int | None] = cython.dataclasses.field(default_factory=dict)
    history: list[RoundRecord] = cython.dataclasses.field(default_factory=list)
    eliminated_round: dict[int, int] = cython.dataclasses.field(default_factory=dict)
    winner: str | None = None
    end_reason: str | None = None
    beliefs: list[dict[str, Any]] = cython.dataclasses.field(default_factory=list)
    unreadable_beliefs: tuple[str, str] | None = None

    def word_of(self, player: int) -> str:
        """``player``'s secret word."""
        return self.civilian_word if self.roles[player] == CIVILIAN else self.undercover_word

    def living(self) -> list[int]:
        """The players still in the game, in seat order."""
        return [p for p, a in enumerate(self.alive) if a]

    def count_alive(self, role: str) -> int:
        """Living players of ``role``."""
        return sum([1 for alive, r in zip(self.alive, self.roles) if alive and r == role])

    @property
    def speaker(self) -> int | None:
        """Who speaks next this round, or None when everyone has spoken."""
        for p in self.order:
            if p not in self.descriptions:
                return p
        return None

    @property
    def voters_left(self) -> tuple[int, ...]:
        """The living players (in seat order) who have not voted this round; empty outside
        the voting phase."""
        if self.phase != "vote":
            return ()
        return tuple(p for p in self.living() if p not in self.votes)
