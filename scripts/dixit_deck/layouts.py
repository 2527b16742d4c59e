"""Card layouts: :class:`CardMaker` picks subjects, draws one of nine arrangements (a giant
and a tiny thing, a float, an upside-down hang, a bubble, a stack, a swarm, a reflection, a
silhouette, a pair) on a painted background, and writes the caption that says what it drew.

Example:
    >>> from dixit_deck.subjects import collect_subjects
    >>> maker = CardMaker(collect_subjects(source), ArtCache(source), np.random.default_rng(0))
    >>> image, caption, sources = maker.make()
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from dixit_deck.drawing import (
    CARD_H,
    CARD_W,
    PALETTES,
    SCENES,
    TINTS,
    ArtCache,
    finish_card,
    fit,
    make_background,
    paste,
    rotate,
    tint_image,
)
from dixit_deck.subjects import Subject, fix_articles, indefinite_article, pluralize

#: A place phrase's first word -> a synonym, used when the arrangement sentence already has it.
PREPOSITION_SWAP = {"above": "over", "over": "above", "under": "beneath", "beneath": "under",
                    "in": "within", "on": "upon", "among": "amid", "across": "through",
                    "near": "by", "before": "facing"}

#: Moods said of a background ("a {m} {c} sky").
MOODS = ("quiet", "endless", "lonely", "silent", "strange", "soft", "dreaming", "faded",
         "burning", "frozen", "gentle", "empty")

#: How captions name each background scene ({c}: the palette, {m}: a mood).
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


@dataclass
class Placed:
    """A subject placed on a card, with the picture file and the adjectives its caption says."""

    subject: Subject
    source: str
    words: list[str] = field(default_factory=list)  # adjectives said in the caption

    def phrase(self, article: bool = True) -> str:
        text = " ".join([*self.words, self.subject.name])
        if not article:
            return text
        if self.subject.plural:
            return "some " + text
        return f"{indefinite_article(text)} {text}"


#: What a giant thing does to a tiny one, by the giant's kind.
VERBS_CARRY = {"animal": ["carries", "gives a ride to", "guards", "watches over"],
               "person": ["holds", "watches over", "guards", "dreams of"],
               "thing": ["towers over", "shelters", "looms over"],
               "building": ["towers over", "shelters", "looms over"],
               "food": ["towers over", "looms over", "shelters"],
               "plant": ["shelters", "towers over", "grows over"],
               "sky": ["rises over", "watches over", "shines on"],
               "body": ["holds", "watches over", "looms over"]}
#: What a floating thing does above another.
VERBS_FLOAT = ["floats above", "drifts over", "hovers above", "flies over", "sails above"]


def _say_size(rng, big: bool) -> str:
    return str(rng.choice(["giant", "huge", "enormous"] if big else ["tiny", "small", "little"]))


class CardMaker:
    """Makes cards one at a time from a subject pool, never reusing a picture while others are left.

    Args:
        pool: subject name -> (subject, its picture files), from ``collect_subjects``.
        art: the clip-art loader.
        rng: the one random generator of the build.
    """

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
        sentence = (f"{indefinite_article(_say_size(rng, True))} {_say_size(rng, True)} {a.phrase(False)} "
                    f"{verb} {indefinite_article('tiny')} {_say_size(rng, False)} {b.phrase(False)}")
        sentence = fix_articles(sentence)
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


#: Swarm sizes in words.
NUMBERS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
