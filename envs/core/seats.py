"""The one seat-naming convention of games whose seats are numbered.

Dixit and Undercover seat ``N`` players as ``player_0`` .. ``player_{N-1}``: the rules number
seats ``0..N-1`` and every name a seat, prompt, record or metric shows comes from
:func:`seat_name`. (Decrypto's three seats have fixed names, ``alice``, ``bob`` and ``eve``,
given by its rules' ``SEATS``.)

Example:
    >>> seat_name(3)
    'player_3'
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

T = TypeVar("T")

#: What every numbered seat's name starts with.
SEAT_PREFIX = "player_"


def seat_name(index: int) -> str:
    """The name of numbered seat ``index``: ``3`` -> ``"player_3"``."""
    return f"{SEAT_PREFIX}{index}"


class UnknownSeatError(ValueError, KeyError):
    """A seat name the game does not have (``env.observe("nobody")``, ``env.action_space(3)``).

    Both a ValueError (the project's error for a wrong argument) and a KeyError (what a seat's
    space lookup raised before, for code that catches it); its message names the game's seats.

    Example:
        >>> str(UnknownSeatError.of("decrypto_v0", "carol", ("alice", "bob", "eve")))
        "decrypto_v0 has no seat 'carol'; seats: alice, bob, eve"
    """

    __str__ = ValueError.__str__  # the message as written, not KeyError's repr of it

    @classmethod
    def of(cls, game: str, seat: object, seats: Iterable[str]) -> UnknownSeatError:
        """The error for ``seat`` of ``game``, whose seats are ``seats``."""
        return cls(f"{game} has no seat {seat!r}; seats: {', '.join(seats)}")


def seat_entry(table: Mapping[str, T], seat: object, unknown: Callable[[object], UnknownSeatError]) -> T:
    """``table[seat]`` (a seat's space, say), or ``unknown(seat)`` raised for a name the
    table does not hold, an unhashable one included.

    Example:
        >>> seat_entry({"alice": 1}, "alice", lambda s: UnknownSeatError.of("g", s, ["alice"]))
        1
    """
    try:
        return table[seat]  # type: ignore[index]
    except (KeyError, TypeError):  # TypeError: an unhashable name
        raise unknown(seat) from None


def seat_get(table: Mapping[str, T], seat: object) -> T | None:
    """``table.get(seat)``, None also for an unhashable name (which no table holds): a
    lookup that any name the caller was given can go through.

    Example:
        >>> seat_get({"alice": 1}, ["alice"]) is None
        True
    """
    try:
        return table.get(seat)  # type: ignore[call-overload]
    except TypeError:  # an unhashable name
        return None


def check_block_actions(actions: Mapping[str, Any], block: Sequence[str], seats: Mapping[str, Any],
                        unknown: Callable[[object], UnknownSeatError]) -> None:
    """The checks of a parallel view's ``step(actions)`` before anything is applied: every
    seat of the acting ``block`` has an action, and every other action names a seat of
    ``seats`` (a typo would otherwise be ignored, as a waiting seat's action is).

    Raises:
        TypeError: ``actions`` is no mapping of seat -> action.
        UnknownSeatError: ``unknown(name)`` for an action whose name is not in ``seats``
            (first: a misspelt acting seat's name is the reason its action is missing).
        KeyError: an acting seat has no action.
    """
    if not isinstance(actions, Mapping):
        raise TypeError(f"actions must be a dict of seat -> action, got {type(actions).__name__}")
    missing = [seat for seat in block if seat not in actions]
    if missing or len(actions) > len(block):  # a name beyond the block's: each must name a seat
        for seat in actions:
            if seat not in seats:
                raise unknown(seat)
    if missing:
        raise KeyError(f"no action for acting seat(s) {missing} (acting now: {list(block)})")
