"""The judging CoMet's FER, PPC and IISC need (seeds/comet.txt, appendix E), as a protocol and a
WordNet judge that works offline on recorded games.

Appendix E counts "valid features extracted" (FER), "leaked information to opponents" (PPC)
and "inconsistent/misleading statements" (IISC) but does not say who decides what is valid,
leaked or inconsistent. A :class:`SpeechJudge` decides, from text alone, so that the metrics
can be computed from any game record (``record["result"]``), long after the game:

* ``feature_valid(feature, description, speaker_word)``: a feature a listener extracted from a
  description is valid when it is supported by the description or is true of the word the
  speaker actually holds (so a metaphor decoded into a real feature counts).
* ``leaks(description, own_word, other_word)``: the description gives away the speaker's word:
  it fits the speaker's own word better than the other team's word, so an opponent can locate
  the feature and infer the word.
* ``inconsistent(description, own_word, other_word)``: the description is identity-inconsistent
  (misleading): it fits the other team's word better than the speaker's own word, as when an
  undercover player describes the civilians' word to blend in.

:class:`WordNetJudge` is the shipped default: it scores how well a text fits a word by the
content words (Snowball stems) it shares with the word's WordNet profile (the word, its
synonyms, the glosses of its first noun senses, and the names and glosses of their hypernyms,
hyponyms, holonyms and meronyms). It is deterministic, needs only Debian's ``wordnet-base``
(already required by the word rules) and never calls a model; judges backed by a model (an
LLM, sentence embeddings) implement the same three methods and are passed in from outside
(:func:`~cluegym.envs.undercover.metrics.method_metrics` takes ``judge=``), never called by
the rules.

Example:
    >>> judge = WordNetJudge()
    >>> judge.leaks("It makes honey in a hive.", "bee", "butterfly")
    True
    >>> judge.inconsistent("It makes honey in a hive.", "butterfly", "bee")
    True
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Protocol, runtime_checkable

from cluegym.envs.core import matching
from cluegym.envs.core.matching import require_wordnet, snowball_stem
from cluegym.envs.core.text import tokens

__all__ = ["PLACEHOLDER_FEATURES", "SpeechJudge", "WordNetJudge", "content_stems"]

#: Features that say nothing (a listener that extracted nothing).
PLACEHOLDER_FEATURES: frozenset[str] = frozenset({"", "unknown", "none", "n/a", "na", "nothing", "unclear", "-"})
#: Function words and vague words that never count as shared content.
_STOP = frozenset(
    "a an the of and or in on at by with to for from as is are was were be been being it its it's this that these "
    "those they them their there here has have had having do does did can could may might will would should very "
    "so such than then too also not no yes but if when while which who whom what where how why all any some many "
    "much more most other another one two thing things something someone you your i my me we our us he she his "
    "her often usually sometimes always never just only really quite kind sort type way lot lots make makes made "
    "get gets got use used uses like likes well good bad big small little people person s".split()
)
#: Noun pointer symbols whose target synsets join a word's profile: hypernyms (@, @i),
#: hyponyms (~, ~i), member/substance/part holonyms (#m #s #p) and meronyms (%m %s %p).
_PROFILE_POINTERS = frozenset({"@", "@i", "~", "~i", "#m", "#s", "#p", "%m", "%s", "%p"})
#: Related synsets read per sense (their names and glosses join the profile).
_RELATED = 40
#: Noun senses of a word read into its profile (the most frequent first).
_SENSES = 3


def content_stems(text: str) -> frozenset[str]:
    """Snowball stems of the content words of ``text`` (stop and vague words left out).

    Example:
        >>> sorted(content_stems("It makes a buzzing sound."))
        ['buzz', 'sound']
    """
    return frozenset(snowball_stem(t) for t in tokens(text.replace("-", " ").replace("_", " "))
                     if len(t) > 1 and t not in _STOP and not t.isdigit())


@runtime_checkable
class SpeechJudge(Protocol):
    """What FER, PPC and IISC need judged (see the module docstring)."""

    def feature_valid(self, feature: str, description: str, speaker_word: str) -> bool:
        """Whether ``feature``, extracted from ``description``, is a valid feature."""
        ...

    def leaks(self, description: str, own_word: str, other_word: str) -> bool:
        """Whether ``description`` gives the speaker's ``own_word`` away to opponents."""
        ...

    def inconsistent(self, description: str, own_word: str, other_word: str) -> bool:
        """Whether ``description`` is inconsistent with the speaker's identity (misleading)."""
        ...


