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

from typing import Callable, Iterable, Mapping, TypeVar

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
