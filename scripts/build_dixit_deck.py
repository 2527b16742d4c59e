#!/usr/bin/env python3
"""Build cluegym's shipped default Dixit deck from the public-domain openclipart PNGs.

Each card is a dreamlike scene in the spirit of Dixit: a painted background (gradient sky,
starry night, sea, hills, a checkered floor, a giant moon...) and two or three clip-art
objects at odd scales, places, angles and colours: a giant snail carrying a tiny house, a
teapot floating in a night sky, a lighthouse whose reflection in the lake is a whale. The
caption of a card is built from what was placed, so caption-based baselines can play.

Objects come from Debian's ``openclipart-png`` (``/usr/share/openclipart/png``). Their
subjects are parsed from the file names (``animals/bat_orlando_karam_.png`` -> "bat"): the
leading words are matched against a curated English vocabulary below (a few Italian and
French names are translated), so author names, numbers and code-like names never reach a
caption; images that are too small, oddly shaped, nearly empty or thin line art are skipped.

Output (``--out``, default ``envs/dixit/data/deck``)::

    card_000.jpg ... card_NNN.jpg   portrait 305x460 JPEG (quality 80)
    captions.json                   {"card_000": "a giant snail carries a tiny house ...", ...}
    sources.json                    {"card_000": ["animals/...png", ...], ...}
    LICENSE.txt                     the art is public domain (openclipart)

Deterministic: the same ``--seed`` and ``--cards`` give the same captions and the same
image bytes (one ``np.random.default_rng(seed)``, sorted file lists, no global random).

    python scripts/build_dixit_deck.py                   # 96 cards, seed 0
    python scripts/build_dixit_deck.py --cards 4 --out /tmp/deck --seed 3
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = Path("/usr/share/openclipart/png")
DEFAULT_OUT = ROOT / "envs" / "dixit" / "data" / "deck"
CARD_W, CARD_H = 305, 460
BORDER = 9
JPEG_QUALITY = 80

# ----------------------------------------------------------------------------------------
# Which clip art may be used
# ----------------------------------------------------------------------------------------

#: Folders (relative to the source) whose pictures may appear; the first match wins.
ALLOWED_FOLDERS = (
    "animals", "buildings", "containers", "education", "electronics/bulb", "food",
    "geography/astronomy", "office", "people/clothing/hats", "plants", "recreation/music",
    "recreation/toys", "recreation/holiday", "recreation/party", "recreation/sports",
    "science", "signs_and_symbols/clocks", "signs_and_symbols/weather", "tools",
    "transportation/vehicles", "transportation/boating", "unsorted", "geography",
    "electronics", "people",
)
#: Folders never used even below an allowed folder (flags, signs, icons, card faces...).
BLOCKED_FOLDERS = (
    "people/smilies", "people/stickmen", "people/clothing/pantyhose", "people/bodypart",
    "unsorted/duplicates", "tools/weapons", "recreation/games",
)

#: Italian / French file-name words -> English subject words.
TRANSLATE = {
    "acquila": "eagle", "aquila": "eagle", "cigno": "swan", "cigni": "swans",
    "gabbiano": "seagull", "gallo": "rooster", "gufo": "owl", "pollo": "chicken",
    "tacchino": "turkey", "uccello": "bird", "abeille": "bee", "cavalletta": "grasshopper",
    "coccinella": "ladybug", "coccinellona": "ladybug", "coccinelle": "ladybug",
    "farfalla": "butterfly", "formichina": "ant", "formicona": "ant",
    "libellula": "dragonfly", "libellule": "dragonflies", "lumaca": "snail",
    "mantide": "mantis", "zanzara": "mosquito", "moschito": "mosquito",
    "ragno": "spider", "ragnetto": "spider", "dino": "dinosaur", "dinosauro": "dinosaur",
    "dinosauri": "dinosaurs", "pescetto": "fish", "lucertola": "lizard",
    "lucertolona": "lizard", "lucertolone": "lizard", "ramarro": "lizard",
    "antilope": "antelope", "orso": "bear", "ours": "bear", "leone": "lion",
    "tigre": "tiger", "canguro": "kangaroo", "coniglio": "rabbit", "elefante": "elephant",
    "elefantone": "elephant", "cavallo": "horse", "gatto": "cat", "gattina": "kitten",
    "pecora": "sheep", "pecorella": "lamb", "topo": "mouse", "toro": "bull",
    "vacca": "cow", "mucca": "cow", "pinguino": "penguin", "rana": "frog",
    "stambecco": "ibex", "struzzo": "ostrich", "cammello": "camel", "papera": "duck",
    "anatra": "duck", "colombo": "dove", "casa": "house", "tenda": "tent",
    "poltrona": "armchair", "sedia": "chair", "tavolo": "table", "cesto": "basket",
    "valigie": "suitcases", "teiera": "teapot", "tazza": "cup", "candela": "candle",
    "clessidra": "hourglass", "bussola": "compass", "chiave": "key",
    "lucchetto": "padlock", "orologio": "clock", "microscopio": "microscope",
    "siringa": "syringe", "trattore": "tractor", "bicicletta": "bicycle",
    "zucca": "pumpkin", "pera": "pear", "pesca": "peach", "prugna": "plum",
    "pomodori": "tomatoes", "aglio": "garlic", "ravanello": "radish", "torta": "cake",
    "mondo": "globe", "spaventapasseri": "scarecrow", "principessa": "princess",
    "ragazza": "girl", "ragazzo": "boy", "zaino": "backpack", "palloncini": "balloons",
    "champignon": "mushroom", "gateau": "cake", "pasteque": "watermelon",
    "sapin": "fir", "uovo": "egg", "biberon": "bottle", "cornetto": "croissant",
    "motosega": "chainsaw", "binocolo": "binoculars", "telecamera": "camera",
    "cinepresa": "camera", "pallone": "balloon", "fabbrica": "factory",
    "calcolatrice": "calculator", "pinzatrice": "stapler", "lampada": "lamp",
    "scatolone": "box", "candele": "candles", "rosa": "rose", "struzzi": "ostriches",
    "teschio": "skull", "tux": "penguin", "bunny": "rabbit", "lightbulb": "bulb",
    "teddybear": "teddy", "palmtree": "palm", "icecube": "ice",
}

#: Words skipped anywhere in the leading words of a name (style, articles, sizes, colours).
SKIP_WORDS = set("""
a an the my new another simple stylized stylised contour cartoon bw outline sketch icon
symbol plain colour color coloured colored cute funny little small big large tiny giant
red blue green yellow pink purple white black brown grey gray golden gold silver
shaded shading drawn hand lit notlit glossy dead mr ms with_ da di del della de il la le
""".split())

#: Adjectives kept in a subject when they precede its noun ("sleeping bear").
KEEP_ADJECTIVES = {"sleeping", "old", "flying", "angry", "happy", "crazy", "wooden",
                   "bored", "magic", "empty", "open", "closed", "dancing", "running"}

#: Curated subject nouns -> kind (drives caption verbs). Plurals are listed explicitly.
NOUNS: dict[str, str] = {}
for _kind, _words in {
    "animal": """ant ants antelope ape armadillo baboon bat bear beaver bee bees bird birds
        bison bull bulldog butterfly butterflies camel cat cats caterpillar cheetah chicken
        chipmunk cobra cormorant cow crab crawfish crow deer dinosaur dinosaurs dog dogs
        dolphin dove dragon dragonfly dragonflies duck ducks eagle echidna elephant fish
        flamingo fly fox frog frogs giraffe goat grasshopper hamster hen horse ibex kangaroo
        kitten ladybug lamb lion lizard mantis monkey mosquito mouse orangutan orca ostrich
        owl parrot penguin pig puffin puppy rabbit raccoon rhinoceros rooster scorpion
        seagull gull seahorse sheep snail snake spider squirrel swan swans tiger turkey
        turtle wasp whale wolf worm zebra beagle cricket""",
    "person": """angel astronaut backpacker ballerina baby bride boy chef clown cook cowboy
        dancer doctor farmer fireman girl grandpa groom king knight lady man mermaid nurse
        pirate prince princess queen sailor scarecrow sheriff skier troll wizard woman
        ninja runner chemist kid child policeman musician juggler magician""",
    "building": """house houses barn castle chalet church factory fort igloo lighthouse
        tower library windmill skyscraper hotel tent""",
    "sky": """moon sun planet earth jupiter saturn mars venus star stars rainbow cloud
        clouds lightning comet""",
    "food": """apple apples banana bananas bread burger burrito cake candy cheese cherry
        cherries croissant cookie donut egg eggs fries grapes hamburger honey lemon
        lollipop melon muffin onion orange pancake pancakes pear peach pepper pie
        pineapple pizza plum potato pretzel radish salad sandwich sausage spaghetti
        strawberry tomato tomatoes toast watermelon garlic coffee tea milk wine lemonade
        marshmallow croissants lime""",
    "plant": """acorn azalea bamboo cactus daffodil daisy fern flower flowers geranium
        leaf magnolia mushroom palm rose shamrock sunflower tree tulip tulips vine conifer
        evergreen fir bouquet""",
    "body": "eye hand brain skull foot ear",
    "thing": """airplane aircraft anchor antenna anvil armchair axe backpack bag balloon
        balloons ball barrel basket bell bicycle bike binoculars boat book books
        boomerang boot bottle bowl box bucket bulb cage camera candle candles car cart
        cassette chair clock compass crayon crown cup desk dice drum envelope eraser
        fedora fence flask flute globe glove gramophone guitar hammer harp hat helmet horn
        hourglass hydrant kettle key kite knife ladder lamp lantern lens lock mailbox
        megaphone microphone microscope mirror motorcycle mug padlock pan paintbrush
        palette pen pencil phone piano pipe plane plate pot propeller radio robot rocket
        sailboat satellite saxophone scissors screwdriver shoe shovel sledge sofa couch
        submarine suitcase suitcases sunglasses surfboard sword syringe table teapot
        teacup telephone telescope television thermometer toothbrush tractor train tram
        truck trumpet umbrella violin wagon wand watch wheelchair wreath xylophone
        jukebox joystick trombone oboe cello dulcimer maracas trophy bus taxi calculator
        stapler trowel broom bucket chainsaw newspaper clipboard feather snowman teddy
        ship trawler lorry camcorder gps tractor rollerblades igloo tophat turban
        sombrero bonnet cap anvil drill hammer ring rings sledge""",
}.items():
    for _w in _words.split():
        NOUNS.setdefault(_w, _kind)

#: Multi-word subjects, matched before single nouns: name words -> (display, kind).
PHRASES: dict[tuple[str, ...], tuple[str, str]] = {
    ("alarm", "clock"): ("alarm clock", "thing"),
    ("analog", "clock"): ("clock", "thing"),
    ("teddy", "bear"): ("teddy bear", "thing"),
    ("teddy",): ("teddy bear", "thing"),
    ("rubber", "duck"): ("rubber duck", "thing"),
    ("rubber", "ducks"): ("rubber ducks", "thing"),
    ("light", "bulb"): ("light bulb", "thing"),
    ("bulb",): ("light bulb", "thing"),
    ("christmas", "tree"): ("christmas tree", "plant"),
    ("ice", "cream", "cone"): ("ice cream cone", "food"),
    ("ice", "cube"): ("ice cube", "thing"),
    ("ice",): ("ice cube", "thing"),
    ("magic", "hat"): ("magic hat", "thing"),
    ("sand", "castle"): ("sand castle", "building"),
    ("fire", "engine"): ("fire engine", "thing"),
    ("beach", "ball"): ("beach ball", "thing"),
    ("beachball",): ("beach ball", "thing"),
    ("baseball", "cap"): ("baseball cap", "thing"),
    ("baseball", "bat"): ("baseball bat", "thing"),
    ("baseball", "glove"): ("baseball glove", "thing"),
    ("frying", "pan"): ("frying pan", "thing"),
    ("hot", "dog"): ("hot dog", "food"),
    ("fried", "egg"): ("fried egg", "food"),
    ("fried", "eggs"): ("fried eggs", "food"),
    ("tennis", "shoe"): ("tennis shoe", "thing"),
    ("tennis", "shoes"): ("tennis shoes", "thing"),
    ("tennis", "racket"): ("tennis racket", "thing"),
    ("wine", "glass"): ("wine glass", "thing"),
    ("martini", "glass"): ("martini glass", "thing"),
    ("birthday", "cake"): ("birthday cake", "food"),
    ("paper", "plane"): ("paper plane", "thing"),
    ("toy", "paper", "plane"): ("paper plane", "thing"),
    ("mobile", "phone"): ("mobile phone", "thing"),
    ("cell", "phone"): ("mobile phone", "thing"),
    ("cellular", "phone"): ("mobile phone", "thing"),
    ("french", "horn"): ("french horn", "thing"),
    ("electric", "guitar"): ("electric guitar", "thing"),
    ("bass", "guitar"): ("bass guitar", "thing"),
    ("desk", "lamp"): ("desk lamp", "thing"),
    ("hurricane", "lamp"): ("oil lamp", "thing"),
    ("flower", "pot"): ("flower pot", "plant"),
    ("flower", "bed"): ("flower bed", "plant"),
    ("grain", "elevator"): ("grain silo", "building"),
    ("water", "tower"): ("water tower", "building"),
    ("hiking", "boot"): ("hiking boot", "thing"),
    ("soccer", "ball"): ("soccer ball", "thing"),
    ("football", "ball"): ("football", "thing"),
    ("football", "helmet"): ("football helmet", "thing"),
    ("cricket", "bat"): ("cricket bat", "thing"),
    ("volley", "ball"): ("volleyball", "thing"),
    ("handball", "ball"): ("handball", "thing"),
    ("emperor", "penguin"): ("emperor penguin", "animal"),
    ("road", "runner"): ("roadrunner", "animal"),
    ("vacuum", "cleaner"): ("vacuum cleaner", "thing"),
    ("wedding", "rings"): ("wedding rings", "thing"),
    ("paint", "roller"): ("paint roller", "thing"),
    ("paint", "brush"): ("paintbrush", "thing"),
    ("magnifying", "glass"): ("magnifying glass", "thing"),
    ("cardboard", "box"): ("cardboard box", "thing"),
    ("picture", "frame"): ("picture frame", "thing"),
    ("war", "drum"): ("war drum", "thing"),
    ("compact", "disc"): ("compact disc", "thing"),
    ("vinyl", "disc"): ("vinyl record", "thing"),
    ("video", "cassette"): ("video cassette", "thing"),
    ("satellite", "dish"): ("satellite dish", "thing"),
    ("pie", "apple"): ("apple pie", "food"),
    ("pie", "cherry"): ("cherry pie", "food"),
    ("pie", "pumpkin"): ("pumpkin pie", "food"),
    ("pizza", "pepperoni"): ("pepperoni pizza", "food"),
    ("pizza", "cheese"): ("cheese pizza", "food"),
    ("grass", "hopper"): ("grasshopper", "animal"),
    ("sun", "flower"): ("sunflower", "plant"),
    ("corn", "cob"): ("corn cob", "food"),
    ("corn", "dog"): ("corn dog", "food"),
    ("baby", "penguin"): ("baby penguin", "animal"),
    ("ninja", "penguin"): ("ninja penguin", "animal"),
    ("plush", "penguin"): ("plush penguin", "thing"),
    ("onion", "rings"): ("onion rings", "food"),
    ("french", "fries"): ("french fries", "food"),
    ("potato", "chips"): ("potato chips", "food"),
    ("apple", "juice", "box"): ("juice box", "food"),
    ("orange", "juice", "box"): ("juice box", "food"),
    ("pop", "can"): ("soda can", "thing"),
    ("milk", "carton"): ("milk carton", "food"),
    ("baby", "bottle"): ("baby bottle", "thing"),
    ("chemistry", "flask"): ("flask", "thing"),
    ("fire", "hydrant"): ("fire hydrant", "thing"),
    ("formula", "one", "car"): ("racing car", "thing"),
    ("old", "truck"): ("old truck", "thing"),
    ("old", "car"): ("old car", "thing"),
    ("fifties", "jukebox"): ("jukebox", "thing"),
    ("eiffel", "tower"): ("eiffel tower", "building"),
    ("full", "moon"): ("full moon", "sky"),
    ("planet", "earth"): ("planet earth", "sky"),
    ("earth", "globe"): ("globe", "thing"),
    ("wire", "globe"): ("wire globe", "thing"),
    ("palm", "tree"): ("palm tree", "plant"),
    ("evergreen", "tree"): ("evergreen tree", "plant"),
    ("cartoon", "tree"): ("tree", "plant"),
    ("hot", "air", "balloon"): ("hot air balloon", "thing"),
    ("straw", "tote"): ("straw bag", "thing"),
    ("sleeping", "bag"): ("sleeping bag", "thing"),
    ("scuba", "tank"): ("scuba tank", "thing"),
    ("blacksmith", "anvil"): ("anvil", "thing"),
    ("blacksmith", "hammer"): ("hammer", "thing"),
    ("construction", "hammer"): ("hammer", "thing"),
    ("rubik", "s", "cube"): ("rubik cube", "thing"),
    ("stack", "of", "books"): ("stack of books", "thing"),
    ("open", "book"): ("open book", "thing"),
    ("old", "book"): ("old book", "thing"),
    ("closed", "book"): ("book", "thing"),
    ("water", "skier"): ("water skier", "person"),
    ("snow", "man"): ("snowman", "thing"),
    ("police", "man"): ("policeman", "person"),
    ("little", "boy"): ("boy", "person"),
    ("woman", "doctor"): ("doctor", "person"),
    ("woman", "nurse"): ("nurse", "person"),
    ("woman", "chemist"): ("chemist", "person"),
    ("sleeping", "cat"): ("sleeping cat", "animal"),
    ("sleeping", "bear"): ("sleeping bear", "animal"),
    ("clown", "loach"): ("clownfish", "animal"),
    ("brown", "fish"): ("fish", "animal"),
    ("giraffe", "cichlid"): ("striped fish", "animal"),
    ("red", "eye", "frog"): ("tree frog", "animal"),
    ("camel", "head"): ("camel head", "animal"),
    ("dragon", "head"): ("dragon head", "animal"),
    ("monkey", "head"): ("monkey head", "animal"),
    ("dog", "head"): ("dog head", "animal"),
    ("ice", "water"): ("glass of ice water", "thing"),
    ("drinking", "glass"): ("glass of punch", "thing"),
    ("juice", "glass"): ("glass of juice", "thing"),
    ("coffee", "cup"): ("coffee cup", "thing"),
    ("tea", "cup"): ("teacup", "thing"),
    ("bowling", "ball"): ("bowling ball", "thing"),
    ("blowling", "ball"): ("bowling ball", "thing"),
    ("candied", "apples"): ("candied apples", "food"),
    ("golf", "flag", "ball"): ("golf flag", "thing"),
    ("lemon", "half"): ("half lemon", "food"),
    ("lime", "half"): ("half lime", "food"),
    ("lemon", "slice"): ("lemon slice", "food"),
    ("lemon", "wedge"): ("lemon wedge", "food"),
    ("orange", "slice"): ("orange slice", "food"),
    ("apple", "core"): ("apple core", "food"),
    ("apple", "wedge"): ("apple slice", "food"),
    ("pizza", "slice"): ("slice of pizza", "food"),
    ("steaming", "coffee"): ("steaming coffee", "food"),
    ("dall", "sheep"): ("ram", "animal"),
    ("mountain", "goat"): ("mountain goat", "animal"),
    ("egg", "muffin"): ("egg muffin", "food"),
    ("spider", "sword"): ("spider", "animal"),
    ("gold", "coins"): ("gold coins", "thing"),
    ("piggybank",): ("piggy bank", "thing"),
    ("sand", "glass"): ("hourglass", "thing"),
    ("sandglass",): ("hourglass", "thing"),
    ("rocking", "horse"): ("rocking horse", "thing"),
    ("kiddy", "train"): ("toy train", "thing"),
    ("toy", "train"): ("toy train", "thing"),
    ("abc", "blocks"): ("toy blocks", "thing"),
    ("wooden", "barrel"): ("wooden barrel", "thing"),
    ("wooden", "table"): ("wooden table", "thing"),
    ("soft", "blue", "couch"): ("couch", "thing"),
    ("tree", "frog"): ("tree frog", "animal"),
    ("magic", "lamp"): ("magic lamp", "thing"),
    ("lampada", "di", "aladino"): ("magic lamp", "thing"),
    ("lamp", "di", "aladino"): ("magic lamp", "thing"),
    ("balloon", "aerestatico"): ("hot air balloon", "thing"),
    ("pacco", "regalo"): ("gift box", "thing"),
    ("gift", "box"): ("gift box", "thing"),
    ("tophat",): ("top hat", "thing"),
    ("top", "hat"): ("top hat", "thing"),
    ("pimp", "hat"): ("feathered hat", "thing"),
    ("winter", "hat"): ("winter hat", "thing"),
    ("slouch", "hat"): ("slouch hat", "thing"),
    ("aussie", "hat"): ("bush hat", "thing"),
    ("motor", "cycle"): ("motorcycle", "thing"),
    ("tree", "whit", "fruits"): ("fruit tree", "plant"),
    ("lightning",): ("lightning bolt", "sky"),
    ("sleeping", "bear", "under"): ("sleeping bear", "animal"),
    ("eye", "frog"): ("tree frog", "animal"),
    ("submarine", "sandwich"): ("sandwich", "food"),
    ("sailor", "monkey"): ("sailor monkey", "animal"),
    ("garlic", "toast"): ("garlic toast", "food"),
    ("bread", "and", "wine"): ("bread and wine", "food"),
    ("honey",): ("honey jar", "food"),
    ("milk",): ("milk bottle", "food"),
    ("wine",): ("wine bottle", "food"),
    ("coffee",): ("cup of coffee", "food"),
    ("lemonade",): ("glass of lemonade", "food"),
    ("spaghetti",): ("plate of spaghetti", "food"),
    ("bread",): ("loaf of bread", "food"),
    ("cheese",): ("wedge of cheese", "food"),
    ("salad",): ("bowl of salad", "food"),
    ("garlic",): ("garlic bulb", "food"),
    ("fries",): ("french fries", "food"),
    ("earth",): ("globe", "thing"),
    ("bamboo",): ("bamboo stalk", "plant"),
    ("chicken", "burger"): ("chicken burger", "food"),
    ("turkey", "platter"): ("roast turkey", "food"),
    ("turkey", "on", "platter"): ("roast turkey", "food"),
    ("evergreen", "wreath"): ("wreath", "thing"),
    ("planet", "earth"): ("blue planet", "sky"),
    ("jupiter",): ("striped planet", "sky"),
    ("saturn",): ("ringed planet", "sky"),
    ("mars",): ("red planet", "sky"),
    ("venus",): ("golden planet", "sky"),
    ("sunglasses",): ("pair of sunglasses", "thing"),
    ("binoculars",): ("pair of binoculars", "thing"),
    ("scissors",): ("pair of scissors", "thing"),
    ("magic", "hat", "and", "wand"): ("magic hat with a wand", "thing"),
}

#: Joiners allowed inside a subject ("apple with worm" -> "apple with a worm").
JOINERS = {"with", "on", "and", "in"}

#: Name words that follow an animal or object in a phrase without being the subject.
STOP_AFTER = {"head", "symbol", "sign", "icon", "logo", "map", "flag", "print", "avvolgibile",
              "scrathing", "scratching", "tennis", "keys", "theory", "lutte", "sauvetage", "eye",
              "eyes", "face", "corks", "burner", "wreath", "post"}


# ----------------------------------------------------------------------------------------
# Parsing file names into subjects
# ----------------------------------------------------------------------------------------

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


PLURAL_NAMES = {"french fries", "potato chips", "onion rings", "wedding rings", "toy blocks",
                "gold coins", "candied apples", "tennis shoes", "rubber ducks", "fried eggs",
                "grapes", "french fries", "potato chips", "maracas", "bread and wine"}
NOT_PLURAL = {"glass", "bus", "compass", "cactus", "binoculars", "sunglasses", "scissors",
              "dice", "stack of books", "christmas", "mantis", "rhinoceros",
              "octopus", "hummus"}


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
            article = "" if _is_plural(second[0]) else _article(second[0]) + " "
            display = f"{display} {tokens[i]} {article}{second[0]}"
    adjectives = [a for a in adjectives if a not in display.split()]
    if adjectives:
        display = " ".join(adjectives[:1] + [display])
    plural = display in PLURAL_NAMES or _is_plural(re.split(r" (?:with|on|and|in) ", display)[0])
    return Subject(display, kind, plural)


def _article(name: str) -> str:
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


# ----------------------------------------------------------------------------------------
# Loading and checking clip art
# ----------------------------------------------------------------------------------------

class ArtCache:
    """Loads clip art once, cropped to its opaque part; None for unusable pictures."""

    def __init__(self, source: Path):
        self.source = source
        self._cache: dict[str, Image.Image | None] = {}

    def get(self, rel: str) -> Image.Image | None:
        if rel not in self._cache:
            self._cache[rel] = self._load(self.source / rel)
        return self._cache[rel]

    @staticmethod
    def _load(path: Path) -> Image.Image | None:
        try:
            if path.stat().st_size < 1500:
                return None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                im = Image.open(path)
            with im:
                w, h = im.size
                if w * h > 6_000_000 or min(w, h) < 90:
                    return None
                im = im.convert("RGBA")
        except (OSError, ValueError, Image.DecompressionBombError):
            return None
        rgba = np.asarray(im, dtype=np.uint8)
        alpha = rgba[..., 3]
        if alpha.min() > 250:  # no transparency: key out a white background
            rgb = rgba[..., :3].astype(np.int16)
            corners = np.stack([rgb[0, 0], rgb[0, -1], rgb[-1, 0], rgb[-1, -1]])
            if corners.min() < 235:
                return None
            mask = Image.fromarray(((rgb.min(axis=2) > 235) * 255).astype(np.uint8))
            for xy in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)):
                ImageDraw.floodfill(mask, xy, 128)
            alpha = np.where(np.asarray(mask) == 128, 0, 255).astype(np.uint8)
            rgba = np.dstack([rgba[..., :3], alpha])
            im = Image.fromarray(rgba, "RGBA")
        solid = alpha > 24
        if solid.mean() < 0.02:
            return None
        ys, xs = np.nonzero(solid)
        box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
        bw, bh = box[2] - box[0], box[3] - box[1]
        if min(bw, bh) < 48 or not (1 / 4 <= bw / bh <= 4):
            return None
        coverage = solid[box[1]:box[3], box[0]:box[2]].mean()
        if coverage < 0.17 or coverage > 0.97:  # thin line art / plain rectangles
            return None
        crop = im.crop(box)
        opaque = np.asarray(crop)[..., :3][solid[box[1]:box[3], box[0]:box[2]]]
        if opaque.size and opaque.std() < 6 and opaque.mean() > 230:  # all white
            return None
        return crop


# ----------------------------------------------------------------------------------------
# Backgrounds
# ----------------------------------------------------------------------------------------

#: palette name (said in captions) -> (colour stops from top to bottom, is it dark)
PALETTES: dict[str, tuple[tuple[tuple[int, int, int], ...], bool]] = {
    "violet": (((38, 18, 78), (128, 62, 150), (244, 160, 150)), True),
    "golden": (((255, 226, 160), (246, 164, 92), (150, 72, 90)), False),
    "midnight blue": (((6, 10, 38), (24, 36, 96), (58, 70, 140)), True),
    "turquoise": (((168, 230, 232), (70, 180, 190), (18, 96, 120)), False),
    "pink": (((255, 214, 226), (236, 160, 200), (170, 120, 210)), False),
    "crimson": (((92, 8, 28), (196, 52, 60), (246, 150, 96)), True),
    "pale green": (((214, 236, 206), (132, 186, 150), (44, 100, 86)), False),
    "orange": (((255, 200, 96), (236, 100, 60), (86, 30, 76)), False),
    "silver": (((232, 234, 238), (184, 190, 204), (120, 128, 150)), False),
    "deep blue": (((24, 70, 126), (10, 40, 86), (2, 14, 40)), True),
    "lemon yellow": (((255, 250, 196), (246, 226, 120), (210, 160, 60)), False),
    "emerald": (((16, 60, 48), (36, 120, 90), (150, 210, 160)), True),
    "lavender": (((236, 226, 255), (196, 176, 236), (126, 104, 190)), False),
    "teal": (((6, 46, 62), (30, 110, 120), (120, 196, 186)), True),
    "amber": (((120, 50, 20), (214, 130, 40), (250, 214, 130)), False),
    "rose": (((250, 196, 180), (220, 120, 140), (110, 50, 90)), False),
    "indigo": (((20, 12, 60), (60, 40, 130), (150, 110, 200)), True),
    "sea green": (((196, 240, 220), (90, 190, 160), (20, 110, 100)), False),
    "copper": (((60, 30, 30), (170, 90, 60), (240, 180, 120)), True),
    "ivory": (((250, 246, 230), (232, 220, 196), (196, 176, 150)), False),
}

#: background scenes; PLACE_PHRASES says how captions name each
SCENES = ("sky", "night", "sea", "hills", "floor", "clouds", "moon", "desert", "void", "forest")

PREPOSITION_SWAP = {"above": "over", "over": "above", "under": "beneath", "beneath": "under",
                    "in": "within", "on": "upon", "among": "amid", "across": "through",
                    "near": "by", "before": "facing"}

MOODS = ("quiet", "endless", "lonely", "silent", "strange", "soft", "dreaming", "faded",
         "burning", "frozen", "gentle", "empty")


def _gradient(stops, h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    stops = np.asarray(stops, dtype=np.float32)
    t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None]
    positions = np.linspace(0.0, 1.0, len(stops))
    col = np.stack([np.interp(t[:, 0], positions, stops[:, c]) for c in range(3)], axis=1)
    img = np.repeat(col[:, None, :], w, axis=1)
    # a soft diagonal light and paper grain for a painted feel
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.1, 0.5) * h
    glow = np.exp(-(((xx - cx) / (0.7 * w)) ** 2 + ((yy - cy) / (0.6 * h)) ** 2))
    img += glow[..., None] * 28.0
    img += rng.normal(0.0, 3.0, size=(h, w, 1)).astype(np.float32)
    return img


def _shift(colour, amount: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(c + amount, 0, 255)) for c in colour)  # type: ignore[return-value]


def _blend(a, b, t: float) -> tuple[int, int, int]:
    return tuple(int(round(x * (1 - t) + y * t)) for x, y in zip(a, b))  # type: ignore[return-value]


def make_background(palette: str, scene: str, rng: np.random.Generator) -> tuple[Image.Image, int]:
    """A painted background; returns it and the y of its ground line (where things stand)."""
    stops, dark = PALETTES[palette]
    h, w = CARD_H, CARD_W
    img = _gradient(stops, h, w, rng)
    base = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(base, "RGBA")
    ground = int(h * rng.uniform(0.70, 0.80))
    lo = stops[-1]
    if scene in ("night", "moon") or (dark and scene in ("sky", "void")):
        n = int(rng.integers(60, 140))
        for _ in range(n):
            x, y = rng.uniform(0, w), rng.uniform(0, h * 0.75)
            r = rng.choice([0.6, 0.9, 1.3, 1.8], p=[0.5, 0.3, 0.15, 0.05])
            a = int(rng.integers(120, 255))
            draw.ellipse([x - r, y - r, x + r, y + r], fill=(255, 250, 225, a))
    if scene == "moon":
        r = rng.uniform(0.26, 0.34) * w
        cx, cy = rng.uniform(0.35, 0.65) * w, rng.uniform(0.22, 0.32) * h
        moon = _blend(stops[0], (255, 244, 214), 0.85)
        for k in range(12, 0, -1):  # glow
            rr = r * (1 + k * 0.06)
            draw.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], fill=(*moon, 10))
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(*moon, 255))
        for _ in range(5):  # craters
            cr = rng.uniform(0.05, 0.14) * r
            ang, dist = rng.uniform(0, 2 * math.pi), rng.uniform(0, 0.7) * r
            x, y = cx + dist * math.cos(ang), cy + dist * math.sin(ang)
            draw.ellipse([x - cr, y - cr, x + cr, y + cr], fill=(*_shift(moon, -22), 160))
    if scene == "clouds" or (scene == "sky" and rng.random() < 0.6):
        layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        ld = ImageDraw.Draw(layer)
        tint = _blend(stops[0], (255, 255, 255), 0.75)
        for _ in range(int(rng.integers(4, 9))):
            x, y = rng.uniform(-40, w + 40), rng.uniform(0.05, 0.85 if scene == "clouds" else 0.5) * h
            for _ in range(int(rng.integers(3, 6))):
                ew, eh = rng.uniform(40, 110), rng.uniform(18, 40)
                dx, dy = rng.uniform(-50, 50), rng.uniform(-10, 10)
                ld.ellipse([x + dx - ew, y + dy - eh, x + dx + ew, y + dy + eh],
                           fill=(*tint, int(rng.integers(90, 170))))
        base.paste(layer.filter(ImageFilter.GaussianBlur(6)), (0, 0),
                   layer.filter(ImageFilter.GaussianBlur(6)))
        draw = ImageDraw.Draw(base, "RGBA")
    if scene == "sea":
        water_top = _blend(lo, (30, 60, 110), 0.5)
        for y in range(ground, h):
            t = (y - ground) / max(1, h - ground)
            draw.line([(0, y), (w, y)], fill=(*_blend(water_top, _shift(water_top, -50), t), 255))
        for _ in range(40):
            y = rng.uniform(ground + 4, h)
            x = rng.uniform(0, w)
            lw = rng.uniform(8, 40) * (0.5 + (y - ground) / (h - ground))
            draw.line([(x, y), (x + lw, y)], fill=(255, 255, 255, int(rng.integers(40, 110))), width=1)
    elif scene == "hills":
        for layer_i, frac in enumerate((0.0, 0.06)):
            col = _shift(_blend(lo, (40, 90, 60), 0.55), -25 * layer_i)
            phase, amp, freq = rng.uniform(0, 6.28), rng.uniform(10, 24), rng.uniform(1.0, 2.2)
            pts = [(x, ground + h * frac + amp * math.sin(phase + freq * x / w * 2 * math.pi))
                   for x in range(0, w + 5, 5)]
            draw.polygon(pts + [(w, h), (0, h)], fill=(*col, 255))
    elif scene == "floor":
        c1, c2 = _shift(lo, 40), _shift(lo, -60)
        vx = w / 2 + rng.uniform(-30, 30)
        rows = 9
        for r in range(rows):
            y0 = ground + (h - ground) * (r / rows) ** 1.6
            y1 = ground + (h - ground) * ((r + 1) / rows) ** 1.6
            cols = 12
            for c in range(-cols, cols):
                def xat(y, cc):
                    s = (y - ground + 2) / (h - ground)
                    return vx + (cc * 40) * s * 1.6
                poly = [(xat(y0, c), y0), (xat(y0, c + 1), y0), (xat(y1, c + 1), y1), (xat(y1, c), y1)]
                draw.polygon(poly, fill=(*(c1 if (r + c) % 2 else c2), 255))
    elif scene == "desert":
        col = _blend(lo, (214, 160, 96), 0.6)
        pts = [(x, ground + 8 * math.sin(x / 37.0 + rng.uniform(0, 0.2))) for x in range(0, w + 5, 5)]
        draw.polygon(pts + [(w, h), (0, h)], fill=(*col, 255))
        for _ in range(5):
            y = rng.uniform(ground + 15, h)
            x = rng.uniform(-80, w)
            draw.arc([x, y, x + 160, y + 30], 190, 350,
                     fill=(*_shift(col, -30), 160), width=2)
    elif scene == "forest":
        col = _shift(_blend(lo, (20, 50, 40), 0.6), -10)
        for _ in range(int(rng.integers(9, 15))):
            x = rng.uniform(-10, w + 10)
            th = rng.uniform(60, 160)
            tw = th * rng.uniform(0.25, 0.4)
            draw.polygon([(x, ground - th), (x - tw, ground + 6), (x + tw, ground + 6)],
                         fill=(*_shift(col, rng.uniform(-15, 15)), 230))
        draw.rectangle([0, ground, w, h], fill=(*col, 255))
    elif scene in ("sky", "night", "clouds", "moon", "void"):
        if scene != "void" and rng.random() < 0.5:  # a low horizon of mist
            for y in range(ground, h):
                t = (y - ground) / max(1, h - ground)
                draw.line([(0, y), (w, y)], fill=(*_blend(_shift(lo, 25), (255, 255, 255), 0.2), int(60 + 120 * t)))
        else:
            ground = int(h * rng.uniform(0.80, 0.88))
    return base, ground


PLACE_PHRASES = {
    "sky": ["under a {c} sky", "in a {m} {c} sky", "across a {c} sky"],
    "night": ["in a {c} starry night", "under {c} stars", "on a {m} {c} night"],
    "sea": ["over a {m} {c} sea", "on a {c} ocean", "above {c} water"],
    "hills": ["over {c} hills", "among {m} {c} hills", "on a {c} hillside"],
    "floor": ["on a {c} checkered floor", "across a {m} {c} chessboard floor"],
    "clouds": ["among {c} clouds", "in a {m} sea of {c} clouds", "above {c} clouds"],
    "moon": ["before a giant moon in a {c} sky", "under a huge {c} moon", "beneath a {m} moon"],
    "desert": ["in a {c} desert", "on {m} {c} dunes", "across {c} sand"],
    "void": ["in a {m} {c} void", "in {c} silence", "in a {c} mist"],
    "forest": ["near a {c} forest", "at the edge of a {m} {c} forest", "among {c} pines"],
}


# ----------------------------------------------------------------------------------------
# Placing objects
# ----------------------------------------------------------------------------------------

#: tint name -> RGB (applied as a duotone that keeps the picture's shading)
TINTS = {
    "blue": (60, 110, 230), "red": (220, 40, 50), "golden": (236, 186, 60),
    "green": (60, 170, 80), "violet": (150, 70, 200), "pink": (246, 130, 190),
    "silver": (196, 202, 214), "white": (250, 250, 250), "black": (18, 16, 24),
    "orange": (246, 140, 40), "turquoise": (50, 200, 200), "crimson": (170, 20, 50),
}


def tint_image(im: Image.Image, colour: tuple[int, int, int], black: bool = False) -> Image.Image:
    arr = np.asarray(im).astype(np.float32)
    rgb, alpha = arr[..., :3], arr[..., 3:]
    if black:
        out = np.broadcast_to(np.asarray(colour, np.float32), rgb.shape)
    else:
        lum = 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]
        solid = alpha[..., 0] > 24
        lo, hi = (np.percentile(lum[solid], [3, 97]) if solid.any() else (0.0, 255.0))
        lum = np.clip((lum - lo) / max(hi - lo, 40.0), 0.0, 1.0)[..., None]
        # stretch each picture's own range so dark drawings take the colour too
        lum = 0.25 + 0.75 * lum
        c = np.asarray(colour, dtype=np.float32)
        dark, light = c * 0.3, c + (255 - c) * 0.6
        out = np.where(lum < 0.6, dark + (c - dark) * (lum / 0.6), c + (light - c) * ((lum - 0.6) / 0.4))
        out = 0.85 * out + 0.15 * rgb
    return Image.fromarray(np.dstack([np.clip(out, 0, 255), alpha]).astype(np.uint8), "RGBA")


@dataclass
class Placed:
    subject: Subject
    source: str
    words: list[str] = field(default_factory=list)  # adjectives said in the caption

    def phrase(self, article: bool = True) -> str:
        text = " ".join([*self.words, self.subject.name])
        if not article:
            return text
        if self.subject.plural:
            return "some " + text
        return f"{_article(text)} {text}"


def fit(im: Image.Image, height: float, max_width: float | None = None) -> Image.Image:
    """Scale a picture to a height in pixels (and at most ``max_width`` wide)."""
    scale = height / im.height
    if max_width is not None:
        scale = min(scale, max_width / im.width)
    size = (max(4, int(round(im.width * scale))), max(4, int(round(im.height * scale))))
    return im.resize(size, Image.LANCZOS)


def paste(card: Image.Image, im: Image.Image, cx: float, bottom: float | None = None,
          cy: float | None = None, shadow: bool = True) -> tuple[int, int, int, int]:
    """Paste centred at ``cx`` with its bottom at ``bottom`` (or centred at ``cy``)."""
    x = int(round(cx - im.width / 2))
    y = int(round(bottom - im.height)) if bottom is not None else int(round(cy - im.height / 2))
    if shadow:
        alpha = im.getchannel("A")
        sh = Image.new("RGBA", im.size, (0, 0, 0, 0))
        sh.putalpha(alpha.point(lambda a: a * 55 // 255))
        _composite_clipped(card, sh.filter(ImageFilter.GaussianBlur(4)), x + 4, y + 5)
    _composite_clipped(card, im, x, y)
    return x, y, x + im.width, y + im.height


def _composite_clipped(card: Image.Image, im: Image.Image, x: int, y: int) -> None:
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(card.width, x + im.width), min(card.height, y + im.height)
    if x1 <= x0 or y1 <= y0:
        return
    part = im.crop((x0 - x, y0 - y, x1 - x, y1 - y))
    card.alpha_composite(part, (x0, y0))


def rotate(im: Image.Image, degrees: float) -> Image.Image:
    return im.rotate(degrees, resample=Image.BICUBIC, expand=True)


# ----------------------------------------------------------------------------------------
# Layouts: each draws the objects and returns the caption's arrangement sentence
# ----------------------------------------------------------------------------------------

VERBS_CARRY = {"animal": ["carries", "gives a ride to", "guards", "watches over"],
               "person": ["holds", "watches over", "guards", "dreams of"],
               "thing": ["towers over", "shelters", "looms over"],
               "building": ["towers over", "shelters", "looms over"],
               "food": ["towers over", "looms over", "shelters"],
               "plant": ["shelters", "towers over", "grows over"],
               "sky": ["rises over", "watches over", "shines on"],
               "body": ["holds", "watches over", "looms over"]}
VERBS_FLOAT = ["floats above", "drifts over", "hovers above", "flies over", "sails above"]


def _say_size(rng, big: bool) -> str:
    return str(rng.choice(["giant", "huge", "enormous"] if big else ["tiny", "small", "little"]))


class CardMaker:
    def __init__(self, pool: dict[str, tuple[Subject, list[str]]], art: ArtCache,
                 rng: np.random.Generator):
        self.pool = pool
        self.art = art
        self.rng = rng
        self.queue: list[str] = []
        self.used_counts: dict[str, int] = {}
        self.used_files: set[str] = set()

    # -- choosing subjects ------------------------------------------------------------
    def _refill(self) -> None:
        names = list(self.pool)
        order = self.rng.permutation(len(names))
        self.queue.extend(names[i] for i in order)

    def pick(self, kinds: tuple[str, ...] | None = None, exclude: set[str] = frozenset(),
             singular: bool = True, simple: bool = False) -> tuple[Subject, str, Image.Image]:
        """The next subject in the shuffled queue that fits, with one of its usable pictures.

        ``singular`` refuses plural subjects ("ants"), ``simple`` refuses joined ones
        ("apple with a worm"); subjects whose pictures are all unusable leave the pool.
        """
        for _round in range(3):
            qi = 0
            while qi < len(self.queue):
                name = self.queue[qi]
                if name not in self.pool:
                    self.queue.pop(qi)
                    continue
                subject, files = self.pool[name]
                if (name in exclude or (kinds and subject.kind not in kinds)
                        or (singular and subject.plural)
                        or (simple and re.search(r" (?:with|on|and|in|of) ", name))):
                    qi += 1
                    continue
                self.queue.pop(qi)
                image, rel = self._first_usable(files)
                if image is None:
                    del self.pool[name]
                    continue
                return subject, rel, image
            self._refill()
        raise RuntimeError(f"no usable clip art of kinds {kinds}")

    def _first_usable(self, files: list[str]) -> tuple[Image.Image | None, str]:
        fresh = [f for f in files if f not in self.used_files] or list(files)
        order = self.rng.permutation(len(fresh))
        for i in order:
            im = self.art.get(fresh[i])
            if im is not None:
                self.used_files.add(fresh[i])
                return im, fresh[i]
        return None, ""

    def maybe_tint(self, im: Image.Image, obj: Placed, p: float, dark_bg: bool) -> Image.Image:
        if self.rng.random() >= p or obj.subject.kind == "sky":
            return im
        names = [t for t in TINTS if not (dark_bg and t == "black")]
        name = str(self.rng.choice(names))
        obj.words.insert(0, name)
        return tint_image(im, TINTS[name], black=(name == "black"))

    # -- the card ----------------------------------------------------------------------
    def make(self) -> tuple[Image.Image, str, list[str]]:
        rng = self.rng
        palette = str(rng.choice(list(PALETTES)))
        scene = str(rng.choice(SCENES))
        layout = str(rng.choice(["giant", "float", "upside", "bubble", "stack", "swarm",
                                 "reflection", "silhouette", "pair"],
                                p=[0.17, 0.16, 0.09, 0.1, 0.1, 0.1, 0.1, 0.08, 0.1]))
        if layout == "reflection":
            scene = "sea"
        if layout == "silhouette":
            scene = "moon"
        bg, ground = make_background(palette, scene, rng)
        card = bg.convert("RGBA")
        dark = PALETTES[palette][1]
        place = str(rng.choice(PLACE_PHRASES[scene])).format(c=palette, m=str(rng.choice(MOODS)))
        sentence, sources = getattr(self, "_layout_" + layout)(card, ground, dark)
        first = place.split()[0]
        if first in sentence.split():  # "above a gps above rose water" -> "... over rose water"
            place = " ".join([PREPOSITION_SWAP.get(first, first), *place.split()[1:]])
        caption = f"{sentence} {place}"
        frame = finish_card(card, rng)
        return frame, caption, sources

    def _layout_giant(self, card, ground, dark):
        rng = self.rng
        a_s, a_rel, a_im = self.pick(("animal", "person", "thing", "food", "plant", "body"))
        b_s, b_rel, b_im = self.pick(("building", "thing", "person", "animal", "food"), {a_s.name})
        a, b = Placed(a_s, a_rel), Placed(b_s, b_rel)
        a_im = self.maybe_tint(a_im, a, 0.3, dark)
        b_im = self.maybe_tint(b_im, b, 0.3, dark)
        big = fit(a_im, CARD_H * rng.uniform(0.45, 0.58), CARD_W * 0.92)
        if rng.random() < 0.5:
            big = big.transpose(Image.FLIP_LEFT_RIGHT)
        small = fit(b_im, CARD_H * rng.uniform(0.08, 0.13), CARD_W * 0.3)
        cx = CARD_W / 2 + rng.uniform(-20, 20)
        verb = str(rng.choice(VERBS_CARRY[a_s.kind]))
        box = paste(card, big, cx, bottom=ground + 10)
        if verb in ("carries", "gives a ride to", "holds"):
            paste(card, small, cx + rng.uniform(-0.2, 0.2) * big.width, bottom=box[1] + 0.12 * big.height)
        else:
            side = 1 if rng.random() < 0.5 else -1
            sx = cx + side * (big.width / 2 + small.width / 2 - 4)
            sx = float(np.clip(sx, small.width / 2 + 14, CARD_W - small.width / 2 - 14))
            paste(card, small, sx, bottom=ground + 14)
        sentence = (f"{_article(_say_size(rng, True))} {_say_size(rng, True)} {a.phrase(False)} "
                    f"{verb} {_article('tiny')} {_say_size(rng, False)} {b.phrase(False)}")
        sentence = _fix_articles(sentence)
        return sentence, [a_rel, b_rel]

    def _layout_float(self, card, ground, dark):
        rng = self.rng
        a_s, a_rel, a_im = self.pick(("thing", "food", "animal", "building", "plant", "body"))
        b_s, b_rel, b_im = self.pick(("building", "person", "animal", "thing", "plant"), {a_s.name})
        a, b = Placed(a_s, a_rel), Placed(b_s, b_rel)
        a_im = self.maybe_tint(a_im, a, 0.35, dark)
        b_im = self.maybe_tint(b_im, b, 0.2, dark)
        fl = rotate(fit(a_im, CARD_H * rng.uniform(0.24, 0.34), CARD_W * 0.7), rng.uniform(-30, 30))
        paste(card, fl, CARD_W * rng.uniform(0.35, 0.65), cy=CARD_H * rng.uniform(0.22, 0.34))
        low = fit(b_im, CARD_H * rng.uniform(0.16, 0.26), CARD_W * 0.5)
        paste(card, low, CARD_W * rng.uniform(0.3, 0.7), bottom=ground + 12)
        sources = [a_rel, b_rel]
        extra = ""
        if rng.random() < 0.45:
            c_s, c_rel, c_im = self.pick(("animal", "person", "plant", "thing"), {a_s.name, b_s.name})
            c = Placed(c_s, c_rel)
            tiny = fit(c_im, CARD_H * rng.uniform(0.06, 0.09), CARD_W * 0.2)
            paste(card, tiny, CARD_W * rng.choice([0.16, 0.84]), bottom=ground + 18)
            extra = f" while {c.phrase()} waits"
            sources.append(c_rel)
        verb = str(rng.choice(VERBS_FLOAT))
        return f"{a.phrase()} {verb} {b.phrase()}{extra}", sources

    def _layout_upside(self, card, ground, dark):
        rng = self.rng
        a_s, a_rel, a_im = self.pick(("building", "thing", "animal", "plant", "food", "person"))
        b_s, b_rel, b_im = self.pick(("person", "animal", "thing", "building"), {a_s.name})
        a, b = Placed(a_s, a_rel), Placed(b_s, b_rel)
        a_im = self.maybe_tint(a_im, a, 0.3, dark)
        b_im = self.maybe_tint(b_im, b, 0.2, dark)
        top = fit(a_im, CARD_H * rng.uniform(0.28, 0.38), CARD_W * 0.75).transpose(Image.FLIP_TOP_BOTTOM)
        cx = CARD_W / 2 + rng.uniform(-25, 25)
        draw = ImageDraw.Draw(card)
        draw.line([(cx, 0), (cx, 30)], fill=(40, 30, 30, 200), width=2)
        paste(card, top, cx, cy=30 + top.height / 2)
        low = fit(b_im, CARD_H * rng.uniform(0.14, 0.22), CARD_W * 0.45)
        paste(card, low, cx + rng.uniform(-40, 40), bottom=ground + 12)
        verb = str(rng.choice(["hangs above", "dangles over", "hangs from nowhere above"]))
        return f"an upside-down {a.phrase(False)} {verb} {b.phrase()}", [a_rel, b_rel]

    def _layout_bubble(self, card, ground, dark):
        rng = self.rng
        a_s, a_rel, a_im = self.pick(("animal", "person", "building", "plant", "thing"))
        b_s, b_rel, b_im = self.pick(("person", "animal", "thing", "building", "plant"), {a_s.name})
        a, b = Placed(a_s, a_rel), Placed(b_s, b_rel)
        a_im = self.maybe_tint(a_im, a, 0.25, dark)
        b_im = self.maybe_tint(b_im, b, 0.25, dark)
        r = CARD_W * rng.uniform(0.27, 0.34)
        cx, cy = CARD_W * rng.uniform(0.4, 0.6), CARD_H * rng.uniform(0.28, 0.38)
        inner = fit(a_im, r * 1.15, r * 1.15)
        paste(card, inner, cx, cy=cy, shadow=False)
        layer = Image.new("RGBA", card.size, (0, 0, 0, 0))
        d = ImageDraw.Draw(layer)
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(230, 245, 255, 40), outline=(255, 255, 255, 200), width=3)
        d.ellipse([cx - r * 0.6, cy - r * 0.75, cx - r * 0.15, cy - r * 0.45], fill=(255, 255, 255, 110))
        card.alpha_composite(layer.filter(ImageFilter.GaussianBlur(0.8)))
        low = fit(b_im, CARD_H * rng.uniform(0.17, 0.25), CARD_W * 0.5)
        paste(card, low, CARD_W * rng.uniform(0.3, 0.7), bottom=ground + 12)
        verb = str(rng.choice(["sleeps inside", "is trapped in", "floats in", "waits inside"]))
        holder = str(rng.choice(["a glass bubble", "a soap bubble", "a crystal sphere"]))
        tail = str(rng.choice(["above", "held over", "drifting above"]))
        return f"{a.phrase()} {verb} {holder} {tail} {b.phrase()}", [a_rel, b_rel]

    def _layout_stack(self, card, ground, dark):
        rng = self.rng
        picks = []
        names: set[str] = set()
        for kinds in (("thing", "food", "building", "animal"), ("animal", "thing", "food", "person"),
                      ("animal", "person", "thing", "plant")):
            s, rel, im = self.pick(kinds, names)
            names.add(s.name)
            picks.append((Placed(s, rel), im))
        heights = sorted(rng.uniform(0.13, 0.27, size=3), reverse=True)
        y = ground + 12
        cx = CARD_W / 2 + rng.uniform(-15, 15)
        for (obj, im), hfrac in zip(picks, heights):
            im = self.maybe_tint(im, obj, 0.2, dark)
            piece = rotate(fit(im, CARD_H * hfrac, CARD_W * 0.6), rng.uniform(-12, 12))
            box = paste(card, piece, cx + rng.uniform(-12, 12), bottom=y)
            y = box[1] + 0.12 * piece.height
        (a, _), (b, _), (c, _) = picks
        verb = str(rng.choice(["balances on", "stands on", "sits on top of"]))
        sentence = f"{c.phrase()} {verb} {b.phrase()} which rests on {a.phrase()}"
        if len(sentence.split()) > 12:
            sentence = f"a tower of {a.phrase()}, {b.phrase()} and {c.phrase()}"
        return sentence, [a.source, b.source, c.source]

    def _layout_swarm(self, card, ground, dark):
        rng = self.rng
        a_s, a_rel, a_im = self.pick(("person", "building", "animal", "thing", "plant"))
        b_s, b_rel, b_im = self.pick(("animal", "thing", "food", "plant"), {a_s.name}, simple=True)
        a, b = Placed(a_s, a_rel), Placed(b_s, b_rel)
        a_im = self.maybe_tint(a_im, a, 0.2, dark)
        b_im = self.maybe_tint(b_im, b, 0.4, dark)
        centre = fit(a_im, CARD_H * rng.uniform(0.3, 0.4), CARD_W * 0.6)
        cx = CARD_W / 2 + rng.uniform(-15, 15)
        box = paste(card, centre, cx, bottom=ground + 12)
        ccy = (box[1] + box[3]) / 2 - 20
        n = int(rng.integers(5, 9))
        small = fit(b_im, CARD_H * rng.uniform(0.06, 0.085), CARD_W * 0.18)
        radius = max(centre.width, centre.height) * 0.62 + 20
        phase = rng.uniform(0, 2 * math.pi)
        margin = 14 + max(small.width, small.height) / 2
        for k in range(n):
            ang = phase + 2 * math.pi * k / n
            piece = rotate(small, rng.uniform(-40, 40))
            px = float(np.clip(cx + radius * math.cos(ang) * 0.95, margin, CARD_W - margin))
            py = float(np.clip(ccy + radius * 0.75 * math.sin(ang), margin, CARD_H - margin))
            paste(card, piece, px, cy=py, shadow=False)
        plural = pluralize(" ".join([*b.words, b_s.name]))
        verbs = ["circle", "dance around", "surround", "spin around"]
        verb = str(rng.choice(verbs))
        if rng.random() < 0.35:
            number = NUMBERS[n]
            sentence = f"{number} tiny {plural} {verb} {a.phrase()}"
        else:
            many = str(rng.choice(["a swarm of", "a ring of", "a crowd of"]
                                  + (["a circle of"] if verb != "circle" else [])))
            verb = verb.replace("circle", "circles").replace("dance ", "dances ") \
                .replace("surround", "surrounds").replace("spin ", "spins ")
            sentence = f"{many} tiny {plural} {verb} {a.phrase()}"
        return re.sub(r"\s+", " ", sentence), [a_rel, b_rel]

    def _layout_reflection(self, card, ground, dark):
        rng = self.rng
        a_s, a_rel, a_im = self.pick(("building", "person", "animal", "thing", "plant"))
        b_s, b_rel, b_im = self.pick(("animal", "person", "building", "thing", "food", "sky"), {a_s.name})
        a, b = Placed(a_s, a_rel), Placed(b_s, b_rel)
        a_im = self.maybe_tint(a_im, a, 0.2, dark)
        up = fit(a_im, CARD_H * rng.uniform(0.26, 0.36), CARD_W * 0.7)
        cx = CARD_W / 2 + rng.uniform(-20, 20)
        paste(card, up, cx, bottom=ground + 2)
        refl = fit(b_im, min(up.height * 0.95, (CARD_H - ground) * 0.95), CARD_W * 0.7)
        refl = refl.transpose(Image.FLIP_TOP_BOTTOM)
        arr = np.asarray(refl).astype(np.float32)
        arr[..., :3] = arr[..., :3] * 0.7 + np.asarray((40, 60, 110), np.float32) * 0.3
        arr[..., 3] *= 0.55
        refl = Image.fromarray(arr.astype(np.uint8), "RGBA").filter(ImageFilter.GaussianBlur(1.2))
        paste(card, refl, cx, cy=ground + 3 + refl.height / 2, shadow=False)
        verb = str(rng.choice(["sees the reflection of", "is reflected as", "casts the reflection of"]))
        return f"{a.phrase()} {verb} {b.phrase()}", [a_rel, b_rel]

    def _layout_silhouette(self, card, ground, dark):
        rng = self.rng
        a_s, a_rel, a_im = self.pick(("animal", "person", "thing", "plant", "building"))
        b_s, b_rel, b_im = self.pick(("animal", "person", "building", "thing", "plant"), {a_s.name})
        a, b = Placed(a_s, a_rel), Placed(b_s, b_rel)
        sil = tint_image(fit(a_im, CARD_H * rng.uniform(0.24, 0.3), CARD_W * 0.55), (20, 16, 30), black=True)
        a.words.insert(0, "dark")
        paste(card, sil, CARD_W * rng.uniform(0.4, 0.6), cy=CARD_H * rng.uniform(0.25, 0.32), shadow=False)
        b_im = self.maybe_tint(b_im, b, 0.3, dark)
        low = fit(b_im, CARD_H * rng.uniform(0.14, 0.22), CARD_W * 0.45)
        paste(card, low, CARD_W * rng.uniform(0.25, 0.75), bottom=ground + 12)
        verb = str(rng.choice(["looks down on", "crosses the moon above", "watches"]))
        return f"{a.phrase()} {verb} {b.phrase()}", [a_rel, b_rel]

    def _layout_pair(self, card, ground, dark):
        rng = self.rng
        a_s, a_rel, a_im = self.pick(("animal", "person", "thing", "building", "plant", "food"))
        b_s, b_rel, b_im = self.pick(("animal", "person", "thing", "food", "plant", "building"), {a_s.name})
        a, b = Placed(a_s, a_rel), Placed(b_s, b_rel)
        a_im = self.maybe_tint(a_im, a, 0.35, dark)
        b_im = self.maybe_tint(b_im, b, 0.35, dark)
        h = CARD_H * rng.uniform(0.24, 0.32)
        left = fit(a_im, h, CARD_W * 0.44)
        right = fit(b_im, h * rng.uniform(0.85, 1.15), CARD_W * 0.44).transpose(Image.FLIP_LEFT_RIGHT)
        paste(card, left, CARD_W * 0.28, bottom=ground + 12)
        paste(card, right, CARD_W * 0.72, bottom=ground + 12)
        sources = [a_rel, b_rel]
        verb = str(rng.choice(["meets", "faces", "talks with", "waits beside", "argues with"]))
        extra = ""
        if rng.random() < 0.6:
            c_s, c_rel, c_im = self.pick(("sky", "thing", "food", "plant", "animal"), {a_s.name, b_s.name})
            c = Placed(c_s, c_rel)
            c_im = self.maybe_tint(c_im, c, 0.3, dark)
            mid = rotate(fit(c_im, CARD_H * rng.uniform(0.1, 0.14), CARD_W * 0.3), rng.uniform(-20, 20))
            paste(card, mid, CARD_W / 2, cy=CARD_H * rng.uniform(0.2, 0.3))
            extra = f" beneath {c.phrase()}"
            sources.append(c_rel)
        return f"{a.phrase()} {verb} {b.phrase()}{extra}", sources


NUMBERS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _fix_articles(sentence: str) -> str:
    words = sentence.split()
    for i in range(len(words) - 1):
        if words[i] in ("a", "an"):
            words[i] = _article(words[i + 1])
    return " ".join(words)


IRREGULAR = {"mouse": "mice", "sheep": "sheep", "fish": "fish", "deer": "deer", "man": "men",
             "woman": "women", "child": "children", "knife": "knives", "leaf": "leaves",
             "wolf": "wolves", "ox": "oxen", "tooth": "teeth", "foot": "feet", "bison": "bison",
             "scissors": "scissors", "sunglasses": "sunglasses", "binoculars": "binoculars",
             "cactus": "cacti", "moose": "moose", "octopus": "octopuses", "dice": "dice",
             "teddy bear": "teddy bears", "wizard": "wizards", "elf": "elves", "hoof": "hooves",
             "aircraft": "aircraft", "crawfish": "crawfish", "clownfish": "clownfish"}


def pluralize(phrase: str) -> str:
    words = phrase.split()
    head = words[-1]
    if phrase in IRREGULAR:
        return IRREGULAR[phrase]
    if head in IRREGULAR:
        plural = IRREGULAR[head]
    elif re.search(r"(s|x|z|ch|sh)$", head):
        plural = head + "es"
    elif re.search(r"[^aeiou]y$", head):
        plural = head[:-1] + "ies"
    elif head.endswith(("tomato", "potato")):
        plural = head + "es"
    else:
        plural = head + "s"
    return " ".join(words[:-1] + [plural])


def finish_card(card: Image.Image, rng: np.random.Generator) -> Image.Image:
    """Vignette, a cream card frame with a thin inner line, rounded corners."""
    w, h = card.size
    rgb = np.asarray(card.convert("RGB")).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.sqrt(((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2)
    rgb *= (1.0 - 0.28 * np.clip(d - 0.55, 0, 1) ** 1.5)[..., None]
    img = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB")
    frame = Image.new("RGB", (w, h), (236, 230, 214))
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle([BORDER, BORDER, w - 1 - BORDER, h - 1 - BORDER], radius=10, fill=255)
    frame.paste(img, (0, 0), mask)
    draw = ImageDraw.Draw(frame)
    draw.rounded_rectangle([BORDER - 1, BORDER - 1, w - BORDER, h - BORDER], radius=11,
                           outline=(120, 104, 84), width=1)
    draw.rounded_rectangle([0, 0, w - 1, h - 1], radius=14, outline=(196, 186, 166), width=1)
    return frame


# ----------------------------------------------------------------------------------------
# The deck
# ----------------------------------------------------------------------------------------

def _caption_ok(caption: str) -> bool:
    n = len(caption.split())
    return 6 <= n <= 16 and caption.isascii()


def _tidy(caption: str) -> str:
    caption = re.sub(r"\s+", " ", caption.replace(" ,", ",")).strip().lower()
    return _fix_articles(caption)


def build_deck(out: Path, cards: int = 96, seed: int = 0, source: Path = DEFAULT_SOURCE,
               quiet: bool = False) -> dict[str, str]:
    """Compose ``cards`` cards into ``out``; returns the captions (card id -> caption)."""
    if not source.is_dir():
        raise SystemExit(f"clip art folder {source} not found: install the Debian package "
                         "openclipart-png (apt-get install openclipart-png) or pass --source")
    rng = np.random.default_rng(seed)
    pool = collect_subjects(source)
    if not quiet:
        print(f"{len(pool)} subjects from {sum(len(v[1]) for v in pool.values())} pictures")
    maker = CardMaker(pool, ArtCache(source), rng)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("card_*.jpg"):
        old.unlink()
    captions: dict[str, str] = {}
    sources: dict[str, list[str]] = {}
    seen: set[str] = set()
    for k in range(cards):
        for _attempt in range(50):
            image, caption, used = maker.make()
            caption = _tidy(caption)
            if _caption_ok(caption) and caption not in seen:
                break
        else:
            raise RuntimeError(f"could not make a distinct caption for card {k}")
        card_id = f"card_{k:03d}"
        seen.add(caption)
        captions[card_id] = caption
        sources[card_id] = used
        image.save(out / f"{card_id}.jpg", "JPEG", quality=JPEG_QUALITY, optimize=True,
                   progressive=False, subsampling=2)
    (out / "captions.json").write_text(json.dumps(captions, indent=1) + "\n", encoding="utf-8")
    (out / "sources.json").write_text(json.dumps(sources, indent=1) + "\n", encoding="utf-8")
    (out / "LICENSE.txt").write_text(LICENSE_TEXT.format(cards=cards, seed=seed), encoding="utf-8")
    return captions


LICENSE_TEXT = """\
cluegym default Dixit deck ({cards} cards, built with seed {seed})
=================================================================

The card images in this folder (card_*.jpg) were composed by scripts/build_dixit_deck.py
from clip art of the Open Clip Art Library (https://openclipart.org), as packaged by
Debian in `openclipart-png`. Open Clip Art Library pictures are released into the public
domain (Creative Commons Zero / public domain dedication), so the composed cards are in
the public domain as well; no attribution is required. sources.json lists, for each card
id, the openclipart file names (relative to /usr/share/openclipart/png) placed on it.

captions.json maps each card id to a short caption written by the same script from the
objects, arrangement and colours it placed. Captions and compositions are dedicated to
the public domain too (CC0 1.0).

Rebuild (same seed -> identical images and captions):
    python scripts/build_dixit_deck.py --seed {seed} --cards {cards}
"""


def deck_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=96, help="number of cards (default 96)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="openclipart png folder")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.cards < 1:
        parser.error("--cards must be at least 1")
    start = time.perf_counter()
    captions = build_deck(args.out, args.cards, args.seed, args.source, args.quiet)
    elapsed = time.perf_counter() - start
    size = deck_size(args.out)
    print(f"wrote {len(captions)} cards to {args.out} in {elapsed:.1f} s; deck size {size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
