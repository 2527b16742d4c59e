"""Text helpers shared by every game: the Text space charset, tokenizing, and the taboo-word check.

The taboo-word check decides whether an utterance mentions a protected word (a Decrypto
keyword in a hint, an Undercover player's own word, a Taboo target): equal, containing it,
or a derivative (plural, -ing, -ed, same stem), using NLTK's Snowball stemmer plus WordNet's
irregular noun/verb forms.

Example:
    >>> mentions_word("two firemen", "fire")
    True
    >>> mentions_word("the mice ran", "mouse")
    True
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


@functools.lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


@functools.lru_cache(maxsize=1)
def _irregular_forms() -> dict[str, str]:
    """Inflected form -> base form from WordNet's exception lists, when installed.

    Debian's ``wordnet-base`` ships ``noun.exc``/``verb.exc`` (``mice mouse``). Without it,
    a short built-in table of the commonest irregular nouns is used.
    """
    forms = {
        "mice": "mouse", "geese": "goose", "teeth": "tooth", "feet": "foot", "children": "child",
        "men": "man", "women": "woman", "people": "person", "knives": "knife", "wolves": "wolf",
        "leaves": "leaf", "lives": "life", "wives": "wife", "oxen": "ox", "lice": "louse",
    }
    from pathlib import Path

    for name in ("noun.exc", "verb.exc"):
        path = Path("/usr/share/wordnet") / name
        if path.exists():
            for line in path.read_text(encoding="latin-1").splitlines():
                parts = line.split()
                if len(parts) >= 2 and parts[0].isalpha():
                    forms.setdefault(parts[0], parts[1])
    return forms


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball stem of ``word`` after mapping irregular forms (``mice`` -> ``mous``)."""
    word = word.lower()
    word = _irregular_forms().get(word, word)
    return _stemmer().stem(word)


def mentions_word(text: str, word: str, *, substring: bool = True) -> bool:
    """Whether ``text`` says ``word`` or a derivative of it.

    A token counts when it equals ``word``, has the same stem, or (with ``substring``) contains
    ``word`` (``firemen`` contains ``fire``). Multi-word ``word`` values (``ice cream``) count
    when the phrase appears, or when any of its content words is mentioned.

    Args:
        text: the utterance, hint or description to check.
        word: the protected word.
        substring: also count tokens that contain the word (Decrypto's "contains a keyword").
    """
    target_tokens = tokens(word)
    if not target_tokens:
        return False
    text_tokens = tokens(text)
    if len(target_tokens) > 1:
        joined = " ".join(text_tokens)
        if " ".join(target_tokens) in joined or "".join(target_tokens) in "".join(text_tokens):
            return True
        return any(mentions_word(text, t, substring=substring) for t in target_tokens if len(t) > 3)
    target = target_tokens[0]
    target_stem = stem(target)
    for tok in text_tokens:
        for part in [tok, *tok.replace("'", "-").split("-")]:
            if part == target or stem(part) == target_stem:
                return True
            if substring and len(target) >= 3 and target in part:
                return True
    return False


def first_mention(text: str, words: Iterable[str], *, substring: bool = True) -> str | None:
    """The first of ``words`` that ``text`` mentions (see :func:`mentions_word`), else None."""
    for word in words:
        if mentions_word(text, word, substring=substring):
            return word
    return None
