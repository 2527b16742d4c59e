"""Does an utterance say a protected word? Derivative matching for free-text games.

Taboo (the target word) and Undercover (a player's own word) both need to decide whether a
sentence *says* a word: the word itself or a derivative of it (plural, -ing, -ed, same stem),
without flagging unrelated words that merely share letters (``category`` is not ``cat``).

A token says ``word`` when, after splitting hyphens and possessives (``car's`` -> ``car``):

1. it equals the word;
2. it has the same Snowball stem (``running``/``run``, ``houses``/``housing``);
3. WordNet's lemmatizer (morphy: detachment rules + the exception lists, Debian
   ``wordnet-base``) maps it to the word (``buses`` -> ``bus``, ``mice`` -> ``mouse``,
   ``ran`` -> ``run``, ``geese`` -> ``goose``).

WordNet is a declared requirement (``apt-get install wordnet-base``, or
``bash scripts/setup.sh``): the games that use this judge call :func:`require_wordnet` when
their rules are built, and every reader raises :class:`WordNetMissingError` without it,
rather than judge by other rules. :func:`wordnet_lexicon` and :func:`wordnet_lemmas` are the
one WordNet reader of the package (agents use them too).

Rule 3 is directional: a token's lemmas are compared with the word, never the word's lemmas
with the token, so ``see`` does not count as saying ``saw`` (the tool), while ``saw`` does
count as saying ``see``.

A multi-word word (``sea otter``, ``ice cream``) is said when the phrase appears, token by
token up to inflection (``sea otters``) or closed up (``icecream``). Saying one of its words
alone is not saying it: in the Undercover pair *otter / sea otter* the ``sea otter`` player
may truthfully say "otter".

With ``strict=True`` (Decrypto's "contains a keyword" rule) a token that merely contains the
word counts too (``firefighter`` for ``fire``), and so does any content word of a phrase
(``otter`` for ``sea otter``).

Known, documented over-matches of the "same stem" rule: Snowball conflates some derivations
(``organization``/``organ``, ``universe``/``university``). Compounds are *not* derivatives by
default (``beehive`` does not say ``bee``); pass ``strict=True`` for the stricter check.

Example:
    >>> says_word("The buses were late", "bus")
    True
    >>> says_word("a category error", "cat")
    False
    >>> says_word("three geese", "goose")
    True
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any, Iterable

from cluegym.envs.core.text import tokens

#: Where Debian's ``wordnet-base`` puts the WordNet database (read at call time, so tests may
#: point it elsewhere).
WORDNET_DIR = Path("/usr/share/wordnet")
#: How to install the WordNet database the word judge requires.
WORDNET_INSTALL_HINT = "apt-get install wordnet-base (or: bash scripts/setup.sh)"
#: The parts of speech the WordNet readers cover.
WORDNET_PARTS_OF_SPEECH: tuple[str, ...] = ("noun", "verb", "adj")

# WordNet's morphy detachment rules (wn's morph.c), per part of speech.
_DETACH: dict[str, tuple[tuple[str, str], ...]] = {
    "noun": (("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
             ("shes", "sh"), ("men", "man"), ("ies", "y")),
    "verb": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
             ("ing", "e"), ("ing", "")),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
}
#: Function words never treated as content tokens of a multi-word word.
_STOPWORDS = frozenset("a an the of and or in on with to for s".split())


class WordNetMissingError(RuntimeError):
    """The WordNet database the word judge requires is not installed."""


@dataclasses.dataclass(frozen=True)
class WordNetLexicon:
    """What the word judge reads from WordNet, per part of speech.

    Attributes:
        lemmas: single-word lemmas of ``index.<pos>`` (``ice_cream`` and the like left out).
        exceptions: irregular form -> its single-word base forms, from ``<pos>.exc``
            (``mice`` -> ``("mouse",)``).
    """

    lemmas: dict[str, frozenset[str]]
    exceptions: dict[str, dict[str, tuple[str, ...]]]


def wordnet_missing_files(directory: Path | None = None) -> list[Path]:
    """The WordNet files the judge needs that ``directory`` (default :data:`WORDNET_DIR`) lacks."""
    directory = WORDNET_DIR if directory is None else directory
    needed = [directory / f"index.{pos}" for pos in WORDNET_PARTS_OF_SPEECH]
    needed += [directory / f"{pos}.exc" for pos in WORDNET_PARTS_OF_SPEECH]
    return [path for path in needed if not path.is_file()]


def wordnet_available() -> bool:
    """Whether the WordNet database is installed where :data:`WORDNET_DIR` says."""
    return not wordnet_missing_files()


def require_wordnet() -> None:
    """Fail before play when the WordNet database is missing.

    The games that judge free text (Decrypto, Taboo, Undercover) call this when their rules
    are built: without WordNet the judge would silently accept irregular forms (``mice`` for
    ``mouse``), so the game would play by other rules.

    Raises:
        WordNetMissingError: naming the missing files and the install command.
    """
    missing = wordnet_missing_files()
    if missing:
        raise WordNetMissingError(
            f"the word judge needs Debian's WordNet database, but {WORDNET_DIR} lacks "
            f"{', '.join(p.name for p in missing)}: {WORDNET_INSTALL_HINT}"
        )


def wordnet_lexicon() -> WordNetLexicon:
    """The WordNet lemmas and exception lists in :data:`WORDNET_DIR` (read once per folder).

    Raises:
        WordNetMissingError: when WordNet is not installed (see :func:`require_wordnet`).

    Example:
        >>> "mouse" in wordnet_lexicon().exceptions["noun"]["mice"]
        True
    """
    try:
        return _read_lexicon(WORDNET_DIR)
    except FileNotFoundError:
        require_wordnet()  # raises WordNetMissingError with the install command
        raise


def wordnet_lemmas(pos: str = "noun") -> frozenset[str]:
    """The single-word lemmas of one part of speech in WordNet.

    Args:
        pos: ``"noun"``, ``"verb"`` or ``"adj"``.

    Raises:
        ValueError: another part of speech.
        WordNetMissingError: when WordNet is not installed.

    Example:
        >>> "guitar" in wordnet_lemmas("noun")
        True
    """
    if pos not in WORDNET_PARTS_OF_SPEECH:
        raise ValueError(f"unknown part of speech {pos!r}; choose one of: {', '.join(WORDNET_PARTS_OF_SPEECH)}")
    return wordnet_lexicon().lemmas[pos]


@functools.lru_cache(maxsize=None)
def _read_lexicon(directory: Path) -> WordNetLexicon:
    lemmas: dict[str, frozenset[str]] = {}
    exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
    for pos in WORDNET_PARTS_OF_SPEECH:
        words: set[str] = set()
        for line in (directory / f"index.{pos}").read_text(encoding="latin-1").splitlines():
            if line and not line.startswith(" "):
                lemma = line.split(" ", 1)[0]
                if "_" not in lemma:
                    words.add(lemma)
        lemmas[pos] = frozenset(words)
        table: dict[str, tuple[str, ...]] = {}
        for line in (directory / f"{pos}.exc").read_text(encoding="latin-1").splitlines():
            parts = line.split()
            if len(parts) >= 2 and "_" not in parts[0]:
                table[parts[0]] = tuple(p for p in parts[1:] if "_" not in p)
        exceptions[pos] = table
    return WordNetLexicon(lemmas, exceptions)


@functools.lru_cache(maxsize=65536)
def lemmas(token: str) -> frozenset[str]:
    """Base forms of ``token`` by WordNet's morphy over nouns, verbs and adjectives.

    The token itself is included. Doubled final consonants are undone (``running`` -> ``run``).

    Example:
        >>> sorted(lemmas("buses"))
        ['bus', 'buses']
    """
    token = token.lower()
    found = {token}
    lexicon = wordnet_lexicon()
    for pos, rules in _DETACH.items():
        known = lexicon.lemmas[pos]
        found.update(lexicon.exceptions[pos].get(token, ()))
        for suffix, ending in rules:
            if token.endswith(suffix) and len(token) > len(suffix):
                base = token[: len(token) - len(suffix)] + ending
                if base in known:
                    found.add(base)
                elif ending == "" and len(base) >= 3 and base[-1] == base[-2] and base[:-1] in known:
                    found.add(base[:-1])  # running -> runn -> run, stopped -> stopp -> stop
    return frozenset(found)


@functools.lru_cache(maxsize=1)
def _snowball():
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


def preload_word_judge() -> None:
    """Load what the judge otherwise loads at its first check: the WordNet lexicon and NLTK's
    Snowball stemmer (importing NLTK takes ~2 s and ~125 MB, as it imports its whole package).

    The games that judge free text call this from their env's ``preload()``, so that the first
    game's first check does not stall and worker processes forked afterwards
    (``make_vec_env(vec="subproc")``) share the loaded judge instead of each importing NLTK.

    Raises:
        WordNetMissingError: when WordNet is not installed.

    Example:
        >>> preload_word_judge()  # once per process; later calls return at once
    """
    wordnet_lexicon()
    _snowball()


@functools.lru_cache(maxsize=65536)
def snowball_stem(token: str) -> str:
    """The plain Snowball stem (no irregular-form mapping, so ``see`` is not ``saw``)."""
    return _snowball().stem(token.lower())


def _is_lemma(token: str) -> bool:
    return any(token in known for known in wordnet_lexicon().lemmas.values())


@functools.lru_cache(maxsize=65536)
def same_word(token: str, word: str) -> bool:
    """Whether the single token ``token`` is ``word`` or a derivative of it (rules 1-3).

    Example:
        >>> same_word("ran", "run"), same_word("see", "saw"), same_word("buses", "bus")
        (True, False, True)
    """
    token, word = token.lower(), word.lower()
    if token == word:
        return True
    if len(token) > 2 and len(word) > 2 and snowball_stem(token) == snowball_stem(word):
        return True
    # An inflected word ("mice") is matched through its base forms too ("mouse").
    targets = {word} if _is_lemma(word) else set(lemmas(word))
    return bool(lemmas(token) & targets)


def _parts(text: str) -> tuple[str, ...]:
    """Tokens of ``text`` split at hyphens and apostrophes (``car's`` -> ``car``, ``s``)."""
    if type(text) is str and len(text) <= _PARTS_CACHE_CHARS:
        return _split_parts(text)
    # long texts (one-off utterances), str subclasses and non-strings: uncached, as before
    return _split_parts.__wrapped__(text)


#: Longest text whose parts are cached: the protected words (targets, keywords, hint words)
#: are split again and again, a long utterance rarely twice.
_PARTS_CACHE_CHARS = 100


@functools.lru_cache(maxsize=16384)
def _split_parts(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for tok in tokens(text):
        if "'" in tok or "-" in tok:
            out.extend(p for p in tok.replace("'", "-").split("-") if p)
        else:
            out.append(tok)
    return tuple(out)


def content_tokens(word: str) -> list[str]:
    """Tokens of a (possibly multi-word) word that carry meaning (no articles/possessive s)."""
    return [t for t in _parts(word) if t not in _STOPWORDS]


def says_word(text: str, word: str, *, strict: bool = False) -> bool:
    """Whether ``text`` says ``word`` or a derivative of it (see the module docstring).

    Args:
        text: the utterance, description or guess to check.
        word: the protected word (a single word or a short phrase such as ``"sea otter"``).
        strict: also count tokens that contain the word (``firefighter`` for ``fire``) and,
            for a phrase, any of its content words said alone.

    A verdict on a short text (up to 100 characters) is kept: the same clues, hints,
    descriptions and vocabulary words are checked against the same words game after game.
    """
    if type(text) is str and type(word) is str and len(text) <= _SAYS_CACHE_CHARS:
        return _kept_verdict(text, word, bool(strict))
    return _says_word(text, word, strict)


#: Longest text whose :func:`says_word` verdicts are kept.
_SAYS_CACHE_CHARS = 100


def _says_word(text: str, word: str, strict: bool) -> bool:
    text_parts = _parts(text)
    word_parts = _parts(word)
    if not word_parts or not text_parts:
        return False
    if len(word_parts) > 1:
        n = len(word_parts)
        for i in range(len(text_parts) - n + 1):
            if all(same_word(a, b) for a, b in zip(text_parts[i : i + n], word_parts)):
                return True
        if "".join(word_parts) in "".join(text_parts):
            return True
        return strict and any(says_word(text, part, strict=True) for part in content_tokens(word))
    target = word_parts[0]
    target_forms = word_forms(target)
    for part in text_parts:
        # same_word needs a form in common (see word_forms): most pairs have none, and
        # telling so from the two words' kept forms is far cheaper than the pair's check.
        forms = word_forms(part)
        if (target_forms is None or forms is None or not target_forms.isdisjoint(forms)) and same_word(part, target):
            return True
        if strict and len(target) >= 3 and target in part:
            return True
    return False


# says_word's kept verdicts (a pure function of the two texts and the flag); at most 65,536
# of texts up to 100 characters: a few megabytes.
_kept_verdict = functools.lru_cache(maxsize=65536)(_says_word)


#: Longest token whose forms are kept (:func:`word_forms`): words and short phrases' parts.
_FORMS_CACHE_CHARS = 40


def word_forms(token: str) -> frozenset[str] | None:
    """The forms :func:`same_word` compares a token by: ``"l:"`` + each of its
    :func:`lemmas` (the token itself among them), and ``"s:"`` + its Snowball stem when it is
    longer than 2 letters; None for a token too long to keep (over 40 characters).

    ``same_word(a, b)`` implies that ``word_forms(a)`` and ``word_forms(b)`` share a form: the
    same token shares its lemma form, the same stem its stem form, and a shared base form
    (``mice``/``mouse``) a lemma form. So two tokens with disjoint forms are different words,
    which :func:`says_word` reads from forms kept per token instead of checking every pair.

    Example:
        >>> sorted(word_forms("mice"))
        ['l:mice', 'l:mouse', 's:mice']
    """
    if type(token) is not str or len(token) > _FORMS_CACHE_CHARS:
        return None
    return _word_forms(token)


@functools.lru_cache(maxsize=65536)
def _word_forms(token: str) -> frozenset[str]:
    token = token.lower()  # as same_word compares (its length too: lower() may lengthen a text)
    forms = {"l:" + lemma for lemma in lemmas(token)}
    if len(token) > 2:
        forms.add("s:" + snowball_stem(token))
    return frozenset(forms)


def said_words(text: str, words: list[str] | tuple[str, ...], *, strict: bool = False) -> list[str]:
    """The words of ``words`` that ``text`` says (in the given order)."""
    return [w for w in words if says_word(text, w, strict=strict)]


def is_same_word_guess(guess: str, word: str) -> bool:
    """Whether a guess names ``word``: the same tokens up to inflection, ignoring articles.

    ``"apples"`` and ``"an apple"`` are right for ``apple``; ``"apple pie"`` is not. A word
    that is all articles (``"the"``) is named by itself: its tokens are compared whole.

    Example:
        >>> is_same_word_guess("The Mice", "mouse"), is_same_word_guess("apple pie", "apple")
        (True, False)
    """
    if type(guess) is str and type(word) is str and len(guess) + len(word) <= _GUESS_CACHE_CHARS:
        return _same_word_guess(guess, word)
    return _same_word_guess.__wrapped__(guess, word)


#: Longest guess + word whose verdict is cached (guesses are a word or a short phrase).
_GUESS_CACHE_CHARS = 200


@functools.lru_cache(maxsize=16384)
def _same_word_guess(guess: str, word: str) -> bool:
    got = content_tokens(guess)
    want = content_tokens(word)
    if not want:  # the word is articles only: they are what it means
        got, want = list(_parts(guess)), list(_parts(word))
    if not got or len(got) != len(want):
        joined = "".join(got)
        return bool(want) and joined == "".join(want)
    return all(same_word(a, b) for a, b in zip(got, want))


def mentions_word(text: str, word: str, *, substring: bool = True) -> bool:
    """Whether ``text`` says ``word``; ``substring=True`` is the strict check (a token that
    contains the word counts, Decrypto's "is or contains a keyword" rule). See :func:`says_word`."""
    return says_word(text, word, strict=substring)


def first_mention(text: str, words: Iterable[str], *, substring: bool = True) -> str | None:
    """The first of ``words`` that ``text`` mentions (see :func:`mentions_word`), else None."""
    if not substring and type(words) is tuple and _says_none(text, words):
        return None
    for word in words:
        if says_word(text, word, strict=substring):
            return word
    return None


def _says_none(text: Any, words: tuple[str, ...]) -> bool:
    """True when ``text`` says none of ``words`` (``says_word`` without ``strict``), told from
    forms kept per text and per word tuple: no part of the text shares a form with any word.
    (A single-part word is said only by a part with which it shares a form; see
    :func:`word_forms`.) False means "check each word": a phrase among the words, a text or
    part too long to keep forms of, or a form in common.

    Most texts checked against a game's protected words (Decrypto's hints against its four
    keywords) say none of them: one disjointness test instead of a check per word."""
    if type(text) is not str or len(text) > _SAYS_CACHE_CHARS:
        return False
    text_forms = _text_forms(text)
    if text_forms is None:
        return False
    try:
        word_set_forms = _single_word_forms(words)
    except TypeError:  # unhashable words: check each
        return False
    return word_set_forms is not None and text_forms.isdisjoint(word_set_forms)


@functools.lru_cache(maxsize=16384)  # a few hundred bytes an entry: a few megabytes at most
def _text_forms(text: str) -> frozenset[str] | None:
    """Every form of every part of ``text`` (None: a part too long to keep forms of)."""
    forms: set[str] = set()
    for part in _parts(text):
        part_forms = word_forms(part)
        if part_forms is None:
            return None
        forms |= part_forms
    return frozenset(forms)


@functools.lru_cache(maxsize=4096)
def _single_word_forms(words: tuple[str, ...]) -> frozenset[str] | None:
    """Every form of ``words`` when each is a single part whose forms are kept, else None
    (a phrase, or a word that is not a text, is checked the long way)."""
    forms: set[str] = set()
    for word in words:
        if type(word) is not str:
            return None
        word_set = _one_word_forms(word)  # kept per word: a game's tuple of words is new
        if word_set is None:
            return None
        forms |= word_set
    return frozenset(forms)


@functools.lru_cache(maxsize=16384)
def _one_word_forms(word: str) -> frozenset[str] | None:
    """:func:`_single_word_forms` of one word: its forms (none for a word without a token,
    which no text says), or None for a phrase or a part too long to keep forms of."""
    parts = _parts(word)
    if not parts:
        return frozenset()
    if len(parts) > 1:
        return None
    return word_forms(parts[0])


#: Decrypto's hint rules (:func:`hint_keyword`): ``"paper"`` (the default) and ``"substring"``.
HINT_RULES: tuple[str, ...] = ("paper", "substring")


def hint_keyword(hint: str, keywords: Iterable[str], rule: str = "paper") -> str | None:
    """The keyword a Decrypto hint breaks the rule with, or None when the hint is valid.

    The paper asks for "real words (including proper nouns)" that "refer to the meaning of
    the keywords, not to their spelling or pronunciation" (section 2). Rules:

    - ``"paper"``: the hint is the keyword, shares its stem or lemma (``fires``, ``firing``
      for ``fire``; ``mice`` for ``mouse``) or contains it as a whole word, hyphens and
      apostrophes splitting words (``fire truck``, ``fire-truck``, ``fire's``). A word that
      merely contains the keyword's letters is a different word and valid: ``farm``/``army``
      for ``arm``, ``seal`` for ``sea``, ``device`` for ``ice``, ``carpenter`` for ``pen``,
      ``horseshoe`` for ``horse``. This is :func:`says_word` without ``strict``.
    - ``"substring"``: the stricter rule cluegym used before: any token containing a
      keyword of 3+ letters is rejected too (``seal`` for ``sea``, ``horseshoe`` for ``horse``).

    Raises:
        ValueError: an unknown rule (the message lists :data:`HINT_RULES`).

    Example:
        >>> hint_keyword("seal", ["sea", "arm"]), hint_keyword("fire-truck", ["fire"])
        (None, 'fire')
        >>> hint_keyword("seal", ["sea"], rule="substring")
        'sea'
    """
    if rule not in HINT_RULES:
        raise ValueError(f"unknown hint rule {rule!r}; choose one of: {', '.join(HINT_RULES)}")
    # A game checks the same pairs again and again (every hint of a turn against every
    # keyword, agents' candidate lists each turn): says_word keeps their verdicts.
    return first_mention(hint, keywords, substring=rule == "substring")
