"""Drawing a card: loading clip art, painted backgrounds, tints, placing pictures, the frame.

Every random choice comes from the ``np.random.Generator`` passed in, so a seed gives the
same pixels.

Example:
    >>> background, ground = make_background("violet", "night", np.random.default_rng(0))
    >>> background.size
    (305, 460)
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

#: Card size in pixels (portrait) and the width of its cream frame.
CARD_W, CARD_H = 305, 460
BORDER = 9


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
