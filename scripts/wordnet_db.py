"""A small reader for the WordNet 3.0 database files shipped by Debian's ``wordnet-base``.

Shared by ``scripts/train_word2vec.py`` (glosses and lemmas as a training corpus) and
``scripts/build_wordlists.py`` (noun senses, lexicographer files, sense frequencies). Only
the plain-text files ``data.{noun,verb,adj,adv}`` and ``index.{noun,verb,adj,adv}`` are read
(format: ``wndb(5WN)``); no NLTK corpus download is needed.

Not part of the installed package: it is a build-time helper for the data scripts.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

#: Where Debian's ``wordnet-base`` installs the database.
WORDNET_DIR = Path("/usr/share/wordnet")

POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}

#: WordNet's lexicographer file numbers (the ``lex_filenum`` field of each data line). Debian
#: does not ship the ``lexnames`` file, so the standard WordNet 3.0 table (``lexnames(5WN)``)
#: is hardcoded here.
LEXNAMES: dict[int, str] = {
    0: "adj.all", 1: "adj.pert", 2: "adv.all", 3: "noun.Tops", 4: "noun.act", 5: "noun.animal",
    6: "noun.artifact", 7: "noun.attribute", 8: "noun.body", 9: "noun.cognition",
    10: "noun.communication", 11: "noun.event", 12: "noun.feeling", 13: "noun.food",
    14: "noun.group", 15: "noun.location", 16: "noun.motive", 17: "noun.object",
    18: "noun.person", 19: "noun.phenomenon", 20: "noun.plant", 21: "noun.possession",
    22: "noun.process", 23: "noun.quantity", 24: "noun.relation", 25: "noun.shape",
    26: "noun.state", 27: "noun.substance", 28: "noun.time", 29: "verb.body",
    30: "verb.change", 31: "verb.cognition", 32: "verb.communication", 33: "verb.competition",
    34: "verb.consumption", 35: "verb.contact", 36: "verb.creation", 37: "verb.emotion",
    38: "verb.motion", 39: "verb.perception", 40: "verb.possession", 41: "verb.social",
    42: "verb.stative", 43: "verb.weather", 44: "adj.ppl",
}

_TOKEN_RE = re.compile(r"[a-z]+")
_ADJ_MARKER_RE = re.compile(r"\((?:a|p|ip)\)$")


def tokenize(text: str) -> list[str]:
    """Lowercase alphabetic tokens (``"Canis_familiaris"`` -> ``["canis", "familiaris"]``)."""
    return _TOKEN_RE.findall(text.lower().replace("_", " "))


@dataclasses.dataclass(frozen=True)
class Synset:
    """One line of a ``data.*`` file.

    Attributes:
        offset: byte offset (the synset id within its part of speech).
        pos: ``"n"``, ``"v"``, ``"a"`` (``"s"`` satellites are folded into ``"a"``) or ``"r"``.
        lexname: lexicographer file name, e.g. ``"noun.animal"``.
        lemmas: the synonyms as written (case kept: ``"Canis_familiaris"`` marks a proper or
            scientific name), underscores for spaces.
        pointers: ``(symbol, target offset, target pos)`` triples (``"@"`` = hypernym).
        gloss: definition and examples.
    """

    offset: int
    pos: str
    lexname: str
    lemmas: tuple[str, ...]
    pointers: tuple[tuple[str, int, str], ...]
    gloss: str


def _parse_data_line(line: str) -> Synset:
    head, _, gloss = line.partition(" | ")
    fields = head.split()
    offset, lex_filenum, ss_type = int(fields[0]), int(fields[1]), fields[2]
    w_cnt = int(fields[3], 16)
    lemmas = tuple(
        _ADJ_MARKER_RE.sub("", fields[4 + 2 * i]) for i in range(w_cnt)
    )
    i = 4 + 2 * w_cnt
    p_cnt = int(fields[i])
    pointers = []
    for j in range(p_cnt):
        sym, target, tpos = fields[i + 1 + 4 * j: i + 4 + 4 * j]
        pointers.append((sym, int(target), "a" if tpos == "s" else tpos))
    pos = "a" if ss_type == "s" else ss_type
    return Synset(offset, pos, LEXNAMES[lex_filenum], lemmas, tuple(pointers), gloss.strip())


@functools.lru_cache(maxsize=None)
def synsets(pos: str) -> dict[int, Synset]:
    """All synsets of one part of speech (``"n"``, ``"v"``, ``"a"``, ``"r"``), by offset, in
    file order."""
    path = WORDNET_DIR / f"data.{POS_FILES[pos]}"
    out: dict[int, Synset] = {}
    with path.open(encoding="latin-1") as fh:
        for line in fh:
            if line.startswith("  "):  # license header
                continue
            syn = _parse_data_line(line)
            out[syn.offset] = syn
    return out


@dataclasses.dataclass(frozen=True)
class IndexEntry:
    """One line of an ``index.*`` file.

    Attributes:
        lemma: lowercase lemma, underscores for spaces.
        offsets: synset offsets, most frequent sense first (WordNet's sense order).
        tagged: how many of its senses were tagged in the SemCor corpus (``tagsense_cnt``).
    """

    lemma: str
    offsets: tuple[int, ...]
    tagged: int


@functools.lru_cache(maxsize=None)
def index(pos: str) -> dict[str, IndexEntry]:
    """The ``index.*`` file of one part of speech: lemma -> senses in frequency order."""
    path = WORDNET_DIR / f"index.{POS_FILES[pos]}"
    out: dict[str, IndexEntry] = {}
    with path.open(encoding="latin-1") as fh:
        for line in fh:
            if line.startswith("  "):
                continue
            fields = line.split()
            lemma, synset_cnt, p_cnt = fields[0], int(fields[2]), int(fields[3])
            tagged = int(fields[5 + p_cnt])
            offsets = tuple(int(x) for x in fields[6 + p_cnt: 6 + p_cnt + synset_cnt])
            out[lemma] = IndexEntry(lemma, offsets, tagged)
    return out


@functools.lru_cache(maxsize=None)
def sense_counts() -> dict[tuple[str, str, int], int]:
    """SemCor tag counts per sense from ``cntlist.rev``: ``(lemma, pos, sense number) -> count``.

    Sense keys look like ``dog%1:05:00::``; the ss_type digit maps 1->n, 2->v, 3/5->a, 4->r.
    """
    path = WORDNET_DIR / "cntlist.rev"
    out: dict[tuple[str, str, int], int] = {}
    pos_of = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
    if not path.exists():
        return out
    with path.open(encoding="latin-1") as fh:
        for line in fh:
            key, sense_number, count = line.split()
            lemma, _, rest = key.partition("%")
            out[(lemma, pos_of[rest[0]], int(sense_number))] = int(count)
    return out


def exceptions(pos: str = "n") -> dict[str, str]:
    """Irregular inflections from ``noun.exc``/``verb.exc``...: inflected form -> base form."""
    path = WORDNET_DIR / f"{POS_FILES[pos]}.exc"
    out: dict[str, str] = {}
    if path.exists():
        for line in path.read_text(encoding="latin-1").splitlines():
            parts = line.split()
            if len(parts) >= 2:
                out.setdefault(parts[0], parts[1])
    return out


def available() -> bool:
    """Whether the WordNet database files are installed."""
    return all((WORDNET_DIR / f"data.{name}").exists() for name in POS_FILES.values())
