#!/usr/bin/env python3
"""Build cluegym's shipped default Dixit deck from the public-domain openclipart PNGs.

Each card is a dreamlike scene in the spirit of Dixit: a painted background (gradient sky,
starry night, sea, hills, a checkered floor, a giant moon...) and two or three clip-art
objects at odd scales, places, angles and colours: a giant snail carrying a tiny house, a
teapot floating in a night sky, a lighthouse whose reflection in the lake is a whale. The
caption of a card is built from what was placed, so caption-based baselines can play.

Objects come from Debian's ``openclipart-png`` (``/usr/share/openclipart/png``). Their
subjects are parsed from the file names (``animals/bat_orlando_karam_.png`` -> "bat"): the
leading words are matched against a curated English vocabulary (a few Italian and French
names are translated; ``scripts/data/dixit_deck_vocabulary.json``), so author names, numbers
and code-like names never reach a caption; images that are too small, oddly shaped, nearly
empty or thin line art are skipped. The pieces live in ``scripts/dixit_deck/``: the
vocabulary, file names -> subjects, drawing, and the card layouts with their captions.

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
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dixit_deck.drawing import ArtCache  # noqa: E402  (the builder's own modules: need the path above)
from dixit_deck.layouts import CardMaker  # noqa: E402
from dixit_deck.subjects import collect_subjects, fix_articles  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = Path("/usr/share/openclipart/png")
DEFAULT_OUT = ROOT / "envs" / "dixit" / "data" / "deck"
JPEG_QUALITY = 80


def _caption_ok(caption: str) -> bool:
    n = len(caption.split())
    return 6 <= n <= 16 and caption.isascii()


def _tidy(caption: str) -> str:
    caption = re.sub(r"\s+", " ", caption.replace(" ,", ",")).strip().lower()
    return fix_articles(caption)


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
