"""``env.infos``: every seat's info, each built when it is first read after a move.

PettingZoo envs keep one ``infos`` dict and update it in place as the game moves; cluegym's
is that dict, with one difference inside: after each move a seat's entry is built (by the
env's ``_info`` hook and the rules' legal mask) only when someone reads it. A rollout reads
the acting seat's entry, so the other seats' are never built; a game of five or six seats
spent a tenth of each step building them.

It is a real ``dict`` (``isinstance(env.infos, dict)``): every seat is a key; reading an entry
in any way (``[]``, ``get``, ``items()``, ``values()``, ``dict(infos)``, ``{**infos}``,
``copy``, ``==``, ``repr``, ``json.dumps``, pickling) gives the built entry, and an entry,
once read, is a plain dict that stays what it was when read (the next move starts new
entries, as a PettingZoo env that assigns ``infos[seat] = {...}`` does).

Example:
    >>> infos = SeatInfos(lambda seat: {"seat": seat})
    >>> infos.reset(["alice", "bob"])
    >>> infos["bob"]
    {'seat': 'bob'}
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator


class SeatInfos(dict):
    """A dict of seat -> info whose entries ``build(seat)`` makes when first read.

    Args:
        build: makes a seat's info (a new dict) from the env's current State.
    """

    def __init__(self, build: Callable[[str], dict[str, Any]]) -> None:
        super().__init__()
        self._build = build
        #: The seats whose entry is not built yet (a dict used as an ordered set).
        self._pending: dict[str, None] = {}
        #: The seats of the last reset and their unbuilt entries: a game resets to the same
        #: seats after every move, and copying a kept dict costs less than making one.
        self._last_reset: tuple[list[str], dict[str, None]] = ([], {})

    def reset(self, seats: Iterable[str]) -> None:
        """Forget every entry: ``seats`` get new ones, built when read (call after a move)."""
        dict.clear(self)
        kept = self._last_reset
        if type(seats) is not list or seats != kept[0]:
            seats = list(seats)
            kept = self._last_reset = (seats, dict.fromkeys(seats))
        dict.update(self, kept[1])
        self._pending = kept[1].copy()

    def _built(self, seat: str) -> Any:
        if seat in self._pending:
            del self._pending[seat]
            dict.__setitem__(self, seat, self._build(seat))
        return dict.__getitem__(self, seat)

    def _build_all(self) -> None:
        for seat in list(self._pending):
            self._built(seat)

    # Reading one entry ----------------------------------------------------------------------
    __getitem__ = _built  # itself, not a call of it: env.last() reads an entry at every step

    def get(self, seat: str, default: Any = None) -> Any:
        return self._built(seat) if dict.__contains__(self, seat) else default

    def setdefault(self, seat: str, default: Any = None) -> Any:
        if dict.__contains__(self, seat):
            return self._built(seat)
        dict.__setitem__(self, seat, default)
        return default

    def pop(self, seat: str, *default: Any) -> Any:
        if dict.__contains__(self, seat):
            self._built(seat)
        return dict.pop(self, seat, *default)

    # Writing ---------------------------------------------------------------------------------
    def __setitem__(self, seat: str, info: Any) -> None:
        self._pending.pop(seat, None)
        dict.__setitem__(self, seat, info)

    def __delitem__(self, seat: str) -> None:
        self._pending.pop(seat, None)
        dict.__delitem__(self, seat)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for seat, info in dict(*args, **kwargs).items():
            self[seat] = info

    def clear(self) -> None:
        self._pending.clear()
        dict.clear(self)

    def popitem(self) -> tuple[str, Any]:
        self._build_all()
        return dict.popitem(self)

    # Reading all entries: built first ------------------------------------------------------
    def __iter__(self) -> Iterator[str]:
        # Overridden (the same iteration) so that dict(infos), {**infos} and dict.update take
        # the mapping protocol, which reads entries through __getitem__.
        return dict.__iter__(self)

    def items(self) -> Any:
        self._build_all()
        return dict.items(self)

    def values(self) -> Any:
        self._build_all()
        return dict.values(self)

    def copy(self) -> dict[str, Any]:
        self._build_all()
        return dict(dict.items(self))

    def __eq__(self, other: object) -> bool:
        self._build_all()
        if isinstance(other, SeatInfos):
            other._build_all()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment] - a dict

    def __repr__(self) -> str:
        self._build_all()
        return dict.__repr__(self)

    def __or__(self, other: Any) -> dict[str, Any]:
        return {**self.copy(), **other}

    def __ror__(self, other: Any) -> dict[str, Any]:
        return {**other, **self.copy()}

    def __ior__(self, other: Any) -> SeatInfos:
        self.update(other)
        return self

    def __reduce_ex__(self, protocol: Any) -> Any:
        # Pickled and deep-copied as the plain dict of its built entries.
        return (dict, (self.copy(),))
