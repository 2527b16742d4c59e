"""The rules protocol every cluegym game implements: the same six verbs for every game.

A game's rules are pure Python over a State (a dataclass holding *all* of the game's state):
no gymnasium, no PettingZoo, no prompts. The env adapter (:class:`~cluegym.envs.core.base.
ClueGameEnv`) forwards to these verbs once, for every game, so a game's env only adds what is
about spaces and words: observations, action checks and the fallback, rendering.

Seats are always names (``"alice"``, ``"player_3"``; numbered seats come from
:func:`~cluegym.envs.core.seats.seat_name`), in ``rules.seats`` order; a rules class that
numbers seats internally converts at the verbs.

The verbs (OpenSpiel's state/legal-actions split, Pgx's one-class-per-game):

=================  ===================================================================
``new_game``       a fresh State, all randomness from the given generator
``to_move``        the seat that acts next, ``None`` once the game is over
``legal_mask``     int8 mask(s) of the seat's discrete choices (``None``: nothing discrete)
``apply``          apply one already-checked action; return this move's events (JSON)
``rewards``        reward per seat at the end of the game
``result``         the JSON outcome of a finished game (what the game's ``metrics`` read)
=================  ===================================================================

Two optional verbs have defaults: ``step_rewards`` (rewards earned by one move, default none)
and ``simultaneous`` (the seats that act now without seeing each other's choices, default just
``to_move``), which the parallel env uses to let such a block act together.

Example:
    >>> class CoinRules(GameRules[dict]):
    ...     seats = ("caller",)
    ...     def new_game(self, rng, options=None): return {"coin": int(rng.integers(2)), "call": None}
    ...     def to_move(self, state): return "caller" if state["call"] is None else None
    ...     def apply(self, state, seat, action, rng):
    ...         state["call"] = int(action); return [{"type": "call", "call": int(action)}]
    ...     def rewards(self, state): return {"caller": float(state["call"] == state["coin"])}
    ...     def result(self, state): return {"won": state["call"] == state["coin"]}
"""

from __future__ import annotations

from typing import Any, Generic, Mapping, TypeVar, Union

import numpy as np

from cluegym.envs.core.text import describe, is_integer

StateT = TypeVar("StateT")
#: What ``legal_mask`` returns: one int8 mask for a ``Discrete`` action, a dict of masks (one
#: per discrete entry) for a ``Dict`` action, ``None`` when the action has no discrete part.
LegalMask = Union[np.ndarray, dict[str, np.ndarray], None]


# ------------------------------------------------------------------------------------------
# Reset options' values, checked one way by every game's new_game (the constructor's options
# are checked against their type hints; reset options come as an untyped dict)
# ------------------------------------------------------------------------------------------

def option_text(value: object, name: str) -> str:
    """``value`` of the reset option ``name`` when it is a string.

    Raises:
        TypeError: ``value`` is not a string (``str(5)`` would quietly become a word).

    Example:
        >>> option_text("apple", "target")
        'apple'
    """
    if not isinstance(value, str):
        raise TypeError(f"reset option {name!r} must be a string, got {describe(value)}")
    return value


def option_texts(value: object, name: str, count: int) -> tuple[str, ...]:
    """``value`` of the reset option ``name`` when it is a list or tuple of ``count`` strings.

    Raises:
        TypeError: ``value`` is not a list or tuple (a string is not a list of its letters),
            or holds a non-string.
        ValueError: it holds another number of strings.

    Example:
        >>> option_texts(["cat", "dog"], "words", 2)
        ('cat', 'dog')
    """
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"reset option {name!r} must be a list of {count} strings, got {describe(value)}")
    for item in value:
        if not isinstance(item, str):
            raise TypeError(f"reset option {name!r} must hold strings, got {describe(item)}")
    if len(value) != count:
        raise ValueError(f"reset option {name!r} must hold {count} strings, got {len(value)}")
    return tuple(value)


def option_indices(value: object, name: str) -> list[int]:
    """``value`` of the reset option ``name`` when it is a list or tuple of integers (numpy's
    included; a bool or a float is no index).

    Raises:
        TypeError: ``value`` is not a list or tuple, or holds a non-integer.

    Example:
        >>> option_indices((3, np.int64(4)), "undercover")
        [3, 4]
    """
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"reset option {name!r} must be a list of integers, got {describe(value)}")
    for item in value:
        if not is_integer(item):
            raise TypeError(f"reset option {name!r} must hold integers, got {describe(item)}")
    return [int(item) for item in value]