class WordNetJudge:
    """The offline default :class:`SpeechJudge`: fit of a text to a word = content stems shared
    with the word's WordNet profile (see the module docstring).

    Args:
        wordnet_dir: the WordNet database folder (default Debian's ``/usr/share/wordnet``).

    Raises:
        WordNetMissingError: WordNet is not installed.
    """

    def __init__(self, wordnet_dir: str | Path | None = None) -> None:
        require_wordnet()
        self.wordnet_dir = Path(wordnet_dir) if wordnet_dir is not None else matching.WORDNET_DIR

    def profile(self, word: str) -> frozenset[str]:
        """The stems that describe ``word`` (its own stems included)."""
        return _profile(str(self.wordnet_dir), word.strip().lower())

    def fit(self, text: str, word: str) -> int:
        """How many content stems of ``text`` belong to ``word``'s profile (the word itself excluded:
        saying the word is the rules' business, not a feature)."""
        own = content_stems(word)
        return len((content_stems(text) - own) & self.profile(word))

    def feature_valid(self, feature: str, description: str, speaker_word: str) -> bool:
        stems = content_stems(feature)
        if feature.strip().lower() in PLACEHOLDER_FEATURES or not stems:
            return False
        return bool(stems & (content_stems(description) | self.profile(speaker_word)))

    def leaks(self, description: str, own_word: str, other_word: str) -> bool:
        return self.fit(description, own_word) > self.fit(description, other_word)

    def inconsistent(self, description: str, own_word: str, other_word: str) -> bool:
        return self.fit(description, other_word) > self.fit(description, own_word)


@functools.lru_cache(maxsize=4096)
def _profile(directory: str, word: str) -> frozenset[str]:
    """The WordNet profile of ``word`` (see :class:`WordNetJudge`), read from ``directory``."""
    root = Path(directory)
    offsets = _noun_index(directory).get("_".join(word.split()), ())[:_SENSES]
    stems = set(content_stems(word))
    with open(root / "data.noun", "rb") as data:
        for offset in offsets:
            lemmas, gloss, related = _synset(data, offset)
            stems |= content_stems(" ".join(lemmas) + " " + gloss)
            for target in related[:_RELATED]:
                names, text, _ = _synset(data, target)
                stems |= content_stems(" ".join(names) + " " + text)
    return frozenset(stems)


@functools.lru_cache(maxsize=4)
def _noun_index(directory: str) -> dict[str, tuple[int, ...]]:
    """Noun lemma -> its synset offsets (most frequent sense first), from index.noun (read once)."""
    table: dict[str, tuple[int, ...]] = {}
    for line in (Path(directory) / "index.noun").read_text(encoding="latin-1").splitlines():
        if line and not line.startswith(" "):
            parts = line.split()
            table[parts[0]] = tuple(int(p) for p in parts if len(p) == 8 and p.isdigit())
    return table


def _synset(data, offset: int) -> tuple[list[str], str, list[int]]:
    """``(lemmas, gloss, related offsets)`` of the noun synset at byte ``offset`` of data.noun."""
    data.seek(offset)
    line = data.readline().decode("latin-1")
    head, _, gloss = line.partition(" | ")
    fields = head.split()
    count = int(fields[3], 16)
    lemmas = [fields[4 + 2 * i].split("(")[0] for i in range(count)]
    at = 4 + 2 * count
    pointers = int(fields[at])
    related = []
    for i in range(pointers):
        start = at + 1 + 4 * i  # fields by index: Cython crashes on unpacking this slice
        symbol, target, pos = fields[start], fields[start + 1], fields[start + 2]
        if symbol in _PROFILE_POINTERS and pos == "n":
            related.append(int(target))
    return lemmas, gloss.strip(), related
