"""The deck builder's curated word lists, read once from ``scripts/data/dixit_deck_vocabulary.json``:
which openclipart folders may be used, how file-name words become caption subjects, and
irregular plurals.

Example:
    >>> NOUNS["lighthouse"], PHRASES[("alarm", "clock")]
    ('building', ('alarm clock', 'thing'))
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: The curated word lists: which clip art may be used and how file names become subjects.
VOCABULARY_PATH = Path(__file__).resolve().parents[1] / "data" / "dixit_deck_vocabulary.json"
#: The sections the vocabulary file must have.
VOCABULARY_SECTIONS = ("allowed_folders", "blocked_folders", "translate", "skip_words", "keep_adjectives",
                       "nouns", "phrases", "joiners", "stop_after", "plural_names", "not_plural",
                       "irregular_plurals")


def load_vocabulary(path: Path = VOCABULARY_PATH) -> dict[str, Any]:
    """The vocabulary file as a dict, checked: every section present, no noun in two kinds.

    Raises:
        SystemExit: the file is missing or malformed (one line naming the problem).
    """
    try:
        vocabulary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot read the deck vocabulary {path}: {exc}") from None
    missing = [k for k in VOCABULARY_SECTIONS if k not in vocabulary]
    if missing:
        raise SystemExit(f"the deck vocabulary {path} lacks {', '.join(missing)}")
    seen: dict[str, str] = {}
    for kind, words in vocabulary["nouns"].items():
        for word in words:
            if word in seen:
                raise SystemExit(f"the deck vocabulary {path} lists the noun {word!r} as {seen[word]} and {kind}")
            seen[word] = kind
    return vocabulary


VOCABULARY = load_vocabulary()
#: Folders (relative to the source) whose pictures may appear.
ALLOWED_FOLDERS: tuple[str, ...] = tuple(VOCABULARY["allowed_folders"])
#: Folders never used even below an allowed folder (flags, signs, icons, card faces...).
BLOCKED_FOLDERS: tuple[str, ...] = tuple(VOCABULARY["blocked_folders"])
#: Italian / French file-name words -> English subject words.
TRANSLATE: dict[str, str] = dict(VOCABULARY["translate"])
#: Words skipped anywhere in the leading words of a name (style, articles, sizes, colours).
SKIP_WORDS: frozenset[str] = frozenset(VOCABULARY["skip_words"])
#: Adjectives kept in a subject when they precede its noun ("sleeping bear").
KEEP_ADJECTIVES: frozenset[str] = frozenset(VOCABULARY["keep_adjectives"])
#: Curated subject nouns -> kind (drives caption verbs). Plurals are listed explicitly.
NOUNS: dict[str, str] = {word: kind for kind, words in VOCABULARY["nouns"].items() for word in words}
#: Multi-word subjects, matched before single nouns: name words -> (display, kind).
PHRASES: dict[tuple[str, ...], tuple[str, str]] = {
    tuple(words.split()): (display, kind) for words, (display, kind) in VOCABULARY["phrases"].items()
}
#: Joiners allowed inside a subject ("apple with worm" -> "apple with a worm").
JOINERS: frozenset[str] = frozenset(VOCABULARY["joiners"])
#: Name words that follow an animal or object in a phrase without being the subject.
STOP_AFTER: frozenset[str] = frozenset(VOCABULARY["stop_after"])
#: Subjects that name several things although their last word does not look plural.
PLURAL_NAMES: frozenset[str] = frozenset(VOCABULARY["plural_names"])
#: Subjects (or last words) ending in "s" that name one thing.
NOT_PLURAL: frozenset[str] = frozenset(VOCABULARY["not_plural"])
#: Plurals that do not follow the "-s"/"-es"/"-ies" rules.
IRREGULAR_PLURALS: dict[str, str] = dict(VOCABULARY["irregular_plurals"])
