"""The Dixit env's deck and image options, and the random agent's words from the deck.

:func:`get_deck` loads the deck of the ``deck``/``captions`` options once per process (every
env of that deck shares its image cache); :func:`parse_image_size` reads ``image_size``;
:func:`random_vocabulary` gives the default deck's caption words (the random agent's clues).

Example:
    >>> get_deck().name, parse_image_size("96x64")
    ('default', (96, 64))
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from cluegym.envs.core.text import tokens
from cluegym.envs.dixit.deck import Deck, default_deck_folder, load_deck, load_default_deck

#: Words left out of the random agent's vocabulary (they carry no picture).
_STOPWORDS = frozenset(
    "a an the of in on over under above below beneath before behind across at by with from into onto "
    "to and or while is are its it as inside through around against near upon".split()
)


def get_deck(folder: str | None = None, captions: str | None = None) -> Deck:
    """The deck for the ``deck``/``captions`` options, shared per process while its files are
    unchanged (images are cached once per deck; envs never modify a deck).

    Raises:
        DeckError: a missing folder, unreadable captions, captions naming unknown cards.
    """
    where = Path(folder) if folder is not None else default_deck_folder()
    caption_file = Path(captions) if captions is not None else where / "captions.json"
    stamp = tuple(p.stat().st_mtime_ns if p.exists() else None for p in (where, caption_file))
    return _load_deck(folder, captions, stamp)


@functools.lru_cache(maxsize=8)
def _load_deck(folder: str | None, captions: str | None, stamp: tuple[int | None, ...]) -> Deck:
    if folder is None and captions is None:
        return load_default_deck()
    return load_deck(folder if folder is not None else default_deck_folder(), captions=captions)


def random_vocabulary() -> tuple[str, ...]:
    """Content words of the default deck's captions (the random agent's clues)."""
    deck = get_deck()
    words = {w for c in (deck.captions or {}).values() for w in tokens(c) if w.isalpha() and w not in _STOPWORDS}
    return tuple(sorted(words))


#: The ``image_size`` value that keeps the deck's own card size (the shipped deck's cards are
#: 305 x 460 pixels, the size of DixitWorld's cards, sent "without pre-processing").
FULL_SIZE = "full"


def parse_image_size(value: Any, full: tuple[int, int] | None = None) -> tuple[int, int]:
    """The ``image_size`` option as ``(height, width)``: a pair, a ``"96x64"`` string, or
    ``"full"`` for ``full`` (the deck's own card size).

    Raises:
        ValueError: not two integers (or ``"full"`` where no full size is known), or a side
            outside 8..1024.

    Example:
        >>> parse_image_size("96x64"), parse_image_size([48, 32]), parse_image_size("full", (460, 305))
        ((96, 64), (48, 32), (460, 305))
    """
    if isinstance(value, str) and value.strip().lower() == FULL_SIZE:
        if full is None:
            raise ValueError("image_size 'full' needs a deck: give (height, width), e.g. '460x305'")
        value = full
    if isinstance(value, str):
        value = value.lower().replace(",", "x").split("x")
    try:
        h, w = (int(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"image_size must be (height, width), e.g. [96, 64] or '96x64', got {value!r}") from None
    if not (8 <= h <= 1024 and 8 <= w <= 1024):
        raise ValueError(f"image_size sides must be in 8..1024, got {(h, w)}")
    return h, w