class GameRules(Generic[StateT]):
    """Base class of a game's rules (see the module docstring for the verbs).

    Attributes:
        seats: every seat's name, in seating order (set by the subclass, e.g. from its config).
    """

    seats: tuple[str, ...] = ()
    #: The keys ``reset(options=...)`` means (what :meth:`new_game` reads), or None (the
    #: default) for no declaration. The env warns of other keys, so that a misspelt option
    #: (``{"keyword": [...]}``) is not silently a random game; it still takes them, as
    #: PettingZoo's ``api_test`` requires (it resets with ``options={"options": 1}``).
    reset_options: tuple[str, ...] | None = None
    #: Whether :meth:`apply`'s events and :meth:`result` are always *new plain JSON*: dicts
    #: with text keys, lists (not tuples), texts, finite floats, ints, bools and None, built
    #: at each call and shared with nothing the State keeps. The adapter then records them as
    #: they are; otherwise (the default, safe for any game) it converts a copy of each with
    #: :func:`~cluegym.envs.core.record.to_jsonable`, which costs a tenth of a short game's
    #: step. A game that sets it has a test that plays seeded and fuzzed games and checks
    #: both (``tests/games/test_step_robustness.py``).
    plain_json: bool = False

    def new_game(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> StateT:
        """A new game's State, drawing all randomness from ``rng``.

        Args:
            rng: the game's generator (seeded by the env's ``reset``).
            options: ``reset(options=...)`` of the env, e.g. fixed keywords (game-specific).
        """
        raise NotImplementedError

    def to_move(self, state: StateT) -> str | None:
        """The seat that acts next, or ``None`` when the game is over."""
        raise NotImplementedError

    def legal_mask(self, state: StateT, seat: str) -> LegalMask:
        """The seat's legal discrete choices (see :data:`LegalMask`) when it is in the current
        :meth:`simultaneous` block (so every member of a block sees its mask at once), all
        zeros otherwise. Default: ``None`` (the game has no discrete actions).

        A mask is never changed once returned (its arrays are read-only): a game may return
        the same mask object for equal masks, and the adapter then reuses what it built from
        it (the observation's ``action_mask``)."""
        return None

    def apply(self, state: StateT, seat: str, action: Any, rng: np.random.Generator) -> list[dict[str, Any]]:
        """Apply ``seat``'s action, already checked by the env, and return this move's events.

        Args:
            state: the State to change in place.
            seat: the seat acting (always ``to_move(state)``).
            action: the normalized action (plain JSON).
            rng: the game's generator, for chance that the move resolves (e.g. shuffles).

        Returns:
            JSON events of this move, as recorded in the game record.
        """
        raise NotImplementedError

    def step_rewards(self, state: StateT, events: list[dict[str, Any]]) -> dict[str, float]:
        """Rewards earned by one move, given its events (default: none before the end)."""
        return {}

    def rewards(self, state: StateT) -> dict[str, float]:
        """Reward per seat when the game is over."""
        raise NotImplementedError

    def result(self, state: StateT) -> dict[str, Any]:
        """The JSON outcome of a finished game, read by the game's ``metrics``."""
        raise NotImplementedError

    def simultaneous(self, state: StateT) -> tuple[str, ...]:
        """The seats that act next without seeing each other's choices, in the order the
        AEC env asks them (the first is ``to_move``). Default: only ``to_move``.

        A game overrides it where its paper has simultaneous moves (votes, guesses); the
        parallel env lets such a block act in one step, and the AEC env still asks them one
        after another, so both play the same game.
        """
        seat = self.to_move(state)
        return () if seat is None else (seat,)

    def acts_now(self, state: StateT, seat: str) -> bool:
        """Whether ``seat`` is in :meth:`simultaneous` ``(state)`` (what the ``Text`` entries
        of its action mask say). A game whose block costs something to build answers
        directly."""
        return seat in self.simultaneous(state)

    def is_over(self, state: StateT) -> bool:
        """Whether the game has ended."""
        return self.to_move(state) is None
