"""Clip-art file names -> caption subjects, and the small grammar captions need (articles, plurals).

The leading words of a name are read against the curated vocabulary
(:mod:`dixit_deck.vocabulary`), so author names, numbers and code-like names never reach
a caption.

Example:
    >>> parse_subject("bat_orlando_karam_")
    Subject(name='bat', kind='animal', plural=False)
    >>> parse_subject("apple_with_worm_x").name
    'apple with a worm'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from dixit_deck.vocabulary import (
    ALLOWED_FOLDERS,
    BLOCKED_FOLDERS,
    IRREGULAR_PLURALS,
    JOINERS,
    KEEP_ADJECTIVES,
    NOT_PLURAL,
    NOUNS,
    PHRASES,
    PLURAL_NAMES,
    SKIP_WORDS,
    STOP_AFTER,
    TRANSLATE,
)


@dataclass(frozen=True)
class Subject:
    """A concrete subject parsed from a clip-art file name."""

    name: str  # display name, e.g. "teddy bear", "apple with a worm"
    kind: str  # animal, person, building, sky, food, plant, body, thing
    plural: bool = False


def _tokens(stem: str) -> list[str]:
    words = []
    for raw in re.split(r"[^A-Za-z0-9]+", stem.lower()):
        raw = re.sub(r"\d+", " ", raw).split()
        for w in raw:
            words.append(TRANSLATE.get(w, w))
    out: list[str] = []
    for w in " ".join(words).split():
        if not out or out[-1] != w:  # "gatto_cat" -> "cat cat" -> "cat"
            out.append(w)
    return out


def _is_plural(name: str) -> bool:
    """Whether a subject names several things ("ants", "french fries")."""
    if name in PLURAL_NAMES:
        return True
    if name in NOT_PLURAL:
        return False
    head = name.split()[-1]
    if head in NOT_PLURAL or head.endswith("ss"):
        return False
    return head.endswith("s") and (head[:-1] in NOUNS or head[:-2] in NOUNS
                                   or head[:-3] + "y" in NOUNS)


def _noun_at(tokens: list[str], i: int) -> tuple[str, str, int] | None:
    """The subject phrase or noun starting at ``tokens[i]``: (display, kind, tokens used)."""
    for n in (3, 2, 1):
        key = tuple(tokens[i:i + n])
        if len(key) == n and key in PHRASES:
            display, kind = PHRASES[key]
            return display, kind, n
    word = tokens[i] if i < len(tokens) else None
    if word in NOUNS:
        return word, NOUNS[word], 1
    return None


def parse_subject(stem: str) -> Subject | None:
    """The subject of a clip-art file name, or None when its leading words are not known.

    The leading words are read left to right: style words are skipped, kept adjectives
    collected, then a known phrase or noun must follow; ``with``/``on``/``and`` may join a
    second known noun. The first unknown word (usually the author's name) ends the subject.
    """
    tokens = _tokens(stem)
    i, adjectives = 0, []
    while i < len(tokens) and (tokens[i] in SKIP_WORDS or len(tokens[i]) == 1
                               or (tokens[i] in KEEP_ADJECTIVES and not _noun_at(tokens, i))):
        if tokens[i] in KEEP_ADJECTIVES:
            adjectives.append(tokens[i])
        i += 1
    if i >= len(tokens):
        return None
    found = _noun_at(tokens, i)
    if found is None:
        return None
    display, kind, used = found
    i += used
    if i < len(tokens) and tokens[i] in STOP_AFTER and " " not in display:
        return None  # "dog head symbol" style names: not a whole object
    # optional "with/on/and <noun>"
    if i + 1 < len(tokens) and tokens[i] in JOINERS:
        second = _noun_at(tokens, i + 1)
        if second is not None and second[0] != display:
            article = "" if _is_plural(second[0]) else indefinite_article(second[0]) + " "
            display = f"{display} {tokens[i]} {article}{second[0]}"
    adjectives = [a for a in adjectives if a not in display.split()]
    if adjectives:
        display = " ".join(adjectives[:1] + [display])
    plural = display in PLURAL_NAMES or _is_plural(re.split(r" (?:with|on|and|in) ", display)[0])
    return Subject(display, kind, plural)


def indefinite_article(name: str) -> str:
    """"a" or "an" for ``name`` ("an apple", "a unicorn", "a one-eyed cat")."""
    return "an" if name[:1] in "aeiou" and not name.startswith(("uni", "euro", "one")) else "a"


def _folder_allowed(rel: str) -> bool:
    if any(rel.startswith(b + "/") for b in BLOCKED_FOLDERS):
        return False
    return any(rel.startswith(a + "/") for a in ALLOWED_FOLDERS)


def collect_subjects(source: Path) -> dict[str, tuple[Subject, list[str]]]:
    """Subject display name -> (subject, sorted relative paths of its pictures)."""
    pool: dict[str, tuple[Subject, list[str]]] = {}
    for path in sorted(source.rglob("*.png")):
        rel = path.relative_to(source).as_posix()
        if not _folder_allowed(rel):
            continue
        subject = parse_subject(path.stem)
        if subject is None:
            continue
        if subject.name in pool:
            if rel not in pool[subject.name][1]:
                pool[subject.name][1].append(rel)
        else:
            pool[subject.name] = (subject, [rel])
    return dict(sorted(pool.items()))


def fix_articles(sentence: str) -> str:
    """Every "a"/"an" in ``sentence`` made to agree with the word after it."""
    words = sentence.split()
    for i in range(len(words) - 1):
        if words[i] in ("a", "an"):
            words[i] = indefinite_article(words[i + 1])
    return " ".join(words)


def pluralize(phrase: str) -> str:
    """The plural of a subject phrase ("teddy bear" -> "teddy bears", "mouse" -> "mice")."""
    words = phrase.split()
    head = words[-1]
    if phrase in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[phrase]
    if head in IRREGULAR_PLURALS:
        plural = IRREGULAR_PLURALS[head]
    elif re.search(r"(s|x|z|ch|sh)$", head):
        plural = head + "es"
    elif re.search(r"[^aeiou]y$", head):
        plural = head[:-1] + "ies"
    elif head.endswith(("tomato", "potato")):
        plural = head + "es"
    else:
        plural = head + "s"
    return " ".join(words[:-1] + [plural])
