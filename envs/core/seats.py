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

#: What every numbered seat's name starts with.
SEAT_PREFIX = "player_"


def seat_name(index: int) -> str:
    """The name of numbered seat ``index``: ``3`` -> ``"player_3"``."""
    return f"{SEAT_PREFIX}{index}"
