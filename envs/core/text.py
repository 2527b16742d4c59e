"""Text helpers shared by every game: the Text-space charset, charset folding, tokenizing.

The taboo-word check built on these lives in :mod:`cluegym.envs.core.matching`.

Example:
    >>> tokens("Two fire-men's hats")
    ['two', 'fire-men', 's', 'hats']
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from typing import Iterable

#: Characters allowed in every Text space (observations and actions): printable ASCII.
CHARSET: str = string.printable

_WORD_RE = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_FOLD = {
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
    "\u2026": "...", "\u00a0": " ",
}


def to_charset(text: str, max_length: int | None = None) -> str:
    """Fold ``text`` into :data:`CHARSET` (curly quotes -> straight, accents stripped, other
    characters dropped) and clip it to ``max_length``, so it fits a Text space."""
    text = "".join(_FOLD.get(ch, ch) for ch in text)
    text = unicodedata.normalize("NFKD", text)
    allowed = set(CHARSET)
    text = "".join(ch for ch in text if ch in allowed)
    return text if max_length is None else text[:max_length]


def tokens(text: str) -> list[str]:
    """Lowercase word tokens of ``text`` (letters/digits, inner hyphens and apostrophes kept)."""
    return _WORD_RE.findall(to_charset(text).lower())
